import Foundation
import GalleyTestSupport
import Testing

/// `galley diff` as a CI job runs it: its exit statuses, what it prints and writes.
@Suite struct DiffCommandTests {
    func galley(_ arguments: [String], in folder: ScratchFolder) throws -> PeerTools.Outcome {
        try #require(FileManager.default.isExecutableFile(atPath: GalleyCommandTests.binary.path), "build galley first")
        return try PeerTools.run(GalleyCommandTests.binary.path, arguments, in: folder.url)
    }

    /// Two runs of one PDF whose second page changes between them, in `before/` and `after/`.
    func twoRuns() throws -> ScratchFolder {
        let folder = try ScratchFolder("diff-cli")
        for (name, x) in [("before", 100), ("after", 140)] {
            try FileManager.default.createDirectory(at: folder.path("in-\(name)"), withIntermediateDirectories: true)
            try TestPDF.write(pages: ["0 0 1 rg 50 50 100 100 re f", "0 0 0 rg \(x) 300 200 100 re f"],
                              to: folder.path("in-\(name)/report.pdf"))
            let outcome = try galley(["run", "--input", "in-\(name)", "--output", name, "--dpi", "36"], in: folder)
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        return folder
    }

    /// `twoRuns()` once for every bad usage: each is refused before anything is read or written.
    static let runsForBadUsage = MadeOnce { try DiffCommandTests().twoRuns().keepUntilExit() }

    /// The Action's layout: the configuration in `docs/`, inputs relative to it, galley run
    /// from the repository's root with the output folder there. `--text` finds the PDFs'
    /// sources where the manifest's inputs say, relative to the configuration's folder.
    @Test func wordsAreComparedWithTheConfigurationInASubfolder() throws {
        let folder = try ScratchFolder("diff-cli-docs")
        for (name, word) in [("v1", "waits"), ("v2", "gives up")] {
            try FileManager.default.createDirectory(at: folder.path("docs/\(name)"), withIntermediateDirectories: true)
            try TestPDF.write(pages: ["BT /F1 14 Tf 72 700 Td (The request \(word) after a deadline.) Tj ET"], font: true,
                              to: folder.path("docs/\(name)/guide.pdf"))
            try "inputs: [\(name)]\ndpi: 36\nthumbnails: []\n".write(to: folder.path("docs/\(name).yml"), atomically: true, encoding: .utf8)
            let outcome = try galley(["run", "--config", "docs/\(name).yml", "--output", name], in: folder)
            #expect(outcome.status == 0, "\(outcome.stderr)")
        }
        let outcome = try galley(["diff", "v1", "v2", "--text"], in: folder)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(!outcome.stdout.contains("words not compared"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("\"waits\" → \"gives up\""), "\(outcome.stdout)")
        // From another folder, the same.
        try FileManager.default.createDirectory(at: folder.path("elsewhere"), withIntermediateDirectories: true)
        let away = try PeerTools.run(GalleyCommandTests.binary.path, ["diff", "../v1", "../v2", "--text", "--output", "../away"],
                                     in: folder.path("elsewhere"))
        #expect(away.stdout.contains("\"waits\" → \"gives up\""), "\(away.stdout)")
    }

    @Test func aChangeExitsOneAndWritesTheReview() throws {
        let folder = try twoRuns()
        let outcome = try galley(["diff", "before", "after"], in: folder)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("galley diff: changed; documents: 1 changed"))
        #expect(outcome.stdout.contains("report.pdf: page 2 changed"))
        #expect(outcome.stdout.contains(folder.path("after/diff/index.html").path))
        for name in ["diff.json", "index.html", "summary.md", "summary.txt", "pages/report/p0002-diff.png"] {
            #expect(FileManager.default.fileExists(atPath: folder.path("after/diff/\(name)").path), "\(name)")
        }
        #expect(try ManifestSchema.violations(of: folder.path("after/diff/diff.json"), schema: "diff") == [])
        // The same run against itself: nothing changed. A manifest path works as a folder does.
        let same = try galley(["diff", "before/manifest.json", "before", "--output", "same"], in: folder)
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(same.stdout.contains("galley diff: no changes"))
        // A limit the change stays within.
        let within = try galley(["diff", "before", "after", "--max-changed-fraction", "0.5", "--output", "lenient"], in: folder)
        #expect(within.status == 0, "\(within.stdout)\(within.stderr)")
    }

    @Test(arguments: [
        (["diff", "before", "nowhere"], "nowhere: no such folder or file"),
        (["diff", "before", "in-after"], "no manifest.json"),
        (["diff", "before", "after", "--threshold", "1.5"], "--threshold 1.5 is outside 0...1"),
        (["diff", "before", "after", "--max-changed-pixels", "-3"], "--max-changed-pixels"),
        (["diff", "before", "after", "--output", "after"], "is a run's output folder"),
        (["diff", "before"], "Missing expected argument"),
    ])
    func badUsageExitsTwo(arguments: [String], message: String) throws {
        let folder = try Self.runsForBadUsage.get()
        let outcome = try galley(arguments, in: folder)
        #expect(outcome.status == 2, "\(outcome.stdout)")
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("after/diff").path), "a refused diff wrote its review")
    }
}
