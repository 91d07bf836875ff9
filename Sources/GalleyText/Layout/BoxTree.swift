/// The block boxes of an article (CSS 2.1 §9.2), as the markup walker builds them: each block
/// container with its computed box style and its children in order: block boxes, inline
/// formatting contexts (runs of paragraphs of the flat `AttributedText`, which holds their
/// content), tables, floated blocks and multi-column elements. Kept in one array, parents before their children;
/// box 0 is the root, around the whole text.
///
/// The flat text stays the content store and the framesetter the line filler of each inline
/// formatting context; the tree says which paragraphs a block holds and what its box is, so
/// that block-level geometry (`BlockGeometry`) is read from it rather than pieced together
/// from paragraph ranges.
public struct BoxTree: Sendable, Equatable {
    public var boxes: [BlockBox]

    public init() {
        boxes = [BlockBox(element: "", style: BlockStyle(), parent: nil, paragraphs: 0..<0)]
    }

    /// Index of the root box.
    public static let root = 0

    /// Closes box `index` at paragraph `end` (its last paragraph ended): its paragraphs, and
    /// the runs of them between its block children, tables and floats as inline formatting
    /// contexts among them.
    mutating func close(_ index: Int, end: Int, tables: [TextTable]) {
        var box = boxes[index]
        box.paragraphs = box.paragraphs.lowerBound..<max(box.paragraphs.lowerBound, end)
        var children: [BlockBox.Child] = []
        var next = box.paragraphs.lowerBound
        for child in box.children {
            let range: Range<Int>
            switch child {
            case .block(let block), .float(let block, _), .multicol(let block): range = boxes[block].paragraphs
            case .table(let table): range = tables[table].paragraphs
            case .inline(let paragraphs): range = paragraphs
            }
            if range.lowerBound > next { children.append(.inline(next..<range.lowerBound)) }
            children.append(child)
            next = max(next, range.upperBound)
        }
        if box.paragraphs.upperBound > next { children.append(.inline(next..<box.paragraphs.upperBound)) }
        box.children = children
        boxes[index] = box
    }

    /// The multi-column elements that are not inside another, in document order (a
    /// multi-column element inside one is laid out as a block of its columns).
    public var multicols: [Int] {
        var found: [Int] = []
        var pending = [Self.root]
        while let next = pending.popLast() {
            for child in boxes[next].children.reversed() {
                switch child {
                case .multicol(let index): found.append(index)
                case .block(let index): pending.append(index)
                case .inline, .table, .float: break
                }
            }
        }
        return found.sorted { boxes[$0].paragraphs.lowerBound < boxes[$1].paragraphs.lowerBound }
    }

    /// Whether box `index` is a multi-column element or inside one.
    func isInMulticol(_ index: Int) -> Bool {
        var next: Int? = index
        while let box = next, let parent = boxes[box].parent {
            if boxes[parent].children.contains(.multicol(box)) { return true }
            next = parent
        }
        return false
    }

    /// The boxes inside box `index`, depth first, in document order (not itself).
    public func descendants(of index: Int) -> [Int] {
        var found: [Int] = []
        var pending = boxes[index].children.reversed().compactMap(\.block)
        while let next = pending.popLast() {
            found.append(next)
            pending += boxes[next].children.reversed().compactMap(\.block)
        }
        return found
    }
}

/// A block container box.
public struct BlockBox: Sendable, Equatable {
    /// What a block box holds, in order.
    public enum Child: Sendable, Equatable {
        /// A block box (index in `BoxTree.boxes`).
        case block(Int)
        /// An inline formatting context: paragraphs (indices in `AttributedText.paragraphs`)
        /// of text and inline boxes.
        case inline(Range<Int>)
        /// A table (index in `AttributedText.tables`).
        case table(Int)
        /// A floated block: its block box, and its index in `AttributedText.floats`.
        case float(block: Int, index: Int)
        /// A multi-column element (CSS Multi-column): a block box whose content is set in
        /// columns of its own (`BlockStyle.columns`, laid out by `MulticolLayouter`).
        case multicol(Int)

        /// A floated block's index in `AttributedText.floats`.
        var floatIndex: Int? {
            if case .float(_, let index) = self { index } else { nil }
        }

        var block: Int? {
            switch self {
            case .block(let index), .float(let index, _), .multicol(let index): index
            case .inline, .table: nil
            }
        }
    }

    /// The element's tag, with its classes (`div.note`), as `ParagraphStyle.element`.
    public var element: String
    public var style: BlockStyle
    public var parent: Int?
    /// The paragraphs the box holds (empty for a block around nothing).
    public var paragraphs: Range<Int>
    public var children: [Child] = []
    /// Its box in `AttributedText.boxes`, when it draws one or has a size.
    public var textBox: Int?

    public init(element: String, style: BlockStyle, parent: Int?, paragraphs: Range<Int>) {
        self.element = element
        self.style = style
        self.parent = parent
        self.paragraphs = paragraphs
    }
}

/// The computed box style of a block (CSS 2.1 chapters 8 and 10, CSS Multi-column): what the
/// block layer needs; text and paragraph attributes are in the flat text.
public struct BlockStyle: Sendable, Equatable {
    public enum Display: Sendable, Equatable { case block, listItem }

    public var display = Display.block
    public var size = BoxSize()
    /// Margins in points; `auto` side margins are in `size`.
    public var marginTop = 0.0
    public var marginBottom = 0.0
    public var marginStart = 0.0
    public var marginEnd = 0.0
    public var padding = TextTable.Sides(0.0)
    public var border = TextTable.Sides(TextBox.Border())
    public var background: RGBColor?
    /// `float`: the block is set at a side of its column (`AttributedText.floats`).
    public var float: FloatSide?
    /// `columns`, `column-gap`, `column-rule` and `column-fill`: with a count or a width, the
    /// block is a multi-column element (`BlockBox.Child.multicol`).
    public var columns = ColumnStyle()
    /// Where the block's content box is: the start and end indents of the lines it holds
    /// directly (its ancestors' and its own margins, borders and paddings).
    public var contentStartIndent = 0.0
    public var contentEndIndent = 0.0
    /// `column-span: all` on the block or a block around it.
    public var spansColumns = false
    /// `position` and its offsets, and whether `overflow` cuts the content (`FramePositions`).
    public var position = Positioning.static
    public var offsets = BoxOffsets()
    public var clipsOverflow = false
    /// `z-index` of a positioned block (nil: `auto`).
    public var zIndex: Int?

    public init() {}
}

/// What a block declares of multi-column layout (CSS Multi-column Level 1): `column-count`,
/// `column-width` (nil for `auto`), `column-gap` (nil for `normal`, 1em), `column-rule` and
/// `column-fill`.
public struct ColumnStyle: Sendable, Equatable {
    public var count: Int?
    public var width: Double?
    public var gap: Double?
    /// The rule drawn between columns (width 0: none).
    public var rule = TextBox.Border()
    public var fill = ArticleLayout.ColumnFill.balance
    /// The element's font size: no column is made narrower (1000 columns in a box 12em wide
    /// would not hold a letter each).
    public var minimumWidth = 0.0

    /// The most columns a `column-count` gives.
    static let maximumCount = 1000

    public init() {}

    /// Whether the block is a multi-column element: a count or a width other than `auto`.
    public var isMulticol: Bool { count != nil || width != nil }

    /// The used column count and width in a content box `available` points wide (CSS
    /// Multi-column §3.4's pseudo-algorithm): the count that `column-width` allows at least,
    /// no more than `column-count`, at least one, and none narrower than `minimumWidth`; the
    /// columns share the room left by the gaps.
    func used(available: Double) -> (count: Int, width: Double) {
        let gap = self.gap ?? 0
        /// How many columns at least `width` wide fit.
        func fitting(_ width: Double) -> Int { Int(((available + gap) / (width + gap)).rounded(.down)) }
        var used = count ?? 1
        if let width { used = max(1, min(count ?? fitting(width), fitting(width))) }
        if minimumWidth > 0 { used = min(used, fitting(minimumWidth)) }
        used = max(1, min(used, Self.maximumCount))
        return (used, max(0, (available - Double(used - 1) * gap) / Double(used)))
    }
}
