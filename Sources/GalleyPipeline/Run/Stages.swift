import Foundation
import GalleyBase
import GalleyCatalog
import GalleyManifest
import GalleyRaster
import Logging

/// The stages of one run: the queues and the work each does.
///
/// open (a document: read, hash, open or typeset, then record its pages as page slots free
/// up) → render (a page image) / thumbnails (one per box) → encode (the configured
/// `ImageEncoder`s: one for page images, one for thumbnails) → record (serial: the recorder
/// and the catalog). How each output is drawn and encoded is its `PageRenderer`'s decision: a
/// page its format cannot hold fails as `too-large-for-format` before anything is drawn, and a
/// page over `Pipeline.bandPixelLimit` pixels is drawn and encoded band by band in its render
/// operation.
final class Stages: Sendable {
    let configuration: Configuration
    let documents: [SourceDocument]
    /// Opens documents into page producers, with each kind's lane policy.
    let opener: DocumentOpener
    let store: OutputStore
    let slots: PageSlots
    let recorder: RunRecorder
    let catalog: RunCatalog
    /// False in a thumbnails-only run: page images are only ever kept, never drawn.
    let drawImages: Bool
    /// Turn pages into files: page images, and thumbnails.
    let imageRenderer: PageRenderer
    let thumbnailRenderer: PageRenderer
    /// The thumbnail boxes and the one drawn for them all; nil without thumbnails.
    let thumbnails: ThumbnailSet?
    let cancellation: Cancellation
    let logger: Logger
    let openQueue = OperationQueue()
    let renderQueue = OperationQueue()
    let thumbnailQueue = OperationQueue()
    let encodeQueue = OperationQueue()
    let recordQueue = OperationQueue()

    init(configuration: Configuration, documents: [SourceDocument], opener: DocumentOpener, store: OutputStore,
         slots: PageSlots, recorder: RunRecorder, catalog: RunCatalog, drawImages: Bool, cancellation: Cancellation, logger: Logger) {
        self.configuration = configuration
        self.documents = documents
        self.opener = opener
        self.store = store
        self.slots = slots
        self.recorder = recorder
        self.catalog = catalog
        self.drawImages = drawImages
        self.watchdog = PageWatchdog(timeout: configuration.pageTimeout)
        self.imageRenderer = configuration.imageRenderer
        self.thumbnailRenderer = configuration.thumbnailRenderer
        self.thumbnails = ThumbnailSet(configuration)
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
    /// The documents `process` was given (indexes into `documents`) and the next to open;
    /// documents are fed to the open stage as earlier ones finish dispatching their pages, so
    /// at most `workers.open` documents are open at once.
    private let queued = Mutex((documents: [Int](), next: 0))

    /// Opens the documents at `indexes` (of `documents`) and returns once every one is
    /// recorded, or the run is cancelled and its in-flight operations have stopped. Called
    /// once per group of documents that must not overlap another (`Pipeline.run`).
    func process(_ indexes: [Int]) {
        queued.withLock { $0 = (indexes, 0) }
        for _ in 0..<min(configuration.workers.open, indexes.count) { openNextDocument() }
        waitUntilFinished()
    }

    /// Waits until every operation has run. A cancellation drops parked continuations, so
    /// only in-flight operations are waited for.
    private func waitUntilFinished() {
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
        let index = queued.withLock { queued -> Int? in
            guard queued.next < queued.documents.count else { return nil }
            defer { queued.next += 1 }
            return queued.documents[queued.next]
        }
        guard let index else { return }
        submit(openQueue) { [self] in open(index) }
    }

    private func open(_ index: Int) {
        let document = documents[index]
        guard !cancellation.isCancelled else { return }
        if let refusal = document.refusal {
            // Not read at all: not hashed, not looked up in the catalog.
            finishDispatch(index, pages: 0, failure: refusal)
            return
        }
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
        let read: DocumentOpener.Read
        do {
            read = try opener.read(document, stamp: stamp, knownHash: knownHash)
        } catch {
            finishDispatch(index, pages: 0, failure: error)
            return
        }
        recorder.opened(index, sha256: read.sha256, bytes: read.byteCount)
        catalog.begin(index, document, stamp: stamp, hash: read.sha256, bytes: read.byteCount)
        if let crashed = catalog.quarantine(contentHash: read.sha256) {
            finishDispatch(index, pages: 0, failure: crashed)
            return
        }
        // On disk before the document is opened, so a crash while it is open is counted.
        guard catalog.markInProgress(index) else { return }  // interrupted meanwhile
        CrashTestHook.abortIfOpening(document)
        CrashTestHook.hangIfOpening(document)
        let opened: OpenedDocument
        do {
            opened = try timed(index) { try opener.open(document, bytes: read.contents, limiter: limiter) }
        } catch {
            finishDispatch(index, pages: 0, failure: Failure(error))
            return
        }
        recordEvents(index, opened.first.takeEvents())
        if let note = opened.note { logger.debug("\(document.relativePath): \(note)") }
        openLanes(index, opened)
    }

    /// Runs the lanes of an opened document: the first, made in this open operation, and the
    /// others, each opened in an operation of its own, on the queue their lane runs on
    /// (`laneQueue`). A lane that draws its own pages is handed to the render queue; one that
    /// does not goes on in this operation.
    private func openLanes(_ index: Int, _ opened: OpenedDocument) {
        let lanes = PageLanes(count: opened.lanes)
        let drawsPages = opened.drawsInLane
        let first = DocumentCursor(index: index, producer: opened.first, lanes: lanes, drawsPages: drawsPages)
        if drawsPages {
            // Handed off: this operation touches the first lane's producer no more.
            submit(laneQueue(drawsPages: true)) { [self] in recordPages(first, holdingSlot: false) }
        } else {
            recordPages(first, holdingSlot: false)
        }
        let openLane = opened.openLane
        for lane in 1..<lanes.count {
            submit(laneQueue(drawsPages: drawsPages)) { [self] in
                guard !cancellation.isCancelled else { return }
                do {
                    let producer = try timed(index) { try openLane(lane) }
                    recordEvents(index, producer.takeEvents())
                    recordPages(DocumentCursor(index: index, producer: producer, lanes: lanes, drawsPages: drawsPages), holdingSlot: false)
                } catch {
                    finishCursor(index, lanes: lanes, pages: 0, failure: Failure(error))
                }
            }
        }
    }

    /// The queue a lane's operations run on: the render queue for a lane that draws its own
    /// pages, else the open queue (its pages go to the render and thumbnail stages).
    private func laneQueue(drawsPages: Bool) -> OperationQueue {
        drawsPages ? renderQueue : openQueue
    }

    /// Runs work on a page under `page_timeout`.
    private var limiter: TimeLimiter { TimeLimiter(timeout: configuration.pageTimeout, cancellation: cancellation, watchdog: watchdog) }
    /// The run's one timer for `page_timeout`.
    private let watchdog: PageWatchdog

    /// Records pages of a document's lane while page slots are free. When none is, it parks a
    /// continuation that resumes here, in a new operation on the lane's queue, once a slot is
    /// handed over.
    private func recordPages(_ cursor: DocumentCursor, holdingSlot: Bool) {
        var holding = holdingSlot
        while true {
            if cancellation.isCancelled {
                if holding { slots.release() }
                finishProducer(cursor)
                return
            }
            if !holding {
                outstanding.enter()  // the parked continuation counts as outstanding work
                let acquired = slots.acquire { [self] in
                    submit(laneQueue(drawsPages: cursor.drawsPages)) { [self] in recordPages(cursor, holdingSlot: true) }
                    outstanding.leave()
                }
                guard acquired else { return }  // the cursor now belongs to the continuation
                outstanding.leave()
            }
            holding = false
            let made: (page: any PageSource, facts: PageFacts)?
            do {
                made = try timed(cursor.index) { try nextPage(cursor) }
            } catch {
                slots.release()
                finishProducer(cursor)
                finishCursor(cursor.index, lanes: cursor.lanes, pages: cursor.dispatched,
                             failure: Failure(error, page: cursor.dispatched + 1))
                return
            }
            guard let (page, facts) = made else {
                slots.release()
                break
            }
            cursor.dispatched += 1
            let index = cursor.index
            let here = cursor.drawsPages
            if let thumbnails, let scale = thumbnails.pageImageScale(page, configuration) {
                dispatchTogether(index, page, facts, thumbnails, scale: scale, here: here)
            } else {
                if configuration.pageImages { dispatchImage(index, page, facts, here: here) }
                if let thumbnails { dispatchThumbnails(index, page, facts, thumbnails, here: here) }
            }
        }
        finishProducer(cursor)
        finishCursor(cursor.index, lanes: cursor.lanes, pages: cursor.dispatched, failure: nil)
    }

    /// The cursor's next page; what its producer reported on the way is recorded.
    private func nextPage(_ cursor: DocumentCursor) throws -> (page: any PageSource, facts: PageFacts)? {
        defer { recordEvents(cursor.index, cursor.producer.takeEvents()) }
        return try cursor.producer.next()
    }

    /// The cursor's producer is done (a PDF lane's gives its engine back); what it reported at
    /// the end is recorded.
    private func finishProducer(_ cursor: DocumentCursor) {
        cursor.producer.finish()
        recordEvents(cursor.index, cursor.producer.takeEvents())
    }

    /// Records what a producer of document `index` reported: the document files it wrote go
    /// into the catalog at once (so a killed run keeps them, as it keeps pages), the rest to
    /// the recorder.
    private func recordEvents(_ index: Int, _ events: [ProducerEvent]) {
        for case .wroteFile(let layout, let file) in events {
            catalog.recordDocumentFile(index, layout: layout, file: file)
        }
        recorder.record(index, events)
    }

    /// A lane has made all the pages it will; the last lane of a document finishes it for all
    /// of them.
    private func finishCursor(_ index: Int, lanes: PageLanes, pages: Int, failure: Failure?) {
        if let total = lanes.finish(pages: pages, failure: failure) {
            finishDispatch(index, pages: total.pages, failure: total.failure)
        }
    }

    /// A document has dispatched all the pages it will: tell the recorder, open the next one.
    private func finishDispatch(_ index: Int, pages: Int, failure: Failure?) {
        record { [recorder] in
            if let failure { recorder.failed(index, failure) }
            recorder.dispatched(index, pages: pages)
        }
        openNextDocument()
    }

    /// Hands a page's image to its stage, unless a finished one can stand in for it; `here`:
    /// draws it in this operation instead (a page lane), leaving only the encoding to another.
    private func dispatchImage(_ index: Int, _ page: any PageSource, _ facts: PageFacts, here: Bool) {
        guard let path = pendingImage(index, facts) else { return }
        if here {
            renderImage(index, page, facts, path: path)
        } else {
            submit(renderQueue) { [self] in renderImage(index, page, facts, path: path) }
        }
    }

    /// The path of a page image to draw; nil when a finished one stands in for it or the run
    /// draws none (both reported here).
    private func pendingImage(_ index: Int, _ facts: PageFacts) -> String? {
        let path = OutputVariant.image.path(folder: facts.folder, page: facts.number, fileExtension: imageRenderer.encoder.fileExtension)
        if let kept = catalog.reuse(index, page: facts, variant: .image, path: path) {
            report(index, facts, .image, .success(kept), reused: true)
            return nil
        }
        guard drawImages else {
            record { [recorder] in recorder.skipped(index, page: facts, variant: .image) }
            return nil
        }
        return path
    }

    /// A page whose thumbnails are reduced from its page image (`ThumbnailSet.pageImageScale`):
    /// one drawing at the page image's scale makes the page image, unless a finished one stands
    /// in for it, and every thumbnail not already made. One interpretation of the page and one
    /// decoding of each of its pictures for all its outputs.
    private func dispatchTogether(_ index: Int, _ page: any PageSource, _ facts: PageFacts, _ thumbnails: ThumbnailSet, scale: Double,
                                  here: Bool) {
        let image = configuration.pageImages ? pendingImage(index, facts) : nil
        let pending = pendingThumbnails(index, facts, thumbnails)
        guard image != nil || !pending.isEmpty else { return }
        if here {
            renderTogether(index, page, facts, scale: scale, image: image, thumbnails: pending, master: thumbnails.master)
        } else {
            submit(renderQueue) { [self] in
                renderTogether(index, page, facts, scale: scale, image: image, thumbnails: pending, master: thumbnails.master)
            }
        }
    }

    /// Hands a page's thumbnails to their stage: the largest box is drawn, and the smaller ones
    /// are reduced from its drawing (`ThumbnailSet`), one interpretation of the page for all,
    /// unless finished outputs stand in for every one of them.
    private func dispatchThumbnails(_ index: Int, _ page: any PageSource, _ facts: PageFacts, _ thumbnails: ThumbnailSet, here: Bool) {
        let pending = pendingThumbnails(index, facts, thumbnails)
        guard !pending.isEmpty else { return }
        if here {
            renderThumbnails(index, page, facts, master: thumbnails.master, pending: pending)
        } else {
            submit(thumbnailQueue) { [self] in renderThumbnails(index, page, facts, master: thumbnails.master, pending: pending) }
        }
    }

    /// The thumbnails of a page to make (box and path), the others reported as kept.
    private func pendingThumbnails(_ index: Int, _ facts: PageFacts, _ thumbnails: ThumbnailSet) -> [(box: Int, path: String)] {
        var pending: [(box: Int, path: String)] = []
        for box in thumbnails.boxes {
            let variant = OutputVariant.thumbnail(box: box)
            let path = variant.path(folder: facts.folder, page: facts.number, fileExtension: thumbnailRenderer.encoder.fileExtension)
            if let kept = catalog.reuse(index, page: facts, variant: variant, path: path)
                ?? catalog.cachedThumbnail(index, page: facts, variant: variant, path: path) {
                report(index, facts, variant, .success(kept), reused: true)
            } else {
                pending.append((box, path))
            }
        }
        return pending
    }

    /// Tells the record stage how an output went; a written one goes into the catalog at once.
    private func report(_ index: Int, _ facts: PageFacts, _ variant: OutputVariant, _ result: Result<WrittenOutput, Failure>,
                        reused: Bool = false) {
        record { [recorder, catalog] in
            if case .success(let output) = result { catalog.record(index, page: facts, variant: variant, output: output) }
            recorder.reported(index, page: facts, variant: variant, result: result, reused: reused)
        }
    }

    // MARK: render

    private func renderImage(_ index: Int, _ page: any PageSource, _ facts: PageFacts, path: String) {
        let scale = configuration.pageScale
        let bounds = page.pixelBounds(scale: scale)
        switch planned(index, facts, .image, bounds) {
        case nil:
            return
        case .whole?:
            render(index, page, facts, scale: scale, variant: .image, path: path)
        case .bands?:
            // Huge page: draw and encode band by band in this operation.
            let result = timed(index) {
                Result { () throws -> WrittenOutput in
                    try writeBanded(page, facts, bounds: bounds, scale: scale, path: path)
                }.mapError { Failure($0, page: facts.number) }
            }
            report(index, facts, .image, result)
        }
    }

    /// Draws the page once at the largest box and makes each pending thumbnail from that
    /// drawing (`makeThumbnails`). A thumbnail whose encoder refuses its size is reported as
    /// such; the others go on.
    private func renderThumbnails(_ index: Int, _ page: any PageSource, _ facts: PageFacts, master: Int, pending: [(box: Int, path: String)]) {
        guard !cancellation.isCancelled else { return }
        let wanted = unrefused(index, page, facts, pending)
        guard !wanted.isEmpty else { return }
        let drawn: Bitmap
        do {
            drawn = try draw(index, page, facts, scale: page.thumbnailScale(box: master))
        } catch {
            for (box, _) in wanted { report(index, facts, .thumbnail(box: box), .failure(Failure(error, page: facts.number))) }
            return
        }
        makeThumbnails(index, page, facts, master: master, wanted: wanted, largest: drawn)
    }

    /// Draws the page once at the page image's scale: the page image (`image`, its path, when
    /// pending) is that drawing, the largest thumbnail box that drawing reduced by area averaging,
    /// and the smaller boxes reduced from the largest, as when it is drawn (`makeThumbnails`).
    private func renderTogether(_ index: Int, _ page: any PageSource, _ facts: PageFacts, scale: Double, image: String?,
                                thumbnails pending: [(box: Int, path: String)], master: Int) {
        guard !cancellation.isCancelled else { return }
        let image = image.flatMap { planned(index, facts, .image, page.pixelBounds(scale: scale)) == nil ? nil : $0 }
        let wanted = unrefused(index, page, facts, pending)
        guard image != nil || !wanted.isEmpty else { return }
        let drawn: Bitmap
        do {
            drawn = try draw(index, page, facts, scale: scale)
        } catch {
            let failure = Failure(error, page: facts.number)
            if image != nil { report(index, facts, .image, .failure(failure)) }
            for (box, _) in wanted { report(index, facts, .thumbnail(box: box), .failure(failure)) }
            return
        }
        if let image { submit(encodeQueue) { [self] in encode(index, drawn, facts, variant: .image, path: image) } }
        guard !wanted.isEmpty else { return }
        let largest: Bitmap
        do {
            let bounds = page.pixelBounds(scale: page.thumbnailScale(box: master))
            largest = try timed(index) { try drawn.areaAveraged(width: bounds.width, height: bounds.height) }
        } catch {
            for (box, _) in wanted { report(index, facts, .thumbnail(box: box), .failure(Failure(error, page: facts.number))) }
            return
        }
        makeThumbnails(index, page, facts, master: master, wanted: wanted, largest: largest)
    }

    /// The thumbnails an encoder takes, the others reported `too-large-for-format` (a box of 4096
    /// pixels is over AVIF's pixel limit for a square page).
    private func unrefused(_ index: Int, _ page: any PageSource, _ facts: PageFacts,
                           _ pending: [(box: Int, path: String)]) -> [(box: Int, path: String)] {
        pending.filter { planned(index, facts, .thumbnail(box: $0.box), page.pixelBounds(scale: page.thumbnailScale(box: $0.box))) != nil }
    }

    /// Each wanted thumbnail from `largest`, the largest box's pixels: that box as they are, the
    /// smaller ones reduced from them by area averaging; each then encoded.
    private func makeThumbnails(_ index: Int, _ page: any PageSource, _ facts: PageFacts, master: Int,
                                wanted: [(box: Int, path: String)], largest: Bitmap) {
        for (box, path) in wanted {
            let variant = OutputVariant.thumbnail(box: box)
            let bitmap: Bitmap
            do {
                let bounds = page.pixelBounds(scale: page.thumbnailScale(box: box))
                bitmap = box == master ? largest : try timed(index) { try largest.areaAveraged(width: bounds.width, height: bounds.height) }
            } catch {
                report(index, facts, variant, .failure(Failure(error, page: facts.number)))
                continue
            }
            submit(encodeQueue) { [self] in encode(index, bitmap, facts, variant: variant, path: path) }
        }
    }

    /// How an output of `bounds` is drawn (`PageRenderer.drawing`); nil, with
    /// `too-large-for-format` reported, for one its format cannot hold, before anything is
    /// drawn for it.
    private func planned(_ index: Int, _ facts: PageFacts, _ variant: OutputVariant, _ bounds: PixelRect) -> PageRenderer.Drawing? {
        do {
            return try renderer(variant).drawing(bounds)
        } catch {
            report(index, facts, variant, .failure(Failure(error, page: facts.number)))
            return nil
        }
    }

    private func render(_ index: Int, _ page: any PageSource, _ facts: PageFacts, scale: Double, variant: OutputVariant, path: String) {
        guard !cancellation.isCancelled else { return }
        let bitmap: Bitmap
        do {
            bitmap = try draw(index, page, facts, scale: scale)
        } catch {
            report(index, facts, variant, .failure(Failure(error, page: facts.number)))
            return
        }
        submit(encodeQueue) { [self] in encode(index, bitmap, facts, variant: variant, path: path) }
    }

    /// The whole page drawn at `scale`, under `page_timeout`.
    private func draw(_ index: Int, _ page: any PageSource, _ facts: PageFacts, scale: Double) throws -> Bitmap {
        try timed(index) {
            try limiter.run(page: facts.number, doing: "draw") { limit in
                try page.render(scale: scale, cancellation: limit)
            }
        }
    }

    // MARK: encode

    private func encode(_ index: Int, _ bitmap: Bitmap, _ facts: PageFacts, variant: OutputVariant, path: String) {
        guard !cancellation.isCancelled else { return }
        let result = timed(index) {
            Result { () throws -> WrittenOutput in
                let bytes = try renderer(variant).encode(bitmap)
                let written = try write(bytes, width: bitmap.width, height: bitmap.height, path: path)
                catalog.cache(index, page: facts, variant: variant, bytes: bytes, path: path)
                return written
            }.mapError { Failure($0, page: facts.number) }
        }
        report(index, facts, variant, result)
    }

    private func writeBanded(_ page: any PageSource, _ facts: PageFacts, bounds: PixelRect, scale: Double, path: String) throws -> WrittenOutput {
        let bytes = try imageRenderer.encodeInBands(page, number: facts.number, scale: scale, limiter: limiter)
        return try write(bytes, width: bounds.width, height: bounds.height, path: path)
    }

    /// Runs work for document `index` and adds its wall time to the document's drawing time,
    /// which the catalog keeps for `galley plan` (never written into an output). Called around
    /// the work itself, before its outcome is reported: the document is finished, and its time
    /// recorded, once every outcome is.
    private func timed<T>(_ index: Int, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { catalog.addDrawTime(index, seconds: (ContinuousClock.now - start).seconds) }
        return try body()
    }

    /// The renderer of one kind of output.
    private func renderer(_ variant: OutputVariant) -> PageRenderer {
        variant == .image ? imageRenderer : thumbnailRenderer
    }

    private func write(_ bytes: [UInt8], width: Int, height: Int, path: String) throws(OutputError) -> WrittenOutput {
        try store.write(bytes, to: path)
        return WrittenOutput(path: path, width: width, height: height, sha256: ContentHash.sha256(bytes), bytes: bytes.count)
    }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// A test hook, not a feature: with `GALLEY_TEST_ABORT_ON=<file name>` in the environment, the
/// process calls `abort()` when it opens a document of that name (after marking it in
/// progress), so tests can have a file that really kills Galley, as a file that crashed MuPDF
/// would, and check that it cannot block every later run.
enum CrashTestHook {
    static let fileName = ProcessInfo.processInfo.environment["GALLEY_TEST_ABORT_ON"]
    /// A document that hangs instead, deaf to cancellation, as work stuck in a C call would be.
    static let hangingFileName = ProcessInfo.processInfo.environment["GALLEY_TEST_HANG_ON"]

    static func abortIfOpening(_ document: SourceDocument) {
        guard let fileName, document.url.lastPathComponent == fileName else { return }
        var noCoreDump = rlimit()
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCoreDump)
        abort()
    }

    /// Sleeps for an hour when opening the document named by `GALLEY_TEST_HANG_ON`: how the
    /// CLI's tests check that a signal ends a run whose work does not stop when cancelled.
    static func hangIfOpening(_ document: SourceDocument) {
        guard let hangingFileName, document.url.lastPathComponent == hangingFileName else { return }
        Thread.sleep(forTimeInterval: 3600)
    }
}
