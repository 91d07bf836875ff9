/// A multi-column element (CSS Multi-column Level 1) as the layout sees it: the paragraphs
/// its box holds (`BoxTree`, `BlockBox.Child.multicol`), its columns, and the boxes around the
/// whole of it, which the block layer draws across its columns rather than in each.
struct MulticolElement {
    /// Its box in `AttributedText.boxTree`.
    var node: Int
    var paragraphs: Range<Int>
    var columns: ColumnStyle
    /// The start and end indents of its content box, from the column's edges.
    var contentIndents: (start: Double, end: Double)
    /// `column-span: all` on it: it is set across the page's columns.
    var spansColumns: Bool
    /// Boxes (`AttributedText.boxes`) holding all of its paragraphs, its own included.
    var enclosingBoxes: Set<Int>
    /// Those that open at its first paragraph (outermost first), and those that close at its
    /// last (innermost first).
    var opening: [Int]
    var closing: [Int]

    /// The multi-column elements of `text` that are not inside another, in text order.
    static func all(in text: AttributedText) -> [MulticolElement] {
        let tree = text.boxTree
        return tree.multicols.compactMap { node in
            let block = tree.boxes[node]
            let paragraphs = block.paragraphs
            guard !paragraphs.isEmpty, paragraphs.upperBound <= text.paragraphs.count else { return nil }
            // Its own box and its ancestors' (a box inside it may hold the same paragraphs).
            var enclosing: [Int] = []
            var next: Int? = node
            while let index = next {
                if let box = tree.boxes[index].textBox, box < text.boxes.count { enclosing.append(box) }
                next = tree.boxes[index].parent
            }
            enclosing.sort()
            return MulticolElement(node: node, paragraphs: paragraphs, columns: block.style.columns,
                                   contentIndents: (block.style.contentStartIndent, block.style.contentEndIndent),
                                   spansColumns: block.style.spansColumns, enclosingBoxes: Set(enclosing),
                                   opening: enclosing.filter { text.boxes[$0].paragraphs.lowerBound == paragraphs.lowerBound },
                                   closing: enclosing.filter { text.boxes[$0].paragraphs.upperBound == paragraphs.upperBound }.reversed())
        }
    }
}

/// The multicol pass: lays a multi-column element's content out in a band of a column (or of
/// the page's text area), in rows of columns of its own, `(measure - gaps) / count` wide, with
/// its `column-span: all` blocks across them; each column filled by the framesetter. A row
/// that holds the rest of the element (or what comes before a spanning block) is balanced
/// (`column-fill: balance`, `ColumnBalancer`, as the page's columns are); one that does not
/// is filled to the band's foot, and the element goes on in the next column or page, in
/// columns again there. Rules (`column-rule`) are drawn between columns that both hold
/// something.
struct MulticolLayouter {
    let framesetter: Framesetter
    /// Index in `framesetter.multicols`.
    let element: Int

    struct Result {
        var pieces: [BlockLayouter.Piece] = []
        /// Where the text placed ends.
        var end: Int
        /// Where the element's box ends on the page (y), or where its content does when it goes
        /// on in the next column.
        var bottom: Double
        var pageBreak = false
        /// Whether the whole element is placed.
        var isFinished = false
    }

    /// Places the element, or its rest from `start`, in `band` (line coordinates), its margin
    /// above being the larger of `spaceAbove` and its own when something is placed above (or
    /// when it begins the article, at the top of the first page, where no break takes it).
    /// - Throws: `TypesetError.columnTooSmall` when not even one line fits.
    func place(in band: Rect, from start: Int, spaceAbove: Double, placedAbove: Bool, pageStart: Bool) throws(TypesetError) -> Result {
        let text = framesetter.text
        let keepsMargin = placedAbove || (start == 0 && framesetter.keepsFirstMargin)
        let multicol = framesetter.multicols[element]
        let end = text.paragraphs[multicol.paragraphs.upperBound - 1].range.upperBound
        var y = band.y
        // Boxes around the whole element open above its first row.
        var tops: [Int: Double] = [:]
        if start == text.paragraphs[multicol.paragraphs.lowerBound].range.lowerBound {
            // The margin above goes above the boxes, unless one with a top border or padding
            // keeps it (`openBoxes` puts it there).
            if keepsMargin && !multicol.opening.contains(where: { text.boxes[$0].marginBefore != nil }) {
                y += max(spaceAbove, text.paragraphs[multicol.paragraphs.lowerBound].value.spaceBefore)
            }
            let opening = framesetter.openBoxes(multicol.opening, Framesetter.BoxOpening(spaceAbove: spaceAbove, placedAbove: keepsMargin))
            for (box, top) in opening.tops { tops[box] = y + (top ?? opening.edges) }
            y += opening.edges
        }
        // Its content box: inside its indents, moved in by the sized boxes around it.
        let sized = multicol.enclosingBoxes.sorted().last { text.boxes[$0].size.constrainsWidth }
        let shift = sized.map { framesetter.boxShift($0, width: band.width) } ?? (start: 0, end: 0)
        let edges = (start: max(0, multicol.contentIndents.start) + shift.start, end: max(0, multicol.contentIndents.end) + shift.end)
        let content = (x: band.x + edges.start, width: max(1, band.width - edges.start - edges.end))
        let gap = multicol.columns.gap ?? 0
        let used = multicol.columns.used(available: content.width)
        func columnRects(top: Double, extent: Double?) -> [Rect] {
            let height = max(0, band.maxY - top)
            return (0..<used.count).map {
                Rect(x: content.x + Double($0) * (used.width + gap), y: top, width: used.width, height: min(height, extent ?? height))
            }
        }
        var result = Result(end: start, bottom: y)
        var rules: [FilledRect] = []
        while result.end < end && y < band.maxY - LineFiller.tolerance {
            let from = result.end
            let first = result.pieces.isEmpty
            var row: [BlockLayouter.Piece] = []
            var goesOn = false
            if framesetter.spansColumns(text.paragraphIndex(at: from), in: element) {
                // A block across the element's columns.
                let rect = Rect(x: content.x, y: y, width: content.width, height: band.maxY - y)
                let frame: Framesetter.Frame
                do {
                    frame = try framesetter.fill(rect, from: from, pageStart: pageStart && first, spanning: true, multicol: element)
                } catch {
                    if !first || placedAbove { break }
                    throw error
                }
                row.append(BlockLayouter.Piece(rect: rect, frame: frame, multicol: element))
                result.end = frame.range.upperBound
                result.pageBreak = frame.pageBreak
                goesOn = frame.spanChange && !frame.pageBreak
            } else {
                let extent = ColumnBalancer.balancedExtent(room: band.maxY - y, columns: used.count, fill: multicol.columns.fill) { extent in
                    let trial = framesetter.copy()
                    let rects = columnRects(top: y, extent: extent)
                    return ColumnBalancer.trial(columns: used.count, from: from, finished: { $0 >= end }) { index, position in
                        let rect = rects[index]
                        guard let frame = try? trial.fill(rect, from: position, pageStart: pageStart && first && index == 0,
                                                          spanning: false, multicol: element) else { return nil }
                        return ColumnBalancer.Column(end: frame.range.upperBound, exceptions: frame.breakExceptions + (frame.squeezedBoxes ? 1 : 0),
                                                     depth: (frame.bottom ?? rect.y) - rect.y, beforeSpanner: frame.spanChange,
                                                     atEnd: frame.multicolChange, pageBreak: frame.pageBreak)
                    }
                }
                for (index, rect) in columnRects(top: y, extent: extent).enumerated() where result.end < end {
                    let frame: Framesetter.Frame
                    do {
                        frame = try framesetter.fill(rect, from: result.end, pageStart: pageStart && first && index == 0, spanning: false,
                                                     multicol: element)
                    } catch {
                        if index > 0 || !first || placedAbove { break }
                        throw error
                    }
                    row.append(BlockLayouter.Piece(rect: rect, frame: frame, multicol: element))
                    result.end = frame.range.upperBound
                    if frame.pageBreak { result.pageBreak = true; break }
                    if frame.spanChange { goesOn = true; break }
                    if frame.multicolChange { break }
                }
                rules += self.rules(between: row, top: y, style: multicol.columns.rule)
            }
            let foot = row.compactMap(\.frame.bottom).max() ?? y
            if goesOn {
                // Boxes going on below the change end, level, at the row's deepest content.
                for index in row.indices { row[index].frame.cutOpenBoxes(at: foot) }
            }
            result.pieces += row
            result.bottom = foot
            guard goesOn, result.end > from, result.end < end else { break }
            let before = text.paragraphs[text.paragraphIndex(at: result.end - 1)].value.spaceAfter
            y = foot + max(before, framesetter.marginAbove(paragraph: text.paragraphIndex(at: result.end)))
        }
        result.isFinished = result.end >= end
        // The boxes around it: closed below its last row, drawn across its columns.
        var bottoms: [Int: Double] = [:]
        if result.isFinished {
            let closing = framesetter.closeBoxes(multicol.closing, bottom: result.bottom - band.y) { box in
                tops[box].map { $0 - band.y + text.boxes[box].topEdge }
            }
            for (box, bottom) in closing.bottoms { bottoms[box] = result.bottom + bottom }
            result.bottom += closing.extent
        }
        let boxes = multicol.enclosingBoxes.sorted().map { index in
            let box = text.boxes[index]
            let shift = framesetter.boxShift(index, width: band.width)
            let edges = (start: max(0, box.startIndent + shift.start), end: max(0, box.endIndent + shift.end))
            let (left, right) = box.rightToLeft ? (edges.end, edges.start) : (edges.start, edges.end)
            let top = tops[index] ?? band.y
            let bottom = bottoms[index] ?? (result.isFinished ? result.bottom : band.maxY)
            return BoxPiece(box: index, rect: Rect(x: band.x + left, y: top, width: max(0, band.width - left - right), height: max(0, bottom - top)),
                            opensHere: tops[index] != nil, closesHere: bottoms[index] != nil)
        }
        // Nothing of it placed (a page break before it, no room for a line): no box either.
        guard result.end > start, !result.pieces.isEmpty else { return Result(end: start, bottom: band.y, pageBreak: result.pageBreak) }
        result.pieces[0].frame.boxes.insert(contentsOf: boxes, at: 0)
        result.pieces[0].frame.columnRules += rules
        return result
    }

    /// The rules between the columns of a row that both hold something, from `top` to the
    /// deeper one's foot, in the middle of the gap.
    private func rules(between row: [BlockLayouter.Piece], top: Double, style: TextBox.Border) -> [FilledRect] {
        guard style.width > 0, row.count > 1 else { return [] }
        var rules: [FilledRect] = []
        for (left, right) in zip(row, row.dropFirst()) {
            guard let leftFoot = left.frame.bottom, let rightFoot = right.frame.bottom else { continue }
            let x = (left.rect.maxX + right.rect.x) / 2 - style.width / 2
            let band = Rect(x: x, y: top, width: style.width, height: max(leftFoot, rightFoot) - top)
            rules += BoxPiece.pieces(of: band, style: style.style, horizontal: false).map { FilledRect(rect: $0, color: style.color) }
        }
        return rules
    }
}
