/// A word-level diff of two page texts: the runs of words removed and the words put in their
/// place, so a reviewer reads "`timeout` → `deadline`" beside the pixels.
///
/// By hand (no diff package among Galley's dependencies): the common prefix and suffix are cut
/// off first, which leaves a small middle for a typical edit, and the middle is aligned by a
/// longest common subsequence table. A middle too large for the table (over
/// `tableLimit` cells, a page rewritten) is reported as one replacement.
enum WordDiff {
    static let tableLimit = 4_000_000

    /// The words of a text: runs of characters between white space.
    static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0.isWhitespace })
    }

    /// The edits that turn `a` into `b`, in order; each edit is a run of removed words next to
    /// a run of added ones (either may be empty).
    static func edits(_ a: [Substring], _ b: [Substring]) -> [DiffReport.WordEdit] {
        edits(script(a, b))
    }

    /// The edits of an edit script.
    static func edits(_ steps: [Step]) -> [DiffReport.WordEdit] {
        var edits: [DiffReport.WordEdit] = []
        var removed: [Substring] = [], added: [Substring] = []
        func flush() {
            if !removed.isEmpty || !added.isEmpty {
                edits.append(DiffReport.WordEdit(removed: removed.joined(separator: " "), added: added.joined(separator: " ")))
            }
            removed = []; added = []
        }
        for step in steps {
            switch step {
            case .keep: flush()
            case .remove(let word): removed.append(word)
            case .add(let word): added.append(word)
            }
        }
        flush()
        return edits
    }

    /// How alike two word lists are: twice the common words over all words (1 when equal).
    static func similarity(_ a: [Substring], _ b: [Substring]) -> Double {
        guard !a.isEmpty || !b.isEmpty else { return 1 }
        let kept = script(a, b).reduce(0) { count, step in if case .keep = step { count + 1 } else { count } }
        return 2 * Double(kept) / Double(a.count + b.count)
    }

    enum Step: Equatable {
        case keep(Substring), remove(Substring), add(Substring)
    }

    /// An edit script from `a` to `b` keeping a longest common subsequence.
    static func script(_ a: [Substring], _ b: [Substring]) -> [Step] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        let x = Array(a[prefix..<(a.count - suffix)]), y = Array(b[prefix..<(b.count - suffix)])
        var steps = a[..<prefix].map { Step.keep($0) }
        if x.isEmpty || y.isEmpty || (x.count + 1) * (y.count + 1) > tableLimit {
            steps += x.map { .remove($0) } + y.map { .add($0) }
        } else {
            // lengths[i][j]: longest common subsequence of x[i...] and y[j...].
            let width = y.count + 1
            var lengths = [Int32](repeating: 0, count: (x.count + 1) * width)
            for i in stride(from: x.count - 1, through: 0, by: -1) {
                for j in stride(from: y.count - 1, through: 0, by: -1) {
                    lengths[i * width + j] = x[i] == y[j] ? lengths[(i + 1) * width + j + 1] + 1
                        : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
                }
            }
            var i = 0, j = 0
            while i < x.count || j < y.count {
                if i < x.count, j < y.count, x[i] == y[j] {
                    steps.append(.keep(x[i])); i += 1; j += 1
                } else if i < x.count, j == y.count || lengths[(i + 1) * width + j] == lengths[i * width + j] {
                    // Removals first within a run: the order `edits` groups them in.
                    steps.append(.remove(x[i])); i += 1
                } else {
                    steps.append(.add(y[j])); j += 1
                }
            }
        }
        steps += a[(a.count - suffix)...].map { .keep($0) }
        return steps
    }
}
