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

    func scan(_ folder: ScratchFolder, inputs: [String]) throws -> [SourceDocument] {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = inputs
        configuration.output = "docs/out"
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
    }

    @Test func missingInputIsAnError() throws {
        let folder = try ScratchFolder()
        #expect(throws: UsageError.self) { try scan(folder, inputs: ["nowhere"]) }
    }
}
