/// A named page layout for articles: page size, columns and base typography.
///
/// Each article is typeset once per configured layout (as a reader keeps a portrait and a
/// landscape layouter), and each layout's pages are written to their own folder.
public struct ArticleLayout: Hashable, Sendable {
    /// Name used in output paths and the manifest: letters, digits, `-` and `_`.
    public var name: String
    /// Page size in points. Default: A4 portrait (595 × 842).
    public var pageWidth: Double = 595
    public var pageHeight: Double = 842
    /// Number of columns, 1 to 12. Default: 1.
    public var columns: Int = 1
    /// Space between columns in points. Default: 18.
    public var columnGap: Double = 18
    /// How the last page's columns are filled (CSS `column-fill`). Default: balanced.
    public var columnFill = ColumnFill.balance
    /// Margins around the text area in points. Default: 54 on every side.
    public var inset = Insets(all: 54)
    /// Page colour. Default: white.
    public var background: RGBColor = .white
    /// Base font family, size, line height, colour, language and hyphenation (`base.hyphens`
    /// is `.auto` when the layout turns hyphenation on).
    public var base = BaseStyle()
    /// Justification, hyphenation limits and line breaking.
    public var typography = Typography()
    /// How lines run. An article whose markup declares a `writing-mode` (on `<body>`, else
    /// `<html>`, else the first element that declares one) is set in that mode instead.
    /// Default: horizontal.
    public var writingMode = WritingMode.horizontalTB
    /// Where the page number is printed (`folio`), as a margin box; nil: not printed unless
    /// the article's CSS asks (`@page { @bottom-center { content: counter(page) } }`).
    public var folio: MarginBoxPosition?
    /// The element whose text runs at the head of the page (`running_head: h1`): the last such
    /// element begun on or before the page, in the top centre (top left when the folio is
    /// there); nil: none unless the article's CSS sets one.
    public var runningHead: String?

    /// CSS `column-fill` for the last page of an article (in paged media only the last
    /// fragment is balanced; the pages before it are full).
    public enum ColumnFill: String, Hashable, Sendable {
        /// The last page's columns end at about the same height: the shortest column height
        /// that still holds the rest of the article.
        case balance
        /// Each column is filled in turn; the last page may leave columns empty.
        case auto
    }

    public init(name: String) {
        self.name = name
    }

    /// How lines are filled, beyond the fonts.
    public struct Typography: Hashable, Sendable {
        /// A line of a start- or left-aligned paragraph is justified when its natural width is at
        /// least this fraction of the measure (Core Text's justification factor); 1 turns it off.
        /// `text-align: justify` justifies every line that may be. Default: 1.
        public var justifyThreshold = 1.0
        /// Fewest characters before and after an automatic hyphen. Defaults: 2 and 3.
        public var hyphenateBefore = 2
        public var hyphenateAfter = 3
        /// Most consecutive lines ending in a hyphen (soft or automatic). Default: 2.
        public var maximumConsecutiveHyphens = 2
        /// How line ends are chosen. Default: greedy.
        public var lineBreaking = LineBreaking.greedy
        /// CSS Text 4 `text-autospace`: a quarter em between ideographs or kana and Latin
        /// letters or digits next to them. Default: off.
        public var textAutospace = false
        /// A mark drawn at the start of each line of preformatted text that goes on from a line
        /// wrapped at the measure (`↪`), in the hanging indent, in the code's face; it is not
        /// part of the text. Default: none (the hanging indent alone shows the wrap).
        public var continuationMarker: Unicode.Scalar?
        /// Not a setting of the page: asks each line for its count of punctuation set in
        /// another face than its style run's letters (`LineBox.punctuationInAnotherFace`),
        /// for `galley typeset --lines`; off, nothing is counted.
        public var countsPunctuationFaces = false
        /// How far apart letters may be spaced (a fraction of the em, added between two
        /// letters) in a justified line whose spaces are already at their stretch limit, before
        /// the line is left ragged as loose. Only between letters of alphabets written with
        /// separate letters, never in code. 0 turns it off. Default: 0.04.
        public var maximumLetterSpacing = 0.04

        public enum LineBreaking: String, Hashable, Sendable {
            /// Each line takes as much as fits (fast; what browsers do).
            case greedy
            /// Knuth–Plass total fit per paragraph: fewer loose lines and hyphens.
            case optimal
        }

        public init() {}
    }

    /// Margins in points.
    public struct Insets: Hashable, Sendable {
        public var top: Double
        public var right: Double
        public var bottom: Double
        public var left: Double
        public init(top: Double, right: Double, bottom: Double, left: Double) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }
        public init(all value: Double) {
            self.init(top: value, right: value, bottom: value, left: value)
        }
    }

    /// Width of each column: in vertical text, of each band (the text area's width).
    public var columnWidth: Double {
        let width = pageWidth - inset.left - inset.right
        return writingMode.isVertical ? width : (width - Double(columns - 1) * columnGap) / Double(columns)
    }

    /// Height of each column: in vertical text, of each band.
    public var columnHeight: Double {
        let height = pageHeight - inset.top - inset.bottom
        return writingMode.isVertical ? (height - Double(columns - 1) * columnGap) / Double(columns) : height
    }

    /// The column rectangles of a page, in filling order: left to right, or for vertical
    /// text bands top to bottom.
    public var columnRects: [Rect] {
        (0..<columns).map { i in
            writingMode.isVertical
                ? Rect(x: inset.left, y: inset.top + Double(i) * (columnHeight + columnGap), width: columnWidth, height: columnHeight)
                : Rect(x: inset.left + Double(i) * (columnWidth + columnGap), y: inset.top, width: columnWidth, height: columnHeight)
        }
    }

    /// Why this layout cannot hold text, or nil when it can.
    public var problem: String? {
        if writingMode.isVertical {
            if columnHeight < 1 { return "bands are \(columnHeight.formatted()) pt high: the page is too short for \(columns) bands of vertical text with this inset and column_gap" }
            if columnWidth < 1 { return "bands are \(columnWidth.formatted()) pt wide: the inset leaves no room on the page" }
            return nil
        }
        if columnWidth < 1 { return "columns are \(columnWidth.formatted()) pt wide: the page is too narrow for \(columns) columns with this inset and column_gap" }
        if columnHeight < 1 { return "columns are \(columnHeight.formatted()) pt high: the inset leaves no room on the page" }
        return nil
    }
}
