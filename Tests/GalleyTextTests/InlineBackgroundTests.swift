import Foundation
import GalleyRaster
import GalleyText
import Testing

/// `background-color` on inline elements (shaded code, highlighted words, `<mark>`): filled
/// behind the element's glyphs and nowhere else (a block's fills its box: `BlockBoxTests`).
@Suite struct InlineBackgroundTests {
    /// Pixels of the page drawn at `scale`, counted by colour: strongly yellow, strongly
    /// green, and where each lies (the rows they span).
    func shades(_ html: String, vertical: Bool = false) throws -> (yellow: Int, green: Int, yellowRows: ClosedRange<Int>?, lineRows: [ClosedRange<Int>]) {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        var layout = ArticleLayout(name: "one")
        layout.columns = 1
        if vertical { layout.writingMode = .verticalRL }
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts)
        let page = try #require(try typesetter.nextPage())
        let scale = 2.0
        let bitmap = try page.render(scale: scale, cancellation: Cancellation())
        var yellow = 0, green = 0
        var rows: [Int] = []
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                if p.r > 200 && p.g > 200 && p.b < 60 { yellow += 1; rows.append(y) }
                if p.g > 200 && p.r < 60 && p.b < 60 { green += 1 }
            }
        }
        let lineRows = page.columns.flatMap(\.lines).map { Int($0.rect.y * scale)...Int($0.rect.maxY * scale) }
        return (yellow, green, rows.min().flatMap { low in rows.max().map { low...$0 } }, lineRows)
    }

    @Test func spansAndCodeAreShadedBehindTheirGlyphs() throws {
        let shaded = try shades("""
            <p>Plain words then <code style="background-color: rgb(255, 255, 0)">shaded code</code> and a
            <span style="background: #00ff00 url(x.png) no-repeat">green <b>span</b> with bold</span> in it.</p>
            """)
        let plain = try shades("<p>Plain words then <code>shaded code</code> and a <span>green <b>span</b> with bold</span> in it.</p>")
        #expect(plain.yellow == 0 && plain.green == 0)
        // About the glyphs' height and the words' length: more than a few pixels, less than a line.
        #expect(shaded.yellow > 500 && shaded.green > 1000, "\(shaded.yellow) yellow and \(shaded.green) green pixels")
        // Within the first line's box.
        let rows = try #require(shaded.yellowRows)
        let first = try #require(shaded.lineRows.first)
        #expect(rows.lowerBound >= first.lowerBound - 1 && rows.upperBound <= first.upperBound + 1, "\(rows) outside the line \(first)")
    }

    @Test func markIsHighlightedAndATransparentElementShowsTheOuterBackground() throws {
        #expect(try shades("<p>A <mark>marked</mark> word.</p>").yellow > 200)
        // A transparent inner element shows the outer one's background.
        #expect(try shades("<p><span style='background-color: #ffff00'>outer <em style='background: transparent'>inner</em></span></p>").yellow
                > (try shades("<p><span style='background-color: #ffff00'>outer </span><em>inner</em></p>").yellow))
    }

    @Test func verticalTextIsShadedToo() throws {
        let shaded = try shades("<p>縦書きの<span style='background-color: #ffff00'>強調された言葉</span>です。</p>", vertical: true)
        #expect(shaded.yellow > 500)
    }
}
