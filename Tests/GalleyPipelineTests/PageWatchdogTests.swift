import Foundation
@testable import GalleyPipeline
import GalleyRaster
import Testing

/// `page_timeout`'s timer: work past its deadline is cancelled, finished work is forgotten at
/// once (a run keeps nothing per page it drew).
@Suite struct PageWatchdogTests {
    @Test func workPastItsDeadlineIsCancelledAndFinishedWorkIsForgotten() throws {
        let watchdog = PageWatchdog(timeout: 0.2)
        let finished = (0..<1_000).map { _ in Cancellation() }
        for cancellation in finished {
            watchdog.unwatch(watchdog.watch(cancellation, for: 0.2))
        }
        #expect(watchdog.watchedCount == 0, "nothing is kept for work that finished")

        let slow = Cancellation()
        let token = watchdog.watch(slow, for: 0.2)
        let deadline = Date().addingTimeInterval(10)
        while !slow.isCancelled && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(slow.isCancelled, "cancelled once past its deadline")
        #expect(watchdog.watchedCount == 0)
        watchdog.unwatch(token)  // Late: harmless.
        #expect(finished.allSatisfy { !$0.isCancelled }, "work that finished in time is never cancelled")
    }
}
