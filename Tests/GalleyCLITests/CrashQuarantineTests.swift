import Foundation
import GalleyTestSupport
import Testing

/// A file that kills Galley while it is open (as one that crashes MuPDF would) is skipped as
/// `crashed` after two deaths while every other document completes: within one invocation
/// (the process restarts itself), or over several runs when the process cannot restart (a
/// SIGKILL, or restarting turned off).
///
/// The file is made deadly by the test hook `GALLEY_TEST_ABORT_ON`: the process really dies by
/// SIGABRT with the document open, so nothing in the dying run can tidy up after it.
@Suite struct CrashQuarantineTests {
    static let poison = "poison.pdf"

    func galley(_ arguments: [String], in folder: ScratchFolder, poisoned: Bool, restarting: Bool = false) throws -> PeerTools.Outcome {
        // The runtime's crash backtrace (half a second of symbolicating) is not what is tested.
        var environment = ["SWIFT_BACKTRACE": "enable=no"]
        if !restarting { environment["GALLEY_CRASH_RESTART"] = "off" }
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

    /// A fresh output folder, as a CI job has: the run dies twice with the poison open,
    /// restarts itself each time, and ends with every other document drawn and reported `ok`
    /// and the poison `crashed`, in one invocation with one exit status.
    @Test func oneInvocationSurvivesAFileThatKillsItAndReportsIt() throws {
        let folder = try ScratchFolder("galley-restart")
        let docs = try folder.copy([Fixtures.pdf("article.pdf"), Fixtures.pdf("landscape.pdf"), Fixtures.pdf("mixed.pdf")], into: "docs")
        try FileManager.default.copyItem(at: Fixtures.pdf("photo.pdf"), to: docs.appendingPathComponent(Self.poison))
        try "inputs: [docs]\ndpi: 30\nthumbnails: [32]\nworkers: 2\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let run = try galley(["run", "--progress", "plain"], in: folder, poisoned: true, restarting: true)
        #expect(!run.signalled && run.status == 1, "\(run.status): \(run.stderr)")
        #expect(run.stderr.components(separatedBy: "galley: the run died (Aborted); starting it again").count == 3, "\(run.stderr)")
        #expect(run.stdout.contains("4 documents: 3 ok, 1 failed, 0 unchanged"), "\(run.stdout)")
        let documents = try manifestDocuments(folder.path("out/manifest.json"))
        #expect((documents[Self.poison]?["error"] as? [String: Any])?["code"] as? String == "crashed")
        for source in ["article.pdf", "landscape.pdf", "mixed.pdf"] {
            #expect(documents[source]?["status"] as? String == "ok", "\(source): \(documents[source] ?? [:])")
            #expect(FileManager.default.fileExists(atPath: folder.path("out/\((source as NSString).deletingPathExtension)/page-0001.png").path))
        }
        // Those open with the poison at the first death say so.
        let warned = documents.values.filter { (($0["warnings"] as? [String]) ?? []).contains { $0.contains("while this document was open in an earlier run") } }
        #expect(!warned.isEmpty)
        #expect(try ManifestSchema.violations(of: folder.path("out/manifest.json")) == [])

        // --force opens it again: it kills the run again, and the restart skips it.
        let forced = try galley(["run", "--force"], in: folder, poisoned: true, restarting: true)
        #expect(!forced.signalled && forced.status == 1, "\(forced.status): \(forced.stderr)")
        #expect(forced.stdout.contains("poison.pdf: crashed:"), "\(forced.stdout)")
    }

    /// Each document's manifest entry by source path.
    func manifestDocuments(_ url: URL) throws -> [String: [String: Any]] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let documents = try #require(json["documents"] as? [[String: Any]])
        return Dictionary(documents.map { ($0["source"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }
}

/// Every input that once crashed a fuzz target, through a whole run of the built binary with
/// restarting off: the process never dies by a signal (a crash in scanning or the catalog would
/// show here before any document opens), and each input is reported.
@Suite struct StoredCrasherTests {
    static let failCases = Fixtures.repositoryRoot.appendingPathComponent("FuzzTesting/FailCases")

    func cases(_ target: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: Self.failCases.appendingPathComponent(target), includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    func galley(_ arguments: [String], in folder: ScratchFolder) throws -> PeerTools.Outcome {
        try PeerTools.run(GalleyCommandTests.binary.path, arguments, in: folder.url,
                          environment: ["SWIFT_BACKTRACE": "enable=no", "GALLEY_CRASH_RESTART": "off"])
    }

    @Test func storedCrashersNeverKillARun() throws {
        let folder = try ScratchFolder("galley-crashers")
        let docs = folder.path("docs")
        try FileManager.default.createDirectory(at: docs.appendingPathComponent("pictures"), withIntermediateDirectories: true)
        var expected: [String] = []
        for file in try cases("FuzzPDF") {
            try FileManager.default.copyItem(at: file, to: docs.appendingPathComponent("\(file.lastPathComponent).pdf"))
            expected.append("\(file.lastPathComponent).pdf")
        }
        for file in try cases("FuzzMarkup") {
            try FileManager.default.copyItem(at: file, to: docs.appendingPathComponent("\(file.lastPathComponent).html"))
            expected.append("\(file.lastPathComponent).html")
        }
        for file in try cases("FuzzImage") {
            try FileManager.default.copyItem(at: file, to: docs.appendingPathComponent("pictures/\(file.lastPathComponent)"))
            try "<p>Before <img src=\"pictures/\(file.lastPathComponent)\"> after.</p>\n"
                .write(to: docs.appendingPathComponent("\(file.lastPathComponent).html"), atomically: true, encoding: .utf8)
            expected.append("\(file.lastPathComponent).html")
        }
        try "inputs: [docs]\ndpi: 36\nthumbnails: [32]\npage_timeout: 20\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let run = try galley(["run", "--progress", "none"], in: folder)
        #expect(!run.signalled && [0, 1].contains(run.status), "status \(run.status), signalled \(run.signalled): \(run.stderr.suffix(2000))")
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.path("out/manifest.json"))) as? [String: Any])
        let sources = Set(((manifest["documents"] as? [[String: Any]]) ?? []).compactMap { $0["source"] as? String })
        #expect(sources == Set(expected))

        // Configurations: each read as pipeline.yml; a bad one is a usage error, never a crash.
        for file in try cases("FuzzConfiguration") {
            let config = try ScratchFolder("galley-crasher-config")
            _ = try config.copy([Fixtures.pdf("landscape.pdf")], into: "docs")
            try FileManager.default.copyItem(at: file, to: config.path("pipeline.yml"))
            let outcome = try galley(["run", "--input", "docs", "--progress", "none"], in: config)
            #expect(!outcome.signalled && [0, 1, 2].contains(outcome.status), "\(file.lastPathComponent): \(outcome.status) \(outcome.stderr)")
        }
    }
}
