import Foundation
import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import Logging
import Testing

/// `index.html`, the contact sheet people open from a CI artifact.
@Suite struct ContactSheetTests {
    /// A run over colourful PDFs, an article, and a file that fails.
    func run(workers: Int = 2, output: String = "out", in folder: ScratchFolder) throws -> RunSummary {
        if !FileManager.default.fileExists(atPath: folder.path("in").path) {
            _ = try folder.copy([Fixtures.pdf("vector-art.pdf"), Fixtures.pdf("photo.pdf"), Fixtures.pdf("mixed.pdf"),
                                 Fixtures.brokenFolder.appendingPathComponent("garbage.pdf"),
                                 Fixtures.articlesFolder.appendingPathComponent("ja-vertical.html")], into: "in")
            _ = try folder.copy([Fixtures.articlesFolder.appendingPathComponent("images/figure.png")], into: "in/images")
        }
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = output
        configuration.dpi = 40
        configuration.thumbnailBoxes = [96, 256]
        configuration.workers = Configuration.Workers(all: workers)
        return try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
    }

    @Test func everyThumbnailLinksToItsPageAndFailuresComeFirst() throws {
        let folder = try ScratchFolder("contact-sheet")
        let summary = try run(in: folder)
        let manifest = try #require(summary.manifest)
        let html = try String(contentsOf: summary.outputFolder.appendingPathComponent("index.html"), encoding: .utf8)
        // Self-contained: nothing to run, nothing fetched.
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://") && !html.contains("url("))
        let sources = attributes("src", in: html), links = attributes("href", in: html).filter { !$0.hasPrefix("#") }
        let pages = manifest.documents.flatMap(\.pages)
        #expect(sources.count == pages.count && links.count == pages.count, "one thumbnail and one link per page")
        for path in sources + links {
            #expect(FileManager.default.fileExists(atPath: summary.outputFolder.appendingPathComponent(path).path), "\(path) is missing")
        }
        // The 256 box is nearest the 200 px the sheet shows; each links to its own page image.
        #expect(sources.allSatisfy { $0.contains("/thumbs/256/") })
        #expect(zip(sources, links).allSatisfy { thumb, page in thumb.replacingOccurrences(of: "thumbs/256/", with: "") == page })
        let failure = try #require(html.range(of: "class=\"failures\""))
        let firstDocument = try #require(html.range(of: "class=\"document "))
        #expect(failure.lowerBound < firstDocument.lowerBound)
        #expect(html.contains("<strong>garbage.pdf</strong></a>: <code>not-pdf</code>"))
        #expect(html.contains("\(manifest.totals.documents) documents: \(manifest.totals.ok) ok, 1 failed"))
        // Articles show one grid per layout.
        #expect(html.contains("<h3>a4</h3>"))
    }

    @Test func theSheetIsTheSameWhateverTheWorkerCount() throws {
        let folder = try ScratchFolder("contact-sheet")
        let one = try run(workers: 1, output: "one", in: folder)
        let three = try run(workers: 3, output: "three", in: folder)
        let a = try Data(contentsOf: one.outputFolder.appendingPathComponent("index.html"))
        let b = try Data(contentsOf: three.outputFolder.appendingPathComponent("index.html"))
        #expect(a == b)
    }

    /// Headless Chromium (Debian's, from the install script) draws the sheet as a person would
    /// see it: the failure box at the top, and the thumbnails' pictures, whose colours only the
    /// loaded PNGs can put on the screen.
    @Test func chromiumShowsTheThumbnails() throws {
        let folder = try ScratchFolder("contact-sheet")
        let summary = try run(in: folder)
        let sheet = summary.outputFolder.appendingPathComponent("index.html").path
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/screenshot-contact-sheet.sh").path
        func screenshot(_ name: String) throws -> Bitmap {
            let shot = folder.path(name)
            let outcome = try PeerTools.run("bash", [script, sheet, shot.path, "1000", "1400"])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let bitmap = try Bitmap(pngData: Array(try Data(contentsOf: shot)))
            #expect(bitmap.width == 1000 && bitmap.height == 1400)
            return bitmap
        }
        /// Pixels of the failure box's tint near the top, and strongly coloured green-dominant
        /// pixels: vector-art.pdf's fills and photo.pdf's picture have them, the sheet's own
        /// text, greys, pale red and blue links do not.
        func count(_ bitmap: Bitmap) -> (failureTint: Int, green: Int) {
            var failureTint = 0, green = 0
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let p = bitmap.pixel(x: x, y: y)
                    if p == (255, 241, 240) && y < 400 { failureTint += 1 }
                    let high = max(p.r, p.g, p.b), low = min(p.r, p.g, p.b)
                    if Int(high) - Int(low) > 80 && p.g > p.r && p.g > p.b { green += 1 }
                }
            }
            return (failureTint, green)
        }
        let shown = try screenshot("shot.png")
        let counted = count(shown)
        #expect(counted.failureTint > 5000, "no failure box near the top (\(counted.failureTint) pixels)")
        #expect(ImageProperties.blackRows(shown) == 0)
        // The same sheet with its thumbnails gone loses that colour: it came from the pictures.
        for document in try FileManager.default.contentsOfDirectory(atPath: summary.outputFolder.path) {
            try? FileManager.default.removeItem(at: summary.outputFolder.appendingPathComponent(document).appendingPathComponent("thumbs"))
        }
        let broken = count(try screenshot("broken.png"))
        #expect(counted.green > 1500 && broken.green * 3 < counted.green,
                "\(counted.green) green pixels with the thumbnails, \(broken.green) without: the thumbnails did not load")
    }

    /// Values of an attribute, in order, HTML entities of `&` undone.
    private func attributes(_ name: String, in html: String) -> [String] {
        var values: [String] = []
        var rest = html[...]
        while let start = rest.range(of: " \(name)=\"") {
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            values.append(String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&").removingPercentEncoding ?? "")
            rest = rest[end...]
        }
        return values
    }
}
