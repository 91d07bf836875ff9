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

/// Links planted in the output folder are never written, replaced or deleted through.
@Suite struct OutputLinkTests {
    /// A folder with two PDFs in `docs/`, a configuration, and `outside/` holding `keep.png`
    /// and `page-0001.png`: what a planted link would lead to.
    func folder() throws -> ScratchFolder {
        let folder = try ScratchFolder("galley-links")
        _ = try folder.copy([Fixtures.pdf("landscape.pdf"), Fixtures.pdf("article.pdf")], into: "docs")
        try "inputs: [docs]\ndpi: 18\nthumbnails: [32]\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: folder.path("outside"), withIntermediateDirectories: true)
        for name in ["keep.png", "page-0001.png"] { try Data("not Galley's".utf8).write(to: folder.path("outside/\(name)")) }
        return folder
    }

    func run(_ folder: ScratchFolder) throws -> PeerTools.Outcome {
        try PeerTools.run(GalleyCommandTests.binary.path, ["run", "--progress", "none"], in: folder.url)
    }

    func outsideIsUntouched(_ folder: ScratchFolder) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path("outside").path).sorted()
        #expect(names == ["keep.png", "page-0001.png"], "written into or deleted from outside/")
        for name in names { #expect(try String(contentsOf: folder.path("outside/\(name)"), encoding: .utf8) == "not Galley's") }
    }

    func link(_ path: String, to target: String, in folder: ScratchFolder) throws {
        try? FileManager.default.removeItem(at: folder.path(path))
        try FileManager.default.createDirectory(at: folder.path(path).deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path(path).path, withDestinationPath: folder.path(target).path)
    }

    @Test func aLinkedLockOrStateFolderStopsTheRunAndItsTargetIsKept() throws {
        for (path, target) in [("out/.galley/lock", "outside/keep.png"), ("out/.galley", "outside")] {
            let folder = try folder()
            try link(path, to: target, in: folder)
            let outcome = try run(folder)
            #expect(outcome.status == 2, "\(path): \(outcome.stderr)")
            #expect(outcome.stderr.contains("symbolic link"), "\(outcome.stderr)")
            try outsideIsUntouched(folder)
        }
    }

    @Test func aDocumentsLinkedFolderFailsThatDocumentAloneAndNothingIsWrittenThrough() throws {
        let folder = try folder()
        try link("out/landscape", to: "outside", in: folder)
        let outcome = try run(folder)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        let manifest = try String(contentsOf: folder.path("out/manifest.json"), encoding: .utf8)
        #expect(manifest.contains("is a symbolic link"), "the failure names the link")
        #expect(FileManager.default.fileExists(atPath: folder.path("out/article/page-0001.png").path), "the other document is drawn")
        try outsideIsUntouched(folder)
    }

    @Test func aPageReplacedByALinkIsNotTakenForThePageNorWrittenThrough() throws {
        let folder = try folder()
        #expect(try run(folder).status == 0)
        try link("out/landscape/page-0001.png", to: "outside/page-0001.png", in: folder)
        let outcome = try run(folder)
        #expect(outcome.status == 1, "\(outcome.stderr)")
        #expect(try String(contentsOf: folder.path("out/manifest.json"), encoding: .utf8).contains("is a symbolic link"))
        try outsideIsUntouched(folder)
    }

    @Test func aLinkedDiffFolderIsNotWrittenThrough() throws {
        let folder = try folder()
        #expect(try run(folder).status == 0)
        try FileManager.default.copyItem(at: folder.path("out"), to: folder.path("base"))
        try link("out/diff", to: "outside", in: folder)
        let outcome = try PeerTools.run(GalleyCommandTests.binary.path, ["run", "--force", "--baseline", "base", "--progress", "none"],
                                        in: folder.url)
        #expect(outcome.stdout.contains("symbolic link") || outcome.stderr.contains("symbolic link"), "\(outcome.stdout)\(outcome.stderr)")
        try outsideIsUntouched(folder)
    }

    @Test func aVanishedDocumentsLinkedFolderIsNotEmptiedThroughTheLink() throws {
        let folder = try folder()
        #expect(try run(folder).status == 0)
        try FileManager.default.removeItem(at: folder.path("docs/landscape.pdf"))
        try FileManager.default.removeItem(at: folder.path("out/landscape"))
        try link("out/landscape", to: "outside", in: folder)
        let outcome = try run(folder)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        try outsideIsUntouched(folder)
    }
}
