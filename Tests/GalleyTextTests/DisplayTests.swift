import Foundation
import GalleyRaster
import GalleyText
import Testing

/// `display` on any element (CSS 2.1 §9.2.4) and `visibility: hidden` (§11.2), as a reader sees
/// them on the page: a `span` made a block starts its own line and takes a size, a `div` made
/// inline runs on in the line, a `div` made a list item gets a marker, an inline element with
/// `display: none` is gone, and a hidden element keeps its room and draws nothing.
@Suite struct DisplayTests {
    static func page(_ html: String) throws -> TypesetPage {
        try #require(try InlineBlockTests.pages(html).first)
    }

    static let blue = SizedBoxTests.blue
    static let green = SizedBoxTests.green

    @Test func aSpanWithDisplayBlockIsABlockOfItsOwnWithItsSize() throws {
        let page = try Self.page("<p style='margin: 0'>One <span style='display: block; width: 100px; height: 30px; background: blue'>"
                                 + "</span> two</p>")
        // `One`, the box, `two`: the text after the box starts a new line below it.
        let lines = page.columns[0].lines.filter { $0.rect.width > 1 }
        #expect(lines.count == 2)
        let bitmap = try InlineBlockTests.drawn(page)
        let box = try #require(SizedBoxTests.area(of: Self.blue, in: bitmap).box)
        // Its top is where the line above ends, not on a whole pixel: an edge pixel may be mixed.
        #expect(box.x == 0 && box.width == 100 && abs(box.height - 30) <= 1, "\(box)")
        if lines.count == 2 {
            #expect(Double(box.y) * 0.75 >= lines[0].rect.maxY - 0.5 && Double(box.y + box.height) * 0.75 <= lines[1].rect.y + 0.5)
        }
    }

    @Test func aDivWithDisplayInlineRunsOnInTheLine() throws {
        let page = try Self.page("<div>First</div><div style='display: inline'>second</div> <div style='display: inline'>third</div>")
        #expect(page.lineCount == 2, "`First`, then `second third` in one line")
    }

    @Test func aDivWithDisplayListItemGetsAMarker() throws {
        let plain = try Self.page("<div style='margin-left: 40px'>Item</div>")
        let item = try Self.page("<div style='display: list-item; margin-left: 40px'>Item</div>")
        #expect(item.placedGlyphs.count > plain.placedGlyphs.count, "a bullet before the item")
        // The marker hangs in the margin, left of where the text starts.
        let textStart = try #require(plain.placedGlyphs.map(\.x).min())
        #expect(item.placedGlyphs.contains { $0.x < textStart - 1 })
    }

    @Test func anInlineElementWithDisplayNoneIsGone() throws {
        let shown = try Self.page("<p>Keep <em>this</em> and that.</p>")
        let gone = try Self.page("<p>Keep <em style='display: none'>this</em> and that.</p>")
        #expect(gone.placedGlyphs.count == shown.placedGlyphs.count - "this ".count + 1 || gone.placedGlyphs.count < shown.placedGlyphs.count - 3)
    }

    @Test func visibilityHiddenKeepsTheRoomAndDrawsNothing() throws {
        // The hidden words leave a gap of their width: what follows stays where it was.
        let shown = try Self.page("<p style='margin: 0'>Before <span style='background: blue'>hidden words</span> after.</p>")
        let hidden = try Self.page("<p style='margin: 0'>Before <span style='visibility: hidden; background: blue'>hidden words</span> after.</p>")
        #expect(hidden.lineCount == 1 && shown.lineCount == 1)
        let shownRight = try #require(shown.placedGlyphs.map(\.x).max()), hiddenRight = try #require(hidden.placedGlyphs.map(\.x).max())
        #expect(abs(shownRight - hiddenRight) < 0.01, "`after.` where it was: \(shownRight) against \(hiddenRight)")
        #expect(hidden.placedGlyphs.count == shown.placedGlyphs.count - "hidden words".count)
        #expect(SizedBoxTests.area(of: Self.blue, in: try InlineBlockTests.drawn(hidden)).count == 0, "no background")
        // A hidden block: its height and border kept below it, its background and border not drawn.
        let block = try Self.page("<div style='visibility: hidden; height: 100px; border: 2px solid green; background: blue'>Text</div>"
                                  + "<p style='margin: 0'>After</p>")
        let bitmap = try InlineBlockTests.drawn(block)
        #expect(SizedBoxTests.area(of: Self.blue, in: bitmap).count == 0 && SizedBoxTests.area(of: Self.green, in: bitmap).count == 0)
        let after = try #require(block.columns[0].lines.last)
        #expect(after.rect.y >= 104 * 0.75 - 0.5, "below the hidden box: \(after.rect)")
        #expect(block.placedGlyphs.count == "After".count)
    }

    @Test func aTableWhosePartsAreInlineIsTextInItsLine() throws {
        // CSS 2.1's display-018: three cells' words on one line, not a grid of them.
        let html = "<style>table, caption, tbody, tr, th, td { display: inline; vertical-align: baseline } th, td { padding: 0 }</style>"
            + "<table><caption>Filler text</caption><tbody><tr><th>Filler text</th><td>Filler text</td></tr></tbody></table>"
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        #expect(article.text.tables.isEmpty)
        let page = try Self.page(html)
        #expect(page.lineCount == 1 && page.columns[0].tables.isEmpty, "\(page.columns[0].lines.map(\.range))")
    }

    @Test func aBlockInsideAnInlineWithABackgroundIsNotPaintedWithIt() throws {
        // The inline's background is behind its own lines; the block inside it has none.
        let html = "<p style='margin: 0'><span style='background: blue'>Inline words <span style='display: block'>A block line</span>"
            + " more inline</span></p>"
        let page = try Self.page(html)
        let lines = page.columns[0].lines
        #expect(lines.count == 3)
        let bitmap = try InlineBlockTests.drawn(page)
        func blueRows(_ line: LineBox) -> Int {
            (Int(line.rect.y / 0.75) + 1..<Int(line.rect.maxY / 0.75) - 1).count { y in (0..<bitmap.width).contains { bitmap.pixel(x: $0, y: y) == Self.blue } }
        }
        guard lines.count == 3 else { return }
        #expect(blueRows(lines[0]) > 5 && blueRows(lines[2]) > 5, "the inline's own lines")
        #expect(blueRows(lines[1]) == 0, "the block's line")
    }
}
