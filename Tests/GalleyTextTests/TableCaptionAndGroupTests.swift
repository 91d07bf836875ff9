import Foundation
import GalleyRaster
import GalleyText
import Testing

/// A table's captions (`caption-side`, the caption's own box), its header and footer groups
/// drawn at its top and foot wherever the markup puts them (CSS 2.1 §17.2, §17.4), and
/// `empty-cells: hide`, drawn on a 600 x 450 pt page at 96 dpi (one CSS px a pixel).
@Suite struct TableCaptionAndGroupTests {
    typealias Boxes = SizedBoxTests
    static let red = PositionTests.red

    @Test func aBottomCaptionIsDrawnBelowTheTable() throws {
        let bitmap = try Boxes.drawn("<table style='caption-side: bottom; border-spacing: 0; background: blue'>"
            + "<caption style='color: green'>Caption</caption><tr><td style='padding: 20px; color: white'>Cell</td></tr></table>")
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        #expect(green.y >= blue.y + blue.height, "the caption under the table: \(green) \(blue)")
    }

    @Test func aCaptionsBoxIsAsWideAsTheTableWithItsPaddingAndBorder() throws {
        // A 300px table; its caption's background (green) runs across the table's width, its
        // border (blue, 5px) round it, its padding (10px) inside it, its text (red) centred.
        let bitmap = try Boxes.drawn("<table style='width: 300px; border-spacing: 0'>"
            + "<caption style='background: #008000; border: 5px solid blue; padding: 10px; color: red'>Cap</caption>"
            + "<tr><td style='padding: 0'>Cell</td></tr></table>")
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        let red = try #require(Boxes.area(of: Self.red, in: bitmap).box)
        #expect(blue.x == 0 && abs(blue.width - 300) <= 1, "the border box as wide as the table: \(blue)")
        #expect(abs(green.x - 5) <= 1 && abs(green.width - 290) <= 1, "the background inside the border: \(green)")
        #expect(red.y >= green.y + 10 - 1 && red.y + red.height <= green.y + green.height - 10 + 1, "padding above and below the text: \(red) \(green)")
        let centre = Double(red.x) + Double(red.width) / 2
        #expect(abs(centre - 150) < 20, "the caption's text centred in the table's width: \(red)")
    }

    @Test func aFooterWrittenBeforeTheBodyIsDrawnAtTheFootAndAHeaderAfterItAtTheTop() throws {
        let bitmap = try Boxes.drawn("<table style='border-spacing: 0'>"
            + "<tfoot><tr><td style='color: green'>Foot</td></tr></tfoot>"
            + "<tbody><tr><td style='color: red'>Body</td></tr></tbody>"
            + "<thead><tr><td style='color: blue'>Head</td></tr></thead></table>")
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        let red = try #require(Boxes.area(of: Self.red, in: bitmap).box)
        #expect(blue.y + blue.height <= red.y && red.y + red.height <= green.y, "head, body, foot from the top: \(blue) \(red) \(green)")
    }

    @Test func onlyTheFirstFooterGroupGoesToTheFootAndDisplayMakesGroupsToo() throws {
        // `display: table-footer-group` and `-header-group` on divs; the second footer group is
        // an ordinary row group, in its place.
        let row = { (color: String, text: String) in "<div style='display: table-row'><div style='display: table-cell; color: \(color)'>\(text)</div></div>" }
        let bitmap = try Boxes.drawn("<div style='display: table'>"
            + "<div style='display: table-footer-group'>\(row("green", "First footer"))</div>"
            + "<div style='display: table-row-group'>\(row("red", "Body"))</div>"
            + "<div style='display: table-footer-group'>\(row("blue", "Second footer"))</div></div>")
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        let red = try #require(Boxes.area(of: Self.red, in: bitmap).box)
        #expect(red.y + red.height <= blue.y && blue.y + blue.height <= green.y, "body, second footer, first footer: \(red) \(blue) \(green)")
    }

    @Test func emptyCellsHideDrawsNoBoxForACellWithoutContent() throws {
        let cell = "padding: 20px; background: blue; border: 3px solid #008000"
        let html = { (emptyCells: String) in
            "<table style='empty-cells: \(emptyCells); border-spacing: 4px'><tr><td style='\(cell)'></td><td style='\(cell); color: red'>X</td></tr></table>"
        }
        let shown = try Boxes.drawn(html("show")), hidden = try Boxes.drawn(html("hide"))
        let shownBlue = try #require(Boxes.area(of: Boxes.blue, in: shown).box), hiddenBlue = try #require(Boxes.area(of: Boxes.blue, in: hidden).box)
        #expect(shownBlue.x < 10, "both cells' backgrounds with empty-cells: show: \(shownBlue)")
        #expect(hiddenBlue.x > 40, "only the second cell's: \(hiddenBlue)")
        let shownGreen = try #require(Boxes.area(of: Boxes.green, in: shown).box), hiddenGreen = try #require(Boxes.area(of: Boxes.green, in: hidden).box)
        #expect(shownGreen.x < 10 && hiddenGreen.x > 40, "only the second cell's border: \(shownGreen) \(hiddenGreen)")
        #expect(abs(hiddenBlue.y - shownBlue.y) <= 1, "the empty cell keeps its room: \(hiddenBlue) \(shownBlue)")
    }

    @Test func anInlineTableIsSetInItsLineOnItsFirstRowsBaseline() throws {
        // The table (blue) between two words of a line (green), its first row's text (red) on
        // the line's baseline; the second row hangs below.
        let bitmap = try Boxes.drawn("<p style='color: green; margin: 0'>Before <span style='display: inline-table; background: blue; border-spacing: 0'>"
            + "<span style='display: table-row'><span style='display: table-cell; color: red'>Xx</span></span>"
            + "<span style='display: table-row'><span style='display: table-cell; color: white'>second row</span></span></span> after</p>")
        let blue = try #require(Boxes.area(of: Boxes.blue, in: bitmap).box), green = try #require(Boxes.area(of: Boxes.green, in: bitmap).box)
        let red = try #require(Boxes.area(of: Self.red, in: bitmap).box)
        #expect(green.x < blue.x && green.x + green.width > blue.x + blue.width, "words before and after the table: \(green) \(blue)")
        #expect(abs(red.y + red.height - (green.y + green.height)) <= 2, "the first row's baseline on the line's: \(red) \(green)")
        #expect(blue.y + blue.height > green.y + green.height + 5, "the second row below the line's baseline: \(blue) \(green)")
    }
}
