import Foundation
import GalleyPDF
import GalleyText

/// Bytes as an article: parsed as HTML (and again in the smallest pieces `HTMLPieces` allows,
/// which must give the same article) and as plain text, each typeset and every page drawn at
/// 36 dpi and as a thumbnail. For one input in four the HTML's first pages are also written as
/// PDF (`documents: [pdf]`), which MuPDF must then open with as many pages, each page's text
/// readable: a PDF Galley
/// writes that a reader cannot read is a bug, whatever the markup (a link address with an
/// unbalanced parenthesis once left a string open that took every page with it).
///
/// The first byte chooses the layout, so the fuzzer reaches every way of filling lines; the
/// rest is the document:
///
/// | bit | set | clear |
/// | --- | --- | --- |
/// | 0 | vertical text (bands) | horizontal |
/// | 1 | optimal line breaking | greedy |
/// | 2 | automatic hyphenation, English | soft hyphens only |
/// | 3, 4 | 1 to 4 columns | |
/// | 5 | `justify_threshold: 0.8` | no justification |
/// | 6 | base language Japanese | none |
/// | 7 | sans-serif | DejaVu Serif |
public struct MarkupFuzzTarget: FuzzTarget {
    public static let name = "FuzzMarkup"
    /// Pages drawn per parse at most (see `PageDrawing.typeset`).
    static let pageLimit = 24
    /// Low, as the fuzzer wants many inputs a second, yet glyphs several pixels tall.
    static let dpi = 36.0
    /// Writing a PDF and reading it back costs several times the drawing (its fonts are
    /// subset, Noto CJK's above all: a 6 KB Chinese input took 1.3 s instead of a fraction):
    /// done for one input in `pdfEvery` (by length, so a kept input does it again) and for its
    /// first `pdfPages` pages, so the fuzzer keeps most of its inputs a second.
    public static let pdfEvery = 4
    static let pdfPages = 4
    /// Where the article seems to be: pictures are not read (each gets a placeholder), but
    /// links and `src` attributes are resolved against it.
    static let baseURL = URL(fileURLWithPath: "/fuzz/articles/", isDirectory: true)

    private let fonts: FontLibrary
    /// Reads the written PDFs back.
    private let engine: MuPDFEngine

    /// The system's fonts through fontconfig, loaded once for every input, and one MuPDF
    /// engine.
    public init() throws {
        fonts = try FontLibrary()
        engine = try MuPDFEngine(storeBytes: 64 << 20)
    }

    public func run(_ input: [UInt8]) -> FuzzOutcome {
        var outcome = FuzzOutcome()
        guard let options = input.first else { return outcome }
        let document = Array(input.dropFirst())
        let layout = Self.layout(options: options)
        let parser = MarkupParser(base: layout.base)
        let html = parser.parse(html: document, baseURL: Self.baseURL)
        // Cut wherever the scanner allows, the document must read as it does whole.
        var pieces = parser
        pieces.pieceSize = 1
        let cut = pieces.parse(html: document, baseURL: Self.baseURL)
        precondition(cut.text == html.text && cut.title == html.title && cut.warnings == html.warnings,
                     "parsed in pieces, the document reads differently than parsed whole")
        let pdf: (any DocumentFormat)? = input.count % Self.pdfEvery == 0 ? PDFDocumentFormat() : nil
        if let written = PageDrawing.typeset(html, layout: layout, fonts: fonts, dpi: Self.dpi, pageLimit: Self.pageLimit,
                                             document: pdf, documentPages: Self.pdfPages, into: &outcome), written.pages > 0 {
            if let failure = readBackFailure(written.bytes, pages: written.pages) { preconditionFailure(failure) }
        }
        PageDrawing.typeset(parser.parse(plainText: document), layout: layout, fonts: fonts, dpi: Self.dpi, pageLimit: Self.pageLimit,
                            into: &outcome)
        return outcome
    }

    /// Why MuPDF cannot read `pdf` as a PDF of `pages` pages, each page's text readable; nil
    /// when it can.
    public func readBackFailure(_ pdf: [UInt8], pages: Int) -> String? {
        ScratchFile.with(pdf, name: "article.pdf") { file in
            let read: PDFDocument
            do {
                read = try PDFDocument(path: file.path, password: nil, engine: engine)
            } catch {
                return "the PDF written of the article does not open: \(error)"
            }
            guard read.pageCount == pages else { return "the PDF written of the article has \(read.pageCount) pages, not \(pages)" }
            for index in 0..<pages {
                do {
                    _ = try read.pageText(index)
                } catch {
                    return "page \(index + 1) of the PDF written of the article cannot be read: \(error)"
                }
            }
            return nil
        }
    }

    /// A small page (many pages, lines and columns from little text) in the options' layout.
    static func layout(options: UInt8) -> ArticleLayout {
        var layout = ArticleLayout(name: "fuzz")
        layout.pageWidth = 240
        layout.pageHeight = 320
        layout.inset = ArticleLayout.Insets(all: 12)
        layout.columnGap = 8
        layout.columns = 1 + Int((options >> 3) & 3)
        layout.base.fontSize = 9
        if options & 1 != 0 { layout.writingMode = .verticalRL }
        if options & 2 != 0 { layout.typography.lineBreaking = .optimal }
        if options & 4 != 0 {
            layout.base.hyphens = .auto
            layout.base.language = "en-US"
        }
        if options & 32 != 0 { layout.typography.justifyThreshold = 0.8 }
        if options & 64 != 0 { layout.base.language = "ja" }
        if options & 128 != 0 { layout.base.fontFamily = "sans-serif" }
        return layout
    }
}
