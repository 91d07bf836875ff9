/// The table pass of the framesetter: tables (`AttributedText.tables`) laid out as grids by
/// their own layouter (`TableLayouter`), one at a time, from the column where they begin to
/// the one where they end; a table nested in a cell by the cell's framesetter.
extension Framesetter {
    /// The table pass: table `table` from the fill's offset (its start, or the row a break
    /// left it at), below the floats beside the text before it and inside the boxes opening
    /// above it; its rows set as far as they fit (`TableLayouter.place`). The fill stops where
    /// the table is cut, and goes on after a finished table.
    func placeTable(_ table: TableLayouter, at paragraphIndex: Int, in fill: inout FillState) throws(TypesetError) -> FillStep {
        let rect = fill.rect
        let first = fill.offset == table.start
        if first, stopsAtForcedBreak(before: paragraphIndex, in: &fill) { return .stopped }
        // A table is set below the pictures floated beside the text before it.
        if first, let below = Self.floatsBottom(fill.frame.floats, sides: [.left, .right], in: rect) { fill.cursor = max(fill.cursor, below) }
        var opening = BoxOpening(spaceAbove: fill.previousSpaceAfter, placedAbove: fill.placedAbove)
        if first, let boxes = openings(at: paragraphIndex) { opening = openBoxes(boxes, opening) }
        var gap = opening.edges + (first && opening.placedAbove ? max(opening.spaceAbove, table.table.style.spaceBefore) : 0)
        if fill.frame.isEmpty && fill.cursor + gap > rect.height / 2 {
            // Box edges taller than half the column: the table is set at its top.
            gap = 0
            fill.frame.squeezedBoxes = true
            opening.tops = opening.tops.map { ($0.box, 0) }
        }
        let tableStart = fill.offset
        var fits = try table.place(in: rect, top: fill.cursor + gap, columnIsEmpty: fill.frame.isEmpty, into: &fill.frame)
        if !fits && first {
            // Nothing of it fits here: it starts in the next column, with what is kept
            // with it (a heading). When that would empty this column, the table starts
            // here instead, cut at the column's foot, so the heading is not left alone.
            let (savedHyphens, exceptions) = (hyphenatedLines, fill.frame.breakExceptions)
            var moved = fill.frame
            let next = keepingTogether(&moved, next: fill.offset, measure: rect.width)
            if moved.breakExceptions > exceptions && moved.lines.count == fill.frame.lines.count {
                hyphenatedLines = savedHyphens
                fits = try table.place(in: rect, top: fill.cursor + gap, columnIsEmpty: false, cutHere: true, into: &fill.frame)
            }
            if !fits {
                fill.frame = moved
                fill.offset = next
                rewindFloats(&fill.frame, to: fill.offset)
            }
        }
        guard fits else { return .stopped }
        fill.boxTops += opening.tops.map { ($0.box, rect.y + fill.cursor + ($0.y ?? gap), tableStart) }
        fill.cursor = table.bottom
        fill.offset = table.position
        fill.previousSpaceAfter = 0
        hyphenatedLines = (-1, 0)
        guard table.isFinished else { return .stopped }
        if let boxes = closings(at: table.table.paragraphs.upperBound - 1) {
            let closing = closeBoxes(boxes, bottom: fill.cursor, contentTop: contentTop(from: fill.boxTops, in: rect))
            fill.boxBottoms += closing.bottoms.map { ($0.box, rect.y + fill.cursor + $0.y, fill.offset) }
            fill.cursor += closing.extent
        }
        if fill.inFlow { finish(table) }
        return .continued
    }

    /// The table that starts at, or is being set at, paragraph `index` and offset `offset`;
    /// nil for other text, and for a table that no width can hold as a grid (then set as
    /// paragraphs, with a warning).
    /// In a cell (`inCell`: a fill with an `end`), a nested table is resumed from `offset`.
    func table(at index: Int, offset: Int, measure: Double, inCell: Bool) throws(TypesetError) -> TableLayouter? {
        if inCell { return try cellTable(at: index, offset: offset, measure: measure) }
        // Rows without text after the last that has some start where the next text does.
        if let activeTable, activeTable.table.paragraphs.contains(index) || (offset == activeTable.position && !activeTable.isFinished) {
            return activeTable
        }
        guard let tableIndex = tableStarts[index], offset == text.paragraphs[index].range.lowerBound,
              !flattenedTables.contains(tableIndex) else { return nil }
        if let activeTable { finish(activeTable) }
        let layouter = try TableLayouter(index: tableIndex, in: self, measure: measure)
        tableWarnings += layouter.warnings
        guard layouter.isUsable else {
            flattenedTables.insert(tableIndex)
            return nil
        }
        activeTable = layouter
        return layouter
    }

    /// The nested table holding paragraph `index` of a cell, resumed from `offset`; nil for
    /// other text and for a table set as paragraphs.
    func cellTable(at index: Int, offset: Int, measure: Double) throws(TypesetError) -> TableLayouter? {
        let tableIndex = text.tables.partitioningIndex { $0.paragraphs.upperBound > index }
        guard tableIndex < text.tables.count, text.tables[tableIndex].paragraphs.contains(index),
              !flattenedTables.contains(tableIndex) else { return nil }
        var layouter = cellTables[tableIndex].flatMap { $0.measure == measure ? $0.layouter : nil }
        if layouter == nil {
            guard offset == text.paragraphs[index].range.lowerBound, tableStarts[index] == tableIndex else { return nil }
            let made: TableLayouter
            if let fresh = nestedTables.fresh[tableIndex], fresh.measure == measure {
                made = fresh.layouter.copy(for: self)
            } else {
                made = try TableLayouter.nested(tableIndex, in: self, measure: measure)
                nestedTables.fresh[tableIndex] = (measure, made.copy(for: self))
            }
            if cellTables[tableIndex] == nil { tableWarnings += made.warnings }
            guard made.isUsable else {
                flattenedTables.insert(tableIndex)
                return nil
            }
            cellTables[tableIndex] = (measure, made)
            layouter = made
        }
        guard let layouter, layouter.resume(at: offset) else { return nil }
        return layouter
    }

    /// `tableWarnings` with those of the tables nested in the tables set so far (a finished
    /// table's are kept when it is finished).
    var allTableWarnings: [String] {
        tableWarnings + (activeTable?.nestedWarnings ?? []) + cellTables.keys.sorted().flatMap { cellTables[$0]?.layouter.nestedWarnings ?? [] }
    }

    func finish(_ table: TableLayouter) {
        tableWarnings += table.nestedWarnings
        tablesUncovered.merge(table.uncoveredCharacters, uniquingKeysWith: +)
        tablesUnhyphenated.formUnion(table.unhyphenatedLanguages)
        activeTable = nil
    }
}
