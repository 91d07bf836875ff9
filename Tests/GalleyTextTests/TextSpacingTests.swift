import Foundation
@testable import GalleyText
import Testing

/// CSS `letter-spacing` and `word-spacing`: the room added after each letter and each word
/// separator, where the glyphs are drawn and how wide the lines are; letter-spaced text is set
/// without optional ligatures.
@Suite struct TextSpacingTests {
    /// Each paragraph's glyphs (one line each in a 400 pt column, 10 pt text): the character
    /// each shows first and its x on the page.
    func placed(_ html: String) throws -> [[(scalar: Unicode.Scalar, x: Double)]] {
        var layout = column(400)
        layout.base.fontSize = 10
        let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
        let page = try #require(try typesetAll(text, layout, fonts: sharedFonts).first)
        var paragraphs = Array(repeating: [(scalar: Unicode.Scalar, x: Double)](), count: text.paragraphs.count)
        for run in page.glyphRuns {
            for (cluster, position) in zip(run.clusters, run.positions) where cluster >= 0 {
                paragraphs[text.paragraphIndex(at: cluster)].append((text.scalars[cluster], position.x))
            }
        }
        return paragraphs
    }

    /// The gaps between consecutive glyphs' x.
    func steps(_ glyphs: [(scalar: Unicode.Scalar, x: Double)]) -> [Double] {
        zip(glyphs.dropFirst(), glyphs).map { $0.x - $1.x }
    }

    @Test func letterSpacingMovesEachLetterOnByItsLength() throws {
        // 8 px is 6 pt; 0.5em of 10 pt is 5 pt; an inherited `em` is the declaring element's.
        let set = try placed("<p>waver</p><p style='letter-spacing: 8px'>waver</p><p style='letter-spacing: 0.5em'>waver</p>"
                             + "<div style='font-size: 20pt; letter-spacing: 0.5em'><p style='font-size: 10pt'>waver</p></div>"
                             + "<p style='letter-spacing: 5'>waver</p><p style='letter-spacing: 8px'><span style='letter-spacing: normal'>waver</span></p>")
        let plain = steps(set[0])
        #expect(plain.count == 4)
        for (index, extra) in [(1, 6.0), (2, 5.0), (3, 10.0), (4, 0.0), (5, 0.0)] {
            let spaced = steps(set[index])
            #expect(spaced.count == plain.count)
            #expect(zip(spaced, plain).allSatisfy { abs($0 - $1 - extra) < 1e-9 }, "paragraph \(index): \(spaced) against \(plain)")
        }
    }

    @Test func wordSpacingWidensTheSpacesOnly() throws {
        let set = try placed("<p>a b c</p><p style='word-spacing: 20px'>a b c</p><p style='word-spacing: -0.1em'>a b c</p>")
        func x(_ paragraph: Int, _ scalar: Unicode.Scalar) -> Double? { set[paragraph].first { $0.scalar == scalar }?.x }
        for (paragraph, extra) in [(1, 15.0), (2, -1.0)] {
            let b = try #require(x(paragraph, "b")), c = try #require(x(paragraph, "c"))
            let plainB = try #require(x(0, "b")), plainC = try #require(x(0, "c"))
            #expect(abs(b - plainB - extra) < 1e-9 && abs(c - plainC - 2 * extra) < 1e-9, "b at \(b), c at \(c)")
        }
    }

    /// A ligature would draw two letters as one glyph with no room between them: letter-spaced
    /// text has none, and the shaping cache keeps the two apart (the same word unspaced after
    /// it still gets its ligature).
    @Test func letterSpacedTextIsSetWithoutLigatures() throws {
        let set = try placed("<p>office</p><p style='letter-spacing: 2px'>office</p><p>office</p>")
        try #require(set[0].count < 6, "DejaVu Serif joins ffi or fi: \(set[0].map(\.scalar))")
        #expect(set[1].map(\.scalar) == Array("office".unicodeScalars))
        #expect(set[2].count == set[0].count)
    }

    /// The line is as wide as its letters and their spacing: a right-aligned line ends at the
    /// column's edge with its last letter's spacing after it, as in a browser.
    @Test func theLineIsMeasuredWithItsSpacing() throws {
        var layout = column(400)
        layout.base.fontSize = 10
        let html = "<p style='text-align: right'>waver</p><p style='text-align: right; letter-spacing: 4pt'>waver</p>"
        let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
        let lines = try #require(try typesetAll(text, layout, fonts: sharedFonts).first).columns.flatMap(\.lines)
        #expect(lines.count == 2)
        #expect(abs(lines[1].rect.width - lines[0].rect.width - 5 * 4) < 1e-9, "\(lines.map(\.rect))")
    }
}
