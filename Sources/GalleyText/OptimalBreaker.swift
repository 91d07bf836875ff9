/// Total-fit line breaking (Knuth and Plass): chooses all of a paragraph's line ends at once so
/// that the sum of the lines' demerits is least, over the same opportunities the greedy filler
/// uses.
///
/// A line's badness grows with the cube of how far its spaces must stretch (see `badness`);
/// demerits add a penalty for ending in a hyphen and a larger one for a second hyphen in a
/// row, and the limit of consecutive hyphenated lines is a hard rule (it is part of the search
/// state). Lines never exceed the measure. Returns nil when no set of breaks fits (a word wider
/// than the column: the greedy filler then breaks inside it) or when the paragraph has too many
/// opportunities for the search to be cheap.
enum OptimalBreaker {
    /// Paragraphs with more break opportunities than this are broken greedily.
    static let maximumOpportunities = 4000
    /// TeX's `\hyphenpenalty` and `\doublehyphendemerits`.
    static let hyphenPenalty = 50.0
    static let doubleHyphenDemerits = 3000.0
    /// TeX's `\linepenalty`.
    static let linePenalty = 10.0

    /// How bad a line is in a measure of `measure`, on a scale where 0 is flush, 100 is its
    /// slack at its stretch limit (`ParagraphAnalysis.stretch`), and 10,000 is the most; the
    /// last line of a paragraph, and lines ending in a forced break, are never bad.
    static func badness(of local: Range<Int>, in analysis: ParagraphAnalysis, measure: Double, isLast: Bool) -> Double {
        guard !isLast, !local.isEmpty, analysis.breaks[local.upperBound - 1] != .mandatory else { return 0 }
        let slack = max(0, measure - analysis.lineWidth(local.lowerBound, local.upperBound))
        guard slack > LineFiller.tolerance else { return 0 }
        let limit = analysis.stretch(local.lowerBound, local.upperBound).limit
        guard limit > 0 else { return 10_000 }
        return min(10_000, 100 * pow3(slack / limit))
    }

    private static func pow3(_ x: Double) -> Double { x * x * x }

    /// Local line ends for a paragraph set in `firstMeasure` (its first line) and `measure`
    /// (the others), starting at local offset 0.
    static func breaks(_ analysis: ParagraphAnalysis, firstMeasure: Double, measure: Double,
                       maximumConsecutiveHyphens: Int) -> [Int]? {
        let count = analysis.range.count
        guard count > 0 else { return [] }
        var candidates: [Int] = []
        for i in 0..<count where analysis.breaks[i] != .prohibited { candidates.append(i + 1) }
        if candidates.last != count { candidates.append(count) }
        guard candidates.count <= maximumOpportunities else { return nil }

        // State: (position, consecutive hyphenated lines ending there). Best demerits and the
        // state it came from.
        let limit = max(0, maximumConsecutiveHyphens)
        struct Node { var demerits: Double; var previous: (position: Int, hyphens: Int)? }
        var best: [Int: [Int: Node]] = [0: [0: Node(demerits: 0, previous: nil)]]
        let positions = [0] + candidates
        for position in positions {
            guard let states = best[position] else { continue }
            let lineMeasure = position == 0 ? firstMeasure : measure
            for (hyphens, node) in states {
                // Scan forward over the candidates after `position` while they fit.
                var index = firstIndex(in: candidates, after: position)
                while index < candidates.count {
                    let end = candidates[index]
                    index += 1
                    if analysis.width(position, end) > lineMeasure + LineFiller.tolerance { break }
                    let hyphenated = analysis.breaks[end - 1] == .hyphen
                    if hyphenated && analysis.lineWidth(position, end) > lineMeasure + LineFiller.tolerance { continue }
                    let run = hyphenated ? hyphens + 1 : 0
                    if run > limit { continue }
                    let isLast = end == count
                    let badness = badness(of: position..<end, in: analysis, measure: lineMeasure, isLast: isLast)
                    var demerits = (linePenalty + badness) * (linePenalty + badness)
                    if hyphenated { demerits += hyphenPenalty * hyphenPenalty }
                    if hyphenated && hyphens > 0 { demerits += doubleHyphenDemerits }
                    let total = node.demerits + demerits
                    if best[end]?[run].map({ total < $0.demerits }) ?? true {
                        best[end, default: [:]][run] = Node(demerits: total, previous: (position, hyphens))
                    }
                    if analysis.breaks[end - 1] == .mandatory { break }
                }
            }
        }
        guard let finals = best[count], let last = finals.min(by: { $0.value.demerits < $1.value.demerits }) else { return nil }
        var ends: [Int] = []
        var state: (position: Int, hyphens: Int)? = (count, last.key)
        while let current = state, current.position > 0 {
            ends.append(current.position)
            state = best[current.position]?[current.hyphens]?.previous
        }
        return ends.reversed()
    }

    /// Index of the first candidate greater than `position` (binary search).
    private static func firstIndex(in candidates: [Int], after position: Int) -> Int {
        var low = 0, high = candidates.count
        while low < high {
            let mid = (low + high) / 2
            if candidates[mid] <= position { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
