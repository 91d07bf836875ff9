import Foundation
import GalleyTestSupport
import Testing

/// `galley watch` as a child process: changes are picked up once settled, Ctrl-C stops it.
@Suite struct WatchTests {
    @Test func changesAreProcessedOnceSettledAndCtrlCStopsWithStatus130() throws {
        let folder = try ScratchFolder("galley-watch")
        let docs = try folder.copy([Fixtures.pdf("photo.pdf")], into: "docs")
        // The pieces of growing.pdf below come 0.15 s apart; a debounce of 5 s keeps them one
        // change even on a loaded machine that is slow to write the next piece.
        try "inputs: [docs]\ndpi: 30\nthumbnails: [32]\ninbox: inbox\nwatch_debounce: 5\n"
            .write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let (process, output) = try GalleyChild.start(["watch"], in: folder.url)
        defer { if process.isRunning { process.terminate() } }
        #expect(output.wait(for: "images drawn"), "the first run: \(output.current)")
        // Between its runs the watcher keeps the output folder to itself.
        let refused = try PeerTools.run(GalleyCommandTests.binary.path, ["run"], in: folder.url)
        #expect(refused.status == 2 && refused.stderr.contains("output folder in use by galley (pid \(process.processIdentifier))"),
                "\(refused.stderr)")

        // A file written in pieces, each sooner than the debounce time: one run, once it is whole.
        let source = try Data(contentsOf: Fixtures.pdf("article.pdf"))
        let handle = try FileHandle(forWritingTo: { () -> URL in
            let url = docs.appendingPathComponent("growing.pdf")
            FileManager.default.createFile(atPath: url.path, contents: nil)
            return url
        }())
        let piece = source.count / 6 + 1
        for start in stride(from: 0, to: source.count, by: piece) {
            try handle.write(contentsOf: source[start..<min(source.count, start + piece)])
            Thread.sleep(forTimeInterval: 0.15)
        }
        try handle.close()
        #expect(output.wait(for: "growing.pdf → growing/: 4 pages"), "\(output.current)")
        #expect(!output.current.contains("FAILED"), "never read half-written: \(output.current)")
        #expect(output.wait(for: "images drawn", count: 2))
        #expect(output.current.components(separatedBy: "images drawn").count - 1 == 2, "one run for the whole write")

        // A file dropped in the inbox is moved into the library and processed; a different file
        // with a taken name does not replace the library's.
        try FileManager.default.copyItem(at: Fixtures.pdf("landscape.pdf"), to: folder.path("inbox/photo.pdf"))
        #expect(output.wait(for: "inbox: photo.pdf → photo-2.pdf"), "\(output.current)")
        #expect(output.wait(for: "photo-2.pdf → photo-2/: 1 page"), "\(output.current)")
        #expect(FileManager.default.contentsEqual(atPath: docs.appendingPathComponent("photo.pdf").path, andPath: Fixtures.pdf("photo.pdf").path))
        #expect(FileManager.default.contentsEqual(atPath: docs.appendingPathComponent("photo-2.pdf").path, andPath: Fixtures.pdf("landscape.pdf").path))
        #expect(!FileManager.default.fileExists(atPath: folder.path("inbox/photo.pdf").path))

        // A deleted file's outputs go.
        try FileManager.default.removeItem(at: docs.appendingPathComponent("growing.pdf"))
        #expect(output.wait(for: "outputs of 1 vanished document removed"), "\(output.current)")
        #expect(output.current.contains("galley: changed: growing.pdf (removed)"), "\(output.current)")
        #expect(output.current.contains("outputs of \(docs.appendingPathComponent("growing.pdf").path) (its source is gone)"), "\(output.current)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/growing").path))

        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(output.wait(for: "stopped watching"))
        // Every line starts with the local date and time: a watch runs for days.
        let lines = output.current.split(separator: "\n").filter { !$0.isEmpty }
        let stamped = lines.filter { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} .*/) != nil }
        #expect(stamped.count == lines.count, "\(lines.filter { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} .*/) == nil })")
    }
}
