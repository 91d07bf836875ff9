import Foundation
import GalleyTestSupport
import GalleyText
import Testing

/// CSS 2.1 table features a reader sees on the page: `table-layout: fixed` column widths,
/// `<col>` widths in percent and backgrounds, tables whose cells hold no text, cell `height`.
@Suite struct TableLayoutCSSTests {
    let tests = TableTests()

    /// The first table piece of the first page.
    func piece(_ html: String) throws -> (TableFrame, TypesetPage) {
        let (pages, _) = try tests.typeset(tests.parse(html), tests.layout(columns: 1))
        let page = try #require(pages.first)
        return (try #require(page.columns.first?.tables.first), page)
    }

    func widths(_ piece: TableFrame) -> [Double] {
        piece.cells.filter { $0.row == 0 }.sorted { $0.column < $1.column }.map(\.rect.width)
    }

    /// With `table-layout: fixed` the first row's cell widths (padding and borders added) and
    /// the table's width make the columns; the others share the rest evenly, whatever their
    /// text wants: a long text in the first column does not widen it.
    @Test func aFixedTableTakesItsColumnsFromTheFirstRowAndItsWidth() throws {
        let (table, _) = try piece("""
            <table style="table-layout: fixed; width: 400px; border-spacing: 0">
            <tr><td style="padding: 0">a long text that an automatic layout would give most of the table's width to</td>
            <td style="width: 80px; padding: 0 10px; border: 0">b</td><td style="padding: 0">c</td></tr>
            <tr><td style="padding: 0">d</td><td style="width: 300px; padding: 0">e</td><td style="padding: 0">f</td></tr></table>
            """)
        let px = 0.75
        let widths = widths(table)
        #expect(widths.count == 3)
        #expect(abs(widths[1] - 100 * px) < 0.01, "80px wide and 20px of padding: \(widths)")
        #expect(abs(widths[0] - 150 * px) < 0.01 && abs(widths[2] - 150 * px) < 0.01, "the rest, shared: \(widths)")
        #expect(abs(table.rect.width - 400 * px) < 0.01, "\(table.rect)")
        // The second row's `width` changes nothing.
        let second = table.cells.filter { $0.row == 1 }.sorted { $0.column < $1.column }.map(\.rect.width)
        #expect(second == widths)
    }

    /// A `<col>` width in percent is of the table's width less its spacing, and its background
    /// shows in its column's cells.
    @Test func columnPercentWidthsAndBackgroundsInAFixedTable() throws {
        let (table, page) = try piece("""
            <table style="table-layout: fixed; width: 420px; border-spacing: 4px">
            <col><col><col style="width: 40%; background-color: #ffa500"><col>
            <tr><td></td><td></td><td style="padding: 10px 0">x</td><td></td></tr></table>
            """)
        let px = 0.75
        let widths = widths(table)
        #expect(widths.count == 4)
        #expect(abs(widths[2] - 160 * px) < 0.01, "40% of 400px: \(widths)")
        #expect(abs(widths[0] - 80 * px) < 0.01, "the rest shared by three: \(widths)")
        let cell = try #require(table.cells.first { $0.column == 2 })
        let drawn = try BlockBoxTests.Drawn(page)
        let pixel = drawn.pixel(cell.rect.maxX - 3, cell.rect.y + 3)
        #expect(pixel.r == 255 && pixel.g == 165 && pixel.b == 0, "the column's orange: \(pixel)")
    }

    /// A table whose cells hold no text is still drawn: its cells' backgrounds at the size
    /// their padding makes, as browsers draw the green squares of the CSS tests.
    @Test func aTableOfEmptyCellsIsDrawn() throws {
        let html = """
            <p>Above.</p><table style="border-spacing: 0"><tr><td style="background-color: #008000; padding: 50px 25px"></td>
            <td style="background-color: #008000; padding: 50px 25px"></td></tr></table>
            """
        let (table, page) = try piece(html)
        let px = 0.75
        #expect(table.cells.count == 2)
        #expect(abs(table.rect.width - 100 * px) < 0.01 && abs(table.rect.height - 100 * px) < 0.01, "\(table.rect)")
        let drawn = try BlockBoxTests.Drawn(page)
        let pixel = drawn.pixel(table.rect.midX, table.rect.midY)
        #expect(pixel.r == 0 && pixel.g == 128 && pixel.b == 0, "\(pixel)")
        #expect(tests.parse(html).text.validate() == [])
    }

    /// A table in an absolutely positioned block is set in that block, at its offsets, over
    /// the text it covers (the old code set it in the flow below that text).
    @Test func aTableInAnAbsolutelyPositionedBlockIsSetThere() throws {
        let (table, page) = try piece("""
            <div style="position: relative"><p>Under the table, the text of the flow.</p>
            <div style="position: absolute; top: 0; left: 100px"><table><tr><td>one</td><td>two</td></tr></table></div></div>
            """)
        let column = try #require(page.columns.first)
        let first = try #require(column.lines.first)
        #expect(table.rect.y >= column.rect.y - 0.5 && table.rect.y <= first.rect.y + 0.5,
                "at the top of its block, where top: 0 puts it: \(table.rect), first line \(first.rect)")
        #expect(abs(table.rect.x - (column.rect.x + 75)) < 0.5, "left: 100px: \(table.rect)")
        #expect(table.rect.y < first.rect.maxY, "over the flow's first line, not below it")
        #expect(table.cells.count == 2)
    }

    /// The margin above a table with a caption is above the caption (the caption is inside
    /// the table's wrapper box), not between the caption and the grid.
    @Test func aTablesMarginIsAboveItsCaption() throws {
        let (pages, _) = try tests.typeset(tests.parse("""
            <p>Above the table.</p><table style="margin-top: 40px"><caption>The caption</caption><tr><td>cell</td></tr></table>
            """), tests.layout(columns: 1))
        let column = try #require(pages.first?.columns.first)
        let table = try #require(column.tables.first)
        // The caption wraps in the table's width, as browsers wrap it: "The" over "caption".
        #expect(column.lines.count == 4)
        let (above, caption, captionEnd) = (column.lines[0].rect, column.lines[1].rect, column.lines[2].rect)
        #expect(caption.y - above.maxY > 40 * 0.75 - 0.5, "the 40px margin above the caption: \(above) \(caption)")
        #expect(table.rect.y - captionEnd.maxY < 5 && table.rect.y >= captionEnd.maxY - 0.5, "the grid right under its caption: \(captionEnd) \(table.rect)")
    }

    /// A cell's `height` is the least height of its row, its padding and borders included as
    /// browsers take it, however little the cell holds.
    @Test func aCellsHeightMakesItsRowThatTall() throws {
        let (table, _) = try piece("""
            <table style="border-spacing: 0"><tr><td style="height: 100px; padding: 15px; border: 10px solid #008000">x</td></tr></table>
            """)
        let cell = try #require(table.cells.first)
        #expect(abs(cell.rect.height - 100 * 0.75) < 0.01, "\(cell.rect)")
    }
}
