/// An inline-block (CSS 2.1 §9.2.4, `display: inline-block`): an atomic inline whose content
/// is laid out as a block of its own, then placed in its line as a picture is (one U+FFFC and
/// its `Attachment`), never split across lines, columns or pages.
///
/// The markup walker builds its content as a text of its own (`content`), and its box from the
/// element's style; `InlineBlockLayouter` sizes it before the article is set, and the page
/// draws its glyphs, background and border where the line put it.
public struct InlineBlock: Hashable, Sendable {
    /// `vertical-align` of the box in its line (CSS 2.1 §10.8.1).
    public enum Alignment: Sendable, Hashable {
        /// Its baseline on the line's (raised by `baselineShift`).
        case baseline
        /// Its top at the line's top (`top`, `text-top`), its bottom at the line's bottom
        /// (`bottom`, `text-bottom`).
        case top, bottom
        /// Its middle half an x-height above the line's baseline.
        case middle

        /// The keyword's alignment; nil for `baseline`, `sub`, `super` and lengths, which shift
        /// the baseline (`TextStyle.baselineShift`).
        init?(css value: String) {
            switch value {
            case "top", "text-top": self = .top
            case "bottom", "text-bottom": self = .bottom
            case "middle": self = .middle
            default: return nil
            }
        }
    }

    /// What it holds, as a text of its own (its paragraphs, boxes, tables, pictures).
    public var content: AttributedText
    /// `width`, `height` and their limits; an `auto` width shrinks to fit (CSS 2.1 §10.3.9).
    public var size = BoxSize()
    public var padding = TextTable.Sides(0.0)
    public var border = TextTable.Sides(TextBox.Border())
    public var background: RGBColor?
    /// Margins in points, left and right beside it in the line, top and bottom in its height.
    public var margin = TextTable.Sides(0.0)
    /// Percentage margins and paddings (a card grid's `width: 30%; margin: 1.5%`), as fractions
    /// of the containing block's width, on every side (CSS 2.1 §8.3, §8.4): only the layouter
    /// knows that width, and adds them to `margin` and `padding` when it sizes the box.
    public var marginFraction = TextTable.Sides(0.0)
    public var paddingFraction = TextTable.Sides(0.0)
    public var alignment = Alignment.baseline
    /// Points its baseline is raised by (`vertical-align: super`, a length).
    public var baselineShift = 0.0
    /// `overflow` other than `visible`: its baseline is its bottom margin edge.
    public var clipsOverflow = false
    /// `visibility: hidden`: it takes its room and draws nothing.
    public var isHidden = false
    /// Set by the layouter: its baseline's distance below the top of its margin box.
    public var baseline = 0.0
    /// An inline table's: its baseline is its first line's (its first row's, CSS 2.1 §17.4),
    /// not its last's.
    public var baselineIsFirstLine = false

    public init(content: AttributedText) {
        self.content = content
    }

    public static func == (lhs: InlineBlock, rhs: InlineBlock) -> Bool {
        lhs.content == rhs.content && lhs.size == rhs.size && lhs.padding == rhs.padding && lhs.border == rhs.border
            && lhs.background == rhs.background && lhs.margin == rhs.margin && lhs.alignment == rhs.alignment
            && lhs.marginFraction == rhs.marginFraction && lhs.paddingFraction == rhs.paddingFraction
            && lhs.baselineShift == rhs.baselineShift && lhs.clipsOverflow == rhs.clipsOverflow && lhs.isHidden == rhs.isHidden
            && lhs.baseline == rhs.baseline && lhs.baselineIsFirstLine == rhs.baselineIsFirstLine
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(content.scalars.count)
        hasher.combine(size)
        hasher.combine(baseline)
    }

    /// Adds the percentage margins and paddings, resolved against the containing block's
    /// width, to those in points (once: the fractions are spent).
    mutating func resolvePercentages(containingWidth width: Double) {
        func add(_ fractions: inout TextTable.Sides<Double>, to sides: inout TextTable.Sides<Double>) {
            sides.top += fractions.top * width
            sides.right += fractions.right * width
            sides.bottom += fractions.bottom * width
            sides.left += fractions.left * width
            fractions = TextTable.Sides(0.0)
        }
        add(&marginFraction, to: &margin)
        add(&paddingFraction, to: &padding)
    }

    /// Horizontal and vertical paddings and borders.
    var horizontalEdges: Double { padding.left + padding.right + border.left.width + border.right.width }
    var verticalEdges: Double { padding.top + padding.bottom + border.top.width + border.bottom.width }

    /// How far the box, `height` points high as the line sets it, reaches below the baseline of
    /// a line of text `fontSize` points high (for `top` and `bottom`, the line's extent decides:
    /// `TypesetLine.placeInlineBlocks`), with its alignment.
    func drop(height: Double, fontSize: Double) -> (drop: Double, alignment: Alignment) {
        switch alignment {
        case .baseline: (height - min(baseline, height) - baselineShift, alignment)
        // Half an x-height (about a quarter em) above the baseline.
        case .middle: (height / 2 - fontSize / 4 - baselineShift, alignment)
        case .top, .bottom: (0, alignment)
        }
    }
}

extension Attachment {
    /// An inline-block's attachment: no picture, its box from the layout.
    init(offset: Int, inlineBlock: InlineBlock) {
        self.init(offset: offset, source: "", width: nil, height: nil, alternative: "")
        self.inlineBlock = inlineBlock
    }
}

extension TypesetLine {
    /// Makes room in the line for its inline-blocks, as a CSS line box holds atomic inlines:
    /// the text's lines keep their leading (`lineHeight`, a multiple of the natural height)
    /// around its glyphs, a box only its margin box, so a box no taller than the text's line
    /// leaves the line as it was and a taller one grows it by what it reaches beyond. Then the
    /// boxes aligned to the line's top or bottom are placed there, a box taller than the line
    /// making it deeper (below for `top`, above for `bottom`).
    ///
    /// The line's extent above and below the baseline, leading included, is turned back into
    /// an ascent and descent that the framesetter, which multiplies the natural height by the
    /// line height and centres the content, sets at the same place; with a CSS line height it
    /// is the line's `leading`.
    mutating func placeInlineBlocks(_ pending: [(box: Int, alignment: InlineBlock.Alignment)], lineHeight: Double) {
        guard !pending.isEmpty else { return }
        // A line of boxes alone is as high as its content (`holdsOnlyBoxes`); a line height
        // near 0 cannot be inverted, and sets the boxes as pictures are. With a CSS line
        // height, the text's line box is already known (`leading`) and simply grows.
        let cssLeading = runs.isEmpty ? nil : leading
        let factor = runs.isEmpty ? 1 : lineHeight
        guard factor > 0.05 || cssLeading != nil else {
            for (index, _) in pending {
                ascent = max(ascent, boxes[index].height - boxes[index].drop)
                descent = max(descent, boxes[index].drop)
            }
            return
        }
        let half = (ascent + descent + lineGap) * (factor - 1) / 2
        let (textAbove, textBelow) = cssLeading ?? (ascent + half, descent + lineGap + half)
        var (above, below) = (textAbove, textBelow)
        for (index, alignment) in pending where alignment == .baseline || alignment == .middle {
            above = max(above, boxes[index].height - boxes[index].drop)
            below = max(below, boxes[index].drop)
        }
        for (index, alignment) in pending where alignment == .top || alignment == .bottom {
            let height = boxes[index].height
            if alignment == .top {
                boxes[index].drop = height - above
                below = max(below, height - above)
            } else {
                boxes[index].drop = below
                above = max(above, height - below)
            }
        }
        guard above > textAbove || below > textBelow else { return }
        if cssLeading != nil {
            leading = (above, below)
            return
        }
        let natural = (above + below) / factor
        ascent = above - natural * (factor - 1) / 2
        descent = natural - ascent - lineGap
    }
}

/// Lays out the inline-blocks of a text before it is set: each one's content as a page of its
/// own, a column as wide as the box's content (its `width`, or shrink-to-fit: CSS 2.1 §10.3.9,
/// min(max(min-content, available), max-content)), with the typesetter that sets the article.
/// The attachments get their margin box's size and baseline; what the content draws is kept
/// to be placed where the line puts the box.
struct InlineBlockLayouter {
    let layout: ArticleLayout
    let fonts: FontLibrary
    let images: AttachmentImages

    /// What an inline-block draws, with its margin box's top left corner at (0, 0).
    struct Drawing: Sendable {
        var runs: [GlyphRun] = []
        var rects: [FilledRect] = []
        var images: [PlacedImage] = []

        /// The drawing moved to `rect`, the margin box as the line placed it, added to a page's.
        func place(in rect: Rect, runs: inout [GlyphRun], rects: inout [FilledRect], images: inout [PlacedImage]) {
            let (dx, dy) = (rect.x, rect.y)
            func moved(_ r: Rect) -> Rect { Rect(x: r.x + dx, y: r.y + dy, width: r.width, height: r.height) }
            rects += self.rects.map { $0.moved(to: moved($0.rect)) }
            images += self.images.map { PlacedImage(rect: moved($0.rect), image: $0.image) }
            runs += self.runs.map { run in
                var run = run
                run.positions = run.positions.map { ($0.x + dx, $0.y + dy) }
                return run
            }
        }
    }

    /// The text with its inline-blocks sized, and what each draws, by attachment index.
    func layOut(_ text: AttributedText) -> (text: AttributedText, drawings: [Int: Drawing]) {
        guard text.attachments.contains(where: { $0.inlineBlock != nil }) else { return (text, [:]) }
        var attachments = text.attachments
        var drawings: [Int: Drawing] = [:]
        for index in attachments.indices {
            guard var block = attachments[index].inlineBlock else { continue }
            let paragraph = text.paragraphs[text.paragraphIndex(at: attachments[index].offset)].value
            let available = max(0, layout.columnWidth - max(0, paragraph.startIndent) - max(0, paragraph.endIndent))
            let (size, drawing) = layOut(&block, available: available)
            attachments[index].inlineBlock = block
            (attachments[index].width, attachments[index].height) = (size.width, size.height)
            drawings[index] = drawing
        }
        var sized = AttributedText(scalars: text.scalars, styleRuns: text.styleRuns, paragraphs: text.paragraphs, attachments: attachments,
                                   tables: text.tables, boxes: text.boxes, floats: text.floats, boxTree: text.boxTree)
        sized.pagedMedia = text.pagedMedia
        return (sized, drawings)
    }

    /// Lays out one inline-block in a line `available` points wide: its margin box's size, its
    /// baseline (in `block`) and its drawing.
    private func layOut(_ block: inout InlineBlock, available: Double) -> (size: (width: Double, height: Double), drawing: Drawing) {
        block.resolvePercentages(containingWidth: available)
        let margins = (horizontal: block.margin.left + block.margin.right, vertical: block.margin.top + block.margin.bottom)
        let room = max(0, available - margins.horizontal - block.horizontalEdges)
        func content(_ length: BoxLength, of containing: Double?) -> Double? {
            length.resolved(against: containing).map { max(0, block.size.borderBox ? $0 - block.horizontalEdges : $0) }
        }
        var page: TypesetPage?
        var width: Double
        if let given = content(block.size.width, of: available) {
            width = given
        } else {
            // Shrink-to-fit: as wide as the content set without a break it did not ask for,
            // at most the room there is (its words then wrap in it).
            let unbounded = typeset(block.content, width: max(room, Self.unboundedWidth))
            width = min(room, unbounded.map { Self.contentExtent(of: $0, in: block.content).width } ?? 0)
        }
        if let maximum = content(block.size.maxWidth, of: available) { width = min(width, maximum) }
        if let minimum = content(block.size.minWidth, of: available) { width = max(width, minimum) }
        page = typeset(block.content, width: width)
        let extent = page.map { Self.contentExtent(of: $0, in: block.content) }
        let height = block.size.usedContentHeight(content: extent?.height ?? 0, edges: block.verticalEdges)
        let borderBox = Rect(x: block.margin.left, y: block.margin.top, width: width + block.horizontalEdges,
                             height: height + block.verticalEdges)
        let contentOrigin = (x: borderBox.x + block.border.left.width + block.padding.left,
                             y: borderBox.y + block.border.top.width + block.padding.top)
        let marginHeight = borderBox.height + margins.vertical
        // Its last line's baseline (CSS 2.1 §10.8.1), or its bottom margin edge when it has no
        // line or clips what overflows.
        if let last = block.baselineIsFirstLine ? extent?.firstBaseline : extent?.lastBaseline, !block.clipsOverflow {
            block.baseline = contentOrigin.y + last
        } else {
            block.baseline = marginHeight
        }
        var drawing = Drawing()
        guard !block.isHidden else { return ((borderBox.width + margins.horizontal, marginHeight), drawing) }
        var box = TextBox(paragraphs: 0..<0)
        (box.border, box.padding, box.background) = (block.border, block.padding, block.background)
        drawing.rects = BoxPiece(box: 0, rect: borderBox, opensHere: true, closesHere: true).rects(of: box)
        if let page {
            Drawing(runs: page.glyphRuns.map { run in
                var run = run
                run.ownText = run.ownText ?? block.content.scalars
                return run
            }, rects: page.rects, images: page.images)
                .place(in: Rect(x: contentOrigin.x, y: contentOrigin.y, width: 0, height: 0),
                       runs: &drawing.runs, rects: &drawing.rects, images: &drawing.images)
        }
        return ((borderBox.width + margins.horizontal, marginHeight), drawing)
    }

    /// Wide enough for any line a box shrinks to fit: the max-content width, in practice.
    static let unboundedWidth = 20_000.0

    /// The content of `text` set as one page `width` points wide (and a column high), nil when
    /// it holds nothing or cannot be set.
    private func typeset(_ text: AttributedText, width: Double) -> TypesetPage? {
        guard !text.scalars.isEmpty else { return nil }
        var own = ArticleLayout(name: layout.name)
        (own.pageWidth, own.pageHeight) = (max(1, width), max(1, layout.columnHeight))
        own.inset = .init(all: 0)
        own.base = layout.base
        own.typography = layout.typography
        guard let typesetter = try? ArticleTypesetter(text: text, layout: own, fonts: fonts, images: images) else { return nil }
        return try? typesetter.layOutPage()
    }

    /// How wide and high what a page holds reaches from its top left corner (lines, sized
    /// boxes, tables, pictures), and its last line's baseline. Widths are what the content
    /// needs, not where it stands: a centred or right-aligned line measures its glyphs and its
    /// paragraph's indents, wherever the column put it.
    private static func contentExtent(of page: TypesetPage, in text: AttributedText)
        -> (width: Double, height: Double, firstBaseline: Double?, lastBaseline: Double?) {
        var (width, height) = (0.0, 0.0)
        var (firstBaseline, lastBaseline): (Double?, Double?) = (nil, nil)
        for column in page.columns {
            for line in column.lines {
                let paragraph = text.paragraphs[text.paragraphIndex(at: line.range.lowerBound)]
                let indent = paragraph.range.lowerBound == line.range.lowerBound ? paragraph.value.firstLineIndent : 0
                width = max(width, line.rect.width + max(0, paragraph.value.startIndent + indent) + max(0, paragraph.value.endIndent))
                height = max(height, line.rect.maxY)
                lastBaseline = line.baseline
                firstBaseline = firstBaseline ?? line.baseline
            }
            for box in column.boxes {
                // A box of `auto` width spans whatever it is given: only its height counts.
                let textBox = text.boxes[box.box]
                if textBox.size.constrainsWidth { width = max(width, box.rect.width + textBox.startIndent + textBox.endIndent) }
                height = max(height, box.rect.maxY)
            }
            for table in column.tables { (width, height) = (max(width, table.rect.maxX), max(height, table.rect.maxY)) }
        }
        for attachment in page.attachments { (width, height) = (max(width, attachment.rect.width), max(height, attachment.rect.maxY)) }
        if let last = text.paragraphs.last, page.range.upperBound >= text.count { height += last.value.spaceAfter }
        return (width, height, firstBaseline, lastBaseline)
    }
}
