import Foundation
import GalleyBase
import GalleyCatalog
import GalleyPDF

/// A document opened for a run: the producer of its first lane, and how its pages are made and
/// drawn. The stages drive every document alike from it; the policy is the opener's.
struct OpenedDocument {
    /// The first lane's producer, made in the open stage: its events (the document's metadata,
    /// page count and warnings) are recorded before any page.
    let first: any PageProducer
    /// How many lanes the pages are made in, each by a producer of its own; at least 1.
    let lanes: Int
    /// Whether each lane draws its pages itself, one after another in the render operation
    /// that makes them, handing only the encoding on (a PDF); else its pages are made in the
    /// open stage and handed to the render and thumbnail stages (an article).
    let drawsInLane: Bool
    /// Opens lane `k` (1 ..< `lanes`), in an operation of its own.
    let openLane: @Sendable (_ lane: Int) throws -> any PageProducer
    /// For `--verbose`: what the document declares that Galley ignores; nil for nothing.
    let note: String?
}

/// Opens documents into page producers, each kind with its own policy, so that neither the
/// run's stages nor the single-file commands (`galley render`, `galley thumbnail`,
/// `galley thumbs --freedesktop`, which draw every page of one lane, `singleLane`) know
/// anything of PDFs or articles:
///
/// - An article is one lane, parsed and typeset page by page in the open stage; the render and
///   thumbnail stages draw its pages concurrently. The run's MuPDF engine decodes its pictures.
/// - A PDF is drawn in page lanes, one per render worker (no more than it has selected pages):
///   lane `k` of `n` opens the document in a MuPDF engine of its own (`LaneEngines`) and, on
///   the render queue, records its share of the pages (every `n`th) as display lists and draws
///   each page's image and thumbnails, one page after another; only the encoding goes to
///   another stage. A run without page images draws each page once, so its lanes load pages
///   and draw them straight from the document, with no display list (`LoadedPDFPage`). `mutool draw` on both cores is the same split: one process per half of the
///   pages, nothing shared.
///
/// Why lanes: MuPDF guards its allocator and the reference counts of every shared object
/// (glyphs, fonts, images) with one lock per engine, `FZ_LOCK_ALLOC`, taken about 21,000 times
/// a page when thumbnails of Debian's manuals are drawn. With every thread on one engine
/// (recording in the open stage, drawing in the render and thumbnail stages) the two cores
/// fought over it: its lock and unlock were 17% of the CPU even with a cheap lock. In lanes each
/// engine is used by one thread at a time, so its locks stay in that core's cache.
final class DocumentOpener: Sendable {
    private let configuration: Configuration
    /// The run's engine: it decodes articles' pictures.
    private let engine: MuPDFEngine
    private let fonts: LazyFonts
    /// Where articles' whole-document files go; nil when none is configured.
    private let documentFiles: DocumentFiles?
    /// How many lanes a PDF is drawn in at most (the render stage's width), and their engines.
    private let laneCount: Int
    private let laneEngines: LaneEngines

    /// Whether a PDF lane's pages are drawn at most once each, in the lane, before the next is
    /// made (`PDFPages`' `drawsOnce`): a run that makes no page images draws only the largest
    /// thumbnail box of each page. Not the single-file commands, which draw pages on threads of
    /// their own.
    private let drawsOnce: Bool

    /// `lanes`: how many lanes a PDF is drawn in at most; by default one per render worker.
    /// `drawsOnce`: a run's opener whose lanes draw each page once (see above).
    init(configuration: Configuration, engine: MuPDFEngine, fonts: LazyFonts, documentFiles: DocumentFiles?, lanes: Int? = nil,
         drawsOnce: Bool = false) {
        self.configuration = configuration
        self.drawsOnce = drawsOnce
        self.engine = engine
        self.fonts = fonts
        self.documentFiles = documentFiles
        laneCount = max(1, lanes ?? configuration.workers.render)
        // MuPDF's default store (256 MiB) shared by the lanes of a document.
        laneEngines = LaneEngines(storeBytes: (256 << 20) / laneCount)
    }

    /// A document read for its content hash, and its bytes when its producers read them from
    /// memory.
    struct Read: Sendable {
        let sha256: String
        let byteCount: Int
        /// The file, read once (a PDF up to `ShardPlan.wholeFileLimit`); nil: each producer
        /// reads the file itself.
        let contents: FileBytes?
    }

    /// Reads `document` for its content hash (`knownHash` when the catalog knows it). A PDF up
    /// to `ShardPlan.wholeFileLimit` is read once, here: hashed from memory, and every page
    /// lane's document opened from the same bytes. Opened from the file, each lane's MuPDF read
    /// it again, a small PDF 18-22 times over in small overlapping reads.
    ///
    /// - Throws: `unreadable`, saying why.
    func read(_ document: SourceDocument, stamp: FileStamp?, knownHash: String?) throws(Failure) -> Read {
        if document.kind == .pdf, let stamp, stamp.size <= ShardPlan.wholeFileLimit {
            let bytes: FileBytes
            do {
                bytes = try FileBytes(path: document.url.path)
            } catch {
                throw Failure(error)  // FileBytes says why, as `unreadable`
            }
            return Read(sha256: knownHash ?? bytes.withUnsafeBytes { ContentHash.sha256($0) }, byteCount: bytes.count, contents: bytes)
        }
        if let knownHash, let stamp { return Read(sha256: knownHash, byteCount: Int(stamp.size), contents: nil) }
        do {
            let digest = try ContentHash.sha256(file: document.url)
            return Read(sha256: digest.hash, byteCount: digest.bytes, contents: nil)
        } catch {
            throw Failure(code: .unreadable, message: "cannot read the file: \(error.localizedDescription)")
        }
    }

    /// The opener of the single-file commands: a document in one lane, whose pages the command
    /// draws itself (`workers.render` at a time), and no document files.
    static func singleLane(_ configuration: Configuration, engine: MuPDFEngine, fonts: LazyFonts) -> DocumentOpener {
        DocumentOpener(configuration: configuration, engine: engine, fonts: fonts, documentFiles: nil, lanes: 1)
    }

    /// Every selected page of `document`, made by one producer, its pages' work under
    /// `limiter`: what a single-file command draws. Only for a `singleLane` opener.
    ///
    /// - Throws: the document's failure: nothing of it is drawn.
    func pages(of document: SourceDocument, limiter: TimeLimiter) throws -> any PageProducer {
        precondition(laneCount == 1, "a run's opener makes a PDF's pages in lanes")
        return try open(document, bytes: nil, limiter: limiter).first
    }

    /// Opens `document` into its first lane, its pages' work under `limiter`. `bytes`: the
    /// file as `read` read it (a PDF's lanes open it from memory); nil: read from the file.
    ///
    /// - Throws: the document's failure: nothing of it is drawn.
    func open(_ document: SourceDocument, bytes: FileBytes?, limiter: TimeLimiter) throws -> OpenedDocument {
        switch document.kind {
        case .markup:
            let pages = try ArticlePages(document: document, configuration: configuration, fonts: try fonts.library(),
                                         engine: engine, documentFiles: documentFiles, limiter: limiter)
            return OpenedDocument(first: pages, lanes: 1, drawsInLane: false,
                                  openLane: { lane in preconditionFailure("an article has one lane, not \(lane + 1)") },
                                  note: pages.ignoredPropertiesSummary)
        case .pdf:
            let openLane = { @Sendable [self] (lane: Int) throws -> any PageProducer in
                try openPDFLane(document, lane: lane, bytes: bytes, limiter: limiter)
            }
            let first = try openPDFLane(document, lane: 0, bytes: bytes, limiter: limiter)
            return OpenedDocument(first: first, lanes: max(1, min(laneCount, first.selectedCount)), drawsInLane: true,
                                  openLane: openLane, note: nil)
        }
    }

    /// Lane `lane` of a PDF, in an engine of its own taken from `laneEngines`, which the lane
    /// gives back when it is finished, or at once when the document cannot be opened.
    private func openPDFLane(_ document: SourceDocument, lane: Int, bytes: FileBytes?, limiter: TimeLimiter) throws -> PDFPages {
        let engine = try laneEngines.take()
        do {
            return try PDFPages(document: document, configuration: configuration, engine: engine, limiter: limiter,
                                lane: lane, of: laneCount, bytes: bytes, engines: laneEngines, drawsOnce: drawsOnce)
        } catch {
            laneEngines.give(engine)
            throw error
        }
    }
}
