import GalleyRaster

/// Fills rectangles with text, one at a time, from a text position (Core Text's
/// `CTFramesetterCreateFrame` with `CTFrameGetVisibleStringRange`).
///
/// A cascade of rectangles (columns, then pages) is filled by calling `fill` with each in
/// turn from where the last one stopped. Lines are chosen greedily, or, with optimal line
/// breaking, by a plan made for the whole paragraph at its first line (`OptimalBreaker`)
/// and followed while its lines fit the measure they are given. Paragraphs are analysed
/// (itemized, shaped, broken) when first reached and only the current one is kept, a long one
/// a window at a time (`ParagraphAnalysis`), so memory grows with neither the article nor
/// its longest paragraph.
public final class Framesetter {
    public let text: AttributedText
    private var analyzer: ParagraphAnalyzer
    private var current: (index: Int, analysis: ParagraphAnalysis)?
    let typography: ArticleLayout.Typography
    /// Consecutive lines ending in a hyphen at the end of what has been placed, and their
    /// paragraph.
    var hyphenatedLines = (paragraph: -1, count: 0)
    /// Line ends the optimal breaker chose for a paragraph (local offsets).
    private var plan: (paragraph: Int, ends: [Int])?
    /// What a table's own framesetter needs (`TableLayouter`).
    let fonts: FontLibrary
    let maximumBox: (width: Double, height: Double)
    let vertical: Bool
    /// The table each table's first paragraph starts, by paragraph index.
    let tableStarts: [Int: Int]
    /// The table being set, from its first column to its last.
    var activeTable: TableLayouter?
    /// Tables set as paragraphs, because no width could hold them as grids.
    var flattenedTables: Set<Int> = []
    /// In a table's own framesetter, the layouters of the tables nested in its cells, by index
    /// in `text.tables`, with the measure they were made for. Cells are filled speculatively
    /// (a row that does not fit is set again, cut), so each fill resumes a nested table from
    /// where a fill stopped at that offset (`TableLayouter.resume(at:)`), not from where the
    /// last fill left it.
    var cellTables: [Int: (measure: Double, layouter: TableLayouter)] = [:]
    /// Nested tables' widths and fresh layouters, shared with this framesetter's copies.
    let nestedTables: NestedTableCache
    /// How the manifest numbers this text's tables (`TableFrame.table`): all of an article's
    /// tables in document order, a table before those nested in it. `first` is the number of
    /// `text.tables[0]` (a nested table's framesetter starts past its parent's), and `parent`
    /// the number of the table whose cells this text is (nil for the article).
    var tableNumbering = (first: 0, parent: Int?.none)
    /// Tables before `text.tables[i]`, nested ones included.
    let tablesBefore: [Int]
    /// What finished tables' and floated blocks' framesetters found (`uncoveredCharacters`,
    /// `unhyphenatedLanguages`).
    var tablesUncovered: [Unicode.Scalar: Int] = [:]
    var tablesUnhyphenated: Set<String> = []
    /// Tables set smaller or wrapped inside words to fit the column, or set as paragraphs.
    var tableWarnings: [String] = []
    /// The boxes (`AttributedText.boxes`) that open at a paragraph, outermost first, and
    /// those that close at one, innermost first, by paragraph index.
    private let boxOpenings: [Int: [Int]]
    private let boxClosings: [Int: [Int]]
    /// The multi-column elements laid out in columns of their own (`MulticolLayouter`), in
    /// text order; none in vertical text.
    let multicols: [MulticolElement]
    /// What the fill in progress leaves to the block layer: the boxes around the whole of the
    /// multi-column element it fills (`MulticolElement.enclosingBoxes`), and the element's
    /// content indents, which its columns' lines are set inside instead.
    private var outerBoxes: Set<Int> = []
    private var indentBase = (start: 0.0, end: 0.0)
    /// Where sized boxes (`TextBox.size`) put their borders and their lines in a column.
    private var geometry: BlockGeometry
    /// Where the last rectangle's text ended, the boxes begun and not ended there, and the
    /// first box not begun: each rectangle looks at those, not at every box before it.
    private var boxScan = (end: 0, open: [Int](), next: 0)
    /// Floated pictures anchored before this offset have been placed.
    var floatsPlacedThrough = 0
    /// The floated block (`AttributedText.floats`) each one's first paragraph starts, by
    /// paragraph index.
    let floatStarts: [Int: Int]
    /// Floated blocks taller than a column: set in the flow instead, as CSS fragments them.
    var inFlowFloats: Set<Int> = []
    /// Floated blocks whose own framesetters' findings are in `tablesUncovered` and
    /// `tablesUnhyphenated` (a block tried in two columns is counted once).
    var floatsCounted: Set<Int> = []
    /// How deep a whole column is (across the lines), when the rectangles filled may be less
    /// (balanced trials, columns below a block across them): a floated block is set in the
    /// flow only when it is deeper than a whole column. Nil: as deep as the rectangle.
    var columnExtent: Double?
    /// Where words too wide for their line were cut with a hyphen (global offsets), for a
    /// warning: the last resort after every opportunity and no-break space.
    private(set) var wordsCut = Set<Int>()
    /// Stops the work between lines when cancelled (`page_timeout`, Ctrl-C): no single line
    /// takes long, since shaping is bounded (`Shaper.markRunLimit`, `Shaper.runLimit`) and so is the scan for
    /// a line's end.
    ///
    /// Kept in a slot shared with the framesetters of its tables' cells and floated blocks,
    /// and with copies, so that one page's limit reaches all of them.
    var cancellation: Cancellation? {
        get { cancellationSlot.current }
        set { cancellationSlot.current = newValue }
    }
    let cancellationSlot: CancellationSlot
    /// Whether this is an article's flow, which begins at the top of its first page: there,
    /// where no break is, the first block's top margin is kept (css-break-3 §5.5 truncates
    /// margins only at breaks). Not a table cell's or a floated block's (their flows are
    /// laid out as they were), nor a vertical article's (`ArticleTypesetter`).
    var keepsFirstMargin = false

    /// A space may grow by at most this many times its natural width when a Latin line is
    /// justified; a line that would need more is left ragged and counted as loose.
    public static let maximumSpaceStretch = 2.0

    /// A space of a justified Latin line may shrink to this fraction of its natural width, as
    /// in TeX (1/3 of the stretch there) and Core Text, so that a line takes one more word
    /// rather than stretching.
    public static let minimumSpace = 0.8

    /// Paragraphs longer than this many characters are analysed in windows this long.
    public static let defaultAnalysisWindow = 65_536

    /// - Parameter maximumBox: the largest attachment box (a column's width and height).
    /// - Parameter vertical: lines run top to bottom; rectangles are then given in line
    ///   coordinates (width along the line), as `FlowMapping.flowRect` makes them.
    /// - Parameter analysisWindow: paragraphs longer than this many characters are analysed
    ///   in windows this long (`ParagraphAnalyzer.window`); tests make it small.
    public convenience init(text: AttributedText, fonts: FontLibrary, maximumBox: (width: Double, height: Double),
                typography: ArticleLayout.Typography = .init(), vertical: Bool = false,
                analysisWindow: Int = defaultAnalysisWindow) {
        self.init(text: text, fonts: fonts, maximumBox: maximumBox, typography: typography, vertical: vertical,
                  analysisWindow: analysisWindow, cancellationSlot: CancellationSlot())
    }

    /// A framesetter whose cancellation is `cancellationSlot`'s: a nested one shares its
    /// article's.
    init(text: AttributedText, fonts: FontLibrary, maximumBox: (width: Double, height: Double),
         typography: ArticleLayout.Typography = .init(), vertical: Bool = false,
         analysisWindow: Int = defaultAnalysisWindow, cancellationSlot: CancellationSlot) {
        self.cancellationSlot = cancellationSlot
        self.text = text
        self.typography = typography
        self.fonts = fonts
        self.maximumBox = maximumBox
        self.vertical = vertical
        self.tableStarts = Dictionary(text.tables.enumerated().map { ($1.paragraphs.lowerBound, $0) }, uniquingKeysWith: { first, _ in first })
        nestedTables = NestedTableCache()
        var before = 0
        self.tablesBefore = text.tables.map { table in
            defer { before += table.tableCount }
            return before
        }
        self.boxOpenings = Dictionary(grouping: text.boxes.indices, by: { text.boxes[$0].paragraphs.lowerBound })
        self.boxClosings = Dictionary(grouping: text.boxes.indices.reversed(), by: { text.boxes[$0].paragraphs.upperBound - 1 })
        self.multicols = vertical ? [] : MulticolElement.all(in: text)
        self.geometry = BlockGeometry(boxes: text.boxes, paragraphCount: text.paragraphs.count, vertical: vertical)
        self.floatStarts = Dictionary(text.floats.enumerated().map { ($1.paragraphs.lowerBound, $0) }, uniquingKeysWith: { first, _ in first })
        self.analyzer = ParagraphAnalyzer(text: text, fonts: fonts, maximumBox: maximumBox, typography: typography, vertical: vertical,
                                          window: analysisWindow)
        analyzer.cancellationSlot = cancellationSlot
    }

    /// A framesetter that goes on from where this one is, independently of it: column
    /// balancing fills trial columns with copies and keeps the original for the real fill.
    /// Paragraph analyses are values (copied on write); the shaping cache is shared, which
    /// changes no result.
    func copy() -> Framesetter { Framesetter(copying: self) }

    /// Every stored property, so that a copy sets the same lines as the original would.
    private init(copying other: Framesetter) {
        text = other.text
        analyzer = other.analyzer
        current = other.current
        typography = other.typography
        hyphenatedLines = other.hyphenatedLines
        plan = other.plan
        fonts = other.fonts
        maximumBox = other.maximumBox
        vertical = other.vertical
        tableStarts = other.tableStarts
        flattenedTables = other.flattenedTables
        tableNumbering = other.tableNumbering
        tablesBefore = other.tablesBefore
        nestedTables = other.nestedTables
        tablesUncovered = other.tablesUncovered
        tablesUnhyphenated = other.tablesUnhyphenated
        tableWarnings = other.tableWarnings
        boxOpenings = other.boxOpenings
        boxClosings = other.boxClosings
        multicols = other.multicols
        outerBoxes = other.outerBoxes
        indentBase = other.indentBase
        geometry = other.geometry
        boxScan = other.boxScan
        floatsPlacedThrough = other.floatsPlacedThrough
        floatStarts = other.floatStarts
        inFlowFloats = other.inFlowFloats
        floatsCounted = other.floatsCounted
        columnExtent = other.columnExtent
        cancellationSlot = other.cancellationSlot
        wordsCut = other.wordsCut
        keepsFirstMargin = other.keepsFirstMargin
        activeTable = nil
        activeTable = other.activeTable?.copy(for: self)
        for (index, table) in other.cellTables { cellTables[index] = (table.measure, table.layouter.copy(for: self)) }
    }

    /// Characters no installed font covers, with counts, among the paragraphs analysed so far.
    public var uncoveredCharacters: [Unicode.Scalar: Int] {
        var all = analyzer.uncoveredCharacters.merging(tablesUncovered, uniquingKeysWith: +)
        if let activeTable { all.merge(activeTable.uncoveredCharacters, uniquingKeysWith: +) }
        for table in cellTables.values { all.merge(table.layouter.uncoveredCharacters, uniquingKeysWith: +) }
        return all
    }

    /// Languages that `hyphens: auto` text is in but no hyphenation dictionary covers ("" for
    /// text without a language), among the paragraphs analysed so far.
    public var unhyphenatedLanguages: Set<String> {
        analyzer.unhyphenatedLanguages.union(tablesUnhyphenated).union(activeTable?.unhyphenatedLanguages ?? [])
            .union(cellTables.values.flatMap(\.layouter.unhyphenatedLanguages))
    }

    /// A line placed in a rectangle.
    /// `loose`: a line that should have been justified but would have needed its spaces
    /// stretched beyond `maximumSpaceStretch`, so was left ragged.
    /// `continuation`: a preformatted line going on from one wrapped at the measure.
    /// `spaceRatio`: see `LineBox.spaceRatio`.
    typealias PlacedLine = (line: TypesetLine, origin: Double, baseline: Double, top: Double, height: Double, loose: Bool,
                            continuation: Bool, spaceRatio: Double?)

    /// A filled rectangle.
    struct Frame {
        var range: Range<Int>
        /// The lines set, in text order (table cells' lines included).
        var lines: [PlacedLine]
        var rules: [Double]
        /// Pieces of tables: their cells and rows, lines of header rows repeated at the top of
        /// a column (drawn, but their text is counted where it was first set), and the
        /// tables' borders and backgrounds.
        var tables: [TableFrame] = []
        var repeatedLines: [PlacedLine] = []
        var tableRects: [FilledRect] = []
        /// Pieces of blocks' boxes, in the order of `AttributedText.boxes` (enclosing boxes
        /// first, to be drawn under the boxes inside them).
        var boxes: [BoxPiece] = []
        /// Whether nothing has been placed yet.
        var isEmpty: Bool { lines.isEmpty && tables.isEmpty }
        /// Pictures floated to the column's edges (`Attachment.float`) and floated blocks
        /// (`AttributedText.floats`), with their rectangles (their margins not included).
        var floats: [PlacedFloat] = []
        /// Pieces of the boxes inside floated blocks, drawn by the blocks' own framesetters:
        /// put with `boxes` when the fill ends.
        var floatBoxes: [BoxPiece] = []
        /// Absolutely positioned blocks, set at their static positions, out of the flow: moved
        /// to their offsets and put with the rest by `FramePositions`.
        var positioned: [PlacedBlock] = []
        /// Where the last line, table, floated picture or box placed ends (y in the rectangle's
        /// coordinates), nil when nothing was.
        var bottom: Double? {
            (lines.map { $0.top + $0.height } + tables.map(\.rect.maxY) + floats.map(\.rect.maxY)
                + boxes.filter(\.closesHere).map(\.rect.maxY)).max()
        }

        /// Ends the pieces of boxes that go on past the frame at `y` instead of its foot:
        /// where a block that spans the columns (or the columns after one) is set below.
        mutating func cutOpenBoxes(at y: Double) {
            for index in boxes.indices where !boxes[index].closesHere {
                boxes[index].rect.height = max(0, y - boxes[index].rect.y)
            }
        }
        /// The column ended at a `break-before`/`break-after: page`: the rest of the page stays
        /// empty.
        var pageBreak = false
        /// The fill stopped where a multi-column element begins or ends (the one it fills,
        /// `fill(multicol:)`, or another): the block layer goes on in the other's columns.
        var multicolChange = false
        /// Rules between the columns of multi-column elements, drawn under the text.
        var columnRules: [FilledRect] = []
        /// Boxes' edges (or a `height`) were left out to fit the first line or table in the
        /// rectangle: a balanced height that needs it is too short.
        var squeezedBoxes = false
        /// The column ended before a block that spans the columns (or, in a spanning fill,
        /// before one that does not): the page goes on below in the other mode.
        var spanChange = false
        /// Times a break rule (widows, orphans, `break-after: avoid`, `break-inside: avoid`)
        /// yielded because keeping it would have left the column empty.
        var breakExceptions = 0
    }

    /// A picture or a block floated to a side of the column, placed.
    struct PlacedFloat {
        /// The picture (`text.attachments`) or the block (`text.floats`) floated.
        var attachment: Int?
        var block: Int?
        /// Where it is anchored in the text: the picture's offset, the block's start.
        var offset: Int
        var side: FloatSide
        var rect: Rect
        /// A block's text.
        var range: Range<Int> = 0..<0

        /// The room kept between it and the text beside and below it: `floatMargin` for a
        /// picture; none for a block, whose rectangle holds its CSS margins.
        var margin: Double { block == nil ? Framesetter.floatMargin : 0 }
    }

    /// Space kept between a floated picture and the text beside and below it, in points.
    public static let floatMargin = 8.0

    /// Fills `rect` with lines from text offset `start`.
    ///
    /// - Parameter end: a table cell's end: the text is set up to there, as one block, with
    ///   no forced breaks (a table's framesetter sets its cells this way).
    /// - Parameter spanning: whether `rect` is the whole width of a multi-column page, for
    ///   blocks that span the columns (`ParagraphStyle.spansColumns`), or one column: the fill
    ///   stops before a block of the other kind (`Frame.spanChange`). Nil: one column, where
    ///   spanning means nothing.
    /// - Parameter multicol: the multi-column element (index in `multicols`) whose column
    ///   `rect` is, or nil for the flow around them: the fill stops where the text leaves it
    ///   (`Frame.multicolChange`). Boxes around the whole element are the block layer's.
    /// - Throws: `TypesetError.columnTooSmall` when not even one line fits.
    func fill(_ rect: Rect, from start: Int, pageStart: Bool = false, end: Int? = nil, spanning: Bool? = nil,
              multicol: Int? = nil) throws(TypesetError) -> Frame {
        if end == nil {
            outerBoxes = multicol.map { multicols[$0].enclosingBoxes } ?? []
            indentBase = multicol.map { multicols[$0].contentIndents } ?? (0, 0)
        }
        // Margins go where they adjoin a break between columns or pages (css-break-3 §5.5),
        // not at the top of the first page, where no break is: there the first block's margin
        // is kept, as below anything placed. A column of a multi-column element gets its first
        // margin from `MulticolLayouter`, above the columns.
        var fill = FillState(rect: rect, end: end, pageStart: pageStart,
                             flowStart: keepsFirstMargin && start == 0 && end == nil && multicol == nil, offset: start)
        // Each round hands the block at the fill's offset to its pass: a floated block, a
        // table, or the next line of a paragraph; the block pass (`BlockLayouter`) takes over
        // where a multi-column element begins or ends.
        while fill.offset < (end ?? text.count) {
            let paragraphIndex = text.paragraphIndex(at: fill.offset)
            let blockStart = fill.offset == text.paragraphs[paragraphIndex].range.lowerBound
            let step: FillStep
            if end == nil, !multicols.isEmpty, blockStart, self.multicol(of: paragraphIndex) != multicol {
                fill.frame.multicolChange = true
                step = .stopped
            } else if end == nil, blockStart, let index = floatStarts[paragraphIndex], !inFlowFloats.contains(index) {
                step = try placeFloatedBlock(index, at: paragraphIndex, in: &fill)
            } else if end == nil, let spanning, !fill.frame.isEmpty, blockStart, spansColumns(paragraphIndex, in: multicol) != spanning {
                // Before anything is analysed at this measure (a table's columns are resolved
                // for the first measure it meets).
                fill.frame.spanChange = true
                step = .stopped
            } else if let table = try table(at: paragraphIndex, offset: fill.offset, measure: rect.width, inCell: end != nil) {
                step = try placeTable(table, at: paragraphIndex, in: &fill)
            } else {
                step = try placeLine(of: paragraphIndex, in: &fill)
            }
            if step == .stopped { break }
        }
        var frame = fill.frame
        frame.range = start..<fill.offset
        if end == nil && !text.boxes.isEmpty { frame.boxes = boxPieces(in: rect, range: frame.range, tops: fill.boxTops, bottoms: fill.boxBottoms) }
        if !frame.floatBoxes.isEmpty {
            // Floats over the boxes of the flow (CSS 2.1 Appendix E: in-flow blocks'
            // backgrounds, then floats), each in the order of `text.boxes`, an enclosing box
            // under those inside it.
            frame.boxes += frame.floatBoxes.enumerated().sorted { ($0.element.box, $0.offset) < ($1.element.box, $1.offset) }.map(\.element)
            frame.floatBoxes = []
        }
        return frame
    }

    /// The state of one `fill` (as Pango keeps a paragraph's in `ParaBreakState`): where it is
    /// in the text and down the rectangle, and what it has placed. Each pass (`placeLine`,
    /// `placeTable`, `placeFloatedBlock`) takes the block at `offset`, places what fits into
    /// `frame`, and moves `offset` and `cursor` on.
    struct FillState {
        let rect: Rect
        /// A table cell's end (`fill(end:)`): nil for the flow, where forced breaks, floated
        /// blocks and the boxes' edges apply.
        let end: Int?
        /// Whether the rectangle begins a page (a `break-before: page` there is already taken).
        let pageStart: Bool
        /// Whether the fill begins the article's flow, where the first block keeps its margin.
        let flowStart: Bool
        var frame: Frame
        /// The next text offset to place.
        var offset: Int
        /// Where what is placed ends, down from the rectangle's top.
        var cursor = 0.0
        /// The bottom margin of the block placed last, collapsed with the next one's top.
        var previousSpaceAfter = 0.0
        /// Where boxes' border boxes begin and end (y), with the text offset of the line or
        /// table there, so that lines the break rules take back take their box edges along.
        var boxTops: [(box: Int, y: Double, offset: Int)] = []
        var boxBottoms: [(box: Int, y: Double, offset: Int)] = []
        /// Lines of floated blocks in `frame.lines`: they are beside the flow, not above it, so
        /// the margins of what comes first in the flow still go at a column's top.
        var floatLines = 0

        init(rect: Rect, end: Int?, pageStart: Bool, flowStart: Bool, offset: Int) {
            (self.rect, self.end, self.pageStart, self.flowStart, self.offset) = (rect, end, pageStart, flowStart, offset)
            frame = Frame(range: offset..<offset, lines: [], rules: [])
        }

        var inFlow: Bool { end == nil }
        /// Whether something in the flow is above the next block (else its margin goes).
        var placedAbove: Bool { flowStart || frame.lines.count > floatLines || !frame.tables.isEmpty }
    }

    /// What a pass did: placed its block, or part of it, or chose how it is set (the fill goes
    /// on); or stopped the fill (the rectangle is full, or a break comes first).
    enum FillStep { case continued, stopped }

    /// Whether the fill stops before paragraph `index`, where a block begins: at a forced
    /// break (`break-before`, or `break-after` above) after something placed in this
    /// rectangle, and (`atTop`) at a page break at the top of a rectangle that does not begin a
    /// page. Marks the frame's `pageBreak`. Only in the flow: a cell's text has no forced breaks.
    func stopsAtForcedBreak(before index: Int, in fill: inout FillState, atTop: Bool = true) -> Bool {
        guard fill.inFlow else { return false }
        if !fill.frame.isEmpty, let forced = forcedBreak(before: index) {
            fill.frame.pageBreak = forced == .page
            return true
        }
        if atTop, fill.frame.isEmpty, !fill.pageStart, forcedBreak(before: index) == .page {
            fill.frame.pageBreak = true
            return true
        }
        return false
    }

    /// The inline pass: the next line of paragraph `paragraphIndex` from the fill's offset,
    /// with the margins, borders and paddings of the boxes opening above it and closing below
    /// it, beside the pictures floated from it and before it; or the fill stopped at a forced
    /// break, or because the line (with the lines kept with it) does not fit.
    private func placeLine(of paragraphIndex: Int, in fill: inout FillState) throws(TypesetError) -> FillStep {
        let (rect, offset) = (fill.rect, fill.offset)
        if !vertical { analyzer.pictureMeasure = pictureMeasure(paragraphIndex, width: rect.width) }
        var analysis = try analysis(of: paragraphIndex, at: offset)
        let style = analysis.style
        let first = offset == analysis.paragraph.lowerBound
        if first, stopsAtForcedBreak(before: paragraphIndex, in: &fill) { return .stopped }
        // A preformatted line that goes on from one wrapped at the measure hangs.
        let continuation = !first && style.continuationIndent > 0 && text.scalars[offset - 1] != AttributedText.lineSeparator
        // With `text-indent: each-line`, a line after a `<br>` is indented as the first.
        let indentedAsFirst = first || (style.textIndentEachLine && text.scalars[offset - 1] == AttributedText.lineSeparator)
        let hyphenAllowed = hyphenatedLines.paragraph != paragraphIndex || hyphenatedLines.count < typography.maximumConsecutiveHyphens
        if typography.lineBreaking == .optimal, first, plan?.paragraph != paragraphIndex {
            let shift = paragraphShift(paragraphIndex, width: rect.width)
            let firstLine = Self.indents(style, firstLine: true, continuation: false, width: rect.width, shift: shift, base: indentBase)
            let rest = Self.indents(style, firstLine: false, continuation: false, width: rect.width, shift: shift, base: indentBase)
            plan = OptimalBreaker.breaks(analysis, firstMeasure: rect.width - max(0, firstLine.start) - max(0, firstLine.end),
                                         measure: rect.width - max(0, rest.start) - max(0, rest.end), typography: typography)
                .map { (paragraphIndex, $0) }
        }
        // Boxes opening here put their margins, borders and paddings above the line.
        var opening = BoxOpening(spaceAbove: fill.previousSpaceAfter, placedAbove: fill.placedAbove, ruleAbove: first && style.ruleAbove)
        if fill.inFlow && first, let boxes = openings(at: paragraphIndex) { opening = openBoxes(boxes, opening) }
        var gap = opening.edges
        var space = 0.0
        if first && opening.placedAbove {
            space = Self.collapsed(opening.spaceAbove, style.spaceBefore)
            if opening.ruleAbove { space = max(space, 12) }
        }
        // A negative margin pulls a block up over what is above it, never out of the column.
        gap = max(gap + space, -fill.cursor)
        if first, let below = Self.floatsBottom(fill.frame.floats, sides: style.clear, in: rect) {
            // Clearance (CSS 2.1 §9.5.2): the cleared block's top border edge goes down to the
            // floats' bottom, unless its position with the margins above it collapsed is lower
            // already. The clearance takes the place of those margins; it is not added to them.
            let marginAbove = opening.tops.lazy.compactMap(\.y).first ?? gap
            fill.cursor = max(fill.cursor, below - marginAbove)
        }

        /// The line from `offset` in `lineRect` (the column, or the part of it beside
        /// floated pictures), with its indents and measure.
        func makeLine(in lineRect: Rect) throws(TypesetError)
            -> (analysis: ParagraphAnalysis, filler: LineFiller, local: Range<Int>, startIndent: Double, measure: Double) {
            var analysis = analysis
            let shift = paragraphShift(paragraphIndex, width: rect.width)
            var (startIndent, endIndent) = Self.indents(style, firstLine: indentedAsFirst, continuation: continuation, width: lineRect.width, shift: shift,
                                                        base: indentBase)
            var measure = lineRect.width - max(0, startIndent) - max(0, endIndent)
            var filler = LineFiller(analysis: analysis, position: offset - analysis.range.lowerBound)
            let local: Range<Int>
            // The paragraph's plan holds for lines of the full column only.
            if lineRect.width == rect.width, let plan, plan.paragraph == paragraphIndex,
               let end = plannedEnd(after: filler.position, in: plan.ends),
               analysis.lineWidth(filler.position, end) - analysis.shrink(filler.position, end) <= measure + LineFiller.tolerance {
                local = filler.take(to: end)
            } else {
                do {
                    (analysis, filler, local) = try nextLine(from: offset, in: analysis, measure: measure, hyphenAllowed: hyphenAllowed)
                } catch {
                    guard measure < lineRect.width else { throw error }
                    let overflowing = lineRect.width - max(0, startIndent)
                    if shift != (0, 0), startIndent > 0, overflowing > max(0, measure),
                       let line = try? nextLine(from: offset, in: analysis, measure: overflowing, hyphenAllowed: hyphenAllowed) {
                        // In a sized box too narrow for it: the line starts where the box's
                        // lines do and runs past the box's end (CSS's overflow), to the column's.
                        (endIndent, measure) = (0, overflowing)
                        (analysis, filler, local) = line
                    } else {
                        // Something as wide as the column (an image, a long unbreakable cluster) but
                        // not as the indented measure: set that line at the full column width instead.
                        (startIndent, endIndent, measure) = (0, 0, lineRect.width)
                        (analysis, filler, local) = try nextLine(from: offset, in: analysis, measure: measure, hyphenAllowed: hyphenAllowed)
                    }
                }
            }
            return (analysis, filler, local, startIndent, measure)
        }

        // Lines beside floated pictures are shortened by them; where too little room is
        // left beside them, the text goes on below them.
        let estimate = fill.frame.lines.last?.height ?? 0
        var lineRect: Rect
        (lineRect, fill.cursor) = Self.room(beside: fill.frame.floats, in: rect, top: fill.cursor, gap: gap, height: estimate)
        var made = try makeLine(in: lineRect)
        // Pictures floated from this line are placed at its top, and the line made again
        // beside them.
        let lineEnd = made.analysis.range.lowerBound + made.local.upperBound
        let anchored = floatAnchors(in: floatsPlacedThrough..<max(floatsPlacedThrough, lineEnd))
        if !anchored.isEmpty {
            var placedAll = true
            for attachment in anchored {
                guard let placed = place(float: attachment, in: rect, top: fill.cursor + gap, beside: fill.frame.floats) else {
                    placedAll = false
                    break
                }
                fill.frame.floats.append(placed)
            }
            guard placedAll else {
                // Not enough of the column left for the picture: it starts the next
                // column with the line it is anchored in.
                guard !fill.frame.isEmpty else {
                    throw TypesetError(.columnTooSmall, String(format: "a column %.1f pt high cannot hold the floated picture at offset %d", rect.height, offset))
                }
                // Those placed in this round go too.
                fill.frame.floats.removeAll { $0.offset >= floatsPlacedThrough }
                fill.offset = keepingTogether(&fill.frame, next: offset, measure: made.measure)
                rewindFloats(&fill.frame, to: fill.offset)
                return .stopped
            }
            floatsPlacedThrough = lineEnd
            (lineRect, fill.cursor) = Self.room(beside: fill.frame.floats, in: rect, top: fill.cursor, gap: gap, height: estimate)
            made = try makeLine(in: lineRect)
        }
        if !fill.frame.floats.isEmpty {
            // A line taller than estimated may reach a picture lower down: made again in
            // the room its own height leaves (only beside floats: elsewhere every line is
            // built once).
            let trial = TypesetLine(analysis: made.analysis, local: made.local, expansion: nil)
            let height = Self.advance(of: trial, style: style)
            let room = Self.room(beside: fill.frame.floats, in: rect, top: fill.cursor, gap: gap, height: height)
            if room.rect != lineRect || room.top != fill.cursor {
                (lineRect, fill.cursor) = room
                made = try makeLine(in: lineRect)
            }
        }
        analysis = made.analysis
        let (filler, local, startIndent, measure) = (made.filler, made.local, made.startIndent, made.measure)
        let justification = Self.justification(of: local, in: analysis, lastLine: filler.isFinished, measure: measure,
                                               typography: typography)
        let (expansion, loose) = (justification.expansion, justification.loose)
        var line = TypesetLine(analysis: analysis, local: local, expansion: expansion)
        if typography.countsPunctuationFaces { line.punctuationInAnotherFace = analysis.punctuationInAnotherFace(line.range) }
        // Only lines meant to be flush have a badness: a ragged line of code, a heading or
        // a start-aligned line short of the threshold is as it should be. A loose line has
        // the worst, as the optimal breaker scores it.
        if loose {
            line.badness = OptimalBreaker.worstBadness
        } else if expansion != nil {
            line.badness = OptimalBreaker.badness(of: local, in: analysis, measure: measure, isLast: filler.isFinished)
        }

        // Boxes closing after the line put their paddings and borders below it.
        var closing = BoxClosing()
        let height = Self.advance(of: line, style: style)
        if fill.inFlow && filler.isFinished, let boxes = closings(at: paragraphIndex) {
            let earlier = contentTop(from: fill.boxTops, in: rect)
            closing = closeBoxes(boxes, bottom: fill.cursor + gap + height) { box in
                // Boxes opening with this line have their tops in `opening`.
                guard let top = opening.tops.last(where: { $0.box == box }) else { return earlier(box) }
                return fill.cursor + (top.y ?? gap) + self.text.boxes[box].topEdge
            }
        }
        if fill.frame.isEmpty && fill.cursor + gap + height + closing.extent > rect.height + LineFiller.tolerance
            && fill.cursor + height <= rect.height + LineFiller.tolerance {
            // Box edges taller than the column: the line is set at its top, the boxes drawn
            // tight around it.
            (gap, space) = (0, 0)
            fill.frame.squeezedBoxes = true
            opening.tops = opening.tops.map { ($0.box, 0) }
            closing = BoxClosing(bottoms: closing.bottoms.map { ($0.box, 0) }, extent: 0)
        }
        if fill.cursor + gap + height + closing.extent > rect.height + LineFiller.tolerance {
            guard !fill.frame.isEmpty else {
                throw TypesetError(.columnTooSmall, String(format: "a column %.1f pt high cannot hold one line (%.1f pt) of the text at offset %d; make the page taller, the inset smaller or the font smaller", rect.height, height, offset))
            }
            fill.offset = keepingTogether(&fill.frame, next: offset, measure: measure)
            rewindFloats(&fill.frame, to: fill.offset)
            return .stopped
        }
        if first && opening.ruleAbove && opening.placedAbove { fill.frame.rules.append(rect.y + fill.cursor + gap - space / 2) }
        if let rule = opening.rule { fill.frame.rules.append(rect.y + fill.cursor + rule) }
        let top = fill.cursor + gap
        let baseline = Self.baseline(of: line, top: top, height: height)
        let endsBlockOrLine = filler.isFinished || (!local.isEmpty && analysis.breaks[local.upperBound - 1] == .mandatory)
        // In a cell, a list item's marker may hang out of the cell's content box (CSS
        // draws outside markers there); elsewhere lines stay in the column.
        let origin = Self.origin(of: line, in: lineRect, measure: measure, startIndent: !fill.inFlow ? startIndent : max(0, startIndent),
                                 alignment: endsBlockOrLine ? style.lastLineAlignment ?? style.alignment : style.alignment,
                                 rightToLeft: analysis.baseLevel == 1)
        var spaceRatio: Double?
        if let extra = expansion?.spaceExtra {
            let spaces = analysis.stretch(local.lowerBound, local.upperBound)
            let average = spaces.limit / Self.maximumSpaceStretch / Double(max(1, spaces.opportunities))
            spaceRatio = average > 0 ? extra / average : nil
        }
        fill.frame.lines.append((line, origin, rect.y + baseline, rect.y + top, height, loose, continuation, spaceRatio))
        let sameRun = hyphenatedLines.paragraph == paragraphIndex
        hyphenatedLines = (paragraphIndex, line.isHyphenated ? (sameRun ? hyphenatedLines.count : 0) + 1 : 0)
        fill.boxTops += opening.tops.map { ($0.box, rect.y + fill.cursor + ($0.y ?? gap), offset) }
        fill.cursor = top + height
        fill.offset = analysis.range.lowerBound + local.upperBound
        fill.boxBottoms += closing.bottoms.map { ($0.box, rect.y + fill.cursor + $0.y, fill.offset) }
        fill.cursor += closing.extent
        fill.previousSpaceAfter = filler.isFinished ? style.spaceAfter : 0
        return .continued
    }

    /// The margin above paragraph `index`: that of the outermost box with a top border or
    /// padding that opens there (the paragraph's own is inside it), else the paragraph's.
    func marginAbove(paragraph index: Int) -> Double {
        boxOpenings[index]?.lazy.compactMap { self.text.boxes[$0].marginBefore }.first ?? text.paragraphs[index].value.spaceBefore
    }

    /// How far the sized boxes around paragraph `index` move its lines in (`BlockGeometry`) in
    /// a column `width` wide; in a multi-column element's column, not those around the whole
    /// element, whose width the element's columns already share (`boxShift`).
    private func paragraphShift(_ index: Int, width: Double) -> (start: Double, end: Double) {
        if !outerBoxes.isEmpty, let box = geometry.innermostBox(ofParagraph: index), outerBoxes.contains(box) { return (0, 0) }
        return geometry.shift(paragraph: index, width: width)
    }

    /// The content width of paragraph `index`'s block in a column `width` wide: less its
    /// indents and the sized boxes around it. Its pictures fit it (`ParagraphAnalyzer`).
    private func pictureMeasure(_ index: Int, width: Double) -> Double {
        let shift = paragraphShift(index, width: width)
        let indents = Self.indents(text.paragraphs[index].value, firstLine: false, continuation: false, width: width, shift: shift, base: indentBase)
        return max(1, width - max(0, indents.start) - max(0, indents.end))
    }

    /// How far sized box `index` (and the sized boxes around it) moves in from its indents in
    /// a column `width` wide.
    func boxShift(_ index: Int, width: Double) -> (start: Double, end: Double) {
        geometry.shift(box: index, width: width)
    }

    /// The boxes that open at paragraph `index`, outermost first, and those that close at it,
    /// innermost first; those around the multi-column element being filled left out.
    func openings(at index: Int) -> [Int]? {
        outerBoxes.isEmpty ? boxOpenings[index] : boxOpenings[index]?.filter { !outerBoxes.contains($0) }
    }

    func closings(at index: Int) -> [Int]? {
        outerBoxes.isEmpty ? boxClosings[index] : boxClosings[index]?.filter { !outerBoxes.contains($0) }
    }

    /// Two adjoining margins collapsed (CSS 2.1 §8.3.1): the larger positive one plus the more
    /// negative one.
    static func collapsed(_ a: Double, _ b: Double) -> Double {
        max(a, b, 0) + min(a, b, 0)
    }

    /// What the boxes opening at a paragraph put above its first line.
    struct BoxOpening {
        /// The margin still to come above the next box or line, and whether anything is set
        /// above it in the column (else margins go, as at the top of any column).
        var spaceAbove: Double
        var placedAbove: Bool
        /// A rule (`<hr>`) still to be drawn above the next box or line, and where it was
        /// drawn above a box, relative to the cursor: in the box's margin, not inside it.
        var ruleAbove = false
        var rule: Double?
        /// Each box's top relative to the cursor; nil for a box without top border or padding,
        /// whose top is the line's (its margin went into the line's).
        var tops: [(box: Int, y: Double?)] = []
        /// From the cursor to below the last top border and padding.
        var edges = 0.0
    }

    /// The margins, top borders and paddings of `boxes` (outermost first), from the cursor.
    func openBoxes(_ boxes: [Int], _ start: BoxOpening) -> BoxOpening {
        var opening = start
        for index in boxes {
            let box = text.boxes[index]
            guard let margin = box.marginBefore else {
                opening.tops.append((index, nil))
                continue
            }
            if opening.placedAbove {
                var space = Self.collapsed(opening.spaceAbove, margin)
                if opening.ruleAbove {
                    space = max(space, 12)
                    opening.rule = opening.edges + space / 2
                }
                opening.edges += space
            }
            opening.ruleAbove = false
            // Boxes above without their own top edge begin where this one does.
            opening.tops = opening.tops.map { ($0.box, $0.y ?? opening.edges) }
            opening.tops.append((index, opening.edges))
            opening.edges += box.topEdge
            opening.spaceAbove = 0
            opening.placedAbove = true
        }
        return opening
    }

    /// What the boxes closing after a line put below it: each box's bottom relative to the
    /// line's bottom, and the height taken.
    struct BoxClosing {
        var bottoms: [(box: Int, y: Double)] = []
        var extent = 0.0
    }

    /// The inner margins, bottom paddings and borders of `boxes` (innermost first), below
    /// what they hold, which ends at `bottom` (from the rectangle's top); a box with a
    /// `height` or `min-height` taller than what it holds grows to it (CSS 2.1 §10.6.3, §10.7)
    /// when it began in this rectangle (`contentTop`: the top of its content box there).
    func closeBoxes(_ boxes: [Int], bottom: Double, contentTop: (Int) -> Double?) -> BoxClosing {
        var closing = BoxClosing()
        for index in boxes {
            let box = text.boxes[index]
            if box.bottomEdge > 0 || box.clipsOverflow { closing.extent += box.spaceInsideAfter }
            // Sizes are for horizontal text only (`BlockGeometry`).
            let size = box.size
            if !vertical, size.constrainsHeight, let top = contentTop(index) {
                let content = bottom + closing.extent - top
                let grown = size.usedContentHeight(content: content, edges: box.topEdge + box.bottomEdge) - content
                // Content taller than a clipping box's `height` is cut there, not held.
                closing.extent += box.clipsOverflow ? grown : max(0, grown)
            }
            closing.extent += box.bottomEdge
            closing.bottoms.append((index, closing.extent))
        }
        return closing
    }

    /// The top of a box's content box (from `rect`'s top) where `tops` recorded its border
    /// box's top in this fill; nil where it began before.
    func contentTop(from tops: [(box: Int, y: Double, offset: Int)], in rect: Rect) -> (Int) -> Double? {
        { box in tops.last { $0.box == box }.map { $0.y - rect.y + self.text.boxes[box].topEdge } }
    }

    /// The pieces of boxes in a filled rectangle: from the recorded edges of lines still in
    /// it, and open (from the rectangle's top or to its bottom) where a box goes on from the
    /// column before or into the next.
    private func boxPieces(in rect: Rect, range: Range<Int>, tops: [(box: Int, y: Double, offset: Int)],
                           bottoms: [(box: Int, y: Double, offset: Int)]) -> [BoxPiece] {
        guard !range.isEmpty else { return [] }
        func first(_ box: TextBox) -> Int { text.paragraphs[box.paragraphs.lowerBound].range.lowerBound }
        func last(_ box: TextBox) -> Int { text.paragraphs[box.paragraphs.upperBound - 1].range.upperBound }
        // Filled again from further back (not what the typesetter does): scan from the start.
        if range.lowerBound < boxScan.end { boxScan = (0, [], 0) }
        var candidates = boxScan.open
        var next = boxScan.next
        // Boxes are in text order, enclosing ones first.
        while next < text.boxes.count, first(text.boxes[next]) < range.upperBound {
            candidates.append(next)
            next += 1
        }
        boxScan = (range.upperBound, candidates.filter { last(text.boxes[$0]) > range.upperBound }, next)
        var pieces: [BoxPiece] = []
        for index in candidates {
            let box = text.boxes[index]
            guard last(box) > range.lowerBound, !isInsideFloatedBlock(box), !outerBoxes.contains(index) else { continue }
            let beginsHere = first(box) >= range.lowerBound
            let top = tops.first { $0.box == index && $0.offset < range.upperBound && beginsHere }
            let bottom = bottoms.first { $0.box == index && $0.offset <= range.upperBound }
            var left = max(0, box.rightToLeft ? box.endIndent - indentBase.end : box.startIndent - indentBase.start)
            var right = max(0, box.rightToLeft ? box.startIndent - indentBase.start : box.endIndent - indentBase.end)
            if left + right > rect.width / 2 {
                // Cut as the lines' indents are (`indents`), so that deep nesting keeps the box
                // around its lines and inside the column.
                let factor = rect.width / 2 / (left + right)
                (left, right) = (left * factor, right * factor)
            }
            // Then moved in by its size (`BlockGeometry`), as its lines are.
            let shift = geometry.shift(box: index, width: rect.width)
            left = max(0, left + (box.rightToLeft ? shift.end : shift.start))
            right = max(0, right + (box.rightToLeft ? shift.start : shift.end))
            // Inside the rectangle, even where a table with a box's bottom edge runs past it.
            let y = min(max(top?.y ?? rect.y, rect.y), rect.maxY)
            let maxY = min(max(bottom?.y ?? rect.maxY, y), rect.maxY)
            pieces.append(BoxPiece(box: index, rect: Rect(x: rect.x + left, y: y, width: max(0, rect.width - left - right), height: max(0, maxY - y)),
                                   opensHere: top != nil, closesHere: bottom != nil))
        }
        return pieces
    }

    // MARK: - Floated pictures

    /// The floated pictures anchored in `range` (global offsets), in text order.
    private func floatAnchors(in range: Range<Int>) -> [Int] {
        guard !range.isEmpty else { return [] }
        let first = text.attachments.partitioningIndex { $0.offset >= range.lowerBound }
        var found: [Int] = []
        var index = first
        while index < text.attachments.count, text.attachments[index].offset < range.upperBound {
            if text.attachments[index].float != nil { found.append(index) }
            index += 1
        }
        return found
    }

    /// Takes out of `frame` the pictures anchored at or after `next` (their lines went to the
    /// next column: they go with them).
    func rewindFloats(_ frame: inout Frame, to next: Int) {
        frame.floats.removeAll { $0.offset >= next }
        frame.positioned.removeAll { $0.float.offset >= next }
        floatsPlacedThrough = min(floatsPlacedThrough, next)
        // A floated block's lines and boxes go with it.
        frame.lines.removeAll { $0.line.range.lowerBound >= next }
        frame.floatBoxes.removeAll { text.paragraphs[text.boxes[$0.box].paragraphs.lowerBound].range.lowerBound >= next }
    }

    /// Picture `attachment` floated to its side of `rect` with its top at `top` (relative to
    /// the rectangle), beside the pictures already there or, when they leave no room, below
    /// them; nil when the column has no room for it below `top`. In line coordinates: its
    /// extent along the line is its width in horizontal text and its height in vertical text.
    func place(float attachment: Int, in rect: Rect, top: Double, beside floats: [PlacedFloat]) -> PlacedFloat? {
        let side = text.attachments[attachment].float ?? .left
        let box = analyzer.attachmentBox(text.attachments[attachment])
        let (along, across) = vertical ? (box.height, box.width) : (box.width, box.height)
        var y = rect.y + top
        while true {
            let free = Self.freeSpan(beside: floats, in: rect, y: y, depth: across + Self.floatMargin)
            if free.right - free.left >= along - LineFiller.tolerance || free.below == nil {
                guard y + across <= rect.maxY + LineFiller.tolerance else { return nil }
                let x = side == .left ? free.left : free.right - along
                return PlacedFloat(attachment: attachment, offset: text.attachments[attachment].offset, side: side,
                                   rect: Rect(x: x, y: y, width: along, height: across))
            }
            y = free.below!
        }
    }

    /// What the floated pictures reaching into `y ..< y + depth` leave of `rect` across the
    /// line (their margins kept), and the highest foot among them (nil when none reaches in).
    static func freeSpan(beside floats: [PlacedFloat], in rect: Rect, y: Double,
                                 depth: Double) -> (left: Double, right: Double, below: Double?) {
        var (left, right, below) = (rect.x, rect.maxX, Double?.none)
        for float in floats where float.rect.y < y + depth && float.rect.maxY + float.margin > y {
            if float.side == .left { left = max(left, float.rect.maxX + float.margin) } else { right = min(right, float.rect.x - float.margin) }
            below = min(below ?? .infinity, float.rect.maxY + float.margin)
        }
        return (left, right, below)
    }

    /// The part of `rect` a line with its top at `top + gap` (relative) and `height` deep
    /// has beside the floated pictures, and the `top` to set it at: moved below pictures that
    /// leave less than a quarter of the column (at least 36 pt) beside them.
    private static func room(beside floats: [PlacedFloat], in rect: Rect, top: Double, gap: Double,
                             height: Double) -> (rect: Rect, top: Double) {
        guard !floats.isEmpty else { return (rect, top) }
        let minimum = min(rect.width, max(rect.width / 4, 36))
        var top = top
        while true {
            let free = freeSpan(beside: floats, in: rect, y: rect.y + top + gap, depth: max(height, 1))
            guard let below = free.below, free.right - free.left < minimum else {
                return (Rect(x: free.left, y: rect.y, width: free.right - free.left, height: rect.height), top)
            }
            top = below - rect.y - gap
        }
    }

    /// The foot of the pictures floated to `sides`, with their margin (relative to `rect`),
    /// or nil when there are none.
    static func floatsBottom(_ floats: [PlacedFloat], sides: Set<FloatSide>, in rect: Rect) -> Double? {
        floats.filter { sides.contains($0.side) }.map { $0.rect.maxY + $0.margin - rect.y }.max()
    }

    /// Whether paragraph `index` is set across the columns: a table's paragraphs as its first
    /// one is, so that a table is never cut in two by a cell's style. Across the page's
    /// columns (`multicol` nil), a multi-column element's paragraphs are as the element is;
    /// across the element's own (its index in `multicols`), its `column-span: all` blocks.
    func spansColumns(_ index: Int, in multicol: Int? = nil) -> Bool {
        if let element = self.multicol(of: index) {
            let spans = multicols[element].spansColumns
            guard element == multicol else { return spans }
            if spans { return false }
        }
        // Tables are in document order and do not overlap (nested ones are flattened): the
        // first that ends after `index` is the only one that can hold it.
        let candidate = text.tables.partitioningIndex { $0.paragraphs.upperBound > index }
        let owner = candidate < text.tables.count && text.tables[candidate].paragraphs.contains(index)
            ? text.tables[candidate].paragraphs.lowerBound : index
        return text.paragraphs[owner].value.spansColumns
    }

    /// The multi-column element (index in `multicols`) holding paragraph `index`, if any.
    func multicol(of index: Int) -> Int? {
        let candidate = multicols.partitioningIndex { $0.paragraphs.upperBound > index }
        return candidate < multicols.count && multicols[candidate].paragraphs.contains(index) ? candidate : nil
    }

    /// Whether paragraph `index` is in a floated block set as a float (it is set whole, so
    /// nothing of it is kept with what follows).
    private func isInFloatedBlock(_ index: Int) -> Bool {
        let candidate = text.floats.partitioningIndex { $0.paragraphs.upperBound > index }
        return candidate < text.floats.count && text.floats[candidate].paragraphs.contains(index) && !inFlowFloats.contains(candidate)
    }

    /// Whether `box` is inside a block set as a float, whose own framesetter draws it.
    private func isInsideFloatedBlock(_ box: TextBox) -> Bool {
        let candidate = text.floats.partitioningIndex { $0.paragraphs.upperBound > box.paragraphs.lowerBound }
        guard candidate < text.floats.count, !inFlowFloats.contains(candidate) else { return false }
        let block = text.floats[candidate].paragraphs
        return block.lowerBound <= box.paragraphs.lowerBound && box.paragraphs.upperBound <= block.upperBound
    }

    /// Whether paragraph `index` is a table cell's.
    private func isInTable(_ index: Int) -> Bool {
        text.tables.contains { $0.paragraphs.contains(index) }
    }

    /// A table's paragraph's content widths, as its layouter asks (`TableLayouter`): the
    /// widest piece between two break opportunities (CSS's min-content width), the widest
    /// line between forced breaks (max-content), and the widest cluster (what a line broken
    /// anywhere still needs), each with the paragraph's indents. A paragraph longer than an
    /// analysis window is measured over its first window.
    ///
    /// Automatic hyphenation points do not narrow the min-content width (soft hyphens do):
    /// counting them let a column of prose, whose words can be hyphenated, give its width to
    /// columns of code and names, which cannot. On Debian's German `debian-reference`
    /// chapter 2, its tables grew from 29,472 pt to 40,917 pt deep (58 pages to 68) once the
    /// text was hyphenated; the cells are still hyphenated when set.
    func contentWidths(ofParagraph index: Int) throws(TypesetError) -> (minimum: Double, maximum: Double, cluster: Double) {
        let analysis = try analysis(of: index, at: text.paragraphs[index].range.lowerBound)
        let count = analysis.exactCount
        var minimum = 0.0, maximum = 0.0, cluster = 0.0
        var piece = 0, line = 0, clusterStart = 0
        for i in 0..<count {
            if i + 1 == count || analysis.clusterStart[i + 1] {
                cluster = max(cluster, analysis.width(clusterStart, i + 1))
                clusterStart = i + 1
            }
            let opportunity = analysis.breaks[i]
            let automaticHyphen = opportunity == .hyphen && analysis.scalars[analysis.range.lowerBound + i] != "\u{00AD}"
            if (opportunity != .prohibited && !automaticHyphen) || i + 1 == count {
                minimum = max(minimum, analysis.lineWidth(piece, i + 1))
                piece = i + 1
            }
            if opportunity == .mandatory || i + 1 == count {
                maximum = max(maximum, analysis.lineWidth(line, i + 1))
                line = i + 1
            }
        }
        let style = analysis.style
        let indents = max(0, style.startIndent) + max(0, style.endIndent)
        return (minimum + indents + max(0, style.firstLineIndent), maximum + indents + max(0, style.firstLineIndent), cluster + indents)
    }

    /// The forced break (`column` or `page`) between paragraph `index` and the one before it.
    func forcedBreak(before index: Int) -> BlockBreak? {
        var kind = text.paragraphs[index].value.breakBefore
        if index > 0 { kind = kind.combined(with: text.paragraphs[index - 1].value.breakAfter) }
        return kind == .column || kind == .page ? kind : nil
    }

    /// Where the next column starts, after moving the frame's last lines into it as the break
    /// rules ask, with `next` (global) the first line that did not fit:
    ///
    /// - `orphans`: a paragraph broken across the columns leaves at least that many lines here,
    ///   else it goes to the next column whole; `break-inside: avoid` sends it whole (one
    ///   longer than the column breaks after all, with its widows and orphans).
    /// - `widows`: it carries at least that many to the next column (as many as a line filler
    ///   counts at this measure), taken from here when enough stay.
    /// - `break-after: avoid` (headings) and `break-before: avoid`: a paragraph whose next one
    ///   starts in the next column goes with it.
    ///
    /// A rule that would empty the column yields, and is counted in `breakExceptions`.
    func keepingTogether(_ frame: inout Frame, next: Int, measure: Double) -> Int {
        var next = next
        var brokenInsideAfterAll = false
        while true {
            let paragraphIndex = text.paragraphIndex(at: next)
            let paragraph = text.paragraphs[paragraphIndex]
            let style = paragraph.value
            var move = 0
            if next > paragraph.range.lowerBound {
                // Broken inside a paragraph: lines of it here, and at least how many follow.
                let here = frame.lines.reversed().prefix { $0.line.range.lowerBound >= paragraph.range.lowerBound }.count
                if style.avoidBreakInside && here >= frame.lines.count && here >= style.orphans {
                    // `break-inside: avoid` on a block longer than the column (a long `<pre>`):
                    // it breaks after all, counted once, and still carries its widows.
                    if !brokenInsideAfterAll { frame.breakExceptions += 1 }
                    brokenInsideAfterAll = true
                }
                if (style.avoidBreakInside && !brokenInsideAfterAll) || here < style.orphans {
                    move = here
                } else if style.widows > 1 {
                    let following = linesLeft(of: paragraphIndex, from: next, measure: measure, upTo: style.widows)
                    if following < style.widows {
                        move = here - (style.widows - following) >= style.orphans ? style.widows - following : here
                    }
                }
            } else if paragraphIndex > 0 && !isInTable(paragraphIndex - 1) && !isInFloatedBlock(paragraphIndex - 1) {
                // Between paragraphs: keep the one before with this one when either asks (a
                // table's last cell stays in its table).
                let before = text.paragraphs[paragraphIndex - 1]
                if before.value.breakAfter == .avoid || style.breakBefore == .avoid {
                    move = frame.lines.reversed().prefix { $0.line.range.lowerBound >= before.range.lowerBound }.count
                }
            }
            guard move > 0 else { return next }
            guard move < frame.lines.count else {
                if !brokenInsideAfterAll { frame.breakExceptions += 1 }
                return next
            }
            let kept = frame.lines.count - move
            next = frame.lines[kept].line.range.lowerBound
            // A rule above the lines moved goes with them, also one drawn above a box they open.
            let bottom = frame.lines[kept - 1].top + frame.lines[kept - 1].height
            frame.lines.removeLast(move)
            frame.rules.removeAll { $0 >= bottom }
            hyphenatedLines = (-1, 0)
        }
    }

    /// How many lines are left of paragraph `index` from global offset `start`, counting at
    /// most `limit`, as a greedy line filler sets them at `measure`.
    private func linesLeft(of index: Int, from start: Int, measure: Double, upTo limit: Int) -> Int {
        guard var analysis = try? analysis(of: index, at: start) else { return limit }
        var offset = start
        var count = 0
        while count < limit, offset < text.paragraphs[index].range.upperBound {
            guard let line = try? nextLine(from: offset, in: analysis, measure: measure, hyphenAllowed: true) else { return limit }
            analysis = line.0
            offset = analysis.range.lowerBound + line.2.upperBound
            count += 1
        }
        return count
    }

    /// A line's start and end indents in a column `width` wide. Together they take at most
    /// half the column, so deep nesting in a narrow column still leaves room for text.
    /// `shift`: how far the sized boxes around the paragraph move its lines in
    /// (`BlockGeometry`), added after that cut.
    /// `base`: the indents of the content box of the multi-column element whose column is
    /// filled, taken off.
    private static func indents(_ style: ParagraphStyle, firstLine: Bool, continuation: Bool, width: Double,
                                shift: (start: Double, end: Double) = (0, 0),
                                base: (start: Double, end: Double) = (0, 0)) -> (start: Double, end: Double) {
        var start = style.startIndent - base.start + (firstLine ? style.firstLineIndent : 0) + (continuation ? style.continuationIndent : 0)
        let end = style.endIndent - base.end
        if style.textIndentFraction != 0 {
            // Of the paragraph's block: the column less the indents and sized boxes around it.
            let block = max(0, width - max(0, style.startIndent - base.start) - max(0, end) - shift.start - shift.end)
            if firstLine != style.textIndentHangs { start += style.textIndentFraction * block }
        }
        let total = max(0, start) + max(0, end)
        guard total > width / 2 else { return (start + shift.start, end + shift.end) }
        let factor = width / 2 / total
        return (start * factor + shift.start, end * factor + shift.end)
    }

    /// The planned line end after `position`, when `position` is where a planned line began.
    private func plannedEnd(after position: Int, in ends: [Int]) -> Int? {
        guard position == 0 || ends.contains(position) else { return nil }
        return ends.first { $0 > position }
    }

    /// How a line is spread to the measure: its expansion, or why it keeps a ragged end where
    /// its paragraph is meant to be flush (`loose`: its spaces would pass their limit and the
    /// layout's letter spacing; `shortOfThreshold`: a start-aligned line under the threshold).
    struct Justification {
        var expansion: TypesetLine.Expansion?
        var loose = false
        var shortOfThreshold = false

        /// A ragged end in the middle of a paragraph meant to be flush: what the optimal
        /// breaker avoids before anything else.
        var isRagged: Bool { loose || shortOfThreshold }
    }

    /// How a line is spread to the measure, and whether it was left ragged for want of
    /// stretch.
    ///
    /// Never the last line of a paragraph, a line that ends in a forced break, or a line of a
    /// paragraph that is not `justifiable` (headings, preformatted text). A justified
    /// paragraph spreads every other line; a start- or left-aligned one the lines at least
    /// `justifyThreshold` of the measure long. Slack goes to the word separators, or, on a
    /// line of ideographs, between its clusters; a line of other text whose spaces would grow
    /// beyond `maximumSpaceStretch` (or that has none) stays ragged.
    /// The optimal breaker asks it of the lines it considers, so that both agree on which
    /// lines are left ragged.
    static func justification(of local: Range<Int>, in analysis: ParagraphAnalysis, lastLine: Bool,
                              measure: Double, typography: ArticleLayout.Typography) -> Justification {
        guard !local.isEmpty else { return Justification() }
        let natural = analysis.lineWidth(local.lowerBound, local.upperBound)
        if natural > measure + LineFiller.tolerance {
            // Taken because its spaces shrink: it is set shrunk, even as a last line.
            let stretch = analysis.stretch(local.lowerBound, local.upperBound)
            guard stretch.opportunities > 0, !stretch.betweenClusters else { return Justification() }
            return Justification(expansion: .spaces((measure - natural) / Double(stretch.opportunities)))
        }
        let slack = max(0, measure - natural)
        if lastLine || analysis.breaks[local.upperBound - 1] == .mandatory {
            // `text-align-last: justify`: spread however far it takes, as CSS does.
            guard analysis.style.lastLineAlignment == .justify, analysis.style.justifiable else { return Justification() }
            let stretch = analysis.stretch(local.lowerBound, local.upperBound)
            guard stretch.opportunities > 0 else { return Justification() }
            return Justification(expansion: stretch.betweenClusters ? .clusters(slack / Double(stretch.opportunities))
                                                                   : .spaces(slack / Double(stretch.opportunities)))
        }
        guard analysis.style.justifiable else { return Justification() }
        switch analysis.style.alignment {
        case .justify: break
        case .start, .left:
            guard typography.justifyThreshold < 1 else { return Justification() }
            guard natural >= typography.justifyThreshold * measure else { return Justification(shortOfThreshold: true) }
        case .right, .center: return Justification()
        }
        let stretch = analysis.stretch(local.lowerBound, local.upperBound)
        if stretch.betweenClusters {
            guard stretch.opportunities > 0 else { return Justification(loose: true) }
            return Justification(expansion: .clusters(slack / Double(stretch.opportunities)))
        }
        if stretch.opportunities > 0, slack <= stretch.limit + LineFiller.tolerance {
            return Justification(expansion: .spaces(slack / Double(stretch.opportunities)))
        }
        // The spaces at their limit, the rest between letters, up to the layout's letter
        // spacing (as a compositor's letter-spacing range): else too loose, left ragged.
        let spaces = stretch.opportunities > 0 ? stretch.limit : 0
        let rest = slack - spaces
        guard typography.maximumLetterSpacing > 0 else { return Justification(loose: true) }
        let letters = analysis.letterGaps(local.lowerBound, local.upperBound)
        guard letters.count > 0, rest <= letters.room * typography.maximumLetterSpacing + LineFiller.tolerance else {
            return Justification(loose: true)
        }
        return Justification(expansion: .spacesAndLetters(spaces / Double(max(1, stretch.opportunities)), rest / Double(letters.count)))
    }

    /// The x where a line's visible content starts.
    /// How far a line advances the column: its natural height times the paragraph's line
    /// height (a line of only pictures keeps its own height), and never less than its largest
    /// font's size when the line height is an inherited length (`lineHeightAtLeastText`).
    /// With a CSS line height, the line box's height from its inline boxes' leading instead.
    static func advance(of line: TypesetLine, style: ParagraphStyle) -> Double {
        guard !line.holdsOnlyBoxes else { return line.naturalHeight }
        let height = content(of: line).map { max(0, $0.above + $0.below) } ?? line.naturalHeight * style.lineHeight
        return style.lineHeightAtLeastText ? max(height, line.runs.reduce(0) { max($0, $1.style.size) }) : height
    }

    /// The line's baseline when it takes `height` from `top`: its content (the line box of
    /// its inline boxes, or its natural height) centred in that height.
    static func baseline(of line: TypesetLine, top: Double, height: Double) -> Double {
        if let leading = content(of: line) { return top + (height - leading.above - leading.below) / 2 + leading.above }
        return top + (height - line.naturalHeight) / 2 + line.ascent
    }

    /// The CSS line box's extent about the baseline, when the line has one.
    private static func content(of line: TypesetLine) -> (above: Double, below: Double)? {
        line.holdsOnlyBoxes ? nil : line.leading
    }

    private static func origin(of line: TypesetLine, in rect: Rect, measure: Double, startIndent: Double,
                               alignment: TextAlignment, rightToLeft: Bool) -> Double {
        let slack = max(0, measure - line.width)
        let left = rightToLeft ? rect.maxX - startIndent - measure : rect.x + startIndent
        switch alignment {
        case .left: return left
        case .right: return left + slack
        case .center: return left + slack / 2
        case .start, .justify: return rightToLeft ? left + slack : left
        }
    }

    /// The greedy line from global `offset`, found in `analysis` or, when the line could reach
    /// past what that window knows, in longer ones, which then become the current analysis.
    private func nextLine(from offset: Int, in analysis: ParagraphAnalysis, measure: Double,
                          hyphenAllowed: Bool) throws(TypesetError) -> (ParagraphAnalysis, LineFiller, Range<Int>) {
        if cancellation?.isCancelled == true { throw TypesetError(.cancelled, "typesetting was stopped") }
        var analysis = analysis
        while true {
            var filler = LineFiller(analysis: analysis, position: offset - analysis.range.lowerBound)
            if let local = try filler.nextLine(measure: measure, hyphenAllowed: hyphenAllowed,
                                               fragments: (typography.hyphenateBefore, typography.hyphenateAfter)) {
                if let hyphen = filler.emergencyHyphen {
                    analysis.markHyphen(after: local.upperBound - 1, hyphen)
                    wordsCut.insert(analysis.range.lowerBound + local.upperBound)
                }
                return (analysis, filler, local)
            }
            analysis = try self.analysis(of: text.paragraphIndex(at: offset), at: offset, knowingBeyond: analysis.exactEnd)
        }
    }

    /// An analysis of `paragraph` that starts at or before global `offset` and knows it
    /// exactly, and knows more than `knowingBeyond` (global) unless it reaches the paragraph's
    /// end: the current one when it does, else a window started at the last restart point
    /// before `offset`, twice as long each time that is not enough.
    private func analysis(of paragraph: Int, at offset: Int, knowingBeyond known: Int? = nil) throws(TypesetError) -> ParagraphAnalysis {
        func suffices(_ analysis: ParagraphAnalysis) -> Bool {
            analysis.range.lowerBound <= offset
                && (analysis.reachesParagraphEnd || (offset < analysis.exactEnd && known.map { analysis.exactEnd > $0 } ?? true))
        }
        var analysis: ParagraphAnalysis
        if let current, current.index == paragraph, current.analysis.range.lowerBound <= offset {
            analysis = current.analysis
            if suffices(analysis) { return analysis }
        } else {
            analysis = try analyzer.analyze(paragraph: paragraph, length: firstWindow(of: paragraph))
        }
        var length = analyzer.window
        while !suffices(analysis) {
            let restart = analysis.restartPoint(atOrBefore: min(offset, analysis.exactEnd))
            // Started again where it started, a window sees more only by being longer.
            if restart == analysis.range.lowerBound { length = max(length, analysis.range.count * 2) }
            analysis = try analyzer.analyze(paragraph: paragraph, from: analysis.resumption(at: restart), length: length)
        }
        current = (paragraph, analysis)
        return analysis
    }

    /// How much of a paragraph its first analysis takes: all of it, with optimal line breaking,
    /// up to `OptimalBreaker.maximumLength` characters, whatever the analysis window, so that
    /// the plan does not depend on it.
    private func firstWindow(of paragraph: Int) -> Int {
        let count = text.paragraphs[paragraph].range.count
        return typography.lineBreaking == .optimal && count <= OptimalBreaker.maximumLength ? max(count, analyzer.window) : analyzer.window
    }
}
