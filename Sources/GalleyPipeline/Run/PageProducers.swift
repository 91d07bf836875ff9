import Foundation
import GalleyBase
import GalleyCatalog
import GalleyManifest
import GalleyPDF
import GalleyRaster
import GalleyText

/// The pages of one open document (or of one of its lanes, `DocumentOpener`), made one at a
/// time as page slots free up. Used by one operation at a time (see `DocumentCursor`).
protocol PageProducer: AnyObject {
    /// The next page and its facts, or nil when there are no more.
    ///
    /// - Throws: a failure of the document; pages already made stay valid.
    func next() throws -> (page: any PageSource, facts: PageFacts)?

    /// No more pages will be asked for (the end, a failure or a cancellation): report what
    /// was made.
    func finish()

    /// What happened since last asked (metadata, counts, warnings, pages that failed), in
    /// order: taken after the producer is made and after each `next()` and `finish()`.
    func takeEvents() -> [ProducerEvent]
}

/// Points rounded to 1/1000, so the manifest does not carry float noise.
func manifestPoints(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

extension Manifest {
    /// The pieces of blocks' boxes on a typeset page, in column order.
    static func boxes(of page: TypesetPage) -> [BoxFrame] {
        page.columns.enumerated().flatMap { index, column in
            column.boxes.map { BoxFrame(column: index, box: $0.box, rect: Rect($0.rect), starts: $0.startsHere, ends: $0.endsHere) }
        }
    }

    /// The floated blocks on a typeset page, in column order.
    static func floatedBlocks(of page: TypesetPage) -> [FloatedBlockFrame] {
        page.columns.enumerated().flatMap { index, column in
            column.floats.map {
                FloatedBlockFrame(column: index, block: $0.block, float: $0.side.rawValue, rect: Rect($0.rect),
                                  textRange: [$0.range.lowerBound, $0.range.upperBound])
            }
        }
    }

    /// The pieces of tables on a typeset page, in column order; with their cells when `cells`.
    static func tables(of page: TypesetPage, cells listCells: Bool) -> [TableFrame] {
        page.columns.enumerated().flatMap { index, column in
            column.tables.map { table in
                TableFrame(column: index, table: table.table, parent: table.parent, rect: Rect(table.rect), rows: [table.rows.lowerBound, table.rows.upperBound],
                           rowCount: table.rowCount, columnCount: table.columnCount, scale: (table.scale * 1000).rounded() / 1000,
                           cells: !listCells ? nil : table.cells.map { cell in
                               TableFrame.Cell(row: cell.row, column: cell.column, rowSpan: cell.rowSpan, columnSpan: cell.columnSpan,
                                               rect: Rect(cell.rect), textRange: [cell.range.lowerBound, cell.range.upperBound],
                                               repeatedHeader: cell.isRepeatedHeader)
                           })
            }
        }
    }
}

extension Manifest.Rect {
    /// A typeset rectangle, rounded as the manifest rounds points.
    init(_ rect: GalleyText.Rect) {
        self.init(x: manifestPoints(rect.x), y: manifestPoints(rect.y), width: manifestPoints(rect.width), height: manifestPoints(rect.height))
    }
}

/// Runs page work under `page_timeout`: past it the work is aborted (through the same
/// cancellation as Ctrl-C) and fails as `timed-out`, naming the page.
struct TimeLimiter: Sendable {
    var timeout: Double
    var cancellation: Cancellation
    var watchdog: PageWatchdog

    init(timeout: Double, cancellation: Cancellation, watchdog: PageWatchdog? = nil) {
        self.timeout = timeout
        self.cancellation = cancellation
        self.watchdog = watchdog ?? PageWatchdog(timeout: timeout)
    }

    func run<T>(page number: Int, doing what: String, _ body: (Cancellation) throws -> T) throws -> T {
        let limit = Cancellation(parent: cancellation)
        let token = watchdog.watch(limit, for: timeout)
        defer { watchdog.unwatch(token) }
        do {
            return try body(limit)
        } catch {
            guard limit.isCancelled, !cancellation.isCancelled else { throw error }
            let seconds = timeout.formatted(.number.precision(.fractionLength(0...3)))
            throw Failure(code: .timedOut,
                                   message: "page \(number) took longer than page_timeout (\(seconds) s) to \(what); raise page_timeout to allow it",
                                   page: number)
        }
    }
}

/// Pages of a PDF: each recorded as a MuPDF display list.
///
/// A run draws a PDF in page lanes (`DocumentOpener`): lane `k` of `n` opens the document in an
/// engine of its own and makes the `k`th, `k + n`th, ... selected pages. Only lane 0 reports
/// the document's metadata, page count and warnings.
final class PDFPages: PageProducer {
    private let pdf: PDFDocument
    /// The engine, and the pool it was taken from, to which `finish` gives it back (a lane's).
    private var lease: (engine: MuPDFEngine, pool: LaneEngines)?
    private let folder: String
    private let limiter: TimeLimiter
    private var events: [ProducerEvent] = []
    /// The page indices this producer makes (its lane's share of the selection), and how many
    /// are made.
    private let selected: [Int]
    private var nextIndex = 0
    /// How many pages the whole selection has (every lane's).
    let selectedCount: Int
    /// Whether pages are loaded and drawn straight from the document (`LoadedPDFPage`), each
    /// drawn at most once in the lane that made it, rather than recorded as display lists.
    private let drawsOnce: Bool
    /// Warnings of pages drawn straight from the document, whose skipped errors are known
    /// only once drawn: reported at the next page or at the end.
    private let drawnWarnings = DrawnPageWarnings()

    /// `bytes`: the file, read by the open stage, which every lane's document reads.
    /// `engines`: the pool `engine` was taken from, to which `finish` gives it back.
    /// `drawsOnce`: each page is drawn at most once, in the operation that made it, before the
    /// next page is asked for (a run's lane that makes no page images): pages are then loaded,
    /// not recorded, and drawn straight from the document.
    init(document: SourceDocument, configuration: Configuration, engine: MuPDFEngine,
         limiter: TimeLimiter, lane: Int = 0, of lanes: Int = 1, bytes: FileBytes? = nil, engines: LaneEngines? = nil,
         drawsOnce: Bool = false) throws {
        precondition(lanes >= 1 && (0..<lanes).contains(lane), "lane \(lane) of \(lanes)")
        self.drawsOnce = drawsOnce
        pdf = try configuration.openPDF(document, engine: engine, bytes: bytes)
        lease = engines.map { (engine, $0) }
        self.folder = document.name
        self.limiter = limiter
        var warnings: [String] = []
        let selection: [Int]
        if let pages = configuration.pageSelection {
            selection = pages.indices(pageCount: pdf.pageCount, limit: configuration.maxPages)
            if selection.isEmpty {
                warnings.append("the page selection \(pages) selects none of its \(pdf.pageCount) page(s)")
            }
        } else {
            selection = Array(0..<min(pdf.pageCount, configuration.maxPages ?? .max))
        }
        selectedCount = selection.count
        selected = lanes == 1 ? selection : stride(from: lane, to: selection.count, by: lanes).map { selection[$0] }
        guard lane == 0 else { return }
        if pdf.isTruncated {
            warnings.append("truncated: the end-of-file marker is missing; MuPDF rebuilt \(pdf.pageCount) page(s) from what is there, later ones may be lost")
        } else if pdf.wasRepaired {
            warnings.append("MuPDF repaired a damaged cross-reference table")
        }
        events.append(.described(title: pdf.metadata("info:Title"), author: pdf.metadata("info:Author")))
        events.append(.counted(pages: pdf.pageCount, selected: selection.count, warnings: warnings))
        if pdf.claimedPageCount > pdf.pageCount {
            events.append(.failed(Failure(code: .impossiblePageTree,
                                           message: "the page tree claims \(pdf.claimedPageCount) pages but holds \(pdf.pageCount); those are drawn",
                                           detail: "pdf_lookup_page_obj")))
        }
    }

    /// A page that cannot be recorded fails alone, with its number: the pages after it are
    /// still recorded and drawn (a damaged file is drawn as far as it can be). Only a
    /// cancellation stops the document.
    func next() throws -> (page: any PageSource, facts: PageFacts)? {
        takeDrawnWarnings()
        while nextIndex < selected.count {
            let pageIndex = selected[nextIndex]
            nextIndex += 1
            let page: any PageSource & PDFPageFacts
            do {
                if drawsOnce {
                    let warnings = drawnWarnings
                    page = try pdf.loadPage(pageIndex) { errors in warnings.add(page: pageIndex + 1, errors: errors) }
                } else {
                    let recorded = try limiter.run(page: pageIndex + 1, doing: "record") { limit in
                        try pdf.recordPage(pageIndex, cancellation: limit)
                    }
                    if recorded.readErrors > 0 { events.append(.warning(Self.readWarning(page: pageIndex + 1, errors: recorded.readErrors))) }
                    page = recorded
                }
            } catch {
                if limiter.cancellation.isCancelled { throw Failure(error, page: pageIndex + 1) }
                events.append(.failed(Failure(error, page: pageIndex + 1)))
                continue
            }
            let facts = PageFacts(index: pageIndex, number: pageIndex + 1, folder: folder,
                                  widthPt: manifestPoints(page.size.width), heightPt: manifestPoints(page.size.height),
                                  rotation: page.rotation, layout: nil)
            return (page, facts)
        }
        return nil
    }

    /// The warning of a page MuPDF met `errors` errors reading.
    static func readWarning(page: Int, errors: Int) -> String {
        "page \(page): MuPDF skipped \(errors) error(s) reading the page; it may be incomplete"
    }

    /// The warnings of pages drawn since last asked, into the events.
    private func takeDrawnWarnings() {
        events += drawnWarnings.take().map { .warning(Self.readWarning(page: $0.page, errors: $0.errors)) }
    }

    /// Gives a lane's engine back to its pool: the lane draws no more with it.
    func finish() {
        takeDrawnWarnings()
        if let lease { lease.pool.give(lease.engine) }
        lease = nil
    }

    func takeEvents() -> [ProducerEvent] {
        defer { events = [] }
        return events
    }
}

/// What a PDF page tells its page's facts (both kinds of `PDFPages`' pages).
protocol PDFPageFacts {
    var rotation: Int { get }
}

extension PDFPage: PDFPageFacts {}
extension LoadedPDFPage: PDFPageFacts {}

/// Pages drawn straight from their document whose reading met errors, as they are drawn
/// (`LoadedPDFPage` tells each drawing's count): only the lane's own thread adds and takes, but
/// the page's report is a Sendable closure.
final class DrawnPageWarnings: Sendable {
    private let pages = Mutex<[(page: Int, errors: Int)]>([])

    func add(page: Int, errors: Int) {
        guard errors > 0 else { return }
        pages.withLock { $0.append((page, errors)) }
    }

    func take() -> [(page: Int, errors: Int)] {
        pages.withLock { pages in
            defer { pages = [] }
            return pages
        }
    }
}

/// An article read, checked and parsed with the first layout's base style, with its pictures
/// decoded: what a run, `galley inspect` and `galley typeset` start from, so all three refuse
/// the same files with the same reasons and lay out the same text.
struct OpenedArticle {
    let document: SourceDocument
    let bytes: [UInt8]
    /// The parse with the first layout's base style, `firstBase`.
    let first: ParsedArticle
    let firstBase: BaseStyle
    /// The article's pictures, decoded once for every layout.
    let images: AttachmentImages
    /// The parse's warnings and the pictures'.
    let warnings: [String]
    /// Pictures that could not be read and are set as their `alt` text
    /// (`MarkupParser.unavailablePictures`), in every layout's parse.
    let unavailablePictures: Set<String>

    /// Reads the article, or fails with the reason a run records: unreadable, binary, or no
    /// text to lay out.
    init(document: SourceDocument, configuration: Configuration, engine: MuPDFEngine) throws(Failure) {
        do {
            bytes = try [UInt8](Data(contentsOf: document.url))
        } catch {
            throw Failure(code: .unreadable, message: "cannot read the file: \(error.localizedDescription)")
        }
        self.document = document
        if let reason = Self.binaryContent(bytes) {
            throw Failure(code: .notText, message: "\(reason); is it really an \(document.url.pathExtension) file?")
        }
        firstBase = configuration.layouts[0].base
        var first = Self.parse(bytes, document: document, base: firstBase)
        guard first.text.scalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw Failure(code: .noText,
                                   message: bytes.isEmpty ? "the file is empty" : "the article has no text to lay out (is it an HTML or text file?)")
        }
        let drawn = ArticleImageLoader.drawnAtMost(layouts: configuration.layouts, scale: configuration.pageScale)
        // Collected once: the text's and its inline-blocks' pictures, at any depth.
        let pictures = first.text.pictures
        let loaded = ArticleImageLoader(document: document, engine: engine, drawnAtMost: drawn).load(pictures)
        images = loaded.images
        // A picture that could not be read, with no size in the markup (a percentage width is
        // one) and an alt text, is set as that text: parsed again, only then (the warning
        // about the picture stays).
        let unavailable = Set(pictures.lazy.filter { attachment in
            loaded.images[attachment.source] == nil && attachment.width == nil && attachment.height == nil && attachment.widthFraction == nil
                && !attachment.alternative.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }.map(\.source))
        unavailablePictures = unavailable
        if !unavailable.isEmpty { first = Self.parse(bytes, document: document, base: firstBase, unavailablePictures: unavailable) }
        self.first = first
        warnings = first.warnings + loaded.warnings
    }

    /// The article parsed for `layout` (the first parse when the base style is the same: the
    /// parse depends on nothing else), and the layout in the markup's writing mode and page
    /// colour, which are the article's own and win over the layout's.
    func prepared(for layout: ArticleLayout) -> (parsed: ParsedArticle, layout: ArticleLayout) {
        let parsed = layout.base == firstBase ? first
            : Self.parse(bytes, document: document, base: layout.base, unavailablePictures: unavailablePictures)
        var layout = layout
        if let mode = parsed.writingMode { layout.writingMode = mode }
        if let background = parsed.pageBackground { layout.background = background }
        return (parsed, layout)
    }

    /// Why these bytes are not text, when they are not: NUL bytes in the first 8 KiB (no text
    /// encoding an article uses has them, except UTF-16 and UTF-32, which start with a
    /// byte-order mark), or mostly control bytes.
    static func binaryContent(_ bytes: [UInt8]) -> String? {
        let head = bytes.prefix(8192)
        guard !head.isEmpty else { return nil }
        if TextDecoding.byteOrderMark(head) != nil { return nil }
        if head.contains(0) { return "the file holds binary data (NUL bytes), not text" }
        let controls = head.filter { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D && $0 != 0x0C }.count
        if controls * 10 > head.count { return "the file holds binary data (\(controls) control bytes in its first \(head.count)), not text" }
        return nil
    }

    static func parse(_ bytes: [UInt8], document: SourceDocument, base: BaseStyle, unavailablePictures: Set<String> = []) -> ParsedArticle {
        var parser = MarkupParser(base: base)
        parser.unavailablePictures = unavailablePictures
        let files = ArticleFiles(document: document)
        parser.styleSheetLoader = { files.styleSheet($0) }
        if document.isPlainText { return parser.parse(plainText: bytes) }
        return parser.parse(html: bytes, baseURL: document.url.deletingLastPathComponent())
    }
}

/// Pages of an article: parsed, then typeset once per layout, page after page.
final class ArticlePages: PageProducer {
    private let article: OpenedArticle
    private let layouts: [ArticleLayout]
    private let fonts: FontLibrary
    private var events: [ProducerEvent] = []
    private let documentFiles: DocumentFiles?
    /// `page_timeout` on each page's typesetting; nil for none.
    private let limiter: TimeLimiter?
    private var layoutIndex = 0
    private var typesetter: ArticleTypesetter?
    /// The document writers of the current layout, fed each page as it is made.
    private var writers: [(format: any DocumentFormat, writer: any DocumentWriter)] = []
    private var made: [Manifest.LayoutPages] = []
    private var uncovered: [Unicode.Scalar: Int] = [:]
    private var unhyphenated: Set<String> = []
    private var tableWarnings: [String] = []
    /// Words cut inside with a hyphen, by layout, in layout order.
    private var wordsCut: [(layout: String, count: Int)] = []
    /// Layouts whose `font_family` is set in another font, with that font's family.
    private var substitutedFonts: [(layout: String, family: String, used: String)] = []
    private var sequence = 0
    /// The page selection and limit, applied to each layout's pages.
    private let selection: PageSelection?
    private let maxPages: Int?
    /// Pages of the current layout handed on, and a page held back because whether it is
    /// selected depends on its being the layout's last (`last`, `N`).
    private var madeInLayout = 0
    private var pending: TypesetPage?
    private var handedOn = 0

    /// `documentFiles`: where the layouts' document files go; nil to write none (a page
    /// wanted for a preview only).
    init(document: SourceDocument, configuration: Configuration, fonts: FontLibrary, engine: MuPDFEngine,
         documentFiles: DocumentFiles? = nil, limiter: TimeLimiter? = nil) throws {
        article = try OpenedArticle(document: document, configuration: configuration, engine: engine)
        self.limiter = limiter
        events.append(.described(title: article.first.title, author: article.first.author))
        self.layouts = configuration.layouts
        self.fonts = fonts
        self.documentFiles = documentFiles
        selection = configuration.pageSelection
        maxPages = configuration.maxPages
    }

    /// The CSS properties the article declares that Galley ignores, most declared first, for
    /// `--verbose`; nil when there are none.
    var ignoredPropertiesSummary: String? {
        let ignored = article.first.ignoredProperties
        guard !ignored.isEmpty else { return nil }
        let listed = ignored.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) (\($0.value))" }
        return "CSS properties ignored: " + listed.joined(separator: ", ")
    }

    /// Every page of every layout is set (the manifest counts them and the document files
    /// hold them all); the selected ones are handed on to be drawn.
    func next() throws -> (page: any PageSource, facts: PageFacts)? {
        while layoutIndex < layouts.count {
            if typesetter == nil {
                let (parsed, layout) = article.prepared(for: layouts[layoutIndex])
                made.append(Manifest.LayoutPages(name: layout.name, pageCount: 0))
                // No usable font at all fails the typesetter just below, with its reason.
                if let used = (try? fonts.substitute(for: layout.base.fontFamily)) ?? nil {
                    substitutedFonts.append((layout.name, layout.base.fontFamily, used))
                }
                typesetter = try wrap(layout) { () throws(TypesetError) in
                    try ArticleTypesetter(text: parsed.text, layout: layout, fonts: fonts, images: article.images)
                }
                var metadata = DocumentMetadata(article: parsed, sourcePath: article.document.url.path)
                metadata.links = documentFiles.map { DocumentLinks(source: article.document.url, name: article.document.name, articles: $0.articles) }
                writers = (documentFiles?.formats(layout.name) ?? []).map(\.format).map { ($0, $0.makeWriter(text: parsed.text, layout: layout, metadata: metadata)) }
                madeInLayout = 0
                pending = nil
            }
            guard let typesetter else { continue }
            let layout = typesetter.layout
            let limitReached = maxPages.map { madeInLayout >= $0 } ?? false
            if let page = try typesetNextPage(typesetter) {
                for (_, writer) in writers { try wrap(layout) { () throws(TypesetError) in try writer.add(page) } }
                made[made.count - 1].pageCount += 1
                pending = nil  // a page followed: the one held back was not the last
                guard !limitReached else { continue }
                switch selection.map({ $0.contains(page.number) }) ?? true {
                case true?: return handOn(page, layout: layout)
                case false?: continue
                case nil: pending = page
                }
                continue
            }
            // The layout is set; a page held back was its last, so it is selected.
            if let last = pending, !limitReached {
                pending = nil
                return handOn(last, layout: layout)
            }
            try writeDocumentFiles(layout)
            closeLayout()
        }
        return nil
    }

    /// The layout's next page, set under `page_timeout` when there is a limiter: past it the
    /// typesetter stops between lines and the article fails as `timed-out`, naming the page.
    private func typesetNextPage(_ typesetter: ArticleTypesetter) throws -> TypesetPage? {
        let layout = typesetter.layout
        guard let limiter else { return try wrap(layout) { () throws(TypesetError) in try typesetter.nextPage() } }
        return try limiter.run(page: (made.last?.pageCount ?? 0) + 1, doing: "typeset (layout \(layout.name))") { limit in
            typesetter.cancellation = limit
            defer { typesetter.cancellation = nil }
            return try wrap(layout) { () throws(TypesetError) in try typesetter.nextPage() }
        }
    }

    private func handOn(_ page: TypesetPage, layout: ArticleLayout) -> (page: any PageSource, facts: PageFacts) {
        madeInLayout += 1
        handedOn += 1
        defer { sequence += 1 }
        return (page, facts(of: page, layout: layout))
    }

    /// The current layout is complete: each writer's file goes next to the layout's pages
    /// (`DocumentFormatName.path`), and is reported (`ProducerEvent.wroteFile`).
    private func writeDocumentFiles(_ layout: ArticleLayout) throws {
        guard let documentFiles, !writers.isEmpty else { return }
        var files: [Manifest.DocumentFile] = []
        for (format, writer) in writers {
            let bytes = try wrap(layout) { () throws(TypesetError) in try writer.finish() }
            let path = format.name.path(document: article.document.name, layout: layout.name)
            try documentFiles.store.write(bytes, to: path)
            let file = Manifest.DocumentFile(format: format.name.rawValue, path: path, sha256: ContentHash.sha256(bytes), bytes: bytes.count)
            events.append(.wroteFile(layout: layout, file: file))
            files.append(file)
        }
        writers = []
        made[made.count - 1].files = files
    }

    /// A typesetting failure names the layout and the page it happened on.
    private func wrap<T>(_ layout: ArticleLayout, _ body: () throws(TypesetError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            let page = (made.last?.pageCount ?? 0) + 1
            throw Failure(code: error.code, message: "layout \(layout.name): \(error.message)", page: page)
        }
    }

    private func closeLayout() {
        writers = []
        if let typesetter {
            uncovered.merge(typesetter.uncoveredCharacters, uniquingKeysWith: max)
            unhyphenated.formUnion(typesetter.unhyphenatedLanguages)
            tableWarnings += typesetter.tableWarnings
            if typesetter.wordsCut > 0 { wordsCut.append((typesetter.layout.name, typesetter.wordsCut)) }
        }
        typesetter = nil
        layoutIndex += 1
    }

    private func facts(of page: TypesetPage, layout: ArticleLayout) -> PageFacts {
        func rect(_ r: GalleyText.Rect) -> Manifest.Rect {
            Manifest.Rect(x: manifestPoints(r.x), y: manifestPoints(r.y), width: manifestPoints(r.width), height: manifestPoints(r.height))
        }
        let columns = page.columns.map { column in
            Manifest.Column(rect: rect(column.rect), textRange: [column.range.lowerBound, column.range.upperBound],
                            lineCount: column.lines.count, multicol: column.multicol)
        }
        let attachments = page.attachments.map {
            Manifest.AttachmentFrame(page: nil, column: $0.column, rect: rect($0.rect), offset: $0.offset, source: $0.source, float: $0.float?.rawValue)
        }
        let tables = Manifest.tables(of: page, cells: false)
        return PageFacts(index: sequence, number: page.number, folder: "\(article.document.name)/\(layout.name)",
                         widthPt: manifestPoints(page.size.width), heightPt: manifestPoints(page.size.height), rotation: 0,
                         layout: LayoutFacts(name: layout.name, writingMode: page.writingMode, columns: columns, lineCount: page.lineCount,
                                             justifiedLineCount: page.justifiedLineCount, hyphenatedLineCount: page.hyphenatedLineCount,
                                             looseLineCount: page.looseLineCount,
                                             wrappedPreformattedLineCount: page.wrappedPreformattedLineCount,
                                             breakExceptionCount: page.breakExceptionCount, attachments: attachments, tables: tables,
                                             boxes: Manifest.boxes(of: page), floatedBlocks: Manifest.floatedBlocks(of: page),
                                             label: page.label))
    }

    func finish() {
        if typesetter != nil { closeLayout() }
        var all = article.warnings
        for (layout, count) in wordsCut {
            all.append("layout \(layout): \(count) word\(count == 1 ? "" : "s") wider than \(count == 1 ? "its line was" : "their lines were") cut inside with a hyphen (no space, no-break space or hyphenation point fitted); a wider column or a smaller font avoids it")
        }
        for font in substitutedFonts {
            all.append(LazyFonts.substitutionWarning(layout: font.layout, family: font.family, used: font.used))
        }
        if !uncovered.isEmpty {
            let total = uncovered.values.reduce(0, +)
            let listed = uncovered.keys.sorted { $0.value < $1.value }.prefix(12)
                .map { String(format: "U+%04X", $0.value) }.joined(separator: " ")
            all.append("no installed font has a glyph for \(total) character(s) (\(listed)\(uncovered.count > 12 ? " …" : "")); they show as boxes. Install a font that covers them or add its folder under fonts:")
        }
        if !tableWarnings.isEmpty {
            // One line per kind of adjustment, however many tables and layouts needed it.
            var counts: [String: Int] = [:]
            for warning in tableWarnings { counts[warning, default: 0] += 1 }
            for warning in tableWarnings where counts[warning] != nil {
                let count = counts.removeValue(forKey: warning) ?? 1
                all.append(count > 1 ? "\(warning) (\(count) times)" : warning)
            }
        }
        if let guessed = article.first.guessedLanguage {
            all.append("the markup and the layout give no language; the text reads as \(guessed) (guessed from its letters by libexttextcat), so it is set as \(guessed): give the markup a lang attribute or the layout a language to choose another")
        }
        if unhyphenated.contains("") {
            all.append("hyphenation is on but some text has no language, so it was not hyphenated; give the markup a lang attribute or the layout a language")
        }
        let missing = unhyphenated.subtracting([""]).sorted()
        if !missing.isEmpty {
            all.append("no hyphenation dictionary for \(missing.joined(separator: ", ")), so that text was not hyphenated; install the hyphen-* package for the language (dictionaries in \(Hyphenator.dictionaryFolder))")
        }
        if let selection, handedOn == 0, made.contains(where: { $0.pageCount > 0 }) {
            all.append("the page selection \(selection) selects none of the pages its layouts set")
        }
        let limited = selection != nil || maxPages != nil
        events.append(.typeset(.init(textLength: article.first.text.count,
                                     characters: (article.first.sourceCharacters, article.first.setCharacters), layouts: made,
                                     selected: limited ? handedOn : nil, warnings: all)))
    }

    func takeEvents() -> [ProducerEvent] {
        defer { events = [] }
        return events
    }
}

/// Where an article's whole-document files go (`documents:` in pipeline.yml): the formats and
/// the output folder. Each file written is reported as a `ProducerEvent.wroteFile`.
struct DocumentFiles: Sendable {
    /// The formats written for a layout, by its name.
    let formats: @Sendable (_ layout: String) -> [DocumentFormatName]
    let store: OutputStore
    /// The run's articles' output folders by their source files' standardized paths, which
    /// links between their PDFs reach (`DocumentLinks`).
    var articles: [String: String] = [:]

    /// The output folders of `documents`' articles, by their files' standardized paths.
    static func articles(_ documents: [SourceDocument]) -> [String: String] {
        Dictionary(documents.filter { $0.kind == .markup }.map { ($0.url.standardizedFileURL.path, $0.name) }) { first, _ in first }
    }
}

extension DocumentFiles {
    /// Where a run's articles' document files go; nil when the configuration writes none.
    /// `scanned`: every document of the run, a shard's others too, whose articles the PDFs'
    /// links reach.
    init?(configuration: Configuration, store: OutputStore, scanned: [SourceDocument]) {
        guard configuration.writesDocumentFiles else { return nil }
        self.init(formats: configuration.documentFormatNames(for:), store: store, articles: DocumentFiles.articles(scanned))
    }
}
