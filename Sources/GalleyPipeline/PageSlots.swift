import Foundation

/// Bounds the pages in flight: a page takes a slot when it is recorded and gives it back when
/// its last output is written. This, not the corpus size, bounds memory.
final class PageSlots: Sendable {
    private let condition = NSConditionBox()
    private let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "at least one page must be allowed in flight")
        self.capacity = capacity
    }

    /// Waits for a free slot. Returns false, without taking one, once the run is cancelled.
    func acquire(unlessCancelled isCancelled: @Sendable () -> Bool) -> Bool {
        condition.lock.lock()
        defer { condition.lock.unlock() }
        while condition.inUse >= capacity && !isCancelled() {
            _ = condition.lock.wait(until: Date(timeIntervalSinceNow: 0.2))
        }
        guard !isCancelled() else { return false }
        condition.inUse += 1
        return true
    }

    func release() {
        condition.lock.lock()
        condition.inUse -= 1
        precondition(condition.inUse >= 0, "page slot released twice")
        condition.lock.signal()
        condition.lock.unlock()
    }

    /// Wakes every waiter (after a cancellation).
    func wakeAll() {
        condition.lock.lock()
        condition.lock.broadcast()
        condition.lock.unlock()
    }
}

/// An `NSCondition` and the count it guards. Sendable because `inUse` is only read or written
/// while holding `lock`.
private final class NSConditionBox: @unchecked Sendable {
    let lock = NSCondition()
    var inUse = 0
}
