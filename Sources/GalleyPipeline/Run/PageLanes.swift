import GalleyBase
import GalleyPDF

/// The lanes a document's pages are made in (`DocumentOpener`: one for an article, one per
/// render worker for a PDF): the count of lanes still running, and what they made, so the last
/// lane to finish can finish the document.
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
