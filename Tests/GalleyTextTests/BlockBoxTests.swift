import Foundation
import GalleyRaster
import GalleyText
import Testing

/// Boxes of blocks (`border`, `padding`, `background-color` on a `div`, `p`, `pre`, …): drawn
/// around the block's lines, which sit inside the border and padding, open where a column
/// break splits the box, and turned with the lines in vertical text.
@Suite struct BlockBoxTests {
    static let red = (r: UInt8(204), g: UInt8(0), b: UInt8(0))
    static let pale = (r: UInt8(238), g: UInt8(238), b: UInt8(255))
    /// Words enough for a few lines of a column.
    static let words = String(repeating: "The quick brown fox jumps over the lazy dog while the typesetter fills the column. ", count: 3)

    struct Typeset {
        var text: AttributedText
        var pages: [TypesetPage]
        var columns: [ColumnFrame] { pages.flatMap(\.columns) }
        /// The lines of paragraphs `paragraphs`, in order.
        func lines(of paragraphs: Range<Int>) -> [LineBox] {
            columns.flatMap(\.lines).filter { paragraphs.contains(text.paragraphIndex(at: $0.range.lowerBound)) }
        }
    }

    func typeset(_ html: String, columns: Int = 1, page: (width: Double, height: Double) = (595, 842),
                 vertical: Bool = false) throws -> Typeset {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        #expect(article.text.validate().isEmpty, "\(article.text.validate())")
        var layout = ArticleLayout(name: "boxes")
        layout.columns = columns
        (layout.pageWidth, layout.pageHeight) = page
        layout.inset = .init(all: 24)
        if vertical { layout.writingMode = .verticalRL }
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts)
        var pages: [TypesetPage] = []
        while let page = try typesetter.nextPage(), pages.count < 20 { pages.append(page) }
        return Typeset(text: article.text, pages: pages)
    }

    /// A page drawn at 4 pixels a point, read in points.
    struct Drawn {
        static let scale = 4.0
        let bitmap: Bitmap
        init(_ page: TypesetPage) throws { bitmap = try page.render(scale: Self.scale, cancellation: Cancellation()) }
        func pixel(_ x: Double, _ y: Double) -> (r: UInt8, g: UInt8, b: UInt8) {
            bitmap.pixel(x: Int((x * Self.scale).rounded(.down)), y: Int((y * Self.scale).rounded(.down)))
        }
        func isRed(_ x: Double, _ y: Double) -> Bool {
            let p = pixel(x, y)
            return p.r > 150 && p.g < 60 && p.b < 60
        }
        /// Runs of red pixels along a row (`horizontal`) or a column of pixels from `start` to
        /// `end` (points).
        func redRuns(at across: Double, from start: Double, to end: Double, horizontal: Bool) -> Int {
            var runs = 0, inRun = false
            var position = start
            while position < end {
                let red = horizontal ? isRed(position, across) : isRed(across, position)
                if red && !inRun { runs += 1 }
                inRun = red
                position += 1 / Self.scale
            }
            return runs
        }
    }

    func near(_ a: Double, _ b: Double, _ slack: Double = 0.01) -> Bool { abs(a - b) <= slack }

    @Test func aBorderedBoxEnclosesItsLinesInsideItsBorderAndPadding() throws {
        let boxed = try typeset("<p>Before the box.</p><div style='border:2px solid #c00; padding:6pt; background-color:#eef'>\(Self.words)</div>"
                                + "<p>After the box.</p>")
        let plain = try typeset("<p>Before the box.</p><div>\(Self.words)</div><p>After the box.</p>")
        #expect(boxed.text.boxes.count == 1 && plain.text.boxes.isEmpty)
        let column = try #require(boxed.columns.first)
        let piece = try #require(column.boxes.first)
        #expect(column.boxes.count == 1 && piece.startsHere && piece.endsHere)
        let box = piece.rect
        let lines = boxed.lines(of: 1..<2)
        #expect(lines.count >= 3)
        // 2 px is 1.5 pt: the lines start 7.5 pt in from the border box, the first 7.5 pt
        // below its top, the last 7.5 pt above its bottom.
        let inset = 1.5 + 6
        for line in lines {
            #expect(near(line.rect.x, box.x + inset), "line at \(line.rect.x), box at \(box.x)")
            #expect(line.rect.maxX <= box.maxX - inset + 0.01)
        }
        let last = try #require(lines.last)
        #expect(near(lines[0].rect.y, box.y + inset) && near(last.rect.maxY, box.maxY - inset))
        // The box starts where the plain block started (after the paragraph's margin), and its
        // lines are further down by the top border and padding, further in by the left ones.
        let plainFirst = plain.lines(of: 1..<2)[0]
        #expect(near(box.y, plainFirst.rect.y) && near(lines[0].rect.y - plainFirst.rect.y, inset))
        #expect(near(lines[0].rect.x - plainFirst.rect.x, inset) && near(box.x, plainFirst.rect.x))
        #expect(boxed.lines(of: 0..<1)[0].rect.maxY <= box.y && boxed.lines(of: 2..<3)[0].rect.y >= box.maxY)

        let drawn = try Drawn(try #require(boxed.pages.first))
        #expect(drawn.isRed(box.midX, box.y + 0.75) && drawn.isRed(box.midX, box.maxY - 0.75), "top and bottom borders")
        #expect(drawn.isRed(box.x + 0.75, box.midY) && drawn.isRed(box.maxX - 0.75, box.midY), "left and right borders")
        #expect(drawn.pixel(box.x + 4, box.y + 4) == Self.pale, "the background in the padding")
        #expect(drawn.pixel(box.maxX - 4, box.midY) == Self.pale, "the background beside the lines")
        #expect(drawn.pixel(box.x - 3, box.midY) == (255, 255, 255) && drawn.pixel(box.midX, box.y - 3) == (255, 255, 255), "nothing outside")
    }

    @Test func aBlockBackgroundFillsItsBoxWithoutMovingItsLines() throws {
        let shaded = try typeset("<p>Before.</p><p style='background-color: #eef'>\(Self.words)</p><p>After.</p>")
        let plain = try typeset("<p>Before.</p><p>\(Self.words)</p><p>After.</p>")
        #expect(shaded.columns[0].lines.map(\.rect) == plain.columns[0].lines.map(\.rect))
        let box = try #require(shaded.columns[0].boxes.first).rect
        let lines = shaded.lines(of: 1..<2)
        let last = try #require(lines.last)
        #expect(near(box.y, lines[0].rect.y) && near(box.maxY, last.rect.maxY))
        let drawn = try Drawn(try #require(shaded.pages.first))
        #expect(drawn.pixel(box.maxX - 2, box.midY) == Self.pale)
    }

    @Test func aBoxSplitAcrossColumnsIsOpenAtTheSplit() throws {
        let split = try typeset("<p>\(Self.words)</p><div style='border:2px solid #c00; padding:6pt; background-color:#eef'>"
                                + "\(Self.words)\(Self.words)\(Self.words)</div><p>After.</p>",
                                columns: 2, page: (420, 300))
        let pieces = split.columns.flatMap(\.boxes)
        #expect(pieces.count >= 2)
        let first = try #require(pieces.first), last = try #require(pieces.last)
        #expect(first.startsHere && !first.endsHere && !last.startsHere && last.endsHere)
        let columns = split.columns.filter { !$0.boxes.isEmpty }
        // Open to the column's bottom and from the next column's top, where its text goes on
        // without the top padding.
        let lastColumn = try #require(columns.last)
        #expect(near(first.rect.maxY, columns[0].rect.maxY) && near(last.rect.y, lastColumn.rect.y))
        let goingOn = try #require(lastColumn.lines.first)
        #expect(near(goingOn.rect.y, last.rect.y))

        let pages = split.pages.filter { $0.columns.contains { !$0.boxes.isEmpty } }
        let firstDrawn = try Drawn(pages[0]), lastDrawn = try Drawn(try #require(pages.last))
        #expect(firstDrawn.isRed(first.rect.midX, first.rect.y + 0.75), "top border in the first column")
        #expect(!firstDrawn.isRed(first.rect.midX, first.rect.maxY - 0.75), "no bottom border at the split")
        #expect(firstDrawn.pixel(first.rect.midX, first.rect.maxY - 0.75) == Self.pale, "the background to the split")
        #expect(!lastDrawn.isRed(last.rect.midX, last.rect.y + 0.5), "no top border after the split")
        #expect(lastDrawn.isRed(last.rect.midX, last.rect.maxY - 0.75), "bottom border where it ends")
        #expect(firstDrawn.isRed(first.rect.x + 0.75, first.rect.maxY - 1) && lastDrawn.isRed(last.rect.x + 0.75, last.rect.y + 1),
                "side borders run to the split")
    }

    @Test(arguments: [("dashed", 6), ("dotted", 20), ("solid", 1)])
    func patternedBordersAreDrawnInSeparatePieces(style: String, fewest: Int) throws {
        let set = try typeset("<div style='border: 4px \(style) #c00; padding: 4pt'>\(Self.words)</div>")
        let box = try #require(set.columns[0].boxes.first).rect
        let drawn = try Drawn(try #require(set.pages.first))
        // Along the middle of the top and the left border (4 px is 3 pt).
        let top = drawn.redRuns(at: box.y + 1.5, from: box.x, to: box.maxX, horizontal: true)
        let left = drawn.redRuns(at: box.x + 1.5, from: box.y, to: box.maxY, horizontal: false)
        if style == "solid" {
            #expect(top == 1 && left == 1)
        } else {
            #expect(top >= fewest && left >= 2, "\(style): \(top) pieces along the top, \(left) down the left")
        }
    }

    @Test func aDoubleBorderIsTwoLines() throws {
        let set = try typeset("<div style='border: 6px double #c00; padding: 4pt'>\(Self.words)</div>")
        let box = try #require(set.columns[0].boxes.first).rect
        let drawn = try Drawn(try #require(set.pages.first))
        // 6 px is 4.5 pt: two lines of 1.5 pt with 1.5 pt between.
        #expect(drawn.redRuns(at: box.midX, from: box.y, to: box.y + 6, horizontal: false) == 2)
        #expect(drawn.redRuns(at: box.midY, from: box.x, to: box.x + 6, horizontal: true) == 2)
        #expect(!drawn.isRed(box.midX, box.y + 2.25), "the gap between them")
    }

    @Test func nestedBoxesAreDrawnOuterFirst() throws {
        let set = try typeset("<div style='border: 1px solid #888; padding: 6pt; background-color: #eef'><p style='margin: 0'>\(Self.words)</p>"
                              + "<div style='border: 2px solid #c00; background-color: #ffd; padding: 3pt'>\(Self.words)</div></div>")
        let pieces = set.columns[0].boxes
        #expect(pieces.map(\.box) == [0, 1])
        let outer = pieces[0].rect, inner = pieces[1].rect
        #expect(inner.x >= outer.x + 6 && inner.maxX <= outer.maxX - 6 && inner.maxY <= outer.maxY - 6 && inner.y > outer.y)
        let drawn = try Drawn(try #require(set.pages.first))
        #expect(drawn.pixel(inner.maxX - 3, inner.midY) == (255, 255, 221), "the inner background over the outer one")
        #expect(drawn.pixel(outer.maxX - 3, inner.midY) == Self.pale)
    }

    @Test func aRuleBeforeABoxIsDrawnAboveTheBoxNotInsideIt() throws {
        let set = try typeset("<p>Before.</p><hr><div style='border: 2px solid #c00; padding: 6pt'>Boxed.</div>")
        let box = try #require(set.columns[0].boxes.first).rect
        let before = set.lines(of: 0..<1)[0].rect, inside = set.lines(of: 1..<2)[0].rect
        let drawn = try Drawn(try #require(set.pages.first))
        func isGrey(_ y: Double) -> Bool { drawn.pixel(box.midX, y).r < 200 && !drawn.isRed(box.midX, y) }
        #expect(stride(from: before.maxY, to: box.y, by: 0.25).contains { isGrey($0) }, "the rule between the paragraph and the box")
        #expect(!stride(from: box.y + 2, to: inside.y, by: 0.25).contains { isGrey($0) }, "no rule inside the box")
        #expect(box.y - before.maxY >= 12 - 0.01, "the rule's room")
    }

    /// Around and beside a block that spans the columns (`column-span: all`): a box in the
    /// balanced columns above it ends, level in both columns, above it with the margin between
    /// them; a spanning box is as wide as the page's text; a box going on below a spanning
    /// block is open at the change.
    @Test func boxesMeetBlocksThatSpanTheColumns() throws {
        let set = try typeset("<div style='border: 2px solid #c00; background-color: #eef'>\(Self.words)</div>"
                              + "<h2 style='column-span: all; border: 2px solid #c00; padding: 4pt'>Across the columns</h2>"
                              + "<div style='border: 2px solid #c00'><p>\(Self.words)</p>"
                              + "<p style='column-span: all'>Spanning, inside the box.</p><p>\(Self.words)</p></div>",
                              columns: 2, page: (595, 842))
        let pieces = set.columns.flatMap(\.boxes)
        let heading = try #require(set.lines(of: 1..<2).first).rect
        let first = pieces.filter { $0.box == 0 }, across = try #require(pieces.first { $0.box == 1 })
        #expect(first.count == 2 && first[0].startsHere && !first[0].endsHere && !first[1].startsHere && first[1].endsHere)
        #expect(near(first[0].rect.maxY, first[1].rect.maxY), "level: \(first.map(\.rect))")
        #expect(first.allSatisfy { $0.rect.maxY + 10 <= across.rect.y }, "the heading's margin above its box")
        #expect(across.rect.width > 2 * first[0].rect.width && across.rect.y < heading.y && across.rect.maxY > heading.maxY)
        let third = pieces.filter { $0.box == 2 }
        let spanning = try #require(set.lines(of: 3..<4).first).rect
        let above = third.filter { $0.rect.maxY <= spanning.y + 0.01 }, around = third.filter { $0.rect.y <= spanning.y + 0.01 && $0.rect.maxY >= spanning.maxY - 0.01 }
        #expect(above.count == 2 && above.allSatisfy { !$0.endsHere } && near(above[0].rect.maxY, above[1].rect.maxY))
        #expect(around.count == 1 && around.allSatisfy { !$0.startsHere && !$0.endsHere })
        #expect(third.first?.startsHere == true && third.last?.endsHere == true)
    }

    @Test func aTableInABoxIsInsideIt() throws {
        let set = try typeset("<div style='border: 2px solid #c00; padding: 6pt'><table border=1><tr><td>one</td><td>two</td></tr></table></div>"
                              + "<p>After.</p>")
        let box = try #require(set.columns[0].boxes.first).rect
        let table = try #require(set.columns[0].tables.first).rect
        #expect(table.x >= box.x + 7.5 - 0.01 && table.y >= box.y + 7.5 - 0.01 && table.maxY <= box.maxY - 7.5 + 0.01, "\(table) in \(box)")
        #expect(set.lines(of: 2..<3)[0].rect.y >= box.maxY)
    }

    /// Paddings taller than the page, negative margins, hair-thin dotted borders, boxes around
    /// nothing: everything is still set, inside its column, and the text stays valid.
    @Test func absurdBoxesKeepTextAndInkInsideTheColumns() throws {
        let set = try typeset("""
            <p>Start.</p>
            <div style="padding: 2000px; border: 50px solid red; background: #eef">Huge padding.</div>
            <div style="padding-top: 700pt; border: 1px solid blue"><table border=1><tr><td>cell</td></tr></table></div>
            <div style="margin: -50px; border: 0.01px dotted green; padding: 1e9px">tiny dotted</div>
            <div style="background:#fee"><div style="background:#efe"><div style="border: 2px solid"></div></div></div>
            <p>End.</p>
            """ + String(repeating: "<div style='margin-left: 40px; border: 1px solid #888'>", count: 60) + "deep"
            + String(repeating: "</div>", count: 60), page: (420, 595))
        #expect(set.columns.last?.range.upperBound == set.text.count)
        for column in set.columns {
            for line in column.lines { #expect(contains(column.rect, line.rect), "line \(line.rect) outside \(column.rect)") }
            for table in column.tables { #expect(contains(column.rect, table.rect), "table \(table.rect) outside \(column.rect)") }
            for box in column.boxes { #expect(contains(column.rect, box.rect), "box \(box.rect) outside \(column.rect)") }
        }
        #expect(set.text.boxes.allSatisfy { !$0.paragraphs.isEmpty }, "boxes around nothing are dropped")
    }

    func contains(_ outer: Rect, _ inner: Rect, slack: Double = 0.5) -> Bool {
        inner.x >= outer.x - slack && inner.y >= outer.y - slack && inner.maxX <= outer.maxX + slack && inner.maxY <= outer.maxY + slack
    }

    @Test func verticalTextHasItsBoxAroundTheLines() throws {
        let set = try typeset("<p>前の段落。</p><div style='border:2px solid #c00; padding:6pt; background-color:#eef'>"
                              + String(repeating: "縦書きの枠の中の文章です。", count: 6) + "</div><p>後の段落。</p>",
                              page: (300, 420), vertical: true)
        let piece = try #require(set.columns.flatMap(\.boxes).first)
        let box = piece.rect
        let lines = set.lines(of: 1..<2)
        #expect(lines.count >= 2)
        for line in lines {
            // Lines run down the page inside the border and padding; the first line is the
            // rightmost, 7.5 pt in from the box's right edge.
            #expect(line.rect.x >= box.x + 7.5 - 0.01 && line.rect.maxX <= box.maxX - 7.5 + 0.01, "\(line.rect) in \(box)")
            #expect(near(line.rect.y, box.y + 7.5))
        }
        #expect(near(lines[0].rect.maxX, box.maxX - 7.5))
        let drawn = try Drawn(try #require(set.pages.first))
        #expect(drawn.isRed(box.midX, box.y + 0.75) && drawn.isRed(box.midX, box.maxY - 0.75)
                && drawn.isRed(box.x + 0.75, box.midY) && drawn.isRed(box.maxX - 0.75, box.midY))
        #expect(drawn.pixel(box.maxX - 4, box.maxY - 4) == Self.pale)
    }
}

extension Rect {
    var midX: Double { x + width / 2 }
    var midY: Double { y + height / 2 }
}
