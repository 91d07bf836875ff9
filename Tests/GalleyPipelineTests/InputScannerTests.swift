import Foundation
import GalleyPipeline
import GalleyTestSupport
import Testing

@Suite struct InputScannerTests {
    func touch(_ folder: ScratchFolder, _ paths: [String]) throws {
        for path in paths {
            let url = folder.path(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("%PDF-1.4\n".utf8).write(to: url)
        }
    }

    func scan(_ folder: ScratchFolder, inputs: [String], followSymlinks: Bool = false) throws -> [SourceDocument] {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = inputs
        configuration.output = "docs/out"
        configuration.followSymlinks = followSymlinks
        return try InputScanner(configuration: configuration).scan().documents
    }

    @Test func ordersByPathAndNamesSafely() throws {
        let folder = try ScratchFolder()
        try touch(folder, ["docs/b.pdf", "docs/a b#1.PDF", "docs/sub/c.pdf", "docs/.hidden.pdf", "docs/notes.txt",
                           "docs/story.HTML", "docs/photo.jpg", "docs/out/old/page.pdf"])
        let documents = try scan(folder, inputs: ["docs"])
        #expect(documents.map(\.relativePath) == ["a b#1.PDF", "b.pdf", "notes.txt", "story.HTML", "sub/c.pdf"])
        #expect(documents.map(\.name) == ["a_b_1", "b", "notes", "story", "sub/c"])
        #expect(documents.map(\.kind) == [.pdf, .pdf, .markup, .markup, .pdf])
        #expect(documents.allSatisfy { $0.input == "docs" })
    }

    @Test func aDocumentNeverTakesAnArticlesLayoutFolder() throws {
        let folder = try ScratchFolder()
        // The article `a` writes `a/a4/page-*.png` in the default layout `a4`.
        try touch(folder, ["docs/a.html", "docs/a/a4.pdf", "docs/b/a4/x.pdf", "docs/b.txt"])
        let documents = try scan(folder, inputs: ["docs"])
        let names = Dictionary(uniqueKeysWithValues: documents.map { ($0.relativePath, $0.name) })
        #expect(names["a.html"] == "a")
        #expect(names["a/a4.pdf"] == "a/a4-2", "the article's layout folder is taken")
        // A document further down has a folder of its own inside the layout folder: no clash.
        #expect(names["b.txt"] == "b" && names["b/a4/x.pdf"] == "b/a4/x")
    }

    @Test func collidingNamesGetSuffixes() throws {
        let folder = try ScratchFolder()
        try touch(folder, ["docs/a.pdf", "docs/A.Pdf", "docs/a/thumbs/128.pdf", "docs/manifest.json.pdf"])
        let names = try scan(folder, inputs: ["docs"]).map(\.name)
        #expect(Set(names.map { $0.lowercased() }).count == names.count)
        #expect(!names.contains("a/thumbs/128"), "must not land in another document's thumbnails")
        #expect(!names.contains("manifest.json"))
    }

    @Test func globsAndFilesAreAccepted() throws {
        let folder = try ScratchFolder()
        try touch(folder, ["x/one.pdf", "y/two.pdf", "z/three.pdf"])
        let documents = try scan(folder, inputs: ["*/t*.pdf", "x/one.pdf"])
        #expect(documents.map(\.relativePath) == ["three.pdf", "two.pdf", "one.pdf"])
    }

    @Test func symbolicLinksToFilesAreReadAndFolderLinksAreNotFollowed() throws {
        let folder = try ScratchFolder()
        try touch(folder, ["elsewhere/real.pdf", "docs/a.pdf"])
        try FileManager.default.createSymbolicLink(atPath: folder.path("docs/linked.pdf").path,
                                                   withDestinationPath: folder.path("elsewhere/real.pdf").path)
        try FileManager.default.createSymbolicLink(atPath: folder.path("docs/dangling.pdf").path, withDestinationPath: "/nonexistent.pdf")
        try FileManager.default.createSymbolicLink(atPath: folder.path("docs/loop").path, withDestinationPath: "..")
        let documents = try scan(folder, inputs: ["docs"])
        #expect(documents.map(\.relativePath) == ["a.pdf", "linked.pdf"])
        // The link leads outside the input folder: listed, so the run reports it, but refused.
        #expect(documents.map { $0.refusal?.code.rawValue } == [nil, "outside-input"])
        #expect(documents[1].refusal?.message.contains(folder.path("elsewhere/real.pdf").path) == true)
    }

    @Test func linksInsideTheInputsAreReadAndFollowSymlinksReadsTheRest() throws {
        let folder = try ScratchFolder()
        try touch(folder, ["docs/sub/real.pdf", "more/other.pdf", "elsewhere/secret.txt"])
        try FileManager.default.createSymbolicLink(atPath: folder.path("docs/alias.pdf").path, withDestinationPath: "sub/real.pdf")
        // Inside another input folder: still inside the inputs.
        try FileManager.default.createSymbolicLink(atPath: folder.path("docs/other.pdf").path,
                                                   withDestinationPath: folder.path("more/other.pdf").path)
        try FileManager.default.createSymbolicLink(atPath: folder.path("docs/passwd.txt").path,
                                                   withDestinationPath: folder.path("elsewhere/secret.txt").path)
        // An input folder that is itself a link is where its files really are.
        try FileManager.default.createSymbolicLink(atPath: folder.path("linked-docs").path, withDestinationPath: folder.path("docs").path)
        let refused = try scan(folder, inputs: ["linked-docs", "more"]).filter { $0.refusal != nil }.map(\.relativePath)
        #expect(refused == ["passwd.txt"])
        #expect(try scan(folder, inputs: ["linked-docs", "more"], followSymlinks: true).allSatisfy { $0.refusal == nil })
    }

    @Test func missingInputIsAnError() throws {
        let folder = try ScratchFolder()
        #expect(throws: UsageError.self) { try scan(folder, inputs: ["nowhere"]) }
    }
}
