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
        let shot = folder.path("shot.png")
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/screenshot-contact-sheet.sh").path
        let outcome = try PeerTools.run("bash", [script, summary.outputFolder.appendingPathComponent("index.html").path, shot.path, "1000", "1400"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let bitmap = try Bitmap(pngData: Array(try Data(contentsOf: shot)))
        #expect(bitmap.width == 1000 && bitmap.height == 1400)
        var failureTint = 0, saturated = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                if p == (255, 241, 240) && y < 400 { failureTint += 1 }
                let high = max(p.r, p.g, p.b), low = min(p.r, p.g, p.b)
                if Int(high) - Int(low) > 80 { saturated += 1 }
            }
        }
        #expect(failureTint > 5000, "no failure box near the top (\(failureTint) pixels)")
        // vector-art.pdf's fills and photo.pdf's picture are strongly coloured; text and the
        // sheet's own greys and pale red are not.
        #expect(saturated > 3000, "only \(saturated) strongly coloured pixels: the thumbnails did not load")
        #expect(ImageProperties.blackRows(bitmap) == 0)
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
