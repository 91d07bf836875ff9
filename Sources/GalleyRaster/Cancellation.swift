import Synchronization

/// A cancellation flag shared by every stage of a run.
///
/// Long C calls (a MuPDF render) register an abort action while they run; `cancel()` sets the
/// flag and fires the registered actions, so in-flight work stops promptly.
public final class Cancellation: Sendable {
    private struct State: ~Copyable {
        var cancelled = false
        var nextToken = 0
        var actions: [Int: @Sendable () -> Void] = [:]
    }
    private let state = Mutex(State())

    public init() {}

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Sets the flag and runs every registered abort action once.
    public func cancel() {
        let actions = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            let actions = Array(state.actions.values)
            state.actions.removeAll()
            return actions
        }
        for action in actions { action() }
    }

    /// Runs `body` with `onCancel` registered; `onCancel` runs at once if already cancelled.
    public func whileRegistered<T, E: Error>(onCancel: @escaping @Sendable () -> Void, _ body: () throws(E) -> T) throws(E) -> T {
        let token = state.withLock { state -> Int? in
            guard !state.cancelled else { return nil }
            state.nextToken += 1
            state.actions[state.nextToken] = onCancel
            return state.nextToken
        }
        guard let token else {
            onCancel()
            return try body()
        }
        defer { _ = state.withLock { $0.actions.removeValue(forKey: token) } }
        return try body()
    }
}
