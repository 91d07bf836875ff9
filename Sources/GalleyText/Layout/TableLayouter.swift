/// Lays out one table (`TextTable`) for the framesetter, a column at a time: CSS 2.1's table
/// model with automatic layout (§17.5.2.2).
///
/// When the framesetter reaches a table's first paragraph it makes a layouter, which
///
/// 1. takes the table's text out of the article (so it can be set smaller, below) and gives
///    it a framesetter of its own, which sets each cell's paragraphs with the article's line
///    breaking, justification and hyphenation rules;
/// 2. measures each cell's minimum and maximum content widths (its widest unbreakable piece
///    and its widest unbroken line) plus padding and borders, gives each grid column the
///    widest of its cells', then spreads what spanning cells need over the columns they span;
/// 3. fits the table to the measure: up to its maximum widths (or the width the markup asks
///    for), and when even the minimum widths are wider than the column, sets the table at a
///    smaller font size, down to `minimumScale`; if that is still too wide, each column gets
///    its widest character and a share of the rest, so cells wrap inside words (with a
///    warning). A table that cannot fit even so (thousands of columns) is set as paragraphs,
///    one cell under another, with a warning;
/// 4. places rows into each column it is given, from the top of the free space: a row (or a
///    group of rows joined by rowspans) goes whole into the column, or into the next one when
///    it does not fit. After a break the `<thead>` rows are drawn again at the top. A row
///    taller than a whole column is split inside its cells *in text order*: its cells are
///    filled one after another, the first that does not fit is cut at a line, and those after
///    it start in the next column. So the text set in a column stays one contiguous range and
///    the columns' ranges still tile the text; repeated header rows are drawn but their text
///    is counted where it was first set.
///
/// A table nested in a cell (`TextTable.nested`) is one of the tables of the cell framesetter's
/// text, so that framesetter lays it out with a layouter of its own, recursively: the cell is
/// measured with the nested table's minimum and maximum widths, the nested table is fitted to
/// the cell's width (set smaller, wrapped or set as paragraphs as any table is), and when the
/// outer row is cut inside its cells, the nested table's rows are placed and cut in the fill's
/// height as in a column. Its pieces, rectangles and repeated header lines are moved into the
/// cell with its lines (`draw`).
///
/// Work is bounded by the table's text: every cell is measured once per font size tried (at
/// most `maximumScaleTries`), and set once per column it is placed in. A nested table is measured
/// again for each font size a table around it tries, and set each time its cell is, so nesting
/// multiplies the work by a factor growing with depth: the walker bounds depth
/// (`TextTable.maximumNesting`).
final class TableLayouter {
    /// The table's index in `AttributedText.tables`, and the table.
    let index: Int
    let table: TextTable
    /// The table's number in the manifest (`TableFrame.table`), and its parent's.
    let number: Int
    let parent: Int?
    /// Global offsets of the table's text.
    let start: Int
    let end: Int
    /// Global offset up to which the table's text has been set.
    private(set) var position: Int
    /// Where the last fragment ended (y in the rectangle's coordinates).
    private(set) var bottom = 0.0
    /// Font size as a fraction of the markup's.
    private(set) var scale = 1.0
    private(set) var warnings: [String] = []
    /// False when the table cannot be a grid in this measure: it is set as paragraphs.
    private(set) var isUsable = true

    /// The smallest font size a table too wide for its column is set at, as a fraction.
    static let minimumScale = 0.7
    static let maximumScaleTries = 4

    /// The framesetter whose active table this is, which owns it: unowned, or the two would
    /// keep each other alive (a trial copy for column balancing, dropped with a table half
    /// set, leaked both; found by FuzzMarkup).
    private unowned let article: Framesetter
    private var cells: Framesetter
    private let attachmentBase: Int
    /// The widest a picture in a cell is set: a column's share of the table's room.
    private let pictureWidth: Double
    /// Index of the table's first paragraph in the article.
    private let firstParagraph: Int

    /// Widths of the grid columns' slots (a cell's border box when borders are separate, its
    /// padding box when they collapse), and of the gaps between them and at the edges.
    private var columnWidths: [Double] = []
    private var columnGaps: [Double] = []
    /// Heights of the gaps above each row, and below the last (collapsed borders).
    private var rowGaps: [Double] = []
    private var indent = 0.0

    /// The next row to place, and for a row being split the table-local offset each of its
    /// cells has reached.
    private var nextRow = 0
    private var progress: [Int]?
    /// Rows cut from the rows their rowspans joined them with, because the group was taller
    /// than a column: set one by one, each spanning cell confined to its first row.
    private var unjoinedUntil = 0
    /// Whether the captions drawn below the table (`caption-side: bottom`) are placed: after
    /// the last row, or in the next column when they do not fit under it.
    private var captionsBelowPlaced = false

    /// Where placing stood when a fragment ended, by the (global) offset it ended at, and at
    /// the start: a nested table's cell is filled speculatively, so the next fill resumes from
    /// the offset it starts at (`resume(at:)`).
    private struct Progress {
        var position: Int
        var bottom: Double
        var nextRow: Int
        var progress: [Int]?
        var unjoinedUntil: Int
        var captionsBelowPlaced: Bool
    }
    private var resumePoints: [Int: Progress] = [:]

    private var currentProgress: Progress {
        get {
            Progress(position: position, bottom: bottom, nextRow: nextRow, progress: progress, unjoinedUntil: unjoinedUntil,
                     captionsBelowPlaced: captionsBelowPlaced)
        }
        set {
            (position, bottom, nextRow, progress, unjoinedUntil) = (newValue.position, newValue.bottom, newValue.nextRow, newValue.progress, newValue.unjoinedUntil)
            captionsBelowPlaced = newValue.captionsBelowPlaced
        }
    }

    /// Goes back (or on) to where a fragment ended at `offset`, or to the start; false when no
    /// fragment ended there.
    func resume(at offset: Int) -> Bool {
        guard let point = resumePoints[offset] else { return false }
        currentProgress = point
        return true
    }

    var isFinished: Bool { rowsFinished && (captionsBelowPlaced || !table.captions.contains(where: \.bottom)) }
    private var rowsFinished: Bool { nextRow >= table.rows.count }

    var uncoveredCharacters: [Unicode.Scalar: Int] { cells.uncoveredCharacters }
    /// What the tables nested in the cells warned about (`warnings` are this table's own).
    var nestedWarnings: [String] { cells.allTableWarnings }
    var unhyphenatedLanguages: Set<String> { cells.unhyphenatedLanguages }

    /// A copy that goes on independently of this one, for `article` (a copy of the framesetter
    /// this table belongs to): column balancing fills trial columns with copies.
    func copy(for article: Framesetter) -> TableLayouter { TableLayouter(copying: self, for: article) }

    /// Every stored property, so that a copy goes on exactly as the original would.
    private init(copying other: TableLayouter, for article: Framesetter) {
        index = other.index
        table = other.table
        number = other.number
        parent = other.parent
        resumePoints = other.resumePoints
        start = other.start
        end = other.end
        position = other.position
        bottom = other.bottom
        scale = other.scale
        warnings = other.warnings
        isUsable = other.isUsable
        self.article = article
        cells = other.cells.copy()
        attachmentBase = other.attachmentBase
        pictureWidth = other.pictureWidth
        firstParagraph = other.firstParagraph
        columnWidths = other.columnWidths
        columnGaps = other.columnGaps
        rowGaps = other.rowGaps
        indent = other.indent
        nextRow = other.nextRow
        progress = other.progress
        unjoinedUntil = other.unjoinedUntil
        captionsBelowPlaced = other.captionsBelowPlaced
    }

    /// - Parameter resolving: false to only measure the table (`contentWidths(ofTable:in:)`).
    init(index: Int, in article: Framesetter, measure: Double, resolving: Bool = true) throws(TypesetError) {
        let text = article.text
        self.index = index
        number = article.tableNumbering.first + article.tablesBefore[index]
        parent = article.tableNumbering.parent
        self.article = article
        let table = Self.bounded(text.tables[index], by: min(article.maximumBox.width, article.maximumBox.height) / 8)
        let start = text.paragraphs[table.paragraphs.lowerBound].range.lowerBound
        let end = text.paragraphs[table.paragraphs.upperBound - 1].range.upperBound
        self.table = table
        self.start = start
        self.end = end
        firstParagraph = table.paragraphs.lowerBound
        position = start
        attachmentBase = text.attachments.partitioningIndex { $0.offset >= start }
        pictureWidth = Self.pictureWidth(table, measure: measure)
        cells = Self.framesetter(for: text, table: table, range: start..<end, scale: 1, article: article, pictureWidth: pictureWidth)
        cells.tableNumbering = (number + 1, number)
        guard resolving else {
            resolveGaps()
            return
        }
        try resolveColumns(measure: measure)
        resumePoints[start] = currentProgress
    }

    /// A table's minimum, maximum and widest-character widths, its gaps, borders and margins
    /// included, at its markup's size: what a cell holding it needs (table `index` of the
    /// cell framesetter `article`).
    static func contentWidths(ofTable index: Int, in article: Framesetter) throws(TypesetError)
        -> (minimum: Double, maximum: Double, cluster: Double) {
        if let known = article.nestedTables.widths[index] { return known }
        let layouter = try TableLayouter(index: index, in: article, measure: article.maximumBox.width, resolving: false)
        article.nestedTables.measured[index] = layouter
        let widths = try layouter.measureColumns()
        let style = layouter.table.style
        let edges = layouter.columnGaps.reduce(0, +) + max(0, style.startIndent) + max(0, style.endIndent)
        let result = (minimum: widths.minimum.reduce(0, +) + edges, maximum: max(widths.maximum.reduce(0, +) + edges, (style.width ?? 0) + edges),
                      cluster: widths.cluster.reduce(0, +) + edges)
        article.nestedTables.widths[index] = result
        return result
    }

    /// A layouter for table `index` of a cell's framesetter `article` (a nested table), fitted
    /// to `measure`: a copy of the one that measured it, when its pictures' width is the same,
    /// so that the tables nested in it are not measured again.
    static func nested(_ index: Int, in article: Framesetter, measure: Double) throws(TypesetError) -> TableLayouter {
        guard let measured = article.nestedTables.measured[index], measured.pictureWidth == pictureWidth(measured.table, measure: measure) else {
            return try TableLayouter(index: index, in: article, measure: measure)
        }
        let layouter = measured.copy(for: article)
        try layouter.resolveColumns(measure: measure)
        layouter.resumePoints[layouter.start] = layouter.currentProgress
        return layouter
    }

    /// The table with its vertical paddings, borders and spacing each at most `limit`, so
    /// that a cell's content always starts inside the column (hostile `padding: 2000px`).
    private static func bounded(_ table: TextTable, by limit: Double) -> TextTable {
        var table = table
        func bound(_ sides: inout TextTable.Sides<TextTable.Border>) {
            sides.top.width = min(sides.top.width, limit)
            sides.bottom.width = min(sides.bottom.width, limit)
        }
        bound(&table.style.border)
        table.style.spacing = min(table.style.spacing, limit)
        table.style.rowSpacing = table.style.rowSpacing.map { min($0, limit) }
        for row in table.rows.indices {
            for cell in table.rows[row].cells.indices {
                let style = table.rows[row].cells[cell].style
                var bounded = style
                bounded.padding.top = min(style.padding.top, limit)
                bounded.padding.bottom = min(style.padding.bottom, limit)
                bound(&bounded.border)
                // Only a cell that changes is written: the rows stay the parsed table's, not a copy.
                if bounded != style { table.rows[row].cells[cell].style = bounded }
            }
        }
        return table
    }

    // MARK: - Column widths

    /// A framesetter over the table's text alone, its fonts scaled by `scale`.
    private static func framesetter(for text: AttributedText, table: TextTable, range: Range<Int>, scale: Double,
                                    article: Framesetter, pictureWidth: Double) -> Framesetter {
        var part = text.excerpt(paragraphs: table.paragraphs)
        for index in part.styleRuns.indices {
            part.styleRuns[index].value.size *= scale
            part.styleRuns[index].value.baselineShift *= scale
        }
        // The tables nested in the cells, numbered as the table's own text numbers its paragraphs.
        let nested = table.nested.map { $0.shifted(by: -table.paragraphs.lowerBound) }
        let own = AttributedText(scalars: part.scalars, styleRuns: part.styleRuns, paragraphs: part.paragraphs,
                                 attachments: part.attachments, tables: nested)
        // A cell's lines count against the page's time limit too.
        return Framesetter(text: own, fonts: article.fonts, maximumBox: (min(article.maximumBox.width, pictureWidth), article.maximumBox.height),
                           typography: article.typography, vertical: article.vertical, cancellationSlot: article.cancellationSlot)
    }

    /// The room the table has in a column `measure` wide, within its indents.
    private static func room(_ table: TextTable, measure: Double) -> (indent: Double, available: Double) {
        let indent = min(max(0, table.style.startIndent), measure / 2)
        return (indent, max(measure / 2, measure - indent - max(0, table.style.endIndent)))
    }

    /// A picture in a cell is at most a column's even share of the table's room, less the
    /// widest padding and borders and the spacing, so that a picture as wide as the page's
    /// column scales down to sit beside the other cells instead of making the table too wide.
    private static func pictureWidth(_ table: TextTable, measure: Double) -> Double {
        let columns = Double(max(1, table.columnCount))
        let style = table.style
        let edges = style.border.left.width + style.border.right.width + (style.collapse ? 0 : style.spacing * (columns + 1))
        let extra = table.rows.lazy.flatMap(\.cells).reduce(0.0) { widest, cell in
            max(widest, cell.style.padding.left + cell.style.padding.right + cell.style.border.left.width + cell.style.border.right.width)
        }
        return max(1, (room(table, measure: measure).available - edges) / columns - extra)
    }

    /// Horizontal space a cell takes besides its content: padding, and borders when they are
    /// separate (collapsed ones are in the gaps).
    private func horizontalExtra(_ cell: TextTable.Cell) -> Double {
        cell.style.padding.left + cell.style.padding.right
            + (table.style.collapse ? 0 : cell.style.border.left.width + cell.style.border.right.width)
    }

    private func verticalExtra(_ cell: TextTable.Cell) -> Double {
        cell.style.padding.top + cell.style.padding.bottom
            + (table.style.collapse ? 0 : cell.style.border.top.width + cell.style.border.bottom.width)
    }

    /// Per grid column: the minimum, maximum and widest-character widths of its slot, and the
    /// widest padding and borders of its cells (what does not scale with the font).
    private func measureColumns() throws(TypesetError) -> (minimum: [Double], maximum: [Double], cluster: [Double], extra: [Double]) {
        let count = table.columnCount
        var minimum = [Double](repeating: 0, count: count), maximum = minimum, cluster = minimum, extras = minimum
        var spanning: [(cell: TextTable.Cell, minimum: Double, maximum: Double, cluster: Double)] = []
        for cell in table.rows.lazy.flatMap(\.cells) {
            let widths = try contentWidths(of: cell)
            let extra = horizontalExtra(cell)
            let measured = (minimum: widths.minimum + extra, maximum: max(widths.maximum, cell.style.width ?? 0) + extra,
                            cluster: widths.cluster + extra)
            if cell.columnSpan == 1 {
                minimum[cell.column] = max(minimum[cell.column], measured.minimum)
                maximum[cell.column] = max(maximum[cell.column], measured.maximum)
                cluster[cell.column] = max(cluster[cell.column], measured.cluster)
                extras[cell.column] = max(extras[cell.column], extra)
            } else {
                spanning.append((cell, measured.minimum, measured.maximum, measured.cluster))
            }
        }
        // Spanning cells, narrowest spans first: what they need beyond the columns they span
        // goes to those columns in proportion to their maximum widths (evenly when all are 0).
        for (cell, cellMinimum, cellMaximum, cellCluster) in spanning.sorted(by: { $0.cell.columnSpan < $1.cell.columnSpan }) {
            let columns = cell.column..<(cell.column + cell.columnSpan)
            let inner = columnGaps[(cell.column + 1)..<(cell.column + cell.columnSpan)].reduce(0, +)
            let weights = columns.map { maximum[$0] }
            let total = weights.reduce(0, +)
            func spread(_ need: Double, into widths: inout [Double]) {
                let excess = need - inner - columns.reduce(0) { $0 + widths[$1] }
                guard excess > 0 else { return }
                for (offset, column) in columns.enumerated() {
                    widths[column] += excess * (total > 0 ? weights[offset] / total : 1 / Double(columns.count))
                }
            }
            spread(cellMinimum, into: &minimum)
            spread(cellMaximum, into: &maximum)
            spread(cellCluster, into: &cluster)
        }
        // A `<col>`'s width is at once the column's minimum and maximum, unless its cells need
        // more (CSS 2.1 §17.5.2.2).
        for (column, width) in table.columnWidths.enumerated() where column < count {
            guard let width, width.isFinite, width > 0 else { continue }
            minimum[column] = max(minimum[column], width)
            maximum[column] = max(maximum[column], width)
        }
        for column in 0..<count { maximum[column] = max(maximum[column], minimum[column]) }
        return (minimum, maximum, cluster, extras)
    }

    /// A cell's content widths: the widest of its paragraphs', a table nested in it counting
    /// as one block as wide as that table needs.
    private func contentWidths(of cell: TextTable.Cell) throws(TypesetError) -> (minimum: Double, maximum: Double, cluster: Double) {
        var widths = (minimum: 0.0, maximum: 0.0, cluster: 0.0)
        let nested = cells.text.tables
        var paragraph = cell.paragraphs.lowerBound - firstParagraph
        var next = nested.partitioningIndex { $0.paragraphs.upperBound > paragraph }
        while paragraph < cell.paragraphs.upperBound - firstParagraph {
            let own: (minimum: Double, maximum: Double, cluster: Double)
            if next < nested.count, nested[next].paragraphs.lowerBound == paragraph {
                own = try Self.contentWidths(ofTable: next, in: cells)
                paragraph = nested[next].paragraphs.upperBound
                next += 1
            } else {
                own = try cells.contentWidths(ofParagraph: paragraph)
                paragraph += 1
            }
            widths = (max(widths.minimum, own.minimum), max(widths.maximum, own.maximum), max(widths.cluster, own.cluster))
        }
        return widths
    }

    /// The gaps between columns: spacing and the table's borders, or collapsed borders.
    private func resolveGaps() {
        let style = table.style
        let columns = table.columnCount, rows = table.rows.count
        if !style.collapse {
            let padding = style.padding
            columnGaps = [style.border.left.width + padding.left + style.spacing] + Array(repeating: style.spacing, count: max(0, columns - 1))
                + [style.spacing + padding.right + style.border.right.width]
            rowGaps = [style.border.top.width + padding.top + style.verticalSpacing]
                + Array(repeating: style.verticalSpacing, count: max(0, rows - 1))
                + [style.verticalSpacing + padding.bottom + style.border.bottom.width]
            return
        }
        columnGaps = [style.border.left.width] + Array(repeating: 0, count: max(0, columns - 1)) + [style.border.right.width]
        rowGaps = [style.border.top.width] + Array(repeating: 0, count: max(0, rows - 1)) + [style.border.bottom.width]
        for (row, cells) in table.rows.enumerated() {
            for cell in cells.cells {
                columnGaps[cell.column] = max(columnGaps[cell.column], cell.style.border.left.width)
                columnGaps[cell.column + cell.columnSpan] = max(columnGaps[cell.column + cell.columnSpan], cell.style.border.right.width)
                rowGaps[row] = max(rowGaps[row], cell.style.border.top.width)
                rowGaps[row + cell.rowSpan] = max(rowGaps[row + cell.rowSpan], cell.style.border.bottom.width)
            }
        }
    }

    /// Chooses the column widths for `measure`, setting the table smaller when it must.
    private func resolveColumns(measure: Double) throws(TypesetError) {
        resolveGaps()
        let style = table.style
        let available: Double
        (indent, available) = Self.room(table, measure: measure)
        let gaps = columnGaps.reduce(0, +)
        if style.fixedLayout, let width = style.width ?? style.widthFraction.map({ $0 * available }), table.columnCount > 0 {
            columnWidths = fixedColumnWidths(tableWidth: width)
            return
        }
        var widths = try measureColumns()
        var tries = 1
        while widths.minimum.reduce(0, +) + gaps > available + LineFiller.tolerance, scale > Self.minimumScale,
              tries < Self.maximumScaleTries {
            // Text widths scale with the font; paddings and borders do not. The estimate is
            // tried and lowered again when it falls short (spanning cells).
            let fixed = widths.extra.reduce(0, +)
            let needed = widths.minimum.reduce(0, +) - fixed
            let room = max(0, available - gaps - fixed)
            var next = max(Self.minimumScale, scale * room / max(needed, 1))
            if next > scale - 0.01 { next = scale - 0.05 }
            scale = max(Self.minimumScale, next)
            cells = Self.framesetter(for: article.text, table: table, range: start..<end, scale: scale, article: article,
                                     pictureWidth: pictureWidth)
            cells.tableNumbering = (number + 1, number)
            widths = try measureColumns()
            tries += 1
        }
        let minimumTotal = widths.minimum.reduce(0, +) + gaps
        let maximumTotal = widths.maximum.reduce(0, +) + gaps
        let asked = style.width ?? style.widthFraction.map { $0 * available }
        let percent = Int((scale * 100).rounded())
        if minimumTotal <= available + LineFiller.tolerance {
            if scale < 1 {
                warnings.append("a table of \(table.columnCount) columns was set at \(percent)% of its font size to fit a column \(Self.points(available)) wide")
            }
            // A caption's widest unbreakable piece widens the table (its box is the table's width).
            let captions = try captionMinimumWidth()
            let target = min(available, max(minimumTotal, captions, asked ?? min(available, max(maximumTotal, captions))))
            if target >= maximumTotal {
                // Room beyond the maximum widths: shared in proportion to them.
                let total = widths.maximum.reduce(0, +)
                columnWidths = widths.maximum.map { $0 + (target - maximumTotal) * (total > 0 ? $0 / total : 1 / Double(widths.maximum.count)) }
            } else {
                let fraction = maximumTotal > minimumTotal ? (target - minimumTotal) / (maximumTotal - minimumTotal) : 0
                columnWidths = zip(widths.minimum, widths.maximum).map { $0 + ($1 - $0) * fraction }
            }
            return
        }
        // Too wide even at the smallest size: each column gets its widest character and a share
        // of the rest in proportion to what more its minimum wants, so cells wrap inside words.
        let clusterTotal = widths.cluster.reduce(0, +) + gaps
        guard clusterTotal <= available + LineFiller.tolerance else {
            isUsable = false
            warnings.append("a table of \(table.columnCount) columns cannot fit a column \(Self.points(available)) wide even at \(percent)% of its font size; it was set as paragraphs, one cell under another")
            return
        }
        let wants = zip(widths.minimum, widths.cluster).map { max(0, $0 - $1) }
        let totalWants = wants.reduce(0, +)
        columnWidths = zip(widths.cluster, wants).map { $0 + (available - clusterTotal) * (totalWants > 0 ? $1 / totalWants : 0) }
        warnings.append("a table of \(table.columnCount) columns is wider than its column (\(Self.points(available))) even at \(percent)% of its font size; its cells' text was wrapped inside words")
    }

    /// The widest of the captions' minimum widths, their padding and borders included.
    private func captionMinimumWidth() throws(TypesetError) -> Double {
        var widest = 0.0
        for caption in table.captions {
            var cell = TextTable.Cell(paragraphs: caption.paragraphs, column: 0)
            cell.style = caption.style
            let style = caption.style
            widest = max(widest, try contentWidths(of: cell).minimum + style.padding.left + style.padding.right
                + style.border.left.width + style.border.right.width)
        }
        return widest
    }

    /// The slots' widths of a `table-layout: fixed` table `tableWidth` wide, gaps and borders
    /// included (CSS 2.1 §17.5.2.1): a `<col>`'s width, else that of the first row's cell
    /// that starts the column (its padding and separate borders added, a spanning one shared
    /// evenly); the other columns share what is left evenly. Room left when every column has
    /// a width goes to them in proportion. Percentages are of the table's width less its
    /// spacing. Nothing depends on the cells' content: text too wide for its cell wraps.
    private func fixedColumnWidths(tableWidth: Double) -> [Double] {
        let count = table.columnCount
        let gaps = columnGaps.reduce(0, +)
        // The base of percentages: without spacing, or with collapsed borders the half of
        // the outer ones that is outside the columns.
        let base = max(0, tableWidth - (table.style.collapse ? ((columnGaps.first ?? 0) + (columnGaps.last ?? 0)) / 2 : gaps))
        var widths = [Double?](repeating: nil, count: count)
        for column in 0..<count {
            let points = column < table.columnWidths.count ? table.columnWidths[column] : nil
            let fraction = column < table.columnWidthFractions.count ? table.columnWidthFractions[column] : nil
            if let width = points ?? fraction.map({ $0 * base }), width.isFinite { widths[column] = max(0, width) }
        }
        for cell in table.rows.first?.cells ?? [] {
            guard let declared = cell.style.width ?? cell.style.widthFraction.map({ $0 * base }), declared.isFinite else { continue }
            let columns = cell.column..<min(cell.column + cell.columnSpan, count)
            let inner = columnGaps[(cell.column + 1)..<(cell.column + columns.count)].reduce(0, +)
            let each = max(0, declared + horizontalExtra(cell) - inner) / Double(max(1, columns.count))
            for column in columns where widths[column] == nil { widths[column] = each }
        }
        let known = widths.compactMap { $0 }
        let rest = max(0, tableWidth - gaps - known.reduce(0, +))
        let unknown = count - known.count
        if unknown > 0 { return widths.map { $0 ?? rest / Double(unknown) } }
        let total = known.reduce(0, +)
        return known.map { $0 + rest * (total > 0 ? $0 / total : 1 / Double(count)) }
    }

    private static func points(_ value: Double) -> String { "\(Int(value.rounded())) pt" }

    // MARK: - Placing rows

    /// Table-local offset where paragraph `index` (the article's) starts; the table's end for
    /// its end.
    private func offset(ofParagraph index: Int) -> Int {
        index < table.paragraphs.upperBound ? article.text.paragraphs[index].range.lowerBound - start : end - start
    }

    /// The rows that must stay together from `row`: those its cells' rowspans join it with.
    private func group(from row: Int) -> Range<Int> {
        if row < unjoinedUntil { return row..<(row + 1) }
        var last = row + 1
        var index = row
        while index < last {
            for cell in table.rows[index].cells { last = max(last, index + cell.rowSpan) }
            index += 1
        }
        return row..<min(last, table.rows.count)
    }

    /// A cell set for one fragment: its lines from `from` to `to` (table-local) and their height.
    private struct SetCell {
        var row: Int
        var cell: TextTable.Cell
        var rowSpan: Int
        var from: Int
        var to: Int
        var lines: [Framesetter.PlacedLine]
        /// Tables nested in the cell: their pieces, rectangles and repeated header lines, in
        /// the cell's content box (as `lines`).
        var tables: [TableFrame] = []
        var tableRects: [FilledRect] = []
        var repeatedLines: [Framesetter.PlacedLine] = []
        var contentHeight: Double
        var complete: Bool
        /// Whether the cell's framesetter had to break one of its rules (a paragraph's first
        /// line alone at the piece's foot: moving it would have emptied the piece).
        var brokeARule = false
    }

    /// Sets a cell's text from `from` in its column width, at most `height` high (content).
    private func set(_ cell: TextTable.Cell, row: Int, rowSpan: Int, from: Int, height: Double) throws(TypesetError) -> SetCell {
        let to = offset(ofParagraph: cell.paragraphs.upperBound)
        var result = SetCell(row: row, cell: cell, rowSpan: rowSpan, from: from, to: from, lines: [], contentHeight: 0, complete: from >= to)
        guard from < to, height > 0 else { return result }
        let width = max(1, slotWidth(cell) - horizontalExtra(cell))
        let frame: Framesetter.Frame
        do {
            frame = try cells.fill(Rect(x: 0, y: 0, width: width, height: max(0, height)), from: from, end: to)
        } catch where height < Self.unlimited {
            return result  // Not one line fits in that height.
        }
        result.lines = frame.lines
        (result.tables, result.tableRects, result.repeatedLines) = (frame.tables, frame.tableRects, frame.repeatedLines)
        result.to = frame.range.upperBound
        result.complete = result.to >= to
        result.brokeARule = frame.breakExceptions > 0
        result.contentHeight = (frame.lines.map { $0.top + $0.height } + frame.tables.map(\.rect.maxY)).max() ?? 0
        return result
    }

    private static let unlimited = 1e9

    private func slotWidth(_ cell: TextTable.Cell) -> Double {
        let columns = cell.column..<(cell.column + cell.columnSpan)
        return columns.reduce(0) { $0 + columnWidths[$1] } + columnGaps[(cell.column + 1)..<(cell.column + cell.columnSpan)].reduce(0, +)
    }

    private func slotX(_ column: Int) -> Double {
        (0..<column).reduce(columnGaps[0]) { $0 + columnWidths[$1] + columnGaps[$1 + 1] }
    }

    private var tableWidth: Double { columnWidths.reduce(0, +) + columnGaps.reduce(0, +) }

    /// Sets rows `rows` from the given offsets, each cell at most `height` high.
    private func set(rows: Range<Int>, from offsets: [Int]?, height: Double) throws(TypesetError) -> [SetCell] {
        var result: [SetCell] = []
        var index = 0
        for row in rows {
            for cell in table.rows[row].cells {
                let from = offsets?[index] ?? offset(ofParagraph: cell.paragraphs.lowerBound)
                result.append(try set(cell, row: row, rowSpan: min(cell.rowSpan, rows.upperBound - row), from: from,
                                      height: height - verticalExtra(cell)))
                index += 1
            }
        }
        return result
    }

    /// Heights of rows `rows` holding `cells` (CSS 2.1 §17.5.3): each row as tall as its
    /// tallest one-row cell; a spanning cell taller than its rows lengthens the last of them.
    private func rowHeights(_ rows: Range<Int>, _ cells: [SetCell]) -> [Double] {
        var heights = [Double](repeating: 0, count: rows.count)
        for cell in cells where cell.rowSpan == 1 {
            heights[cell.row - rows.lowerBound] = max(heights[cell.row - rows.lowerBound], outerHeight(cell))
        }
        for cell in cells.filter({ $0.rowSpan > 1 }).sorted(by: { $0.rowSpan < $1.rowSpan }) {
            let first = cell.row - rows.lowerBound
            let spanned = first..<(first + cell.rowSpan)
            let inner = rowGaps[(cell.row + 1)..<(cell.row + cell.rowSpan)].reduce(0, +)
            let have = spanned.reduce(0) { $0 + heights[$1] } + inner
            let need = outerHeight(cell)
            if need > have { heights[spanned.upperBound - 1] += need - have }
        }
        return heights
    }

    /// A cell's height with its padding and borders: its content's, or its CSS `height` when
    /// that is more, which counts the padding and borders as browsers take a cell's `height`
    /// (`border-collapse-offset-001`: the same cell 30 px high with collapsed borders as 34 px
    /// with separate ones).
    private func outerHeight(_ cell: SetCell) -> Double {
        let content = cell.contentHeight + verticalExtra(cell.cell)
        guard let height = cell.cell.style.height else { return content }
        // With collapsed borders the slot holds the padding box; half of each border is the cell's.
        let borders = table.style.collapse ? (rowGaps[cell.row] + rowGaps[min(cell.row + cell.rowSpan, rowGaps.count - 1)]) / 2 : 0
        return max(content, min(height, Self.unlimited) - borders)
    }

    /// Rows placed in one column: their cells as set, the rows' heights and top.
    private struct PlacedRows {
        var cells: [SetCell]
        var rows: Range<Int>
        var heights: [Double]
        var top: Double
        var repeated: Bool
    }

    /// Places what fits of the table in `rect` from `top`, adding its lines, rectangles and a
    /// `TableFrame` to `frame`; false when nothing fits (the table goes on in the next column).
    /// In an empty column something is always placed. `cutHere`: rows that would fit a fresh
    /// column are cut at this one's foot instead of waiting for it (the framesetter asks when
    /// what is kept with the table, a heading, could not go with it without emptying the
    /// column).
    func place(in rect: Rect, top: Double, columnIsEmpty: Bool, cutHere: Bool = false,
               into frame: inout Framesetter.Frame) throws(TypesetError) -> Bool {
        let saved = (nextRow, progress, unjoinedUntil)
        let collapse = table.style.collapse
        let rowCount = table.rows.count
        if rowsFinished {
            // Only the captions drawn below are left: they did not fit under the last row.
            let captions = try setCaptions(below: true)
            let height = captions.reduce(0) { $0 + captionHeight($1) }
            guard columnIsEmpty || cutHere || rect.y + top + height <= rect.maxY + LineFiller.tolerance else { return false }
            bottom = drawCaptions(captions, x: rect.x + indent, top: rect.y + top, into: &frame) - rect.y
            captionsBelowPlaced = true
            position = end
            resumePoints[position] = currentProgress
            return true
        }
        // The captions drawn above go with the table's first rows (in its first fragment).
        let captionsAbove = nextRow == 0 && progress == nil ? try setCaptions(below: false) : []
        let captionsHeight = captionsAbove.reduce(0) { $0 + captionHeight($1) }
        /// Below the last row placed: spacing and the table's border, or the collapsed border.
        func gapBelow(_ row: Int) -> Double { collapse ? max(rowGaps[row], table.style.border.bottom.width) : rowGaps[rowCount] }
        let topGap = collapse ? max(rowGaps[0], rowGaps[nextRow]) : rowGaps[0]
        let fragmentTop = rect.y + top + captionsHeight
        var y = fragmentTop + topGap
        var placed: [PlacedRows] = []
        var headerHeight = 0.0
        if nextRow > 0 || progress != nil, nextRow >= table.headerRowCount, table.headerRowCount > 0 {
            let header = 0..<table.headerRowCount
            let cells = try set(rows: header, from: nil, height: Self.unlimited)
            let heights = rowHeights(header, cells)
            let height = heights.reduce(0, +) + rowGaps[1..<table.headerRowCount].reduce(0, +)
            // Repeated only when it leaves most of a column to the other rows.
            if height < rect.height / 3 {
                placed.append(PlacedRows(cells: cells, rows: header, heights: heights, top: y, repeated: true))
                y += height
                headerHeight = height + rowGaps[nextRow]
            }
        }
        // What a fresh column holds: a group taller than that is cut.
        let fullRoom = rect.height - captionsHeight - topGap - gapBelow(rowCount) - headerHeight
        var rowsPlaced = false
        while nextRow < rowCount {
            let rows = group(from: nextRow)
            let gapAbove = placed.isEmpty ? 0 : rowGaps[rows.lowerBound]
            let cells = try set(rows: rows, from: progress, height: fullRoom)
            let heights = rowHeights(rows, cells)
            let height = heights.reduce(0, +) + rowGaps[(rows.lowerBound + 1)..<rows.upperBound].reduce(0, +)
            let complete = cells.allSatisfy(\.complete)
            if complete && y + gapAbove + height + gapBelow(rows.upperBound) <= rect.maxY + LineFiller.tolerance {
                placed.append(PlacedRows(cells: cells, rows: rows, heights: heights, top: y + gapAbove, repeated: false))
                y += gapAbove + height
                nextRow = rows.upperBound
                progress = nil
                rowsPlaced = true
                continue
            }
            // A group that fits a fresh column goes there.
            guard !complete || height > fullRoom + LineFiller.tolerance || cutHere || (columnIsEmpty && !rowsPlaced) else { break }
            if rows.count > 1 {
                unjoinedUntil = rows.upperBound  // Set row by row from here, each spanning cell in its first row.
                continue
            }
            // Taller than a column: cut inside its cells, in text order. Cells are filled one
            // after another; the first that does not fit is cut at a line, those after it wait.
            let row = nextRow
            let room = rect.maxY - y - gapAbove - gapBelow(row + 1)
            var split: [SetCell] = []
            var cut = false
            for (index, cell) in table.rows[row].cells.enumerated() {
                let from = progress?[index] ?? offset(ofParagraph: cell.paragraphs.lowerBound)
                let piece = try set(cell, row: row, rowSpan: 1, from: from, height: cut ? 0 : room - verticalExtra(cell))
                if !piece.complete { cut = true }
                split.append(piece)
            }
            // A cut that leaves a cell's paragraph an orphan (its cell could only break its rule)
            // is not taken where the column holds something else: the row starts the next one.
            if !columnIsEmpty && !cutHere && split.contains(where: { !$0.complete && $0.brokeARule }) { break }
            if !split.contains(where: { $0.to > $0.from }) && !split.allSatisfy(\.complete) {
                guard columnIsEmpty && !rowsPlaced, let index = split.firstIndex(where: { !$0.complete }) else { break }
                // Not one line fits even in an empty column: the next line is set anyway, as
                // the framesetter sets a line taller than its column.
                let cell = table.rows[row].cells[index]
                var forced = try set(cell, row: row, rowSpan: 1, from: split[index].from, height: Self.unlimited)
                // Its first line (a nested table is always placed in part, so this is text).
                if let line = forced.lines.first, forced.tables.isEmpty {
                    forced.lines = [line]
                    forced.to = line.line.range.upperBound
                    forced.contentHeight = line.top + line.height
                    forced.complete = forced.to >= offset(ofParagraph: cell.paragraphs.upperBound)
                }
                split[index] = forced
            }
            let done = split.allSatisfy(\.complete)
            progress = done ? nil : split.map(\.to)
            if done { nextRow += 1 }
            let tallest = split.map { $0.contentHeight + verticalExtra($0.cell) }.max() ?? 0
            // A cut row fills the column; a finished one is as tall as its cells, but never
            // past the column's foot (a row of nothing but padding taller than a column).
            let splitHeight = done ? min(tallest, max(0, room)) : max(room, tallest)
            placed.append(PlacedRows(cells: split, rows: row..<(row + 1), heights: [splitHeight], top: y + gapAbove, repeated: false))
            y += gapAbove + splitHeight
            rowsPlaced = true
            break
        }
        // Nothing here, or only the leading header rows: the table starts in the next column.
        let onlyHeader = nextRow <= table.headerRowCount && progress == nil && !rowsFinished
        if !columnIsEmpty && (!rowsPlaced || onlyHeader) {
            (nextRow, progress, unjoinedUntil) = saved
            return false
        }
        y += gapBelow(placed.last(where: { !$0.repeated })?.rows.upperBound ?? nextRow)
        // Lines in text order: the captions above, the rows, the captions below.
        _ = drawCaptions(captionsAbove, x: rect.x + indent, top: rect.y + top, into: &frame)
        draw(placed, x: rect.x + indent, top: fragmentTop, bottom: y, into: &frame)
        if rowsFinished && progress == nil && table.captions.contains(where: \.bottom) {
            let captions = try setCaptions(below: true)
            if y + captions.reduce(0, { $0 + captionHeight($1) }) <= rect.maxY + LineFiller.tolerance {
                y = drawCaptions(captions, x: rect.x + indent, top: y, into: &frame)
                captionsBelowPlaced = true
            }
        }
        bottom = y - rect.y
        if let progress {
            position = start + cutPosition(progress)
        } else {
            position = isFinished ? end : start + rowStart(nextRow)
        }
        resumePoints[position] = currentProgress
        return true
    }

    /// Table-local offset where row `row`'s text starts (the next row with cells).
    private func rowStart(_ row: Int) -> Int {
        var row = row
        while row < table.rows.count {
            if let cell = table.rows[row].cells.first { return offset(ofParagraph: cell.paragraphs.lowerBound) }
            row += 1
        }
        // After the rows: the captions drawn below, if any.
        return table.captions.first(where: \.bottom).map { offset(ofParagraph: $0.paragraphs.lowerBound) } ?? end - start
    }

    // MARK: - Captions

    /// The captions drawn above the table, or below it, set in its width (CSS 2.1 §17.4:
    /// a caption's box is as wide as the table's), each whole.
    private func setCaptions(below: Bool) throws(TypesetError) -> [SetCell] {
        var result: [SetCell] = []
        for caption in table.captions where caption.bottom == below {
            var cell = TextTable.Cell(paragraphs: caption.paragraphs, column: 0)
            cell.style = caption.style
            let from = offset(ofParagraph: caption.paragraphs.lowerBound), to = offset(ofParagraph: caption.paragraphs.upperBound)
            var set = SetCell(row: 0, cell: cell, rowSpan: 1, from: from, to: from, lines: [], contentHeight: 0, complete: true)
            let style = caption.style
            let width = max(1, tableWidth - style.padding.left - style.padding.right - style.border.left.width - style.border.right.width)
            if from < to {
                let frame = try cells.fill(Rect(x: 0, y: 0, width: width, height: Self.unlimited), from: from, end: to)
                set.lines = frame.lines
                set.to = frame.range.upperBound
                set.contentHeight = frame.lines.map { $0.top + $0.height }.max() ?? 0
            }
            result.append(set)
        }
        return result
    }

    private func captionHeight(_ caption: SetCell) -> Double {
        let style = caption.cell.style
        return caption.contentHeight + style.padding.top + style.padding.bottom + style.border.top.width + style.border.bottom.width
    }

    /// Draws captions one under another from `top`, as wide as the table; returns their foot.
    private func drawCaptions(_ captions: [SetCell], x: Double, top: Double, into frame: inout Framesetter.Frame) -> Double {
        var y = top
        for caption in captions {
            let style = caption.cell.style
            let box = Rect(x: x, y: y, width: tableWidth, height: captionHeight(caption))
            if let background = style.background { frame.tableRects.append(FilledRect(rect: box, color: background, snapsToPixels: true)) }
            frame.tableRects += Self.borderRects(box, style.border)
            let contentX = x + style.padding.left + style.border.left.width
            let contentY = y + style.padding.top + style.border.top.width
            for placedLine in caption.lines {
                var placedLine = placedLine
                placedLine.line.shift(by: start, attachments: attachmentBase)
                placedLine.origin += contentX
                placedLine.top += contentY
                placedLine.baseline += contentY
                frame.lines.append(placedLine)
            }
            y = box.maxY
        }
        return y
    }

    /// Where the text of a row being split stands: the first of its cells not yet complete.
    private func cutPosition(_ offsets: [Int]) -> Int {
        for (index, cell) in table.rows[nextRow].cells.enumerated() where offsets[index] < offset(ofParagraph: cell.paragraphs.upperBound) {
            return offsets[index]
        }
        return rowStart(nextRow + 1)
    }

    // MARK: - Drawing

    /// Adds the placed rows to `frame`: lines (repeated header rows' apart), backgrounds and
    /// borders, and the fragment's `TableFrame`.
    private func draw(_ placed: [PlacedRows],
                      x: Double, top: Double, bottom: Double, into frame: inout Framesetter.Frame) {
        let style = table.style
        let outer = Rect(x: x, y: top, width: tableWidth, height: bottom - top)
        var backgrounds: [FilledRect] = []
        var borders: [FilledRect] = []
        if let background = style.background { backgrounds.append(FilledRect(rect: outer, color: background, snapsToPixels: true)) }
        borders += Self.borderRects(outer, style.border)
        var cellFrames: [CellFrame] = []
        var bodyRows: Range<Int>?
        // Tables nested in the cells: after this one, in document order, drawn over it.
        var nestedTables: [TableFrame] = []
        var nestedRects: [FilledRect] = []
        for group in placed {
            var rowTops: [Double] = []
            var y = group.top
            for (offset, height) in group.heights.enumerated() {
                rowTops.append(y)
                y += height
                let row = group.rows.lowerBound + offset
                if offset + 1 < group.heights.count { y += rowGaps[row + 1] }
            }
            if !group.repeated {
                bodyRows = (bodyRows?.lowerBound ?? group.rows.lowerBound)..<group.rows.upperBound
            }
            for cell in group.cells {
                let first = cell.row - group.rows.lowerBound
                guard first < rowTops.count else { continue }
                let spanned = first..<min(first + cell.rowSpan, group.heights.count)
                let height = spanned.reduce(0) { $0 + group.heights[$1] }
                    + (spanned.count > 1 ? rowGaps[(cell.row + 1)..<(cell.row + spanned.count)].reduce(0, +) : 0)
                let slot = Rect(x: x + slotX(cell.cell.column), y: rowTops[first], width: slotWidth(cell.cell), height: height)
                let cellStyle = cell.cell.style
                // A `<col>`'s background shows where its cells have none (row and row group
                // backgrounds are the cells' already, and are drawn over a column's in CSS).
                let column = cell.cell.column
                let columnBackground = column < table.columnBackgrounds.count ? table.columnBackgrounds[column] : nil
                // `empty-cells: hide`: an empty cell draws nothing (CSS 2.1 §17.6.1.1).
                if !cellStyle.hidden, let background = cellStyle.background ?? columnBackground {
                    // On whole pixels, as blocks' backgrounds are: no seam between two cells, and
                    // a table and a block of the same size and place cover the same pixels.
                    backgrounds.append(FilledRect(rect: slot, color: background, snapsToPixels: true))
                }
                // The cell's box: its border box, or with collapsed borders the box between the
                // middles of its grid lines, where its borders are centred.
                var box = slot
                if style.collapse {
                    let left = columnGaps[cell.cell.column], right = columnGaps[cell.cell.column + cell.cell.columnSpan]
                    let above = rowGaps[cell.row], below = rowGaps[min(cell.row + spanned.count, rowGaps.count - 1)]
                    box = Rect(x: slot.x - left / 2, y: slot.y - above / 2, width: slot.width + (left + right) / 2,
                               height: slot.height + (above + below) / 2)
                }
                if !cellStyle.hidden { borders += Self.borderRects(box, cellStyle.border, centred: style.collapse) }
                let content = Rect(x: slot.x + cellStyle.padding.left + (style.collapse ? 0 : cellStyle.border.left.width),
                                   y: slot.y + cellStyle.padding.top + (style.collapse ? 0 : cellStyle.border.top.width),
                                   width: 0, height: slot.height - verticalExtra(cell.cell))
                let shift: Double
                switch cellStyle.verticalAlignment {
                case .top, .baseline: shift = 0
                case .middle: shift = cell.complete && cell.from < cell.to ? max(0, content.height - cell.contentHeight) / 2 : 0
                case .bottom: shift = cell.complete && cell.from < cell.to ? max(0, content.height - cell.contentHeight) : 0
                }
                func moveLine(_ placedLine: Framesetter.PlacedLine) -> Framesetter.PlacedLine {
                    var placedLine = placedLine
                    placedLine.line.shift(by: start, attachments: attachmentBase)
                    placedLine.origin += content.x
                    placedLine.top += content.y + shift
                    placedLine.baseline += content.y + shift
                    return placedLine
                }
                func moveRect(_ rect: Rect) -> Rect { Rect(x: rect.x + content.x, y: rect.y + content.y + shift, width: rect.width, height: rect.height) }
                for placedLine in cell.lines {
                    if group.repeated { frame.repeatedLines.append(moveLine(placedLine)) } else { frame.lines.append(moveLine(placedLine)) }
                }
                frame.repeatedLines += cell.repeatedLines.map(moveLine)
                nestedRects += cell.tableRects.map { $0.moved(to: moveRect($0.rect)) }
                for var nested in cell.tables {
                    nested.rect = moveRect(nested.rect)
                    nested.scale *= scale  // Its text was set at this table's scale first.
                    for index in nested.cells.indices {
                        nested.cells[index].rect = moveRect(nested.cells[index].rect)
                        let range = nested.cells[index].range
                        nested.cells[index].range = (range.lowerBound + start)..<(range.upperBound + start)
                        // In a repeated header row, its text is counted where it was first set.
                        if group.repeated { nested.cells[index].isRepeatedHeader = true }
                    }
                    nestedTables.append(nested)
                }
                let range = group.repeated
                    ? (start + offset(ofParagraph: cell.cell.paragraphs.lowerBound))..<(start + offset(ofParagraph: cell.cell.paragraphs.upperBound))
                    : (start + cell.from)..<(start + max(cell.from, cell.to))
                cellFrames.append(CellFrame(row: cell.row, column: cell.cell.column, rowSpan: spanned.count, columnSpan: cell.cell.columnSpan,
                                            rect: box, range: range, isRepeatedHeader: group.repeated))
            }
        }
        frame.tableRects += backgrounds + borders + nestedRects
        frame.tables.append(TableFrame(table: number, parent: parent, rect: outer, rows: bodyRows ?? nextRow..<nextRow,
                                       rowCount: table.rows.count, columnCount: table.columnCount, scale: scale, cells: cellFrames))
        frame.tables += nestedTables
    }

    /// Rectangles for the four sides of a border around `box`: inside it, or centred on its
    /// edges (collapsed borders).
    private static func borderRects(_ box: Rect, _ border: TextTable.Sides<TextTable.Border>, centred: Bool = false) -> [FilledRect] {
        var rects: [FilledRect] = []
        func add(_ rect: Rect, _ side: TextTable.Border) {
            guard side.width > 0, rect.width > 0, rect.height > 0 else { return }
            rects.append(FilledRect(rect: rect, color: side.color))
        }
        let inset = { (width: Double) in centred ? width / 2 : 0 }
        add(Rect(x: box.x - inset(border.left.width), y: box.y - inset(border.top.width), width: box.width + inset(border.left.width) + inset(border.right.width),
                 height: border.top.width), border.top)
        add(Rect(x: box.x - inset(border.left.width), y: box.maxY - border.bottom.width + inset(border.bottom.width),
                 width: box.width + inset(border.left.width) + inset(border.right.width), height: border.bottom.width), border.bottom)
        add(Rect(x: box.x - inset(border.left.width), y: box.y, width: border.left.width, height: box.height), border.left)
        add(Rect(x: box.maxX - border.right.width + inset(border.right.width), y: box.y, width: border.right.width, height: box.height), border.right)
        return rects
    }
}

/// What a table's framesetter knows of the tables nested in its cells, shared with its copies
/// (column balancing fills trial columns with copies, each of which would otherwise measure
/// and make the nested tables again, and their nested tables, at every level): their content
/// widths, and each one's layouter as made for a measure, before it placed anything, which a
/// framesetter copies to set it. It changes no result. The layouters it holds are only copied,
/// never set themselves, and hold their framesetter unowned, so it makes no reference cycle.
final class NestedTableCache {
    var widths: [Int: (minimum: Double, maximum: Double, cluster: Double)] = [:]
    /// The layouters that measured them (`TableLayouter.contentWidths(ofTable:in:)`).
    var measured: [Int: TableLayouter] = [:]
    var fresh: [Int: (measure: Double, layouter: TableLayouter)] = [:]
}

/// A piece of a table placed in a column: for the manifest and tests.
public struct TableFrame: Hashable, Sendable {
    /// The table's number among all of the article's tables, nested ones included, in
    /// document order: a table comes before the tables nested in it. Without nesting, its
    /// index in `AttributedText.tables`.
    public var table: Int
    /// The number of the table in one of whose cells this one is nested; nil at top level.
    public var parent: Int?
    /// The piece's border box.
    public var rect: Rect
    /// The table's rows whose text (or part of it) is set here; repeated header rows aside.
    public var rows: Range<Int>
    public var rowCount: Int
    public var columnCount: Int
    /// Font size as a fraction of the markup's: below 1 when the table was set smaller to fit.
    public var scale: Double
    public var cells: [CellFrame]
}

extension TableFrame {
    /// The piece with its rectangle and its cells' moved by `shift`.
    func moved(by shift: (dx: Double, dy: Double)) -> TableFrame {
        var piece = self
        piece.rect = rect.moved(by: shift)
        for index in piece.cells.indices { piece.cells[index].rect = piece.cells[index].rect.moved(by: shift) }
        return piece
    }
}

/// A cell of a table piece.
public struct CellFrame: Hashable, Sendable {
    public var row: Int
    public var column: Int
    public var rowSpan: Int
    public var columnSpan: Int
    /// The cell's box in this piece: its border box, or with collapsed borders the box between
    /// the middles of its grid lines (neighbouring cells share an edge).
    public var rect: Rect
    /// Global offsets of the text set in the cell here: part of the cell's text when the
    /// row is split, the whole of it for a repeated header row.
    public var range: Range<Int>
    /// A `<thead>` row drawn again after a break: its text is counted where it was first set.
    public var isRepeatedHeader: Bool
}

extension TypesetLine {
    /// Moves a line set in a table's own text to the article's offsets.
    mutating func shift(by offset: Int, attachments: Int) {
        range = (range.lowerBound + offset)..<(range.upperBound + offset)
        for index in runs.indices {
            runs[index].text = (runs[index].text.lowerBound + offset)..<(runs[index].text.upperBound + offset)
            for glyph in runs[index].clusters.indices where runs[index].clusters[glyph] >= 0 { runs[index].clusters[glyph] += offset }
        }
        for index in boxes.indices {
            boxes[index].offset += offset
            boxes[index].attachment += attachments
        }
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, which must be false then true
    /// along the array (binary search).
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
