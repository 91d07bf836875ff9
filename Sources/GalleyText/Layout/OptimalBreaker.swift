/// Total-fit line breaking (Knuth and Plass): chooses all of a paragraph's line ends at once so
/// that the sum of the lines' demerits is least, over the same opportunities the greedy filler
/// uses.
///
/// A line left with a ragged end in the middle of a paragraph meant to be flush (too loose to
/// justify, or, in a start-aligned paragraph, short of the justification threshold:
/// `Framesetter.justification` decides for both) scores the worst badness, its demerits scaled
/// up with the white it leaves (`raggedGapWeight`). Scored by its stretch alone, as before, a
/// loose line cost about as much as a line near its limit, and a line short of the threshold
/// less than a loose one although it leaves more white; on the twelve Python reference pages
/// of the README's measurement this leaves 617 ragged ends mid-paragraph instead of 752, with
/// 20% less white at them (greedy filling: 1,091). Counting ragged lines alone, without their
/// gap, was tried: it cut loose lines to a third by setting a word alone on a line instead.
///
/// A line's badness grows with the cube of how far its spaces must stretch (see `badness`);
/// demerits add a penalty for ending in a hyphen and a larger one for a second hyphen in a
/// row, and the limit of consecutive hyphenated lines is a hard rule (it is part of the search
/// state). Lines never exceed the measure once their spaces are shrunk (a justified line's
/// spaces may shrink to `Framesetter.minimumSpace`, and shrinking counts as badness as
/// stretching does). Returns nil when no set of breaks fits (a word wider
/// than the column: the greedy filler then breaks inside it), when the paragraph has too many
/// opportunities for the search to be cheap, or when it is longer than `maximumLength`.
enum OptimalBreaker {
    /// Paragraphs with more break opportunities than this are broken greedily.
    static let maximumOpportunities = 4000
    /// Paragraphs longer than this many characters are broken greedily: the plan needs the
    /// paragraph analysed at once, and longer ones are analysed in windows
    /// (`ParagraphAnalyzer.defaultWindow`). The framesetter analyses paragraphs up to this
    /// length whole for the plan, whatever the window.
    static let maximumLength = ParagraphAnalyzer.defaultWindow
    /// TeX's `\hyphenpenalty`, and the demerits for a second hyphenated line in a row (plain
    /// TeX's `\doublehyphendemerits` is 10,000).
    static let hyphenPenalty = 50.0
    static let doubleHyphenDemerits = 3000.0
    /// The penalty for ending a line inside code (`LineBreaks.Opportunity.code`): about the
    /// demerits of a line at its stretch limit (badness 100), so that code is broken to spare
    /// a loose line but not to make a tight one a little better.
    static let codeBreakPenalty = 110.0
    /// TeX's `\linepenalty`.
    static let linePenalty = 10.0
    /// The badness of a line left ragged where it should be flush, and the most any line has.
    static let worstBadness = 10_000.0
    /// A ragged line's demerits are scaled by 1 + this × its gap as a fraction of the measure,
    /// so a word alone on a line costs more than two lines a little short. 1, 4 and 10 gave
    /// the same ragged ends within 3% on the README's measurement.
    static let raggedGapWeight = 4.0

    /// How bad a line is in a measure of `measure`, on a scale where 0 is flush, 100 is its
    /// slack at its stretch limit (`ParagraphAnalysis.stretch`), and 10,000 is the most; the
    /// last line of a paragraph, and lines ending in a forced break, are never bad.
    static func badness(of local: Range<Int>, in analysis: ParagraphAnalysis, measure: Double, isLast: Bool) -> Double {
        guard !isLast, !local.isEmpty, analysis.breaks[local.upperBound - 1] != .mandatory else { return 0 }
        return badness(slack: measure - analysis.lineWidth(local.lowerBound, local.upperBound),
                       limit: analysis.stretch(local.lowerBound, local.upperBound).limit,
                       shrink: analysis.shrink(local.lowerBound, local.upperBound))
    }

    /// `badness(of:in:measure:isLast:)` of a line that may be bad, from its slack and its
    /// stretch limit (asked only when the line has slack), or, for a line set narrower than
    /// its natural width, from how much of its shrink it uses.
    private static func badness(slack: Double, limit: @autoclosure () -> Double, shrink: Double) -> Double {
        if slack < -LineFiller.tolerance {
            guard shrink > 0 else { return worstBadness }
            return min(worstBadness, 100 * pow3(min(1, -slack / shrink)))
        }
        guard slack > LineFiller.tolerance else { return 0 }
        let limit = limit()
        guard limit > 0 else { return worstBadness }
        return min(worstBadness, 100 * pow3(slack / limit))
    }

    private static func pow3(_ x: Double) -> Double { x * x * x }

    /// Local line ends for a paragraph set in `firstMeasure` (its first line) and `measure`
    /// (the others), starting at local offset 0.
    static func breaks(_ analysis: ParagraphAnalysis, firstMeasure: Double, measure: Double,
                       typography: ArticleLayout.Typography) -> [Int]? {
        let count = analysis.range.count
        guard analysis.range == analysis.paragraph, count <= maximumLength else { return nil }
        guard count > 0 else { return [] }
        // Where lines may end, after the paragraph's start (0): ascending, the last at `count`.
        var positions = [0]
        for i in 0..<count where analysis.breaks[i] != .prohibited { positions.append(i + 1) }
        if positions.last != count { positions.append(count) }
        guard positions.count - 1 <= maximumOpportunities else { return nil }

        // State: (index in `positions`, consecutive hyphenated lines ending there). Best
        // demerits and the state it came from; states are visited in order, so ties keep the
        // first found.
        let limit = max(0, typography.maximumConsecutiveHyphens)
        struct Node {
            var demerits: Double, previous: (index: Int, hyphens: Int)?
            func isBetter(than other: Node?) -> Bool { other.map { demerits < $0.demerits } ?? true }
        }
        var best = [[Node?]](repeating: [Node?](repeating: nil, count: limit + 1), count: positions.count)
        best[0][0] = Node(demerits: 0, previous: nil)
        for start in positions.indices {
            let position = positions[start]
            let lineMeasure = position == 0 ? firstMeasure : measure
            for hyphens in 0...limit {
                guard let node = best[start][hyphens] else { continue }
                // Scan forward over the line ends after `position` while they fit.
                for endIndex in (start + 1)..<positions.count {
                    let end = positions[endIndex]
                    let width = analysis.width(position, end)
                    let shrink = analysis.shrink(position, end)
                    if width - shrink > lineMeasure + LineFiller.tolerance { break }
                    let hyphenated = analysis.breaks[end - 1] == .hyphen
                    let natural = hyphenated ? analysis.lineWidth(position, end) : width
                    if natural - shrink > lineMeasure + LineFiller.tolerance { continue }
                    let run = hyphenated ? hyphens + 1 : 0
                    if run > limit { continue }
                    let mandatory = analysis.breaks[end - 1] == .mandatory
                    var badness = (end == count || mandatory) && natural <= lineMeasure + LineFiller.tolerance ? 0
                        : badness(slack: lineMeasure - natural, limit: analysis.stretch(position, end).limit, shrink: shrink)
                    var raggedScale = 1.0
                    if badness > 0, end != count, !mandatory,
                       Framesetter.justification(of: position..<end, in: analysis, lastLine: false, measure: lineMeasure,
                                                 typography: typography).isRagged {
                        badness = worstBadness
                        raggedScale = 1 + raggedGapWeight * max(0, lineMeasure - natural) / lineMeasure
                    }
                    var demerits = (linePenalty + badness) * (linePenalty + badness) * raggedScale
                    if hyphenated { demerits += hyphenPenalty * hyphenPenalty }
                    if analysis.breaks[end - 1] == .code { demerits += codeBreakPenalty * codeBreakPenalty }
                    if hyphenated && hyphens > 0 { demerits += doubleHyphenDemerits }
                    let candidate = Node(demerits: node.demerits + demerits, previous: (start, hyphens))
                    if candidate.isBetter(than: best[endIndex][run]) { best[endIndex][run] = candidate }
                    if mandatory { break }
                }
            }
        }
        let last = positions.count - 1
        var finalRun: Int?
        for run in 0...limit {
            guard let node = best[last][run] else { continue }
            if let chosen = finalRun, !node.isBetter(than: best[last][chosen]) { continue }
            finalRun = run
        }
        guard let finalRun else { return nil }
        var ends: [Int] = []
        var state: (index: Int, hyphens: Int)? = (last, finalRun)
        while let current = state, current.index > 0 {
            ends.append(positions[current.index])
            state = best[current.index][current.hyphens]?.previous
        }
        return ends.reversed()
    }
}
