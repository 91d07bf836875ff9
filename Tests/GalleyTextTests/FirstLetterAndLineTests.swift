import Foundation
@testable import GalleyText
import Testing

/// `::first-letter` (CSS 2.1 §5.12.2) and `::first-line` (§5.12.1): the first letter of a
/// block, with the punctuation around it, and the characters of its first line as laid out,
/// take the properties their rules give. Both forms are read: `::first-letter` and CSS 2's
/// `:first-letter`.
@Suite struct FirstLetterAndLineTests {
    static func article(_ html: String) -> ParsedArticle {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        #expect(article.text.validate().isEmpty, "\(article.text.validate())")
        return article
    }

    /// The style of the character at `offset`.
    static func style(_ text: AttributedText, at offset: Int) -> TextStyle {
        text.styleRuns[text.styleRunIndex(at: offset)].value
    }

    static let red = RGBColor(r: 255, g: 0, b: 0)

    @Test func theFirstLetterAndThePunctuationBeforeItTakeTheRules() throws {
        for selector in ["p::first-letter", "p:first-letter"] {
            let css = "\(selector) { font-size: 3em; color: red; font-weight: bold; background: yellow }"
            let text = Self.article("<style>p { font-size: 12pt } \(css)</style><p>\u{201C}Hello,\u{201D} she said.</p>").text
            let string = text.string
            let h = try #require(string.unicodeScalars.firstIndex(of: "H")).utf16Offset(in: string)
            for offset in 0...h {
                let style = Self.style(text, at: offset)
                #expect(style.size == 36 && style.color == Self.red && style.font.weight == 700, "\(selector): \(offset) is the first letter's")
                #expect(style.background != nil, "\(selector): its background")
            }
            let rest = Self.style(text, at: h + 1)
            #expect(rest.size == 12 && rest.color != Self.red && rest.font.weight == 400 && rest.background == nil,
                    "\(selector): 'ello' keeps the paragraph's style")
        }
    }

    @Test func theFirstLetterKeepsWhatItsRulesLeaveOfTheInlineAroundIt() throws {
        let text = Self.article("<style>p::first-letter { font-size: 2em }</style><p style='font-size: 10pt'><b>Bold</b> start.</p>").text
        let first = Self.style(text, at: 0)
        #expect(first.size == 20 && first.font.weight == 700, "larger and still bold: \(first.size) \(first.font.weight)")
        #expect(Self.style(text, at: 1).size == 10)
    }

    @Test func onlyTheFirstParagraphOfTheBlockHasAFirstLetter() throws {
        let text = Self.article("<style>div::first-letter { color: red }</style><div><p>First.</p><p>Second.</p></div><p>Third.</p>").text
        let string = text.string
        #expect(Self.style(text, at: 0).color == Self.red)
        for word in ["Second", "Third"] {
            let offset = try #require(string.range(of: word)).lowerBound.utf16Offset(in: string)
            #expect(Self.style(text, at: offset).color != Self.red, "\(word) has no first letter")
        }
    }

    /// Generated content before the block's text is part of its first line, and holds its
    /// first letter when it has one (CSS 2.1 §5.12.2).
    @Test func aBeforeBoxHoldsTheFirstLetterWhenItComesFirst() throws {
        let text = Self.article("<style>p::before { content: 'Note: ' } p::first-letter { color: red }</style><p>Read this.</p>").text
        #expect(text.string.hasPrefix("Note: Read"))
        #expect(Self.style(text, at: 0).color == Self.red, "the N of the generated text")
        #expect(Self.style(text, at: 1).color != Self.red && Self.style(text, at: 6).color != Self.red, "not the R of the element's own")
    }

    /// A drop cap's usual rules: the letter three times the size, its line taller for it.
    @Test func aDropCapLetterIsLargeAndItsLineMakesRoomForIt() throws {
        let words = String(repeating: "words of a magazine paragraph ", count: 8)
        let html = "<style>p { font-size: 12pt; line-height: 1.2 } p::first-letter { float: left; font-size: 3em; line-height: 1 }</style><p>Once \(words)</p>"
        let text = Self.article(html).text
        #expect(Self.style(text, at: 0).size == 36)
        let pages = try typesetAll(text, column(200), fonts: sharedFonts)
        let lines = try #require(pages.first).columns.flatMap(\.lines)
        #expect(lines.count >= 3)
        #expect(lines[0].rect.height >= 36 - 0.01, "the first line holds the 36 pt letter: \(lines[0].rect.height)")
        #expect(abs(lines[1].rect.height - 14.4) < 0.01, "the others keep 1.2 × 12 pt: \(lines[1].rect.height)")
    }

    /// The glyphs of `html`'s paragraph, set in a column `width` points wide: their offsets and
    /// colours, and the ranges of its lines.
    static func glyphs(_ html: String, width: Double) throws -> (glyphs: [(offset: Int, color: RGBColor, size: Double)], lines: [Range<Int>]) {
        let text = article(html).text
        let pages = try typesetAll(text, column(width), fonts: sharedFonts)
        var glyphs: [(Int, RGBColor, Double)] = []
        for run in pages.flatMap(\.glyphRuns) {
            for cluster in run.clusters where cluster >= 0 { glyphs.append((cluster, run.color, run.size)) }
        }
        return (glyphs, pages.flatMap { $0.columns.flatMap(\.lines) }.map(\.range))
    }

    @Test func exactlyTheCharactersOfTheFirstLineTakeItsStyle() throws {
        let words = String(repeating: "a first line and then some more lines ", count: 6)
        for css in ["p::first-line { color: red }", "p:first-line { color: red; font-size: 18pt; letter-spacing: 2px }"] {
            let (glyphs, lines) = try Self.glyphs("<style>p { font-size: 12pt } \(css)</style><p>\(words)</p>", width: 220)
            #expect(lines.count >= 3, "\(css): the paragraph wraps")
            let first = try #require(lines.first)
            let inFirst = glyphs.filter { first.contains($0.offset) }, after = glyphs.filter { !first.contains($0.offset) }
            #expect(!inFirst.isEmpty && !after.isEmpty)
            #expect(inFirst.allSatisfy { $0.color == Self.red }, "\(css): every glyph of the first line is red")
            #expect(after.allSatisfy { $0.color != Self.red && $0.size == 12 }, "\(css): no glyph after it is")
        }
    }

    /// A larger first line fits fewer words: the line is found with its own style.
    @Test func aLargerFirstLineBreaksWhereItsOwnSizeMakesItBreak() throws {
        let words = String(repeating: "words that wrap in a column ", count: 8)
        let plain = try Self.glyphs("<style>p { font-size: 10pt }</style><p>\(words)</p>", width: 220)
        let large = try Self.glyphs("<style>p { font-size: 10pt } p::first-line { font-size: 20pt }</style><p>\(words)</p>", width: 220)
        let (plainFirst, largeFirst) = (try #require(plain.lines.first), try #require(large.lines.first))
        #expect(largeFirst.count < plainFirst.count, "fewer characters at 20 pt: \(largeFirst.count) against \(plainFirst.count)")
        #expect(large.glyphs.filter { largeFirst.contains($0.offset) }.allSatisfy { $0.size == 20 })
        #expect(large.glyphs.filter { !largeFirst.contains($0.offset) }.allSatisfy { $0.size == 10 })
    }
}
