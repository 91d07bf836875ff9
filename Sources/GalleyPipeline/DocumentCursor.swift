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

    init(index: Int, producer: any PageProducer) {
        self.index = index
        self.producer = producer
    }
}
