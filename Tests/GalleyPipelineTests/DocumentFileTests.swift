import Foundation
import GalleyBase
import GalleyCatalog
import GalleyManifest
import GalleyPipeline
import GalleyTestSupport
import GalleyText
import Logging
import Testing

/// Whole-document files (`documents:` in pipeline.yml) through a run: written beside each
/// layout's pages, listed in the manifest, kept by reruns and removed with what made them.
struct DocumentFileTests {
    func configuration(_ folder: ScratchFolder, documents: [DocumentFormatName]) throws -> Configuration {
        if !FileManager.default.fileExists(atPath: folder.path("in").path) {
            try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
            for name in ["feature.html", "plain-book.txt"] {
                try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent(name), to: folder.path("in/\(name)"))
            }
            try FileManager.default.copyItem(at: Fixtures.pdfFolder.appendingPathComponent("article.pdf"), to: folder.path("in/article.pdf"))
        }
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.dpi = 20
        configuration.thumbnailBoxes = []
        var wide = ArticleLayout(name: "wide")
        wide.columns = 2
        configuration.layouts = [ArticleLayout(name: "narrow"), wide]
        configuration.documents = documents
        return configuration
    }

    func run(_ configuration: Configuration) throws -> Manifest {
        try #require(try Pipeline(configuration: configuration, logger: Logger(label: "test")).run().manifest)
    }

    @Test func eachLayoutGetsItsTextFileListedInTheManifest() throws {
        let folder = try ScratchFolder("documents")
        let manifest = try run(try configuration(folder, documents: [.text]))
        let articles = manifest.documents.filter { $0.kind == .markup }
        #expect(articles.count == 2 && articles.allSatisfy { $0.status == .ok })
        for article in articles {
            for layout in try #require(article.layouts) {
                let file = try #require(layout.files?.first)
                #expect(layout.files?.count == 1 && file.format == "text")
                #expect(file.path == "\(article.name)/\(layout.name)/document.txt")
                let bytes = try [UInt8](Data(contentsOf: folder.path("out/\(file.path)")))
                #expect(ContentHash.sha256(bytes) == file.sha256 && bytes.count == file.bytes)
                // One form feed between pages: the file has the layout's pages.
                #expect(bytes.filter { $0 == 0x0C }.count == layout.pageCount - 1)
            }
        }
        // PDFs have no layouts and get no document file.
        #expect(manifest.documents.first { $0.kind == .pdf }?.layouts == nil)
    }

    @Test func rerunsKeepTheFileAndTurningItOffOrRemovingTheSourceRemovesIt() throws {
        let folder = try ScratchFolder("documents-rerun")
        let on = try configuration(folder, documents: [.text])
        let first = try run(on)
        let text = folder.path("out/feature/narrow/document.txt")
        let bytes = try Data(contentsOf: text)
        // Nothing changed: the article is not typeset again, and its entry still lists the file.
        let again = try run(on)
        let feature = try #require(again.documents.first { $0.source == "feature.html" })
        #expect(feature.status == .unchanged)
        #expect(feature.layouts == first.documents.first { $0.source == "feature.html" }?.layouts)
        #expect(try Data(contentsOf: text) == bytes)
        // Turned off: the articles are set again without it, and the file goes.
        let off = try run(try configuration(folder, documents: []))
        #expect(off.documents.filter { $0.kind == .markup }.allSatisfy { $0.status == .ok && $0.layouts?.allSatisfy { $0.files == nil } == true })
        #expect(!FileManager.default.fileExists(atPath: text.path))
        #expect(FileManager.default.fileExists(atPath: folder.path("out/feature/narrow/page-0001.png").path))
        // On again, then the source goes: its file goes with its pages.
        _ = try run(on)
        #expect(FileManager.default.fileExists(atPath: text.path))
        try FileManager.default.removeItem(at: folder.path("in/feature.html"))
        _ = try run(on)
        #expect(!FileManager.default.fileExists(atPath: text.path))
        #expect(FileManager.default.fileExists(atPath: folder.path("out/plain-book/narrow/document.txt").path))
    }

    /// `pdf: true` in pipeline.yml gives every layout its PDF beside the layout's folder of
    /// pages, `<document>/<layout>.pdf`; a layout's own `pdf: false` leaves it out; turning it
    /// off removes the file and says so; a PDF input never gets one (it is not rewritten).
    @Test func pdfTrueWritesEachLayoutsPDFBesideItsPagesAndALayoutMayOptOut() throws {
        let folder = try ScratchFolder("documents-pdf-key")
        _ = try configuration(folder, documents: [])
        func load(_ pdf: Bool) throws -> Configuration {
            try Configuration.load(yaml: """
                inputs: [in]
                dpi: 20
                thumbnails: []
                pdf: \(pdf)
                layouts:
                  - name: narrow
                  - name: wide
                    columns: 2
                    pdf: false
                """, file: "pipeline.yml", baseDirectory: folder.url)
        }
        let on = try load(true)
        #expect(on.documentFormatNames(for: "narrow") == [.pdf] && on.documentFormatNames(for: "wide").isEmpty)
        let first = try run(on)
        for article in first.documents.filter({ $0.kind == .markup }) {
            let narrow = try #require(article.layouts?.first { $0.name == "narrow" })
            let file = try #require(narrow.files?.first)
            #expect(narrow.files?.count == 1 && file.format == "pdf" && file.path == "\(article.name)/narrow.pdf")
            let bytes = try [UInt8](Data(contentsOf: folder.path("out/\(file.path)")))
            #expect(bytes.starts(with: Array("%PDF-".utf8)) && ContentHash.sha256(bytes) == file.sha256)
            #expect(article.layouts?.first { $0.name == "wide" }?.files == nil)
            #expect(!FileManager.default.fileExists(atPath: folder.path("out/\(article.name)/wide.pdf").path))
        }
        #expect(first.documents.first { $0.kind == .pdf }?.layouts == nil)
        let pdf = folder.path("out/feature/narrow.pdf")
        #expect(FileManager.default.fileExists(atPath: pdf.path))
        // The contact sheet links it beside the layout's name.
        let sheet = try String(contentsOf: folder.path("out/index.html"), encoding: .utf8)
        #expect(sheet.contains("<a class=\"file\" href=\"feature/narrow.pdf\">PDF</a>"))
        // Off: the file goes, and the run says why.
        let summary = try Pipeline(configuration: try load(false), logger: Logger(label: "test")).run()
        #expect(!FileManager.default.fileExists(atPath: pdf.path))
        #expect(FileManager.default.fileExists(atPath: folder.path("out/feature/narrow/page-0001.png").path))
        #expect(summary.removals.contains { $0.description.contains("pdf is off for layout narrow") }, "\(summary.removals)")
    }
}
