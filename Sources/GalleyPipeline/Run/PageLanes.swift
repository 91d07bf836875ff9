import GalleyBase
import GalleyPDF

/// The lanes a PDF is drawn in: each opens the document in a MuPDF engine of its own, then
/// records and draws its share of the pages (every `n`th), one after another, on the render
/// queue; only encoding goes to another stage. `mutool draw` on both cores is the same split:
/// one process per half of the pages, nothing shared.
///
/// Why: MuPDF guards its allocator and the reference counts of every shared object (glyphs,
/// fonts, images) with one lock per engine, `FZ_LOCK_ALLOC`, taken about 21,000 times a page
/// when thumbnails of Debian's manuals are drawn. With every thread on one engine (recording
/// in the open stage, drawing in the render and thumbnail stages) the two cores fought over
/// it: its lock and unlock were 17% of the CPU even with a cheap lock. In lanes each engine
/// is used by one thread at a time, so its locks stay in that core's cache.
///
/// The count of lanes still running, and what they made, so the last lane to finish can
/// finish the document.
final class PageLanes: Sendable {
    let count: Int
    private let state: Mutex<(running: Int, pages: Int, failure: Failure?)>

    init(count: Int) {
        precondition(count >= 1, "a document has at least one lane")
        self.count = count
        state = Mutex((count, 0, nil))
    }

    /// A lane made `pages` pages (and stopped at `failure`, if any). Returns the totals when
    /// it was the last lane running, else nil.
    func finish(pages: Int, failure: Failure?) -> (pages: Int, failure: Failure?)? {
        state.withLock { state in
            state.running -= 1
            state.pages += pages
            if state.failure == nil { state.failure = failure }
            return state.running == 0 ? (state.pages, state.failure) : nil
        }
    }
}

/// Idle MuPDF engines for page lanes, kept from one document to the next (an engine's store
/// of parsed fonts and images is bounded; making one registers MuPDF's document handlers).
/// There are never more than lanes have run at once.
final class LaneEngines: Sendable {
    private let storeBytes: Int
    private let idle = Mutex<[MuPDFEngine]>([])

    /// `storeBytes`: each engine's bound on MuPDF's store.
    init(storeBytes: Int) {
        self.storeBytes = storeBytes
    }

    func take() throws(PDFError) -> MuPDFEngine {
        if let engine = idle.withLock({ $0.popLast() }) { return engine }
        return try MuPDFEngine(storeBytes: storeBytes)
    }

    func give(_ engine: MuPDFEngine) {
        idle.withLock { $0.append(engine) }
    }
}
