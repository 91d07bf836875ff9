import GalleyRaster

/// Lays an article out page after page: each page is a cascade of the layout's column
/// rectangles filled by the framesetter, until the text is used up.
///
/// Pages are made on demand (`nextPage`), so a long book costs one paragraph's analysis and
/// the pages in flight, not the whole book. Not thread-safe: one thread at a time, handed over
/// between operations; the pages it makes are immutable and drawn anywhere.
public final class ArticleTypesetter {
    public let text: AttributedText
    public let layout: ArticleLayout
    private let framesetter: Framesetter
    private let glyphCache: GlyphCache
    private let images: AttachmentImages
    /// What the inline-blocks draw, by attachment index (`InlineBlockLayouter`).
    private let inlineBlocks: [Int: InlineBlockLayouter.Drawing]
    /// Where the next page's text begins, and pages made so far (blank ones included).
    private(set) var offset = 0
    var pagesMade = 0
    /// The article's and the layout's paged media: margin boxes, blank pages; nil when none.
    private var dresser: PageDresser?
    /// How far the next page's text area is moved from `pageLayout`'s: by margins of `@page
    /// :left`, `:right` or `:first` that keep its size (`PageDresser`).
    var pageOffset = (x: 0.0, y: 0.0)
    /// The next page's size and columns: the layout's, or a named page's (`@page chapter`,
    /// `PageDresser`).
    var pageLayout: ArticleLayout {
        didSet { framesetter.columnExtent = FlowMapping(column: pageLayout.columnRects[0], mode: layout.writingMode).flowRect.height }
    }

    /// The next page's columns: `pageLayout`'s, moved by `pageOffset`.
    private var pageColumnRects: [Rect] {
        pageLayout.columnRects.map { Rect(x: $0.x + pageOffset.x, y: $0.y + pageOffset.y, width: $0.width, height: $0.height) }
    }

    /// - Parameter images: decoded pictures by attachment source. An attachment with a picture
    ///   is sized by it (when the markup leaves a dimension open) and shows it; one without
    ///   shows a placeholder box.
    public convenience init(text: AttributedText, layout: ArticleLayout, fonts: FontLibrary,
                            images: AttachmentImages = [:]) throws(TypesetError) {
        try self.init(text: text, layout: layout, fonts: fonts, images: images, analysisWindow: Framesetter.defaultAnalysisWindow)
    }

    /// As the public initializer, with paragraphs longer than `analysisWindow` characters
    /// analysed in windows that long: tests make it small to check that windows set the same
    /// pages.
    package init(text: AttributedText, layout: ArticleLayout, fonts: FontLibrary, images: AttachmentImages = [:],
                 analysisWindow: Int) throws(TypesetError) {
        // The article's `@page` size and margins replace the layout's.
        let layout = text.pagedMedia.pageLayout(layout)
        if let problem = layout.problem { throw TypesetError(.columnTooSmall, "layout \(layout.name): \(problem)") }
        let named = text.pagedMedia.namedPageLayouts(layout)
        if let (name, problem) = named.lazy.compactMap({ page in page.layout.problem.map { (page.name, $0) } }).first {
            throw TypesetError(.columnTooSmall, "layout \(layout.name), @page \(name): \(problem)")
        }
        // Pictures and inline-blocks are sized to fit the smallest column any page has.
        let columns = [layout] + named.map(\.layout)
        let maximumBox = (columns.map(\.columnWidth).min()!, columns.map(\.columnHeight).min()!)
        let (sized, inlineBlocks) = InlineBlockLayouter(layout: layout, fonts: fonts, images: images).layOut(text.sizingAttachments(by: images))
        let text = FirstLineStyler(layout: layout, fonts: fonts, images: images).styled(sized)
        self.text = text
        self.inlineBlocks = inlineBlocks
        self.images = images
        self.layout = layout
        self.pageLayout = layout
        self.glyphCache = fonts.glyphCache
        self.framesetter = Framesetter(text: text, fonts: fonts, maximumBox: maximumBox,
                                       typography: layout.typography, vertical: layout.writingMode.isVertical,
                                       analysisWindow: analysisWindow)
        framesetter.columnExtent = FlowMapping(column: layout.columnRects[0], mode: layout.writingMode).flowRect.height
        // Vertical pages still drop it: their references in the CSS reftests
        // (`sizing-orthog-vrl-in-htb-*`) moved off their tests' boxes when it was kept.
        framesetter.keepsFirstMargin = !layout.writingMode.isVertical
        dresser = PageDresser(text: text, layout: layout, fonts: fonts)
    }

    /// Cancelled, it stops typesetting between lines with a `cancelled` error: how
    /// `page_timeout` and Ctrl-C reach an article being set.
    public var cancellation: Cancellation? {
        get { framesetter.cancellation }
        set { framesetter.cancellation = newValue }
    }

    /// Whether every character has been placed.
    public var isFinished: Bool { offset >= text.count }

    /// Characters no installed font covers, with counts, in the pages made so far.
    public var uncoveredCharacters: [Unicode.Scalar: Int] { framesetter.uncoveredCharacters }

    /// Tables set smaller, or wrapped inside words, to fit their column, or set as
    /// paragraphs because nothing could, in the pages made so far.
    public var tableWarnings: [String] { framesetter.allTableWarnings }

    /// Words too wide for their line, cut inside with a hyphen, in the pages made so far.
    public var wordsCut: Int { framesetter.wordsCut.count }

    /// Languages of text to hyphenate that no dictionary covers ("" for text without a
    /// language), in the pages made so far.
    public var unhyphenatedLanguages: Set<String> { framesetter.unhyphenatedLanguages }

    /// One rectangle the framesetter filled on a page: a column, or a band across all of
    /// them for blocks that span the columns, cut to the part of the page it was given.
    private struct Fill {
        var flow: FlowMapping
        var rect: Rect
        var frame: Framesetter.Frame
        /// The multi-column element whose column this is (`Framesetter.multicols`), if any.
        var multicol: Int?
    }

    /// The page's columns as the framesetter fills them: `FlowMapping`s and their rectangles
    /// in line coordinates, from block offset `top` down, `extent` deep (nil: to the foot).
    private func columnRects(top: Double, extent: Double?) -> [(flow: FlowMapping, rect: Rect)] {
        pageColumnRects.map { column in
            let flow = FlowMapping(column: column, mode: layout.writingMode)
            return (flow, flow.flowRect.band(from: top, extent: extent))
        }
    }

    /// The whole text area, as one rectangle for blocks that span the columns.
    private var textArea: FlowMapping {
        let rects = pageColumnRects
        let (x, y) = (rects.map(\.x).min()!, rects.map(\.y).min()!)
        let area = Rect(x: x, y: y, width: rects.map(\.maxX).max()! - x, height: rects.map(\.maxY).max()! - y)
        return FlowMapping(column: area, mode: layout.writingMode)
    }

    /// Whether the text at `offset` is set across the columns (nil on a one-column page).
    private func spanning(at offset: Int) -> Bool? {
        guard layout.columns > 1 else { return nil }
        return framesetter.spansColumns(text.paragraphIndex(at: offset))
    }

    /// The column height (block extent, in line coordinates) that balances the columns
    /// filled from block offset `top`, or nil to fill them to the page's foot.
    ///
    /// Columns are balanced when what they hold ends on this page: before a block that spans
    /// the columns (always, as CSS balances the content before a spanner), or at the end of
    /// the article (with `column-fill: balance`, the default), by `ColumnBalancer`.
    private func balancedExtent(top: Double) -> Double? {
        guard layout.columns > 1 else { return nil }
        let room = FlowMapping(column: pageLayout.columnRects[0], mode: layout.writingMode).flowRect.height - top
        return ColumnBalancer.balancedExtent(room: room, columns: layout.columns, fill: layout.columnFill) { extent in
            let trial = BlockLayouter(framesetter: framesetter.copy())
            let rects = columnRects(top: top, extent: extent).map(\.rect)
            return ColumnBalancer.trial(columns: rects.count, from: offset, finished: { $0 >= self.text.count }) { index, position in
                let rect = rects[index]
                guard let filled = try? trial.fill(rect, from: position, pageStart: index == 0 && top == 0, spanning: false) else { return nil }
                return ColumnBalancer.Column(end: filled.end, exceptions: filled.breakExceptions, depth: (filled.bottom ?? rect.y) - rect.y,
                                             beforeSpanner: filled.spanChange, atEnd: false, pageBreak: filled.pageBreak)
            }
        }
    }

    /// The rectangles of the next page, filled: columns from the top, and where a block
    /// spans the columns, the columns above balanced, the block across the text area, and
    /// columns again below it, until the page is full, a page break, or the end.
    private func fillPage() throws(TypesetError) -> [Fill] {
        var fills: [Fill] = []
        let full = FlowMapping(column: pageLayout.columnRects[0], mode: layout.writingMode).flowRect.height
        var top = 0.0
        let blocks = BlockLayouter(framesetter: framesetter)
        while !isFinished {
            let spanning = spanning(at: offset)
            var segment: [Fill] = []
            var goesOn = false
            if spanning == true {
                let flow = textArea
                let rect = flow.flowRect.band(from: top, extent: nil)
                let filled: BlockLayouter.Result
                do {
                    filled = try blocks.fill(rect, from: offset, pageStart: fills.isEmpty, spanning: true)
                } catch {
                    // Not one line of it fits below the columns: it starts the next page.
                    if top > 0 { break }
                    throw error
                }
                segment += filled.pieces.map { Fill(flow: flow, rect: $0.rect, frame: $0.frame, multicol: $0.multicol) }
                offset = filled.end
                goesOn = filled.spanChange && !filled.pageBreak
            } else {
                let extent = balancedExtent(top: top)
                for (index, (flow, rect)) in columnRects(top: top, extent: extent).enumerated() where !isFinished {
                    let filled: BlockLayouter.Result
                    do {
                        filled = try blocks.fill(rect, from: offset, pageStart: fills.isEmpty && index == 0, spanning: spanning)
                    } catch {
                        if top > 0 { break }
                        throw error
                    }
                    segment += filled.pieces.map { Fill(flow: flow, rect: $0.rect, frame: $0.frame, multicol: $0.multicol) }
                    offset = filled.end
                    if filled.pageBreak { break }
                    if filled.spanChange { goesOn = true; break }
                }
            }
            if goesOn, let foot = segment.compactMap(\.frame.bottom).max() {
                // Boxes going on below the change end, level, at the segment's deepest content,
                // as a box's pieces in a row of columns do.
                for index in segment.indices { segment[index].frame.cutOpenBoxes(at: foot) }
            }
            fills += segment
            guard goesOn, !isFinished else { break }
            // Below the deepest of the segment's rectangles, with the larger of the margins
            // on either side of the change.
            let origin = FlowMapping(column: pageColumnRects[0], mode: layout.writingMode).flowRect.y
            let bottom = segment.map { ($0.frame.bottom ?? $0.rect.y) - origin }.max() ?? top
            let before = text.paragraphs[text.paragraphIndex(at: offset - 1)].value.spaceAfter
            let after = framesetter.marginAbove(paragraph: text.paragraphIndex(at: offset))
            top = bottom + max(before, after)
            if top >= full { break }
        }
        return fills
    }

    /// The next page, or nil when the text is used up: dressed with its margin boxes when the
    /// article or the layout gives any (`PageDresser`).
    public func nextPage() throws(TypesetError) -> TypesetPage? {
        guard let dresser else { return try layOutPage() }
        return try dresser.nextPage(of: self)
    }

    /// The next page as the columns hold it, or nil when the text is used up.
    func layOutPage() throws(TypesetError) -> TypesetPage? {
        guard !isFinished else { return nil }
        var columns: [ColumnFrame] = []
        var attachments: [AttachmentFrame] = []
        var runs: [GlyphRun] = []
        var rects: [FilledRect] = []
        var placedImages: [PlacedImage] = []
        let vertical = layout.writingMode.isVertical
        var breakExceptions = 0
        /// Attachment `index`'s picture in `rect` (page coordinates), or, when it has none
        /// (refused, missing or undecodable), a placeholder: a light fill with a border.
        func draw(attachment index: Int, in rect: Rect) {
            guard !text.attachments[index].isHidden else { return }
            if let inlineBlock = inlineBlocks[index] {
                inlineBlock.place(in: rect, runs: &runs, rects: &rects, images: &placedImages)
            } else if let image = images[text.attachments[index].source] {
                placedImages.append(PlacedImage(rect: rect, image: image))
            } else {
                rects.append(FilledRect(rect: rect, color: RGBColor(r: 200, g: 200, b: 200)))
                let inner = Rect(x: rect.x + 1, y: rect.y + 1, width: max(0, rect.width - 2), height: max(0, rect.height - 2))
                rects.append(FilledRect(rect: inner, color: RGBColor(r: 238, g: 238, b: 238)))
            }
        }
        for fill in try fillPage() {
            // The framesetter filled the rectangle in line coordinates; `flow` puts it on the page.
            let (flow, rect) = (fill.flow, fill.rect)
            var frame = fill.frame
            // Positioned blocks moved, and what is positioned or clipped marked for drawing.
            let positions = FramePositions(frame: &frame, text: text, pageArea: textArea.flowRect, vertical: vertical)
            func mark() -> FramePositions.Mark { FramePositions.Mark(runs: runs.count, rects: rects.count, images: placedImages.count) }
            let columnIndex = columns.count
            let columnAttachments = attachments.count
            breakExceptions += frame.breakExceptions
            var lines: [LineBox] = []
            // Blocks' boxes (enclosing ones first), then table backgrounds and borders, so that
            // text is drawn over them.
            for piece in frame.boxes where !text.boxes[piece.box].isHidden {
                let start = mark()
                rects += piece.rects(of: text.boxes[piece.box], images: images).map { $0.moved(to: flow.rect($0.rect)) }
                positions.decorate(runs: &runs, rects: &rects, images: &placedImages, since: start, box: piece.box)
            }
            rects += frame.columnRules.map { $0.moved(to: flow.rect($0.rect)) }
            // Tables' borders to whole pixels, as blocks' boxes (`BoxPiece.rects`).
            rects += frame.tableRects.map { rect in
                var moved = rect.moved(to: flow.rect(rect.rect))
                moved.snapsToPixels = true
                return moved
            }
            // Repeated header rows are drawn like the other lines but not listed: their text
            // is counted where it was first set.
            for (lineIndex, placed) in (frame.lines + frame.repeatedLines).enumerated() {
                let line = placed.line
                let start = mark()
                defer { positions.decorate(runs: &runs, rects: &rects, images: &placedImages, since: start, offset: line.range.lowerBound) }
                if lineIndex < frame.lines.count {
                    lines.append(LineBox(range: line.range,
                                     rect: flow.rect(Rect(x: placed.origin, y: placed.top, width: line.width, height: placed.height)),
                                     baseline: vertical ? flow.point(0, placed.baseline).x : placed.baseline,
                                     isJustified: line.expansion != nil,
                                     isHyphenated: line.isHyphenated, isLoose: placed.loose,
                                     isWrappedPreformatted: placed.continuation, spaceRatio: placed.spaceRatio,
                                     clusterGap: line.expansion.flatMap { if case .clusters(let gap) = $0 { gap } else { nil } },
                                         letterGap: line.expansion?.letterExtra,
                                         badness: line.badness))
                    lines[lines.count - 1].textSize = line.runs.reduce(0) { max($0, $1.style.size) }
                    lines[lines.count - 1].punctuationInAnotherFace = line.punctuationInAnotherFace
                }
                if placed.continuation, let marker = layout.typography.continuationMarker, let first = line.runs.first,
                   let glyph = first.face.glyph(for: marker) {
                    // In the hanging indent, where the source line it continues began.
                    let indent = text.paragraphs[text.paragraphIndex(at: line.range.lowerBound)].value.continuationIndent
                    runs.append(GlyphRun(face: first.face, size: first.style.size, color: first.style.color, orientation: first.orientation,
                                         glyphs: [glyph], positions: [flow.point(placed.origin - indent, placed.baseline)]))
                }
                for run in line.runs where !run.style.isHidden {
                    // Where `position: relative` moves it (not in vertical text).
                    let (dx, dy) = vertical ? (0, 0) : (run.style.relativeX, run.style.relativeY)
                    if let background = run.style.background, run.x1 > run.x0 {
                        // Behind the run's glyphs (rects are drawn before glyphs), the face's
                        // ascender to its descender from the shifted baseline, in whole CSS
                        // pixels and painted to whole pixels as a browser paints it, so that it
                        // covers the rows its glyphs do; in vertical text the em box around the
                        // line's centre.
                        let size = run.style.size
                        let (above, below) = vertical ? (size / 2, size / 2)
                            : (TypesetLine.wholePixels(run.face.ascender * size), TypesetLine.wholePixels(run.face.descender * size))
                        let box = Rect(x: placed.origin + run.x0 + dx, y: placed.baseline + dy - run.style.baselineShift - above,
                                       width: run.x1 - run.x0, height: above + below)
                        rects.append(FilledRect(rect: flow.rect(box), color: background, snapsToPixels: !vertical))
                    }
                    runs.append(GlyphRun(face: run.face, size: run.style.size, color: run.style.color, orientation: run.orientation,
                                         glyphs: run.glyphs,
                                         positions: run.positions.map { flow.point(placed.origin + dx + $0.x, placed.baseline + dy + $0.y) },
                                         clusters: run.clusters, text: run.text, link: run.style.link))
                    // Lines through the run, at the face's underline or strikeout offset from
                    // the (shifted) baseline, as thick as its underline. In vertical text the
                    // underline goes on the right of the line (over, as Japanese sets it) and
                    // the strikethrough through its middle.
                    let size = run.style.size
                    let thickness = max(0.5, run.face.underlineThickness * size)
                    let baseline = placed.baseline + dy - run.style.baselineShift
                    var offsets: [Double] = []
                    if run.style.underline { offsets.append(vertical ? -size / 2 - thickness : run.face.underlinePosition * size) }
                    if run.style.strikethrough { offsets.append(vertical ? 0 : -run.face.strikeoutPosition * size) }
                    for offset in offsets {
                        let through = Rect(x: placed.origin + run.x0 + dx, y: baseline + offset - thickness / 2, width: run.x1 - run.x0, height: thickness)
                        rects.append(FilledRect(rect: flow.rect(through), color: run.style.color))
                    }
                }
                // Floated pictures are placed by the framesetter, not in their lines.
                for box in line.boxes where text.attachments[box.attachment].float == nil && !text.attachments[box.attachment].isSpacer {
                    let style = text.styleRuns[text.styleRunIndex(at: box.offset)].value
                    let (dx, dy) = vertical ? (0, 0) : (style.relativeX, style.relativeY)
                    let frameRect = flow.rect(Rect(x: placed.origin + box.x + dx, y: placed.baseline + dy + box.drop - box.height,
                                                   width: box.width, height: box.height))
                    if lineIndex < frame.lines.count {
                        attachments.append(AttachmentFrame(column: columnIndex, rect: frameRect, offset: box.offset,
                                                           source: text.attachments[box.attachment].source))
                    }
                    draw(attachment: box.attachment, in: frameRect)
                }
            }
            var floatedBlocks: [FloatFrame] = []
            if !frame.floats.isEmpty {
                for float in frame.floats {
                    let frameRect = flow.rect(float.rect)
                    if let block = float.block {
                        floatedBlocks.append(FloatFrame(block: block, side: float.side, rect: frameRect, range: float.range))
                    }
                    guard let index = float.attachment else { continue }
                    let attachment = text.attachments[index]
                    attachments.append(AttachmentFrame(column: columnIndex, rect: frameRect, offset: attachment.offset, source: attachment.source,
                                                       float: float.side))
                    let start = mark()
                    draw(attachment: index, in: frameRect)
                    positions.decorate(runs: &runs, rects: &rects, images: &placedImages, since: start, offset: attachment.offset)
                }
                // The column's pictures in text order, floated or not.
                attachments[columnAttachments...].sort { $0.offset < $1.offset }
            }
            for y in frame.rules {
                rects.append(FilledRect(rect: flow.rect(Rect(x: rect.x, y: y - 0.25, width: rect.width, height: 0.5)),
                                        color: RGBColor(r: 128, g: 128, b: 128)))
            }
            let tables = frame.tables.map { table in
                var table = table
                table.rect = flow.rect(table.rect)
                table.cells = table.cells.map { cell in
                    var cell = cell
                    cell.rect = flow.rect(cell.rect)
                    return cell
                }
                return table
            }
            let boxes = frame.boxes.map { BoxFrame(box: $0.box, rect: flow.rect($0.rect), startsHere: $0.opensHere, endsHere: $0.closesHere) }
            columns.append(ColumnFrame(rect: flow.rect(rect), range: frame.range, lines: lines, tables: tables, boxes: boxes,
                                       floats: floatedBlocks, multicol: fill.multicol))
        }
        pagesMade += 1
        return TypesetPage(size: PageSize(width: pageLayout.pageWidth, height: pageLayout.pageHeight), number: pagesMade,
                           background: layout.background, writingMode: layout.writingMode, columns: columns, attachments: attachments,
                           glyphRuns: runs, rects: rects, images: placedImages, glyphCache: glyphCache,
                           breakExceptionCount: breakExceptions)
    }
}

private extension Rect {
    /// The part of the rectangle from `top` below its top, `extent` deep (nil: to its foot).
    func band(from top: Double, extent: Double?) -> Rect {
        let height = max(0, self.height - top)
        return Rect(x: x, y: y + top, width: width, height: min(height, extent ?? height))
    }
}
