import Foundation
@testable import GalleyManifest
@testable import GalleyPipeline
import GalleyTestSupport
import GalleyText
import Logging
import Testing

/// The manifest is written a page at a time (`Manifest.write(to:)`); its bytes must be
/// exactly those of encoding it whole, whatever the documents hold.
@Suite struct ManifestPiecesTests {
    func pieces(_ manifest: Manifest) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try manifest.write { bytes += $0 }
        return bytes
    }

    /// The manifest written in pieces and each document's catalog entry are Foundation's bytes.
    func expectSameBytes(_ manifest: Manifest, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try pieces(manifest) == (try manifest.encoded()), sourceLocation: sourceLocation)
        let compact = Manifest.encoder(pretty: false)
        for document in manifest.documents {
            #expect(try document.encodedEntry() == Array(try compact.encode(document)), "\(document.name)", sourceLocation: sourceLocation)
        }
    }

    @Test func aRunsManifestOnDiskIsTheWholeEncoding() throws {
        let folder = try ScratchFolder("galley-manifest-pieces")
        _ = try folder.copy(["article.pdf", "photo.pdf", "rotated.pdf"].map(Fixtures.pdf), into: "in")
        try FileManager.default.copyItem(at: Fixtures.articlesFolder, to: folder.path("in/articles"))
        try Data("%PDF-1.7 not really".utf8).write(to: folder.path("in/broken.pdf"))
        try Data().write(to: folder.path("in/empty.pdf"))
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.dpi = 20
        configuration.thumbnailBoxes = [32, 64]
        var layout = ArticleLayout(name: "two")
        layout.columns = 2
        configuration.layouts = [ArticleLayout(name: "one"), layout]
        let summary = try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
        let manifest = try #require(summary.manifest)
        #expect(manifest.documents.contains { $0.status == .failed }, "failed documents are part of the case")
        #expect(manifest.documents.contains { $0.layouts != nil }, "and articles with layouts")
        let onDisk = try Data(contentsOf: folder.path("out/manifest.json"))
        #expect(Array(onDisk) == (try manifest.encoded()))
        try expectSameBytes(manifest)
        #expect(try Manifest.decode(onDisk) == manifest)
    }

    /// Strings that look like the places where pieces are spliced, empty documents and page
    /// lists, no documents at all.
    @Test func hostileStringsAndEmptyListsEncodeTheSame() throws {
        let folder = try ScratchFolder("galley-manifest-hostile")
        _ = try folder.copy([Fixtures.pdf("article.pdf"), Fixtures.pdf("photo.pdf")], into: "in")
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.dpi = 20
        configuration.thumbnailBoxes = [32]
        var manifest = try #require(try Pipeline(configuration: configuration, logger: Logger(label: "test")).run().manifest)
        try expectSameBytes(manifest)
        let hostile = ["\n  \"pages\" : [\n\n  ]", "\"documents\" : [", "a\nb\r\n  c", "引用「」", "\u{0}\u{1F}", "\\", ""]
        for (index, text) in hostile.enumerated() {
            manifest.documents[index % manifest.documents.count].warnings.append(text)
            manifest.documents[index % manifest.documents.count].name += text
        }
        manifest.documents[1].pages = []
        try expectSameBytes(manifest)
        manifest.documents = []
        try expectSameBytes(manifest)
    }
}

/// A finished page keeps its outputs' hashes as words; the manifest must get back the very
/// text it was given, leading zeros and all, and anything that is not a lowercase SHA-256 as is.
@Test func compactHashesGiveBackTheirText() {
    var generator = SystemRandomNumberGenerator()
    var samples = ["0000000000000000000000000000000000000000000000000000000000000000",
                   "00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff0001",
                   String(repeating: "f", count: 64)]
    for _ in 0..<200 {
        samples.append((0..<64).map { _ in String("0123456789abcdef".randomElement(using: &generator)!) }.joined())
    }
    for hex in samples {
        let compact = RunRecorder.CompactHash(hex)
        guard case .words = compact else { Issue.record("\(hex) kept as text"); continue }
        #expect(compact.hex == hex)
    }
    for odd in ["", "abc", String(repeating: "A", count: 64), String(repeating: "g", count: 64), String(repeating: "0", count: 65)] {
        #expect(RunRecorder.CompactHash(odd).hex == odd)
        if case .words = RunRecorder.CompactHash(odd) { Issue.record("\(odd) taken for a hash") }
    }
}

/// A page keeps its outputs' paths as their extension when they are the paths the page's
/// folder and number give, and whole otherwise; either way the manifest gets the path written.
@Test func storedOutputsGiveBackTheirPaths() {
    func written(_ path: String) -> WrittenOutput {
        WrittenOutput(path: path, width: 10, height: 20, sha256: String(repeating: "a", count: 64), bytes: 30)
    }
    let cases: [(OutputVariant, String)] = [
        (.image, "doc/page-0007.png"), (.thumbnail(box: 128), "doc/thumbs/128/page-0007.webp"),
        (.image, "elsewhere/page-0007.png"), (.image, "doc/page-0007"), (.thumbnail(box: 64), "doc/thumbs/128/page-0007.png"),
    ]
    for (variant, path) in cases {
        #expect(RunRecorder.StoredOutput(variant, written(path), folder: "doc", page: 7).path(folder: "doc", page: 7) == path)
    }
    var outputs = RunRecorder.PageOutputs()
    for box in [64, 128, 256] {
        outputs.set(RunRecorder.StoredOutput(.thumbnail(box: box), written("doc/thumbs/\(box)/page-0007.png"), folder: "doc", page: 7))
    }
    outputs.set(RunRecorder.StoredOutput(.image, written("doc/page-0007.png"), folder: "doc", page: 7))
    outputs.set(RunRecorder.StoredOutput(.thumbnail(box: 128), written("doc/thumbs/128/page-0007.jpg"), folder: "doc", page: 7))
    #expect(outputs.count == 4)
    #expect(outputs.all.map { $0.path(folder: "doc", page: 7) }.sorted()
        == ["doc/page-0007.png", "doc/thumbs/128/page-0007.jpg", "doc/thumbs/256/page-0007.png", "doc/thumbs/64/page-0007.png"])
}
