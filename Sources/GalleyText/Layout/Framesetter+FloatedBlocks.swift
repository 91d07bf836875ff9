/// Floated blocks (`AttributedText.floats`): a `div`, `aside` or `figure` with `float: left`
/// or `right` is set whole by a framesetter of its own, in a rectangle as wide as its CSS
/// `width` (or as its content wants, at most the column: CSS 2.1's shrink-to-fit width),
/// placed at its side of the column where the next line would start (beside the floats
/// already there, or below them), and the text after it flows beside it as beside a floated
/// picture. Like a picture it is never split: one too tall for the rest of the column starts
/// the next, and one taller than a whole column is set in the flow instead.
extension Framesetter {
    /// A floated block set in its own rectangle, at the origin, ready to be placed.
    struct FloatedBlockLayout {
        var width: Double
        var height: Double
        /// The indents of the block it sits in, which it is placed between.
        var indents: (start: Double, end: Double)
        var lines: [PlacedLine]
        var rules: [Double]
        var boxes: [BoxPiece]
        var pictures: [PlacedFloat]
        /// Tables in it (an absolutely positioned block's): their pieces and rectangles.
        var tables: [TableFrame] = []
        var tableRects: [FilledRect] = []
        var range: Range<Int>
    }

    /// A floated block placed in the column.
    struct PlacedBlock {
        var float: PlacedFloat
        var lines: [PlacedLine]
        var rules: [Double]
        var boxes: [BoxPiece]
        var pictures: [PlacedFloat]
        var tables: [TableFrame] = []
        var tableRects: [FilledRect] = []
    }

    /// The float pass: floated block `index`, whose first paragraph `paragraphIndex` is at the
    /// fill's offset, set whole at its side of the rectangle where the next line would start
    /// (the text after it beside it); an absolutely positioned one out of the flow at its
    /// static position (`FramePositions` moves it); one no column can hold marked to be set in
    /// the flow (`inFlowFloats`); or the fill stopped, the block starting the next rectangle.
    func placeFloatedBlock(_ index: Int, at paragraphIndex: Int, in fill: inout FillState) throws(TypesetError) -> FillStep {
        if stopsAtForcedBreak(before: paragraphIndex, in: &fill, atTop: false) { return .stopped }
        let rect = fill.rect
        guard !(vertical && text.floats[index].positioning != nil), let block = try floatedBlock(index, in: rect) else {
            inFlowFloats.insert(index)  // Taller than a column, or positioned in vertical text: set in the flow.
            return .continued
        }
        let paragraphs = text.floats[index].paragraphs
        // Boxes around it that open here open in the flow, above it.
        var opening = BoxOpening(spaceAbove: fill.previousSpaceAfter, placedAbove: fill.placedAbove)
        let enclosing = openings(at: paragraphIndex)?.filter { text.boxes[$0].paragraphs.upperBound > paragraphs.upperBound } ?? []
        if !enclosing.isEmpty {
            opening = openBoxes(enclosing, opening)
            fill.previousSpaceAfter = opening.spaceAbove
        }
        // A float between two blocks sits as if in an empty block there (CSS 2.1 §9.5.1 rule
        // 4), whose top collapses with the margin above it only (§8.3.1): a taller top margin
        // of the next block, or clearance below, leaves it where it is. First in its parent,
        // it is at the parent's top, where the next block's margin collapses too.
        var next = 0.0
        if text.floats[index].opensItsParent {
            next = paragraphs.upperBound < text.paragraphs.count ? marginAbove(paragraph: paragraphs.upperBound) : 0
            // A table's margin is its own, not its first paragraph's.
            if let table = tableStarts[paragraphs.upperBound] { next = max(next, text.tables[table].style.spaceBefore) }
        }
        let space = opening.placedAbove ? max(fill.previousSpaceAfter, next, text.floats[index].spaceAbove) : 0
        let container = Rect(x: rect.x + block.indents.start, y: rect.y,
                             width: max(1, rect.width - block.indents.start - block.indents.end), height: rect.height)
        if text.floats[index].positioning != nil {
            // Absolutely positioned: out of the flow, at its static position for now.
            fill.boxTops += opening.tops.map { ($0.box, rect.y + fill.cursor + ($0.y ?? opening.edges), fill.offset) }
            fill.cursor += opening.edges
            let placed = placeStatic(block, float: index, in: container, top: fill.cursor + space)
            fill.frame.positioned.append(placed)
            fill.offset = placed.float.range.upperBound
            floatsPlacedThrough = max(floatsPlacedThrough, fill.offset)
            return .continued
        }
        guard let placed = place(block, float: index, in: container, top: fill.cursor + opening.edges + space, beside: fill.frame.floats) else {
            if fill.frame.isEmpty && fill.frame.floats.isEmpty {
                // Not even here at the top: a whole column holds it (`floatedBlock`
                // checked), this rectangle does not.
                guard rect.height < (columnExtent ?? rect.height) - LineFiller.tolerance else {
                    inFlowFloats.insert(index)
                    return .continued
                }
                throw TypesetError(.columnTooSmall, String(format: "a rectangle %.1f pt deep cannot hold the floated block at offset %d", rect.height, fill.offset))
            }
            // Not enough of the column left: it starts the next one.
            fill.offset = keepingTogether(&fill.frame, next: fill.offset, measure: rect.width)
            rewindFloats(&fill.frame, to: fill.offset)
            return .stopped
        }
        fill.boxTops += opening.tops.map { ($0.box, rect.y + fill.cursor + ($0.y ?? opening.edges), fill.offset) }
        fill.cursor += opening.edges
        fill.frame.floats.append(placed.float)
        fill.frame.floats += placed.pictures
        fill.frame.lines += placed.lines
        fill.floatLines += placed.lines.count
        fill.frame.rules += placed.rules
        fill.frame.floatBoxes += placed.boxes
        fill.offset = placed.float.range.upperBound
        floatsPlacedThrough = max(floatsPlacedThrough, fill.offset)
        if let boxes = closings(at: paragraphs.upperBound - 1)?.filter({ text.boxes[$0].paragraphs.lowerBound < paragraphs.lowerBound }),
           !boxes.isEmpty {
            // A box around it that ends with it holds it: it closes below the float.
            fill.cursor = max(fill.cursor, placed.float.rect.maxY + placed.float.margin - rect.y)
            let closing = closeBoxes(boxes, bottom: fill.cursor, contentTop: contentTop(from: fill.boxTops, in: rect))
            fill.boxBottoms += closing.bottoms.map { ($0.box, rect.y + fill.cursor + $0.y, fill.offset) }
            fill.cursor += closing.extent
        }
        return .continued
    }

    /// Sets floated block `index` for a column `rect`: nil when it is deeper than a whole
    /// column (`columnExtent`).
    func floatedBlock(_ index: Int, in rect: Rect) throws(TypesetError) -> FloatedBlockLayout? {
        let block = text.floats[index]
        var (start, end) = (block.containerStartIndent, block.containerEndIndent)
        if start + end > rect.width / 2 {
            // Cut as lines' indents are, so deep nesting still leaves the column room.
            let factor = rect.width / 2 / (start + end)
            (start, end) = (start * factor, end * factor)
        }
        // Its containing block: the content box of the block it sits in, moved in by the
        // sizes of the sized boxes around it (which keep their widths, as their lines do).
        let shift = containingShift(ofFloat: index, width: rect.width)
        (start, end) = (start + shift.start, end + shift.end)
        let available = max(1, rect.width - start - end)
        // A declared width holds even past the containing block's other edge (CSS lets it
        // overflow there), up to the column's.
        let widest = max(available, rect.width - (block.side == .left ? start : end))
        let own = Self.floatedText(text, block: block)
        // Its lines count against the page's time limit too.
        let setter = Framesetter(text: own.text, fonts: fonts, maximumBox: (min(maximumBox.width, widest), maximumBox.height),
                                 typography: typography, vertical: vertical, cancellationSlot: cancellationSlot)
        // A float is a block formatting context of its own: the margins of what it holds
        // stay inside it, the first one too (CSS 2.1 §8.3.1). Not yet in an absolutely
        // positioned block: a positioned block inside it is set in its flow, where its
        // offsets are not applied, and its first margin would move it the other way.
        setter.keepsFirstMargin = !vertical && block.positioning == nil
        // Its tables keep the numbers the article's text gives them.
        if let first = own.tableBase { setter.tableNumbering = (tableNumbering.first + tablesBefore[first], tableNumbering.parent) }
        let width: Double
        if let declared = block.width ?? block.widthFraction.map({ $0 * available }) {
            width = declared + block.ownStart + block.ownEnd
        } else if let positioned = block.positioning, let stretched = positionedWidth(positioned, column: rect) {
            width = stretched
        } else {
            // Shrink-to-fit: the widest line its paragraphs would set unbroken.
            // A table in it counts as one block as wide as the table wants.
            var widest = 0.0
            var paragraph = 0, table = 0
            let tables = own.text.tables
            while paragraph < own.text.paragraphs.count {
                if table < tables.count, tables[table].paragraphs.lowerBound == paragraph {
                    widest = max(widest, try TableLayouter.contentWidths(ofTable: table, in: setter).maximum)
                    paragraph = tables[table].paragraphs.upperBound
                    table += 1
                } else {
                    widest = max(widest, try setter.contentWidths(ofParagraph: paragraph).maximum)
                    paragraph += 1
                }
            }
            width = widest
        }
        let limit = block.width != nil || block.widthFraction != nil ? widest : available
        let column = Rect(x: 0, y: 0, width: min(limit, max(1, width.isFinite ? width : available)),
                          height: max(rect.height, columnExtent ?? rect.height))
        let frame: Frame
        do {
            frame = try setter.fill(column, from: 0)
        } catch {
            return nil  // Not one line of it fits the column: set in the flow, which says so.
        }
        if !floatsCounted.contains(index) {
            floatsCounted.insert(index)
            tablesUncovered.merge(setter.uncoveredCharacters, uniquingKeysWith: +)
            tablesUnhyphenated.formUnion(setter.unhyphenatedLanguages)
        }
        guard frame.range.upperBound >= own.text.count, !frame.pageBreak else { return nil }
        // Its own top and bottom margins are in its rectangle, above and below what it holds.
        let (above, below) = vertical ? (0, 0) : (block.marginTop, block.marginBottom)
        let lines = frame.lines.map { placed in
            var placed = placed
            placed.line.shift(by: own.start, attachments: own.attachmentBase)
            placed.top += above
            placed.baseline += above
            return placed
        }
        let boxes = frame.boxes.map { piece in
            var piece = piece
            piece.box += own.boxBase
            piece.rect = piece.rect.offsetBy(dx: 0, dy: above)
            return piece
        }
        let pictures = frame.floats.map { picture in
            var picture = picture
            picture.attachment = picture.attachment.map { $0 + own.attachmentBase }
            picture.offset += own.start
            picture.rect = picture.rect.offsetBy(dx: 0, dy: above)
            return picture
        }
        let tables = frame.tables.map { piece in
            var piece = piece
            for index in piece.cells.indices {
                let range = piece.cells[index].range
                piece.cells[index].range = (range.lowerBound + own.start)..<(range.upperBound + own.start)
            }
            return piece.moved(by: (0, above))
        }
        return FloatedBlockLayout(width: column.width, height: max(0, (frame.bottom ?? 0) + above + below), indents: (start, end), lines: lines,
                                  rules: frame.rules.map { $0 + above }, boxes: boxes, pictures: pictures, tables: tables,
                                  tableRects: frame.tableRects.map { $0.moved(to: $0.rect.offsetBy(dx: 0, dy: above)) },
                                  range: own.start..<(own.start + own.text.count))
    }

    /// The width of an absolutely positioned block with `left` and `right` and no `width`
    /// (CSS 2.1 §10.3.7): its containing block's less the offsets; nil when either is `auto`.
    /// The containing block is the padding box of the positioned block's box around it, as
    /// wide as its `width` or as the column between its indents, or the column.
    private func positionedWidth(_ positioned: PositionedBlock, column rect: Rect) -> Double? {
        var containing = rect.width
        if let index = positioned.containingBox {
            let box = text.boxes[index]
            let edges = box.padding.left + box.padding.right
            let borders = box.border.left.width + box.border.right.width
            if case .points(let width) = box.size.width {
                containing = box.size.borderBox ? width - borders : width + edges
            } else {
                containing = rect.width - box.startIndent - box.endIndent - borders
            }
        }
        guard let left = positioned.offsets.left.resolved(against: containing),
              let right = positioned.offsets.right.resolved(against: containing) else { return nil }
        return max(1, containing - left - right)
    }

    /// `block` floated to its side of `rect` (its containing block: the column between the
    /// indents of the block it sits in) with its top at `top` (relative), or lower, as CSS 2.1
    /// §9.5.1 places floats: not above an earlier float (rule 5), beside the floats already
    /// there, its outer edge not past those of the other side's (rule 3) nor past the
    /// containing block's other edge when one of its own side is beside it (rules 2 and 7),
    /// else below the highest of them; nil when the column has no room for it below `top`.
    func place(_ block: FloatedBlockLayout, float index: Int, in rect: Rect, top: Double, beside floats: [PlacedFloat]) -> PlacedBlock? {
        let side = text.floats[index].side
        var y = max(rect.y + top, floats.map(\.rect.y).max() ?? -.infinity)
        while true {
            var (left, right, below) = (-Double.infinity, Double.infinity, Double?.none)
            for float in floats where float.rect.y < y + max(block.height, 0.01) && float.rect.maxY + float.margin > y {
                if float.side == .left { left = max(left, float.rect.maxX + float.margin) } else { right = min(right, float.rect.x - float.margin) }
                below = min(below ?? .infinity, float.rect.maxY + float.margin)
            }
            let x: Double, fits: Bool
            if side == .left {
                x = max(rect.x, left)
                fits = x + block.width <= (left.isFinite ? min(rect.maxX, right) : right) + LineFiller.tolerance
            } else {
                x = min(rect.maxX, right) - block.width
                fits = x >= (right.isFinite ? max(rect.x, left) : left) - LineFiller.tolerance
            }
            if fits || below == nil {
                guard y + block.height <= rect.maxY + LineFiller.tolerance else { return nil }
                return placed(block, float: index, side: side, x: x, y: y)
            }
            y = below!
        }
    }

    /// How far the sized boxes around floated block `index` (not its own, nor those inside
    /// it) move its containing block in from the indents of the block it sits in, in a
    /// column `width` wide (`BlockGeometry`).
    private func containingShift(ofFloat index: Int, width: Double) -> (start: Double, end: Double) {
        let tree = text.boxTree
        guard let node = tree.boxes.firstIndex(where: { box in box.children.contains { $0.floatIndex == index } }) else { return (0, 0) }
        var next: Int? = node
        while let current = next {
            if let box = tree.boxes[current].textBox, text.boxes.indices.contains(box), text.boxes[box].size.constrainsWidth {
                return boxShift(box, width: width)
            }
            next = tree.boxes[current].parent
        }
        return (0, 0)
    }

    /// An absolutely positioned `block` at its static position: the start of `rect` (the
    /// column between the indents of the block it sits in), `top` below its top. Moved to
    /// its offsets once the page's boxes are placed (`FramePositions`).
    func placeStatic(_ block: FloatedBlockLayout, float index: Int, in rect: Rect, top: Double) -> PlacedBlock {
        placed(block, float: index, side: .left, x: rect.x, y: rect.y + top)
    }

    /// `block` with its top left corner at (`x`, `y`).
    private func placed(_ block: FloatedBlockLayout, float index: Int, side: FloatSide, x: Double, y: Double) -> PlacedBlock {
        let float = PlacedFloat(block: index, offset: block.range.lowerBound, side: side,
                                rect: Rect(x: x, y: y, width: block.width, height: block.height), range: block.range)
        return PlacedBlock(float: float,
                           lines: block.lines.map { placed in
                               var placed = placed
                               placed.origin += x
                               placed.top += y
                               placed.baseline += y
                               return placed
                           },
                           rules: block.rules.map { $0 + y },
                           boxes: block.boxes.map { piece in
                               var piece = piece
                               piece.rect = piece.rect.offsetBy(dx: x, dy: y)
                               return piece
                           },
                           pictures: block.pictures.map { picture in
                               var picture = picture
                               picture.rect = picture.rect.offsetBy(dx: x, dy: y)
                               return picture
                           },
                           tables: block.tables.map { $0.moved(by: (x, y)) },
                           tableRects: block.tableRects.map { $0.moved(to: $0.rect.offsetBy(dx: x, dy: y)) })
    }

    /// The text of a floated block alone, its indents and its boxes' counted from the block
    /// it sits in, with where it starts in the article's text, attachments and boxes.
    /// `tableBase`: the index in `text.tables` of its first table, if it holds any.
    static func floatedText(_ text: AttributedText, block: FloatedBlock)
        -> (text: AttributedText, start: Int, attachmentBase: Int, boxBase: Int, tableBase: Int?) {
        let part = text.excerpt(paragraphs: block.paragraphs)
        let paragraphs = part.paragraphs.map { paragraph in
            var paragraph = paragraph
            paragraph.value.startIndent = max(0, paragraph.value.startIndent - block.containerStartIndent)
            paragraph.value.endIndent = max(0, paragraph.value.endIndent - block.containerEndIndent)
            paragraph.value.spansColumns = false
            return paragraph
        }
        // Boxes nest and come enclosing ones first: those inside the block follow any that
        // open with it and hold more.
        var boxBase = text.boxes.partitioningIndex { $0.paragraphs.lowerBound >= block.paragraphs.lowerBound }
        while boxBase < text.boxes.count, text.boxes[boxBase].paragraphs.lowerBound == block.paragraphs.lowerBound,
              text.boxes[boxBase].paragraphs.upperBound > block.paragraphs.upperBound {
            boxBase += 1
        }
        let boxes = text.boxes[boxBase...].prefix { $0.paragraphs.lowerBound < block.paragraphs.upperBound }
            .map { box in
                var box = box
                box.paragraphs = (box.paragraphs.lowerBound - block.paragraphs.lowerBound)..<(box.paragraphs.upperBound - block.paragraphs.lowerBound)
                box.startIndent = max(0, box.startIndent - block.containerStartIndent)
                box.endIndent = max(0, box.endIndent - block.containerEndIndent)
                return box
            }
        // Tables inside it (an absolutely positioned block's; a floated one holding a table
        // stays in the flow), numbered as its own text numbers its paragraphs.
        let tableBase = text.tables.partitioningIndex { $0.paragraphs.lowerBound >= block.paragraphs.lowerBound }
        let tables = text.tables[tableBase...].prefix { $0.paragraphs.upperBound <= block.paragraphs.upperBound && !$0.paragraphs.isEmpty }
            .map { $0.shifted(by: -block.paragraphs.lowerBound) }
        let own = AttributedText(scalars: part.scalars, styleRuns: part.styleRuns, paragraphs: paragraphs,
                                 attachments: part.attachments, tables: tables, boxes: Array(boxes))
        return (own, part.start, part.attachmentBase, boxBase, tables.isEmpty ? nil : tableBase)
    }
}

private extension Rect {
    func offsetBy(dx: Double, dy: Double) -> Rect { Rect(x: x + dx, y: y + dy, width: width, height: height) }
}
