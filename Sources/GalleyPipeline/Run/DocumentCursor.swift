/// An open document's lane (the whole document for an article) and the pages it dispatched so
/// far, handed from one operation to the next.
///
/// Sendable by hand-off: exactly one operation uses it at a time. An operation that parks it
/// (page slots all taken) touches it no more; the continuation that resumes it is the only
/// next user, so the producer's MuPDF document or typesetter never sees two threads at once.
final class DocumentCursor: @unchecked Sendable {
    let index: Int
    let producer: any PageProducer
    var dispatched = 0
    /// The document's lanes, this one among them.
    let lanes: PageLanes
    /// Whether this lane draws its pages itself, in its render operations
    /// (`OpenedDocument.drawsInLane`), rather than handing them to the render and thumbnail
    /// stages.
    let drawsPages: Bool

    init(index: Int, producer: any PageProducer, lanes: PageLanes, drawsPages: Bool) {
        self.index = index
        self.producer = producer
        self.lanes = lanes
        self.drawsPages = drawsPages
    }
}
