import GalleyRaster
import GalleyText
import Testing

/// `display: table-row-group`, `table-row` and `table-cell` on elements that are not a
/// table's: they join a table, an anonymous one around them when they are in none (CSS 2.1
/// §17.2.1), drawn on a 600 x 450 pt page at 96 dpi (one CSS px a pixel), without inset.
@Suite struct TableDisplayTests {
    typealias Boxes = SizedBoxTests

    @Test func cellsInABlockSitSideBySideInAnAnonymousTableAndWhatFollowsGoesBelow() throws {
        let bitmap = try Boxes.drawn("<div><span style='display: table-cell; color: blue'>First cell</span>"
            + "<span style='display: table-cell; color: green'>Second cell</span></div><p style='color: red'>After the table.</p>")
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        let red = try #require(Boxes.area(of: PositionTests.red, in: bitmap).box)
        // One row: the second cell right of the first, on the same line.
        #expect(green.x >= blue.x + blue.width && abs(green.y - blue.y) <= 2, "\(blue) \(green)")
        #expect(red.y > max(blue.y + blue.height, green.y + green.height), "\(red)")
    }

    @Test func rowsWithoutATableShareTheirColumns() throws {
        let html = "<div style='display: table-row'><div style='display: table-cell'>A</div>"
            + "<div style='display: table-cell; color: blue'>right</div></div>"
            + "<div style='display: table-row'><div style='display: table-cell; color: red'>A much longer first cell</div>"
            + "<div style='display: table-cell; color: green'>right</div></div>"
        let bitmap = try Boxes.drawn(html)
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        let red = try #require(Boxes.area(of: PositionTests.red, in: bitmap).box)
        // A grid: both second cells start where the column does, right of the longer first cell.
        #expect(abs(blue.x - green.x) <= 1 && blue.x >= red.x + red.width, "\(blue) \(green) \(red)")
        #expect(green.y > blue.y + blue.height / 2, "\(blue) \(green)")
    }

    @Test func cellsInARowGroupWithoutRowsFormARow() throws {
        let html = "<div style='display: table-row-group'><span style='display: table-cell; color: blue'>One</span>"
            + "<span style='display: table-cell; color: green'>Two</span></div>"
        let bitmap = try Boxes.drawn(html)
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        #expect(green.x >= blue.x + blue.width && abs(green.y - blue.y) <= 2, "\(blue) \(green)")
    }

    @Test func aCellsBackgroundAndPaddingAreDrawnAsACells() throws {
        // No spacing or padding of HTML's tables: the blue cell starts at the page's corner,
        // as wide as its text and padding (a block would run across the page).
        let bitmap = try Boxes.drawn("<div><div style='display: table-cell; background: blue; padding: 10px'>"
            + "<span style='color: white'>Text</span></div></div>")
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box)
        #expect(blue.x == 0 && blue.y == 0 && blue.height > 20 && blue.width < 200, "\(blue)")
    }

    @Test func aListItemsMarkerHangsOutOfItsCellAsOutOfABlock() throws {
        // The same item in a block 100 px in and in a cell 100 px in: the marker hangs left of
        // the text in both (CSS draws an outside marker out of the cell's content box).
        func drawn(_ item: String) throws -> (x: Int, y: Int, width: Int, height: Int) {
            try #require(Boxes.area(of: Boxes.blue, in: try Boxes.drawn("<div style='margin-left: 100px'>\(item)</div>")).box)
        }
        let item = "<div style='display: list-item; color: blue'>Item</div>"
        let inBlock = try drawn(item), inCell = try drawn("<div style='display: table-cell'>\(item)</div>")
        #expect(inBlock.x < 100 && abs(inCell.x - inBlock.x) <= 1 && abs(inCell.width - inBlock.width) <= 1, "\(inBlock) \(inCell)")
    }

    @Test func aBlockMadeATableIsSizedAsATableWithItsCaptionAboveIt() throws {
        // `display: table` on a div: a table 300 px wide with its background, and its
        // `table-caption` above it, outside its box (a block would run across the page).
        let html = "<div style='display: table; width: 300px; background: blue'>"
            + "<div style='display: table-caption; color: green'>Caption</div>"
            + "<div style='display: table-row'><div style='display: table-cell; color: white'>Cell</div></div></div>"
        let bitmap = try Boxes.drawn(html)
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        #expect(blue.x == 0 && abs(blue.width - 300) <= 1, "\(blue)")
        #expect(green.y + green.height <= blue.y, "\(green) \(blue)")
    }

    @Test func anInlineTableIsATableToo() throws {
        let html = "<div style='display: inline-table; border-spacing: 0; width: 200px; background: blue'>"
            + "<div style='display: table-cell; color: white'>Cell</div></div><p style='color: green'>After</p>"
        let bitmap = try Boxes.drawn(html)
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        #expect(blue.x == 0 && abs(blue.width - 200) <= 1 && green.y >= blue.y + blue.height, "\(blue) \(green)")
    }

    @Test func aTableSetAsParagraphsKeepsTheMarginAboveIt() throws {
        // A table with only a caption is no grid: its caption is a paragraph 40 px below the
        // paragraph above, as a browser draws it, not against it.
        let bitmap = try Boxes.drawn("<p style='margin: 0 0 40px; color: green'>Above</p>"
            + "<table><caption style='color: blue'>Caption</caption></table>")
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        #expect(blue.y - (green.y + green.height) >= 40, "\(green) \(blue)")
    }
}
