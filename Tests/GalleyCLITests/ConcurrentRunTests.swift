import Foundation
import GalleyTestSupport
import Testing

/// Two galleys into one output folder: the second says who has it and exits 2, or with --wait
/// runs once the folder is free; neither breaks the other.
@Suite struct ConcurrentRunTests {
    /// The first run holds the folder for as long as the test needs: its last document hangs
    /// (`GALLEY_TEST_HANG_ON`), so the second is refused while the first is surely running,
    /// however fast the machine (it used to be a race with a run of a few seconds).
    @Test func aSecondRunIntoTheSameFolderExitsTwo() throws {
        let folder = try ScratchFolder("galley-concurrent")
        try Fixtures.distinctPDFs(10, in: folder.path("docs")) { "doc-\($0).pdf" }
        try "inputs: [docs]\ndpi: 72\nthumbnails: [64]\nworkers: 1\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)

        let (first, firstOutput) = try GalleyChild.start(["run", "--progress", "plain"], in: folder.url,
                                                         environment: ["GALLEY_TEST_HANG_ON": "doc-9.pdf"])
        defer { if first.isRunning { first.terminate() } }
        #expect(firstOutput.wait(for: "[1/10]"), "\(firstOutput.current)")

        let refused = try PeerTools.run(GalleyCommandTests.binary.path, ["run"], in: folder.url)
        #expect(first.isRunning, "the first run is still going when the second is refused")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(folder.path("out").path): output folder in use by galley (pid \(first.processIdentifier)) since "),
                "\(refused.stderr)")
        #expect(refused.stderr.contains("pass --wait"))
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/manifest.json").path), "the refused run wrote nothing")

        kill(first.processIdentifier, SIGTERM)
        first.waitUntilExit()
        #expect(first.terminationStatus == 130, "\(firstOutput.current)")
        // What the first run finished is intact: the next run keeps it and draws the rest.
        let next = try PeerTools.run(GalleyCommandTests.binary.path, ["run"], in: folder.url)
        #expect(next.status == 0, "\(next.stderr)")
        let said = next.stdout + next.stderr
        #expect(said.contains("10 documents:") && said.contains(" 0 failed") && said.contains("unchanged"), "\(said)")
        #expect(!said.contains("write-failed"))
    }

    /// `--wait` waits for the holder to let go, then runs. The holder is a watcher, which keeps
    /// the folder until it is stopped, so the wait does not depend on how fast a run is (it is
    /// several times slower under the thread sanitizer).
    @Test func withWaitASecondRunRunsOnceTheFolderIsFree() throws {
        let folder = try ScratchFolder("galley-wait")
        try Fixtures.distinctPDFs(3, in: folder.path("docs")) { "doc-\($0).pdf" }
        try "inputs: [docs]\ndpi: 30\nthumbnails: [32]\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let (holder, holderOutput) = try GalleyChild.start(["watch"], in: folder.url)
        defer { if holder.isRunning { holder.terminate() } }
        #expect(holderOutput.wait(for: "images drawn"), "the watcher's first run: \(holderOutput.current)")

        let (waiting, waitingOutput) = try GalleyChild.start(["run", "--wait"], in: folder.url)
        defer { if waiting.isRunning { waiting.terminate() } }
        #expect(waitingOutput.wait(for: "in use by galley (pid \(holder.processIdentifier)) since"), "\(waitingOutput.current)")
        #expect(waitingOutput.current.contains("waiting for it"))
        Thread.sleep(forTimeInterval: 0.5)
        #expect(waiting.isRunning, "still waiting while the watcher holds the folder")
        kill(holder.processIdentifier, SIGINT)
        holder.waitUntilExit()
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 0, "\(waitingOutput.current)")
        // Everything was done when it started: it ran after the watcher, not alongside it.
        #expect(waitingOutput.wait(for: "3 documents: 0 ok, 0 failed, 3 unchanged"), "\(waitingOutput.current)")
    }
}
