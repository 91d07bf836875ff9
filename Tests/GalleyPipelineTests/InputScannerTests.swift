import Foundation
import GalleyBase
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

    func scanCountingSkipped(_ folder: ScratchFolder, inputs: [String], followSymlinks: Bool) throws -> ([SourceDocument], InputScanner.Skipped) {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = inputs
        configuration.followSymlinks = followSymlinks
        let result = try InputScanner(configuration: configuration).scanCountingSkipped()
        return (result.documents, result.skipped)
    }

    /// Folders reached through links are entered with follow_symlinks (each real folder once,
    /// so a loop ends), and counted as passed over without it, never dropped in silence.
    @Test func linkedFoldersAreEnteredOnlyWithFollowSymlinksAndCountedOtherwise() throws {
        let folder = try ScratchFolder()
        try touch(folder, ["docs/a.pdf", "elsewhere/x.pdf", "elsewhere/deeper/y.pdf"])
        try FileManager.default.createSymbolicLink(atPath: folder.path("docs/linked").path, withDestinationPath: folder.path("elsewhere").path)
        try FileManager.default.createSymbolicLink(atPath: folder.path("docs/loop").path, withDestinationPath: "..")
        let (unfollowed, skipped) = try scanCountingSkipped(folder, inputs: ["docs"], followSymlinks: false)
        #expect(unfollowed.map(\.relativePath) == ["a.pdf"])
        #expect(skipped.linkedFolders.map { URL(fileURLWithPath: $0).lastPathComponent } == ["linked", "loop"])
        #expect(skipped.counts == "2 links to folders not entered (follow_symlinks: true enters them)", "\(skipped.counts)")
        let (followed, _) = try scanCountingSkipped(folder, inputs: ["docs"], followSymlinks: true)
        #expect(followed.map(\.relativePath) == ["a.pdf", "linked/deeper/y.pdf", "linked/x.pdf"])
        #expect(followed.allSatisfy { $0.refusal == nil })
    }

    /// A name that is not UTF-8 is found, listed as `ls -b` shows it and refused as
    /// `invalid-name`; one that is not a document's is counted as unsupported.
    @Test func namesThatAreNotUTF8AreReportedNotDropped() throws {
        let folder = try ScratchFolder()
        try touch(folder, ["docs/ok.pdf"])
        for name in [Array("caf".utf8) + [0xE9] + Array(".pdf".utf8), Array("notes".utf8) + [0xFF] + Array(".doc".utf8)] {
            let path = Array(folder.path("docs").path.utf8) + [0x2F] + name + [0]
            let fd = path.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
            #expect(fd >= 0)
            close(fd)
        }
        let (documents, skipped) = try scanCountingSkipped(folder, inputs: ["docs"], followSymlinks: false)
        #expect(documents.map(\.relativePath) == ["caf\\351.pdf", "ok.pdf"])
        #expect(documents.map { $0.refusal?.code.rawValue } == ["invalid-name", nil])
        #expect(skipped.unsupported.map { URL(fileURLWithPath: $0).lastPathComponent } == ["notes\\377.doc"])
    }

    @Test func missingInputIsAnError() throws {
        let folder = try ScratchFolder()
        #expect(throws: UsageError.self) { try scan(folder, inputs: ["nowhere"]) }
    }
}
