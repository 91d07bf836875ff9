import Foundation
import GalleyManifest
import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import GalleyText
import Logging
import Testing

/// Pictures in articles through the whole pipeline: files found next to the article, decoded,
/// sized, drawn into the page images and reported in the manifest; refusals and failures as
/// warnings on a document that still succeeds.
@Suite struct ArticleImageTests {
    func run(_ folder: ScratchFolder, dpi: Double = 72, output: String = "out",
             layouts: [ArticleLayout] = [ArticleLayout(name: "a4")]) throws -> (RunSummary, Manifest) {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = output
        configuration.dpi = dpi
        configuration.thumbnailBoxes = [96]
        configuration.layouts = layouts
        let summary = try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
        return (summary, try #require(summary.manifest))
    }

    func pageImage(_ summary: RunSummary, _ page: Manifest.Page) throws -> Bitmap {
        let path = try #require(page.image?.path)
        return try Bitmap(pngData: Array(try Data(contentsOf: summary.outputFolder.appendingPathComponent(path))))
    }

    /// Frames of `source` on every page, with the page they are on.
    func frames(_ document: Manifest.Document, _ source: String) -> [(page: Manifest.Page, frame: Manifest.AttachmentFrame)] {
        document.pages.flatMap { page in (page.attachments ?? []).filter { $0.source == source }.map { (page, $0) } }
    }

    @Test func theMagazinesPicturesAreSizedDrawnAndReportedAndTheMissingOneIsAWarning() throws {
        let folder = try ScratchFolder()
        _ = try folder.copy([Fixtures.articlesFolder.appendingPathComponent("magazine.html")], into: "in")
        try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent("images"), to: folder.path("in/images"))
        for dpi in [50.0, 144] {
            let (summary, manifest) = try run(folder, dpi: dpi, output: "out-\(Int(dpi))")
            let document = try #require(manifest.documents.first)
            #expect(document.status == .ok)
            #expect(document.warnings == ["image \"images/missing.png\": no such file"])
            // width="320" px → 240 pt, the height from the JPEG's 160 × 100 pixels.
            let photo = try #require(frames(document, "images/photo.jpg").first)
            #expect(photo.frame.rect.width == 240 && photo.frame.rect.height == 150)
            // No width or height: the PNG's 120 × 80 pixels at 0.75 pt.
            let natural = frames(document, "images/figure.png").map(\.frame.rect).filter { $0.width != 180 }
            #expect(natural.count == 1 && natural.first?.width == 90 && natural.first?.height == 60)
            // height="16" px → 12 pt, and as wide as the square badge is.
            #expect(frames(document, "images/badge.png").map(\.frame.rect.width) == [12])

            let bitmap = try pageImage(summary, photo.page)
            let scale = dpi / 72
            let rect = photo.frame.rect
            let y = Int((rect.y + rect.height / 2) * scale)
            let left = bitmap.pixel(x: Int((rect.x + rect.width * 0.2) * scale), y: y)
            let right = bitmap.pixel(x: Int((rect.x + rect.width * 0.8) * scale), y: y)
            #expect(near(left, (30, 80, 200)), "dpi \(dpi): \(left)")
            #expect(near(right, (230, 140, 20)), "dpi \(dpi): \(right)")
            for (page, frame) in frames(document, "images/figure.png") + frames(document, "images/missing.png") {
                let column = try #require(page.columns?[frame.column]).rect
                #expect(frame.rect.x >= column.x && frame.rect.x + frame.rect.width <= column.x + column.width + 0.001)
                #expect(frame.rect.y >= column.y && frame.rect.y + frame.rect.height <= column.y + column.height + 0.001)
            }
            #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")) == [])
        }
    }

    @Test func urlsPathsOutsideTheInputAndBrokenFilesAreRefusedWithWarningsAndPlaceholders() throws {
        let folder = try ScratchFolder()
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let figure = Fixtures.articlesFolder.appendingPathComponent("images/figure.png")
        try FileManager.default.copyItem(at: figure, to: folder.path("secret.png"))
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("link.png").path, withDestinationPath: "../secret.png")
        try Data("not a picture at all".utf8).write(to: input.appendingPathComponent("broken.png"))
        try FileManager.default.copyItem(at: figure, to: input.appendingPathComponent("good.png"))
        let sources = ["http://example.com/a.png", "data:image/png;base64,iVBORw0KGgo=", "../secret.png", "link.png",
                       "missing.png", "broken.png", "missing.png", "good.png"]
        let body = sources.map { "<p>Picture: <img src=\"\($0)\" width=\"80\" height=\"60\"> in a line of text.</p>" }
        try Data(("<html><body>" + body.joined(separator: "\n") + "</body></html>").utf8).write(to: input.appendingPathComponent("article.html"))

        let (summary, manifest) = try run(folder)
        let document = try #require(manifest.documents.first)
        #expect(document.status == .ok)
        let warnings = document.warnings
        #expect(warnings.count == 6, "\(warnings)")
        guard warnings.count == 6 else { return }
        #expect(warnings[0] == "image \"http://example.com/a.png\": URLs are not fetched")
        #expect(warnings[1] == "image \"data:image/png;base64,iVBORw0KGgo=\": URLs are not fetched")
        #expect(warnings[2].hasPrefix("image \"../secret.png\": outside the input folder"))
        #expect(warnings[3].hasPrefix("image \"link.png\": outside the input folder"))
        #expect(warnings[4] == "image \"missing.png\": no such file")
        #expect(warnings[5].hasPrefix("image \"broken.png\": MuPDF cannot decode it: "))

        // Every refused picture is a placeholder; the good one is drawn.
        let page = try #require(document.pages.first)
        let bitmap = try pageImage(summary, page)
        for frame in page.attachments ?? [] {
            let centre = bitmap.pixel(x: Int(frame.rect.x + frame.rect.width / 2), y: Int(frame.rect.y + frame.rect.height / 2))
            if frame.source == "good.png" {
                #expect(centre != (238, 238, 238), "good.png is drawn")
            } else {
                #expect(centre == (238, 238, 238), "\(frame.source) shows the placeholder")
            }
        }
        #expect(page.attachments?.count == sources.count)
    }

    /// A picture that cannot be read, with an `alt` text and no size in the markup, is set as
    /// its text, as browsers and WeasyPrint show it (a DocBook note's missing `[Tip]` icon was a
    /// 120 × 90 pt box that squeezed the note into a narrow column); one with a size, or with
    /// no text to show, keeps its placeholder; each is still warned about.
    @Test func aMissingPictureWithAnAltTextAndNoSizeIsSetAsItsText() throws {
        let folder = try ScratchFolder()
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let html = "<html><body><table><tr><td><img src='tip.png' alt='[Tip]'></td><td>Install the package first.</td></tr></table>"
            + "<p>No text: <img src='gone.png'> and sized: <img src='sized.png' alt='Sized' width='80' height='60'>"
            + " <img src='wide.png' alt='Wide' style='width: 50%'>.</p></body></html>"
        try Data(html.utf8).write(to: input.appendingPathComponent("note.html"))
        let (_, manifest) = try run(folder)
        let document = try #require(manifest.documents.first)
        #expect(document.status == .ok)
        #expect(document.warnings.contains("image \"tip.png\": no such file"), "\(document.warnings)")
        let sources = document.pages.flatMap { $0.attachments ?? [] }.map(\.source)
        // A percentage width is a size too: that picture keeps its box.
        #expect(sources.sorted() == ["gone.png", "sized.png", "wide.png"], "\(sources)")
        // The text is set: the table's first column is as wide as "[Tip]", not 120 pt (the
        // cells are listed by `galley typeset --json`, not in the manifest).
        var configuration = Configuration()
        configuration.layouts = [ArticleLayout(name: "a4")]
        let measured = try TypesetMeasurement.measure(file: input.appendingPathComponent("note.html"), configuration: configuration,
                                                      fonts: try configuration.fontLibrary(), render: false)
        let cells = measured.layouts.flatMap { $0.tables ?? [] }.flatMap { $0.cells ?? [] }
        let first = try #require(cells.first { $0.row == 0 && $0.column == 0 })
        #expect(first.rect.width < 60, "\(first.rect)")
    }

    /// A scratch folder whose `in/tall.jpg` is a valid 70 × 8,238 JPEG (white).
    static func folderWithATallPicture() throws -> ScratchFolder {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        try Data(try JPEGImageEncoder().encode(try Bitmap(width: 70, height: 8238), dpi: nil)).write(to: folder.path("in/tall.jpg"))
        return folder
    }

    /// A picture inside an inline-block (a byline's portrait, a badge) is drawn like any
    /// other. Before, only the text's own pictures were decoded: the inline-block's was drawn as
    /// a grey placeholder and the inline-block itself warned `image "": no file named`.
    @Test func aPictureInsideAnInlineBlockIsDrawnWithoutAWarning() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        let square = try Bitmap(width: 40, height: 40)
        square.fill(r: 200, g: 30, b: 40)
        try Data(try square.pngData()).write(to: folder.path("in/portrait.png"))
        try ("<p>By <span style=\"display: inline-block; border: 1px solid black\">"
             + "<span style=\"display: inline-block\"><img src=\"portrait.png\" width=\"40\" height=\"40\"></span> Ana</span>,"
             + " with a line of text after.</p><p>The next paragraph.</p>")
            .write(to: folder.path("in/byline.html"), atomically: true, encoding: .utf8)
        let (summary, manifest) = try run(folder)
        let document = try #require(manifest.documents.first)
        #expect(document.status == .ok && document.warnings.isEmpty, "\(document.warnings)")
        let bitmap = try pageImage(summary, try #require(document.pages.first))
        var red = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y) == (200, 30, 40) { red += 1 }
        }
        // 40 px at 0.75 pt a pixel, drawn at 72 dpi: 30 x 30 pixels (edges may blend).
        #expect(red >= 28 * 28, "\(red) pixels of the picture's colour")
    }

    /// A picture taller than the column in a line of text (a 70 × 8,238 JPEG, 6,178 pt tall at
    /// 0.75 pt a pixel) is scaled down so that its line fits the column, as it is alone in its
    /// paragraph, with a larger run of text in its line too. Before, the article failed as
    /// column-too-small.
    @Test func aPictureTallerThanTheColumnInALineOfTextIsScaledToFit() throws {
        let folder = try Self.folderWithATallPicture()
        try ("<p>Before <img src=\"tall.jpg\"> after it, in one line.</p><p><img src=\"tall.jpg\"></p>"
             + "<p><span style=\"font-size: 40pt\">Large</span> then <img src=\"tall.jpg\"> small text.</p>")
            .write(to: folder.path("in/tall.html"), atomically: true, encoding: .utf8)
        let (_, manifest) = try run(folder)
        let document = try #require(manifest.documents.first)
        #expect(document.status == .ok, "\(String(describing: document.error))")
        let placed = frames(document, "tall.jpg")
        #expect(placed.count == 3)
        for (page, frame) in placed {
            let column = try #require(page.columns?[frame.column]).rect
            #expect(frame.rect.y >= column.y && frame.rect.y + frame.rect.height <= column.y + column.height + 0.001, "\(frame.rect) in \(column)")
            #expect(abs(frame.rect.width / frame.rect.height - 70.0 / 8238) < 0.001, "the aspect ratio is kept")
        }
        // Alone in its paragraph the picture is as tall as the column; beside text (in its own
        // size or a larger run's), shorter by the text's line: all more than half the column.
        let heights = placed.map(\.frame.rect.height)
        let column = try #require(placed.first?.page.columns?.first).rect
        #expect(heights.count == 3 && heights[0] < heights[1] && heights[2] < heights[1], "\(heights)")
        #expect(heights.allSatisfy { $0 > column.height / 2 }, "\(heights)")
    }

    /// In vertical text a picture's width lies across the line: one wider than the band is
    /// scaled down so that its line, with the text beside it, fits the band. Before, the
    /// article failed as column-too-small.
    @Test func aPictureWiderThanAVerticalBandInALineOfTextIsScaledToFit() throws {
        let folder = try Self.folderWithATallPicture()
        try "<p lang=\"ja\">縦書きの文章 <img src=\"tall.jpg\" width=\"8000\" height=\"60\"> の続き。</p>"
            .write(to: folder.path("in/vertical.html"), atomically: true, encoding: .utf8)
        var layout = ArticleLayout(name: "tate")
        layout.writingMode = .verticalRL
        let (_, manifest) = try run(folder, layouts: [layout])
        let document = try #require(manifest.documents.first)
        #expect(document.status == .ok, "\(String(describing: document.error))")
        let (page, frame) = try #require(frames(document, "tall.jpg").first)
        let column = try #require(page.columns?[frame.column]).rect
        #expect(frame.rect.x >= column.x - 0.001 && frame.rect.x + frame.rect.width <= column.x + column.width + 0.001, "\(frame.rect) in \(column)")
        #expect(abs(frame.rect.width / frame.rect.height / (8000.0 / 60) - 1) < 0.01, "the aspect ratio is kept (points are rounded): \(frame.rect)")
    }

    /// Warnings name files as the article does, relative to its input folder: the published
    /// manifest and contact sheet hold no absolute path of the machine that ran. Before, a
    /// picture or style sheet outside the inputs was refused "outside the input folder
    /// /home/runner/...".
    @Test func warningsCarryNoAbsolutePathOfTheMachine() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(at: folder.path("in/sub"), withIntermediateDirectories: true)
        let figure = Fixtures.articlesFolder.appendingPathComponent("images/figure.png")
        try FileManager.default.copyItem(at: figure, to: folder.path("secret.png"))
        try "p { color: red }".write(to: folder.path("outside.css"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: folder.path("in/sub/link.png").path, withDestinationPath: "../../secret.png")
        let html = "<html><head><link rel=stylesheet href='../../outside.css'></head><body>"
            + "<p>Pictures: <img src='../../secret.png'> <img src='link.png'> "
            + "<img src='missing.png'> <img src='../'> in a line.</p></body></html>"
        try html.write(to: folder.path("in/sub/page.html"), atomically: true, encoding: .utf8)
        let (summary, manifest) = try run(folder)
        let document = try #require(manifest.documents.first)
        #expect(document.status == .ok)
        #expect(document.warnings.filter { $0.contains("outside the input folder") }.count == 3, "\(document.warnings)")
        let real = folder.url.resolvingSymlinksInPath().path
        for file in ["manifest.json", "index.html"] {
            let text = try String(contentsOf: summary.outputFolder.appendingPathComponent(file), encoding: .utf8)
            for path in Set([folder.url.path, real]) {
                #expect(!text.contains(path), "\(file) names \(path)")
            }
        }
    }

    /// An SVG picture is drawn by MuPDF as a drawing, finer than its intrinsic size (which it
    /// keeps: one SVG unit is a CSS px), not as a placeholder or a bitmap scaled up.
    @Test func svgPicturesAreDrawnAtTheirSizeAndSharp() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        let svg = "<svg xmlns='http://www.w3.org/2000/svg' width='160' height='80'>"
            + "<rect x='0' y='0' width='80' height='80' fill='#d00000'/><rect x='80' y='0' width='80' height='80' fill='#0000d0'/></svg>"
        try svg.write(to: folder.path("in/diagram.svg"), atomically: true, encoding: .utf8)
        try "<p>A diagram:</p><p><img src='diagram.svg' alt='diagram'></p>".write(to: folder.path("in/page.html"), atomically: true, encoding: .utf8)
        let (summary, manifest) = try run(folder, dpi: 144)
        let document = try #require(manifest.documents.first)
        #expect(document.status == .ok && !document.warnings.contains { $0.contains("diagram.svg") }, "\(document.warnings)")
        let (page, frame) = try #require(frames(document, "diagram.svg").first)
        #expect(abs(frame.rect.width - 120) < 0.01 && abs(frame.rect.height - 60) < 0.01, "160 × 80 px is 120 × 60 pt: \(frame.rect)")
        let bitmap = try pageImage(summary, page)
        let scale = 2.0  // 144 dpi
        func pixel(_ x: Double, _ y: Double) -> (r: UInt8, g: UInt8, b: UInt8) {
            let p = bitmap.pixel(x: Int((frame.rect.x + x) * scale), y: Int((frame.rect.y + y) * scale))
            return (p.r, p.g, p.b)
        }
        #expect(near(pixel(30, 30), (208, 0, 0)) && near(pixel(90, 30), (0, 0, 208)), "\(pixel(30, 30)) \(pixel(90, 30))")
        // The edge between the halves is sharp: one pixel each side of it is nearly pure.
        #expect(near(pixel(60 - 1 / scale, 30), (208, 0, 0), tolerance: 40) && near(pixel(60 + 1 / scale, 30), (0, 0, 208), tolerance: 40))
    }

    /// Style sheets follow the pictures' rule: read under the input folder, refused outside it
    /// (a symbolic link included), a warning either way, never a failure.
    @Test func linkedStyleSheetsAreReadOnlyFromTheInputFolder() throws {
        let folder = try ScratchFolder()
        try FileManager.default.createDirectory(at: folder.path("in/css"), withIntermediateDirectories: true)
        try "p.lead { font-weight: bold } .secret { display: none }".write(to: folder.path("in/css/site.css"), atomically: true, encoding: .utf8)
        try ".lead { display: none }".write(to: folder.path("outside.css"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: folder.path("in/css/link.css"), withDestinationURL: folder.path("outside.css"))
        let html = "<html><head><link rel=stylesheet href='css/site.css'><link rel=stylesheet href='../outside.css'>"
            + "<link rel=stylesheet href='css/link.css'><link rel=stylesheet href='https://example.org/x.css'></head>"
            + "<body><p class=lead>The lead paragraph.</p><p class=secret>Not for print.</p></body></html>"
        try html.write(to: folder.path("in/page.html"), atomically: true, encoding: .utf8)
        let (_, manifest) = try run(folder)
        let document = try #require(manifest.documents.first)
        #expect(document.status == .ok)
        // Both refused for one reason: one warning.
        #expect(document.warnings.contains { $0.contains("style sheets \"../outside.css\", \"css/link.css\": outside the input folder") },
                "\(document.warnings)")
        #expect(document.warnings.contains { $0.contains("style sheet \"https://example.org/x.css\": URLs are not fetched") })
        #expect(document.warnings.contains { $0.contains("1 elements hidden") }, "site.css applied")
        #expect((document.setCharacters ?? 0) == "Theleadparagraph.".count, "outside.css did not hide the lead")
    }
}

private func near(_ pixel: (r: UInt8, g: UInt8, b: UInt8), _ colour: (Int, Int, Int), tolerance: Int = 12) -> Bool {
    abs(Int(pixel.r) - colour.0) <= tolerance && abs(Int(pixel.g) - colour.1) <= tolerance && abs(Int(pixel.b) - colour.2) <= tolerance
}
