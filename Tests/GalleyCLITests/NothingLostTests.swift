import Foundation
import GalleyRaster
import GalleyTestSupport
import Testing

/// A full disk and a thumbnails-only pass: what a user has is kept or named, never lost
/// in silence.
@Suite struct NothingLostTests {
    func galley(_ arguments: [String], in folder: ScratchFolder, fileSizeLimitKiB: Int? = nil) throws -> PeerTools.Outcome {
        let binary = GalleyCommandTests.binary.path
        guard let limit = fileSizeLimitKiB else { return try PeerTools.run(binary, arguments, in: folder.url) }
        // The limit applies to galley and what it writes, as a full disk would (bash counts
        // in KiB; POSIX sh in 512-byte blocks).
        let command = "ulimit -f \(limit); exec \"$0\" \"$@\""
        return try PeerTools.run("/bin/bash", ["-c", command, binary] + arguments, in: folder.url)
    }

    func pngs(under url: URL) -> [String] {
        let files = FileManager.default.enumerator(atPath: url.path)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".png") && !$0.hasPrefix(".galley") }.sorted()
    }

    /// The thread sanitizer's runtime cannot start under a file-size limit (even `galley
    /// --version` dies of SIGBUS in it), so this test runs in the normal and the address-sanitizer
    /// passes only.
    static let underThreadSanitizer: Bool = {
        #if GALLEY_THREAD_SANITIZER
        true
        #else
        false
        #endif
    }()

    @Test(.disabled(if: underThreadSanitizer, "the thread sanitizer's runtime dies under ulimit -f"))
    func aFullDiskFailsTheDocumentsItStopsAndTheRunStillReports() throws {
        let folder = try ScratchFolder("galley-full")
        _ = try folder.copy(["article.pdf", "photo.pdf", "vector-art.pdf", "rotated.pdf"].map(Fixtures.pdf), into: "docs")
        try "inputs: [docs]\ndpi: 150\nthumbnails: [64]\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        // 256 KiB per file: the catalog opens and thumbnails fit; 150 dpi page images (over 400 KiB) do not.
        let full = try galley(["run", "--progress", "none"], in: folder, fileSizeLimitKiB: 256)
        #expect(full.status == 1, "exit status \(full.status): \(full.stderr)")
        #expect(full.stdout.contains("documents:"), "the summary still prints: \(full.stdout)")
        let failures = full.stdout.split(separator: "\n").filter { $0.contains("failed: ") && $0.contains("write-failed") }
        #expect(!failures.isEmpty, "\(full.stdout)")
        #expect(failures.allSatisfy { $0.contains("/out/") && $0.contains("File too large") }, "path and the system's reason")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.path("out/manifest.json"))) as? [String: Any]
        let documents = (manifest?["documents"] as? [[String: Any]]) ?? []
        let failed = Set(documents.filter { $0["status"] as? String == "failed" }.compactMap { $0["name"] as? String })
        #expect(!failed.isEmpty)
        let listed = Set(documents.flatMap { document in
            ((document["pages"] as? [[String: Any]]) ?? []).flatMap { page -> [String] in
                ((page["image"] as? [String: Any]).flatMap { $0["path"] as? String }.map { [$0] } ?? [])
                    + ((page["thumbnails"] as? [[String: Any]]) ?? []).compactMap { $0["path"] as? String }
            }
        })
        // Nothing half-written: every PNG on disk is whole, and listed unless its document
        // failed (a failed document's pages are not listed); no temporary file is left.
        for png in pngs(under: folder.path("out")) {
            #expect(throws: Never.self, "\(png) is not a whole PNG") { _ = try Bitmap(pngData: Array(try Data(contentsOf: folder.path("out/\(png)")))) }
            let document = String(png.prefix { $0 != "/" })
            #expect(listed.contains(png) || failed.contains(document), "\(png) is on disk but not in the manifest")
        }
        let temporary = (try? FileManager.default.contentsOfDirectory(atPath: folder.path("out/.galley/tmp").path)) ?? []
        #expect(temporary.isEmpty)
        // With room again, the next run completes from a consistent catalog.
        let recovered = try galley(["run", "--progress", "none"], in: folder)
        #expect(recovered.status == 0, "\(recovered.stdout)\(recovered.stderr)")
        // Every document ends ok: drawn now, or unchanged when the first run finished it and
        // its catalog row was written before the catalog file reached the limit (which of them
        // did depends on timing).
        let summary = try #require(recovered.stdout.firstMatch(of: /4 documents: (\d+) ok, 0 failed, (\d+) unchanged/),
                                   "\(recovered.stdout)")
        #expect(Int(summary.1)! + Int(summary.2)! == 4, "\(recovered.stdout)")
        let after = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.path("out/manifest.json"))) as? [String: Any]
        let statuses = ((after?["documents"] as? [[String: Any]]) ?? []).compactMap { $0["status"] as? String }
        #expect(statuses.count == 4 && statuses.allSatisfy { $0 == "ok" || $0 == "unchanged" }, "\(statuses)")
    }

    /// Documents named with one character (`x.pdf`, or in a folder `d/`) that go away: their
    /// outputs are removed by the next run, which must not die (Foundation's
    /// deletingLastPathComponent trapped on the folder `x`, every later run exiting 132).
    @Test func oneCharacterNamesThatVanishAreRemovedAndTheRunGoesOn() throws {
        let folder = try ScratchFolder("one-character")
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input.appendingPathComponent("d"), withIntermediateDirectories: true)
        for name in ["x.pdf", "d/y.pdf", "kept.pdf"] {
            try FileManager.default.copyItem(at: Fixtures.pdf("cropped.pdf"), to: input.appendingPathComponent(name))
            try Fixtures.appendComment(name, to: input.appendingPathComponent(name))
        }
        let first = try galley(["run", "--input", "in", "--output", "out", "--dpi", "20", "--progress", "none"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(pngs(under: folder.path("out")).contains("x/page-0001.png"))
        try FileManager.default.removeItem(at: input.appendingPathComponent("x.pdf"))
        try FileManager.default.moveItem(at: input.appendingPathComponent("d/y.pdf"), to: input.appendingPathComponent("z.pdf"))
        for _ in 0..<2 {
            let again = try galley(["run", "--input", "in", "--output", "out", "--dpi", "20", "--progress", "none"], in: folder)
            #expect(!again.signalled && again.status == 0, "status \(again.status) (signal: \(again.signalled)): \(again.stderr)")
            #expect(FileManager.default.fileExists(atPath: folder.path("out/manifest.json").path))
            let left = pngs(under: folder.path("out"))
            #expect(!left.contains { $0.hasPrefix("x/") || $0.hasPrefix("d/") }, "\(left)")
            #expect(left.contains("kept/page-0001.png") && left.contains("z/page-0001.png"), "\(left)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("out/x").path) && !FileManager.default.fileExists(atPath: folder.path("out/d").path))
        }
    }

    /// A PDF whose page tree claims a billion pages among good ones: the run allocated every
    /// claimed page number and aborted, writing no manifest. Now that document fails as
    /// impossible-page-tree with the pages it holds drawn, and the others are drawn.
    @Test func aPageTreeClaimingABillionPagesFailsAloneWithItsPagesDrawn() throws {
        let folder = try ScratchFolder("page-count")
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPDF.write(pages: ["0 0 1 rg 10 10 50 50 re f", "1 0 0 rg 10 10 50 50 re f"], claimedCount: 1_000_000_000,
                          to: input.appendingPathComponent("liar.pdf"))
        try FileManager.default.copyItem(at: Fixtures.pdf("cropped.pdf"), to: input.appendingPathComponent("good.pdf"))
        let outcome = try galley(["run", "--input", "in", "--output", "out", "--dpi", "20", "--progress", "none"], in: folder)
        #expect(!outcome.signalled && outcome.status == 1, "status \(outcome.status) (signal: \(outcome.signalled)): \(outcome.stderr)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.path("out/manifest.json"))) as? [String: Any])
        let documents = try #require(manifest["documents"] as? [[String: Any]])
        let liar = try #require(documents.first { $0["source"] as? String == "liar.pdf" })
        let good = try #require(documents.first { $0["source"] as? String == "good.pdf" })
        #expect(good["status"] as? String == "ok")
        #expect(liar["status"] as? String == "failed")
        let error = try #require(liar["error"] as? [String: Any])
        #expect(error["code"] as? String == "impossible-page-tree")
        #expect((error["message"] as? String)?.contains("claims 1000000000 pages but holds 2") == true, "\(error)")
        #expect(pngs(under: folder.path("out")).filter { $0.hasPrefix("liar/page-") } == ["liar/page-0001.png", "liar/page-0002.png"])
        #expect(try ManifestSchema.violations(of: folder.path("out/manifest.json")) == [])
    }

    @Test func aManifestThatCannotBeWrittenIsTheSummarysLastLine() throws {
        let folder = try ScratchFolder("galley-manifest")
        _ = try folder.copy([Fixtures.pdf("article.pdf")], into: "docs")
        try "inputs: [docs]\ndpi: 20\nthumbnails: []\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        // A folder in the manifest's place: it cannot be renamed over.
        try FileManager.default.createDirectory(at: folder.path("out/manifest.json/taken"), withIntermediateDirectories: true)
        let outcome = try galley(["run", "--progress", "none"], in: folder)
        #expect(outcome.status == 1)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.first?.contains("1 document: 1 ok") == true, "\(outcome.stdout)")
        #expect(lines.last?.hasPrefix("galley: the manifest could not be written") == true, "\(outcome.stdout)")
        #expect(lines.last?.contains("manifest.json") == true)
    }

    @Test func thumbsNeverRemovesPageImagesAndEveryRemovalIsNamed() throws {
        let folder = try ScratchFolder("galley-thumbs-keep")
        _ = try folder.copy([Fixtures.pdf("article.pdf"), Fixtures.pdf("photo.pdf")], into: "docs")
        try "inputs: [docs]\nthumbnails: [64, 96]\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let made = try galley(["run", "--dpi", "72", "--progress", "none"], in: folder)
        #expect(made.status == 0, "\(made.stdout)")
        let images = pngs(under: folder.path("out")).filter { !$0.contains("/thumbs/") }
        #expect(images.count == 5)
        // Other settings than the run that made the page images: refused, nothing touched.
        let refused = try galley(["thumbs"], in: folder)
        #expect(refused.status == 2, "\(refused.stdout)\(refused.stderr)")
        #expect(refused.stderr.contains("were made with other settings") && refused.stderr.contains("--dpi"), "\(refused.stderr)")
        #expect(pngs(under: folder.path("out")).filter { !$0.contains("/thumbs/") } == images)
        // The same settings: thumbnails made, page images kept and listed.
        let thumbs = try galley(["thumbs", "--dpi", "72"], in: folder)
        #expect(thumbs.status == 0, "\(thumbs.stdout)\(thumbs.stderr)")
        #expect(pngs(under: folder.path("out")).filter { !$0.contains("/thumbs/") } == images)
        // A box taken out of the configuration: its thumbnails go, and the summary says so.
        try "inputs: [docs]\nthumbnails: [64]\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let fewer = try galley(["run", "--dpi", "72", "--progress", "none"], in: folder)
        #expect(fewer.stdout.contains("removed: 4 thumbnails of article.pdf (thumbnail box 96 no longer configured)"), "\(fewer.stdout)")
        #expect(fewer.stdout.contains("removed: 1 thumbnail of photo.pdf (thumbnail box 96 no longer configured)"), "\(fewer.stdout)")
        // A vanished source: its outputs go, named.
        try FileManager.default.removeItem(at: folder.path("docs/photo.pdf"))
        let vanished = try galley(["run", "--dpi", "72", "--progress", "none"], in: folder)
        #expect(vanished.stdout.contains("removed: 2 outputs of \(folder.path("docs/photo.pdf").path) (its source is gone)"), "\(vanished.stdout)")
    }
}
