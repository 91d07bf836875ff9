import Foundation
import GalleyManifest

/// The diff folder's `index.html`: the review page of a diff, in the style of the contact sheet.
///
/// Changed documents first: an overview of every changed page (before and after, small), then
/// each changed page (pages shifted by pages inserted or removed before them get one note
/// after the document's changes, not a picture each) with its after image, which shows the before image while the pointer is
/// over it or while "Show before" is ticked (a checkbox and CSS, no script), and its diff image;
/// then the added, removed and unchanged documents. One static page: styles inline, nothing
/// from the network, paths relative to the diff folder (whose pictures are copies, so the
/// folder is a review on its own), made from the report alone: the same report gives the same
/// bytes.
public enum DiffReviewPage {
    public static func html(for report: DiffReport) -> String {
        let d = report.totals.documents, p = report.totals.pages
        let changedPages = p.changed + p.added + p.removed
        let title = report.outcome == .changed
            ? "Galley diff: \(DiffSummary.plural(changedPages, "page")) changed in \(DiffSummary.plural(d.changed + d.added + d.removed, "document"))"
            : "Galley diff: no changes"
        var out: [String] = []
        out.append("""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>
            \(style)
            </style>
            </head>
            <body>
            <input type="checkbox" id="show-before" class="toggle">
            <header>
            <h1>\(escape(title))</h1>
            <p class="totals">documents: \(d.changed) changed, \(d.added) added, \(d.removed) removed, \(d.unchanged) unchanged · pages: \(p.changed) changed\(p.resized > 0 ? " (\(p.resized) resized)" : ""), \(p.added) added, \(p.removed) removed\(p.shifted > 0 ? ", \(p.shifted) shifted" : ""), \(p.unchanged) unchanged</p>
            \(DiffSummary.resolutionLine(report).map { "<p class=\"totals\">\(escape($0))</p>\n" } ?? "")<p class="runs">before: <code>\(escape(report.base))</code> · after: <code>\(escape(report.new))</code> · threshold \(DiffSummary.format(report.settings.threshold))</p>
            <label for="show-before" class="switch">Show before</label> <span class="hint">or point at a page to see it before</span>
            </header>
            <main>
            """)
        let changed = report.documents.filter { $0.status == .changed }
        let shown = changed.flatMap { document in document.changes.filter(DiffSummary.isShown).map { (document, $0) } }
        if !shown.isEmpty {
            out.append("<section class=\"overview\">\n<h2>Changed pages (\(shown.count))</h2>\n<div class=\"grid\">")
            for (document, change) in shown {
                let caption = escape("\(document.source) \(DiffSummary.pageName(change))")
                let picture = change.images?.sideBySide.map { "<img src=\"\(url($0))\" alt=\"\(caption): before and after\">" }
                    ?? "<span class=\"missing\">no image</span>"
                out.append("<figure><a href=\"#\(anchor(document, change))\">\(picture)</a><figcaption>\(caption) · \(escape(change.status.rawValue))</figcaption></figure>")
            }
            out.append("</div>\n</section>")
        }
        for document in changed {
            out.append("<section class=\"document changed\" id=\"\(anchor(document))\">")
            out.append("<h2>\(escape(document.source))</h2>")
            let counts = document.pages
            var meta = ["\(counts.changed) changed"]
            if counts.resized > 0 { meta.append("\(counts.resized) resized") }
            meta += ["\(counts.added) added", "\(counts.removed) removed"]
            if counts.shifted > 0 { meta.append("\(counts.shifted) shifted") }
            meta.append("\(counts.unchanged) unchanged")
            out.append("<p class=\"meta\">\(document.kind == .pdf ? "PDF" : "article"), pages: \(escape(meta.joined(separator: ", ")))</p>")
            if let error = document.error {
                out.append("<p class=\"error\">failed: <code>\(escape(error.code.rawValue))</code> \(escape(error.message))</p>")
            }
            if let why = document.textUnavailable {
                out.append("<p class=\"meta\">words not compared: \(escape(why))</p>")
            }
            for change in document.changes where DiffSummary.isShown(change) { out.append(page(change, of: document)) }
            if !document.shifts.isEmpty {
                out.append("<ul class=\"notes\">" + document.shifts.map { "<li>\(escape(DiffSummary.describe($0, in: document)))</li>" }.joined() + "</ul>")
            }
            out.append("</section>")
        }
        for (status, heading) in [(DiffReport.DocumentStatus.added, "Added"), (.removed, "Removed"), (.unchanged, "Unchanged")] {
            let documents = report.documents.filter { $0.status == status }
            guard !documents.isEmpty else { continue }
            out.append("<section class=\"list \(status.rawValue)\">\n<h2>\(heading) (\(documents.count))</h2>\n<ul>")
            for document in documents {
                let pages = status == .added ? document.pages.added : status == .removed ? document.pages.removed : document.pages.unchanged
                var note = DiffSummary.plural(pages, "page")
                if document.pages.similar > 0 { note += ", \(document.pages.similar) differing within the limits" }
                out.append("<li>\(escape(document.source)) <span class=\"meta\">(\(escape(note)))</span></li>")
            }
            out.append("</ul>\n</section>")
        }
        out.append("</main>\n</body>\n</html>\n")
        return out.joined(separator: "\n")
    }

    /// One changed page: its pictures and what changed.
    private static func page(_ change: DiffReport.PageChange, of document: DiffReport.Document) -> String {
        let name = DiffSummary.pageName(change)
        let alt = { (what: String) in escape("\(document.source) \(name) \(what)") }
        var out = ["<div class=\"page \(change.status.rawValue)\" id=\"\(anchor(document, change))\">",
                   "<h3>\(escape(name)): \(escape(DiffSummary.describe(change)))</h3>", "<div class=\"pair\">"]
        let images = change.images ?? DiffReport.PageImages()
        func figure(_ path: String?, _ caption: String) -> String? {
            path.map { "<figure><a href=\"\(url($0))\"><img src=\"\(url($0))\" alt=\"\(alt(caption))\"></a><figcaption>\(caption)</figcaption></figure>" }
        }
        if change.status == .changed, let after = images.after, let before = images.before {
            // The two images have the same size: the before image lies over the after image,
            // hidden until pointed at or switched on.
            out.append("<figure class=\"flip\"><a href=\"\(url(after))\"><img class=\"after\" src=\"\(url(after))\" alt=\"\(alt("after"))\">"
                       + "<img class=\"before\" src=\"\(url(before))\" alt=\"\(alt("before"))\"></a>"
                       + "<figcaption><span class=\"after\">after</span><span class=\"before\">before</span></figcaption></figure>")
            out += [figure(images.diff, "diff")].compactMap { $0 }
        } else {
            out += [figure(images.before, "before"), figure(images.after, "after")].compactMap { $0 }
        }
        out.append("</div>")
        if let regions = change.regions, !regions.isEmpty {
            let listed = regions.prefix(8).map { "\(DiffSummary.format($0.x)),\(DiffSummary.format($0.y)) \(DiffSummary.format($0.width))×\(DiffSummary.format($0.height))" }
            out.append("<p class=\"regions\">regions (pt, from the top left): \(escape(listed.joined(separator: "; ")))\(regions.count > 8 ? " …" : "")</p>")
        }
        if let words = change.words, !words.edits.isEmpty {
            let edits = words.edits.prefix(20).map { edit in
                (edit.removed.isEmpty ? "" : "<del>\(escape(edit.removed))</del>") + (edit.removed.isEmpty || edit.added.isEmpty ? "" : " → ")
                    + (edit.added.isEmpty ? "" : "<ins>\(escape(edit.added))</ins>")
            }
            out.append("<p class=\"words\">text: \(edits.joined(separator: " · "))\(words.edits.count > 20 ? " …" : "")</p>")
        }
        if let error = change.error { out.append("<p class=\"error\">\(escape(error))</p>") }
        out.append("</div>")
        return out.joined(separator: "\n")
    }

    private static let style = """
        :root { color-scheme: light; }
        body { font: 14px/1.45 "DejaVu Sans", system-ui, sans-serif; margin: 24px; color: #222; background: #f3f3f1; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 16px; margin: 0; word-break: break-all; }
        h3 { font-size: 13px; margin: 14px 0 6px; color: #333; }
        .totals, .runs, .meta { color: #555; margin: 2px 0 0; }
        .meta, .runs, .hint { font-size: 12px; }
        code { font-family: "DejaVu Sans Mono", monospace; background: #ececea; padding: 0 4px; border-radius: 3px; }
        .toggle { position: absolute; opacity: 0; }
        .switch { display: inline-block; margin-top: 8px; padding: 3px 10px; border: 1px solid #2b6cb0; border-radius: 4px; color: #2b6cb0; cursor: pointer; user-select: none; }
        .toggle:checked ~ header .switch { background: #2b6cb0; color: #fff; }
        .toggle:focus-visible ~ header .switch { outline: 2px solid #2b6cb0; outline-offset: 2px; }
        .hint { color: #777; }
        section { background: #fff; border-radius: 6px; padding: 12px 16px 16px; margin: 16px 0; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
        section.changed { border-left: 4px solid #c0392b; }
        section.overview { border-left: 4px solid #c0392b; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 14px; margin-top: 10px; align-items: end; }
        .grid img { max-width: 100%; height: auto; }
        .pair { display: grid; grid-template-columns: repeat(2, minmax(0, 460px)); gap: 16px; align-items: start; }
        figure { margin: 0; text-align: center; }
        .pair img { width: 100%; height: auto; background: #fff; border: 1px solid #c8c8c8; box-shadow: 0 1px 2px rgba(0,0,0,.15); }
        figcaption { font-size: 12px; color: #555; margin-top: 4px; }
        .flip a { position: relative; display: block; }
        .flip img.before { position: absolute; left: 0; top: 0; visibility: hidden; }
        .flip figcaption .before { display: none; }
        .flip:hover img.before, .toggle:checked ~ main .flip img.before { visibility: visible; }
        .flip:hover figcaption .before, .toggle:checked ~ main .flip figcaption .before { display: inline; }
        .flip:hover figcaption .after, .toggle:checked ~ main .flip figcaption .after { display: none; }
        .notes { margin: 8px 0 0; padding-left: 20px; color: #7a4b00; }
        .regions, .words { font-size: 12px; color: #444; margin: 6px 0 0; }
        del { background: #fde2e0; color: #9b1c12; }
        ins { background: #dff3e3; color: #1c6b2e; text-decoration: none; }
        .error { color: #9b1c12; }
        .missing { display: inline-block; padding: 40px 10px; color: #888; border: 1px dashed #bbb; }
        .list ul { margin: 6px 0 0; padding-left: 20px; }
        """

    private static func anchor(_ document: DiffReport.Document) -> String {
        ContactSheet.anchor(document.name)
    }

    private static func anchor(_ document: DiffReport.Document, _ change: DiffReport.PageChange) -> String {
        anchor(document) + (change.layout.map { ContactSheet.anchor($0, prefix: "-") } ?? "") + "-p\(change.number)"
    }

    private static func url(_ path: String) -> String { ContactSheet.url(path) }

    private static func escape(_ text: String) -> String { ContactSheet.escape(text) }
}
