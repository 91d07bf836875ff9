import Foundation
import GalleyManifest
import GalleyPipeline
import GalleyTestSupport
import GalleyText
import Logging
import Testing

/// Page numbers and running heads through a run: a layout's `folio` and `running_head`, and an
/// article's `@page` rules, change the page images and thumbnails and give each page in the
/// manifest its number as printed (`label`).
struct PagedMediaPipelineTests {
    static let paragraph = "<p>" + String(repeating: "The quick brown fox jumps over the lazy dog while the typesetter fills the page. ", count: 4) + "</p>"

    func run(_ folder: ScratchFolder, output: String, layout: ArticleLayout) throws -> Manifest {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = output
        configuration.dpi = 36
        configuration.thumbnailBoxes = [64]
        configuration.layouts = [layout]
        return try #require(try Pipeline(configuration: configuration, logger: Logger(label: "test")).run().manifest)
    }

    func folder(_ name: String, articles: [String: String]) throws -> ScratchFolder {
        let folder = try ScratchFolder(name)
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        for (file, html) in articles { try Data(html.utf8).write(to: folder.path("in/\(file)")) }
        return folder
    }

    @Test func folioAndRunningHeadAreDrawnOnThePagesAndLabelledInTheManifest() throws {
        let body = ["Harbours", "Lighthouses"].map { "<h1>\($0)</h1>" + String(repeating: Self.paragraph, count: 16) }.joined()
        let folder = try folder("paged-layout", articles: ["book.html": "<html><body>\(body)</body></html>"])
        var book = ArticleLayout(name: "book")
        book.folio = .bottomCenter
        book.runningHead = "h1"
        let dressed = try run(folder, output: "dressed", layout: book)
        let bare = try run(folder, output: "bare", layout: ArticleLayout(name: "book"))
        let pages = try #require(dressed.documents.first?.pages)
        let barePages = try #require(bare.documents.first?.pages)
        #expect(pages.count >= 2 && pages.count == barePages.count)
        #expect(pages.map(\.label) == pages.map { "\($0.number)" })
        #expect(barePages.allSatisfy { $0.label == nil })
        // The same text on the same pages, with numbers and heads drawn in the images and thumbnails.
        #expect(pages.map(\.columns) == barePages.map(\.columns))
        for (page, barePage) in zip(pages, barePages) {
            #expect(page.image?.sha256 != barePage.image?.sha256)
            #expect(page.thumbnails.first?.sha256 != barePage.thumbnails.first?.sha256)
        }
    }

    @Test func pageRulesOfTheArticleSetSizeBlankPagesAndLabels() throws {
        let style = "@page { size: A5; margin: 15mm; @bottom-center { content: counter(page, lower-roman) } } h1 { break-before: right }"
        let body = "<h1>One</h1>" + Self.paragraph + "<h1>Two</h1>" + Self.paragraph
        let folder = try folder("paged-css", articles: ["short.html": "<html><head><style>\(style)</style></head><body>\(body)</body></html>"])
        let manifest = try run(folder, output: "out", layout: ArticleLayout(name: "a4"))
        let pages = try #require(manifest.documents.first?.pages)
        #expect(pages.map(\.label) == ["i", "ii", "iii"])
        #expect(try ManifestSchema.violations(of: folder.path("out/manifest.json")) == [])
        #expect(pages.allSatisfy { abs($0.widthPt - 419.53) < 0.01 && abs($0.heightPt - 595.28) < 0.01 })
        // The blank page holds no text.
        #expect(pages.map { $0.lineCount ?? 0 }.map { $0 > 0 } == [true, false, true])
    }
}
