import Foundation

/// `<output>/index.html`: every document's thumbnails in a grid, each linking to its full page
/// image, failed documents and their reasons first, and the run's totals.
///
/// One static page: styles inline, no script, nothing from the network, paths relative to the
/// output folder, so the folder opens from disk or from a CI artifact. It is made from the
/// manifest alone and leaves out timings, so the same manifest gives the same bytes.
public enum ContactSheet {
    /// Thumbnails are shown about this many CSS pixels on their long side.
    static let preferredBox = 200

    /// The sheet of `manifest`; with `diff` (a run with a baseline), a line with what changed
    /// and a link to the review page, and the changed pages marked.
    public static func html(for manifest: Manifest, diff: DiffReport? = nil) -> String {
        let totals = manifest.totals
        // Per document, the pages that changed since the baseline and how.
        var marks: [String: [PageKey: String]] = [:]
        for document in diff?.documents ?? [] {
            for change in document.changes where change.status != .similar && change.status != .removed {
                marks[document.name, default: [:]][PageKey(layout: change.layout, number: change.number)] = change.status.rawValue
            }
        }
        let diffStatus = Dictionary((diff?.documents ?? []).map { ($0.name, $0.status) }, uniquingKeysWith: { a, _ in a })
        var out: [String] = []
        out.append("""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Galley: \(plural(totals.documents, "document")), \(plural(totals.pages, "page"))</title>
            <style>
            \(style)
            </style>
            </head>
            <body>
            <header>
            <h1>Galley contact sheet</h1>
            <p class="totals">\(plural(totals.documents, "document")): \(totals.ok) ok, \(totals.failed) failed, \(totals.unchanged) unchanged · \(plural(totals.pages, "page")) · \(format(manifest.settings.dpi)) dpi</p>
            \(diff.map(baselineLine) ?? "")</header>
            """)
        let failed = manifest.documents.filter { $0.status == .failed }
        if !failed.isEmpty {
            out.append("<section class=\"failures\">\n<h2>Failed (\(failed.count))</h2>\n<ul>")
            for document in failed {
                let reason = document.error.map { "<code>\(escape($0.code.rawValue))</code> \(escape($0.message))\($0.page.map { " (page \($0))" } ?? "")" } ?? ""
                out.append("<li><a href=\"#\(anchor(document))\"><strong>\(escape(document.source))</strong></a>: \(reason)</li>")
            }
            out.append("</ul>\n</section>")
        }
        let box = thumbnailBox(manifest.settings.thumbnails)
        for document in manifest.documents {
            out.append("<section class=\"document \(document.status.rawValue)\" id=\"\(anchor(document))\">")
            var meta = [document.kind == .pdf ? "PDF" : "article", plural(document.pages.count, "page"), document.status.rawValue]
            if !document.warnings.isEmpty { meta.append(plural(document.warnings.count, "warning")) }
            switch diffStatus[document.name] {
            case .added?: meta.append("new since the baseline")
            case .changed?: meta.append("changed since the baseline")
            default: break
            }
            out.append("<h2>\(escape(document.source))</h2>\n<p class=\"meta\">\(meta.map(escape).joined(separator: " · "))</p>")
            if let error = document.error {
                out.append("<p class=\"error\"><code>\(escape(error.code.rawValue))</code> \(escape(error.message))</p>")
            }
            // Articles: one grid per layout, in configuration order; PDFs: one grid.
            let groups: [(title: String?, pages: [Manifest.Page])]
            if let layouts = document.layouts {
                groups = layouts.map { layout in
                    (layout.name, document.pages.filter { $0.layout == layout.name })
                }
            } else {
                groups = [(nil, document.pages)]
            }
            for group in groups where !group.pages.isEmpty {
                if let title = group.title { out.append("<h3>\(escape(title))</h3>") }
                out.append("<div class=\"grid\">")
                for page in group.pages {
                    let mark = diffStatus[document.name] == .added ? "added" : marks[document.name]?[PageKey(layout: page.layout, number: page.number)]
                    out.append(cell(page, document: document, box: box, mark: mark))
                }
                out.append("</div>")
            }
            out.append("</section>")
        }
        out.append("</body>\n</html>\n")
        return out.joined(separator: "\n")
    }

    /// One page: its thumbnail (or the page image scaled down) linking to the page image,
    /// with its number.
    private static func cell(_ page: Manifest.Page, document: Manifest.Document, box: Int?, mark: String?) -> String {
        let thumbnail = page.thumbnails.first { $0.box == box }
        let picture: (path: String, width: Int, height: Int)?
        if let thumbnail {
            picture = (thumbnail.path, thumbnail.width, thumbnail.height)
        } else if let image = page.image {
            // No thumbnails: the page image itself, shown at thumbnail size.
            let factor = Double(preferredBox) / Double(max(image.width, image.height))
            picture = (image.path, max(1, Int((Double(image.width) * factor).rounded())),
                       max(1, Int((Double(image.height) * factor).rounded())))
        } else {
            picture = nil
        }
        let alt = escape("\(document.source) page \(page.number)")
        var body = picture.map { "<img src=\"\(url($0.path))\" width=\"\($0.width)\" height=\"\($0.height)\" alt=\"\(alt)\">" }
            ?? "<span class=\"missing\">no image</span>"
        if let image = page.image { body = "<a href=\"\(url(image.path))\">\(body)</a>" }
        guard let mark else { return "<figure>\(body)<figcaption>\(page.number)</figcaption></figure>" }
        return "<figure class=\"marked\">\(body)<figcaption>\(page.number) <span class=\"mark\">\(escape(mark))</span></figcaption></figure>"
    }

    /// A page of a document: its layout (articles) and number.
    struct PageKey: Hashable {
        var layout: String?
        var number: Int
    }

    /// What changed since the baseline, linking to the diff's review page.
    private static func baselineLine(_ diff: DiffReport) -> String {
        let d = diff.totals.documents, p = diff.totals.pages
        let what = diff.outcome == .changed
            ? "\(plural(p.changed + p.added + p.removed, "page")) changed (documents: \(d.changed) changed, \(d.added) added, \(d.removed) removed)"
            : "no changes"
        return "<p class=\"baseline\">Since the baseline: \(escape(what)) · <a href=\"\(RunDiff.defaultFolder)/\(RunDiff.reviewPageName)\">review page</a></p>\n"
    }

    /// The configured box nearest the preferred size, preferring larger ones (sharper).
    static func thumbnailBox(_ boxes: [Int]) -> Int? {
        boxes.min { a, b in
            let da = a >= preferredBox ? a - preferredBox : 2 * (preferredBox - a)
            let db = b >= preferredBox ? b - preferredBox : 2 * (preferredBox - b)
            return da != db ? da < db : a > b
        }
    }

    private static let style = """
        :root { color-scheme: light; }
        body { font: 14px/1.45 "DejaVu Sans", system-ui, sans-serif; margin: 24px; color: #222; background: #f3f3f1; }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 16px; margin: 0; word-break: break-all; }
        h3 { font-size: 13px; margin: 12px 0 0; color: #444; }
        .totals, .meta { color: #555; margin: 2px 0 0; }
        .meta { font-size: 12px; }
        .failures { background: #fff1f0; border: 1px solid #e0a5a0; border-radius: 6px; padding: 10px 16px; margin: 16px 0; }
        .failures h2 { color: #9b1c12; margin-bottom: 6px; }
        .failures ul { margin: 0; padding-left: 20px; }
        .error { color: #9b1c12; }
        code { font-family: "DejaVu Sans Mono", monospace; background: #f6e3e1; padding: 0 4px; border-radius: 3px; }
        section.document { background: #fff; border-radius: 6px; padding: 12px 16px 16px; margin: 16px 0; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
        section.failed { border-left: 4px solid #c0392b; }
        section.unchanged .meta { color: #777; }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 14px; margin-top: 10px; align-items: end; }
        figure { margin: 0; text-align: center; }
        figure img { max-width: 100%; height: auto; background: #fff; border: 1px solid #c8c8c8; box-shadow: 0 1px 2px rgba(0,0,0,.15); }
        figure a:hover img { outline: 2px solid #2b6cb0; }
        figcaption { font-size: 12px; color: #555; margin-top: 4px; }
        .missing { display: inline-block; padding: 40px 10px; color: #888; border: 1px dashed #bbb; }
        .baseline { margin: 6px 0 0; }
        figure.marked img { outline: 3px solid #c0392b; outline-offset: 1px; }
        .mark { color: #fff; background: #c0392b; border-radius: 3px; padding: 0 4px; font-size: 11px; }
        """

    private static func anchor(_ document: Manifest.Document) -> String {
        anchor(document.name)
    }

    /// An id for an element from a name: `doc-` and the name with every character other than
    /// letters, digits and `-` made `_`.
    static func anchor(_ name: String, prefix: String = "doc-") -> String {
        prefix + name.map { $0.isLetter || $0.isNumber || $0 == "-" ? String($0) : "_" }.joined()
    }

    /// A relative path as a URL: each segment percent-encoded.
    static func url(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? String($0)
        }.joined(separator: "/")
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
