import CCairo
import CGalleyCairo
import Foundation
import GalleyBase
import GalleyRaster

/// What a document file says about its article besides the pages: for the PDF's document
/// information. `date` is fixed by the caller (the source's modification time, or
/// `SOURCE_DATE_EPOCH`), never the clock, so the same input gives the same bytes.
public struct DocumentMetadata: Sendable, Hashable {
    public var title: String?
    public var author: String?
    /// The article's language (`<html lang>`), written as the document's `/Lang`.
    public var language: String?
    /// Seconds since 1970-01-01 UTC: the creation and modification date written.
    public var date: Int64
    /// The run's other articles, which links to them reach in their PDFs; nil: links to other
    /// files stay as written.
    public var links: DocumentLinks?

    public init(title: String? = nil, author: String? = nil, language: String? = nil, date: Int64 = 0, links: DocumentLinks? = nil) {
        self.title = title
        self.author = author
        self.language = language
        self.date = date
        self.links = links
    }

    /// An article's title, author and language (the markup's, else the one guessed from its
    /// text), dated by its source file at `path` (`sourceDate`).
    public init(article: ParsedArticle, sourcePath path: String) {
        self.init(title: article.title, author: article.author, language: article.language ?? article.guessedLanguage,
                  date: Self.sourceDate(ofFile: path))
    }

    /// The date to record for an article read from `path`: `SOURCE_DATE_EPOCH` when the
    /// environment sets it (reproducible builds' convention), else the file's modification
    /// time, else the epoch. Never the clock.
    public static func sourceDate(ofFile path: String) -> Int64 {
        if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap({ Int64($0) }), epoch >= 0 { return epoch }
        var status = stat()
        guard stat(path, &status) == 0 else { return 0 }
        return Int64(status.st_mtim.tv_sec)
    }

    /// `date` as ISO 8601 in UTC (`2024-05-01T12:00:00Z`), the form cairo takes.
    var isoDate: String {
        let days = date >= 0 ? date / 86_400 : (date - 86_399) / 86_400
        let seconds = date - days * 86_400
        // Civil date from days since the epoch (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))Z"
    }
}

/// The typeset pages as one PDF, drawn with cairo: vector text in the article's fonts
/// (embedded and subset, with the characters each glyph shows, so text copied or extracted
/// from the PDF is the article's), rules, borders and backgrounds as filled paths, pictures
/// embedded once per document, links, an outline from the headings and the title.
public struct PDFDocumentFormat: DocumentFormat {
    public init() {}

    public var name: DocumentFormatName { .pdf }
    public var fileExtension: String { "pdf" }
    /// 2: written as `<document>/<layout>.pdf`, with links inside the article and `/Lang`;
    /// 3: a destination for every anchor, links to the run's other articles' PDFs; 4: a short
    /// article's TrueType fonts embedded as one subset each.
    public var fingerprint: String { "pdf 4 cairo \(String(cString: cairo_version_string()))" }

    public func makeWriter(text: AttributedText, layout: ArticleLayout) -> any DocumentWriter {
        PDFDocumentWriter(text: text, layout: layout, metadata: DocumentMetadata())
    }

    public func makeWriter(text: AttributedText, layout: ArticleLayout, metadata: DocumentMetadata) -> any DocumentWriter {
        PDFDocumentWriter(text: text, layout: layout, metadata: metadata)
    }
}

/// Where cairo's PDF stream goes: bytes appended as cairo writes them.
private final class ByteSink {
    var bytes: [UInt8] = []
}

/// Draws each page onto a cairo PDF surface as it arrives, in the page description's order
/// (background, rects, pictures, glyph runs), as the raster painter does, in points (cairo's
/// user space is the page's: points, origin top left, y down).
///
/// Fonts are cairo FreeType font faces over faces of the same files and indices the raster
/// painter's `FontFace` opens, each with a FreeType face and library of its own, so the
/// painters on other threads never share an `FT_Face` with cairo.
final class PDFDocumentWriter: DocumentWriter {
    private let scalars: [Unicode.Scalar]
    private let text: AttributedText
    private let sink = ByteSink()
    private let surface: OpaquePointer
    private let context: OpaquePointer
    /// cairo font faces by `FontFace.id`.
    private var fonts: [Int: OpaquePointer?] = [:]
    /// cairo font faces over subsets of CFF fonts (`font(for:)`), by `FontFace.id`; nil for a
    /// face that has none.
    private var subsetFonts: [Int: OpaquePointer?] = [:]
    /// The article's characters (and printable ASCII), sorted: what the subsets hold.
    private var articleCharacters: [UInt32] = []
    /// Whether each TrueType face goes in as one CID-keyed font (`galley_cairo_open_subset_face`)
    /// rather than cairo's WinAnsi font beside a CID font of the glyphs WinAnsi has no code for
    /// (ligatures, the break hyphen beside the hyphen-minus, Greek): for articles of fewer than
    /// `oneSubsetLimit` characters. The second font costs about 0.9 KB (its own font program,
    /// descriptors, widths and ToUnicode map); a CID font's text costs two bytes a glyph in the
    /// page's content where the WinAnsi font's costs one, about 0.25 bytes a glyph once
    /// compressed. Measured on the fixtures (DejaVu Serif, two columns of A4): a one-page
    /// article 16,355 → 13,687 bytes and a three-page one of 7,400 characters 37,804 → 36,715,
    /// but long-essay (171,000 characters) 206,406 → 247,308. Below 10,000 characters no face
    /// draws glyphs enough to lose what its second font cost.
    private let oneSubsetPerFont: Bool
    static let oneSubsetLimit = 10_000
    /// Pictures made into cairo surfaces, by their pixels' storage (the same picture placed
    /// twice shares its storage: `AttachmentImages` holds one per source), each kept so its
    /// storage is not reused while the document is written.
    private var images: [ImageKey: (image: RasterImage, surface: OpaquePointer)] = [:]
    /// Outline entries of the headings met so far that a later heading may go under.
    private var outline: [(level: Int, id: Int32)] = []
    private var pages = 0
    private var finished = false
    /// The page drawn last waits for its `cairo_show_page` until the next page or the end,
    /// so that destinations left over at the end can still go on it.
    private var pageOpen = false
    /// The article's anchors (`AttributedText.anchors`: elements with an `id`, `<a name>`), the
    /// first of each name, by offset, and how many of them have their destination written:
    /// each gets one, on the page its content starts on, so that every `dest=` link resolves
    /// (cairo refuses a document with a link to a destination it never saw) and links from the
    /// run's other PDFs find theirs.
    private let linkedAnchors: [TextAnchor]
    private let linkedNames: Set<String>
    private var destinationsWritten = 0
    private let language: String?
    /// The run's other articles, and the layout, for links to their PDFs.
    private let links: DocumentLinks?
    private let layoutName: String
    /// Links to another PDF at a destination, by the marked file name cairo wrote for them
    /// (`RemoteLink`), made whole when the file is finished.
    private var remoteLinks: [RemoteLink] = []
    private var remoteLinkIndexes: [RemoteLinkKey: Int] = [:]
    private struct RemoteLinkKey: Hashable {
        var file: String
        var destination: String?
    }
    /// SVG text's font families as fontconfig has them (`SVGFontFamilies`).
    private var svgFamilies = SVGFontFamilies()

    private struct ImageKey: Hashable {
        var storage: UnsafeRawPointer?
        var width: Int
        var height: Int
    }

    init(text: AttributedText, layout: ArticleLayout, metadata: DocumentMetadata) {
        self.text = text
        scalars = text.scalars
        oneSubsetPerFont = text.scalars.count < Self.oneSubsetLimit
        language = metadata.language
        links = metadata.links
        layoutName = layout.name
        var names = Set<String>()
        linkedAnchors = text.anchors.enumerated().sorted { ($0.element.offset, $0.offset) < ($1.element.offset, $1.offset) }.map(\.element)
            .filter { names.insert($0.name).inserted }
        linkedNames = names
        let write: cairo_write_func_t = { closure, data, length in
            guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
            Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue().bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
            return CAIRO_STATUS_SUCCESS
        }
        surface = cairo_pdf_surface_create_for_stream(write, Unmanaged.passUnretained(sink).toOpaque(), layout.pageWidth, layout.pageHeight)
        cairo_pdf_surface_restrict_to_version(surface, CAIRO_PDF_VERSION_1_5)
        if let title = metadata.title { cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title) }
        if let author = metadata.author { cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_AUTHOR, author) }
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "Galley")
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, metadata.isoDate)
        cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, metadata.isoDate)
        context = cairo_create(surface)
    }

    deinit {
        cairo_destroy(context)
        if !finished { cairo_surface_finish(surface) }
        cairo_surface_destroy(surface)
        for case let font? in fonts.values { cairo_font_face_destroy(font) }
        for case let font? in subsetFonts.values { cairo_font_face_destroy(font) }
        for (_, surface) in images.values { cairo_surface_destroy(surface) }
    }

    func add(_ page: TypesetPage) throws(TypesetError) {
        if pageOpen { cairo_show_page(context) }
        pages += 1
        cairo_pdf_surface_set_size(surface, page.size.width, page.size.height)
        let cr = context
        if page.background != RGBColor(r: 255, g: 255, b: 255) {
            setColor(page.background)
            cairo_paint(cr)
        }
        for layer in page.layers {
            // Rules, borders, backgrounds, table grids: one path per run of rects of one colour
            // and clip.
            var index = layer.rects.lowerBound
            while index < layer.rects.upperBound {
                let (color, clip) = (page.rects[index].color, page.rects[index].clip)
                if let tile = page.rects[index].tile {
                    // A background picture: each copy drawn as a picture (embedded once), cut
                    // to the box and its clip.
                    let filled = page.rects[index]
                    let area = clip.map { filled.rect.intersection($0) } ?? filled.rect
                    for copy in tile.copies(over: filled.rect) {
                        try clipped(to: area) { () throws(TypesetError) in try draw(PlacedImage(rect: copy, image: tile.image)) }
                    }
                    index += 1
                    continue
                }
                clipped(to: clip) {
                    setColor(color)
                    while index < layer.rects.upperBound, page.rects[index].color == color, page.rects[index].clip == clip,
                          page.rects[index].tile == nil {
                        let r = page.rects[index].rect
                        if r.width > 0, r.height > 0 { cairo_rectangle(cr, r.x, r.y, r.width, r.height) }
                        index += 1
                    }
                    cairo_fill(cr)
                }
            }
            for placed in page.images[layer.images] { try clipped(to: placed.clip) { () throws(TypesetError) in try draw(placed) } }
            for run in page.glyphRuns[layer.runs] { try clipped(to: run.clip) { () throws(TypesetError) in try draw(run) } }
        }
        addOutline(page)
        addDestinations(page)
        pageOpen = true
        try check("page \(page.number)")
    }

    /// Runs `body` with drawing cut to `clip` (`overflow: hidden`), or as it is when nil.
    private func clipped<Failure: Error>(to clip: Rect?, _ body: () throws(Failure) -> Void) throws(Failure) {
        guard let clip else { return try body() }
        cairo_save(context)
        cairo_rectangle(context, clip.x, clip.y, clip.width, clip.height)
        cairo_clip(context)
        defer { cairo_restore(context) }
        try body()
    }

    func finish() throws(TypesetError) -> [UInt8] {
        if pageOpen {
            // Anchors whose content was never set on a page (past the last page drawn) point
            // at the top of the last page rather than nowhere.
            while destinationsWritten < linkedAnchors.count {
                writeDestination(linkedAnchors[destinationsWritten].name, x: 0, y: 0)
            }
            cairo_show_page(context)
            pageOpen = false
        }
        cairo_surface_finish(surface)
        finished = true
        try check("the document")
        let linked = RemoteLink.completing(remoteLinks, in: sink.bytes)
        let written = language.flatMap { PDFCatalogEntry.adding("/Lang", PDFCatalogEntry.string($0), to: linked) } ?? linked
        return PDFObjectStreams.packed(written) ?? written
    }

    // MARK: Links inside the article

    /// The destinations of the linked anchors whose content starts on this page (or before
    /// it, in what no line of an earlier page showed): at the top of the first line that
    /// ends after the anchor, or of the column holding it.
    private func addDestinations(_ page: TypesetPage) {
        guard !page.columns.isEmpty else { return }
        let end = page.range.upperBound
        while destinationsWritten < linkedAnchors.count, linkedAnchors[destinationsWritten].offset < end {
            let anchor = linkedAnchors[destinationsWritten]
            let line = page.columns.lazy.flatMap(\.lines).first { $0.range.upperBound > anchor.offset }
            let column = page.columns.first { $0.range.upperBound > anchor.offset } ?? page.columns[0]
            let rect = line?.rect ?? column.rect
            writeDestination(anchor.name, x: rect.x, y: rect.y)
        }
    }

    private func writeDestination(_ name: String, x: Double, y: Double) {
        let attributes = "name='\(Self.escaped(Self.cairoString(name)))' x=\(Self.number(x)) y=\(Self.number(y))"
        cairo_tag_begin(context, CAIRO_TAG_DEST, attributes)
        cairo_tag_end(context, CAIRO_TAG_DEST)
        destinationsWritten += 1
    }

    /// The anchor name of a link inside the article (`#intro` → `intro`); nil otherwise.
    static func fragment(_ target: String) -> String? {
        let target = target.trimmingASCIIWhitespace()
        guard target.hasPrefix("#"), target.count > 1 else { return nil }
        return String(target.dropFirst()).removingPercentEncoding ?? String(target.dropFirst())
    }

    private func check(_ what: String) throws(TypesetError) {
        let status = cairo_status(context) != CAIRO_STATUS_SUCCESS ? cairo_status(context) : cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw TypesetError(.encodeFailed, "cairo cannot write \(what) of the PDF: \(String(cString: cairo_status_to_string(status)))")
        }
    }

    private func setColor(_ color: RGBColor) {
        cairo_set_source_rgb(context, Double(color.r) / 255, Double(color.g) / 255, Double(color.b) / 255)
    }

    // MARK: Text

    /// The cairo font face for `face`, opened on first use; nil when its file cannot be.
    private func font(_ face: FontFace) -> OpaquePointer? {
        if let font = fonts[face.id] { return font }
        let font = galley_cairo_open_ft_face(face.path, face.index)
        fonts[face.id] = font
        return font
    }

    static let typesetterCharacters: [UInt32] = [0x2010, 0x2011, 0x2022, 0x25E6, 0x25AA, 0x2026, 0xFFFD]

    /// The cairo font a run is drawn in: the face's subset for the article's characters
    /// (`galley_cairo_open_subset_face`: a CFF font whose subroutines cairo would copy whole)
    /// when it holds every glyph of the run, else the whole face, so that no glyph is ever
    /// drawn empty (a margin box's own text may bring characters the article lacks); with the
    /// run's glyphs as the subset numbers them when it is the subset.
    private func font(for run: GlyphRun) -> (font: OpaquePointer, glyphs: [UInt32])? {
        let subset: OpaquePointer?
        if let made = subsetFonts[run.face.id] {
            subset = made
        } else {
            if articleCharacters.isEmpty {
                // The article's characters, printable ASCII for folios and running heads, and
                // what the typesetter sets of its own: the hyphen of a broken word (U+2010 where
                // the font has it), list bullets, the replacement character. (A run the subset
                // lacks a glyph of is drawn from the whole face: a second copy of the font.)
                articleCharacters = Array(Set(scalars.map(\.value)).union(0x20...0x7E).union(Self.typesetterCharacters)).sorted()
            }
            subset = galley_cairo_open_subset_face(run.face.path, run.face.index, articleCharacters, UInt32(articleCharacters.count),
                                                   oneSubsetPerFont ? 1 : 0)
            subsetFonts[run.face.id] = subset
        }
        if let subset {
            let mapped = run.glyphs.map { galley_cairo_subset_glyph(subset, $0) }
            if mapped.allSatisfy({ $0 >= 0 }) { return (subset, mapped.map { UInt32($0) }) }
        }
        return font(run.face).map { ($0, run.glyphs) }
    }

    private func draw(_ run: GlyphRun) throws(TypesetError) {
        guard !run.glyphs.isEmpty else { return }
        guard let (font, glyphIDs) = font(for: run) else {
            throw TypesetError(.fontMissing, "cannot open the font file \(run.face.path) for the PDF")
        }
        let cr = context
        cairo_set_font_face(cr, font)
        var matrix = cairo_matrix_t()
        cairo_matrix_init_scale(&matrix, run.size, run.size)
        // A sideways run is turned a quarter turn clockwise: its glyphs' baseline runs down
        // the page, as the raster painter turns them.
        if run.orientation == .sideways { cairo_matrix_rotate(&matrix, Double.pi / 2) }
        cairo_set_font_matrix(cr, &matrix)
        setColor(run.color)
        var run = run
        run.glyphs = glyphIDs
        // Glyphs of invisible characters (a soft hyphen where the line did not break, a zero
        // width space) are left out: HarfBuzz gives them a blank glyph that would read as a space.
        if run.clusters.count == run.glyphs.count,
           run.clusters.contains(where: { $0 >= 0 && $0 < scalars.count && scalars[$0].properties.isDefaultIgnorableCodePoint }) {
            let kept = run.clusters.indices.filter { run.clusters[$0] < 0 || run.clusters[$0] >= scalars.count || !scalars[run.clusters[$0]].properties.isDefaultIgnorableCodePoint }
            run.glyphs = kept.map { run.glyphs[$0] }
            run.positions = kept.map { run.positions[$0] }
            run.clusters = kept.map { run.clusters[$0] }
            guard !run.glyphs.isEmpty else { return }
        }
        var glyphs = zip(run.glyphs, run.positions).map { cairo_glyph_t(index: UInt($0), x: $1.x, y: $1.y) }
        let link = run.link.flatMap(linkAttributes)
        if let link { cairo_tag_begin(cr, CAIRO_TAG_LINK, link) }
        if let (utf8, clusters, backward) = textClusters(of: run) {
            var utf8 = utf8
            var clusters = clusters
            cairo_show_text_glyphs(cr, &utf8, Int32(utf8.count), &glyphs, Int32(glyphs.count), &clusters, Int32(clusters.count),
                                   backward ? CAIRO_TEXT_CLUSTER_FLAG_BACKWARD : cairo_text_cluster_flags_t(rawValue: 0))
        } else {
            cairo_show_glyphs(cr, &glyphs, Int32(glyphs.count))
        }
        if link != nil { cairo_tag_end(cr, CAIRO_TAG_LINK) }
    }

    /// The link attributes cairo takes: `uri='…'` for an external target, `dest='…'` for an
    /// element of the article (`#id`, or the article's own file and `#id`) that exists,
    /// `file='…'` for another article of the run (its PDF of this layout, at the fragment's
    /// destination: `RemoteLink`); nil for an empty target or a fragment no element has.
    func linkAttributes(_ target: String) -> String? {
        if let name = Self.fragment(target) { return linkedNames.contains(name) ? "dest='\(Self.escaped(Self.cairoString(name)))'" : nil }
        if let links, let (path, fragment) = links.file(for: target) {
            guard let other = links.article(at: path) else { return "uri='\(Self.escaped(Self.cairoString(links.relativeURI(to: path, fragment: fragment))))'" }
            guard other != links.name else { return fragment.flatMap { linkedNames.contains($0) ? "dest='\(Self.escaped(Self.cairoString($0)))'" : nil } }
            let file = links.relativePDFPath(to: other, layout: layoutName)
            let key = RemoteLinkKey(file: file, destination: fragment)
            let index = remoteLinkIndexes[key] ?? remoteLinks.count
            if index == remoteLinks.count {
                remoteLinks.append(RemoteLink(file: file, destination: fragment, index: index))
                remoteLinkIndexes[key] = index
            }
            return "file='\(Self.escaped(remoteLinks[index].markedFile))'"
        }
        let target = target.trimmingASCIIWhitespace()
        guard !target.isEmpty, !target.hasPrefix("#") else { return nil }
        return "uri='\(Self.escaped(Self.cairoString(target)))'"
    }

    /// `value` as cairo must be given a string it writes into the PDF between parentheses.
    /// cairo 1.16 (Debian 12's) writes destination names (in the name tree and in each link to
    /// them) and link addresses as they are given: an id or an address with an unbalanced
    /// parenthesis (`step(1`, a mistyped `href`) ended the string early and made the object
    /// unreadable, the name tree's taking the catalog with it. They are given as the inside
    /// of a PDF string (`step\(1`), which readers take as `step(1`. (The link completion and
    /// the tests read cairo 1.16's output as it is; another cairo is not built against.)
    static func cairoString(_ value: String) -> String {
        RemoteLink.literal(value)
    }

    /// A string value of cairo's attribute syntax: quotes and backslashes escaped.
    static func escaped(_ value: String) -> String {
        var escaped = ""
        for character in value {
            if character == "'" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// The text the run's glyphs show, UTF-8, and cairo's clusters mapping its bytes to the
    /// glyphs: each cluster's characters run from its offset to the next cluster's in the run
    /// (or the end of the run's text), soft hyphens and object replacement characters left
    /// out; a hyphen added at a break shows "-". Glyphs of a right-to-left run come in visual
    /// order, their clusters backward. Nil when the run keeps no clusters.
    private func textClusters(of run: GlyphRun) -> ([CChar], [cairo_text_cluster_t], Bool)? {
        guard run.clusters.count == run.glyphs.count else { return nil }
        let scalars = run.ownText ?? self.scalars
        // Consecutive glyphs of one cluster, in glyph order.
        var groups: [(cluster: Int, glyphs: Int)] = []
        for cluster in run.clusters {
            if let last = groups.last, last.cluster == cluster { groups[groups.count - 1].glyphs += 1 } else { groups.append((cluster, 1)) }
        }
        let starts = Set(run.clusters.filter { $0 >= 0 }).sorted()
        let text = run.text.clamped(to: 0..<scalars.count)
        let backward = (starts.count > 1) && (run.clusters.first { $0 >= 0 } ?? 0) > (run.clusters.last { $0 >= 0 } ?? 0)
        if backward { groups.reverse() }
        var utf8: [CChar] = []
        var clusters: [cairo_text_cluster_t] = []
        for group in groups {
            let before = utf8.count
            if group.cluster == GlyphRun.insertedHyphen {
                utf8.append(CChar(UInt8(ascii: "-")))
            } else if group.cluster >= 0 {
                let next = starts.firstIndex(of: group.cluster).map { $0 + 1 < starts.count ? starts[$0 + 1] : text.upperBound } ?? group.cluster + 1
                let characters = max(group.cluster, text.lowerBound)..<min(max(next, group.cluster + 1), max(text.upperBound, group.cluster + 1), scalars.count)
                for scalar in scalars[characters] where scalar != "\u{AD}" && scalar != AttributedText.objectReplacement {
                    let shown = scalar == AttributedText.lineSeparator || scalar == AttributedText.paragraphSeparator ? " " : scalar
                    for byte in String(shown).utf8 { utf8.append(CChar(bitPattern: byte)) }
                }
            }
            clusters.append(cairo_text_cluster_t(num_bytes: Int32(utf8.count - before), num_glyphs: Int32(group.glyphs)))
        }
        return (utf8, clusters, backward)
    }

    // MARK: Outline

    /// An outline entry for each heading (`h1`–`h6`) whose first line is on the page, under
    /// the nearest heading before it of a higher level, pointing at the line.
    private func addOutline(_ page: TypesetPage) {
        for column in page.columns {
            for line in column.lines {
                let paragraph = text.paragraphs[text.paragraphIndex(at: line.range.lowerBound)]
                guard paragraph.range.lowerBound == line.range.lowerBound, let level = Self.headingLevel(paragraph.value.element) else { continue }
                let title = Self.collapsed(scalars[paragraph.range.clamped(to: 0..<scalars.count)])
                guard !title.isEmpty else { continue }
                while let last = outline.last, last.level >= level { outline.removeLast() }
                let parent = outline.last?.id ?? Int32(CAIRO_PDF_OUTLINE_ROOT)
                let destination = "page=\(pages) pos=[\(Self.number(line.rect.x)) \(Self.number(line.rect.y))]"
                let id = cairo_pdf_surface_add_outline(surface, parent, title, destination, cairo_pdf_outline_flags_t(rawValue: 0))
                outline.append((level, id))
            }
        }
    }

    /// 1 to 6 for a paragraph of an `h1` to `h6` element (`h2`, `h2.title`), nil otherwise.
    static func headingLevel(_ element: String) -> Int? {
        let name = element.prefix { $0 != "." }
        guard name.count == 2, name.first == "h", let level = name.last?.wholeNumberValue, (1...6).contains(level) else { return nil }
        return level
    }

    /// Text with white space runs as one space, soft hyphens and pictures left out.
    static func collapsed(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var result = String.UnicodeScalarView()
        var space = false
        for scalar in scalars where scalar != "\u{AD}" && scalar != AttributedText.objectReplacement {
            if scalar.properties.isWhitespace { space = !result.isEmpty; continue }
            if space { result.append(" "); space = false }
            result.append(scalar)
        }
        return String(result)
    }

    private static func number(_ value: Double) -> String {
        String((value * 100).rounded() / 100)
    }

    // MARK: Pictures

    private func draw(_ placed: PlacedImage) throws(TypesetError) {
        let image = placed.image
        guard placed.rect.width > 0, placed.rect.height > 0 else { return }
        if let svg = image.svg, drawVector(svg, of: image, in: placed.rect) { return }
        let key = image.pixels.withUnsafeBufferPointer { ImageKey(storage: UnsafeRawPointer($0.baseAddress), width: image.width, height: image.height) }
        let source: OpaquePointer
        if let made = images[key] {
            source = made.surface
        } else {
            source = Self.surface(of: image, id: images.count)
            images[key] = (image, source)
        }
        let cr = context
        cairo_save(cr)
        cairo_rectangle(cr, placed.rect.x, placed.rect.y, placed.rect.width, placed.rect.height)
        cairo_clip(cr)
        cairo_translate(cr, placed.rect.x, placed.rect.y)
        cairo_scale(cr, placed.rect.width / Double(image.width), placed.rect.height / Double(image.height))
        cairo_set_source_surface(cr, source, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    /// Draws an SVG picture as paths and text (librsvg) into `rect`, fitted as its
    /// `preserveAspectRatio` says (so a box of the picture's own proportions is filled, as the
    /// page images fill it). Only uniform scales reach librsvg: under a CTM that stretches one
    /// way, pango spaces the glyphs of SVG text for the unstretched size and they overlap. Drawn
    /// into a group that is kept only when librsvg drew the whole picture; false when it did
    /// not, and the bitmap MuPDF made is drawn instead.
    private func drawVector(_ svg: [UInt8], of image: RasterImage, in rect: Rect) -> Bool {
        let cr = context
        cairo_save(cr)
        cairo_rectangle(cr, rect.x, rect.y, rect.width, rect.height)
        cairo_clip(cr)
        cairo_push_group(cr)
        var message = [CChar](repeating: 0, count: 256)
        let status = svgFamilies.rewritten(svg).withUnsafeBufferPointer { bytes in
            galley_cairo_draw_svg(cr, bytes.baseAddress, bytes.count, rect.x, rect.y, rect.width, rect.height, &message, message.count)
        }
        let group = cairo_pop_group(cr)
        if status == 0 {
            cairo_set_source(cr, group)
            cairo_paint(cr)
        }
        cairo_pattern_destroy(group)
        cairo_restore(cr)
        return status == 0
    }

    /// A cairo image of the picture's pixels (opaque pictures without an alpha channel), with
    /// a unique ID so cairo writes it once however often it is drawn, and the JPEG file it came
    /// from when it has one, which cairo embeds instead of the pixels.
    private static func surface(of image: RasterImage, id: Int) -> OpaquePointer {
        let opaque = stride(from: 3, to: image.pixels.count, by: 4).allSatisfy { image.pixels[$0] == 255 }
        let format = opaque ? CAIRO_FORMAT_RGB24 : CAIRO_FORMAT_ARGB32
        let surface = cairo_image_surface_create(format, Int32(image.width), Int32(image.height))!
        cairo_surface_flush(surface)
        if let data = cairo_image_surface_get_data(surface) {
            let stride = Int(cairo_image_surface_get_stride(surface))
            image.pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<image.height {
                    let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                    for x in 0..<image.width {
                        let p = (y * image.width + x) * 4
                        // Both premultiplied; cairo's pixel is a native-endian 0xAARRGGBB.
                        row[x] = UInt32(pixels[p + 3]) << 24 | UInt32(pixels[p]) << 16 | UInt32(pixels[p + 1]) << 8 | UInt32(pixels[p + 2])
                    }
                }
            }
        }
        cairo_surface_mark_dirty(surface)
        // A JPEG whose pixels these are goes into the PDF as it is (DCTDecode), not re-encoded.
        if let jpeg = image.jpeg, let copy = malloc(jpeg.count) {
            jpeg.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: jpeg.count) }
            cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_JPEG, copy.assumingMemoryBound(to: UInt8.self), UInt(jpeg.count),
                                        { free($0) }, copy)
        }
        let unique = Array("galley-picture-\(id)-\(image.width)x\(image.height)".utf8)
        let copy = malloc(unique.count)!
        unique.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: unique.count) }
        cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_UNIQUE_ID, copy.assumingMemoryBound(to: UInt8.self), UInt(unique.count),
                                    { free($0) }, copy)
        return surface
    }
}

/// SVG pictures as the PDF writer draws them, for the fuzzer of what reaches librsvg.
public enum VectorPicture {
    /// Whether librsvg draws `svg` whole into a box of `width` × `height` pt on a PDF page whose
    /// bytes are dropped, as `PDFDocumentWriter` draws a picture placed at that size.
    public static func draws(_ svg: [UInt8], width: Double, height: Double) -> Bool {
        let discard: cairo_write_func_t = { _, _, _ in CAIRO_STATUS_SUCCESS }
        let surface = cairo_pdf_surface_create_for_stream(discard, nil, max(1, width), max(1, height))
        let cr = cairo_create(surface)
        var message = [CChar](repeating: 0, count: 256)
        var families = SVGFontFamilies()
        let status = families.rewritten(svg).withUnsafeBufferPointer { bytes in
            galley_cairo_draw_svg(cr, bytes.baseAddress, bytes.count, 0, 0, width, height, &message, message.count)
        }
        cairo_show_page(cr)
        cairo_destroy(cr)
        cairo_surface_finish(surface)
        cairo_surface_destroy(surface)
        return status == 0
    }
}
