/// Pages inserted or removed in the middle of a document. Pages are paired by number, so one
/// page inserted would change every page after it; when the pages after the first difference
/// match the base's shifted by the difference in page count, they are paired with those pages
/// instead: the report says pages were inserted (or removed) there, and the pages equal to
/// their shifted partner are `shifted`, not changed, so a reviewer does not read fifty-eight
/// "changed" pages as fifty-eight changes, and a real change elsewhere stays in view.
enum PageShifts {
    /// How two pages are told equal: by the SHA-256 of their pictures, or (`--text`) by their
    /// words when the pictures differ (a running page number in a footer changes every image).
    struct Fingerprint: Equatable {
        var sha256: String?
        var words: [Substring]?

        /// Close enough to find a shift: the same picture, or nine in ten words alike.
        func matches(_ other: Fingerprint) -> (Bool, by: String) {
            if let a = sha256, a == other.sha256 { return (true, "image") }
            if let a = words, let b = other.words, !a.isEmpty, WordDiff.similarity(a, b) >= 0.9 { return (true, "text") }
            return (false, "")
        }

        /// The same page moved: the same picture, or the same words but for numbers (a
        /// running page number). Anything else is compared and reported as a change.
        func isSamePage(as other: Fingerprint) -> Bool {
            if let a = sha256, a == other.sha256 { return true }
            guard let a = words, let b = other.words else { return false }
            let x = a.filter { !$0.allSatisfy(\.isNumber) }, y = b.filter { !$0.allSatisfy(\.isNumber) }
            return !x.isEmpty && x == y
        }
    }

    /// Pages of one layout paired: positions in the base's and the new run's page lists (nil
    /// for a page the other run does not have), in reading order.
    struct Alignment {
        var pairs: [(base: Int?, new: Int?)]
        /// The shift found, with `at` the position (0-based) of the first page inserted or removed.
        var shift: (inserted: Bool, at: Int, count: Int, matching: Int, by: String)?
    }

    /// The pairs for `base` and `new` pages: shifted where a shift is found, else by position.
    static func align(base: [Fingerprint], new: [Fingerprint]) -> Alignment {
        guard let found = shift(base: base, new: new) else {
            return Alignment(pairs: (0..<max(base.count, new.count)).map { ($0 < base.count ? $0 : nil, $0 < new.count ? $0 : nil) })
        }
        let first = found.at, count = found.count
        var pairs: [(base: Int?, new: Int?)] = (0..<first).map { ($0, $0) }
        if found.inserted {
            pairs += (first..<first + count).map { (nil, $0) }
            pairs += (first..<base.count).map { ($0, $0 + count) }
        } else {
            pairs += (first..<first + count).map { ($0, nil) }
            pairs += (first..<new.count).map { ($0 + count, $0) }
        }
        return Alignment(pairs: pairs, shift: found)
    }

    /// Where `new` has pages inserted into (or removed from) `base`: from the first page that
    /// differs, the pages after it must match the other run's shifted by the difference in
    /// page count (at least four in five of them, and one at least). Pages added or removed at
    /// the end are not a shift. `at` is 0-based.
    static func shift(base: [Fingerprint], new: [Fingerprint]) -> (inserted: Bool, at: Int, count: Int, matching: Int, by: String)? {
        let difference = new.count - base.count
        guard difference != 0 else { return nil }
        var first = 0
        while first < min(base.count, new.count), base[first].matches(new[first]).0 { first += 1 }
        let longer = difference > 0 ? new : base, shorter = difference > 0 ? base : new
        let count = abs(difference)
        let following = shorter.count - first
        guard following > 0 else { return nil }
        var matching = 0
        var by = Set<String>()
        for i in 0..<following {
            let (equal, how) = shorter[first + i].matches(longer[first + count + i])
            if equal {
                matching += 1
                by.insert(how)
            }
        }
        guard matching > 0, matching * 5 >= following * 4 else { return nil }
        return (difference > 0, first, count, matching, by.contains("text") ? "text" : "image")
    }
}
