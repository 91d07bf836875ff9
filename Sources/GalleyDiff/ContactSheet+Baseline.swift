import GalleyManifest

extension ContactSheet.Baseline {
    /// What the contact sheet of a run with a baseline shows of its diff: a line with what
    /// changed, the added and changed documents, and the pages shown as changed marked.
    public init(_ diff: DiffReport) {
        let d = diff.totals.documents, p = diff.totals.pages
        let summary = diff.outcome == .changed
            ? "\(DiffSummary.plural(p.changed + p.added + p.removed, "page")) changed (documents: \(d.changed) changed, \(d.added) added, \(d.removed) removed)"
            : "no changes"
        var marks: [String: [ContactSheet.PageKey: String]] = [:]
        for document in diff.documents {
            for change in document.changes where DiffSummary.isShown(change) && change.status != .removed {
                marks[document.name, default: [:]][ContactSheet.PageKey(layout: change.layout, number: change.number)] = change.status.rawValue
            }
        }
        let documents = Dictionary(diff.documents.map { ($0.name, $0.status.rawValue) },
                                   uniquingKeysWith: { a, _ in a })
        self.init(summary: summary, reviewPage: "\(RunDiff.defaultFolder)/\(RunDiff.reviewPageName)", documents: documents, pageMarks: marks)
    }
}
