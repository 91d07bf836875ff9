import ArgumentParser
import Foundation
import GalleyBase
import GalleyPipeline
import GalleyRaster

/// `galley watch`: an incremental run whenever the input folders change.
struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Watch the input folders (and the inbox) and run incrementally whenever something changes.",
        discussion: """
            Runs once, then waits for changes (inotify). Once no change has come for the debounce time and no \
            changed file is still growing, it runs again and prints the documents that changed. Ctrl-C stops \
            it (exit status 130), finishing nothing half-way.
            """)

    @OptionGroup var options: PipelineOptions

    @Option(name: .long, help: "Seconds to wait for changes to settle (overrides watch_debounce; default 2).")
    var debounce: Double?

    func validate() throws {
        if let debounce, !Configuration.watchDebounceRange.contains(debounce) {
            throw ValidationError("--debounce \(debounce) is outside 0...3600")
        }
    }

    func run() throws {
        let logger = options.logger()
        var configuration = try options.configuration()
        if let debounce { configuration.watchDebounce = debounce }
        let cancellation = Cancellation()
        let signals = Run.cancelOnSignals(cancellation, stamp: { Self.stamp() })
        defer { signals.forEach { $0.cancel() } }

        // Held until the watch ends, so no other galley writes into the folder between runs
        // (and first, so overlapping folders are refused before the inbox is made).
        let lock = try OutputLock.acquire(for: configuration, wait: options.wait, cancellation: cancellation)
        defer { withExtendedLifetime(lock) {} }
        var folders = configuration.inputs.map { input -> URL in
            let url = configuration.resolveInput(input)
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
            // A file or glob is watched through its folder.
            return exists && isFolder.boolValue ? url : url.deletingLastPathComponent()
        }
        if let inbox = configuration.inbox {
            let url = configuration.resolve(inbox)
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            folders.append(url)
        }
        let watcher = try CommandFailure.catching { try FolderWatcher(folders: folders, skipping: configuration.outputURL) }
        print(Self.stamp() + "galley: watching \(folders.map(\.path).joined(separator: ", ")) (debounce \(configuration.watchDebounce) s; Ctrl-C stops)")
        fflush(nil)
        let pipeline = Pipeline(configuration: configuration, logger: logger)
        while true {
            let summary: RunSummary
            do {
                summary = try pipeline.run(lock: lock, cancellation: cancellation) { event in
                    // Only what changed: unchanged documents are the quiet majority.
                    guard case let .documentFinished(_, _, status, _, _, _, _) = event, status != .unchanged else { return }
                    Run.report(event, stamp: Self.stamp())
                }
            } catch {
                // An input folder removed while watching, say, is a setting to fix, as `galley run` says.
                throw CommandFailure(stopping: error)
            }
            for (from, to) in summary.inboxMoves { print(Self.stamp() + Escape.terminal("galley: inbox: \(from) → \(to)")) }
            Run.printSummary(summary, stamp: Self.stamp())
            fflush(nil)  // a watcher's output is read as it comes, often through a pipe
            if summary.outcome == .interrupted { break }
            guard let changed = watcher.waitForChanges(debounce: configuration.watchDebounce, cancellation: cancellation) else { break }
            print(Self.stamp() + Escape.terminal("galley: changed: " + Self.describe(changed)))
            fflush(nil)
        }
        print(Self.stamp() + "galley: stopped watching")
        throw ExitCode(Galley.Status.interrupted)
    }

    /// `2026-11-25 07:21:05 `: a watch runs for days, and its lines are read later.
    static func stamp(_ date: Date = Date()) -> String {
        let style = Date.VerbatimFormatStyle(
            format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) ",
            timeZone: .current, calendar: Calendar(identifier: .gregorian))
        return date.formatted(style)
    }

    /// The changed files by name, each gone one marked: `a.pdf, old.pdf (removed)`.
    static func describe(_ changed: [String]) -> String {
        changed.map { path in
            let name = (path as NSString).lastPathComponent
            return FileManager.default.fileExists(atPath: path) ? name : "\(name) (removed)"
        }.joined(separator: ", ")
    }
}
