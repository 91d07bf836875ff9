import GalleyText
import Testing

/// Tables nested in table cells, set as grids of their own inside their cell: what a reader
/// would notice (the inner cells side by side inside the outer cell, nothing outside it, no
/// text lost or set twice, the inner table going on in the next column with its header) and
/// the bound on depth (past it, paragraphs with a warning).
@Suite struct NestedTableTests {
    let tables = TableTests()

    /// The pieces of tables on the pages, in order.
    func pieces(_ pages: [TypesetPage]) -> [TableFrame] { pages.flatMap { $0.columns.flatMap(\.tables) } }

    /// The cell of a parent piece holding a nested piece's text, and whether the nested piece
    /// lies inside that cell.
    func expectInsideParentCell(_ nested: TableFrame, among pieces: [TableFrame], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let parent = nested.parent else {
            Issue.record("piece of table \(nested.table) has no parent", sourceLocation: sourceLocation)
            return
        }
        let text = nested.cells.filter { !$0.range.isEmpty && !$0.isRepeatedHeader }.map(\.range)
        guard let first = text.first else { return }
        let holders = pieces.filter { $0.table == parent }.flatMap(\.cells)
            .filter { !$0.isRepeatedHeader && $0.range.lowerBound <= first.lowerBound && $0.range.upperBound >= text.last!.upperBound }
        #expect(holders.count == 1, "one cell of table \(parent) holds \(first)", sourceLocation: sourceLocation)
        for holder in holders {
            #expect(tables.contains(holder.rect, nested.rect, slack: 0.01), "nested piece \(nested.rect) outside its cell \(holder.rect)",
                    sourceLocation: sourceLocation)
        }
    }

    /// The words of a nested 2 × 2 table in the first cell of a 2 × 2 table.
    static let nestedMarkup = """
        <p>Before the table.</p>
        <table border="1"><tr><td>Outer one <table border="1"><tr><td>inner north-west</td><td>inner north-east</td></tr>
        <tr><td>inner south-west</td><td>inner south-east</td></tr></table> after the inner table</td><td>Outer two</td></tr>
        <tr><td>Outer three</td><td>Outer four</td></tr></table><p>After the table.</p>
        """

    @Test func aTableInACellIsAGridInsideThatCell() throws {
        let article = tables.parse(Self.nestedMarkup)
        #expect(article.text.validate() == [])
        #expect(!article.warnings.contains { $0.contains("set as paragraphs") }, "\(article.warnings)")
        let outer = try #require(article.text.tables.first)
        #expect(article.text.tables.count == 1 && outer.nested.count == 1)
        #expect(outer.nested.first?.rows.map(\.cells.count) == [2, 2])

        let (pages, warnings) = try tables.typeset(article, tables.layout(columns: 2))
        #expect(!warnings.contains { $0.contains("set as paragraphs") }, "\(warnings)")
        tables.expectWellFormed(pages, text: article.text)
        let all = pieces(pages)
        let outerPiece = try #require(all.first { $0.parent == nil })
        let inner = try #require(all.first { $0.parent == outerPiece.table }, "the nested table is set as a grid: \(all.map(\.table))")
        #expect(inner.table == outerPiece.table + 1, "numbered after its parent, in document order")
        expectInsideParentCell(inner, among: all)
        // The inner cells of a row side by side; the second row below the first.
        let cells = Dictionary(uniqueKeysWithValues: inner.cells.map { ("\($0.row),\($0.column)", $0) })
        let (nw, ne, sw) = try (#require(cells["0,0"]), #require(cells["0,1"]), #require(cells["1,0"]))
        #expect(nw.rect.maxX <= ne.rect.x + 0.01 && abs(nw.rect.y - ne.rect.y) < 0.01)
        #expect(sw.rect.y >= nw.rect.maxY - 0.01)
        // The inner cells' text tiles the inner table's, and each line of it is inside its inner cell.
        let ranges = inner.cells.sorted { ($0.row, $0.column) < ($1.row, $1.column) }.map(\.range)
        for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.upperBound == b.lowerBound, "\(a) then \(b)") }
        #expect(article.text.string(ranges.first!.lowerBound..<ranges.last!.upperBound)
                    == "inner north-west\ninner north-east\ninner south-west\ninner south-east\n")
        let lines = pages.flatMap { $0.columns.flatMap(\.lines) }
        for cell in inner.cells {
            let own = lines.filter { cell.range.contains($0.range.lowerBound) }
            #expect(!own.isEmpty)
            for line in own { #expect(tables.contains(cell.rect, line.rect, slack: 0.5), "line \(line.rect) outside inner cell \(cell.rect)") }
        }
        // The outer cell's own text goes on below the inner table.
        let after = try #require(article.text.string.range(of: "after the inner table"))
        let afterOffset = article.text.string.unicodeScalars.distance(from: article.text.string.unicodeScalars.startIndex, to: after.lowerBound)
        let afterLine = try #require(lines.first { $0.range.contains(afterOffset) })
        #expect(afterLine.rect.y >= inner.rect.maxY - 0.01)
    }

    @Test func aNestedTableTooWideForItsCellIsFittedInsideIt() throws {
        let wide = (1...8).map { "<td>value&nbsp;\($0)&nbsp;of&nbsp;eight</td>" }.joined()
        let article = tables.parse("<table border='1'><tr><td>left</td><td><table border='1'><tr>\(wide)</tr></table></td></tr></table>")
        let (pages, warnings) = try tables.typeset(article, tables.layout(columns: 3))
        tables.expectWellFormed(pages, text: article.text)
        let all = pieces(pages)
        let inner = try #require(all.first { $0.parent != nil })
        expectInsideParentCell(inner, among: all)
        // Its own adjustment is reported (the outer table has two columns).
        #expect(warnings.contains { $0.contains("a table of 8 columns") }, "\(warnings)")
        // Never overprinted: its cells side by side, each line of its text inside its cell.
        let cells = inner.cells.sorted { $0.column < $1.column }
        for (a, b) in zip(cells, cells.dropFirst()) { #expect(a.rect.maxX <= b.rect.x + 0.01) }
        let lines = pages.flatMap { $0.columns.flatMap(\.lines) }
        for cell in cells {
            for line in lines where cell.range.contains(line.range.lowerBound) {
                #expect(tables.contains(cell.rect, line.rect, slack: 0.5), "line \(line.rect) outside inner cell \(cell.rect)")
            }
        }
    }

    @Test func aNestedTableNoWidthCanHoldIsSetAsParagraphsWithEveryCharacterOnce() throws {
        let many = String(repeating: "<td>wide cell</td>", count: 400)
        let article = tables.parse("<table border='1'><tr><td>outer<table><tr>\(many)</tr></table></td><td>beside</td></tr></table><p>After.</p>")
        #expect(article.text.tables.first?.nested.count == 1)
        let (pages, warnings) = try tables.typeset(article, tables.layout(columns: 2))
        #expect(warnings.contains { $0.contains("set as paragraphs") }, "\(warnings)")
        tables.expectWellFormed(pages, text: article.text)
        #expect(!pieces(pages).contains { $0.columnCount == 400 }, "no grid of 400 columns is drawn")
    }

    @Test func aNestedTableGoesOnInTheNextColumnWhenItsOuterRowIsCut() throws {
        let rows = (1...70).map { "<tr><td>item \($0)</td><td>the value of item \($0)</td></tr>" }.joined()
        let article = tables.parse("""
            <table border="1"><tr><td>Outer cell before the list<table border="1"><thead><tr><th>Item</th><th>Value</th></tr></thead>
            <tbody>\(rows)</tbody></table>Outer cell after the list</td><td>Beside</td></tr></table><p>After.</p>
            """)
        var layout = tables.layout(columns: 2)
        layout.columnFill = .auto
        let (pages, _) = try tables.typeset(article, layout)
        tables.expectWellFormed(pages, text: article.text)
        let all = pieces(pages)
        let outer = all.filter { $0.parent == nil }
        let inner = all.filter { $0.parent != nil }
        #expect(outer.count >= 2 && outer.allSatisfy { $0.rows == 0..<1 }, "the outer row is cut: \(outer.map(\.rows))")
        #expect(inner.count >= 2, "the inner table is cut with it")
        for piece in inner { expectInsideParentCell(piece, among: all) }
        // Its rows follow each other from piece to piece, its header again after each break.
        for (a, b) in zip(inner, inner.dropFirst()) {
            #expect(b.rows.lowerBound == a.rows.upperBound || b.rows.lowerBound == a.rows.upperBound - 1, "\(a.rows) then \(b.rows)")
            #expect(b.cells.filter(\.isRepeatedHeader).map(\.row) == [0, 0])
        }
        #expect(inner.last?.rows.upperBound == 71)
    }

    @Test func aNestedTableInVerticalText() throws {
        let article = tables.parse("""
            <body lang="ja"><p>縦書きの文章。</p><table border="1"><tr><td>外<table border="1"><tr><td>内一</td><td>内二</td></tr></table></td>
            <td>隣</td></tr></table><p>表の後。</p></body>
            """)
        var vertical = tables.layout(columns: 2)
        vertical.writingMode = .verticalRL
        vertical.columnFill = .auto
        let (pages, _) = try tables.typeset(article, vertical)
        tables.expectWellFormed(pages, text: article.text, vertical: true)
        let all = pieces(pages)
        let inner = try #require(all.first { $0.parent != nil })
        expectInsideParentCell(inner, among: all)
        // Its two cells one after the other down the band.
        let cells = inner.cells.sorted { $0.column < $1.column }
        #expect(cells.count == 2 && cells[0].rect.maxY <= cells[1].rect.y + 0.01)
    }

    @Test func threeLevelsDeep() throws {
        let article = tables.parse("""
            <table border="1"><tr><td>one<table border="1"><tr><td>two<table border="1"><tr><td>three a</td><td>three b</td></tr></table>
            </td><td>two b</td></tr></table></td><td>one b</td></tr></table>
            """)
        #expect(article.text.validate() == [])
        #expect(article.text.tables.first?.nested.first?.nested.count == 1)
        // The table whole in the first column (balanced, the short article's columns would cut it).
        var layout = tables.layout(columns: 2)
        layout.columnFill = .auto
        let (pages, warnings) = try tables.typeset(article, layout)
        #expect(!warnings.contains { $0.contains("set as paragraphs") })
        tables.expectWellFormed(pages, text: article.text)
        let all = pieces(pages)
        #expect(all.map(\.table) == [0, 1, 2], "\(all.map(\.table))")
        #expect(all.map(\.parent) == [nil, 0, 1], "\(all.map(\.parent))")
        for piece in all where piece.parent != nil { expectInsideParentCell(piece, among: all) }
    }

    @Test func nestingPastTheBoundIsSetAsParagraphsWithAWarning() throws {
        let depth = 40
        let article = tables.parse(String(repeating: "<table border='1'><tr><td>level", count: depth) + String(repeating: "</td></tr></table>", count: depth))
        #expect(article.text.validate() == [])
        var levels = 0
        var table = article.text.tables.first
        while let current = table {
            levels += 1
            table = current.nested.first
        }
        #expect(levels == TextTable.maximumNesting)
        #expect(article.warnings.contains { $0.contains("\(depth - TextTable.maximumNesting) tables nested more than") }, "\(article.warnings)")
        let (pages, _) = try tables.typeset(article, tables.layout(columns: 2))
        tables.expectWellFormed(pages, text: article.text)
        let all = pieces(pages)
        #expect(Set(all.map(\.table)).count == TextTable.maximumNesting)
        for piece in all where piece.parent != nil { expectInsideParentCell(piece, among: all) }
    }
}
