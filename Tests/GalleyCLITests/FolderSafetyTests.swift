import Foundation
import GalleyTestSupport
import Testing

/// The folders a run is given are kept apart, and nothing in the output folder is taken for
/// what it claims to be.
@Suite struct FolderSafetyTests {
    func galley(_ arguments: [String], in folder: ScratchFolder) throws -> PeerTools.Outcome {
        try #require(FileManager.default.isExecutableFile(atPath: GalleyCommandTests.binary.path), "build galley first")
        return try PeerTools.run(GalleyCommandTests.binary.path, arguments, in: folder.url)
    }

    /// An inbox that is an input (or holds one, or lies in one, or holds the output folder), and
    /// an input inside the output folder, in every spelling: refused before anything moves,
    /// naming both folders.
    @Test(arguments: [
        ("inputs: [docs]\ninbox: docs\n", "the inbox 'docs'", "the input 'docs'"),
        ("inputs: [docs]\ninbox: ./docs/\n", "the inbox './docs/'", "the input 'docs'"),
        ("inputs: [docs/]\ninbox: sub/../docs\n", "the inbox 'sub/../docs'", "the input 'docs/'"),
        ("inputs: [docs]\ninbox: .\n", "holds the input 'docs'", "the inbox '.'"),
        ("inputs: [docs]\ninbox: docs/incoming\n", "is inside the input 'docs'", "the inbox 'docs/incoming'"),
        ("inputs: [docs]\ninbox: linked-docs\n", "the inbox 'linked-docs'", "is the input 'docs'"),
        ("inputs: ['docs/*.pdf']\ninbox: docs\n", "the inbox 'docs'", "the input 'docs/*.pdf'"),
        ("inputs: [docs]\ninbox: out\n", "is the output folder 'out'", "the inbox 'out'"),
        ("inputs: [docs]\ninbox: drop\noutput: drop/out\n", "holds the output folder 'drop/out'", "the inbox 'drop'"),
        ("inputs: [docs]\noutput: docs\n", "'docs'", "is the output folder"),
        ("inputs: [docs]\noutput: .\n", "'docs'", "is inside the output folder '.'"),
        ("inputs: [docs]\noutput: linked-docs\n", "'docs'", "the output folder"),
    ])
    func overlappingFoldersAreRefusedAndNothingMoves(yaml: String, names: String, other: String) throws {
        let folder = try ScratchFolder("galley-overlap")
        _ = try folder.copy([Fixtures.pdf("landscape.pdf"), Fixtures.pdf("article.pdf")], into: "docs")
        try FileManager.default.createSymbolicLink(atPath: folder.path("linked-docs").path, withDestinationPath: "docs")
        try yaml.write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let inputsBefore = try FileManager.default.contentsOfDirectory(atPath: folder.path("docs").path).sorted()
        // `watch` would watch forever had it started: `timeout` ends it (status 124).
        let binary = GalleyCommandTests.binary.path
        for (program, command) in [(binary, ["run", "--progress", "none"]), ("timeout", ["30", binary, "watch"])] {
            let outcome = try PeerTools.run(program, command, in: folder.url)
            #expect(outcome.status == 2, "\(command): \(outcome.stderr)")
            #expect(outcome.stderr.contains(names) && outcome.stderr.contains(other), "\(command): \(outcome.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("docs").path).sorted() == inputsBefore)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/manifest.json").path))
        #expect(!FileManager.default.fileExists(atPath: folder.path("docs/manifest.json").path))
    }

    /// The output folder inside an input is the default (`inputs: ["."]`, `output: out`): the
    /// scan passes it over, and an inbox beside both is fine.
    @Test func anOutputFolderInsideTheInputsAndAnInboxBesideThemRun() throws {
        let folder = try ScratchFolder("galley-apart")
        _ = try folder.copy([Fixtures.pdf("landscape.pdf")], into: "docs")
        _ = try folder.copy([Fixtures.pdf("article.pdf")], into: "drop")
        try "inputs: [docs]\noutput: docs/out\ninbox: drop\ndpi: 18\nthumbnails: []\n"
            .write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let outcome = try galley(["run", "--progress", "none"], in: folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder.path("docs/article.pdf").path), "the inbox's file moved into the input")
        #expect(FileManager.default.fileExists(atPath: folder.path("docs/out/article/page-0001.png").path))
    }
}
