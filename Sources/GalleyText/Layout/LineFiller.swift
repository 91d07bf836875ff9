/// Chooses where lines of one paragraph end: greedy first fit over UAX #14 opportunities
/// (Pango's `ParaBreakState`).
///
/// State: the paragraph's analysis (or a window of it) and the next character to place.
/// Everything else (measure, indents) comes with each request, because consecutive lines of a
/// paragraph can fall in columns of different widths.
struct LineFiller {
    let analysis: ParagraphAnalysis
    /// Next character to place, local to the analysis.
    private(set) var position: Int

    /// Widths may differ from the measure by float noise.
    static let tolerance = 1e-6

    /// Set by `nextLine` when no opportunity fitted and the line was cut between two letters of a
    /// word: the hyphen it then shows, which the caller marks in its analysis
    /// (`ParagraphAnalysis.markHyphen`).
    private(set) var emergencyHyphen: HyphenGlyph?

    init(analysis: ParagraphAnalysis, position: Int) {
        self.analysis = analysis
        self.position = position
    }

    var isFinished: Bool { analysis.range.lowerBound + position >= analysis.paragraph.upperBound }
    /// Whether the next line is the paragraph's first.
    var atParagraphStart: Bool { analysis.range.lowerBound + position == analysis.paragraph.lowerBound }

    /// Ends the next line within `measure` points and returns its local range. A line that
    /// ends at a hyphen opportunity counts the hyphen's width; a line whose spaces may shrink
    /// (`ParagraphAnalysis.shrink`) fits when it does once they are shrunk. With `hyphenAllowed` false (the
    /// limit of consecutive hyphenated lines is reached) hyphen opportunities are passed over,
    /// unless no other opportunity fits. A `.code` opportunity is taken when the line would
    /// otherwise be too loose to justify, or nothing else fits. A word wider than the measure is broken between
    /// clusters; a single cluster wider than the measure is an error, since nothing could make
    /// it fit. Nil when the line could reach past what a window of the paragraph knows
    /// (`exactEnd`): a longer window must decide it.
    /// `fragments`: the fewest letters a word cut as the last resort keeps on each side of the
    /// hyphen it then shows (the layout's `hyphenate_before` and `hyphenate_after`).
    mutating func nextLine(measure: Double, hyphenAllowed: Bool = true,
                           fragments: (before: Int, after: Int) = (2, 2)) throws(TypesetError) -> Range<Int>? {
        let start = position
        emergencyHyphen = nil
        let count = analysis.exactCount
        var fitting: Int?
        var hyphenFitting: Int?
        var codeFitting: Int?
        var i = start
        var stopped = false
        while i < count {
            let opportunity = analysis.breaks[i]
            // Past twice the measure no later opportunity can fit (widths less shrink only grow,
            // but for kerning, which is far less than a measure): stop here, so a line of text
            // without opportunities costs what it holds, not the rest of the paragraph (4 MB of
            // `a` took quadratic time, 48 s for 1 MB).
            if opportunity == .prohibited, analysis.width(start, i + 1) - analysis.shrink(start, i + 1) > 2 * measure + 1 {
                stopped = true
                break
            }
            if opportunity != .prohibited {
                let end = i + 1
                let shrink = analysis.shrink(start, end)
                guard analysis.width(start, end) - shrink <= measure + Self.tolerance else { stopped = true; break }
                if opportunity == .code {
                    codeFitting = end
                } else if opportunity != .hyphen {
                    fitting = end
                } else if analysis.lineWidth(start, end) - shrink <= measure + Self.tolerance {
                    if hyphenAllowed { fitting = end } else { hyphenFitting = end }
                }
                if opportunity == .mandatory { stopped = true; break }
            }
            i += 1
        }
        guard stopped || analysis.reachesParagraphEnd else { return nil }
        let end: Int
        if let code = codeFitting, code > fitting ?? start, fitting.map({ isTooLoose(start, $0, measure: measure) }) ?? true {
            end = code
        } else if let best = fitting ?? hyphenFitting {
            end = best
        } else if let emergency = try emergencyEnd(from: start, measure: measure, fragments: fragments) {
            (end, emergencyHyphen) = emergency
        } else {
            return nil
        }
        position = end
        return start..<end
    }

    /// Whether local characters `a..<b` as a line would need more stretch than its spaces
    /// give to be justified: where a `.code` opportunity further on is taken instead.
    func isTooLoose(_ a: Int, _ b: Int, measure: Double) -> Bool {
        let slack = measure - analysis.lineWidth(a, b)
        guard slack > Self.tolerance else { return false }
        let stretch = analysis.stretch(a, b)
        guard stretch.opportunities > 0 else { return true }
        return !stretch.betweenClusters && slack > stretch.limit + Self.tolerance
    }

    /// Ends the next line at local offset `end`, chosen beforehand (by the optimal breaker).
    mutating func take(to end: Int) -> Range<Int> {
        let start = position
        position = end
        return start..<end
    }

    /// Where a line ends when no break opportunity fits, as a last resort: after the last
    /// no-break space that fits (a space, though the text asked to keep the words together:
    /// `Chapter 7. Basics` with no-break spaces); else at the last cluster boundary between two
    /// letters where the word's first part and a hyphen fit (the hyphen to show); else at the
    /// last cluster boundary that fits (code, digits, ideographs: no hyphen; code with the
    /// layout's continuation mark when it has one, `codeContinuationMark`). Nil when it could
    /// lie past `exactEnd`. A single cluster wider than the measure is an error.
    private func emergencyEnd(from start: Int, measure: Double,
                              fragments: (before: Int, after: Int)) throws(TypesetError) -> (end: Int, hyphen: HyphenGlyph?)? {
        let count = analysis.exactCount
        let known = analysis.reachesParagraphEnd
        var end = start + 1
        while end < count && !analysis.clusterStart[end] { end += 1 }
        guard end < count || known else { return nil }
        guard analysis.width(start, end) <= measure + Self.tolerance else {
            throw TypesetError(.columnTooSmall, String(format: "a column %.1f pt wide cannot hold the character at offset %d (%.1f pt wide); widen the columns or lower font_size", measure, analysis.range.lowerBound + start, analysis.width(start, end)))
        }
        var afterSpace: Int?
        var withHyphen: (end: Int, hyphen: HyphenGlyph)?
        var withMark: (end: Int, mark: HyphenGlyph)?
        var next = end
        while next <= count {
            guard next < count || known else { return nil }
            if next == count || analysis.clusterStart[next] {
                let width = analysis.width(start, next)
                guard width <= measure + Self.tolerance else { break }
                end = next
                if Self.isNoBreakSpace(analysis.scalars[analysis.range.lowerBound + next - 1]) { afterSpace = next }
                if next < count, let hyphen = analysis.emergencyHyphen(before: next, fragments: fragments),
                   width + hyphen.advance <= measure + Self.tolerance {
                    withHyphen = (next, hyphen)
                } else if next < count, let mark = analysis.codeContinuationMark(before: next),
                          width + mark.advance <= measure + Self.tolerance {
                    withMark = (next, mark)
                }
            }
            next += 1
        }
        if let afterSpace { return (afterSpace, nil) }
        if let withHyphen { return (withHyphen.end, withHyphen.hyphen) }
        // Code cut where it is widest, with the layout's continuation mark when it has one.
        if let withMark, end < count, analysis.codeContinuationMark(before: end) != nil { return (withMark.end, withMark.mark) }
        return (end, nil)
    }

    /// Spaces that ask not to be broken at: no-break, narrow no-break and figure space.
    static func isNoBreakSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\u{00A0}" || scalar == "\u{202F}" || scalar == "\u{2007}"
    }
}
