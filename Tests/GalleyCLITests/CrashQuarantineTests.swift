import Foundation
import GalleyTestSupport
import Testing

/// A file that kills Galley while it is open (as one that crashes MuPDF would) stops two runs,
/// then is skipped as `crashed` while every other document completes.
///
/// The file is made deadly by the test hook `GALLEY_TEST_ABORT_ON`: the process really dies by
/// SIGABRT with the document open, so nothing in the dying run can tidy up after it.
@Suite struct CrashQuarantineTests {
    static let poison = "poison.pdf"

    func galley(_ arguments: [String], in folder: ScratchFolder, poisoned: Bool) throws -> PeerTools.Outcome {
        // The runtime's crash backtrace (half a second of symbolicating) is not what is tested.
        var environment = ["SWIFT_BACKTRACE": "enable=no"]
        if poisoned { environment["GALLEY_TEST_ABORT_ON"] = Self.poison }
        return try PeerTools.run(GalleyCommandTests.binary.path, arguments, in: folder.url, environment: environment)
    }

    func diesOpeningThePoison(_ outcome: PeerTools.Outcome) {
        #expect(outcome.signalled && outcome.status == SIGABRT, "killed by SIGABRT: status \(outcome.status), \(outcome.stderr)")
        #expect(!outcome.stdout.contains("galley: outputs in"), "a dead run prints no summary")
    }

    @Test func aFileThatKillsGalleyIsSkippedAfterTwoDeathsAndTheOthersComplete() throws {
        let folder = try ScratchFolder("galley-crash")
        // The poison sorts last, so documents before it are still drawing when it is opened
        // (two open workers): their marks are left by the death too.
        let docs = try folder.copy([Fixtures.pdf("article.pdf"), Fixtures.pdf("landscape.pdf"), Fixtures.pdf("mixed.pdf")], into: "docs")
        let poison = docs.appendingPathComponent(Self.poison)
        try FileManager.default.copyItem(at: Fixtures.pdf("photo.pdf"), to: poison)
        try "inputs: [docs]\ndpi: 30\nthumbnails: [32]\nworkers: 2\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let manifest = folder.path("out/manifest.json")

        // Two runs die with it open; the second process is not blocked by the first's lock.
        diesOpeningThePoison(try galley(["run"], in: folder, poisoned: true))
        let second = try galley(["run"], in: folder, poisoned: true)
        diesOpeningThePoison(second)
        #expect(second.stderr.contains("stopped (its process died) while processing \(poison.path)"), "\(second.stderr)")
        #expect(!FileManager.default.fileExists(atPath: manifest.path))

        // The third is not killed: the poison is not opened, and everything else is done.
        let third = try galley(["run", "--progress", "json"], in: folder, poisoned: true)
        #expect(!third.signalled && third.status == 1, "\(third.status): \(third.stderr)")
        let message = "Galley stopped while processing this document in 2 earlier runs; it is skipped until its content changes"
        #expect(third.stderr.contains("failed: poison.pdf: crashed: \(message)"), "\(third.stderr)")
        #expect(third.stderr.contains("4 documents: ") && third.stderr.contains(", 1 failed, "))
        let failedEvent = try third.stdout.split(separator: "\n").compactMap { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }.first { $0["event"] as? String == "document_failed" }
        #expect(failedEvent?["source"] as? String == Self.poison)
        #expect((failedEvent?["error"] as? [String: Any])?["code"] as? String == "crashed")
        let documents = try manifestDocuments(manifest)
        #expect(documents[Self.poison]?["status"] as? String == "failed")
        #expect((documents[Self.poison]?["error"] as? [String: Any])?["code"] as? String == "crashed")
        #expect((documents[Self.poison]?["pages"] as? [Any])?.isEmpty == true)
        for source in ["article.pdf", "landscape.pdf", "mixed.pdf"] {
            #expect(["ok", "unchanged"].contains(documents[source]?["status"] as? String), "\(source): \(documents[source] ?? [:])")
        }
        #expect(try ManifestSchema.violations(of: manifest) == [])
        let sheet = try String(contentsOf: folder.path("out/index.html"), encoding: .utf8)
        #expect(sheet.contains("<strong>poison.pdf</strong></a>: <code>crashed</code> Galley stopped"))

        // --force tries it again, and it kills Galley again; the quarantine then holds
        // without the trigger too, counting three deaths.
        diesOpeningThePoison(try galley(["run", "--force"], in: folder, poisoned: true))
        let still = try galley(["run"], in: folder, poisoned: false)
        #expect(still.status == 1 && still.stdout.contains("poison.pdf: crashed: Galley stopped while processing this document in 3 earlier runs"),
                "\(still.stdout)")

        // New content is opened again (and here draws fine).
        try Fixtures.appendComment("fixed", to: poison)
        let fixed = try galley(["run"], in: folder, poisoned: false)
        #expect(fixed.status == 0, "\(fixed.stdout)\(fixed.stderr)")
        #expect(try manifestDocuments(manifest)[Self.poison]?["status"] as? String == "ok")
    }

    /// Each document's manifest entry by source path.
    func manifestDocuments(_ url: URL) throws -> [String: [String: Any]] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let documents = try #require(json["documents"] as? [[String: Any]])
        return Dictionary(documents.map { ($0["source"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }
}
