/// Pages inserted or removed in the middle of a document: pages are compared by number, so one
/// page inserted changes every page after it; when the pages after the first difference match
/// the base's shifted by the difference in page count, the report says pages were inserted
/// (or removed) there, so a reviewer does not read twenty "changed" pages as twenty changes.
enum PageShifts {
    /// How two pages are told equal: by the SHA-256 of their pictures, or (`--text`) by their
    /// words when the pictures differ (a running page number in a footer changes every image).
    struct Fingerprint: Equatable {
        var sha256: String?
        var words: [Substring]?

        func matches(_ other: Fingerprint) -> (Bool, by: String) {
            if let a = sha256, a == other.sha256 { return (true, "image") }
            if let a = words, let b = other.words, !a.isEmpty, WordDiff.similarity(a, b) >= 0.9 { return (true, "text") }
            return (false, "")
        }
    }

    /// The shifts of each layout of a document whose page jobs are `jobs` (in order);
    /// `words(job, isBase)` gives a page's words when text is compared.
    static func find(_ jobs: [DiffPlan.PageJob], words: (DiffPlan.PageJob, Bool) -> [Substring]? = { _, _ in nil }) -> [DiffReport.Shift] {
        var layouts: [String?] = []
        for job in jobs where !layouts.contains(job.layout) { layouts.append(job.layout) }
        var shifts: [DiffReport.Shift] = []
        for layout in layouts {
            let group = jobs.filter { $0.layout == layout }
            let base = group.filter { $0.base != nil }.map { Fingerprint(sha256: $0.base?.picture?.sha256, words: words($0, true)) }
            let new = group.filter { $0.new != nil }.map { Fingerprint(sha256: $0.new?.picture?.sha256, words: words($0, false)) }
            if let shift = shift(base: base, new: new) {
                shifts.append(DiffReport.Shift(kind: shift.inserted ? .inserted : .removed, layout: layout, at: shift.at,
                                               count: shift.count, matchingPages: shift.matching, matchedBy: shift.by))
            }
        }
        return shifts
    }

    /// Where `new` has pages inserted into (or removed from) `base`: from the first page that
    /// differs, the pages after it must match the other run's shifted by the difference in
    /// page count (at least four in five of them, and one at least). Pages added or removed at
    /// the end are not a shift.
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
        return (difference > 0, first + 1, count, matching, by.contains("text") ? "text" : "image")
    }
}
