/// The column height that balances a row of columns: the page's own (`ArticleTypesetter`) and
/// a multi-column element's (`MulticolLayouter`) are balanced by the same search.
///
/// The height is the shortest at which the text still fits in the columns, found by bisection
/// to within `tolerance` with trial fills on copies of the framesetter (CSS Multi-column
/// leaves balancing to the user agent; WeasyPrint also searches by trial layouts). A height
/// fits only if no more break rules yield in it than in full columns, so balancing never
/// leaves a heading at a column's foot or a widow. Those rules may make "fits" not quite
/// monotonic in the height; the search keeps the lowest height it saw fit, so the result
/// always holds the text. Costs about a dozen fills of the balanced columns, and of no others.
enum ColumnBalancer {
    /// How close to the shortest balanced column height the search gets, in points.
    static let tolerance = 0.5

    /// What one trial fill of the columns cut to a height found.
    struct Trial {
        /// Whether the columns took the text up to where the balanced part ends (a block
        /// across them, or the end of what they hold).
        var fits = false
        /// Whether that end is a block across the columns.
        var beforeSpanner = false
        /// Break rules that yielded.
        var exceptions = 0
        /// How deep the deepest column reaches, and the columns' depths added up.
        var deepest = 0.0
        var total = 0.0
    }

    /// What one column of a trial did: where its text ended, the break rules that yielded, how
    /// deep it reaches, and whether it stopped before a block across the columns, at the end
    /// of what the columns hold, or at a page break.
    struct Column {
        var end: Int
        var exceptions: Int
        var depth: Double
        var beforeSpanner: Bool
        var atEnd: Bool
        var pageBreak: Bool
    }

    /// A trial: the columns filled in turn by `fill` (the column's index, where its text
    /// starts; nil when not even one line fits) from `start`, until one stops before a
    /// spanner, at the end or at a page break; `finished` says whether a position is the end.
    static func trial(columns: Int, from start: Int, finished: (Int) -> Bool, fill: (Int, Int) -> Column?) -> Trial {
        var trial = Trial()
        var position = start
        for index in 0..<columns where !finished(position) {
            guard let column = fill(index, position) else { return Trial() }
            position = column.end
            trial.exceptions += column.exceptions
            (trial.deepest, trial.total) = (max(trial.deepest, column.depth), trial.total + column.depth)
            if column.beforeSpanner {
                trial.fits = true
                trial.beforeSpanner = true
                return trial
            }
            if column.atEnd || column.pageBreak { break }
        }
        trial.fits = trial.fits || finished(position)
        return trial
    }

    /// The column height (from 0 to `room`) that balances `columns` columns, or nil to fill
    /// them to their foot: when their text does not end in them, or ends at the end of the
    /// flow with `fill` `auto` (a block across the columns always balances those above it).
    /// `trial` fills the columns cut to a height.
    static func balancedExtent(room: Double, columns: Int, fill: ArticleLayout.ColumnFill, trial: (Double) -> Trial) -> Double? {
        guard columns > 1 else { return nil }
        let unbalanced = trial(room)
        guard unbalanced.fits, unbalanced.beforeSpanner || fill == .balance else { return nil }
        // A height fits when it holds the text with no more yielded break rules (a heading
        // left at a column's foot, a widow) than the full columns have.
        func fits(_ extent: Double) -> Bool {
            let result = trial(extent)
            return result.fits && result.exceptions <= unbalanced.exceptions
        }
        // The search starts from what the full columns show: the deepest of them holds the
        // text when cut to its own depth (checked, as keep rules may say otherwise), and
        // columns shallower than an even share of the text's depth cannot. A bound that turns
        // out wrong costs only balance, never text: `high` is always a height that fits.
        var high = room
        if unbalanced.deepest + tolerance < room, fits(unbalanced.deepest + tolerance) {
            high = unbalanced.deepest + tolerance
        }
        var low = min(high, max(0, unbalanced.total / Double(columns) - tolerance))
        while high - low > tolerance {
            let middle = (low + high) / 2
            if fits(middle) { high = middle } else { low = middle }
        }
        return high
    }
}
