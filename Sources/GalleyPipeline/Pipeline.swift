import Foundation
import GalleyCatalog
import GalleyPDF
import GalleyRaster
import GalleyText
import Logging
import Synchronization

/// How a run ended.
public struct RunSummary: Sendable {
    public enum Outcome: Sendable {
        /// Every document succeeded.
        case succeeded
        /// One or more documents failed; the others completed.
        case someFailed
        /// The run was cancelled; no manifest was written.
        case interrupted
    }

    public var outcome: Outcome
    /// The manifest written (absent when interrupted).
    public var manifest: Manifest?
    public var outputFolder: URL
    public var duration: Double
    public var warnings: [String]
    /// Outputs drawn and encoded by this run.
    public var drawnOutputs = 0
    /// Outputs kept from an earlier run, or copied from a document with the same content.
    public var reusedOutputs = 0
    /// Documents whose source is gone: their outputs were removed.
    public var removedDocuments = 0
    /// Thumbnail cache entries removed to keep within `thumbnail_cache_size`, and with
    /// `pruneCache` because their source is gone.
    public var cacheEvicted = 0
    public var cachePruned = 0
    /// Files moved from the inbox into the library: (path in the inbox, path in the library).
    public var inboxMoves: [(String, String)] = []
}

/// What a run does besides the defaults.
public struct RunOptions: Sendable {
    /// Draw everything again, ignoring the catalog and the thumbnail cache.
    public var force = false
    /// Make thumbnails only: page images are kept when an earlier run made them with the same
    /// settings, and otherwise left out (`galley thumbs`).
    public var thumbnailsOnly = false
    /// Remove thumbnail cache entries whose source file is gone.
    public var pruneCache = false

    public init(force: Bool = false, thumbnailsOnly: Bool = false, pruneCache: Bool = false) {
        self.force = force
        self.thumbnailsOnly = thumbnailsOnly
        self.pruneCache = pruneCache
    }
}

/// The batch pipeline: scan → open → render page / render thumbnails → encode → record.
///
/// Every stage after scan is a Foundation `OperationQueue` whose width comes from the
/// configuration; a unit of work is a document (open) or a page (render, thumbnails, encode,
/// record). Pages in flight are bounded by `max_pages_in_flight`.
public final class Pipeline: Sendable {
    public static let version = "0.1.0"

    /// Pages with more pixels than this are drawn and encoded in horizontal bands, so a huge
    /// page costs a band of memory, not the whole bitmap.
    public static let bandPixelLimit = 16 << 20

    public let configuration: Configuration
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The catalog of an output folder.
    public static func catalogURL(output: URL) -> URL {
        OutputStore(root: output).stateFolder.appendingPathComponent("catalog.sqlite")
    }

    /// Runs the pipeline to the end, or until `cancellation` fires.
    ///
    /// The run is incremental: documents the catalog knows as finished with the same content
    /// and settings are not opened, and outputs already made with the same settings are kept
    /// (or copied from a file with the same content) instead of drawn again; thumbnails come
    /// from the thumbnail cache when it has them. `options` can force a full run or make
    /// thumbnails only.
    ///
    /// - Throws: `ConfigurationError` when an input is missing, the output folder cannot be
    ///   made or the catalog cannot be opened, `OutputError` when the manifest cannot be
    ///   written. Failing documents do not throw: they are in the manifest.
    public func run(_ options: RunOptions = RunOptions(), cancellation: Cancellation = Cancellation(),
                    onEvent: @escaping @Sendable (PipelineEvent) -> Void = { _ in }) throws -> RunSummary {
        let started = Date()
        var inboxWarnings: [String] = []
        var inboxMoves: [(String, String)] = []
        if configuration.inbox != nil {
            (inboxMoves, inboxWarnings) = try Inbox(configuration: configuration).collect()
            for (from, to) in inboxMoves { logger.info("inbox: \(from) → \(to)") }
        }
        let (scanned, scanWarnings) = try InputScanner(configuration: configuration).scan()
        let warnings = inboxWarnings + scanWarnings
        for warning in warnings { logger.warning("\(warning)") }
        let store = OutputStore(root: configuration.outputURL)
        do {
            try store.prepare()
        } catch {
            // Nothing has been done yet: this is a setting to fix, not a failed document.
            throw ConfigurationError(file: "output", key: configuration.output,
                                     message: "\(error.message); choose a folder you can write to (output: in pipeline.yml, or --output)")
        }
        defer { store.cleanUp() }
        let catalogURL = Self.catalogURL(output: store.root)
        let runCatalog: RunCatalog
        do {
            runCatalog = try RunCatalog(catalog: try Catalog(path: catalogURL.path), configuration: configuration, store: store,
                                        force: options.force, logger: logger)
        } catch {
            throw ConfigurationError(file: catalogURL.path,
                                     message: "the catalog cannot be used (\(error.message)); delete it to start afresh (the next run then redoes every page)")
        }
        // Named over the whole scan first, so every shard gives a document the name a single run
        // would. A file that cannot be read belongs to the first shard, so one shard reports it.
        let documents = configuration.shard.map { shard in
            scanned.filter { document in runCatalog.contentHash(of: document).map(shard.contains(sha256Hex:)) ?? (shard.index == 1) }
        } ?? scanned

        try configuration.checkFontFolders()
        let engine = try MuPDFEngine()
        let slots = PageSlots(capacity: configuration.maxPagesInFlight)
        let outputsPerPage = OutputVariant.all(configuration).count
        let recorder = RunRecorder(documents: documents, outputsPerPage: outputsPerPage, slots: slots, onEvent: onEvent,
                                   onFinished: { index, entry in runCatalog.finish(index, kind: documents[index].kind, entry: entry) })
        let stages = Stages(configuration: configuration, documents: documents, engine: engine, fonts: LazyFonts(configuration: configuration),
                            store: store, slots: slots, recorder: recorder, catalog: runCatalog, drawImages: !options.thumbnailsOnly,
                            cancellation: cancellation, logger: logger)
        logger.info("scanned \(documents.count) document(s) from \(configuration.inputs.joined(separator: ", "))")
        stages.start()
        stages.waitUntilFinished()
        let duration = Date().timeIntervalSince(started)
        if cancellation.isCancelled {
            return RunSummary(outcome: .interrupted, manifest: nil, outputFolder: store.root, duration: duration, warnings: warnings,
                              inboxMoves: inboxMoves)
        }

        let manifestDocuments = recorder.manifestDocuments()
        removeStaleOutputs(of: manifestDocuments, in: store.root)
        var keep = Set<String>()
        for page in manifestDocuments.flatMap(\.pages) { keep.formUnion(page.outputPaths) }
        let removed = runCatalog.removeVanished(scanned: Set(documents.map(\.url.path)), keeping: keep)
        let cache = runCatalog.closeCache(prune: options.pruneCache)
        let failed = manifestDocuments.filter { $0.status == .failed }.count
        let unchanged = manifestDocuments.filter { $0.status == .unchanged }.count
        let manifest = Manifest(
            settings: .init(dpi: configuration.dpi, pageImages: configuration.pageImages, thumbnails: configuration.thumbnailBoxes, png: configuration.png.rawValue),
            totals: .init(documents: manifestDocuments.count, ok: manifestDocuments.count - failed - unchanged, failed: failed,
                          unchanged: unchanged, pages: manifestDocuments.reduce(0) { $0 + $1.pages.count }),
            documents: manifestDocuments,
            shard: configuration.shard.map { .init(index: $0.index, count: $0.count, inputs: configuration.inputs) },
            run: .init(galleyVersion: Self.version, mupdfVersion: MuPDFEngine.version,
                       startedAt: ISO8601DateFormatter().string(from: started),
                       durationSeconds: (duration * 1000).rounded() / 1000,
                       workers: .init(open: configuration.workers.open, render: configuration.workers.render,
                                      thumbnails: configuration.workers.thumbnails, encode: configuration.workers.encode),
                       maxPagesInFlight: configuration.maxPagesInFlight))
        do {
            try store.write(try manifest.encoded(), to: "manifest.json")
            try store.write(Array(ContactSheet.html(for: manifest).utf8), to: "index.html")
        } catch let error as OutputError {
            throw error
        } catch {
            throw OutputError(path: store.root.appendingPathComponent("manifest.json").path, message: "cannot encode: \(error)")
        }
        let counts = recorder.outputCounts
        return RunSummary(outcome: failed > 0 ? .someFailed : .succeeded, manifest: manifest,
                          outputFolder: store.root, duration: duration, warnings: warnings,
                          drawnOutputs: counts.drawn, reusedOutputs: counts.reused, removedDocuments: removed,
                          cacheEvicted: cache.evicted, cachePruned: cache.pruned, inboxMoves: inboxMoves)
    }

    /// Deletes page images and thumbnails of these documents that this run did not write
    /// (pages a document no longer has, thumbnail boxes no longer configured). A document that
    /// failed keeps what an earlier run made of it: the failure may be passing (a file being
    /// copied), and its old images are all a user has of it.
    private func removeStaleOutputs(of documents: [Manifest.Document], in root: URL) {
        let fileManager = FileManager.default
        // Every folder that holds a document's own folder.
        var ownFolders = Set<String>()
        for document in documents {
            var folder = document.name
            while ownFolders.insert(folder).inserted, let slash = folder.lastIndex(of: "/") { folder = String(folder[..<slash]) }
        }
        for document in documents where document.status == .ok {
            var keep = Set<String>()
            for page in document.pages { keep.formUnion(page.outputPaths) }
            var pageFolders = [document.name]
            if document.kind == SourceDocument.Kind.markup.rawValue {
                // Every layout folder, configured or not, so a layout removed from pipeline.yml
                // leaves nothing behind; but never a folder of another document (`a.html` and
                // `a/b.pdf` share `a/`).
                let entries = (try? fileManager.contentsOfDirectory(atPath: root.appendingPathComponent(document.name).path)) ?? []
                pageFolders = entries.filter { $0 != "thumbs" && !$0.hasSuffix(".png") }.sorted().map { "\(document.name)/\($0)" }
                    .filter { !ownFolders.contains($0) }
            }
            var folders: [String] = []
            for pageFolder in pageFolders {
                folders.append(pageFolder)
                let thumbs = "\(pageFolder)/thumbs"
                let boxes = (try? fileManager.contentsOfDirectory(atPath: root.appendingPathComponent(thumbs).path)) ?? []
                folders += boxes.filter { Int($0) != nil }.map { "\(thumbs)/\($0)" }
            }
            for folder in folders {
                let entries = (try? fileManager.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
                for entry in entries where entry.hasPrefix("page-") && entry.hasSuffix(".png") {
                    let path = "\(folder)/\(entry)"
                    if !keep.contains(path) { try? fileManager.removeItem(at: root.appendingPathComponent(path)) }
                }
            }
            // A thumbnail box no longer configured, or thumbnails turned off, leave no empty
            // folder behind: box folders first, then `thumbs`.
            for folder in folders.filter({ $0.contains("/thumbs/") }) + pageFolders.map({ "\($0)/thumbs" }) {
                let url = root.appendingPathComponent(folder)
                if (try? fileManager.contentsOfDirectory(atPath: url.path))?.isEmpty == true { try? fileManager.removeItem(at: url) }
            }
        }
    }
}

/// The queues of one run and the work each does.
private final class Stages: Sendable {
    let configuration: Configuration
    let documents: [SourceDocument]
    let engine: MuPDFEngine
    let fonts: LazyFonts
    let store: OutputStore
    let slots: PageSlots
    let recorder: RunRecorder
    let catalog: RunCatalog
    /// False in a thumbnails-only run: page images are only ever kept, never drawn.
    let drawImages: Bool
    let cancellation: Cancellation
    let logger: Logger
    let openQueue = OperationQueue()
    let renderQueue = OperationQueue()
    let thumbnailQueue = OperationQueue()
    let encodeQueue = OperationQueue()
    let recordQueue = OperationQueue()

    init(configuration: Configuration, documents: [SourceDocument], engine: MuPDFEngine, fonts: LazyFonts, store: OutputStore,
         slots: PageSlots, recorder: RunRecorder, catalog: RunCatalog, drawImages: Bool, cancellation: Cancellation, logger: Logger) {
        self.configuration = configuration
        self.documents = documents
        self.engine = engine
        self.fonts = fonts
        self.store = store
        self.slots = slots
        self.recorder = recorder
        self.catalog = catalog
        self.drawImages = drawImages
        self.cancellation = cancellation
        self.logger = logger
        let widths = [(openQueue, "open", configuration.workers.open), (renderQueue, "render", configuration.workers.render),
                      (thumbnailQueue, "thumbnails", configuration.workers.thumbnails),
                      (encodeQueue, "encode", configuration.workers.encode), (recordQueue, "record", 1)]
        for (queue, name, width) in widths {
            queue.name = "galley.\(name)"
            queue.maxConcurrentOperationCount = width
        }
    }

    /// Outstanding work: every queued or running operation, and every parked continuation.
    /// The run is over when it drains.
    private let outstanding = DispatchGroup()
    /// The next document to open; documents are fed to the open stage as earlier ones finish
    /// dispatching their pages, so at most `workers.open` documents are open at once.
    private let nextDocument = Mutex(0)

    func start() {
        for _ in 0..<min(configuration.workers.open, documents.count) { openNextDocument() }
    }

    /// Waits until every operation has run. A cancellation drops parked continuations, so
    /// only in-flight operations are waited for.
    func waitUntilFinished() {
        while outstanding.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
            if cancellation.isCancelled {
                for _ in 0..<slots.dropWaiting() { outstanding.leave() }
            }
        }
    }

    private func submit(_ queue: OperationQueue, _ body: @escaping @Sendable () -> Void) {
        outstanding.enter()
        queue.addOperation { [outstanding] in
            defer { outstanding.leave() }
            body()
        }
    }

    private func record(_ body: @escaping @Sendable () -> Void) {
        submit(recordQueue, body)
    }

    // MARK: open

    private func openNextDocument() {
        let index = nextDocument.withLock { next -> Int? in
            guard next < documents.count else { return nil }
            defer { next += 1 }
            return next
        }
        guard let index else { return }
        submit(openQueue) { [self] in open(index) }
    }

    private func open(_ index: Int) {
        let document = documents[index]
        guard !cancellation.isCancelled else { return }
        let stamp = FileStamp(path: document.url.path)
        var knownHash: String?
        switch catalog.decide(document, stamp: stamp) {
        case .unchanged(let entry):
            record { [recorder] in recorder.unchanged(index, entry: entry) }
            openNextDocument()
            return
        case .open(let hash):
            knownHash = hash
        }
        do {
            let digest: (hash: String, bytes: Int)
            if let knownHash, let stamp { digest = (knownHash, Int(stamp.size)) } else { digest = try ContentHash.sha256(file: document.url) }
            recorder.opened(index, sha256: digest.hash, bytes: digest.bytes)
            catalog.begin(index, document, stamp: stamp, hash: digest.hash, bytes: digest.bytes)
        } catch {
            let failure = Manifest.Failure(code: PDFError.Code.unreadable.rawValue,
                                           message: "cannot read the file: \(error.localizedDescription)")
            finishDispatch(index, pages: 0, failure: failure)
            return
        }
        let producer: any PageProducer
        do {
            switch document.kind {
            case .pdf:
                producer = try PDFPages(document: document, index: index, configuration: configuration, engine: engine,
                                        recorder: recorder, limiter: limiter)
            case .markup:
                producer = try ArticlePages(document: document, index: index, configuration: configuration, fonts: try fonts.library(),
                                            engine: engine, recorder: recorder)
            }
        } catch {
            finishDispatch(index, pages: 0, failure: Manifest.Failure(error))
            return
        }
        recordPages(DocumentCursor(index: index, producer: producer), holdingSlot: false)
    }

    /// Runs work on a page under `page_timeout`.
    private var limiter: TimeLimiter { TimeLimiter(timeout: configuration.pageTimeout, cancellation: cancellation) }

    /// Records pages of an open document while page slots are free. When none is, it parks a
    /// continuation that resumes here, in a new open operation, once a slot is handed over.
    private func recordPages(_ cursor: DocumentCursor, holdingSlot: Bool) {
        var holding = holdingSlot
        while true {
            if cancellation.isCancelled {
                if holding { slots.release() }
                cursor.producer.finish()
                return
            }
            if !holding {
                outstanding.enter()  // the parked continuation counts as outstanding work
                let acquired = slots.acquire { [self] in
                    submit(openQueue) { [self] in recordPages(cursor, holdingSlot: true) }
                    outstanding.leave()
                }
                guard acquired else { return }  // the cursor now belongs to the continuation
                outstanding.leave()
            }
            holding = false
            let made: (page: any PageSource, facts: PageFacts)?
            do {
                made = try cursor.producer.next()
            } catch {
                slots.release()
                cursor.producer.finish()
                finishDispatch(cursor.index, pages: cursor.dispatched, failure: Manifest.Failure(error, page: cursor.dispatched + 1))
                return
            }
            guard let (page, facts) = made else {
                slots.release()
                break
            }
            cursor.dispatched += 1
            let index = cursor.index
            for variant in OutputVariant.all(configuration) {
                dispatch(index, page, facts, variant: variant)
            }
        }
        cursor.producer.finish()
        finishDispatch(cursor.index, pages: cursor.dispatched, failure: nil)
    }

    /// A document has dispatched all the pages it will: tell the recorder, open the next one.
    private func finishDispatch(_ index: Int, pages: Int, failure: Manifest.Failure?) {
        record { [recorder] in
            if let failure { recorder.failed(index, failure) }
            recorder.dispatched(index, pages: pages)
        }
        openNextDocument()
    }

    /// Hands one output of a page to its stage, unless a finished output can stand in for it.
    private func dispatch(_ index: Int, _ page: any PageSource, _ facts: PageFacts, variant: OutputVariant) {
        let path = switch variant {
        case .image: String(format: "%@/page-%04d.png", facts.folder, facts.number)
        case .thumbnail(let box): String(format: "%@/thumbs/%d/page-%04d.png", facts.folder, box, facts.number)
        }
        if let kept = catalog.reuse(index, page: facts, variant: variant, path: path)
            ?? catalog.cachedThumbnail(index, page: facts, variant: variant, path: path) {
            report(index, facts, variant, .success(kept), reused: true)
            return
        }
        switch variant {
        case .image where !drawImages: record { [recorder] in recorder.skipped(index, page: facts, variant: variant) }
        case .image: submit(renderQueue) { [self] in renderImage(index, page, facts, path: path) }
        case .thumbnail(let box): submit(thumbnailQueue) { [self] in renderThumbnail(index, page, facts, box: box, path: path) }
        }
    }

    /// Tells the record stage how an output went; a written one goes into the catalog at once.
    private func report(_ index: Int, _ facts: PageFacts, _ variant: OutputVariant, _ result: Result<WrittenOutput, Manifest.Failure>,
                        reused: Bool = false) {
        record { [recorder, catalog] in
            if case .success(let output) = result { catalog.record(index, page: facts, variant: variant, output: output) }
            recorder.reported(index, page: facts, variant: variant, result: result, reused: reused)
        }
    }

    // MARK: render

    private func renderImage(_ index: Int, _ page: any PageSource, _ facts: PageFacts, path: String) {
        let scale = configuration.dpi / 72
        let bounds = page.pixelBounds(scale: scale)
        if bounds.width * bounds.height > Pipeline.bandPixelLimit {
            // Huge page: draw and encode band by band in this operation.
            let result = Result { () throws -> WrittenOutput in
                try writeBanded(page, facts, bounds: bounds, scale: scale, path: path)
            }.mapError { Manifest.Failure($0, page: facts.number) }
            report(index, facts, .image, result)
            return
        }
        render(index, page, facts, scale: scale, variant: .image, path: path)
    }

    private func renderThumbnail(_ index: Int, _ page: any PageSource, _ facts: PageFacts, box: Int, path: String) {
        render(index, page, facts, scale: page.thumbnailScale(box: box), variant: .thumbnail(box: box), path: path)
    }

    private func render(_ index: Int, _ page: any PageSource, _ facts: PageFacts, scale: Double, variant: OutputVariant, path: String) {
        guard !cancellation.isCancelled else { return }
        let bitmap: Bitmap
        do {
            bitmap = try limiter.run(page: facts.number, doing: "draw") { limit in
                try page.render(scale: scale, cancellation: limit)
            }
        } catch {
            report(index, facts, variant, .failure(Manifest.Failure(error, page: facts.number)))
            return
        }
        submit(encodeQueue) { [self] in encode(index, bitmap, facts, variant: variant, path: path) }
    }

    // MARK: encode

    private func encode(_ index: Int, _ bitmap: Bitmap, _ facts: PageFacts, variant: OutputVariant, path: String) {
        guard !cancellation.isCancelled else { return }
        let result = Result { () throws -> WrittenOutput in
            let png = try bitmap.pngData(compression: configuration.png)
            let written = try write(png, width: bitmap.width, height: bitmap.height, path: path)
            catalog.cache(index, page: facts, variant: variant, png: png)
            return written
        }.mapError { Manifest.Failure($0, page: facts.number) }
        report(index, facts, variant, result)
    }

    private func writeBanded(_ page: any PageSource, _ facts: PageFacts, bounds: PixelRect, scale: Double, path: String) throws -> WrittenOutput {
        let bandHeight = max(1, Pipeline.bandPixelLimit / bounds.width)
        let encoder = try PNGEncoder(width: bounds.width, height: bounds.height, compression: configuration.png)
        var band = try Bitmap(width: bounds.width, height: min(bandHeight, bounds.height))
        var y = 0
        while y < bounds.height {
            let rows = min(bandHeight, bounds.height - y)
            if rows != band.height { band = try Bitmap(width: bounds.width, height: rows) }
            let rect = PixelRect(x: bounds.x, y: bounds.y + y, width: bounds.width, height: rows)
            try limiter.run(page: facts.number, doing: "draw") { limit in
                try page.draw(into: band, rect: rect, scale: scale, cancellation: limit)
            }
            try encoder.write(band)
            y += rows
        }
        return try write(try encoder.finish(), width: bounds.width, height: bounds.height, path: path)
    }

    private func write(_ png: [UInt8], width: Int, height: Int, path: String) throws(OutputError) -> WrittenOutput {
        try store.write(png, to: path)
        return WrittenOutput(path: path, width: width, height: height, sha256: ContentHash.sha256(png), bytes: png.count)
    }
}

extension Manifest.Failure {
    /// A failure from any stage's error, with a stable code.
    init(_ error: any Error, page: Int? = nil) {
        switch error {
        case let error as PDFError:
            self.init(code: error.code.rawValue, message: "\(error.message) (\(error.function))", page: page)
        case let error as RasterError:
            let code = error.code == .encodeFailed ? "encode-failed" : "render-failed"
            self.init(code: code, message: error.message, page: page)
        case let error as OutputError:
            self.init(code: "write-failed", message: error.description, page: page)
        case let error as TypesetError:
            self.init(code: error.code.rawValue, message: error.message, page: page)
        case let error as Manifest.Failure:
            self = error
        case let error as ConfigurationError:
            // Only the fonts, made when the first article opens, fail this way mid-run.
            self.init(code: TypesetError.Code.fontUnreadable.rawValue, message: error.description, page: page)
        default:
            self.init(code: "render-failed", message: "\(error)", page: page)
        }
    }
}

/// An open document and the pages dispatched so far, handed from one open operation to the
/// next.
///
/// Sendable by hand-off: exactly one operation uses it at a time. An operation that parks it
/// (page slots all taken) touches it no more; the continuation that resumes it is the only
/// next user, so the producer's MuPDF document or typesetter never sees two threads at once.
private final class DocumentCursor: @unchecked Sendable {
    let index: Int
    let producer: any PageProducer
    var dispatched = 0

    init(index: Int, producer: any PageProducer) {
        self.index = index
        self.producer = producer
    }
}

/// The font library, made when the first article is opened: fontconfig's start-up costs more
/// than a rerun that opens nothing.
private final class LazyFonts: Sendable {
    private let configuration: Configuration
    private let made = Mutex<Result<FontLibrary, ConfigurationError>?>(nil)

    init(configuration: Configuration) {
        self.configuration = configuration
    }

    func library() throws(ConfigurationError) -> FontLibrary {
        let result = made.withLock { made in
            if let made { return made }
            let result = Result { () throws(ConfigurationError) -> FontLibrary in try configuration.fontLibrary() }
            made = result
            return result
        }
        return try result.get()
    }
}
