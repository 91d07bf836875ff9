import Foundation

/// Text with attributes: what the markup parser builds and the typesetter lays out
/// (Core Text's `NSAttributedString`).
///
/// Offsets are in Unicode scalars of `scalars`: the manifest's column ranges, attachment
/// offsets and the layout goldens all count that way. Paragraphs tile the text; each one but
/// the last ends with U+000A, and a forced line break inside a paragraph is U+2028. An
/// attachment (an inline image) is one U+FFFC.
public struct AttributedText: Sendable, Equatable {
    /// The text.
    public let scalars: [Unicode.Scalar]
    /// Character attributes, in order, tiling `0..<scalars.count` with no empty run.
    public let styleRuns: [AttributeRun<TextStyle>]
    /// Paragraphs, in order, tiling `0..<scalars.count` with no empty paragraph.
    public let paragraphs: [AttributeRun<ParagraphStyle>]
    /// Inline images, by offset, each at a U+FFFC.
    public let attachments: [Attachment]
    /// Tables, in document order, each over a run of paragraphs; only the top-level ones:
    /// tables nested in a cell are in their table's `TextTable.nested`, so these never overlap.
    public let tables: [TextTable]
    /// Boxes of blocks (borders, backgrounds), in document order, so an enclosing box comes
    /// before the boxes inside it; none inside a table.
    public let boxes: [TextBox]
    /// Blocks floated to a side of the column (`float` on a `div`, `aside`, `figure`, …), in
    /// document order, none inside another or in a table.
    public let floats: [FloatedBlock]
    /// The article's `@page` rules and `string-set` values: how its pages are dressed.
    public var pagedMedia = PagedMedia()
    /// The elements with an `id` (or an `<a name>`), where their content begins, in document
    /// order, the first of each name: what `href="#id"` links point at.
    public var anchors: [TextAnchor] = []
    /// The block boxes around the paragraphs (`BoxTree`), as the markup walker built them;
    /// just the root for text made otherwise.
    public let boxTree: BoxTree

    /// Text that has passed `validate()`; the builder is the usual way to make one.
    public init(scalars: [Unicode.Scalar], styleRuns: [AttributeRun<TextStyle>],
                paragraphs: [AttributeRun<ParagraphStyle>], attachments: [Attachment], tables: [TextTable] = [],
                boxes: [TextBox] = [], floats: [FloatedBlock] = [], boxTree: BoxTree = BoxTree()) {
        self.scalars = scalars
        self.styleRuns = styleRuns
        self.paragraphs = paragraphs
        self.attachments = attachments
        self.tables = tables
        self.boxes = boxes
        self.floats = floats
        self.boxTree = boxTree
    }

    /// What is wrong with the tables nested in `table`: each must lie inside one of its cells,
    /// in document order, and its cells must cover its paragraphs.
    private static func nestingProblems(_ table: TextTable, name: String) -> [String] {
        var problems: [String] = []
        var after = table.paragraphs.lowerBound
        for (i, inner) in table.nested.enumerated() {
            let label = "\(name).\(i)"
            let holder = table.rows.lazy.flatMap(\.cells).first { $0.paragraphs.contains(inner.paragraphs.lowerBound) }
            if inner.paragraphs.isEmpty || inner.paragraphs.lowerBound < after || holder.map({ inner.paragraphs.upperBound > $0.paragraphs.upperBound }) != false {
                problems.append("\(label) is not inside one cell of its table, after the tables before it")
            }
            var next = inner.paragraphs.lowerBound
            for run in inner.textRuns {
                if run.lowerBound != next { problems.append("\(label): a cell starts at paragraph \(run.lowerBound), expected \(next)") }
                next = run.upperBound
            }
            if next != inner.paragraphs.upperBound { problems.append("\(label) does not cover paragraphs \(inner.paragraphs) with its cells") }
            after = inner.paragraphs.upperBound
            problems += nestingProblems(inner, name: label)
        }
        return problems
    }

    /// Copies the properties set after the text was made (`pagedMedia`, `anchors`) from
    /// The pictures the text draws, in text order: its attachments that name a source (not
    /// spacers, not inline-blocks), and those inside its inline-blocks' content, at any depth,
    /// which are drawn from the same decoded pictures (`AttachmentImages`, by source); then its
    /// boxes' background pictures, as attachments of that source with no size and no text.
    public var pictures: [Attachment] {
        var found: [Attachment] = []
        var backgrounds: [Attachment] = []
        func collect(_ text: AttributedText) {
            for attachment in text.attachments where !attachment.isSpacer {
                if let block = attachment.inlineBlock { collect(block.content) } else { found.append(attachment) }
            }
            for box in text.boxes {
                if let image = box.backgroundImage {
                    backgrounds.append(Attachment(offset: 0, source: image.source, width: nil, height: nil, alternative: ""))
                }
            }
        }
        collect(self)
        return found + backgrounds
    }

    /// `other`: for a text rebuilt from another's arrays.
    public mutating func keepExtras(of other: AttributedText) {
        pagedMedia = other.pagedMedia
        anchors = other.anchors
    }

    public static let paragraphSeparator: Unicode.Scalar = "\n"
    public static let lineSeparator: Unicode.Scalar = "\u{2028}"
    public static let objectReplacement: Unicode.Scalar = "\u{FFFC}"

    /// The text as a Swift string.
    public var string: String {
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }

    public var count: Int { scalars.count }

    /// The index in `styleRuns` of the run holding `offset` (binary search).
    public func styleRunIndex(at offset: Int) -> Int {
        Self.runIndex(in: styleRuns, at: offset)
    }

    /// The index in `paragraphs` of the paragraph holding `offset` (binary search).
    public func paragraphIndex(at offset: Int) -> Int {
        Self.runIndex(in: paragraphs, at: offset)
    }

    static func runIndex<Value>(in runs: [AttributeRun<Value>], at offset: Int) -> Int {
        var low = 0, high = runs.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if runs[mid].range.lowerBound <= offset { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Checks the invariants above; a failure is a bug in whoever built the text.
    public func validate() -> [String] {
        var problems: [String] = []
        func checkTiling<V>(_ runs: [AttributeRun<V>], _ what: String) {
            var next = 0
            for run in runs {
                if run.range.lowerBound != next { problems.append("\(what) starts at \(run.range.lowerBound), expected \(next)") }
                if run.range.isEmpty { problems.append("empty \(what) at \(run.range.lowerBound)") }
                next = run.range.upperBound
            }
            if next != scalars.count { problems.append("\(what) end at \(next), text has \(scalars.count) scalars") }
        }
        checkTiling(styleRuns, "style run")
        checkTiling(paragraphs, "paragraph")
        for (i, paragraph) in paragraphs.enumerated() where i < paragraphs.count - 1 {
            if scalars[paragraph.range.upperBound - 1] != Self.paragraphSeparator {
                problems.append("paragraph \(i) does not end with U+000A")
            }
        }
        for (i, paragraph) in paragraphs.enumerated() {
            let inner = paragraph.range.lowerBound..<(i < paragraphs.count - 1 ? paragraph.range.upperBound - 1 : paragraph.range.upperBound)
            if scalars[inner].contains(Self.paragraphSeparator) { problems.append("paragraph \(i) holds a U+000A") }
        }
        for attachment in attachments where attachment.offset >= scalars.count || scalars[attachment.offset] != Self.objectReplacement {
            problems.append("attachment at \(attachment.offset) is not on a U+FFFC")
        }
        var afterTable = 0
        for (i, table) in tables.enumerated() {
            var next = table.paragraphs.lowerBound
            for run in table.textRuns {
                if run.lowerBound != next { problems.append("table \(i): a cell starts at paragraph \(run.lowerBound), expected \(next)") }
                next = run.upperBound
            }
            if next != table.paragraphs.upperBound || table.paragraphs.isEmpty || table.paragraphs.upperBound > paragraphs.count
                || table.paragraphs.lowerBound < afterTable {
                problems.append("table \(i) does not cover paragraphs \(table.paragraphs) with its cells")
            }
            afterTable = table.paragraphs.upperBound
            problems += Self.nestingProblems(table, name: "table \(i)")
        }
        for (i, box) in boxes.enumerated() where box.paragraphs.isEmpty || box.paragraphs.upperBound > paragraphs.count {
            problems.append("box \(i) covers paragraphs \(box.paragraphs)")
        }
        var afterFloat = 0
        for (i, float) in floats.enumerated() {
            if float.paragraphs.isEmpty || float.paragraphs.upperBound > paragraphs.count || float.paragraphs.lowerBound < afterFloat
                || tables.contains(where: { $0.paragraphs.overlaps(float.paragraphs) }) {
                problems.append("floated block \(i) covers paragraphs \(float.paragraphs)")
            }
            afterFloat = float.paragraphs.upperBound
        }
        return problems
    }
}

/// A value that applies to a range of text.
public struct AttributeRun<Value: Sendable & Equatable>: Sendable, Equatable {
    public var range: Range<Int>
    public var value: Value
    public init(range: Range<Int>, value: Value) {
        self.range = range
        self.value = value
    }
}

/// An sRGB colour.
public struct RGBColor: Hashable, Sendable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }
    public static let black = RGBColor(r: 0, g: 0, b: 0)
    public static let white = RGBColor(r: 255, g: 255, b: 255)

    public var description: String { String(format: "#%02x%02x%02x", r, g, b) }

    static let named: [String: RGBColor] = [
        "black": .black, "white": .white, "red": .init(r: 255, g: 0, b: 0), "green": .init(r: 0, g: 128, b: 0),
        "blue": .init(r: 0, g: 0, b: 255), "gray": .init(r: 128, g: 128, b: 128), "grey": .init(r: 128, g: 128, b: 128),
        "silver": .init(r: 192, g: 192, b: 192), "maroon": .init(r: 128, g: 0, b: 0), "purple": .init(r: 128, g: 0, b: 128),
        "fuchsia": .init(r: 255, g: 0, b: 255), "lime": .init(r: 0, g: 255, b: 0), "olive": .init(r: 128, g: 128, b: 0),
        "yellow": .init(r: 255, g: 255, b: 0), "navy": .init(r: 0, g: 0, b: 128), "teal": .init(r: 0, g: 128, b: 128),
        "aqua": .init(r: 0, g: 255, b: 255), "orange": .init(r: 255, g: 165, b: 0), "brown": .init(r: 165, g: 42, b: 42),
        "darkgray": .init(r: 169, g: 169, b: 169), "darkgrey": .init(r: 169, g: 169, b: 169),
        "lightgray": .init(r: 211, g: 211, b: 211), "lightgrey": .init(r: 211, g: 211, b: 211),
        "darkred": .init(r: 139, g: 0, b: 0), "darkblue": .init(r: 0, g: 0, b: 139), "darkgreen": .init(r: 0, g: 100, b: 0),
        "crimson": .init(r: 220, g: 20, b: 60), "indigo": .init(r: 75, g: 0, b: 130), "gold": .init(r: 255, g: 215, b: 0),
        "pink": .init(r: 255, g: 192, b: 203), "violet": .init(r: 238, g: 130, b: 238), "cyan": .init(r: 0, g: 255, b: 255),
        "magenta": .init(r: 255, g: 0, b: 255), "steelblue": .init(r: 70, g: 130, b: 180),
        "slategray": .init(r: 112, g: 128, b: 144), "dimgray": .init(r: 105, g: 105, b: 105),
    ]
}

/// What font to look for: resolved through fontconfig, with per-character fallback.
public struct FontRequest: Hashable, Sendable {
    /// Families in order of preference; generic names (`serif`, `sans-serif`, `monospace`)
    /// are allowed and resolved by fontconfig.
    public var families: [String]
    /// CSS weight, 100 to 900 (400 regular, 700 bold).
    public var weight: Int
    public var italic: Bool
    public init(families: [String], weight: Int = 400, italic: Bool = false) {
        self.families = families
        self.weight = weight
        self.italic = italic
    }
}

/// Character attributes.
public struct TextStyle: Hashable, Sendable {
    public var font: FontRequest
    /// Font size in points.
    public var size: Double
    public var color: RGBColor
    public var underline = false
    public var strikethrough = false
    /// Baseline shift in points, positive up (superscript), negative down (subscript).
    public var baselineShift: Double = 0
    /// BCP 47 language tag (`en`, `zh-Hans`, `ja`), from `lang`; nil when unknown.
    public var language: String?
    /// The link target, for `<a href>`.
    public var link: String?
    /// Where words may break with a hyphen (CSS `hyphens`).
    public var hyphens = Hyphens.manual
    /// Code and preformatted text (`<code>`, `<kbd>`, `<samp>`, `<tt>`, `white-space: pre`):
    /// its spaces never stretch when a line is justified.
    public var verbatim = false
    /// The background of an inline element (`background-color` on a `<span>`, `<code>`,
    /// `<mark>`): filled behind the run's glyphs, from the face's ascender to its descender.
    public var background: RGBColor?
    /// `visibility: hidden`: the text takes its room in its line and draws nothing (no glyph,
    /// background or line through it).
    public var isHidden = false
    /// CSS `letter-spacing` in points: added after each cluster (a letter and its marks) of
    /// scripts written with separate letters, and set without optional ligatures.
    public var letterSpacing = 0.0
    /// CSS `word-spacing` in points: added to each word separator (U+0020, U+00A0).
    public var wordSpacing = 0.0
    /// How far `position: relative` on the inline elements around the text moves it from
    /// where its line sets it, in points, right and down (CSS 2.1 §9.4.3): drawn there, its
    /// room in the line kept. Not applied in vertical text.
    public var relativeX = 0.0
    public var relativeY = 0.0
    /// `line-height` declared on an inline element around the text (`<span style="line-height:
    /// 3">`): the height of the text's inline box, which the line box grows to hold (CSS 2.1
    /// §10.8); nil takes the paragraph's (`ParagraphStyle.cssLineHeight`).
    public var lineHeight: CSSLineHeight?

    public init(font: FontRequest, size: Double, color: RGBColor = .black) {
        self.font = font
        self.size = size
        self.color = color
    }
}

/// Where a word may break with a hyphen, as CSS `hyphens`.
public enum Hyphens: String, Sendable, Hashable {
    /// Never, not even at a soft hyphen.
    case none
    /// Only at soft hyphens (U+00AD): CSS's default.
    case manual
    /// At soft hyphens and at the points of the language's hyphenation dictionary.
    case auto
}

/// Horizontal alignment of a paragraph's lines.
public enum TextAlignment: String, Sendable, Hashable {
    /// Left for left-to-right paragraphs, right for right-to-left ones.
    case start
    case left, right, center
    /// Both edges flush; the last line and lines before a forced break stay at the start.
    case justify
}

/// Base direction of a paragraph (HTML `dir`).
public enum WritingDirection: String, Sendable, Hashable {
    case ltr, rtl
    /// From the first strong character (UAX #9 rules P2–P3).
    case auto
}

/// A CSS line height (CSS 2.1 §10.8): a length, or a number that multiplies the font size of
/// each inline box (inherited as the number, so a larger font in the line gets taller leading).
public enum CSSLineHeight: Hashable, Sendable {
    case points(Double)
    case fontSizes(Double)

    /// The height of an inline box whose font is `fontSize` points.
    public func height(fontSize: Double) -> Double {
        switch self {
        case .points(let points): points
        case .fontSizes(let factor): factor * fontSize
        }
    }
}

/// Paragraph attributes (`ParagraphStyle.Attributes`, read and set as its own properties).
/// Lengths are in points.
///
/// Every paragraph carries one, and a long table has a paragraph per cell: a million cells
/// held a million copies of the same 130 bytes (issue #33). So the attributes live in one
/// shared, copy-on-write box, and the builder gives paragraphs of equal style the same box:
/// a paragraph costs a reference, not a copy of its style.
@dynamicMemberLookup
public struct ParagraphStyle: Hashable, Sendable {
    private var storage: Storage

    /// The box: mutated in place only while no other style holds it.
    private final class Storage: @unchecked Sendable {
        var attributes: Attributes
        init(_ attributes: Attributes) { self.attributes = attributes }
    }

    private static let defaultStorage = Storage(Attributes())

    public init() { storage = Self.defaultStorage }

    public subscript<Value>(dynamicMember key: WritableKeyPath<Attributes, Value>) -> Value {
        get { storage.attributes[keyPath: key] }
        set {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.attributes) }
            storage.attributes[keyPath: key] = newValue
        }
    }

    /// Whether the two share one box: equal without comparing their attributes.
    func sharesStorage(with other: ParagraphStyle) -> Bool { storage === other.storage }

    public static func == (lhs: ParagraphStyle, rhs: ParagraphStyle) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.attributes == rhs.storage.attributes
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage.attributes) }

    /// What a paragraph style holds, by value.
    public struct Attributes: Hashable, Sendable {
        public var alignment: TextAlignment = .start
        /// CSS `text-align-last`: how the last line and lines before a forced break are aligned;
        /// nil (`auto`) is `alignment`, with `justify` meaning the start.
        public var lastLineAlignment: TextAlignment?
        public var direction: WritingDirection = .auto
        /// Indent of the first line, relative to `startIndent`; negative hangs (list markers).
        public var firstLineIndent: Double = 0
        /// CSS `text-indent` in percent, as a fraction of the width of the paragraph's block,
        /// known only when its lines are set: added to the first line's indent, or with
        /// `hanging` to every line's but the first's (`Framesetter.indents`).
        public var textIndentFraction: Double = 0
        public var textIndentHangs = false
        /// `text-indent: each-line`: a line after a forced break (`lineSeparator`) is indented
        /// as the first line is.
        public var textIndentEachLine = false
        /// Indent from the column's start edge (left for LTR), for every line.
        public var startIndent: Double = 0
        /// Indent from the column's end edge.
        public var endIndent: Double = 0
        public var spaceBefore: Double = 0
        public var spaceAfter: Double = 0
        /// Line height as a multiple of the fonts' natural line height (ascender + descender +
        /// line gap).
        public var lineHeight: Double = 1
        /// Lines are never closer than their largest font's size (its em): set for a line
        /// height inherited as a length from an element with a smaller font, which CSS applies as
        /// it is and which would print a large heading's lines over one another. A line height
        /// declared on the element itself is kept as given, however tight.
        public var lineHeightAtLeastText = false
        /// A CSS `line-height` other than `normal`: each inline box of a line is that high,
        /// its font's ascent plus descent centred in it (half the leading above, half below),
        /// and the line box spans them all (CSS 2.1 §10.8.1). Nil: `lineHeight` applies.
        public var cssLineHeight: CSSLineHeight?
        /// Draw a horizontal rule above the paragraph (`<hr>`).
        public var ruleAbove = false
        /// Whether its lines may be justified: false for headings and preformatted text, which
        /// keep their natural spacing whatever the alignment and the layout's `justify_threshold`.
        public var justifiable = true
        /// Extra start indent of a line that continues a line wrapped at the measure (not after a
        /// forced break): preformatted text, whose wrapped lines hang so they read as one line.
        public var continuationIndent: Double = 0
        /// CSS `break-before` and `break-after` of the blocks the paragraph starts and ends, and
        /// `break-inside` of the innermost block holding it.
        public var breakBefore = BlockBreak.auto
        /// With a `breakBefore` of `page`: the side the page must be (`break-before: right`).
        public var pageSide: PageSide?
        /// The named page the paragraph's block asks for (CSS `page: chapter`, from the block or
        /// the nearest block around it that names one); nil: the article's unnamed pages. A
        /// paragraph whose page name differs from the one before it starts a page.
        public var pageName: String?
        public var breakAfter = BlockBreak.auto
        public var avoidBreakInside = false
        /// Fewest lines of the paragraph left at the foot of a column (CSS `orphans`) and carried
        /// to the head of the next (`widows`) when it breaks across columns.
        public var orphans = 2
        public var widows = 2
        /// Set across all the columns of the page (CSS `column-span: all` on the block or a block
        /// holding it): the columns above are balanced, and they go on below it.
        public var spansColumns = false
        /// CSS `clear`: the paragraph starts below the pictures floated to these sides.
        public var clear: Set<FloatSide> = []
        /// CSS `line-break`: how strictly Japanese and Chinese line-start and line-end rules apply.
        public var lineBreak = LineBreakStrictness.auto
        /// Characters of the list marker the paragraph starts with (`•` and its no-break space):
        /// a marker stands outside the text in a browser, so its space never stretches or shrinks
        /// when the line is justified.
        public var markerLength = 0
        /// The block element the paragraph's text is in, as `tag.class.class` (`h2`, `p.note`,
        /// `pre.literal-block`); empty when unknown (plain text). For reports (`galley typeset
        /// --lines`), not for layout.
        public var element = ""
        /// What the `::first-line` rules of its block change on the text of its first line
        /// (CSS 2.1 §5.12.1), applied once the line is known (`FirstLineStyler`).
        public var firstLine: TextStyleChange?

        public init() {}
    }
}

/// Where a column may end before or after a block (CSS `break-before`, `break-after`).
/// CSS `line-break` (CSS Text 3, §5.2).
public enum LineBreakStrictness: String, Sendable, Hashable {
    /// `strict` (the rule for books, JIS X 4051), as WeasyPrint and browsers set Japanese.
    case auto
    /// No line starts with a small kana or the prolonged sound mark (class CJ).
    case strict
    /// Lines may start with them.
    case normal
    /// Also before iteration marks, centred punctuation and ellipses in Chinese and Japanese.
    case loose
    /// Anywhere between two characters (not inside a cluster).
    case anywhere
}

public enum BlockBreak: String, Sendable, Hashable {
    case auto
    /// Keep the block with what is next to it (`avoid`, `avoid-column`, `avoid-page`).
    case avoid
    /// Start a new column (`column`).
    case column
    /// Start a new page (`page`, `left`, `right`, `recto`, `verso`; legacy `always`).
    case page

    init?(css value: String) {
        switch value {
        case "auto": self = .auto
        case "avoid", "avoid-column", "avoid-page", "avoid-region": self = .avoid
        case "column": self = .column
        case "page", "left", "right", "recto", "verso", "always", "all": self = .page
        default: return nil
        }
    }

    /// The stronger of two breaks meeting between the same two blocks: a forced break wins,
    /// then `avoid`.
    func combined(with other: BlockBreak) -> BlockBreak {
        let rank: [BlockBreak: Int] = [.auto: 0, .avoid: 1, .column: 2, .page: 3]
        return rank[other, default: 0] > rank[self, default: 0] ? other : self
    }
}

/// An inline image: a box in the line (Core Text's run delegate).
public struct Attachment: Hashable, Sendable {
    /// Offset of its U+FFFC in the text.
    public var offset: Int
    /// `src` as written in the markup.
    public var source: String
    /// Requested size in points, when the markup gives one (`width`/`height`, CSS px × 0.75).
    public var width: Double?
    public var height: Double?
    /// The `alt` text.
    public var alternative: String
    /// CSS `float`: the picture is taken out of the line and set at the column's left or
    /// right edge, the lines beside it shortened.
    public var float: FloatSide?
    /// A spacer (`AttributedTextBuilder.appendSpacer`): no picture, no room, nothing drawn.
    public var isSpacer = false
    /// An inline-block (`display: inline-block`): no picture; its content is drawn in its box.
    public var inlineBlock: InlineBlock?
    /// `visibility: hidden`: it takes its room and draws nothing.
    public var isHidden = false
    /// A `width` given as a percentage (CSS `width: 100%`, `<img width="50%">`): that fraction
    /// of its containing block's width (the content box of the block around its line), its
    /// height from the picture's aspect ratio. `width` and `height` then give only that ratio.
    public var widthFraction: Double?

    public init(offset: Int, source: String, width: Double?, height: Double?, alternative: String, float: FloatSide? = nil) {
        self.offset = offset
        self.source = source
        self.width = width
        self.height = height
        self.alternative = alternative
        self.float = float
    }
}

/// A block floated to a side of the column: its paragraphs are set apart, in a rectangle of
/// their own at the side, and the text after it flows beside it (CSS 2.1 §9.5).
public struct FloatedBlock: Sendable, Equatable {
    /// Indices in `AttributedText.paragraphs` of its paragraphs (not empty).
    public var paragraphs: Range<Int>
    public var side: FloatSide
    /// CSS `width` of its content box, in points or as a fraction of the column; neither:
    /// as wide as its content wants, at most the column (shrink-to-fit).
    public var width: Double?
    public var widthFraction: Double?
    /// The indents of the block it sits in (its containing block's content edges from the
    /// column's): the float is placed inside them, and its paragraphs' indents count from them.
    public var containerStartIndent = 0.0
    public var containerEndIndent = 0.0
    /// What the block's own margins, borders and paddings add to its content width on either
    /// side.
    public var ownStart = 0.0
    public var ownEnd = 0.0
    /// The margin waiting above it when it opened (the bottom margin of the block before it,
    /// which the block after it takes as its top one): its top is below it.
    public var spaceAbove = 0.0
    /// Nothing comes before it in its parent block, whose top has no border or padding: its
    /// top is where the parent's is, the margins of the parent and of the block after the
    /// float collapsed above it (CSS 2.1 §8.3.1). Else only the margin before it is.
    public var opensItsParent = false
    /// Its own top and bottom margins, which its rectangle holds above and below it.
    public var marginTop = 0.0
    public var marginBottom = 0.0
    /// Set for an absolutely positioned block, which is set whole like a floated one but
    /// out of the flow, at its offsets (`FramePositions`).
    public var positioning: PositionedBlock?

    public init(paragraphs: Range<Int>, side: FloatSide) {
        self.paragraphs = paragraphs
        self.side = side
    }
}

/// A side of the column a picture floats to (CSS `float`), or that a block clears (`clear`).
/// In vertical text, left is the top of the band and right its foot, as CSS maps them.
public enum FloatSide: String, Hashable, Sendable {
    case left, right
}

/// The styles an article starts from: a layout's base font, size, line height and language.
public struct BaseStyle: Hashable, Sendable {
    public var fontFamily: String
    /// Points.
    public var fontSize: Double
    public var lineHeight: Double
    public var color: RGBColor
    /// Default language when the markup gives none.
    public var language: String?
    /// Hyphenation when the markup says nothing: `.auto` when the layout turns it on.
    public var hyphens: Hyphens
    /// How links (`<a href>`) look unless the article's CSS says otherwise: their colour (nil:
    /// the text's) and whether they are underlined. Default: a dark blue, underlined.
    public var linkColor: RGBColor? = BaseStyle.defaultLinkColor
    public var linkUnderline = true
    public static let defaultLinkColor = RGBColor(r: 0x1A, g: 0x4F, b: 0x9C)

    public init(fontFamily: String = "DejaVu Serif", fontSize: Double = 11, lineHeight: Double = 1.2,
                color: RGBColor = .black, language: String? = nil, hyphens: Hyphens = .manual) {
        self.fontFamily = fontFamily
        self.fontSize = fontSize
        self.lineHeight = lineHeight
        self.color = color
        self.language = language
        self.hyphens = hyphens
    }
}

extension AttributedText {
    /// The text of whole paragraphs `paragraphs`, as a text of its own would hold it: style
    /// runs clipped to it, paragraphs and attachments moved to offsets from its start. What a
    /// table's or a floated block's own framesetter sets; `start` and `attachmentBase` move
    /// what it sets back to this text's offsets.
    struct Excerpt {
        var scalars: [Unicode.Scalar]
        var styleRuns: [AttributeRun<TextStyle>]
        var paragraphs: [AttributeRun<ParagraphStyle>]
        var attachments: [Attachment]
        var start: Int
        var attachmentBase: Int
    }

    func excerpt(paragraphs indices: Range<Int>) -> Excerpt {
        let start = paragraphs[indices.lowerBound].range.lowerBound
        let end = paragraphs[indices.upperBound - 1].range.upperBound
        var runs: [AttributeRun<TextStyle>] = []
        var runIndex = styleRunIndex(at: start)
        while runIndex < styleRuns.count, styleRuns[runIndex].range.lowerBound < end {
            var run = styleRuns[runIndex]
            run.range = (max(run.range.lowerBound, start) - start)..<(min(run.range.upperBound, end) - start)
            runs.append(run)
            runIndex += 1
        }
        let own = paragraphs[indices].map { AttributeRun(range: ($0.range.lowerBound - start)..<($0.range.upperBound - start), value: $0.value) }
        let attachmentBase = attachments.partitioningIndex { $0.offset >= start }
        let moved = attachments[attachmentBase...].prefix { $0.offset < end }.map { attachment in
            var attachment = attachment
            attachment.offset -= start
            return attachment
        }
        return Excerpt(scalars: Array(scalars[start..<end]), styleRuns: runs, paragraphs: own, attachments: Array(moved),
                       start: start, attachmentBase: attachmentBase)
    }
}

/// A place in the text that a link can point at: an element's `id`.
public struct TextAnchor: Sendable, Equatable {
    public var name: String
    /// The global offset of the element's first character.
    public var offset: Int

    public init(name: String, offset: Int) {
        self.name = name
        self.offset = offset
    }
}
