import Foundation
import GalleyBase
import GalleyPDF
@testable import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import Testing

/// `page_timeout`'s timer: work past its deadline is cancelled, finished work is forgotten at
/// once (a run keeps nothing per page it drew), and the cancellation stops MuPDF's drawing.
@Suite struct PageWatchdogTests {
    @Test func workPastItsDeadlineIsCancelledAndFinishedWorkIsForgotten() throws {
        let watchdog = PageWatchdog(timeout: 0.2)
        let finished = (0..<1_000).map { _ in Cancellation() }
        for cancellation in finished {
            watchdog.unwatch(watchdog.watch(cancellation, for: 0.2))
        }
        #expect(watchdog.watchedCount == 0, "nothing is kept for work that finished")

        let slow = Cancellation()
        let cancelled = DispatchSemaphore(value: 0)
        var token = 0
        // Waits for the cancellation itself (the minute is only there so that a watchdog that
        // never fires fails the test instead of hanging it).
        let fired = slow.whileRegistered(onCancel: { cancelled.signal() }) {
            token = watchdog.watch(slow, for: 0.2)
            return cancelled.wait(timeout: .now() + 60) == .success
        }
        #expect(fired && slow.isCancelled, "cancelled once past its deadline")
        #expect(watchdog.watchedCount == 0)
        watchdog.unwatch(token)  // Late: harmless.
        #expect(finished.allSatisfy { !$0.isCancelled }, "work that finished in time is never cancelled")
    }

    /// The time limit stops the drawing itself: the page's cancellation reaches MuPDF, which
    /// leaves the display list part-way (the abort names the node it stopped at), so a page
    /// over its limit costs the limit, not its whole drawing, and its thread is free for the
    /// next page. The page's 12,000 filled curves take seconds of CPU at 300 dpi (3.4 s for
    /// `mutool draw -r 300`), more than ten times the 0.25 s limit; drawn to its end and
    /// failed afterwards, the abort would name the last node.
    @Test func thePageTimeLimitStopsMuPDFPartWayThroughThePage() throws {
        let folder = try ScratchFolder()
        let file = folder.path("slow.pdf")
        let curves = 12_000
        try TestPDF.write(pages: [TestPDF.heavyContent(curves: curves)], to: file)
        let document = try PDFDocument(path: file.path, password: nil, engine: try MuPDFEngine())
        let page = try document.recordPage(0)
        let limiter = TimeLimiter(timeout: 0.25, cancellation: Cancellation())
        var stopped: (any Error)?
        let failure = #expect(throws: Failure.self) {
            try limiter.run(page: 1, doing: "draw") { limit in
                do {
                    return try page.render(scale: 300.0 / 72, cancellation: limit)
                } catch {
                    stopped = error
                    throw error
                }
            }
        }
        #expect(failure?.code == .timedOut)
        #expect(failure?.message.contains("page 1 took longer than page_timeout (0.25 s) to draw") == true, "\(String(describing: failure))")
        let abort = try #require(stopped as? PDFError)
        #expect(abort.code == .cancelled)
        // "... at display-list node N (list length L)": MuPDF sets L when it starts on the list
        // with the cookie, and N where it stopped, L when it ran the whole list.
        let numbers = abort.message.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        let (node, length) = try #require(numbers.count == 2 ? (numbers[0], numbers[1]) : nil, "\(abort.message)")
        #expect(length >= curves, "the abort reached MuPDF's drawing: \(abort.message)")
        #expect(node < length / 2, "MuPDF stopped at node \(node) of \(length): \(abort.message)")
    }
}
