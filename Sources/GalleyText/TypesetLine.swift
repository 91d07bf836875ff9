/// One line's content in visual order, x from the line's start at 0, y relative to the
/// baseline (down positive): Core Text's `CTLine` of `CTRun`s.
struct TypesetLine {
    struct Run {
        var face: FontFace
        var style: TextStyle
        var glyphs: [UInt32]
        var positions: [(x: Double, y: Double)]
        /// Pen extent of the run, for underline and strikethrough.
        var x0: Double
        var x1: Double
    }

    struct Box {
        var attachment: Int
        var offset: Int
        var x: Double
        var width: Double
        var height: Double
    }

    /// Global offsets.
    var range: Range<Int>
    var runs: [Run] = []
    var boxes: [Box] = []
    /// Advance width of the visible content (trailing spaces hang outside).
    var width: Double = 0
    var ascent: Double = 0
    var descent: Double = 0
    var lineGap: Double = 0

    /// Lays out local range `local` of a paragraph: glyphs of the items it covers, cut at its
    /// ends, reordered by bidi level (UAX #9 rule L2), trailing white space left out.
    init(analysis: ParagraphAnalysis, local: Range<Int>) {
        let start = analysis.range.lowerBound
        range = (start + local.lowerBound)..<(start + local.upperBound)
        var visibleEnd = local.upperBound
        while visibleEnd > local.lowerBound && analysis.hangs[visibleEnd - 1] { visibleEnd -= 1 }
        let visible = (start + local.lowerBound)..<(start + visibleEnd)

        // Pieces of items in logical order, with their bidi levels.
        var pieces: [(item: ShapedItem, level: UInt8)] = []
        var separator: (face: FontFace, style: TextStyle)?
        for shaped in analysis.items where shaped.item.range.overlaps(range) {
            if case .separator(let face) = shaped.item.kind, separator == nil { separator = (face, shaped.item.style) }
            guard shaped.item.range.overlaps(visible) else { continue }
            pieces.append((shaped, shaped.item.level))
        }
        let order = Self.visualOrder(levels: pieces.map(\.level))

        var pen = 0.0
        for index in order {
            let shaped = pieces[index].item
            switch shaped.item.kind {
            case .text(let face):
                var run = Run(face: face, style: shaped.item.style, glyphs: [], positions: [], x0: pen, x1: pen)
                let shift = shaped.item.style.baselineShift
                for glyph in shaped.glyphs where visible.contains(glyph.cluster) {
                    run.glyphs.append(glyph.id)
                    run.positions.append((pen + glyph.xOffset, -glyph.yOffset - shift))
                    pen += glyph.advance
                }
                run.x1 = pen
                if !run.glyphs.isEmpty { runs.append(run) }
                measure(face: face, style: shaped.item.style)
            case .attachment(let attachment):
                boxes.append(Box(attachment: attachment, offset: shaped.item.range.lowerBound, x: pen,
                                 width: shaped.boxWidth, height: shaped.boxHeight))
                pen += shaped.boxWidth
                ascent = max(ascent, shaped.boxHeight)
            case .separator:
                break
            }
        }
        width = pen
        // A line of nothing but a forced break (an empty preformatted line, `<br><br>`) takes its
        // height from the break's font. Every line that is not empty of glyphs ends in visible
        // content or a separator, so this is the only case left.
        if runs.isEmpty, boxes.isEmpty, let separator {
            measure(face: separator.face, style: separator.style)
        }
    }

    private mutating func measure(face: FontFace, style: TextStyle) {
        ascent = max(ascent, face.ascender * style.size + style.baselineShift)
        descent = max(descent, face.descender * style.size - style.baselineShift)
        lineGap = max(lineGap, face.lineGap * style.size)
    }

    /// Visual order of pieces with these levels (UAX #9 L2: from the highest level down to the
    /// lowest odd one, reverse every maximal sequence at that level or higher).
    static func visualOrder(levels: [UInt8]) -> [Int] {
        var order = Array(levels.indices)
        guard let highest = levels.max(), highest > 0 else { return order }
        let lowestOdd = levels.filter { $0 & 1 == 1 }.min() ?? highest
        var level = highest
        while level >= max(1, lowestOdd) {
            var i = 0
            while i < order.count {
                guard levels[order[i]] >= level else { i += 1; continue }
                var j = i
                while j < order.count && levels[order[j]] >= level { j += 1 }
                order[i..<j].reverse()
                i = j
            }
            level -= 1
        }
        return order
    }

    /// The line's natural height: ascent, descent and line gap of its fonts.
    var naturalHeight: Double { ascent + descent + lineGap }
}
