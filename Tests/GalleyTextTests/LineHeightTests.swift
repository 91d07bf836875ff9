import Foundation
@testable import GalleyText
import Testing

/// CSS line heights (CSS 2.1 §10.8): a number times the font size, inherited as the number;
/// a length or percentage, inherited as the length; the leading split about the glyphs.
/// Line heights inherited as lengths: `body { line-height: 1.2em }` is 1.2 × the body's size
/// in every descendant, which CSS applies as it is; a heading with a larger font would print its
/// lines over one another, so they are kept at least their font's size apart. A line height
/// declared on the element itself is kept, however tight.
@Suite struct LineHeightTests {
    static let heading = "A heading long enough to wrap over several lines of this narrow column"

    func headingLines(_ css: String, layout: ArticleLayout) throws -> (lines: [LineBox], size: Double) {
        let html = "<style>\(css)</style><h2>\(Self.heading)</h2><p>Body text after the heading.</p>"
        let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
        let pages = try typesetAll(article.text, layout, fonts: sharedFonts)
        let paragraph = try #require(article.text.paragraphs.first { article.text.string($0.range).hasPrefix("A heading") })
        let size = try #require(article.text.styleRuns.first { $0.range.contains(paragraph.range.lowerBound) }?.value.size)
        return (pages.flatMap { $0.columns.flatMap(\.lines) }.filter { paragraph.range.contains($0.range.lowerBound) }, size)
    }

    /// Distances between the baselines of neighbouring lines: vertical in horizontal text,
    /// horizontal (right to left) in vertical text.
    func steps(_ lines: [LineBox], vertical: Bool) -> [Double] {
        zip(lines, lines.dropFirst()).map { vertical ? $0.rect.midX - $1.rect.midX : $1.baseline - $0.baseline }
    }

    @Test func anInheritedEmLineHeightNeverPrintsAHeadingOverItself() throws {
        var horizontal = column(160)
        horizontal.base.fontSize = 10
        var vertical = ArticleLayout(name: "tate")
        vertical.writingMode = .verticalRL
        vertical.pageWidth = 420
        vertical.pageHeight = 300
        vertical.inset = .init(all: 36)
        vertical.base.fontSize = 10
        vertical.base.language = "ja"
        for (layout, isVertical) in [(horizontal, false), (vertical, true)] {
            let (lines, size) = try headingLines("body { line-height: 1.2em } h2 { font-size: 2em }", layout: layout)
            #expect(lines.count >= 2, "the heading wraps")
            for step in steps(lines, vertical: isVertical) {
                #expect(step >= size - 0.01, "\(isVertical ? "vertical" : "horizontal"): lines \(step) pt apart, the font is \(size) pt")
            }
        }
    }

    @Test func aTightLineHeightDeclaredOnTheElementIsKept() throws {
        var layout = column(160)
        layout.base.fontSize = 10
        let (lines, size) = try headingLines("h2 { font-size: 20pt; line-height: 12pt }", layout: layout)
        #expect(lines.count >= 2)
        for step in steps(lines, vertical: false) { #expect(abs(step - 12) < 0.5, "\(step) pt apart, declared 12 pt for a \(size) pt font") }
    }

    static let words = String(repeating: "Line heights as CSS 2.1 gives them, in a paragraph long enough to wrap. ", count: 4)

    /// The lines of the paragraph `<p>` in `html` (its only one), with the paragraph's style.
    func paragraphLines(_ html: String, width: Double = 200) throws -> [LineBox] {
        var layout = column(width)
        layout.base.fontSize = 12
        let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
        let pages = try typesetAll(article.text, layout, fonts: sharedFonts)
        let paragraph = try #require(article.text.paragraphs.first { article.text.string($0.range).hasPrefix("Line heights") })
        return pages.flatMap { $0.columns.flatMap(\.lines) }.filter { paragraph.range.contains($0.range.lowerBound) }
    }

    func expectPitch(_ css: String, _ pitch: Double, body: String? = nil) throws {
        let lines = try paragraphLines("<style>\(css)</style>" + (body ?? "<p>\(Self.words)</p>"))
        #expect(lines.count >= 3, "\(css): the paragraph wraps")
        for step in steps(lines, vertical: false) { #expect(abs(step - pitch) < 0.01, "\(css): lines \(step) pt apart, CSS gives \(pitch)") }
        for line in lines { #expect(abs(line.rect.height - pitch) < 0.01, "\(css): a line box \(line.rect.height) pt high") }
    }

    /// A number multiplies the font size, a length is itself, a percentage is of the font
    /// size: never of the font's natural height (DejaVu Serif's is 1.16 em).
    @Test func aLineHeightIsTheNumberTimesTheFontSizeOrTheLength() throws {
        try expectPitch("p { font-size: 16px; line-height: 1.5 }", 18)       // 16 px = 12 pt
        try expectPitch("p { font-size: 16px; line-height: 24px }", 18)
        try expectPitch("p { font-size: 16px; line-height: 150% }", 18)
        try expectPitch("p { font-size: 20pt; line-height: 1.5em }", 30)
        try expectPitch("p { font-size: 10pt; line-height: 2 }", 20)
    }

    /// `normal` is the font's own spacing (ascender + descender + line gap) times the base
    /// style's line height, as before.
    @Test func normalIsTheFontsOwnLineSpacing() throws {
        let face = try sharedFonts.fallback(for: FontRequest(families: ["DejaVu Serif"]), language: nil).primary()
        let natural = (face.ascender + face.descender + face.lineGap) * 12 * column(200).base.lineHeight
        try expectPitch("p { font-family: 'DejaVu Serif'; font-size: 12pt; line-height: normal }", natural)
    }

    /// A number is inherited as the number (each element multiplies its own font size), a
    /// length or a percentage as the length computed where it was declared.
    @Test func aNumberIsInheritedAsTheNumberALengthAsTheLength() throws {
        let paragraph = "<div><p>\(Self.words)</p></div>"
        try expectPitch("div { font-size: 10px; line-height: 2 } p { font-size: 20px }", 30, body: paragraph)   // 40 px
        try expectPitch("div { font-size: 10px; line-height: 20px } p { font-size: 20px }", 15, body: paragraph)   // 20 px
        try expectPitch("div { font-size: 10px; line-height: 200% } p { font-size: 20px }", 15, body: paragraph)
    }

    /// The leading is split half above and half below the font's ascent and descent, so the
    /// glyphs sit in the middle of a tall line (CSS 2.1 §10.8.1), as browsers draw them: the
    /// ascent and descent in whole CSS pixels, as browsers take them.
    @Test func theGlyphsAreCentredInTheLineHeight() throws {
        let face = try sharedFonts.fallback(for: FontRequest(families: ["DejaVu Serif"]), language: nil).primary()
        let lines = try paragraphLines("<style>p { font-family: 'DejaVu Serif'; font-size: 10pt; line-height: 40pt }</style><p>\(Self.words)</p>")
        func wholePixels(_ points: Double) -> Double { (points / 0.75).rounded() * 0.75 }
        let (ascent, descent) = (wholePixels(face.ascender * 10), wholePixels(face.descender * 10))
        for line in lines {
            let above = line.baseline - line.rect.y - ascent, below = line.rect.maxY - line.baseline - descent
            #expect(abs(above - below) < 0.01, "leading above \(above) pt, below \(below) pt")
        }
    }

    /// A larger font in the line with a number line height makes the line taller by its own
    /// leading; with a length every inline box is that high about its own glyphs.
    @Test func aLargerFontInTheLineGrowsItByItsOwnLineHeight() throws {
        let big = "<p>Line heights with a <span style=\"font-size: 24pt\">big</span> word.</p>"
        let number = try paragraphLines("<style>p { font-size: 12pt; line-height: 1.5 }</style>" + big)
        #expect(abs((number.first?.rect.height ?? 0) - 36) < 0.01, "a 24 pt word at line-height 1.5: 36 pt")
        let length = try paragraphLines("<style>p { font-size: 12pt; line-height: 18pt }</style>" + big)
        #expect((length.first?.rect.height ?? 0) >= 18 - 0.01 && (length.first?.rect.height ?? 0) < 36,
                "a 24 pt word at line-height 18pt: the boxes' union, \(length.first?.rect.height ?? 0) pt")
    }

    /// `line-height` on an inline element makes its inline box that high, and the line box
    /// grows to hold it (CSS 2.1 §10.8); the paragraph's other lines keep theirs.
    @Test func anInlineElementsOwnLineHeightMakesItsLineTaller() throws {
        let tall = "<p>Line heights with a <span style=\"line-height: 3\">tall</span> word, \(Self.words)</p>"
        for paragraph in ["p { font-size: 12pt; line-height: 1.5 }", "p { font-size: 12pt }"] {
            let lines = try paragraphLines("<style>\(paragraph)</style>" + tall)
            #expect(lines.count >= 3)
            let first = try #require(lines.first), second = lines[1]
            #expect(first.rect.height >= 36 - 0.01, "\(paragraph): the span's line is 3 × 12 pt high: \(first.rect.height)")
            #expect(second.rect.height < 20, "\(paragraph): the next line keeps the paragraph's: \(second.rect.height)")
        }
        // A number is inherited as the number by what the span holds.
        let nested = try paragraphLines("<style>p { font-size: 12pt; line-height: 1 }</style><p>Line heights <span style='line-height: 2'>"
            + "<small style='font-size: 24pt'>big</small></span> \(Self.words)</p>")
        #expect((nested.first?.rect.height ?? 0) >= 48 - 0.01, "24 pt at line-height 2: \(nested.first?.rect.height ?? 0)")
    }
}
