/// One line's content in visual order, x from the line's start at 0, y relative to the
/// baseline (down positive): Core Text's `CTLine` of `CTRun`s.
struct TypesetLine {
    struct Run {
        var face: FontFace
        var style: TextStyle
        var orientation: GlyphOrientation
        var glyphs: [UInt32]
        var positions: [(x: Double, y: Double)]
        /// Pen extent of the run, for underline and strikethrough.
        var x0: Double
        var x1: Double
        /// Each glyph's cluster (global text offset); `GlyphRun.insertedHyphen` for a hyphen
        /// added at the break. For the PDF's text (`PDFDocumentWriter`).
        var clusters: [Int] = []
        /// The global offsets of the text the run's glyphs show.
        var text: Range<Int> = 0..<0
    }

    struct Box {
        var attachment: Int
        var offset: Int
        var x: Double
        var width: Double
        var height: Double
        /// How far the box reaches below (across) the baseline: none in horizontal text, where
        /// it stands on the baseline; half its thickness in vertical text, where it is centred
        /// on the central baseline as the characters are.
        var drop: Double
    }

    /// Global offsets.
    var range: Range<Int>
    var runs: [Run] = []
    var boxes: [Box] = []
    /// Advance width of the visible content (trailing spaces hang outside), with the hyphen
    /// and justification.
    var width: Double = 0
    /// Whether the line ends in a hyphen (a soft hyphen or an automatic one).
    var isHyphenated = false
    /// How the line was spread to the measure, if it was.
    var expansion: Expansion?
    /// How far its spaces had (or would have had) to stretch: `OptimalBreaker.badness`.
    var badness = 0.0
    /// `ParagraphAnalysis.punctuationInAnotherFace` of the line, when the typography asks.
    var punctuationInAnotherFace = 0

    /// Slack given out to make a line flush at both edges.
    enum Expansion: Equatable {
        /// Added after each word separator (U+0020, U+00A0).
        case spaces(Double)
        /// Added between clusters: lines of ideographs, which have no spaces.
        case clusters(Double)
        /// Spaces at their stretch limit (the first amount, after each word separator) and the
        /// rest between letters (the second, at each `ParagraphAnalysis.takesLetterGap`).
        case spacesAndLetters(Double, Double)

        /// Points added after each word separator, if any.
        var spaceExtra: Double? {
            switch self {
            case .spaces(let extra), .spacesAndLetters(let extra, _): extra
            case .clusters: nil
            }
        }

        /// Points added between letters, if any.
        var letterExtra: Double? {
            if case .spacesAndLetters(_, let extra) = self { extra } else { nil }
        }
    }
    var ascent: Double = 0
    var descent: Double = 0
    var lineGap: Double = 0
    /// With a CSS line height (`ParagraphStyle.cssLineHeight`): how far the line box reaches
    /// above and below the baseline, each inline box its line height high with its font's
    /// ascent and descent centred in it, pictures their own height (CSS 2.1 §10.8.1). Nil for
    /// `normal`, where the natural height times `ParagraphStyle.lineHeight` applies.
    var leading: (above: Double, below: Double)?

    /// Lays out local range `local` of a paragraph: glyphs of the items it covers, cut at its
    /// ends, reordered by bidi level (UAX #9 rule L2), trailing white space left out, a hyphen
    /// added when the line ends at a hyphen opportunity, and `expansion` added after word
    /// separators or between clusters.
    init(analysis: ParagraphAnalysis, local: Range<Int>, expansion: Expansion? = nil) {
        let start = analysis.range.lowerBound
        range = (start + local.lowerBound)..<(start + local.upperBound)
        let visible = (start + local.lowerBound)..<(start + analysis.visibleEnd(local.lowerBound, local.upperBound))
        let hyphen = local.isEmpty || analysis.breaks[local.upperBound - 1] != .hyphen ? nil : analysis.hyphens[local.upperBound - 1]
        let hyphenOffset = start + local.upperBound - 1
        isHyphenated = hyphen != nil
        self.expansion = expansion
        var spaceExtra = 0.0, clusterExtra = 0.0, letterExtra = 0.0
        switch expansion {
        case .spaces(let extra): spaceExtra = extra
        case .clusters(let extra): clusterExtra = extra
        case .spacesAndLetters(let space, let letter): (spaceExtra, letterExtra) = (space, letter)
        case nil: break
        }
        // Between clusters: before every cluster but the line's first, in visual order.
        var previousCluster: Int?
        let lineStart = start + local.lowerBound
        func gap(before cluster: Int, pen: inout Double) {
            // Letter spacing before every cluster that takes it but the line's first in logical
            // order, as `ParagraphAnalysis.stretch` counts them.
            if letterExtra != 0, previousCluster != cluster, cluster > lineStart,
               analysis.takesLetterGap(before: cluster - analysis.range.lowerBound) {
                pen += letterExtra
            }
            if let previousCluster, previousCluster != cluster, cluster > analysis.range.lowerBound {
                if clusterExtra != 0, !analysis.isInMarker(cluster - 1),
                   ParagraphAnalysis.takesClusterGap(after: analysis.scalar(at: cluster - 1), before: analysis.scalar(at: cluster)) {
                    pen += clusterExtra
                }
                // `text-autospace` after the character before this cluster.
                if let extra = analysis.autospace[cluster - 1 - analysis.range.lowerBound] { pen += extra }
            }
            previousCluster = cluster
        }

        // Pieces of items in logical order, with their bidi levels.
        // Indices in `analysis.items`.
        var pieces: [Int] = []
        var levels: [UInt8] = []
        var separator: (face: FontFace, style: TextStyle)?
        let items = analysis.items
        var itemIndex = items.firstIndex(endingAfter: range.lowerBound)
        while itemIndex < items.count, items[itemIndex].item.range.lowerBound < range.upperBound {
            defer { itemIndex += 1 }
            let item = items[itemIndex].item
            guard item.range.overlaps(range) else { continue }
            if case .separator(let face) = item.kind, separator == nil { separator = (face, item.style) }
            guard item.range.overlaps(visible) else { continue }
            pieces.append(itemIndex)
            levels.append(item.level)
        }
        let order = Self.visualOrder(levels: levels)
        // An inline element's own line height in a paragraph of `normal` line height: the line
        // box is then made of inline boxes (CSS 2.1 §10.8), the others each their natural
        // height times the paragraph's line height.
        let ownLineHeights = analysis.style.cssLineHeight == nil && pieces.contains { items[$0].item.style.lineHeight != nil }
        func lineHeight(of style: TextStyle, face: FontFace) -> CSSLineHeight? {
            if let own = style.lineHeight ?? analysis.style.cssLineHeight { return own }
            guard ownLineHeights else { return nil }
            return .points((face.ascender + face.descender + face.lineGap) * style.size * analysis.style.lineHeight)
        }

        var pen = 0.0
        var inlineBlocks: [(box: Int, alignment: InlineBlock.Alignment)] = []
        for index in order {
            let shaped = items[pieces[index]]
            switch shaped.item.kind {
            case .text(let face):
                let orientation: GlyphOrientation = !analysis.vertical ? .horizontal : shaped.item.upright ? .upright : .sideways
                var run = Run(face: face, style: shaped.item.style, orientation: orientation, glyphs: [], positions: [], x0: pen, x1: pen,
                              text: shaped.item.range.clamped(to: visible))
                // A run turned sideways is centred on the vertical line's central baseline.
                let centring = orientation == .sideways ? (face.ascender - face.descender) / 2 * shaped.item.style.size : 0
                let shift = shaped.item.style.baselineShift - centring
                let rightToLeft = shaped.item.level & 1 == 1
                let addHyphen = hyphen != nil && shaped.item.range.contains(hyphenOffset)
                // A right-to-left run ends on its left, so its hyphen comes first.
                if addHyphen, rightToLeft, let hyphen {
                    run.glyphs.append(hyphen.glyph)
                    run.positions.append((pen + hyphen.xOffset, -hyphen.yOffset - shift))
                    run.clusters.append(GlyphRun.insertedHyphen)
                    pen += hyphen.advance
                }
                let indices = shaped.glyphIndices(covering: visible)
                run.glyphs.reserveCapacity(indices.count + 1)
                run.positions.reserveCapacity(indices.count + 1)
                for glyph in shaped.glyphs[indices] where visible.contains(glyph.cluster) {
                    gap(before: glyph.cluster, pen: &pen)
                    run.glyphs.append(glyph.id)
                    run.positions.append((pen + glyph.xOffset, -glyph.yOffset - shift))
                    run.clusters.append(glyph.cluster)
                    pen += glyph.advance
                    if spaceExtra != 0, !shaped.item.style.verbatim, analysis.scalar(at: glyph.cluster).isWordSeparator,
                       !analysis.isInMarker(glyph.cluster) {
                        pen += spaceExtra
                    }
                }
                if addHyphen, !rightToLeft, let hyphen {
                    run.glyphs.append(hyphen.glyph)
                    run.positions.append((pen + hyphen.xOffset, -hyphen.yOffset - shift))
                    run.clusters.append(GlyphRun.insertedHyphen)
                    pen += hyphen.advance
                }
                run.x1 = pen
                if !run.glyphs.isEmpty { runs.append(run) }
                measure(face: face, style: shaped.item.style, orientation: orientation, lineHeight: lineHeight(of: shaped.item.style, face: face))
            case .attachment(let attachment):
                gap(before: shaped.item.range.lowerBound, pen: &pen)
                let drop = analysis.vertical ? shaped.boxHeight / 2 : shaped.boxDrop
                boxes.append(Box(attachment: attachment, offset: shaped.item.range.lowerBound, x: pen,
                                 width: shaped.boxWidth, height: shaped.boxHeight, drop: drop))
                pen += shaped.boxWidth
                if let alignment = shaped.boxAlignment, !analysis.vertical {
                    inlineBlocks.append((boxes.count - 1, alignment))
                    continue
                }
                ascent = max(ascent, shaped.boxHeight - drop)
                descent = max(descent, drop)
                if analysis.style.cssLineHeight != nil || ownLineHeights { reach(above: shaped.boxHeight - drop, below: drop) }
            case .separator:
                break
            }
        }
        width = pen
        placeInlineBlocks(inlineBlocks, lineHeight: analysis.style.lineHeight)
        // A line of nothing but a forced break (an empty preformatted line, `<br><br>`) takes its
        // height from the break's font. Every line that is not empty of glyphs ends in visible
        // content or a separator, so this is the only case left.
        if runs.isEmpty, boxes.isEmpty, let separator {
            measure(face: separator.face, style: separator.style, orientation: analysis.vertical ? .upright : .horizontal,
                    lineHeight: analysis.style.cssLineHeight)
        }
    }

    /// Takes a run's extent across the line into the line's.
    ///
    /// A vertical line is as thick as the em boxes of its runs (an upright ideograph's is one
    /// em square; a sideways run's is its ascender plus descender), at least the typical
    /// natural line height of horizontal text so that `line-height` means the same in both,
    /// centred on its central baseline.
    ///
    /// With a CSS `lineHeight`, the run's inline box is that high: its font's ascent and
    /// descent (in vertical text, half the box each side of the central baseline) with the
    /// rest of the line height split half above and half below (CSS 2.1 §10.8.1).
    private mutating func measure(face: FontFace, style: TextStyle, orientation: GlyphOrientation, lineHeight: CSSLineHeight?) {
        let size = style.size
        let (fontAscent, fontDescent): (Double, Double)
        switch orientation {
        case .horizontal:
            (fontAscent, fontDescent) = (face.ascender * size, face.descender * size)
            ascent = max(ascent, fontAscent + style.baselineShift)
            descent = max(descent, fontDescent - style.baselineShift)
            lineGap = max(lineGap, face.lineGap * size)
        case .upright, .sideways:
            let box = orientation == .upright ? 1 : face.ascender + face.descender
            (fontAscent, fontDescent) = (box * size / 2, box * size / 2)
            let half = max(box, ComputedStyle.naturalLineHeight) * size / 2
            ascent = max(ascent, half + style.baselineShift)
            descent = max(descent, half - style.baselineShift)
        }
        guard let lineHeight else { return }
        // The font's ascent and descent in whole CSS pixels, as browsers take them: the
        // baseline then lies a whole number of pixels below the line box's top, where a box
        // drawn beside the line in CSS pixels has its edge (Ahem's 0.8 em ascent at 24 px is
        // 19.2 px; a browser sets the baseline 19 px down and its glyphs fill the 24 px).
        let (ascent, descent) = orientation == .horizontal ? (Self.wholePixels(fontAscent), Self.wholePixels(fontDescent)) : (fontAscent, fontDescent)
        let halfLeading = (lineHeight.height(fontSize: size) - ascent - descent) / 2
        reach(above: ascent + halfLeading + style.baselineShift, below: descent + halfLeading - style.baselineShift)
    }

    /// `points` rounded to whole CSS pixels (0.75 pt).
    static func wholePixels(_ points: Double) -> Double {
        (points / CSSLength.pointsPerPixel).rounded() * CSSLength.pointsPerPixel
    }

    /// Takes an inline box reaching this far above and below the baseline into `leading`.
    mutating func reach(above: Double, below: Double) {
        leading = leading.map { (max($0.above, above), max($0.below, below)) } ?? (above, below)
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
