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
    private let typography: ArticleLayout.Typography
    /// Consecutive lines ending in a hyphen at the end of what has been placed, and their
    /// paragraph.
    private var hyphenatedLines = (paragraph: -1, count: 0)
    /// Line ends the optimal breaker chose for a paragraph (local offsets).
    private var plan: (paragraph: Int, ends: [Int])?

    /// A space may grow by at most this many times its natural width when a Latin line is
    /// justified; a line that would need more is left ragged and counted as loose.
    public static let maximumSpaceStretch = 2.0

    /// Paragraphs longer than this many characters are analysed in windows this long.
    public static let defaultAnalysisWindow = 65_536

    /// - Parameter maximumBox: the largest attachment box (a column's width and height).
    /// - Parameter vertical: lines run top to bottom; rectangles are then given in line
    ///   coordinates (width along the line), as `FlowMapping.flowRect` makes them.
    /// - Parameter analysisWindow: paragraphs longer than this many characters are analysed
    ///   in windows this long (`ParagraphAnalyzer.window`); tests make it small.
    public init(text: AttributedText, fonts: FontLibrary, maximumBox: (width: Double, height: Double),
                typography: ArticleLayout.Typography = .init(), vertical: Bool = false,
                analysisWindow: Int = defaultAnalysisWindow) {
        self.text = text
        self.typography = typography
        self.analyzer = ParagraphAnalyzer(text: text, fonts: fonts, maximumBox: maximumBox, typography: typography, vertical: vertical,
                                          window: analysisWindow)
    }

    /// Characters no installed font covers, with counts, among the paragraphs analysed so far.
    public var uncoveredCharacters: [Unicode.Scalar: Int] { analyzer.uncoveredCharacters }

    /// Languages that `hyphens: auto` text is in but no hyphenation dictionary covers ("" for
    /// text without a language), among the paragraphs analysed so far.
    public var unhyphenatedLanguages: Set<String> { analyzer.unhyphenatedLanguages }

    /// A filled rectangle.
    struct Frame {
        var range: Range<Int>
        /// `loose`: a line that should have been justified but would have needed its spaces
        /// stretched beyond `maximumSpaceStretch`, so was left ragged.
        /// `continuation`: a preformatted line going on from one wrapped at the measure.
        var lines: [(line: TypesetLine, origin: Double, baseline: Double, top: Double, height: Double, loose: Bool, continuation: Bool)]
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
            var analysis = try analysis(of: paragraphIndex, at: offset)
            let style = analysis.style
            let first = offset == analysis.paragraph.lowerBound
            // A preformatted line that goes on from one wrapped at the measure hangs.
            let continuation = !first && style.continuationIndent > 0 && text.scalars[offset - 1] != AttributedText.lineSeparator
            var (startIndent, endIndent) = Self.indents(style, firstLine: first, continuation: continuation, width: rect.width)
            var measure = rect.width - max(0, startIndent) - max(0, endIndent)
            let hyphenAllowed = hyphenatedLines.paragraph != paragraphIndex || hyphenatedLines.count < typography.maximumConsecutiveHyphens
            if typography.lineBreaking == .optimal, first, plan?.paragraph != paragraphIndex {
                let rest = Self.indents(style, firstLine: false, continuation: false, width: rect.width)
                plan = OptimalBreaker.breaks(analysis, firstMeasure: measure, measure: rect.width - max(0, rest.start) - max(0, rest.end),
                                             maximumConsecutiveHyphens: typography.maximumConsecutiveHyphens)
                    .map { (paragraphIndex, $0) }
            }
            var filler = LineFiller(analysis: analysis, position: offset - analysis.range.lowerBound)
            let local: Range<Int>
            if let plan, plan.paragraph == paragraphIndex, let end = plannedEnd(after: filler.position, in: plan.ends),
               analysis.lineWidth(filler.position, end) <= measure + LineFiller.tolerance {
                local = filler.take(to: end)
            } else {
                do {
                    (analysis, filler, local) = try nextLine(from: offset, in: analysis, measure: measure, hyphenAllowed: hyphenAllowed)
                } catch {
                    guard measure < rect.width else { throw error }
                    // Something as wide as the column (an image, a long unbreakable cluster) but
                    // not as the indented measure: set that line at the full column width instead.
                    (startIndent, endIndent, measure) = (0, 0, rect.width)
                    (analysis, filler, local) = try nextLine(from: offset, in: analysis, measure: measure, hyphenAllowed: hyphenAllowed)
                }
            }
            let (expansion, loose) = justification(of: local, in: analysis, lastLine: filler.isFinished, measure: measure)
            var line = TypesetLine(analysis: analysis, local: local, expansion: expansion)
            line.badness = OptimalBreaker.badness(of: local, in: analysis, measure: measure, isLast: filler.isFinished)

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
            frame.lines.append((line, origin, rect.y + baseline, rect.y + top, height, loose, continuation))
            let sameRun = hyphenatedLines.paragraph == paragraphIndex
            hyphenatedLines = (paragraphIndex, line.isHyphenated ? (sameRun ? hyphenatedLines.count : 0) + 1 : 0)
            cursor = top + height
            offset = analysis.range.lowerBound + local.upperBound
            previousSpaceAfter = filler.isFinished ? style.spaceAfter : 0
        }
        frame.range = start..<offset
        return frame
    }

    /// A line's start and end indents in a column `width` wide. Together they take at most
    /// half the column, so deep nesting in a narrow column still leaves room for text.
    private static func indents(_ style: ParagraphStyle, firstLine: Bool, continuation: Bool,
                                width: Double) -> (start: Double, end: Double) {
        let start = style.startIndent + (firstLine ? style.firstLineIndent : 0) + (continuation ? style.continuationIndent : 0)
        let end = style.endIndent
        let total = max(0, start) + max(0, end)
        guard total > width / 2 else { return (start, end) }
        let factor = width / 2 / total
        return (start * factor, end * factor)
    }

    /// The planned line end after `position`, when `position` is where a planned line began.
    private func plannedEnd(after position: Int, in ends: [Int]) -> Int? {
        guard position == 0 || ends.contains(position) else { return nil }
        return ends.first { $0 > position }
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
    private func justification(of local: Range<Int>, in analysis: ParagraphAnalysis, lastLine: Bool,
                               measure: Double) -> (TypesetLine.Expansion?, loose: Bool) {
        guard !local.isEmpty, !lastLine, analysis.style.justifiable, analysis.breaks[local.upperBound - 1] != .mandatory else {
            return (nil, false)
        }
        let natural = analysis.lineWidth(local.lowerBound, local.upperBound)
        switch analysis.style.alignment {
        case .justify: break
        case .start, .left:
            guard typography.justifyThreshold < 1, natural >= typography.justifyThreshold * measure else { return (nil, false) }
        case .right, .center: return (nil, false)
        }
        let slack = max(0, measure - natural)
        let stretch = analysis.stretch(local.lowerBound, local.upperBound)
        guard stretch.opportunities > 0 else { return (nil, true) }
        let share = slack / Double(stretch.opportunities)
        if stretch.betweenClusters { return (.clusters(share), false) }
        guard slack <= stretch.limit + LineFiller.tolerance else { return (nil, true) }
        return (.spaces(share), false)
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

    /// The greedy line from global `offset`, found in `analysis` or, when the line could reach
    /// past what that window knows, in longer ones, which then become the current analysis.
    private func nextLine(from offset: Int, in analysis: ParagraphAnalysis, measure: Double,
                          hyphenAllowed: Bool) throws(TypesetError) -> (ParagraphAnalysis, LineFiller, Range<Int>) {
        var analysis = analysis
        while true {
            var filler = LineFiller(analysis: analysis, position: offset - analysis.range.lowerBound)
            if let local = try filler.nextLine(measure: measure, hyphenAllowed: hyphenAllowed) { return (analysis, filler, local) }
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
