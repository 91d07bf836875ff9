import Foundation
import GalleyRaster
@testable import GalleyText
import Testing

/// CSS `text-align-last` places the last line of a block and each line before a forced break
/// (`<br>`); `line-height: 0` gives lines no height, as CSS sets them.
@Suite struct TextAlignLastTests {
    static let words = "A justified paragraph long enough to wrap over several lines of this narrow column ends here"

    func lines(_ html: String, width: Double = 200) throws -> (lines: [LineBox], column: Rect, text: AttributedText) {
        var layout = column(width)
        layout.base.fontSize = 10
        let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        let column = try #require(pages.first?.columns.first)
        return (pages.flatMap { $0.columns.flatMap(\.lines) }, column.rect, text)
    }

    @Test func theLastLineIsCentredOrSpreadAsAsked() throws {
        let centred = try lines("<p style='text-align: justify; text-align-last: center'>\(Self.words)</p>")
        let last = try #require(centred.lines.last)
        #expect(centred.lines.count >= 3)
        let left = last.rect.x - centred.column.x, right = centred.column.maxX - last.rect.maxX
        #expect(left > 10 && abs(left - right) < 1, "centred: \(left) left, \(right) right")
        #expect(centred.lines.dropLast().allSatisfy { $0.isJustified }, "the other lines stay justified")

        let spread = try lines("<p style='text-align: justify; text-align-last: justify'>\(Self.words)</p>")
        let spreadLast = try #require(spread.lines.last)
        #expect(spreadLast.isJustified)
        #expect(abs(spreadLast.rect.maxX - spread.column.maxX) < 0.5, "flush right: \(spreadLast.rect.maxX) vs \(spread.column.maxX)")

        let auto = try lines("<p style='text-align: justify'>\(Self.words)</p>")
        let autoLast = try #require(auto.lines.last)
        #expect(!autoLast.isJustified && abs(autoLast.rect.x - auto.column.x) < 0.5, "auto: the start")
    }

    @Test func aLineBeforeAForcedBreakCountsAsALastLine() throws {
        let set = try lines("<p style='text-align-last: right'>short<br>\(Self.words)</p>")
        let first = try #require(set.lines.first)
        #expect(set.text.string(first.range).hasPrefix("short"))
        #expect(abs(first.rect.maxX - set.column.maxX) < 0.5, "flush right: \(first.rect)")
        #expect(abs(set.lines[1].rect.x - set.column.x) < 0.5, "a line that wrapped stays at the start")
    }

    @Test func inheritedAndMatchParent() throws {
        let set = try lines("<div style='text-align-last: center'><p>one line</p><p style='text-align-last: auto'>two line</p></div>")
        #expect(set.lines.count == 2)
        #expect(set.lines[0].rect.x - set.column.x > 10, "inherited: centred")
        #expect(abs(set.lines[1].rect.x - set.column.x) < 0.5, "auto: the start")
    }

    @Test func lineHeightZeroGivesLinesNoHeight() throws {
        let set = try lines("<div style='line-height: 0'><p style='margin: 0'>first block</p><p style='margin: 0'>second block</p></div><p style='margin: 0'>after</p>")
        #expect(set.lines.count == 3)
        #expect(set.lines[0].rect.height == 0 && set.lines[1].rect.height == 0)
        #expect(abs(set.lines[0].baseline - set.lines[1].baseline) < 0.01, "set over one another")
        #expect(set.lines[2].rect.y - set.lines[0].rect.y < 1, "the block takes no room: \(set.lines.map(\.rect))")
    }
}

/// `border-spacing` with two values spaces columns by the first and rows by the second; with
/// `border-spacing: 0`, cells whose edges fall between pixels leave no seam of the table's
/// background between them.
@Suite struct BorderSpacingTests {
    func page(_ html: String) throws -> (TypesetPage, AttributedText) {
        var layout = column(300)
        layout.base.fontSize = 10
        let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
        return (try #require(try typesetAll(text, layout, fonts: sharedFonts).first), text)
    }

    @Test func twoValuesSpaceColumnsAndRowsApart() throws {
        let cells = "<tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr>"
        let (page, text) = try page("<table style='border-spacing: 5px 20px'>\(cells)</table>")
        let lines = page.columns.flatMap(\.lines)
        func line(_ s: String) throws -> LineBox { try #require(lines.first { text.string($0.range).hasPrefix(s) }) }
        let (a, b, c) = (try line("a"), try line("b"), try line("c"))
        let across = b.rect.x - a.rect.maxX, down = c.rect.y - a.rect.maxY
        // Padding (1 px each side) apart, the gaps are the spacing: 5 px across, 20 px down.
        #expect(down - across > 10, "rows \(down) pt apart, columns \(across) pt")
        #expect(abs(down - across - 15 * 0.75) < 1)
    }

    @Test func cellsWithoutSpacingLeaveNoSeam() throws {
        let row = "<tr><td style='background: white; padding: 3.3px'>one</td><td style='background: white; padding: 3.3px'>two</td><td style='background: white; padding: 3.3px'>three</td></tr>"
        let (page, _) = try page("<table style='border-spacing: 0; background: #ff0000'>\(Array(repeating: row, count: 6).joined())</table>")
        let table = try #require(page.columns.first?.tables.first)
        for dpi in [96.0, 110, 150] {
            let scale = dpi / 72
            let bitmap = try page.render(scale: scale, cancellation: Cancellation())
            // Inside the table, one pixel in from its box: nothing reddish anywhere.
            var red = 0
            for y in Int(table.rect.y * scale + 2)..<Int(table.rect.maxY * scale - 2) {
                for x in Int(table.rect.x * scale + 2)..<Int(table.rect.maxX * scale - 2) {
                    let p = bitmap.pixel(x: x, y: y)
                    if p.r > 200 && p.g < 240 && p.b < 240 && Int(p.r) - Int(p.g) > 20 { red += 1 }
                }
            }
            #expect(red == 0, "\(red) pixels of the table's background show between cells at \(dpi) dpi")
        }
    }
}
