/// Fills rectangles with text, one at a time, from a text position (Core Text's
/// `CTFramesetterCreateFrame` with `CTFrameGetVisibleStringRange`).
///
/// Lines are chosen greedily and never depend on what follows, so a cascade of rectangles
/// (columns, then pages) is filled by calling `fill` with each in turn from where the last
/// one stopped. Paragraphs are analysed (itemized, shaped, broken) when first reached and
/// only the current one is kept, so memory does not grow with the article.
public final class Framesetter {
    public let text: AttributedText
    private var analyzer: ParagraphAnalyzer
    private var current: (index: Int, analysis: ParagraphAnalysis)?

    /// - Parameter maximumBox: the largest attachment box (a column's width and height).
    public init(text: AttributedText, fonts: FontLibrary, maximumBox: (width: Double, height: Double)) {
        self.text = text
        self.analyzer = ParagraphAnalyzer(text: text, fonts: fonts, maximumBox: maximumBox)
    }

    /// Characters no installed font covers, with counts, among the paragraphs analysed so far.
    public var uncoveredCharacters: [Unicode.Scalar: Int] { analyzer.uncoveredCharacters }

    /// A filled rectangle.
    struct Frame {
        var range: Range<Int>
        var lines: [(line: TypesetLine, origin: Double, baseline: Double, top: Double, height: Double)]
        var rules: [Double]
    }

    /// Fills `rect` with lines from text offset `start`.
    ///
    /// - Throws: `TypesetError.columnTooSmall` when not even one line fits.
    func fill(_ rect: Rect, from start: Int) throws(TypesetError) -> Frame {
        var frame = Frame(range: start..<start, lines: [], rules: [])
        var offset = start
        var cursor = 0.0
        var previousSpaceAfter = 0.0
        while offset < text.count {
            let paragraphIndex = text.paragraphIndex(at: offset)
            let analysis = try analysis(of: paragraphIndex)
            let style = analysis.style
            var filler = LineFiller(analysis: analysis, position: offset - analysis.range.lowerBound)
            let first = filler.atParagraphStart
            // Indents may take at most half the column, so deep nesting in a narrow column
            // still leaves room for text.
            var startIndent = style.startIndent + (first ? style.firstLineIndent : 0)
            var endIndent = style.endIndent
            let indents = max(0, startIndent) + max(0, endIndent)
            if indents > rect.width / 2 {
                let factor = rect.width / 2 / indents
                startIndent *= factor
                endIndent *= factor
            }
            var measure = rect.width - max(0, startIndent) - max(0, endIndent)
            let local: Range<Int>
            do {
                local = try filler.nextLine(measure: measure)
            } catch {
                guard measure < rect.width else { throw error }
                // Something as wide as the column (an image, a long unbreakable cluster) but not
                // as the indented measure: set that line at the full column width instead.
                (startIndent, endIndent, measure) = (0, 0, rect.width)
                local = try filler.nextLine(measure: measure)
            }
            let line = TypesetLine(analysis: analysis, local: local)

            var gap = 0.0
            if first && !frame.lines.isEmpty {
                gap = max(previousSpaceAfter, style.spaceBefore)
                if style.ruleAbove { gap = max(gap, 12) }
            }
            let height = line.naturalHeight * (line.holdsOnlyBoxes ? 1 : style.lineHeight)
            if cursor + gap + height > rect.height + LineFiller.tolerance {
                guard !frame.lines.isEmpty else {
                    throw TypesetError(.columnTooSmall, String(format: "a column %.1f pt high cannot hold one line (%.1f pt) of the text at offset %d; make the page taller, the inset smaller or the font smaller", rect.height, height, offset))
                }
                break
            }
            if first && style.ruleAbove && !frame.lines.isEmpty { frame.rules.append(rect.y + cursor + gap / 2) }
            let top = cursor + gap
            let baseline = top + (height - line.naturalHeight) / 2 + line.ascent
            let origin = Self.origin(of: line, in: rect, measure: measure, startIndent: max(0, startIndent),
                                     alignment: style.alignment, rightToLeft: analysis.baseLevel == 1)
            frame.lines.append((line, origin, rect.y + baseline, rect.y + top, height))
            cursor = top + height
            offset = analysis.range.lowerBound + local.upperBound
            previousSpaceAfter = filler.isFinished ? style.spaceAfter : 0
        }
        frame.range = start..<offset
        return frame
    }

    /// The x where a line's visible content starts.
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

    private func analysis(of paragraph: Int) throws(TypesetError) -> ParagraphAnalysis {
        if let current, current.index == paragraph { return current.analysis }
        let analysis = try analyzer.analyze(paragraph: paragraph)
        current = (paragraph, analysis)
        return analysis
    }
}
