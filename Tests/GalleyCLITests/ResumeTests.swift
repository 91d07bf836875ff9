import Foundation
import GalleyTestSupport
import Testing

/// `kill -9` in the middle of a run costs only the work in flight.
@Suite struct ResumeTests {
    @Test func aRunKilledMidwayIsFinishedByTheNextWithoutRedoingFinishedPages() throws {
        let folder = try ScratchFolder("galley-resume")
        try Fixtures.distinctPDFs(24, in: folder.path("docs")) { String(format: "doc-%02d.pdf", $0) }
        try "inputs: [docs]\ndpi: 200\nthumbnails: [64]\nworkers: 1\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)

        let (process, output) = try GalleyChild.start(["run"], in: folder.url)
        #expect(output.wait(for: "[4/24]"))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let out = folder.path("out")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
        // Whatever the kill left in the temporary folder (a half-written PNG) must go.
        let stray = out.appendingPathComponent(".galley/tmp/stray.tmp")
        try Data("half a png".utf8).write(to: stray)
        let finished = pngIdentities(in: out)
        #expect(finished.count >= 8, "four documents were done: \(finished.count) files")
        #expect(finished.count < 48, "the run was killed before the end")

        let rerun = try PeerTools.run(GalleyCommandTests.binary.path, ["run"], in: folder.url)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stray.path))
        let after = pngIdentities(in: out)
        #expect(after.count == 48)
        let firstTwo = finished.filter { $0.key.hasPrefix("doc-00/") || $0.key.hasPrefix("doc-01/") }
        #expect(firstTwo.count == 4, "the first two documents' image and thumbnail were finished: \(firstTwo.keys.sorted())")
        for (path, inode) in firstTwo {
            #expect(after[path] == inode, "\(path) was not drawn again")
        }
        let drawn = rerun.stdout.split(separator: "\n").first { $0.contains("images drawn") }.map(String.init) ?? ""
        #expect(drawn.hasPrefix("galley: \(48 - finished.count) images drawn") || drawn.hasPrefix("galley: \(48 - finished.count + 1) images drawn")
                || drawn.hasPrefix("galley: \(48 - finished.count + 2) images drawn"),
                "only what was not finished (or was written but not yet recorded) is drawn: \(drawn)")

        // The same outputs as a run never interrupted.
        let reference = try PeerTools.run(GalleyCommandTests.binary.path, ["run", "--output", "reference"], in: folder.url)
        #expect(reference.status == 0)
        #expect(pngIdentities(in: folder.path("reference")).keys.sorted() == after.keys.sorted())
        for path in after.keys {
            #expect(FileManager.default.contentsEqual(atPath: out.appendingPathComponent(path).path,
                                                      andPath: folder.path("reference/\(path)").path), "\(path)")
        }
        // The documents open at the kill (opened ahead of drawing) say so in the manifest.
        let inFlight = "Galley stopped (its process died) while this document was open in an earlier run"
        var warned: [String] = []
        func documents(_ url: URL) throws -> String {
            var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            // What may differ from an uninterrupted run: timings, documents finished before the
            // kill counting as unchanged, and the warning on the one in flight.
            json["run"] = nil
            json["totals"] = nil
            json["documents"] = (json["documents"] as? [[String: Any]] ?? []).map { document in
                var document = document
                if document["status"] as? String == "unchanged" { document["status"] = "ok" }
                let warnings = document["warnings"] as? [String] ?? []
                if warnings.contains(where: { $0.hasPrefix(inFlight) }) { warned.append(document["source"] as? String ?? "") }
                document["warnings"] = warnings.filter { !$0.hasPrefix(inFlight) }
                return document
            }
            return String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(try documents(out.appendingPathComponent("manifest.json")) == documents(folder.path("reference/manifest.json")))
        #expect(!warned.isEmpty && !warned.contains("doc-00.pdf"), "the documents in flight at the kill are named: \(warned)")
    }
}
