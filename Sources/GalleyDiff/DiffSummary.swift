import Foundation
import GalleyBase

/// The summaries of a diff: Markdown for `$GITHUB_STEP_SUMMARY` (or a merge request comment)
/// and plain text for logs. Both list changed documents first, at most `pageLineLimit` page
/// lines, so a document rewritten from cover to cover does not flood a job's page. Pages
/// shifted by pages inserted or removed before them get no page line (one line says where
/// the shift is), so they never push a real change out of view.
public enum DiffSummary {
    static let pageLineLimit = 60

    /// One line of plain text: the totals, as `galley diff` prints first.
    public static func headline(_ report: DiffReport) -> String {
        let d = report.totals.documents, p = report.totals.pages
        let state = report.outcome == .changed ? "changed" : "no changes"
        var pages = "\(p.changed) changed"
        if p.resized > 0 { pages += " (\(p.resized) resized)" }
        pages += ", \(p.added) added, \(p.removed) removed"
        if p.shifted > 0 { pages += ", \(p.shifted) shifted" }
        pages += ", \(p.unchanged) unchanged"
        if p.similar > 0 { pages += " (\(p.similar) within the limits)" }
        return "galley diff: \(state); documents: \(d.changed) changed, \(d.added) added, \(d.removed) removed, \(d.unchanged) unchanged; pages: \(pages)"
    }

    /// Runs drawn at different resolutions, said once: `drawn at 100 dpi before, 150 now: …`.
    /// Pages whose pictures differ in size for that reason alone get no line of their own.
    static func resolutionLine(_ report: DiffReport) -> String? {
        let redrawn = report.documents.reduce(0) { $0 + $1.changes.count(where: isRedrawn) }
        guard report.dpi != nil || redrawn > 0 else { return nil }
        var line = report.dpi.map { "drawn at \(format($0.base)) dpi before, \(format($0.new)) now" } ?? "pictures of another pixel size"
        if redrawn > 0 {
            line += ": \(plural(redrawn, "page")) of the same size not compared pixel by pixel (no thumbnail size in both runs)"
        } else {
            line += ": pages compared by a thumbnail size both runs have"
        }
        return line
    }

    /// A page of the same size and rotation whose pictures differ in pixels: drawn at another
    /// resolution, not changed in size.
    static func isRedrawn(_ change: DiffReport.PageChange) -> Bool {
        change.status == .resized && change.base != nil && change.base == change.new
    }

    /// The plain-text summary: the headline, then a line per change.
    public static func text(_ report: DiffReport) -> String {
        var lines = [headline(report)]
        if let line = resolutionLine(report) { lines.append("  \(line)") }
        var pageLines = 0
        for document in report.documents where document.status == .changed {
            if let error = document.error { lines.append("  \(document.source): failed: \(error)") }
            if let why = document.textUnavailable { lines.append("  \(document.source): words not compared: \(why)") }
            for change in document.changes where isShown(change) {
                pageLines += 1
                guard pageLines <= pageLineLimit else { continue }
                lines.append("  \(document.source): \(pageName(change)) \(describe(change))")
                for edit in change.words?.edits.prefix(5) ?? [] {
                    lines.append("    \(quoted(edit.removed)) → \(quoted(edit.added))")
                }
            }
            for shift in document.shifts { lines.append("  \(document.source): \(describe(shift, in: document))") }
        }
        if pageLines > pageLineLimit { lines.append("  … and \(pageLines - pageLineLimit) more changed pages (diff.json lists them all)") }
        for document in report.documents where document.status == .added {
            lines.append("  added: \(document.source) (\(plural(document.pages.added, "page")))")
        }
        for document in report.documents where document.status == .removed {
            lines.append("  removed: \(document.source) (\(plural(document.pages.removed, "page")))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The Markdown summary: a heading, a table of totals, then the changed documents.
    public static func markdown(_ report: DiffReport) -> String {
        let d = report.totals.documents, p = report.totals.pages
        var out: [String] = []
        if report.outcome == .changed {
            out.append("### Galley diff: \(plural(p.changed + p.added + p.removed, "page")) changed in \(plural(d.changed + d.added + d.removed, "document"))")
        } else {
            out.append("### Galley diff: no changes")
        }
        out.append("")
        out.append("| | documents | pages |")
        out.append("| --- | ---: | ---: |")
        out.append("| changed | \(d.changed) | \(p.changed)\(p.resized > 0 ? " (\(p.resized) resized)" : "") |")
        out.append("| added | \(d.added) | \(p.added) |")
        out.append("| removed | \(d.removed) | \(p.removed) |")
        if p.shifted > 0 { out.append("| shifted | | \(p.shifted) |") }
        out.append("| unchanged | \(d.unchanged) | \(p.unchanged)\(p.similar > 0 ? " (\(p.similar) within the limits)" : "") |")
        if let line = resolutionLine(report) { out += ["", markdownEscape(line.prefix(1).uppercased() + line.dropFirst()) + "."] }
        var pageLines = 0
        for document in report.documents where document.status == .changed {
            out.append("")
            out.append("**\(markdownEscape(document.source))**")
            out.append("")
            if let error = document.error { out.append("- failed: `\(error.code.rawValue)` \(markdownEscape(error.message))") }
            if let why = document.textUnavailable { out.append("- words not compared: \(markdownEscape(why))") }
            for change in document.changes where isShown(change) {
                pageLines += 1
                guard pageLines <= pageLineLimit else { continue }
                var line = "- \(pageName(change)) \(describe(change))"
                let edits = change.words?.edits.prefix(5).map { "~~\(markdownEscape($0.removed))~~ → **\(markdownEscape($0.added))**" } ?? []
                if !edits.isEmpty { line += ": " + edits.joined(separator: ", ") }
                out.append(line)
            }
            for shift in document.shifts { out.append("- \(describe(shift, in: document))") }
        }
        if pageLines > pageLineLimit { out.append("\n… and \(pageLines - pageLineLimit) more changed pages (diff.json lists them all)") }
        let added = report.documents.filter { $0.status == .added }, removed = report.documents.filter { $0.status == .removed }
        if !added.isEmpty {
            out.append("")
            out.append("Added: " + added.map { "\(Escape.markdownCode($0.source)) (\(plural($0.pages.added, "page")))" }.joined(separator: ", "))
        }
        if !removed.isEmpty {
            out.append("")
            out.append("Removed: " + removed.map { "\(Escape.markdownCode($0.source)) (\(plural($0.pages.removed, "page")))" }.joined(separator: ", "))
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// Whether a page gets a line of its own: not when it stayed within the limits, nor when it
    /// is the base's page moved by pages inserted or removed before it (its shift's line says so),
    /// nor when only the resolution changed its pictures (`resolutionLine` counts those).
    static func isShown(_ change: DiffReport.PageChange) -> Bool {
        change.status != .similar && change.status != .shifted && !isRedrawn(change)
    }

    /// `page 3`, or `page 3 (portrait)` for an article's layout.
    static func pageName(_ change: DiffReport.PageChange) -> String {
        "page \(change.number)" + (change.layout.map { " (\($0))" } ?? "")
    }

    /// What happened to a page, after its name.
    static func describe(_ change: DiffReport.PageChange) -> String {
        switch change.status {
        case .changed, .similar:
            let percent = String(format: "%.2f", (change.changedFraction ?? 0) * 100)
            return "changed: \(percent)% of pixels (\(change.changedPixels ?? 0)), \(plural(change.regions?.count ?? 0, "region"))"
        case .resized:
            let size = { (s: DiffReport.PageSize?) in
                s.map { "\(format($0.widthPt))×\(format($0.heightPt)) pt" + ($0.rotation != 0 ? " rotated \($0.rotation)°" : "") } ?? "?"
            }
            return "resized: \(size(change.base)) → \(size(change.new))"
        case .added: return "added"
        case .removed: return "removed"
        case .unreadable: return "unreadable: \(change.error ?? "")"
        case .shifted: return "shifted: the base's page \(change.baseNumber ?? change.number), unchanged"
        }
    }

    /// Where pages were inserted or removed, and which pages after it are the base's shifted
    /// (`5–62 were 6–63`): those are not changes.
    static func describe(_ shift: DiffReport.Shift, in document: DiffReport.Document) -> String {
        let verb = shift.kind == .inserted ? "inserted" : "removed"
        let at = shift.kind == .inserted ? "at page \(shift.at)" : "after page \(shift.at - 1)"
        let moved = document.changes.filter { $0.status == .shifted && $0.layout == shift.layout }
        var line = "\(plural(shift.count, "page")) \(verb) \(at)\(shift.layout.map { " (\($0))" } ?? ""): "
        if moved.isEmpty {
            line += "the pages after it differ from the base's shifted by \(shift.count)"
        } else {
            line += "\(plural(moved.count, "page")) after it are the base's shifted by \(shift.count), not changed "
                + "(matched by \(shift.matchedBy): \(moved.count == 1 ? "page" : "pages") \(ranges(moved.map(\.number))) "
                + "\(moved.count == 1 ? "was" : "were") \(ranges(moved.map { $0.baseNumber ?? $0.number })))"
        }
        return line
    }

    /// Numbers as ranges: `3, 5–9`.
    static func ranges(_ numbers: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < numbers.count {
            var end = index
            while end + 1 < numbers.count && numbers[end + 1] == numbers[end] + 1 { end += 1 }
            parts.append(end == index ? "\(numbers[index])" : "\(numbers[index])–\(numbers[end])")
            index = end + 1
        }
        return parts.joined(separator: ", ")
    }

    static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.2f", value)
    }

    private static func quoted(_ words: String) -> String {
        words.isEmpty ? "(nothing)" : "\"\(words)\""
    }

    /// Markdown text (`Escape.markdown`).
    static func markdownEscape(_ text: String) -> String { Escape.markdown(text) }
}
