import Foundation
import GalleyTestSupport
@testable import GalleyText
import Testing

/// `float: left | right` on blocks (a sidebar `aside`, a boxed `div`): the block is set whole
/// in a rectangle of its own at the column's side, as wide as its `width` or its content, and
/// the text after it runs beside it, never over it.
@Suite struct FloatedBlockTests {
    static func layout(columns: Int = 2, vertical: Bool = false) -> ArticleLayout {
        FloatTests.layout(columns: columns, vertical: vertical)
    }

    static func prose(_ words: Int, seed: UInt64) -> String { SpanningBlockTests.prose(words, seed: seed) }

    /// Every floated block set once, inside its column, its own lines inside it, and no
    /// other line over it; every character set once.
    static func expectFloatsKeptClear(_ text: AttributedText, _ pages: [TypesetPage], sourceLocation: SourceLocation = #_sourceLocation) {
        var seen: [Int] = []
        for page in pages {
            for (index, column) in page.columns.enumerated() {
                for float in column.floats {
                    seen.append(float.block)
                    let rect = float.rect
                    #expect(rect.x >= column.rect.x - 0.01 && rect.maxX <= column.rect.maxX + 0.01 && rect.y >= column.rect.y - 0.01
                            && rect.maxY <= column.rect.maxY + 0.01, "float \(rect) outside column \(index) \(column.rect)", sourceLocation: sourceLocation)
                    #expect(column.range.contains(float.range.lowerBound) && float.range.upperBound <= column.range.upperBound,
                            "the float's text is set in the column it is placed in", sourceLocation: sourceLocation)
                    for line in page.columns.flatMap(\.lines) {
                        let own = float.range.contains(line.range.lowerBound)
                        if own {
                            #expect(rect.x - 0.01 <= line.rect.x && line.rect.maxX <= rect.maxX + 0.01 && rect.y - 0.01 <= line.rect.y
                                    && line.rect.maxY <= rect.maxY + 0.01, "the float's line \(line.rect) outside it \(rect)", sourceLocation: sourceLocation)
                        } else if FloatTests.overlaps(line.rect, rect) {
                            Issue.record("line \(text.string(line.range)) at \(line.rect) runs over the float at \(rect)", sourceLocation: sourceLocation)
                        }
                    }
                }
            }
        }
        #expect(seen.sorted() == Array(seen.indices), "each floated block placed once", sourceLocation: sourceLocation)
        SpanningBlockTests.expectTiled(pages, text, sourceLocation: sourceLocation)
    }

    @Test(arguments: [FloatSide.right, .left])
    func aSidebarFloatsAtItsSideWithTheTextBesideIt(_ side: FloatSide) throws {
        var layout = Self.layout()
        layout.columnFill = .auto
        let html = "<p>\(Self.prose(40, seed: 1))</p><aside style='float: \(side.rawValue); width: 40%; border: 1px solid #333; padding: 4px; background: #eef'>"
            + "<h3>Sidebar</h3><p>\(Self.prose(30, seed: 2))</p></aside><p>\(Self.prose(200, seed: 3))</p>"
        let (text, pages) = try FloatTests.typeset(html, layout)
        #expect(text.floats.count == 1)
        Self.expectFloatsKeptClear(text, pages)
        let column = pages[0].columns[0]
        let float = try #require(column.floats.first)
        #expect(float.side == side)
        // 40% of the column, plus its padding (4 px: 3 pt) and borders on either side.
        #expect(abs(float.rect.width - (0.4 * column.rect.width + 2 * (3 + 0.75))) < 0.01, "\(float.rect.width)")
        if side == .right { #expect(abs(float.rect.maxX - column.rect.maxX) < 0.01) } else { #expect(abs(float.rect.x - column.rect.x) < 0.01) }
        // Its box is drawn around it, and nowhere else.
        let box = try #require(column.boxes.first)
        #expect(abs(box.rect.x - float.rect.x) < 0.01 && abs(box.rect.width - float.rect.width) < 0.01 && box.startsHere && box.endsHere)
        #expect(box.rect.y >= float.rect.y - 0.01 && box.rect.maxY <= float.rect.maxY + 0.01)
        // Lines after it start at its top, beside it, shortened; lines below run full width.
        let after = column.lines.filter { $0.range.lowerBound >= float.range.upperBound }
        let beside = after.filter { $0.rect.y < float.rect.maxY }
        #expect(beside.count >= 4, "\(beside.count) lines beside")
        #expect(abs((beside.first?.rect.y ?? 0) - float.rect.y) < 2, "the first line beside starts at the float's top")
        for line in beside {
            // A block's margins are in its rectangle (none here): no gap beyond them.
            if side == .right { #expect(line.rect.maxX <= float.rect.x + 0.01) } else { #expect(line.rect.x >= float.rect.maxX - 0.01) }
        }
        // Below it, lines take the room it had.
        let below = after.filter { $0.rect.y > float.rect.maxY }
        #expect(below.count >= 4)
        if side == .right { #expect(below.contains { $0.rect.maxX > float.rect.x + 10 }) } else { #expect(below.allSatisfy { abs($0.rect.x - column.rect.x) < 0.01 }) }
    }

    @Test func aFloatWithoutAWidthIsAsWideAsItsContent() throws {
        let (text, pages) = try FloatTests.typeset("<div style='float: left'>Short note</div><p>\(Self.prose(120, seed: 4))</p>", Self.layout())
        Self.expectFloatsKeptClear(text, pages)
        let float = try #require(pages[0].columns[0].floats.first)
        #expect(float.rect.width < pages[0].columns[0].rect.width / 3)
        // Its one line fits on one line: shrink-to-fit takes the content's width, not less.
        #expect(pages[0].columns[0].lines.filter { float.range.contains($0.range.lowerBound) }.count == 1)
    }

    @Test func aFloatThatDoesNotFitTheRestOfTheColumnStartsTheNext() throws {
        var layout = Self.layout()
        layout.columnFill = .auto
        let html = "<p>\(Self.prose(170, seed: 5))</p><aside style='float: right; width: 50%'><p>\(Self.prose(60, seed: 6))</p></aside><p>\(Self.prose(80, seed: 7))</p>"
        let (text, pages) = try FloatTests.typeset(html, layout)
        Self.expectFloatsKeptClear(text, pages)
        let columns = pages.flatMap(\.columns)
        let holder = try #require(columns.firstIndex { !$0.floats.isEmpty })
        #expect(holder > 0, "it went on to a later column")
        let float = columns[holder].floats[0]
        #expect(abs(float.rect.y - columns[holder].rect.y) < 0.01, "at the top of the next column")
        #expect(columns[holder].range.lowerBound == float.range.lowerBound, "with the text that follows it")
    }

    @Test func aFloatTallerThanAColumnIsSetInTheFlow() throws {
        var layout = Self.layout()
        layout.pageHeight = 300
        let html = "<p>\(Self.prose(20, seed: 8))</p><div style='float: left; width: 50%'>" + (1...6).map { "<p>\(Self.prose(60, seed: UInt64(10 + $0)))</p>" }.joined()
            + "</div><p>\(Self.prose(40, seed: 9))</p>"
        let (text, pages) = try FloatTests.typeset(html, layout)
        #expect(text.floats.count == 1)
        #expect(pages.flatMap(\.columns).allSatisfy { $0.floats.isEmpty })
        SpanningBlockTests.expectTiled(pages, text)
        // Set across the whole measure, split over columns like any block.
        #expect(pages.flatMap(\.columns).flatMap(\.lines).contains { $0.rect.width > 140 })
    }

    @Test func aClearedParagraphStartsBelowTheFloat() throws {
        let html = "<div style='float: right; width: 40%'><p>\(Self.prose(8, seed: 20))</p></div><p>Beside.</p><p style='clear: right'>\(Self.prose(40, seed: 21))</p>"
        var layout = Self.layout()
        layout.columnFill = .auto
        let (text, pages) = try FloatTests.typeset(html, layout)
        Self.expectFloatsKeptClear(text, pages)
        let column = pages[0].columns[0]
        let float = try #require(column.floats.first)
        // At the top of the first page, below the margin of the paragraph beside it (kept, as
        // no break is there), the paragraph level with it.
        let beside = try #require(column.lines.first { text.string($0.range).hasPrefix("Beside") })
        #expect(float.rect.y > column.rect.y && abs(float.rect.y - beside.rect.y) < 0.01)
        let cleared = try #require(column.lines.first { text.string($0.range).hasPrefix(String(Self.prose(40, seed: 21).prefix(8))) })
        #expect(cleared.rect.y >= float.rect.maxY - 0.01)
    }

    @Test func floatsInVerticalTextStandAtTheBandsSide() throws {
        let layout = Self.layout(vertical: true)
        let japanese = String(repeating: "縦書きの本文は上から下へ進み、行は右から左へ並ぶ。", count: 12)
        let html = "<p>\(japanese)</p><div style='float: left; width: 30%; border: 1px solid black'><p>囲み記事の文章。\(String(japanese.prefix(40)))</p></div><p>\(japanese)</p>"
        let (text, pages) = try FloatTests.typeset(html, layout)
        Self.expectFloatsKeptClear(text, pages)
        #expect(pages.flatMap(\.columns).flatMap(\.floats).count == 1)
    }

    /// Where a float cannot be one (in a table cell, in another float, around a table), the
    /// block stays in the flow and nothing is lost.
    @Test func floatsThatCannotBeStayInTheFlow() throws {
        let html = "<table><tr><td><div style='float: right'>In a cell</div>Cell text</td><td>Other</td></tr></table>"
            + "<div style='float: left; width: 40%'><p>Outer float</p><div style='float: right'>Inner float</div></div>"
            + "<div style='float: right'><table><tr><td>A table</td><td>in a float</td></tr></table></div><p>\(Self.prose(80, seed: 30))</p>"
        let (text, pages) = try FloatTests.typeset(html, Self.layout())
        #expect(text.floats.count == 1, "only the outer float of the second block")
        #expect(text.validate().isEmpty)
        Self.expectFloatsKeptClear(text, pages)
    }

    /// A floated block's pictures are drawn inside it, floated ones included.
    @Test func picturesInAFloatAreDrawnInsideIt() throws {
        let html = "<p>\(Self.prose(30, seed: 40))</p><figure style='float: right; width: 45%; margin: 0'><img src='x.png' width=100 height=60>"
            + "<figcaption>A caption <img src='y.png' width=20 height=20 style='float: left'> with a small floated mark.</figcaption></figure><p>\(Self.prose(150, seed: 41))</p>"
        let (text, pages) = try FloatTests.typeset(html, Self.layout())
        Self.expectFloatsKeptClear(text, pages)
        let page = pages[0]
        let float = try #require(page.columns[0].floats.first)
        #expect(page.attachments.count == 2)
        for picture in page.attachments {
            #expect(float.rect.x - 0.01 <= picture.rect.x && picture.rect.maxX <= float.rect.maxX + 0.01
                    && float.rect.y - 0.01 <= picture.rect.y && picture.rect.maxY <= float.rect.maxY + 0.01, "picture \(picture.rect) outside \(float.rect)")
        }
        #expect(page.attachments.contains { $0.float == .left })
    }
}
