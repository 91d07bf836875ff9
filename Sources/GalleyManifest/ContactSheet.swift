import Foundation
import GalleyBase

/// `<output>/index.html`: every document's thumbnails in a grid, failed documents and their
/// reasons first, the run's totals, a filter for failed and warned documents, and a page
/// viewer with previous and next.
///
/// One static page: styles inline, no script, nothing from the network, paths relative to the
/// output folder, so the folder opens from disk or from a CI artifact. Everything interactive
/// is CSS over plain HTML: the filter is radio buttons (and the address's fragment,
/// `index.html#filter-failed`), long documents fold into `<details>`, the viewer is one
/// `:target` overlay per page with links to the pages either side. It is made from the
/// manifest (and the sources' places, when given) and leaves out timings, so the same manifest
/// gives the same bytes.
public enum ContactSheet {
    /// Thumbnails are shown about this many CSS pixels on their long side.
    static let preferredBox = 200

    /// A grid of more pages than this is folded: 12 is two rows at the usual window width,
    /// enough to recognise a document, and keeps a library of 900-page manuals scrollable.
    static let foldAbove = 12
    /// A folded grid shows its first pages, this many (a row), and the rest behind "show all".
    static let foldedShows = 6
    /// More warnings than this are listed behind a summary line instead of in full.
    static let warningsShown = 3

    /// The sheet of `manifest`; with `baseline` (a run with a baseline), a line with what changed
    /// and a link to the review page, and the changed pages marked. `sources` maps a
    /// document's name to its source file's path relative to the output folder
    /// (`SourceFiles.links(from:)`); a document without one gets no source link.
    public static func html(for manifest: Manifest, baseline: Baseline? = nil, sources: [String: String] = [:]) -> String {
        var parts: [String] = []
        write(manifest, baseline: baseline, sources: sources) { parts.append($0) }
        return parts.joined()
    }

    /// The sheet of `html(for:baseline:sources:)`, handed to `emit` a piece at a time, so that a run
    /// of thousands of pages writes it to its file without holding it whole (three times over:
    /// the pieces, their join and its UTF-8 copy).
    /// How far a run is, for the sheet written while it goes (`ProgressSheet`).
    public struct Progress: Sendable {
        public var done: Int
        public var total: Int
        public var interrupted: Bool
        /// Seconds between reloads; nil: no reload.
        public var reloadSeconds: Int?
    }

    /// What changed since a baseline, as the sheet shows it: the diff's report read for the
    /// sheet (GalleyDiff makes it: `ContactSheet.Baseline(report)`), so the sheet does not
    /// depend on the diff.
    public struct Baseline: Sendable {
        /// What changed, in a few words ("3 pages changed (documents: ...)", "no changes").
        public var summary: String
        /// The diff's review page, relative to the output folder.
        public var reviewPage: String
        /// Each document's status since the baseline (`added`, `changed`, `removed`,
        /// `unchanged`), by name.
        public var documents: [String: String]
        /// Per document, the pages that changed since the baseline and how (`changed`,
        /// `resized`, `added`, ...).
        public var pageMarks: [String: [PageKey: String]]

        public init(summary: String, reviewPage: String, documents: [String: String], pageMarks: [String: [PageKey: String]]) {
            self.summary = summary
            self.reviewPage = reviewPage
            self.documents = documents
            self.pageMarks = pageMarks
        }
    }

    public static func write(_ manifest: Manifest, baseline: Baseline? = nil, sources: [String: String] = [:], progress: Progress? = nil,
                             to emit: (String) -> Void) {
        var first = true
        // Pieces are separated by a newline, as they were when joined.
        func put(_ piece: String) {
            if !first { emit("\n") }
            first = false
            emit(piece)
        }
        let totals = manifest.totals
        let marks = baseline?.pageMarks ?? [:]
        let diffStatus = baseline?.documents ?? [:]
        let failed = manifest.documents.filter { $0.status == .failed }
        let warned = manifest.documents.count { !$0.warnings.isEmpty }
        put("""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            \(progress?.reloadSeconds.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">\n" } ?? "")<title>Galley: \(plural(totals.documents, "document")), \(plural(totals.pages, "page"))</title>
            <style>
            \(style)
            </style>
            </head>
            <body>
            <header>
            <h1>Galley contact sheet</h1>
            <p class="totals">\(plural(totals.documents, "document")): \(totals.ok) ok, \(totals.failed) failed, \(totals.unchanged) unchanged · \(plural(totals.pages, "page")) · \(format(manifest.settings.dpi)) dpi</p>
            \(baseline.map(baselineLine) ?? "")\(progress.map(progressLine) ?? "")</header>
            """)
        if !failed.isEmpty {
            put("<section class=\"failures\">\n<h2>Failed (\(failed.count))</h2>\n<ul>")
            for document in failed {
                let reason = document.error.map { "<code>\(escape($0.code.rawValue))</code> \(escape($0.message))\($0.page.map { " (page \($0))" } ?? "")" } ?? ""
                put("<li><a href=\"#\(anchor(document))\"><strong>\(escape(document.source))</strong></a>: \(reason)</li>")
            }
            put("</ul>\n</section>")
        }
        // The filter: radio buttons before the list, so `:checked ~` reaches the documents.
        // `filter-address` (checked at first, no label) means "as the address says", so that
        // index.html#filter-failed opens filtered and a click on a label still wins.
        put("""
            <input type="radio" name="filter" id="filter-address" class="filter" checked aria-hidden="true" tabindex="-1">
            <input type="radio" name="filter" id="filter-all" class="filter">
            <input type="radio" name="filter" id="filter-failed" class="filter">
            <input type="radio" name="filter" id="filter-warned" class="filter">
            <nav class="filters" aria-label="Filter">Show: <label for="filter-all">all (\(totals.documents))</label> <label for="filter-failed">failed (\(failed.count))</label> <label for="filter-warned">with warnings (\(warned))</label></nav>
            <main>
            """)
        if failed.isEmpty { put("<p class=\"none none-failed\">No document failed.</p>") }
        if warned == 0 { put("<p class=\"none none-warned\">No document has warnings.</p>") }
        let box = thumbnailBox(manifest.settings.thumbnails)
        for document in manifest.documents {
            let classes = ["document", document.status.rawValue] + (document.warnings.isEmpty ? [] : ["warned"])
            put("<section class=\"\(classes.joined(separator: " "))\" id=\"\(anchor(document))\">")
            put("<h2>\(escape(document.source))</h2>")
            if let line = titleLine(document) { put(line) }
            var meta = [escape(document.kind == .pdf ? "PDF" : "article")]
            if let count = pageCount(document) { meta.append(escape(count)) }
            if let sizes = sizes(of: document.pages) { meta.append(escape(sizes)) }
            if let bytes = document.bytes { meta.append(escape(fileSize(bytes))) }
            meta.append(escape(document.status.rawValue))
            if !document.warnings.isEmpty { meta.append(escape(plural(document.warnings.count, "warning"))) }
            switch diffStatus[document.name] {
            case "added"?: meta.append("new since the baseline")
            case "changed"?: meta.append("changed since the baseline")
            default: break
            }
            if let source = sources[document.name] { meta.append("<a class=\"source\" href=\"\(url(source))\">source file</a>") }
            put("<p class=\"meta\">\(meta.joined(separator: " · "))</p>")
            if let error = document.error {
                put("<p class=\"error\"><code>\(escape(error.code.rawValue))</code> \(escape(error.message))</p>")
            }
            if !document.warnings.isEmpty { put(warningList(document.warnings)) }
            // Articles: one grid per layout, in configuration order; PDFs: one grid.
            // A layout's document files (its PDF, its text) are linked beside its name.
            let groups: [(title: String?, pages: [Manifest.Page], files: [Manifest.DocumentFile])]
            if let layouts = document.layouts {
                groups = layouts.map { layout in
                    (layout.name, document.pages.filter { $0.layout == layout.name }, layout.files ?? [])
                }
            } else {
                groups = [(nil, document.pages, [])]
            }
            for group in groups where !group.pages.isEmpty {
                if let title = group.title {
                    let files = group.files.map { " <a class=\"file\" href=\"\(url($0.path))\">\($0.format == "pdf" ? "PDF" : escape($0.format))</a>" }.joined()
                    put("<h3>\(escape(title))\(sizes(of: group.pages).map { " <span class=\"size\">\(escape($0))</span>" } ?? "")\(files)</h3>")
                }
                let cells = group.pages.map { page in
                    let mark = diffStatus[document.name] == "added" ? "added" : marks[document.name]?[PageKey(layout: page.layout, number: page.number)]
                    return (cell(page, document: document, box: box, mark: mark), mark != nil)
                }
                let folded = cells.count > foldAbove
                let shown = folded ? foldedShows : cells.count
                put("<div class=\"grid\">")
                for cell in cells.prefix(shown) { put(cell.0) }
                put("</div>")
                if folded {
                    let rest = cells.dropFirst(shown)
                    let changed = rest.count { $0.1 }
                    let summary = "Show all \(cells.count) pages (\(rest.count) more\(changed > 0 ? ", \(changed) changed" : ""))"
                    put("<details class=\"more\">\n<summary>\(escape(summary))</summary>\n<div class=\"grid\">")
                    for cell in rest { put(cell.0) }
                    put("</div>\n</details>")
                }
            }
            put("</section>")
        }
        put("</main>")
        // The viewers come after the list, outside any folded grid, so that the next page of
        // a folded document opens although its thumbnail is folded away.
        var opened = false
        for document in manifest.documents {
            let viewed = document.pages.filter { viewerPicture($0) != nil }
            if !viewed.isEmpty && !opened {
                put("<div class=\"viewers\">")
                opened = true
            }
            for (position, page) in viewed.enumerated() {
                put(viewer(page, of: document, previous: position > 0 ? viewed[position - 1] : nil,
                           next: position + 1 < viewed.count ? viewed[position + 1] : nil, position: position, count: viewed.count))
            }
        }
        if opened { put("</div>") }
        put("</body>\n</html>\n")
    }

    /// One page: its thumbnail (or the page image scaled down) linking to the page in the
    /// viewer, with its number.
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
        var body = picture.map { "<img src=\"\(url($0.path))\" width=\"\($0.width)\" height=\"\($0.height)\" loading=\"lazy\" alt=\"\(alt)\">" }
            ?? "<span class=\"missing\">no image</span>"
        if viewerPicture(page) != nil { body = "<a href=\"#\(viewerAnchor(document, page))\">\(body)</a>" }
        guard let mark else { return "<figure>\(body)<figcaption>\(page.number)</figcaption></figure>" }
        return "<figure class=\"marked\">\(body)<figcaption>\(page.number) <span class=\"mark\">\(escape(mark))</span></figcaption></figure>"
    }

    /// What the viewer shows of a page: its image, else its largest thumbnail.
    private static func viewerPicture(_ page: Manifest.Page) -> (path: String, width: Int, height: Int)? {
        if let image = page.image { return (image.path, image.width, image.height) }
        return page.thumbnails.max { $0.box < $1.box }.map { ($0.path, $0.width, $0.height) }
    }

    /// A page in the viewer: an overlay shown while the address points at it (`:target`),
    /// with links to the document's previous and next pages, to the image file and back to
    /// the sheet. Its picture loads lazily, so only the pages opened are read.
    private static func viewer(_ page: Manifest.Page, of document: Manifest.Document, previous: Manifest.Page?, next: Manifest.Page?,
                               position: Int, count: Int) -> String {
        guard let picture = viewerPicture(page) else { return "" }
        let label = "\(document.source) · page \(page.number)\(page.layout.map { " (\($0))" } ?? "") · \(position + 1) of \(count)"
        let previousLink = previous.map { "<a class=\"previous\" rel=\"prev\" href=\"#\(viewerAnchor(document, $0))\">← previous</a>" }
            ?? "<span class=\"previous off\">← previous</span>"
        let nextLink = next.map { "<a class=\"next\" rel=\"next\" href=\"#\(viewerAnchor(document, $0))\">next →</a>" }
            ?? "<span class=\"next off\">next →</span>"
        return """
            <div class="viewer" id="\(viewerAnchor(document, page))" role="dialog" aria-label="\(escape(label))">
            <nav>\(previousLink) \(nextLink) <span class="where">\(escape(label))</span> <a class="file" href="\(url(picture.path))">image file</a> <a class="close" href="#\(anchor(document))">close ✕</a></nav>
            <a class="picture" href="\(next.map { "#" + viewerAnchor(document, $0) } ?? "#" + anchor(document))"><img src="\(url(picture.path))" width="\(picture.width)" height="\(picture.height)" loading="lazy" alt="\(escape("\(document.source) page \(page.number)"))"></a>
            </div>
            """
    }

    /// The viewer's id for a page: the document's anchor, the layout (articles), the number.
    static func viewerAnchor(_ document: Manifest.Document, _ page: Manifest.Page) -> String {
        anchor(document.name, prefix: "view-") + (page.layout.map { anchor($0, prefix: "-") } ?? "") + "-p\(page.number)"
    }

    /// The title and author, when the document has either.
    private static func titleLine(_ document: Manifest.Document) -> String? {
        let parts = [document.title.map { "<cite>\(escape($0))</cite>" }, document.author.map { "by \(escape($0))" }].compactMap { $0 }
        return parts.isEmpty ? nil : "<p class=\"described\">\(parts.joined(separator: " "))</p>"
    }

    /// "63 pages", and how many were drawn when a page selection drew fewer; nil when the
    /// document could not be opened.
    private static func pageCount(_ document: Manifest.Document) -> String? {
        guard let count = document.pageCount ?? (document.pages.isEmpty ? nil : document.pages.count) else { return nil }
        return plural(count, "page") + (document.pages.count < count ? ", \(document.pages.count) drawn" : "")
    }

    /// The warnings' texts: listed when there are a few, else behind a summary line.
    private static func warningList(_ warnings: [String]) -> String {
        let items = warnings.map { "<li>\(escape($0))</li>" }.joined(separator: "\n")
        if warnings.count <= warningsShown { return "<ul class=\"warnings\">\n\(items)\n</ul>" }
        return "<details class=\"warnings\">\n<summary>\(plural(warnings.count, "warning"))</summary>\n<ul class=\"warnings\">\n\(items)\n</ul>\n</details>"
    }

    /// Paper sizes named on the sheet, in points, portrait.
    static let paperSizes: [(name: String, width: Double, height: Double)] = [
        ("A3", 841.89, 1190.551), ("A4", 595.276, 841.89), ("A5", 419.528, 595.276), ("B5", 498.898, 708.661),
        ("Letter", 612, 792), ("Legal", 612, 1008), ("Tabloid", 792, 1224),
    ]

    /// A page size as the sheet shows it: "A4, 595 × 842 pt", "Letter landscape, 792 × 612 pt"
    /// or "500 × 300 pt"; a paper's name when both sides are within 1 pt of it.
    static func pageSize(width: Double, height: Double) -> String {
        let points = "\(Int(width.rounded())) × \(Int(height.rounded())) pt"
        for paper in paperSizes {
            if abs(width - paper.width) <= 1 && abs(height - paper.height) <= 1 { return "\(paper.name), \(points)" }
            if abs(width - paper.height) <= 1 && abs(height - paper.width) <= 1 { return "\(paper.name) landscape, \(points)" }
        }
        return points
    }

    /// The page sizes of `pages`: the first one's, and how many other sizes there are; nil
    /// when there are no pages.
    private static func sizes(of pages: [Manifest.Page]) -> String? {
        var seen: [String] = []
        for page in pages {
            let size = pageSize(width: page.widthPt, height: page.heightPt)
            if !seen.contains(size) { seen.append(size) }
        }
        guard let first = seen.first else { return nil }
        return seen.count == 1 ? first : "\(first) and \(plural(seen.count - 1, "other size"))"
    }

    /// A file size in SI units: "950 bytes", "12.3 kB", "4.5 MB".
    static func fileSize(_ bytes: Int) -> String {
        if bytes < 1000 { return plural(bytes, "byte") }
        for (unit, scale) in [("kB", 1e3), ("MB", 1e6), ("GB", 1e9)] where Double(bytes) < scale * 1000 || unit == "GB" {
            return String(format: "%.1f", Double(bytes) / scale) + " " + unit
        }
        return plural(bytes, "byte")
    }

    /// A page of a document: its layout (articles) and number.
    public struct PageKey: Hashable, Sendable {
        public var layout: String?
        public var number: Int

        public init(layout: String?, number: Int) {
            self.layout = layout
            self.number = number
        }
    }

    /// How far the run is, on a sheet written while it goes.
    private static func progressLine(_ progress: Progress) -> String {
        let what = progress.interrupted
            ? "The run was interrupted after \(progress.done) of \(plural(progress.total, "document")); the next run goes on from there."
            : "Run in progress: \(progress.done) of \(plural(progress.total, "document")) done. This page reloads every \(progress.reloadSeconds ?? 0) s; the complete sheet replaces it when the run ends."
        return "<p class=\"baseline\">\(escape(what))</p>\n"
    }

    /// What changed since the baseline, linking to the diff's review page.
    private static func baselineLine(_ baseline: Baseline) -> String {
        "<p class=\"baseline\">Since the baseline: \(escape(baseline.summary)) · <a href=\"\(url(baseline.reviewPage))\">review page</a></p>\n"
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
        :root { color-scheme: light dark; --bg: #f3f3f1; --fg: #222; --muted: #555; --card: #fff; --line: #c8c8c8; --link: #2b6cb0;
          --bad-bg: #fff1f0; --bad-line: #e0a5a0; --bad: #9b1c12; --code-bg: #f6e3e1; --warn: #7a5600; --warn-bg: #fff7e0; --shadow: rgba(0,0,0,.12); }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #161719; --fg: #e4e4e4; --muted: #a4a4a4; --card: #232427; --line: #4a4a4a; --link: #8ab4f8;
            --bad-bg: #3a1e1c; --bad-line: #8c3b33; --bad: #ff9d91; --code-bg: #4a2b27; --warn: #f0c65a; --warn-bg: #3a3220; --shadow: rgba(0,0,0,.5); }
        }
        body { font: 14px/1.45 "DejaVu Sans", system-ui, sans-serif; margin: 24px; color: var(--fg); background: var(--bg); }
        a { color: var(--link); }
        h1 { font-size: 22px; margin: 0 0 4px; }
        h2 { font-size: 16px; margin: 0; word-break: break-all; }
        h3 { font-size: 13px; margin: 12px 0 0; color: var(--muted); }
        h3 .size { font-weight: normal; }
        h3 .file { font-weight: normal; font-size: 0.85em; margin-left: 0.4em; }
        .totals, .meta, .described { color: var(--muted); margin: 2px 0 0; }
        .meta { font-size: 12px; }
        .described cite { font-style: normal; font-weight: bold; color: var(--fg); }
        .failures { background: var(--bad-bg); border: 1px solid var(--bad-line); border-radius: 6px; padding: 10px 16px; margin: 16px 0; }
        .failures h2 { color: var(--bad); margin-bottom: 6px; }
        .failures ul { margin: 0; padding-left: 20px; }
        .error { color: var(--bad); }
        code { font-family: "DejaVu Sans Mono", monospace; background: var(--code-bg); padding: 0 4px; border-radius: 3px; }
        ul.warnings { margin: 6px 0 0; padding-left: 20px; color: var(--warn); font-size: 12px; }
        details.warnings { margin-top: 6px; color: var(--warn); font-size: 12px; }
        input.filter { position: fixed; top: 0; left: 0; opacity: 0; pointer-events: none; margin: 0; }
        .filters { position: sticky; top: 0; z-index: 5; background: var(--bg); padding: 8px 0; margin: 8px 0 0; color: var(--muted); }
        .filters label { display: inline-block; padding: 2px 10px; margin-left: 4px; border: 1px solid var(--line); border-radius: 12px; cursor: pointer; color: var(--fg); }
        #filter-address:checked ~ .filters label[for=filter-all], #filter-all:checked ~ .filters label[for=filter-all],
        #filter-failed:checked ~ .filters label[for=filter-failed], #filter-warned:checked ~ .filters label[for=filter-warned],
        #filter-address:checked ~ #filter-failed:target ~ .filters label[for=filter-failed],
        #filter-address:checked ~ #filter-warned:target ~ .filters label[for=filter-warned] { background: var(--link); border-color: var(--link); color: var(--bg); }
        #filter-address:checked ~ #filter-failed:target ~ .filters label[for=filter-all],
        #filter-address:checked ~ #filter-warned:target ~ .filters label[for=filter-all] { background: none; border-color: var(--line); color: var(--fg); }
        #filter-all:focus-visible ~ .filters label[for=filter-all], #filter-failed:focus-visible ~ .filters label[for=filter-failed],
        #filter-warned:focus-visible ~ .filters label[for=filter-warned] { outline: 2px solid var(--link); outline-offset: 2px; }
        #filter-failed:checked ~ main .document:not(.failed), #filter-address:checked ~ #filter-failed:target ~ main .document:not(.failed),
        #filter-warned:checked ~ main .document:not(.warned), #filter-address:checked ~ #filter-warned:target ~ main .document:not(.warned) { display: none; }
        .none { display: none; color: var(--muted); }
        #filter-failed:checked ~ main .none-failed, #filter-address:checked ~ #filter-failed:target ~ main .none-failed,
        #filter-warned:checked ~ main .none-warned, #filter-address:checked ~ #filter-warned:target ~ main .none-warned { display: block; }
        section.document { background: var(--card); border-radius: 6px; padding: 12px 16px 16px; margin: 16px 0; box-shadow: 0 1px 3px var(--shadow); }
        section.failed { border-left: 4px solid #c0392b; }
        section.unchanged .meta { color: var(--muted); }
        .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 14px; margin-top: 10px; align-items: end; }
        details.more > summary { margin-top: 10px; cursor: pointer; color: var(--link); }
        figure { margin: 0; text-align: center; }
        figure img { max-width: 100%; height: auto; background: #fff; border: 1px solid var(--line); box-shadow: 0 1px 2px rgba(0,0,0,.15); }
        figure a:hover img, figure a:focus img { outline: 2px solid var(--link); }
        figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
        .missing { display: inline-block; padding: 40px 10px; color: var(--muted); border: 1px dashed var(--line); }
        .baseline { margin: 6px 0 0; }
        figure.marked img { outline: 3px solid #c0392b; outline-offset: 1px; }
        .mark { color: #fff; background: #c0392b; border-radius: 3px; padding: 0 4px; font-size: 11px; }
        .viewer { display: none; }
        .viewer:target { display: flex; flex-direction: column; position: fixed; inset: 0; z-index: 10; padding: 8px 16px 16px; box-sizing: border-box;
          background: #121214; color: #e4e4e4; }
        .viewer nav { display: flex; flex-wrap: wrap; gap: 6px 18px; align-items: baseline; padding-bottom: 8px; }
        .viewer nav a { color: #8ab4f8; }
        .viewer .off { color: #777; }
        .viewer .where { flex: 1; }
        .viewer .picture { flex: 1; min-height: 0; display: flex; justify-content: center; align-items: center; }
        .viewer img { max-width: 100%; max-height: 100%; width: auto; height: auto; background: #fff; }
        """

    private static func anchor(_ document: Manifest.Document) -> String {
        anchor(document.name)
    }

    /// An id for an element from a name: `doc-` and the name with every character other than
    /// letters, digits and `-` made `_`.
    package static func anchor(_ name: String, prefix: String = "doc-") -> String {
        prefix + name.map { $0.isLetter || $0.isNumber || $0 == "-" ? String($0) : "_" }.joined()
    }

    /// A relative path as a URL: each segment percent-encoded.
    package static func url(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map {
            String($0).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? String($0)
        }.joined(separator: "/")
    }

    /// Text for the page's HTML (`Escape.html`).
    package static func escape(_ text: String) -> String { Escape.html(text) }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
