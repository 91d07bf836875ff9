import Foundation
import GalleyRaster
import GalleyTestSupport
import GalleyText
import Testing

/// Tables set as grids: what a reader of the page would notice (cells side by side inside
/// their column, the header row again after a break, no text lost or set twice, no ink off
/// the page) and what the markup asks (spans, borders, widths).
@Suite struct TableTests {
    static let tables = Fixtures.repositoryRoot.appendingPathComponent("fixtures/tables")

    func parse(_ html: String) -> ParsedArticle {
        MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
    }

    func fixture(_ name: String) throws -> ParsedArticle {
        parse(try String(contentsOf: Self.tables.appendingPathComponent(name), encoding: .utf8))
    }

    /// A4, `columns` columns, the default inset.
    func layout(columns: Int, fontSize: Double = 11) -> ArticleLayout {
        var layout = ArticleLayout(name: "a4-\(columns)")
        layout.columns = columns
        layout.base.fontSize = fontSize
        return layout
    }

    func typeset(_ article: ParsedArticle, _ layout: ArticleLayout) throws -> (pages: [TypesetPage], warnings: [String]) {
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts)
        var pages: [TypesetPage] = []
        while let page = try typesetter.nextPage() {
            pages.append(page)
            if pages.count > article.text.count { break }
        }
        return (pages, typesetter.tableWarnings)
    }

    func contains(_ outer: Rect, _ inner: Rect, slack: Double = 0.01) -> Bool {
        inner.x >= outer.x - slack && inner.y >= outer.y - slack && inner.maxX <= outer.maxX + slack && inner.maxY <= outer.maxY + slack
    }

    /// What every layout with tables must keep: column ranges tile the text, lines tile it in
    /// order, every line and table piece lies inside its column, cells of a row sit side by
    /// side inside their piece, and a cell's text is inside its column's range (a repeated
    /// header's is not counted there).
    func expectWellFormed(_ pages: [TypesetPage], text: AttributedText, vertical: Bool = false,
                          sourceLocation: SourceLocation = #_sourceLocation) {
        var next = 0, nextLine = 0
        for page in pages {
            for column in page.columns {
                #expect(column.range.lowerBound == next, "page \(page.number): column starts at \(column.range.lowerBound), expected \(next)",
                        sourceLocation: sourceLocation)
                next = column.range.upperBound
                for line in column.lines {
                    #expect(line.range.lowerBound == nextLine, "line at \(line.range) after \(nextLine)", sourceLocation: sourceLocation)
                    nextLine = line.range.upperBound
                    #expect(column.range.contains(line.range.lowerBound), sourceLocation: sourceLocation)
                    #expect(contains(column.rect, line.rect, slack: 0.5), "line \(line.range) \(line.rect) outside its column \(column.rect)",
                            sourceLocation: sourceLocation)
                }
                for table in column.tables {
                    #expect(contains(column.rect, table.rect), "table piece \(table.rect) outside its column \(column.rect)",
                            sourceLocation: sourceLocation)
                    for cell in table.cells {
                        #expect(contains(table.rect, cell.rect), "cell \(cell.row),\(cell.column) \(cell.rect) outside its table \(table.rect)",
                                sourceLocation: sourceLocation)
                        if !cell.isRepeatedHeader {
                            #expect(cell.range.isEmpty || (cell.range.lowerBound >= column.range.lowerBound && cell.range.upperBound <= column.range.upperBound),
                                    "cell text \(cell.range) outside the column's \(column.range)", sourceLocation: sourceLocation)
                        }
                    }
                    // Cells of one row: side by side along the line, never overlapping.
                    for row in Set(table.cells.map(\.row)) {
                        let cells = table.cells.filter { $0.row == row }
                        let spans = cells.map { vertical ? ($0.rect.y, $0.rect.maxY) : ($0.rect.x, $0.rect.maxX) }.sorted { $0.0 < $1.0 }
                        for (a, b) in zip(spans, spans.dropFirst()) {
                            #expect(a.1 <= b.0 + 0.01, "cells of row \(row) overlap: \(a) and \(b)", sourceLocation: sourceLocation)
                        }
                        let tops = Set(cells.map { (vertical ? $0.rect.maxX : $0.rect.y) * 100 }.map { $0.rounded() })
                        #expect(tops.count == 1, "cells of row \(row) start at different heights", sourceLocation: sourceLocation)
                    }
                }
            }
            for glyph in page.placedGlyphs {
                #expect(glyph.x >= 0 && glyph.x <= page.size.width && glyph.y >= 0 && glyph.y <= page.size.height,
                        "a glyph at (\(glyph.x), \(glyph.y)) is off the page", sourceLocation: sourceLocation)
            }
        }
        #expect(next == text.count, "columns end at \(next) of \(text.count)", sourceLocation: sourceLocation)
        #expect(nextLine == text.count, "lines end at \(nextLine) of \(text.count)", sourceLocation: sourceLocation)
    }

    // MARK: The structure the markup parser builds

    @Test func theParserBuildsAGridOverTheCellsParagraphs() throws {
        let article = parse("""
            <!DOCTYPE html><body><p>Before.</p>
            <table border="1" cellpadding="6" cellspacing="0" width="50%"><caption>A caption</caption>
            <thead><tr><th>One</th><th>Two</th><th>Three</th></tr></thead>
            <tr><td rowspan="2"><p>Tall</p><p>cell</p></td><td colspan="2">Wide</td></tr>
            <tr><td></td><td valign="bottom" bgcolor="yellow">Last</td></tr>
            </table><p>After.</p></body>
            """)
        let text = article.text
        #expect(text.validate() == [])
        let table = try #require(text.tables.first)
        #expect(text.tables.count == 1)
        #expect(table.headerRowCount == 1)
        #expect(table.columnCount == 3)
        #expect(table.rows.map { $0.cells.map(\.column) } == [[0, 1, 2], [0, 1], [1, 2]], "the rowspan pushes the third row's cells right")
        #expect(table.rows[1].cells[0].rowSpan == 2 && table.rows[1].cells[1].columnSpan == 2)
        #expect(table.rows[1].cells[0].paragraphs.count == 2, "a cell holds block content")
        #expect(table.rows[2].cells[0].paragraphs.isEmpty, "an empty cell has no paragraph")
        #expect(table.rows[2].cells[1].style.verticalAlignment == .bottom && table.rows[2].cells[1].style.background == RGBColor(r: 255, g: 255, b: 0))
        #expect(table.rows[0].cells[0].style.padding.left == 6 * 0.75 && table.rows[0].cells[0].style.border.top.width > 0)
        #expect(table.style.spacing == 0 && table.style.widthFraction == 0.5)
        // The caption is the table's, its text before the cells'; the text around is outside.
        let inTable = table.paragraphs.map { text.string(text.paragraphs[$0].range) }.joined()
        #expect(inTable == "A caption\nOne\nTwo\nThree\nTall\ncell\nWide\nLast\n")
        #expect(table.captions.count == 1 && table.captions[0].paragraphs == table.paragraphs.lowerBound..<(table.paragraphs.lowerBound + 1))
        #expect(table.captions[0].bottom == false)
    }

    /// Row and row-group backgrounds show under cells that have none of their own, as CSS
    /// paints the table's layers.
    @Test func rowAndRowGroupBackgroundsShadeTheirCells() throws {
        let article = parse("""
            <table><tbody style="background-color: #dddddd"><tr><td>group</td><td>group</td></tr>
            <tr bgcolor="#ffeeaa"><td>row</td><td style="background: #ff0000">own</td></tr></tbody>
            <tr><td>none</td><td>none</td></tr></table>
            """)
        let table = try #require(article.text.tables.first)
        let backgrounds = table.rows.map { $0.cells.map(\.style.background) }
        let grey = RGBColor(r: 221, g: 221, b: 221), yellow = RGBColor(r: 255, g: 238, b: 170), red = RGBColor(r: 255, g: 0, b: 0)
        #expect(backgrounds == [[grey, grey], [yellow, red], [nil, nil]])
        // And they are drawn: the first cell's middle is grey on the page.
        let (pages, _) = try typeset(article, layout(columns: 1))
        let cell = try #require(pages.first?.columns.first?.tables.first?.cells.first)
        let drawn = try BlockBoxTests.Drawn(pages[0])
        let pixel = drawn.pixel(cell.rect.x + 2, cell.rect.maxY - 2)
        #expect(pixel.r == 221 && pixel.g == 221 && pixel.b == 221, "\(pixel)")
    }

    /// `<col width>` makes its column at least that wide, even when its cells want less.
    @Test func columnElementsSetTheirColumnsWidths() throws {
        let article = parse("<table><colgroup><col width=200><col span=2 style='width: 60pt'></colgroup><tr><td>a</td><td>b</td><td>c</td></tr></table>")
        let table = try #require(article.text.tables.first)
        #expect(table.columnWidths == [150, 60, 60])
        let (pages, _) = try typeset(article, layout(columns: 1))
        let cells = try #require(pages.first?.columns.first?.tables.first?.cells)
        #expect(cells.count == 3)
        #expect(cells[0].rect.width >= 150 - 0.01 && cells[1].rect.width >= 60 - 0.01 && cells[2].rect.width >= 60 - 0.01,
                "\(cells.map(\.rect.width))")
        #expect(cells[0].rect.width < 170, "not wider than the col asks: a, b and c want little")
    }

    @Test func aFooterBeforeTheBodyIsSetAfterIt() throws {
        // HTML 4 allowed <tfoot> before <tbody>; CSS sets footer rows last, and so does the
        // walker, text and all (CSS 2.1 §17.2).
        let article = parse("<table><tfoot><tr><td>foot</td></tr></tfoot><tbody><tr><td>body</td></tr></tbody></table>")
        let table = try #require(article.text.tables.first)
        let text = article.text
        #expect(table.rows.map { $0.cells.map { text.string(text.paragraphs[$0.paragraphs.lowerBound].range).trimmingCharacters(in: .newlines) } }
                    == [["body"], ["foot"]])
        #expect(article.text.validate() == [])
    }

    @Test func aTableInACaptionIsSetAsParagraphsWithAWarning() {
        let article = parse("<table><caption>caption<table><tr><td>inner one</td><td>inner two</td></tr></table></caption><tr><td>cell</td></tr></table>")
        #expect(article.text.tables.count == 1 && article.text.tables[0].nested.isEmpty)
        #expect(article.text.string.contains("inner one") && article.text.string.contains("inner two"))
        #expect(article.warnings.contains { $0.contains("in a caption) were set as paragraphs") })
        #expect(article.text.validate() == [])
    }

    @Test func hostileTablesStayBounded() throws {
        // More columns than a table may have: paragraphs, with a warning.
        let wide = parse("<table><tr>" + String(repeating: "<td>x</td>", count: 10_000) + "</tr></table>")
        #expect(wide.text.tables.isEmpty)
        #expect(wide.warnings.contains { $0.contains("could not be set as grids") })
        // Deep nesting: one grid, the rest paragraphs.
        let deep = parse(String(repeating: "<table><tr><td>level", count: 300) + String(repeating: "</td></tr></table>", count: 300))
        #expect(deep.text.tables.count <= 1)
        #expect(deep.text.validate() == [])
        // Columns the measure cannot hold even wrapped: set as paragraphs, every character kept.
        let many = parse("<table><tr>" + String(repeating: "<td>wide cell</td>", count: 400) + "</tr></table>")
        #expect(many.text.tables.count == 1)
        let (pages, warnings) = try typeset(many, layout(columns: 2))
        #expect(warnings.contains { $0.contains("set as paragraphs") })
        expectWellFormed(pages, text: many.text)
    }

    // MARK: Layout

    @Test(arguments: [2, 3])
    func operatorTablesAreGridsInsideTheirColumns(columns: Int) throws {
        let article = try fixture("operator-tables.html")
        #expect(article.text.tables.count == 4)
        let (pages, _) = try typeset(article, layout(columns: columns, fontSize: columns == 3 ? 9 : 11))
        expectWellFormed(pages, text: article.text)
        let pieces = pages.flatMap { $0.columns.flatMap(\.tables) }
        #expect(Set(pieces.map(\.table)) == [0, 1, 2, 3], "every table is set as a grid")
        // The precedence table's rows: operator on the left, description on its right.
        let first = try #require(pieces.first { $0.table == 0 })
        let row = first.cells.filter { $0.row == 1 }
        #expect(row.count == 2 && row[0].rect.maxX <= row[1].rect.x + 0.01)
        // The augmented-assignment table: a cell spanning two rows is as tall as both.
        let grid = try #require(pieces.first { $0.table == 3 && $0.cells.contains { $0.rowSpan == 2 } })
        let spanning = try #require(grid.cells.first { $0.rowSpan == 2 })
        let beside = grid.cells.filter { ($0.row == spanning.row || $0.row == spanning.row + 1) && $0.column == 0 }
        #expect(beside.count == 2 && abs(spanning.rect.maxY - beside.map(\.rect.maxY).max()!) < 0.01)
    }

    @Test func aLongTableCrossesColumnsAndPagesRepeatingItsHeader() throws {
        let article = try fixture("long-table.html")
        let (pages, warnings) = try typeset(article, layout(columns: 2))
        expectWellFormed(pages, text: article.text)
        let pieces = pages.flatMap { $0.columns.flatMap(\.tables) }.filter { $0.table == 0 }
        #expect(Set(pages.filter { $0.columns.contains { !$0.tables.isEmpty } }.map(\.number)).count > 3, "the table crosses pages")
        #expect(pieces.count > 6)
        for (index, piece) in pieces.enumerated() {
            let header = piece.cells.filter(\.isRepeatedHeader)
            if index == 0 {
                #expect(header.isEmpty && piece.rows.lowerBound == 0)
            } else {
                #expect(header.map(\.row) == [0, 0, 0, 0], "piece \(index) repeats the header row")
                #expect(header.allSatisfy { $0.rect.y < piece.cells.filter { !$0.isRepeatedHeader }.map(\.rect.y).min()! })
            }
        }
        // Rows follow each other from piece to piece; the row taller than a column is set in
        // several pieces, its text in order.
        for (a, b) in zip(pieces, pieces.dropFirst()) {
            #expect(b.rows.lowerBound == a.rows.upperBound || b.rows.lowerBound == a.rows.upperBound - 1)
        }
        let split = pieces.filter { $0.rows == 41..<42 }
        #expect(split.count >= 2, "the tallest row is split inside its cells")
        #expect(warnings.contains { $0.contains("wrapped inside words") }, "\(warnings)")
        #expect(warnings.contains { $0.contains("% of its font size") })
    }

    @Test func aTableTooWideForItsColumnIsSetSmallerThenWrappedWithAWarning() throws {
        let cells = (1...8).map { "<td>value&nbsp;\($0)&nbsp;of&nbsp;eight</td>" }.joined()
        let article = parse("<table border='1'><tr>\(cells)</tr></table><p>After.</p>")
        let (pages, warnings) = try typeset(article, layout(columns: 3))
        expectWellFormed(pages, text: article.text)
        let piece = try #require(pages.first?.columns.first?.tables.first)
        #expect(piece.scale == 0.7)
        #expect(warnings.contains { $0.contains("wrapped inside words") })
        // Never clipped, never overprinted: each cell's lines inside the cell.
        for line in pages[0].columns[0].lines.dropLast() {
            let cell = try #require(piece.cells.first { $0.range.contains(line.range.lowerBound) })
            #expect(contains(cell.rect, line.rect, slack: 0.5), "line \(line.rect) outside cell \(cell.rect)")
        }
        // Slightly too wide: set smaller, without breaking words.
        let slightly = parse("<table><tr><td>" + String(repeating: "x", count: 40) + "</td></tr></table>")
        let smaller = try typeset(slightly, layout(columns: 2))
        let scale = try #require(smaller.pages.first?.columns.first?.tables.first?.scale)
        #expect(scale < 1 && scale > 0.7)
        #expect(smaller.pages[0].columns[0].lines.count == 1)
    }

    @Test func aPictureAsWideAsTheColumnSitsInItsCellBesideTheOthers() throws {
        let article = parse("<table border='1'><tr><td><img src='wide.png' width='800' height='400'></td>"
                            + "<td>A description of the picture beside it, long enough to wrap.</td></tr></table>")
        let (pages, warnings) = try typeset(article, layout(columns: 2))
        expectWellFormed(pages, text: article.text)
        #expect(warnings.isEmpty, "\(warnings)")
        let piece = try #require(pages.first?.columns.first?.tables.first, "set as a grid")
        let picture = try #require(pages.first?.attachments.first)
        let cell = try #require(piece.cells.first { $0.column == 0 })
        #expect(contains(cell.rect, picture.rect), "picture \(picture.rect) outside its cell \(cell.rect)")
        #expect(piece.cells.first { $0.column == 1 }.map { $0.rect.x >= picture.rect.maxX } == true)
    }

    @Test func aTableInVerticalTextIsSetInTheArticlesWritingMode() throws {
        let article = parse("""
            <body lang="ja"><p>縦書きの文章の中に表を置く。</p><table border="1"><thead><tr><th>演算子</th><th>意味</th></tr></thead>
            <tr><td>＋</td><td>加算</td></tr><tr><td>－</td><td>減算</td></tr></table><p>表の後。</p></body>
            """)
        var vertical = layout(columns: 2)
        vertical.writingMode = .verticalRL
        // The table whole in the first band (balanced, the short article's bands would split it).
        vertical.columnFill = .auto
        let (pages, _) = try typeset(article, vertical)
        expectWellFormed(pages, text: article.text, vertical: true)
        let piece = try #require(pages.first?.columns.first?.tables.first)
        // Rows run down the page and follow each other right to left.
        let firsts = piece.cells.filter { $0.column == 0 }.sorted { $0.row < $1.row }
        #expect(firsts.count == 3)
        for (a, b) in zip(firsts, firsts.dropFirst()) { #expect(b.rect.maxX <= a.rect.x + 0.01) }
    }

    @Test func twoColumnTableMatchesGolden() throws {
        let article = parse("""
            <h2>Comparisons</h2><p>Comparison operators, in a table with a header, a spanning cell and borders.</p>
            <table style="border-collapse: collapse" border="1"><thead><tr><th>Operation</th><th>Meaning</th></tr></thead>
            <tr><td><code>&lt;</code></td><td>strictly less than</td></tr><tr><td><code>&lt;=</code></td><td>less than or equal</td></tr>
            <tr><td><code>is</code>, <code>is not</code></td><td>object identity, and its negation, compared by the objects' identities</td></tr>
            <tr><td colspan="2" style="text-align: center">Comparisons can be chained.</td></tr></table><p>The end.</p>
            """)
        var layout = layout(columns: 2)
        (layout.pageWidth, layout.pageHeight) = (420, 300)
        let pages = try typeset(article, layout).pages
        expectWellFormed(pages, text: article.text)
        #expect(pages.contains { $0.columns.count > 1 && $0.columns[1].tables.contains { $0.cells.contains(where: \.isRepeatedHeader) } })
        try LayoutGolden.check("table-two-columns", pages, text: article.text)
        // The same input sets the same pages.
        #expect(LayoutGolden.serialize(pages, text: article.text) == LayoutGolden.serialize(try typeset(article, layout).pages, text: article.text))
    }

    // MARK: Pixels

    @Test(arguments: [false, true])
    func cellBordersAreDrawnOnTheCellEdges(collapse: Bool) throws {
        let article = parse("""
            <table style="border-collapse: \(collapse ? "collapse" : "separate"); border-spacing: 4px">
            <tr><td style="border: 2px solid #000; padding: 6px">alpha</td><td style="border: 2px solid #000; padding: 6px">beta gamma</td></tr>
            <tr><td style="border: 2px solid #000; padding: 6px; background-color: #ff0000">delta</td><td style="border: 2px solid #000; padding: 6px">epsilon</td></tr>
            </table>
            """)
        // One column: in two, balancing would set each row in a column of its own.
        let (pages, _) = try typeset(article, layout(columns: 1))
        let page = try #require(pages.first)
        let piece = try #require(page.columns.first?.tables.first)
        let scale = 2.0
        let bitmap = try page.render(scale: scale, cancellation: Cancellation())
        func pixel(_ x: Double, _ y: Double) -> (r: UInt8, g: UInt8, b: UInt8) {
            bitmap.pixel(x: Int((x * scale).rounded(.down)), y: Int((y * scale).rounded(.down)))
        }
        let border = 2 * 0.75
        for cell in piece.cells {
            let r = cell.rect
            // Collapsed borders are centred on the cell's edge; separate ones lie inside it.
            let inset = collapse ? 0 : border / 2
            for (x, y) in [(r.x + r.width / 2, r.y + inset), (r.x + r.width / 2, r.maxY - inset), (r.x + inset, r.y + r.height / 2),
                           (r.maxX - inset, r.y + r.height / 2)] {
                let p = pixel(x, y)
                #expect(p.r < 80 && p.g < 80 && p.b < 80, "cell \(cell.row),\(cell.column): no border at (\(x), \(y)): \(p)")
            }
            // Inside the padding: the background, or the page.
            let inside = pixel(r.x + border + 1, r.y + border + 1)
            if cell.row == 1 && cell.column == 0 {
                #expect(inside.r > 200 && inside.g < 60, "the red background: \(inside)")
            } else {
                #expect(inside == (255, 255, 255), "padding of cell \(cell.row),\(cell.column): \(inside)")
            }
        }
        if !collapse {
            // Between separated cells, the spacing shows the page.
            let left = piece.cells.first { $0.row == 0 && $0.column == 0 }!.rect, right = piece.cells.first { $0.row == 0 && $0.column == 1 }!.rect
            #expect(right.x - left.maxX > 2.5)
            #expect(pixel((left.maxX + right.x) / 2, left.y + left.height / 2) == (255, 255, 255))
        }
        // Nothing outside the table and its text.
        let rect = piece.rect
        let ink = ImageProperties.ink(bitmap, outside: [(rect.x * scale, rect.y * scale, rect.maxX * scale, rect.maxY * scale)], margin: 1)
        #expect(ink.inked > 0 && ink.outside == 0)
    }
}

/// Hyphenation may break a cell's words when it is set, but does not narrow the cell's column
/// when the table's columns are sized: a column of hyphenatable prose beside columns of names
/// keeps the width it has without hyphenation (counting hyphenation points gave the names'
/// columns its width, and a German manual's tables grew 39% deeper).
@Test func automaticHyphenationDoesNotNarrowAColumnOfProse() throws {
    let prose = "Paketverwaltungswerkzeuge ermöglichen Systemadministratoren die Installation zusätzlicher "
        + "Softwarepakete sowie deren Konfiguration, Aktualisierung und Entfernung."
    let rows = (1...4).map { "<tr><td><code>package-name-\($0)</code></td><td><code>/usr/share/doc/package-name-\($0)</code></td><td>\(prose)</td></tr>" }
    let html = "<html lang=de><body><table>\(rows.joined())</table></body></html>"
    func proseWidth(hyphens: Hyphens) throws -> (width: Double, hyphenated: Int) {
        var base = BaseStyle()
        base.hyphens = hyphens
        let article = MarkupParser(base: base).parse(html: Array(html.utf8), baseURL: nil)
        var layout = ArticleLayout(name: "narrow")
        (layout.pageWidth, layout.pageHeight, layout.columns) = (595, 842, 2)
        layout.base.fontSize = 10
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts)
        var pages: [TypesetPage] = []
        while let page = try typesetter.nextPage() { pages.append(page) }
        let table = try #require(pages.flatMap(\.columns).flatMap(\.tables).first)
        let cell = try #require(table.cells.first { $0.column == 2 })
        let hyphenated = pages.flatMap(\.columns).flatMap(\.lines).count(where: \.isHyphenated)
        return (cell.rect.width, hyphenated)
    }
    let plain = try proseWidth(hyphens: .manual)
    let hyphenated = try proseWidth(hyphens: .auto)
    #expect(hyphenated.hyphenated > 0, "the prose is hyphenated when set")
    #expect(abs(hyphenated.width - plain.width) < 0.01, "prose column \(hyphenated.width) pt with hyphenation, \(plain.width) pt without")
}
