import GalleyPDF

/// An open document and the pages dispatched so far, handed from one open operation to the
/// next.
///
/// Sendable by hand-off: exactly one operation uses it at a time. An operation that parks it
/// (page slots all taken) touches it no more; the continuation that resumes it is the only
/// next user, so the producer's MuPDF document or typesetter never sees two threads at once.
final class DocumentCursor: @unchecked Sendable {
    let index: Int
    let producer: any PageProducer
    var dispatched = 0
    /// For a lane of a PDF: the document's lanes, and the engine this one draws with.
    let lanes: PageLanes?
    let engine: MuPDFEngine?

    init(index: Int, producer: any PageProducer, lanes: PageLanes? = nil, engine: MuPDFEngine? = nil) {
        self.index = index
        self.producer = producer
        self.lanes = lanes
        self.engine = engine
    }
}
