import Dispatch
import GalleyBase
import GalleyRaster

/// Cancels page work that runs past its deadline (`page_timeout`): one timer for the run,
/// ticking only while work is watched, and nothing kept for work that finished.
///
/// Why not a dispatch timer per page: a cancelled `asyncAfter` item stays queued, with its
/// closure and the page's `Cancellation`, until its deadline comes, so a fast run with a long
/// `page_timeout` held one per page drawn in the last `page_timeout` seconds (3,000 pages at
/// 36 dpi: all of them, 3 MB), and a run's memory grew with its page count.
final class PageWatchdog: Sendable {
    private struct State: ~Copyable {
        var nextToken = 0
        var watched: [Int: (deadline: UInt64, cancellation: Cancellation)] = [:]
        var ticking = false
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "galley.page-watchdog")
    /// Seconds between checks: a twentieth of the time limit, between 10 ms and 0.5 s, so work
    /// is cancelled at most that late.
    let tick: Double

    init(timeout: Double) {
        tick = min(max(timeout / 20, 0.01), 0.5)
    }

    /// Work being watched now.
    var watchedCount: Int { state.withLock { $0.watched.count } }

    /// Cancels `cancellation` `seconds` from now unless `unwatch` comes first; the token for
    /// `unwatch`.
    func watch(_ cancellation: Cancellation, for seconds: Double) -> Int {
        let nanoseconds = seconds.isFinite ? UInt64(min(max(seconds, 0), 1e9) * 1e9) : UInt64.max / 2
        let deadline = DispatchTime.now().uptimeNanoseconds &+ nanoseconds
        let (token, start) = state.withLock { state -> (Int, Bool) in
            state.nextToken += 1
            state.watched[state.nextToken] = (deadline, cancellation)
            defer { state.ticking = true }
            return (state.nextToken, !state.ticking)
        }
        if start { scheduleCheck() }
        return token
    }

    func unwatch(_ token: Int) {
        state.withLock { _ = $0.watched.removeValue(forKey: token) }
    }

    private func scheduleCheck() {
        // Weak: a run that is over does not wait for its watchdog's last tick to be freed.
        queue.asyncAfter(deadline: .now() + tick) { [weak self] in self?.check() }
    }

    /// Cancels what is past its deadline; ticks again while anything is watched.
    private func check() {
        let now = DispatchTime.now().uptimeNanoseconds
        let (expired, again) = state.withLock { state -> ([Cancellation], Bool) in
            let tokens = state.watched.filter { $0.value.deadline <= now }.map(\.key)
            let expired = tokens.compactMap { state.watched.removeValue(forKey: $0)?.cancellation }
            state.ticking = !state.watched.isEmpty
            return (expired, state.ticking)
        }
        for cancellation in expired { cancellation.cancel() }
        if again { scheduleCheck() }
    }
}
