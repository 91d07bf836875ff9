import Foundation
import GalleyBase
import GalleyCatalog
import GalleyManifest
import GalleyPDF
import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import GalleyText
import Logging
import Testing

/// Typeset articles written as vector PDF (`documents: [pdf]`): one file per layout that MuPDF
/// and poppler read back with the pages, text, fonts, pictures, links and outline the page
/// images show, and the same bytes every run.
struct PDFOutputTests {
    /// An article with what the PDF must carry besides plain text: a title and author, headings
    /// for the outline, an external link, a word with soft hyphens that stays whole, one
    /// picture placed twice and an SVG chart.
    static let sample = """
        <!doctype html>
        <html lang="en"><head><title>Links, Pictures and Hyphens</title><meta name="author" content="Ada Printer"></head>
        <body>
        <h1>Links and pictures</h1>
        <p>Read the <a href="https://example.org/galley?page=1&amp;view='full'">printer's notes</a> before the run.
        The photograph below is placed twice: <img src="photo.jpg" width="90"> and again, smaller,
        <img src="photo.jpg" width="40"> in the same paragraph. The chart is drawn, not pictured:
        <img src="chart.svg" width="120"></p>
        <h2>Hyphens</h2>
        <p>A soft hyphen that does not break leaves no trace: un&shy;breakable. Incomprehensibilities
        and internationalization are long words that a narrow column breaks with a hyphen, as do
        characteristically, representationally and unconstitutionally, which the dictionary splits.</p>
        <h2>Ending</h2>
        <p>The end.</p>
        </body></html>
        """

    /// Two bars and a trend line on a tinted ground, as an SVG file.
    static let chart = """
        <svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60">
        <rect width="120" height="60" fill="#e8ecfa"/><rect x="10" y="20" width="24" height="40" fill="#c03020"/>
        <rect x="50" y="8" width="24" height="52" fill="#2060c0"/><path d="M4 56 L116 4" stroke="#000" stroke-width="2"/></svg>
        """

    /// A run over the sample, a feature with pictures and a vertical Japanese article, into
    /// `out` of a scratch folder, writing text and PDF documents and 96 dpi page images.
    func run(_ folder: ScratchFolder, output: String = "out", workers: Int? = nil) throws -> Manifest {
        let input = folder.path("in")
        if !FileManager.default.fileExists(atPath: input.path) {
            try FileManager.default.createDirectory(at: input.appendingPathComponent("images"), withIntermediateDirectories: true)
            for name in ["feature.html", "ja-vertical.html"] {
                try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent(name), to: input.appendingPathComponent(name))
            }
            for name in ["figure.png", "photo.jpg", "badge.png"] {
                try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent("images/\(name)"),
                                                 to: input.appendingPathComponent("images/\(name)"))
            }
            try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent("images/photo.jpg"),
                                             to: input.appendingPathComponent("photo.jpg"))
            try Data(Self.sample.utf8).write(to: input.appendingPathComponent("sample.html"))
            try Data(Self.chart.utf8).write(to: input.appendingPathComponent("chart.svg"))
        }
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = output
        configuration.dpi = 96
        configuration.thumbnailBoxes = []
        var narrow = ArticleLayout(name: "narrow")
        narrow.columns = 2
        narrow.base.hyphens = .auto
        narrow.base.language = "en"
        narrow.typography.justifyThreshold = 0.8
        configuration.layouts = [narrow]
        configuration.documents = [.text, .pdf]
        if let workers { configuration.workers = Configuration.Workers(all: workers) }
        let manifest = try #require(try Pipeline(configuration: configuration, logger: Logger(label: "test")).run().manifest)
        #expect(manifest.documents.count == 3 && manifest.documents.allSatisfy { $0.status == .ok })
        return manifest
    }

    /// Each markup document's layouts with their PDF and text files.
    func files(_ manifest: Manifest, in folder: URL) throws -> [(document: Manifest.Document, layout: Manifest.LayoutPages, pdf: URL, text: URL)] {
        try manifest.documents.flatMap { document in
            try (document.layouts ?? []).map { layout in
                let pdf = try #require(layout.files?.first { $0.format == "pdf" })
                let text = try #require(layout.files?.first { $0.format == "text" })
                return (document, layout, folder.appendingPathComponent(pdf.path), folder.appendingPathComponent(text.path))
            }
        }
    }

    static func withoutWhiteSpace(_ text: Substring) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !$0.properties.isWhitespace }))
    }

    /// The pieces of `extracted` left over once `set` is matched in order inside it; ["set"]
    /// when it is not all there.
    static func extra(in extracted: String, beside set: String) -> [String] {
        var pieces: [String] = [], piece = ""
        var expected = set.makeIterator(), next = expected.next()
        for character in extracted {
            if character == next {
                if !piece.isEmpty { pieces.append(piece); piece = "" }
                next = expected.next()
            } else {
                piece.append(character)
            }
        }
        if !piece.isEmpty { pieces.append(piece) }
        return next == nil ? pieces : ["missing from the PDF: \(next.map(String.init) ?? "")…"]
    }

    @Test func eachLayoutGetsAPDFWithItsPagesAndTheWordsAsSet() throws {
        let folder = try ScratchFolder("pdf-documents")
        let manifest = try run(folder)
        let out = folder.path("out")
        let engine = try MuPDFEngine()
        var hyphenated = 0
        for (document, layout, pdfURL, textURL) in try files(manifest, in: out) {
            let listed = try #require(layout.files?.first { $0.format == "pdf" })
            #expect(listed.path == "\(document.name)/\(layout.name).pdf")
            let bytes = try [UInt8](Data(contentsOf: pdfURL))
            #expect(ContentHash.sha256(bytes) == listed.sha256 && bytes.count == listed.bytes)
            let pdf = try PDFDocument(path: pdfURL.path, password: nil, engine: engine)
            // The same pages, in order, the same size as the page images'.
            let pages = document.pages.filter { $0.layout == layout.name }.sorted { $0.number < $1.number }
            #expect(pdf.pageCount == layout.pageCount && pages.count == layout.pageCount)
            #expect(pdf.metadata("info:Title") == document.title)
            // The text as set (the text document: lines as they appear, hyphens as the breaks show
            // them, no soft hyphens), page by page; white space aside, since MuPDF makes lines of
            // its own (a vertical line's characters come one a line).
            let setText = try String(contentsOf: textURL, encoding: .utf8).split(separator: "\u{0C}", omittingEmptySubsequences: false)
            #expect(setText.count == pdf.pageCount)
            for index in 0..<min(pdf.pageCount, pages.count, setText.count) {
                let size = try pdf.pageFacts(index).size
                #expect(abs(size.width - pages[index].widthPt) < 0.01 && abs(size.height - pages[index].heightPt) < 0.01,
                        "\(document.name) page \(index + 1): \(size) against \(pages[index].widthPt) × \(pages[index].heightPt)")
                let extracted = try pdf.pageText(index)
                let extra = Self.extra(in: Self.withoutWhiteSpace(extracted[...]), beside: Self.withoutWhiteSpace(setText[index]))
                // Only the rows of a table's header repeated where the table goes on are drawn
                // but not in the text document, which has them where they were first set.
                let allSet = Self.withoutWhiteSpace(setText.joined()[...])
                #expect(extra.allSatisfy { allSet.contains($0) && $0.count < allSet.count / 4 }, "\(document.name) page \(index + 1): \(extra)")
                #expect(!extracted.unicodeScalars.contains("\u{AD}"))
                hyphenated += pages[index].hyphenatedLineCount ?? 0
            }
            if document.name == "ja-vertical" { #expect(pages.first?.writingMode?.hasPrefix("vertical") == true) }
            if document.name == "sample" {
                #expect(pdf.metadata("info:Author") == "Ada Printer")
                let all = try (0..<pdf.pageCount).map { try pdf.pageText($0) }.joined()
                #expect(all.contains("unbreakable"))
            }
        }
        // Lines broke inside words, and the PDF's text shows those hyphens (compared above).
        #expect(hyphenated > 0)
    }

    @Test func everyFontIsEmbeddedAndSubsetWithItsCharacters() throws {
        let folder = try ScratchFolder("pdf-fonts")
        let manifest = try run(folder)
        for (document, _, pdf, _) in try files(manifest, in: folder.path("out")) {
            // poppler's pdffonts: name, type, encoding, then emb, sub and uni (a ToUnicode map).
            let listing = try PeerTools.run("pdffonts", [pdf.path])
            #expect(listing.status == 0)
            let rows = listing.stdout.split(separator: "\n").dropFirst(2)
            #expect(!rows.isEmpty, "\(document.name): no fonts")
            for row in rows {
                let fields = row.split(separator: " ")
                let flags = fields.suffix(5).prefix(3)
                #expect(flags.elementsEqual(["yes", "yes", "yes"]), "\(document.name): \(row)")
                #expect(fields.first?.dropFirst(6).first == "+", "\(document.name): \(row) has no subset tag")
            }
        }
    }

    @Test func aPictureUsedTwiceIsEmbeddedOnceAndLinksAndHeadingsReadBack() throws {
        let folder = try ScratchFolder("pdf-pictures")
        let manifest = try run(folder)
        let sample = try #require(try files(manifest, in: folder.path("out")).first { $0.document.name == "sample" })
        // `mutool info` lists each page's images with their object: one object for both.
        let info = try PeerTools.run("mutool", ["info", sample.pdf.path])
        let images = info.stdout.split(separator: "\n").drop { !$0.hasPrefix("Images") }.dropFirst().prefix { $0.hasPrefix("\t") }
        #expect(images.count >= 1)
        let objects = Set(images.compactMap { line in line.split(separator: "(").last.map { String($0.prefix { $0 != ")" }) } })
        #expect(objects.count == 1, "\(images)")
        // The SVG chart is drawn as paths, so the JPEG is the page's only image.
        // The JPEG goes in as it is (DCTDecode), at its own 120 × 80 pixels, not re-encoded.
        let photo = try [UInt8](Data(contentsOf: Fixtures.articlesFolder.appendingPathComponent("images/photo.jpg")))
        let facts = try #require(JPEGFile.facts(photo))
        #expect(images.allSatisfy { $0.contains("[ DCT ]") && $0.contains("\(facts.width)x\(facts.height)") }, "\(images)")
        let pdfBytes = try [UInt8](Data(contentsOf: sample.pdf))
        #expect(pdfBytes.indices.contains { pdfBytes[$0...].starts(with: photo) })
        // The link's URI, as a PDF reader's link annotation has it (`mutool show … grep`:
        // every object, those packed in object streams too, one per line).
        let everyObject = try PeerTools.run("mutool", ["show", sample.pdf.path, "grep"]).stdout
        #expect(everyObject.contains("/URI(https://example.org/galley?page=1&view='full')"), "\(everyObject.prefix(2000))")
        let engine = try MuPDFEngine()
        let pdf = try PDFDocument(path: sample.pdf.path, password: nil, engine: engine)
        #expect(try (0..<pdf.pageCount).map { try pdf.pageFacts($0).links }.reduce(0, +) >= 1)
        // The outline: headings nested by level.
        let outline = try PeerTools.run("mutool", ["show", sample.pdf.path, "outline"]).stdout
        let entries = outline.split(separator: "\n").map { line in (line.prefix { $0 == "|" || $0 == "+" || $0 == "-" || $0 == "\t" }.count,
                                                                     line.split(separator: "\"").dropFirst().first.map(String.init) ?? "") }
        #expect(entries.map(\.1) == ["Links and pictures", "Hyphens", "Ending"])
        #expect(entries.count == 3 && entries[1].0 > entries[0].0 && entries[2].0 == entries[1].0)
    }

    /// Folios and running heads (margin boxes, set from texts of their own) read back from
    /// the PDF as they are printed, not as characters of the article at the same offsets.
    @Test func marginBoxesReadBackAsPrinted() throws {
        let folder = try ScratchFolder("pdf-margin-boxes")
        let html = """
            <html><head><title>Folio</title><style>
            @page { @bottom-center { content: "Page " counter(page) " of " counter(pages) } @top-center { content: string(chapter) }
                    @top-left { content: "Bindery" } }
            h1 { string-set: chapter content() }
            </style></head><body><h1>Binding the signatures</h1><p>Fold, gather and sew.</p></body></html>
            """
        let path = try Self.typesetPDF(html, named: "folio", in: folder)
        let text = try PeerTools.run("mutool", ["draw", "-F", "txt", path]).stdout
        #expect(text.contains("Page 1 of 1"), "\(text)")
        #expect(text.components(separatedBy: "Binding the signatures").count == 3, "the heading and the running head: \(text)")
        // Read in the order the PDF gives its text (`-raw`: no reordering by position, as a
        // reader copies it): the running head above the page's text, the folio below it.
        let read = try PeerTools.run("pdftotext", ["-raw", path, "-"]).stdout.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        #expect(read.first?.contains("Bindery") == true && read.last == "Page 1 of 1" && read.contains("Fold, gather and sew."), "\(read)")
    }

    /// `galley typeset --pdf` of `html`, saved as `name.html` in `folder`, on an A4 layout:
    /// the PDF's path.
    static func typesetPDF(_ html: String, named name: String, in folder: ScratchFolder) throws -> String {
        try Data(html.utf8).write(to: folder.path("\(name).html"))
        var configuration = Configuration()
        configuration.layouts = [ArticleLayout(name: "a4")]
        let path = folder.path("\(name).pdf").path
        _ = try TypesetMeasurement.measure(file: folder.path("\(name).html"), configuration: configuration,
                                           fonts: try configuration.fontLibrary(), render: false, pdf: { _ in path })
        return path
    }

    /// An SVG picture goes into the PDF as paths and text (librsvg), not as the bitmap the page
    /// images draw: its label reads back as text, its bars are drawn where the picture is, no
    /// image is embedded for it, and a file it names (`<image href>`) is not read.
    @Test func anSVGPictureIsDrawnAsPathsAndText() throws {
        let folder = try ScratchFolder("pdf-svg")
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100">
            <rect x="0" y="0" width="200" height="100" fill="#d02010"/>
            <text x="20" y="60" font-family="DejaVu Sans" font-size="24" fill="#ffffff">Quarterly</text>
            <image xlink:href="near.png" x="150" y="0" width="50" height="50"/></svg>
            """
        try Data(svg.utf8).write(to: folder.path("chart.svg"))
        try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent("images/badge.png"), to: folder.path("near.png"))
        let html = """
            <html lang="en"><head><title>Chart</title></head><body>
            <p>Sales by quarter:</p><p><img src="chart.svg" width="200" height="100"></p></body></html>
            """
        let path = try Self.typesetPDF(html, named: "chart", in: folder)
        let info = try PeerTools.run("mutool", ["info", path]).stdout
        #expect(!info.contains("Images"), "\(info)")
        let text = try PeerTools.run("mutool", ["draw", "-F", "txt", path]).stdout
        #expect(text.contains("Quarterly"), "\(text)")
        // The red ground fills the picture's 200 × 100 px (150 × 75 pt) box below the first
        // line: at 72 dpi, a pixel inside it is red, one beyond its right edge is not.
        let page = try PeerTools.mutoolDraw(URL(fileURLWithPath: path), page: 1, options: ["-r", "72"])
        var red: [(x: Int, y: Int)] = []
        for y in 0..<page.height { for x in 0..<page.width { let p = page.pixel(x: x, y: y); if p.r > 180 && p.g < 80 && p.b < 80 { red.append((x, y)) } } }
        let width = (red.map(\.x).max() ?? 0) - (red.map(\.x).min() ?? 0) + 1
        let height = (red.map(\.y).max() ?? 0) - (red.map(\.y).min() ?? 0) + 1
        #expect(abs(width - 150) <= 2 && abs(height - 75) <= 2, "red box \(width) × \(height) px")
    }

    /// A graphviz label in `font-family="Times,serif"` is set in a font with Times's metrics
    /// (Liberation Serif), as MuPDF sets it in the page images with its Nimbus Roman, so it fits
    /// its box: fontconfig, asked for the list, gave DejaVu Serif, a fifth wider, and the label
    /// ran past the box's edges.
    @Test func svgTextInTimesKeepsTimesMetrics() throws {
        let folder = try ScratchFolder("pdf-svg-times")
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="200" height="50" viewBox="0 0 200 50">
            <polygon fill="none" stroke="black" points="10,5 190,5 190,45 10,45 10,5"/>
            <text text-anchor="middle" x="100" y="30" font-family="Times,serif" font-size="14.00">let s1 = String::from(hello);</text></svg>
            """
        try Data(svg.utf8).write(to: folder.path("graph.svg"))
        let html = """
            <html lang="en"><head><title>Graph</title></head><body>
            <p>The string:</p><p><img src="graph.svg" width="200" height="50"></p></body></html>
            """
        let path = try Self.typesetPDF(html, named: "graph", in: folder)
        let fonts = try PeerTools.run("pdffonts", [path]).stdout
        #expect(fonts.contains("LiberationSerif"), "\(fonts)")
        // The label's words as pdftotext places them: from the first's left to the last's right
        // within the box's 180 px (135 pt), as in Times.
        let words = try PeerTools.run("pdftotext", ["-bbox", path, "-"]).stdout.split(separator: "\n").filter { $0.contains("<word") }
        func coordinate(_ name: String, _ line: Substring) -> Double? {
            line.range(of: "\(name)=\"").flatMap { range in Double(line[range.upperBound...].prefix { $0 != "\"" }) }
        }
        let label = words.drop { !$0.contains(">let<") }
        let (left, right) = (try #require(label.first.flatMap { coordinate("xMin", $0) }), try #require(label.last.flatMap { coordinate("xMax", $0) }))
        #expect(label.last?.contains("hello") == true, "\(words)")
        #expect(right - left < 135 - 6, "the label is \(right - left) pt wide in a box of 135 pt")
    }

    /// Links between the run's articles go between their PDFs: to the other article's PDF of
    /// the same layout, by a path relative to this one, at the fragment's named destination
    /// (which that PDF has though no link inside it uses it), or at its first page; a link
    /// to the article's own file and a fragment stays inside it; one to a file outside the
    /// run stays a relative URI. The file's cross-reference table still holds.
    @Test func linksToOtherArticlesOfTheRunGoToTheirPDFs() throws {
        let folder = try ScratchFolder("pdf-links-between")
        let input = folder.path("in")
        for sub in ["book", "notes"] { try FileManager.default.createDirectory(at: input.appendingPathComponent(sub), withIntermediateDirectories: true) }
        let chapter1 = """
            <html lang="en"><head><title>One</title></head><body><h1 id="top">One</h1>
            <p>Ownership is in <a href="ch02.html#ownership">the next chapter</a>, the whole of it in
            <a href="ch02.html">chapter two</a>, notes in <a href="../notes/all.html#n%C3%A4he">the notes</a>,
            back to <a href="ch01.html#top">the top</a>; <a href="missing.html#x">a lost page</a>;
            <a href="ch02.html#step(1">the first step</a>.</p></body></html>
            """
        let chapter2 = """
            <html lang="en"><head><title>Two</title></head><body><h1>Two</h1><p>Text.</p>
            <h2 id="ownership">Ownership</h2><p>Each value has an owner.</p>
            <h3 id="step(1">Step (1</h3><p>An id with an unbalanced parenthesis.</p></body></html>
            """
        let notes = #"<html lang="en"><head><title>Notes</title></head><body><p id="nähe">Near.</p></body></html>"#
        try Data(chapter1.utf8).write(to: input.appendingPathComponent("book/ch01.html"))
        try Data(chapter2.utf8).write(to: input.appendingPathComponent("book/ch02.html"))
        try Data(notes.utf8).write(to: input.appendingPathComponent("notes/all.html"))
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = "out"
        configuration.dpi = 72
        configuration.thumbnailBoxes = []
        configuration.layouts = [ArticleLayout(name: "a4")]
        configuration.documents = [.pdf]
        let manifest = try #require(try Pipeline(configuration: configuration, logger: Logger(label: "test")).run().manifest)
        #expect(manifest.documents.count == 3 && manifest.documents.allSatisfy { $0.status == .ok })
        let out = folder.path("out")
        let path = out.appendingPathComponent("book/ch01/a4.pdf").path
        func show(_ file: String, _ what: String) throws -> String { try PeerTools.run("mutool", ["show", file, what]).stdout }
        let annotations = try show(path, "pages").split(separator: "\n").compactMap { $0.split(separator: "=").last }
            .flatMap { page -> [String] in
                let list = try show(path, page.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " 0 R", with: "") + "/Annots")
                return try (list.split(separator: "[").last?.components(separatedBy: " 0 R") ?? [])
                    .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { try show(path, String($0)) }
            }
            .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        #expect(annotations.contains { $0.contains("/S /GoToR /F (../ch02/a4.pdf) /D (ownership)") }, "\(annotations)")
        #expect(annotations.contains { $0.contains("/S /GoToR /F (../ch02/a4.pdf) /D [ 0 /Fit ]") }, "\(annotations)")
        // `nähe` in UTF-8, which mutool shows in hex.
        #expect(annotations.contains { $0.contains("/S /GoToR /F (../../notes/all/a4.pdf) /D <6EC3A46865>") }, "\(annotations)")
        #expect(annotations.contains { $0.contains("/Dest (top)") }, "\(annotations)")
        #expect(annotations.contains { $0.contains("/URI (missing.html#x)") }, "\(annotations)")
        #expect(!annotations.contains { $0.contains("galley-link") }, "\(annotations)")
        // The destinations the links name are in the other PDFs, and the edited file is whole.
        let names = try show(out.appendingPathComponent("book/ch02/a4.pdf").path, "trailer/Root/Names/Dests")
        #expect(names.contains("(ownership)"), "\(names)")
        let noteNames = try show(out.appendingPathComponent("notes/all/a4.pdf").path, "trailer/Root/Names/Dests")
        #expect(noteNames.contains("<6EC3A46865>"), "\(noteNames)")
        // An id with a parenthesis: written escaped in the name tree and in the link to it (cairo
        // wrote it raw, which ended the string early and left the catalog unreadable).
        #expect(names.contains("(step\\(1)"), "\(names)")
        #expect(annotations.contains { $0.contains("/S /GoToR /F (../ch02/a4.pdf) /D (step\\(1)") }, "\(annotations)")
        for file in [path, out.appendingPathComponent("book/ch02/a4.pdf").path, out.appendingPathComponent("notes/all/a4.pdf").path] {
            try Self.expectWellFormed(file)
        }
    }

    /// Named pages in the PDF: the pages of `page: wide` are A5 landscape with their own folio,
    /// the others A5 portrait with theirs, each page its own size (`pdfinfo`), its folio read
    /// back from it (`pdftotext`).
    @Test func namedPagesKeepTheirSizeAndMarginBoxesInThePDF() throws {
        let folder = try ScratchFolder("pdf-named-pages")
        let paragraph = "<p>" + String(repeating: "A wide table needs a page turned on its side to be read. ", count: 8) + "</p>"
        let html = """
            <html lang="en"><head><title>Named</title><style>
            @page { size: A5; margin: 20mm; @bottom-center { content: "body " counter(page) } }
            @page wide { size: A5 landscape; margin: 10mm; @bottom-center { content: "wide " counter(page) } }
            div.wide { page: wide }
            </style></head><body><p>Before.</p><div class="wide">\(String(repeating: paragraph, count: 8))</div><p>After.</p></body></html>
            """
        let path = try Self.typesetPDF(html, named: "named", in: folder)
        let info = try PeerTools.run("pdfinfo", ["-f", "1", "-l", "20", path]).stdout
        let sizes = info.split(separator: "\n").filter { $0.hasPrefix("Page") && $0.contains("size:") }.map { line in
            line.split(separator: " ").compactMap { Double($0) }.dropFirst().prefix(2).map { $0 }
        }
        #expect(sizes.count >= 3, "\(info)")
        for (index, size) in sizes.enumerated() {
            let wide = index > 0 && index < sizes.count - 1
            let expected = wide ? [595.28, 419.53] : [419.53, 595.28]
            #expect(size.count == 2 && zip(size, expected).allSatisfy { abs($0 - $1) < 0.5 }, "page \(index + 1): \(size)")
            let text = try PeerTools.run("pdftotext", ["-f", "\(index + 1)", "-l", "\(index + 1)", "-layout", path, "-"]).stdout
            #expect(text.contains(wide ? "wide \(index + 1)" : "body \(index + 1)"), "page \(index + 1): \(text)")
        }
    }

    /// A short Chinese article embeds its CJK fonts as small subsets: cairo alone copied every
    /// subroutine of a CID-keyed CFF font's dictionaries (91 KB for a font's six glyphs), so a
    /// page of a few words weighed hundreds of kilobytes; the glyphs still draw and the text
    /// still reads back.
    @Test func aCJKArticleEmbedsOnlyWhatItsGlyphsNeed() throws {
        let folder = try ScratchFolder("pdf-cjk-subset")
        let html = """
            <html lang="zh-Hans"><head><title>字体</title></head><body>
            <h1>活字印刷</h1><p>毕昇发明了活字印刷术，<b>每个字</b>都是一个单独的字模。</p></body></html>
            """
        let path = try Self.typesetPDF(html, named: "cjk", in: folder)
        let fonts = try PeerTools.run("pdffonts", [path]).stdout
        #expect(fonts.contains("CJK") && fonts.contains("CID Type 0C"), "\(fonts)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path)).count
        #expect(bytes < 60_000, "\(bytes) bytes for a page of 30 characters")
        let text = try PeerTools.run("mutool", ["draw", "-F", "txt", path]).stdout
        #expect(Self.withoutWhiteSpace(text[...]).contains("毕昇发明了活字印刷术，每个字都是一个单独的字模。"), "\(text)")
        let page = try PeerTools.mutoolDraw(URL(fileURLWithPath: path), page: 1, options: ["-r", "72"])
        #expect(ImageProperties.inkCoverage(page) > 0.002, "the glyphs draw")
    }

    /// `href="#id"` links go to their element's page and line (named destinations a reader
    /// follows), a link to a fragment no element has is left a plain word rather than a
    /// broken link, and `<html lang>` is the document's `/Lang`, added to the catalog cairo
    /// wrote with every cross-reference offset still pointing at its object.
    @Test func internalLinksGoToTheirElementsAndTheLanguageIsRecorded() throws {
        let folder = try ScratchFolder("pdf-internal-links")
        let html = """
            <html lang="de"><head><title>Verweise</title></head><body>
            <h1 id="anfang">Anfang</h1>
            <p>Siehe <a href="#ende">das Ende</a>, <a href="#fehlt">nichts</a> und <a href="https://example.org/">außen</a>
            und <a href="https://example.org/a(b">eine offene Klammer</a>.</p>
            <section style="break-before: page"><h2 id="ende">Ende</h2><p>Zurück zum <a href="#anfang">Anfang</a>.</p></section>
            </body></html>
            """
        let path = try Self.typesetPDF(html, named: "links", in: folder)
        func show(_ what: String) throws -> String { try PeerTools.run("mutool", ["show", path, what]).stdout }
        // Pages' objects, in order, and each page's link annotations.
        let pages = try show("pages").split(separator: "\n").compactMap { line in line.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(pages.count == 2)
        func annotations(_ page: String) throws -> [String] {
            let list = try show(page.replacingOccurrences(of: " 0 R", with: "") + "/Annots")
            return try list.split(separator: "[").last.map { try $0.components(separatedBy: " 0 R").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                .map { try show(String($0)) } } ?? []
        }
        let first = try annotations(pages[0]), second = try annotations(pages[1])
        #expect(first.count == 3, "the internal and the two external links; none for #fehlt: \(first)")
        // An address with an unbalanced parenthesis, escaped in its string (cairo 1.16 wrote it
        // raw, which left the annotation unreadable).
        #expect(first.contains { $0.contains("/URI (https://example.org/a\\(b)") }, "\(first)")
        #expect(first.contains { $0.contains("/Dest (ende)") } && first.contains { $0.contains("/URI (https://example.org/)") })
        #expect(second.count == 1 && second[0].contains("/Dest (anfang)"))
        // A link to another file is a URI relative to the article, never its absolute path.
        let other = try Self.typesetPDF(#"<html><body><p>See <a href="notes/other.html#x">the notes</a>.</p></body></html>"#, named: "other", in: folder)
        let objects = try PeerTools.run("mutool", ["show", other, "grep"]).stdout
        #expect(objects.contains("(notes/other.html#x)") && !objects.contains("file:"), "\(objects)")
        // The named destinations: each on the page its element is on, at its heading's top.
        // (Runs of white space of any length read as one: cairo pads some entries with several
        // spaces, how many depending on the numbers written.)
        let names = try show("trailer/Root/Names/Dests").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(names.contains("(ende) [ \(pages[1]) /XYZ"), "\(names)")
        #expect(names.contains("(anfang) [ \(pages[0]) /XYZ"), "\(names)")
        #expect(try show("trailer/Root/Lang").contains("(de)"))
        try Self.expectWellFormed(path)
    }

    /// The PDF at `path` is well formed as a checker reads it, after Galley edited and packed
    /// what cairo wrote: every cross-reference entry leads to its object (cairo numbers a
    /// structure element for each link and never writes it; its entry is free, not an offset
    /// of another object), with nothing for qpdf to repair.
    static func expectWellFormed(_ path: String) throws {
        let check = try PeerTools.run("qpdf", ["--check", path])
        #expect(check.status == 0 && !check.stdout.contains("WARNING") && !check.stderr.contains("WARNING"), "\(check.stdout)\(check.stderr)")
    }

    /// Documentation full of links: cairo writes every object as plain text, so its link
    /// annotations alone made a quarter of such a file. Galley packs the objects that are not
    /// streams into compressed object streams; the file is well formed for a checker, every
    /// link and word reads back, and it is much smaller than the same objects written plain
    /// (what `qpdf --object-streams=disable` makes of it).
    @Test func objectsArePackedIntoCompressedObjectStreams() throws {
        let folder = try ScratchFolder("pdf-object-streams")
        let links = (1...300).map { "<a href=\"https://example.org/manual/section-\($0).html\">section \($0)</a>" }
        let html = "<html lang=\"en\"><head><title>Index</title></head><body><h1>Index</h1><p>" + links.joined(separator: ", ") + ".</p></body></html>"
        let path = try Self.typesetPDF(html, named: "index", in: folder)
        try Self.expectWellFormed(path)
        let objects = try PeerTools.run("mutool", ["show", path, "grep"]).stdout
        // A link broken over two lines has an annotation on each.
        let uris = Set(objects.split(separator: "\n").filter { $0.contains("/Subtype/Link") }.compactMap { line in
            line.range(of: "/URI(").map { String(line[$0.upperBound...].prefix { $0 != ")" }) } })
        #expect(uris == Set((1...300).map { "https://example.org/manual/section-\($0).html" }), "\(uris.count) addresses")
        let text = try PeerTools.run("pdftotext", [path, "-"]).stdout
        #expect(text.contains("section 1,") && text.contains("section 300."))
        #expect(try PeerTools.run("mutool", ["show", path, "trailer/Root/Lang"]).stdout.contains("(en)"))
        let plain = folder.path("plain.pdf").path
        let expanded = try PeerTools.run("qpdf", ["--object-streams=disable", "--stream-data=preserve", path, plain])
        #expect(expanded.status == 0, "\(expanded.stderr)")
        let packedSize = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let plainSize = try FileManager.default.attributesOfItem(atPath: plain)[.size] as? Int ?? 0
        #expect(packedSize * 10 < plainSize * 7, "packed \(packedSize) bytes, plain \(plainSize)")
    }

    /// TrueType fonts go in without their hinting (the cvt, fpgm and prep tables and the
    /// glyphs' instructions), which PDF readers do not use and which was most of each font's
    /// bytes; the outlines stay (the words read back and draw, as the other tests check).
    @Test func trueTypeFontsAreEmbeddedWithoutHinting() throws {
        let folder = try ScratchFolder("pdf-hinting")
        let path = try Self.typesetPDF("<html><body><h1>Hinting</h1><p>Outlines without <b>instructions</b> or <i>programs</i>.</p></body></html>",
                                       named: "hinting", in: folder)
        let objects = try PeerTools.run("mutool", ["show", path, "grep"]).stdout
        let programs = objects.split(separator: "\n").compactMap { line -> String? in
            guard let at = line.range(of: "/FontFile2 ") else { return nil }
            return line[at.upperBound...].split(separator: " ").first.map(String.init)
        }
        #expect(programs.count >= 3, "a font program for each face: \(programs)")
        for number in programs {
            let file = folder.path("font-\(number).ttf")
            #expect(try PeerTools.run("mutool", ["show", "-b", "-o", file.path, path, number]).status == 0)
            let font = try [UInt8](Data(contentsOf: file))
            // The table directory: a count at offset 4, then 16-byte records led by their tag.
            #expect(font.count > 12)
            let count = font.count > 6 ? Int(font[4]) << 8 | Int(font[5]) : 0
            let tags = (0..<count).compactMap { index -> String? in
                let at = 12 + index * 16
                return at + 4 <= font.count ? String(decoding: font[at..<at + 4], as: UTF8.self) : nil
            }
            #expect(tags.contains("glyf") && tags.contains("loca"), "\(number): \(tags)")
            #expect(!tags.contains("fpgm") && !tags.contains("prep") && !tags.contains("cvt "), "\(number): \(tags)")
        }
    }

    /// A short article's TrueType fonts go in once each, as one CID-keyed subset per face, not
    /// as cairo's WinAnsi subset beside a second subset of the glyphs WinAnsi has no code for
    /// (here the fi and fl ligatures, a Greek word and the hyphen of a broken word): pdffonts
    /// lists each face once, embedded and subset with its ToUnicode map, the text reads back
    /// with the ligatures' letters, and the marker that asks cairo for it is not in the fonts
    /// embedded. (On the old code each face was listed twice: TrueType WinAnsi and CID TrueType.)
    @Test func eachFontOfAShortArticleIsEmbeddedAsOneSubset() throws {
        let folder = try ScratchFolder("pdf-one-subset")
        let html = """
            <html lang="en"><body><h1>Official fluff</h1><p>The office's first flight, <i>filed in the final file</i>, and
            <b>fifty fluffy affidavits</b> say λόγος in Greek. Incomprehensibilities and internationalization break in a
            narrow column.</p></body></html>
            """
        let path = try Self.typesetPDF(html, named: "subsets", in: folder)
        let rows = try PeerTools.run("pdffonts", [path]).stdout.split(separator: "\n").dropFirst(2)
        let names = rows.compactMap { $0.split(separator: " ").first.map { String($0.dropFirst(7)) } }
        #expect(names.count >= 3 && Set(names).count == names.count, "\(rows.joined(separator: "\n"))")
        for row in rows {
            #expect(row.contains("CID TrueType") && row.split(separator: " ").suffix(5).prefix(3).elementsEqual(["yes", "yes", "yes"]), "\(row)")
        }
        let text = try PeerTools.run("pdftotext", [path, "-"]).stdout
        for phrase in ["Official fluff", "office's first flight", "filed in the final file", "fifty fluffy affidavits", "λόγος"] {
            #expect(text.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains(phrase), "\(phrase): \(text)")
        }
        let objects = try PeerTools.run("mutool", ["show", path, "grep"]).stdout
        let programs = objects.split(separator: "\n").compactMap { line -> String? in
            line.range(of: "/FontFile2 ").flatMap { line[$0.upperBound...].split(separator: " ").first.map(String.init) }
        }
        #expect(programs.count == names.count)
        for number in programs {
            let file = folder.path("font-\(number).ttf")
            #expect(try PeerTools.run("mutool", ["show", "-b", "-o", file.path, path, number]).status == 0)
            let font = try [UInt8](Data(contentsOf: file))
            let count = font.count > 6 ? Int(font[4]) << 8 | Int(font[5]) : 0
            let tags = (0..<count).compactMap { index -> String? in
                let at = 12 + index * 16
                return at + 4 <= font.count ? String(decoding: font[at..<at + 4], as: UTF8.self) : nil
            }
            #expect(tags.contains("glyf") && !tags.contains("CFF "), "\(number): \(tags)")
        }
    }

    /// MuPDF's drawing of each PDF page at the page images' 96 dpi against Galley's own page
    /// image. Two rasterizers differ at glyph edges, and Galley snaps baselines to whole pixels
    /// where MuPDF does not, so both are compared as grey means of 4 × 4 pixel blocks, each of
    /// Galley's blocks against MuPDF's drawing moved by at most one pixel either way: every
    /// block within 48 of 255, and under 0.5% of them beyond 16. (Measured: at most 41 and
    /// 0.1%.) Text, a rule or a picture missing or out of place by more than a pixel breaks it.
    @Test func thePDFDrawnByMuPDFMatchesThePageImages() throws {
        let folder = try ScratchFolder("pdf-pixels")
        let manifest = try run(folder)
        let out = folder.path("out")
        for (document, layout, pdf, _) in try files(manifest, in: out) {
            for page in document.pages where page.layout == layout.name {
                let image = try #require(page.image)
                let ours = try Bitmap(pngData: [UInt8](Data(contentsOf: out.appendingPathComponent(image.path))))
                let theirs = try PeerTools.mutoolDraw(pdf, page: page.number, options: ["-r", "96"])
                #expect(ours.width == theirs.width && ours.height == theirs.height)
                guard ours.width == theirs.width, ours.height == theirs.height else { continue }
                let a = Self.blocks(ours, dx: 0, dy: 0)
                var differences = [Double](repeating: .infinity, count: a.count)
                for dy in -1...1 {
                    for dx in -1...1 {
                        for (index, block) in Self.blocks(theirs, dx: dx, dy: dy).enumerated() {
                            differences[index] = min(differences[index], abs(block - a[index]))
                        }
                    }
                }
                let worst = differences.max() ?? 0
                let over = Double(differences.count { $0 > 16 }) / Double(max(1, differences.count))
                #expect(worst <= 48 && over < 0.005, "\(document.name) page \(page.number): worst block \(worst), \(over * 100)% over 16")
            }
        }
    }

    /// Grey means of 4 × 4 pixel blocks of the bitmap moved by (dx, dy), a pixel's margin left
    /// all round.
    static func blocks(_ bitmap: Bitmap, dx: Int, dy: Int) -> [Double] {
        var means: [Double] = []
        let (columns, rows) = ((bitmap.width - 2) / 4, (bitmap.height - 2) / 4)
        means.reserveCapacity(columns * rows)
        for by in 0..<rows {
            for bx in 0..<columns {
                var sum = 0
                for y in 0..<4 {
                    for x in 0..<4 {
                        let p = bitmap.pixel(x: 1 + bx * 4 + x + dx, y: 1 + by * 4 + y + dy)
                        sum += Int(p.r) + Int(p.g) + Int(p.b)
                    }
                }
                means.append(Double(sum) / 48)
            }
        }
        return means
    }

    @Test func twoRunsWriteTheSameBytes() throws {
        let folder = try ScratchFolder("pdf-same-bytes")
        let first = try files(try run(folder, output: "one", workers: 1), in: folder.path("one"))
        let second = try files(try run(folder, output: "two", workers: 3), in: folder.path("two"))
        #expect(first.count == 3 && first.count == second.count)
        for (a, b) in zip(first, second) {
            #expect(try Data(contentsOf: a.pdf) == Data(contentsOf: b.pdf), "\(a.document.name)")
        }
    }
}
