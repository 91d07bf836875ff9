import Foundation
import GalleyPDF
@testable import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import GalleyText
import Logging
import Testing

/// Pictures in articles are held at the resolution they are drawn at, not the file's: an
/// article of eight 6,300 px photos took 1.5 GB, eight SVGs declaring a huge size as much.
@Suite struct PictureMemoryTests {
    /// A PNG of `width` x `height`, its left half red and its right half blue.
    func halves(_ width: Int, _ height: Int) throws -> [UInt8] {
        let bitmap = try Bitmap(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let o = y * bitmap.rowBytes + x * 3
                (bitmap.pixels[o], bitmap.pixels[o + 1], bitmap.pixels[o + 2]) = x < width / 2 ? (220, 20, 20) : (20, 20, 220)
            }
        }
        return try bitmap.pngData()
    }

    func article(_ folder: ScratchFolder) throws -> URL {
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try Data(try halves(2400, 1600)).write(to: input.appendingPathComponent("photo.png"))
        try Data(try halves(100, 50)).write(to: input.appendingPathComponent("small.png"))
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="10000"><rect width="10000" height="10000" fill="red"/></svg>"#.utf8)
            .write(to: input.appendingPathComponent("huge.svg"))
        let html = input.appendingPathComponent("a.html")
        try Data("<p>Words.</p><p><img src=photo.png></p><p><img src=small.png></p><p><img src=huge.svg></p>".utf8).write(to: html)
        return html
    }

    func configuration(_ folder: ScratchFolder) -> Configuration {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = "out"
        configuration.dpi = 72
        configuration.thumbnailBoxes = [96]
        configuration.layouts = [ArticleLayout(name: "a4")]
        return configuration
    }

    @Test func picturesLargerThanTheirColumnAreHeldNoLargerThanTwiceWhatIsDrawn() throws {
        let folder = try ScratchFolder()
        let html = try article(folder)
        let configuration = configuration(folder)
        let document = SourceDocument(url: html, input: "in", relativePath: "a.html", kind: .markup, name: "a", refusal: nil)
        let opened = try OpenedArticle(document: document, configuration: configuration, engine: try MuPDFEngine())
        // At 72 dpi an A4 page is 595 x 842 px, and nothing is drawn larger than its column.
        let layout = configuration.layouts[0]
        let photo = try #require(opened.images["photo.png"])
        #expect(photo.width < 2 * Int(layout.pageWidth) && photo.height < 2 * Int(layout.pageHeight), "\(photo.width) x \(photo.height)")
        let svg = try #require(opened.images["huge.svg"])
        #expect(svg.width * svg.height <= 4 * Int(layout.pageWidth * layout.pageHeight), "\(svg.width) x \(svg.height)")
        // A picture already about its drawn size keeps every pixel.
        #expect(opened.images["small.png"].map { [$0.width, $0.height] } == [100, 50])

        // Laid out and drawn as before: column-wide, its aspect ratio kept, its halves in place.
        let summary = try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
        let manifest = try #require(summary.manifest)
        let pages = try #require(manifest.documents.first).pages
        let placed = pages.flatMap { page in (page.attachments ?? []).filter { $0.source == "photo.png" }.map { (page, $0.rect) } }
        let (page, rect) = try #require(placed.first)
        let column = try #require(page.columns?.first).rect
        #expect(abs(rect.width - column.width) < 0.01 && abs(rect.height - column.width * 1600 / 2400) < 0.01)
        let bitmap = try Bitmap(pngData: Array(try Data(contentsOf: summary.outputFolder.appendingPathComponent(try #require(page.image?.path)))))
        let y = Int(rect.y + rect.height / 2)
        #expect(bitmap.pixel(x: Int(rect.x + rect.width * 0.25), y: y) == (220, 20, 20))
        #expect(bitmap.pixel(x: Int(rect.x + rect.width * 0.75), y: y) == (20, 20, 220))
        // The SVG keeps its declared size (15,000 pt wide), scaled into the column.
        let drawing = try #require(pages.flatMap { $0.attachments ?? [] }.first { $0.source == "huge.svg" }).rect
        #expect(abs(drawing.width / drawing.height - 2) < 0.01)
    }
}
