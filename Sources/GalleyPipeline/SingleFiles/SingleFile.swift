import Foundation
import GalleyBase
import GalleyCatalog
import GalleyPDF
import GalleyRaster
import GalleyText

/// One file at a time, outside a run: what `galley render` and `galley thumbnail` do. No
/// catalog, no manifest, no contact sheet: the pages of the file as images in a folder, or its
/// first page as a thumbnail, as a desktop thumbnailer asks for one (`Exec=galley thumbnail -s
/// %s %i %o`). Documents are read exactly as a run reads them (the same producers, passwords,
/// layouts, page selection and encoder), so a file fails here for the reason a run would give.
public struct SingleFile: Sendable {
    public let configuration: Configuration
    /// The folder an article's linked files (pictures, style sheets) may come from, as a run's
    /// input folder; nil: the file's own folder.
    public let root: URL?

    public init(configuration: Configuration, root: URL? = nil) {
        self.configuration = configuration
        self.root = root
    }

    /// What rendering one file gave: the images written, in page order, and the warnings.
    public struct Rendered: Sendable {
        public var paths: [String] = []
        public var warnings: [String] = []
    }

    /// The document for a file given on the command line, or nil when Galley does not read
    /// files of its type. Its input folder is `root` when given (a documentation tree whose
    /// pages link `../_static/style.css`), else the file's own folder: as in a run, an article
    /// reads only files under its input folder.
    /// With `sniffing` (`galley thumbnail`: a file manager hands over any text/plain or PDF
    /// file), a file whose extension Galley does not read (none, `.log`) is read for what its
    /// content is: a PDF, HTML, or text (`SourceDocument.Sniffed`); a binary file is still refused.
    public static func document(_ file: URL, root: URL? = nil, sniffing: Bool = false) -> SourceDocument? {
        var sniffed: SourceDocument.Sniffed?
        if InputScanner.extensions[file.pathExtension.lowercased()] == nil {
            guard sniffing else { return nil }
            guard let handle = FileHandle(forReadingAtPath: file.path) else { return nil }
            defer { try? handle.close() }
            sniffed = (try? handle.read(upToCount: 1024)).flatMap { SourceDocument.Sniffed.of(Array($0)[...]) }
            guard sniffed != nil else { return nil }
        }
        let kind: SourceDocument.Kind = switch sniffed {
        case .pdf?: .pdf
        case .html?, .text?: .markup
        case nil: InputScanner.extensions[file.pathExtension.lowercased()] ?? .markup
        }
        let file = file.standardizedFileURL
        var input = file.deletingLastPathComponent().path, relative = file.lastPathComponent
        if let root {
            guard isInside(file, root: root) else { return nil }
            let folder = root.standardizedFileURL.path
            (input, relative) = (folder, String(file.path.dropFirst(folder.hasSuffix("/") ? folder.count : folder.count + 1)))
        }
        return SourceDocument(url: file, input: input, relativePath: relative, kind: kind,
                              name: file.deletingPathExtension().lastPathComponent, sniffed: sniffed)
    }

    /// Whether `file` lies under `root` (a `--root` given with a file outside it is a usage
    /// error).
    public static func isInside(_ file: URL, root: URL) -> Bool {
        let folder = root.standardizedFileURL.path
        return file.standardizedFileURL.path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
    }

    /// An article's pages as vector PDF (`galley render --format pdf`): `<name>.pdf` in
    /// `folder` (with several layouts, `<name>-<layout>.pdf` for each), written atomically,
    /// as a run's `pdf: true` writes them.
    ///
    /// - Throws: the article's `Failure`; `unreadable` for a file Galley does not read, and
    ///   for a PDF, which is drawn as it is and never rewritten.
    public func writePDF(_ file: URL, into folder: URL) throws(Failure) -> Rendered {
        guard let document = Self.document(file, root: root), document.kind == .markup else {
            throw Failure(code: .unreadable, message: Self.document(file, root: root) == nil
                          ? "not a file Galley reads (.pdf, .html, .htm, .xhtml, .txt)"
                          : "a PDF is drawn as it is, not rewritten: --format pdf writes typeset articles (.html, .htm, .xhtml, .txt)")
        }
        let layoutInName = configuration.layouts.count > 1
        let path = { (layout: String) in folder.appendingPathComponent(document.name + (layoutInName ? "-\(layout)" : "") + ".pdf").path }
        do {
            let measured = try TypesetMeasurement.measure(file: file, configuration: configuration, fonts: try configuration.documentFonts(),
                                                          render: false, frames: false, pdf: path, document: document)
            return Rendered(paths: measured.layouts.map { path($0.name) }, warnings: measured.warnings ?? [])
        } catch {
            throw Failure(error)
        }
    }

    /// Draws the selected pages of `file` at the configured dpi into `folder` as
    /// `<name>-0001.png` (an article with several layouts: `<name>-<layout>-0001.png`; the
    /// extension is the configured format's), each written atomically, as a run draws and
    /// encodes its page images (`PageRenderer`). Pages are drawn `configuration.workers.render`
    /// at a time.
    ///
    /// - Throws: the document's `Failure` (the first page that failed names its page); the
    ///   pages written before it stay.
    public func render(_ file: URL, into folder: URL, cancellation: Cancellation = Cancellation()) throws(Failure) -> Rendered {
        guard let document = Self.document(file, root: root) else {
            throw Failure(code: .unreadable, message: "not a file Galley reads (.pdf, .html, .htm, .xhtml, .txt)")
        }
        let producer: any PageProducer
        let limiter = Self.limiter(configuration, cancellation)
        do {
            producer = try Self.opener(configuration).pages(of: document, limiter: limiter)
        } catch {
            throw Failure(error)
        }
        let renderer = configuration.imageRenderer
        let scale = configuration.pageScale
        let prefix = document.name
        let layoutInName = document.kind == .markup && configuration.layouts.count > 1
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = configuration.workers.render
        let results = Mutex<[(index: Int, result: Result<String, Failure>)]>([])
        var pageFailure: Failure?
        var index = 0
        do {
            while !cancellation.isCancelled, let (page, facts) = try producer.next() {
                let layout = layoutInName ? facts.layout.map { "-\($0.name)" } ?? "" : ""
                let path = folder.appendingPathComponent("\(prefix)\(layout)-\(String(format: "%04d", facts.number)).\(renderer.encoder.fileExtension)").path
                let order = index
                index += 1
                // Bounded: at most twice the workers' pages drawn or waiting.
                while queue.operationCount >= 2 * queue.maxConcurrentOperationCount { queue.waitUntilAllOperationsAreFinished() }
                queue.addOperation {
                    let result = Result { () throws -> String in
                        let bytes = try renderer.render(page, number: facts.number, scale: scale, limiter: limiter)
                        try AtomicFile.write(bytes, to: path, through: path + ".\(getpid()).\(order).tmp")
                        return path
                    }.mapError { Failure($0, page: facts.number) }
                    results.withLock { $0.append((order, result)) }
                }
            }
        } catch {
            pageFailure = Failure(error)
        }
        queue.waitUntilAllOperationsAreFinished()
        producer.finish()
        // What the producer reported along the way: the warnings a run's manifest would list,
        // and a page (or the page tree) that failed while the others went on.
        let reported = producer.takeEvents().outcome
        var rendered = Rendered(warnings: reported.warnings)
        for (_, result) in results.withLock({ $0 }).sorted(by: { $0.index < $1.index }) {
            switch result {
            case .success(let path): rendered.paths.append(path)
            case .failure(let failure): pageFailure = pageFailure ?? failure
            }
        }
        if cancellation.isCancelled { throw Failure(code: .cancelled, message: "interrupted") }
        if let failure = pageFailure ?? reported.failure { throw failure }
        return rendered
    }

    /// The first page of `file` fitted into a `size`×`size` square, as an opaque RGBA PNG with
    /// the freedesktop.org thumbnail chunks (`Thumb::URI`, `Thumb::MTime`, `Thumb::Size`,
    /// `Thumb::Mimetype`, `Software`): what a file manager's thumbnailer writes. With `format`
    /// other than PNG, the thumbnail in that format with the configuration's settings (no
    /// chunks: the standard's thumbnails are PNG).
    public func thumbnail(of file: URL, size: Int, format: ImageFormat = .png,
                          cancellation: Cancellation = Cancellation()) throws(Failure) -> [UInt8] {
        guard let document = Self.document(file, root: root, sniffing: true) else {
            throw Failure(code: .unreadable, message: "not a file Galley reads (a PDF, HTML or text)")
        }
        guard let stamp = FileStamp(path: document.url.path) else {
            throw Failure(code: .unreadable, message: "cannot read the file")
        }
        var first = configuration
        first.pageSelection = nil
        first.maxPages = 1
        first.layouts = Array(configuration.layouts.prefix(1))
        let texts = [("Thumb::URI", FreedesktopThumbnails.uri(path: document.url.path)), ("Thumb::MTime", String(stamp.mtime / 1_000_000_000)),
                     ("Thumb::Size", String(stamp.size)), ("Thumb::Mimetype", FreedesktopThumbnails.mimeType(document)),
                     ("Software", "galley \(Pipeline.version)")]
        do {
            let limiter = Self.limiter(first, cancellation)
            let producer = try Self.opener(first).pages(of: document, limiter: limiter)
            defer { producer.finish() }
            guard let page = try producer.next()?.page else {
                throw producer.takeEvents().outcome.failure ?? Failure(code: .noPages, message: "the document has no pages")
            }
            let encoder: any ImageEncoder = format == .png ? FreedesktopThumbnails.Encoder(texts: texts) : configuration.encoding(format).encoder
            return try PageRenderer(encoder: encoder, dpi: nil).render(page, number: 1, scale: page.thumbnailScale(box: size), limiter: limiter)
        } catch {
            throw Failure(error, page: 1)
        }
    }

    /// What a single file's pages are made by: a run's opener, with every page in one lane
    /// (`DocumentOpener.singleLane`). `fonts`: the fonts for articles, shared by the files of
    /// one command.
    static func opener(_ configuration: Configuration, fonts: LazyFonts? = nil) throws(PDFError) -> DocumentOpener {
        DocumentOpener.singleLane(configuration, engine: try MuPDFEngine(), fonts: fonts ?? LazyFonts(configuration: configuration))
    }

    /// `page_timeout` on the pages' work, as in a run.
    static func limiter(_ configuration: Configuration, _ cancellation: Cancellation) -> TimeLimiter {
        TimeLimiter(timeout: configuration.pageTimeout, cancellation: cancellation)
    }
}
