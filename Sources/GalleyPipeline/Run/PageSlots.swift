import GalleyBase

/// Bounds the pages in flight: a page takes a slot when it is recorded and gives it back when
/// its last output is written. This, not the corpus size, bounds memory.
///
/// Nothing ever blocks on a slot. Operation queues run on a thread pool about as wide as the
/// machine has cores; an operation that waited for a slot would hold one of those threads
/// while the work that frees slots needs it. Instead a document that finds no free slot parks
/// a continuation, and `release()` hands the slot straight to it.
final class PageSlots: Sendable {
    private struct State {
        var inUse = 0
        var waiting: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())
    private let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "at least one page must be allowed in flight")
        self.capacity = capacity
    }

    /// Takes a slot and returns true, or parks `continuation` to run (holding the slot) once
    /// one is released, and returns false.
    func acquire(orWhenFree continuation: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            if state.inUse < capacity {
                state.inUse += 1
                return true
            }
            state.waiting.append(continuation)
            return false
        }
    }

    /// Gives a slot back, or hands it to the first parked continuation.
    func release() {
        let next = state.withLock { state -> (@Sendable () -> Void)? in
            if !state.waiting.isEmpty { return state.waiting.removeFirst() }
            state.inUse -= 1
            precondition(state.inUse >= 0, "page slot released twice")
            return nil
        }
        next?()
    }

    /// Drops every parked continuation (after a cancellation) and returns how many there were.
    func dropWaiting() -> Int {
        state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting.count
        }
    }
}
