/// A table: a block structure over a run of paragraphs of an `AttributedText`.
///
/// The cells' text stays in the article's text stream, in document order, each cell a run of
/// whole paragraphs (empty for an empty cell), so that text ranges still tile the text: a
/// cell's paragraphs follow those of the cell before it, row after row. The framesetter hands
/// the table to `TableLayouter` when it reaches the table's first paragraph. Captions are part
/// of the table's text too: those drawn above it (`caption-side: top`) before the cells, those
/// below after them, as the walker puts its children in the order CSS draws them.
public struct TextTable: Sendable, Equatable {
    /// Indices in `AttributedText.paragraphs` of the cells' paragraphs: the cells' runs tile it.
    public var paragraphs: Range<Int>
    public var rows: [Row]
    /// Leading rows that come from `<thead>`: repeated at the top of each column the table
    /// continues in.
    public var headerRowCount = 0
    /// Columns of the grid, colspans and rowspans resolved (HTML's table-forming algorithm).
    public var columnCount = 0
    public var style = Style()
    /// Widths in points that `<col>` elements give grid columns (nil: none), by column.
    public var columnWidths: [Double?] = []
    /// Widths as a fraction of the table's that `<col>` elements give grid columns (`width:
    /// 40%`; nil: none), by column: read by the fixed layout (`Style.fixedLayout`).
    public var columnWidthFractions: [Double?] = []
    /// Backgrounds of `<col>` elements, by column: drawn under the cells of their column.
    public var columnBackgrounds: [RGBColor?] = []
    /// Tables nested in this table's cells, in document order, each inside one cell's
    /// paragraphs (indices in the same `AttributedText.paragraphs`), each maybe nesting more.
    /// Only the tables directly inside: a table nested in one of these is in that one's list.
    /// The cell's framesetter lays them out as its own tables (`TableLayouter`), so a cell
    /// holds a table as it holds any other block.
    public var nested: [TextTable] = []
    /// Captions (CSS 2.1 §17.4), in text order: the top ones' paragraphs come before the
    /// cells', the bottom ones' after them. Each is a box as wide as the table.
    public var captions: [Caption] = []

    public struct Caption: Sendable, Equatable {
        public var paragraphs: Range<Int>
        /// Padding, borders and background of the caption's box (alignment is its text's).
        public var style: CellStyle
        /// `caption-side: bottom`: drawn below the table.
        public var bottom: Bool
        public init(paragraphs: Range<Int>, style: CellStyle, bottom: Bool) {
            (self.paragraphs, self.style, self.bottom) = (paragraphs, style, bottom)
        }
    }

    public struct Row: Sendable, Equatable {
        public var cells: [Cell]
        public init(cells: [Cell]) { self.cells = cells }
    }

    public struct Cell: Sendable, Equatable {
        /// Indices in `AttributedText.paragraphs`; empty for a cell without text.
        public var paragraphs: Range<Int>
        /// First grid column it covers, and how many columns and rows it spans (at least 1).
        public var column: Int
        public var columnSpan = 1
        public var rowSpan = 1
        /// Padding, borders, background, alignment: kept in a box that cells of equal style
        /// share (`sharingStyle(of:)`), as a long table's cells mostly have one style.
        public var style: CellStyle {
            get { styleBox.style }
            set { styleBox = CellStyleBox(newValue) }
        }
        private var styleBox = CellStyleBox.plain
        public init(paragraphs: Range<Int>, column: Int) {
            self.paragraphs = paragraphs
            self.column = column
        }

        /// This cell with the style box of `other`, when their styles are equal: a cell record
        /// is then 48 bytes, where a style of its own made it 160.
        func sharingStyle(of other: Cell) -> Cell {
            guard styleBox !== other.styleBox, style == other.style else { return self }
            var cell = self
            cell.styleBox = other.styleBox
            return cell
        }

        public static func == (lhs: Cell, rhs: Cell) -> Bool {
            lhs.paragraphs == rhs.paragraphs && lhs.column == rhs.column && lhs.columnSpan == rhs.columnSpan
                && lhs.rowSpan == rhs.rowSpan && (lhs.styleBox === rhs.styleBox || lhs.style == rhs.style)
        }
    }

    /// A cell's style, shared by reference.
    private final class CellStyleBox: Sendable {
        let style: CellStyle
        init(_ style: CellStyle) { self.style = style }
        static let plain = CellStyleBox(CellStyle())
    }

    /// A border side: width in points (0: none) and colour.
    public struct Border: Sendable, Equatable {
        public var width = 0.0
        public var color = RGBColor.black
        public init(width: Double = 0, color: RGBColor = .black) {
            self.width = width
            self.color = color
        }
    }

    /// Top, right, bottom and left.
    public struct Sides<Value: Sendable & Equatable>: Sendable, Equatable {
        public var top: Value, right: Value, bottom: Value, left: Value
        public init(_ all: Value) { (top, right, bottom, left) = (all, all, all, all) }
    }

    public enum VerticalAlignment: String, Sendable, Equatable {
        case top, middle, bottom, baseline
    }

    public struct CellStyle: Sendable, Equatable {
        public var padding = Sides(0.0)
        public var border = Sides(Border())
        public var background: RGBColor?
        public var verticalAlignment = VerticalAlignment.middle
        /// CSS `width` or HTML `width` in points: the column's minimum, as browsers take it.
        public var width: Double?
        /// `width` as a percentage, as a fraction of the table's width (fixed layout only).
        public var widthFraction: Double?
        /// CSS `height` in points, its padding and borders included (as browsers read a cell's
        /// `height`): the row is at least that tall.
        public var height: Double?
        /// `empty-cells: hide` on a cell with no content in the separated borders model: no
        /// border or background is drawn (CSS 2.1 §17.6.1.1).
        public var hidden = false
        public init() {}
    }

    public struct Style: Sendable, Equatable {
        /// `border-collapse: collapse`: adjacent cell borders are drawn once, with no spacing.
        public var collapse = false
        /// `border-spacing` or `cellspacing`, between cells and around them (separated borders).
        public var spacing = 2.0 * 0.75
        /// The second value of `border-spacing`, between rows and above and below them; nil:
        /// `spacing`, as a single value gives both.
        public var rowSpacing: Double?
        public var verticalSpacing: Double { rowSpacing ?? spacing }
        public var border = Sides(Border())
        /// The table's own padding, between its border and the outer spacing (separated
        /// borders only: CSS 2.1 §17.6.1).
        public var padding = Sides(0.0)
        public var background: RGBColor?
        /// `table-layout: fixed` (CSS 2.1 §17.5.2.1): with a `width`, the columns' widths come
        /// from the `<col>` elements and the first row's cells, the others share what is left,
        /// whatever the cells hold.
        public var fixedLayout = false
        /// `width`: points, or a fraction of the column (`50%`).
        public var width: Double?
        public var widthFraction: Double?
        /// Indents from the column's edges (ancestors' and the table's own margins).
        public var startIndent = 0.0
        public var endIndent = 0.0
        /// The collapsed margin above the table.
        public var spaceBefore = 0.0
        public init() {}
    }

    public init(paragraphs: Range<Int>, rows: [Row]) {
        self.paragraphs = paragraphs
        self.rows = rows
    }

    /// The runs of paragraphs that tile the table's text, in text order: the captions drawn
    /// above it, the cells row after row, the captions drawn below.
    var textRuns: [Range<Int>] {
        captions.filter { !$0.bottom }.map(\.paragraphs) + rows.flatMap(\.cells).map(\.paragraphs)
            + captions.filter(\.bottom).map(\.paragraphs)
    }

    /// This table and the tables nested in it, at any depth.
    var tableCount: Int { nested.reduce(1) { $0 + $1.tableCount } }

    /// The table with every paragraph index (its own, its cells', its nested tables') moved by
    /// `delta`: for a cell's framesetter, whose text starts at the table's first paragraph.
    func shifted(by delta: Int) -> TextTable {
        var table = self
        table.paragraphs = (paragraphs.lowerBound + delta)..<(paragraphs.upperBound + delta)
        for row in table.rows.indices {
            for cell in table.rows[row].cells.indices {
                let range = table.rows[row].cells[cell].paragraphs
                table.rows[row].cells[cell].paragraphs = (range.lowerBound + delta)..<(range.upperBound + delta)
            }
        }
        for caption in table.captions.indices {
            let range = table.captions[caption].paragraphs
            table.captions[caption].paragraphs = (range.lowerBound + delta)..<(range.upperBound + delta)
        }
        table.nested = nested.map { $0.shifted(by: delta) }
        return table
    }

    /// The most levels of tables nested in each other that are set as grids; a table deeper
    /// than that is set as paragraphs in its cell, with a warning.
    public static let maximumNesting = 8

    /// The most columns and rows a table may have; past them the markup's table is set as
    /// paragraphs one under another, with a warning.
    public static let maximumColumns = 1000
    public static let maximumRowSpan = 65_534
}
