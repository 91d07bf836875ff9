import Foundation
import GalleyBase

/// `index.html` while a run goes: the contact sheet of the documents finished so far, with a
/// line saying how far the run is and a reload every few seconds, so a long batch has
/// something to look at before it ends. Written when a document finishes, at most once per
/// `interval` seconds (and not before `interval` seconds into the run, so quick runs never
/// write one); the run's own sheet replaces it at the end, byte for byte what a run without
/// it writes. An interrupted run leaves it saying so.
package final class ProgressSheet: Sendable {
    private struct State {
        var lastWrite: Date
        var busy = false
        var written = false
        var done = false
    }

    private let state: Mutex<State>
    /// Held while a sheet is written, so the run's final sheet is never replaced by one still being written.
    private let writing = Mutex(())
    private let interval: Double
    private let store: OutputStore
    private let settings: Manifest.Settings
    private let galleyVersion: String
    /// The documents finished so far, in the manifest's order, and how many the run has.
    private let finishedDocuments: @Sendable () -> (documents: [Manifest.Document], total: Int)
    package static let reloadSeconds = 10

    package init(interval: Double, started: Date, store: OutputStore, settings: Manifest.Settings, galleyVersion: String,
                 finishedDocuments: @escaping @Sendable () -> (documents: [Manifest.Document], total: Int)) {
        self.interval = interval
        self.store = store
        self.settings = settings
        self.galleyVersion = galleyVersion
        self.finishedDocuments = finishedDocuments
        state = Mutex(State(lastWrite: started))
    }

    /// A document finished: writes the sheet when `interval` has passed since the last one
    /// (a write already under way is not waited for).
    package func documentFinished() {
        let due = state.withLock { state -> Bool in
            guard !state.done, !state.busy, Date().timeIntervalSince(state.lastWrite) >= interval else { return false }
            state.busy = true
            return true
        }
        guard due else { return }
        write(note: nil)
        state.withLock { state in
            state.busy = false
            state.written = true
            state.lastWrite = Date()
        }
    }

    /// The run is over: no sheet is written after this returns (one under way has finished).
    /// `interrupted`: a sheet written earlier is rewritten to say the run stopped.
    package func finish(interrupted: Bool) {
        let written = state.withLock { state -> Bool in
            state.done = true
            return state.written
        }
        writing.withLock { _ in }
        if interrupted && written { write(note: "interrupted", whenDone: true) }
    }

    private func write(note: String?, whenDone: Bool = false) {
        writing.withLock { _ in
            guard whenDone || !state.withLock({ $0.done }) else { return }
            let (documents, total) = finishedDocuments()
            let failed = documents.count { $0.status == .failed }, unchanged = documents.count { $0.status == .unchanged }
            let manifest = Manifest(
                settings: settings,
                totals: .init(documents: documents.count, ok: documents.count - failed - unchanged, failed: failed, unchanged: unchanged,
                              pages: documents.reduce(0) { $0 + $1.pages.count }),
                documents: documents, shard: nil,
                run: .init(galleyVersion: galleyVersion, mupdfVersion: "", startedAt: "", durationSeconds: 0,
                           workers: .init(open: 1, render: 1, thumbnails: 1, encode: 1), maxPagesInFlight: 1))
            let progress = ContactSheet.Progress(done: documents.count, total: total, interrupted: note != nil,
                                                 reloadSeconds: note != nil ? nil : Self.reloadSeconds)
            try? store.write(to: "index.html") { sink in ContactSheet.write(manifest, progress: progress) { sink.write($0) } }
        }
    }
}
