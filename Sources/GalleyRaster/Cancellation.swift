import GalleyBase

/// A cancellation flag shared by the stages of a run, or scoped to one piece of work.
///
/// Long C calls (a MuPDF render) register an abort action while they run; `cancel()` sets the
/// flag and fires the registered actions, so in-flight work stops promptly. A child (made with
/// `parent:`) is cancelled with its parent and can also be cancelled on its own, which is how a
/// single page is stopped when it runs past its time limit.
public final class Cancellation: Sendable {
    private struct State: ~Copyable {
        var cancelled = false
        var nextToken = 0
        var actions: [Int: @Sendable () -> Void] = [:]
    }
    private let state = Mutex(State())
    private let parent: Cancellation?

    public init(parent: Cancellation? = nil) {
        self.parent = parent
    }

    public var isCancelled: Bool { state.withLock { $0.cancelled } || parent?.isCancelled == true }

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

    /// Runs `body` with `onCancel` registered here and with every ancestor; `onCancel` runs at
    /// once if already cancelled.
    public func whileRegistered<T, E: Error>(onCancel: @escaping @Sendable () -> Void, _ body: () throws(E) -> T) throws(E) -> T {
        guard let parent else { return try registeredHere(onCancel, body) }
        return try parent.whileRegistered(onCancel: onCancel) { () throws(E) -> T in
            try registeredHere(onCancel, body)
        }
    }

    private func registeredHere<T, E: Error>(_ onCancel: @escaping @Sendable () -> Void, _ body: () throws(E) -> T) throws(E) -> T {
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
