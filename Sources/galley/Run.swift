import ArgumentParser
import Foundation
import GalleyBase
import GalleyDiff
import GalleyManifest
import GalleyPipeline
import GalleyRaster
import Logging

/// Options every command that runs the pipeline takes.
struct PipelineOptions: ParsableArguments {
    @Option(name: .long, help: "The configuration file.", completion: .configurationFile)
    var config: String = "pipeline.yml"

    @Option(name: .long, help: "An input folder, file or glob; repeat for several. Replaces the file's inputs.", completion: .file())
    var input: [String] = []

    @Option(name: .long, help: "The output folder.", completion: .directory)
    var output: String?

    @Option(name: .long, help: "Page image resolution in pixels per inch (1...2400).")
    var dpi: Double?

    @Option(name: .long, help: "PNG compression preset: fast, balanced or small.", completion: .list(PNGCompression.allCases.map(\.rawValue)))
    var png: String?

    @Option(name: .long, help: "Format of page images, and of thumbnails unless thumbnail_format: says otherwise: png, webp, jpeg or avif.",
            completion: .imageFormats)
    var format: String?

    @Option(name: .long, help: ArgumentHelp(
        "Pages of each document to draw: 1-3,7, first, last, 5-N (N: the last page). Replaces pages: in the file.",
        discussion: "For articles, it selects among the pages each layout sets.", valueName: "PAGES"))
    var pages: String?

    @Option(name: .long, help: "At most this many pages of each document (of each layout for articles).")
    var maxPages: Int?

    @Option(name: .long, help: ArgumentHelp("Thumbnail boxes in pixels, comma-separated (128,256); 'none' for no thumbnails.", valueName: "BOXES"))
    var thumbnails: String?

    @Flag(name: .long, help: "Write thumbnails only, no full-size page images.")
    var noPageImages = false

    @Option(name: .long, help: "Workers for every stage (1...256).")
    var jobs: Int?

    @Flag(name: .long, help: "Print debug details of the run.")
    var verbose = false

    @Flag(name: .long, help: ArgumentHelp(
        "When another galley is writing into the output folder, wait for it instead of exiting with status 2.",
        discussion: "One galley at a time owns an output folder (<output>/.galley/lock)."))
    var wait = false

    func validate() throws {
        if let dpi, !Configuration.dpiRange.contains(dpi) {
            throw ValidationError("--dpi \(dpi) is outside 1...2400")
        }
        if let png, PNGCompression(rawValue: png) == nil {
            throw ValidationError("--png \(png): use one of \(PNGCompression.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let jobs, !Configuration.workerRange.contains(jobs) {
            throw ValidationError("--jobs \(jobs) is outside 1...256")
        }
        try Galley.validateFormat(format)
        if let pages {
            do { _ = try PageSelection(parsing: pages) } catch { throw ValidationError("--pages \(pages): \(error.message)") }
        }
        if let maxPages, !Configuration.maxPagesRange.contains(maxPages) {
            throw ValidationError("--max-pages \(maxPages) must be at least 1")
        }
        _ = try thumbnailBoxes()
        if noPageImages, try thumbnailBoxes() == [] {
            throw ValidationError("--no-page-images with --thumbnails none leaves nothing to write")
        }
    }

    /// `--thumbnails` as box sizes: nil when not given, [] for `none`.
    func thumbnailBoxes() throws -> [Int]? {
        guard let thumbnails else { return nil }
        if thumbnails == "none" { return [] }
        var boxes: [Int] = []
        for item in thumbnails.split(separator: ",", omittingEmptySubsequences: false) {
            guard let box = Int(item.trimmingCharacters(in: .whitespaces)), Configuration.thumbnailBoxRange.contains(box) else {
                throw ValidationError("--thumbnails \(thumbnails): boxes are numbers of pixels from 8 to 4096, comma-separated, or none")
            }
            boxes.append(box)
        }
        guard Set(boxes).count == boxes.count else { throw ValidationError("--thumbnails \(thumbnails): box sizes must be different") }
        return boxes.sorted()
    }

    /// Logging to standard error; debug details with --verbose.
    func logger() -> Logger {
        LoggingSystem.bootstrap { label in
            var handler = TerminalLogHandler(StreamLogHandler.standardError(label: label))
            handler.logLevel = .info
            return handler
        }
        var logger = Logger(label: "galley")
        logger.logLevel = verbose ? .debug : .notice
        return logger
    }

    /// The file's configuration with the options applied.
    func configuration() throws(CommandFailure) -> Configuration {
        var configuration = try Galley.loadConfiguration(config, defaultsWithoutFile: !input.isEmpty,
                                                         hint: "pass --config FILE, or --input DIR to run with defaults")
        // Paths given on the command line are relative to the current folder, not the file's.
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let absolute = { (path: String) in path.hasPrefix("/") ? path : cwd.appendingPathComponent(path).standardizedFileURL.path }
        if !input.isEmpty {
            configuration.inputs = input
            configuration.inputBaseDirectory = cwd
        }
        if let output { configuration.output = absolute(output) }
        if let dpi { configuration.dpi = dpi }
        if let jobs { configuration.workers = Configuration.Workers(all: jobs) }
        if let png, let preset = PNGCompression(rawValue: png) { configuration.png = preset }
        if let format = format.flatMap(ImageFormat.init(rawValue:)) { configuration.format = format }
        if let pages { configuration.pageSelection = try? PageSelection(parsing: pages) }
        if let maxPages { configuration.maxPages = maxPages }
        if let boxes = try? thumbnailBoxes() { configuration.thumbnailBoxes = boxes }
        if noPageImages { configuration.pageImages = false }
        if !configuration.pageImages && configuration.thumbnailBoxes.isEmpty {
            throw CommandFailure("no page images and no thumbnails: nothing to write (check page_images and thumbnails in \(config), --no-page-images and --thumbnails)")
        }
        return configuration
    }
}

extension OutputLock {
    /// The lock of `configuration`'s output folder: at once, or with `wait` once the galley
    /// holding it is done (saying so on standard error). Before anything is made, the inbox,
    /// output and input folders are checked apart (`checkFoldersApart`).
    ///
    /// - Throws: status 2 when the folders overlap, the folder is in use and `wait` is off, or
    ///   the lock cannot be made; status 130 when `cancellation` fires while waiting.
    static func acquire(for configuration: Configuration, wait: Bool, cancellation: Cancellation) throws(CommandFailure) -> OutputLock {
        let output = configuration.outputURL
        do {
            try configuration.checkFoldersApart()
            guard wait else { return try acquire(output: output, hint: "pass --wait to wait for it") }
            let lock = try acquire(output: output, waiting: cancellation) { holder in
                FileHandle.standardError.write(Data("galley: \(output.path): output folder in use by \(holder); waiting for it\n".utf8))
            }
            guard let lock else {
                throw CommandFailure("interrupted while waiting for the output folder \(output.path)", status: Galley.Status.interrupted)
            }
            return lock
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure(stopping: error)
        }
    }
}

/// `galley run`: one batch over the configured inputs.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Render every document under the inputs of pipeline.yml.",
        discussion: """
            With no options, reads pipeline.yml in the current folder. Options override the file. \
            Runs are incremental: what an earlier run made with the same content and settings is kept \
            (the catalog is <output>/.galley/catalog.sqlite); --force draws everything.
            """)

    @OptionGroup var options: PipelineOptions

    @Flag(name: .long, help: "Draw every page again, ignoring what the catalog says is already done (documents quarantined as crashed too).")
    var force = false

    @Option(name: .long, help: ArgumentHelp(
        "Process shard K of N (1-based), chosen by content hash; combine the shards' outputs with galley merge.",
        discussion: "Without it, GALLEY_SHARD=K/N, a Slurm array task (SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT), or a 0-based JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or AWS_BATCH_JOB_ARRAY_INDEX with --shard-count, name the shard.",
        valueName: "K/N"))
    var shard: String?

    @Option(name: .long, help: "How many shards there are, for job indexes taken from the environment.")
    var shardCount: Int?

    @Option(name: .long, help: ArgumentHelp(
        "A plan made by galley plan: process exactly shard K's work list of it (with --shard K/N or a job array's index).",
        discussion: "No scan and no hashing: each file's size and modification time are checked against the plan's (its content when they differ); a file changed since planning is drawn and flagged. --input maps the plan's inputs, in order, to where this machine sees them.",
        valueName: "PLAN"), completion: .file())
    var plan: String?

    @Option(name: .long, help: ArgumentHelp(
        "Progress display: auto, bar, plain, json or none.",
        discussion: "auto is bar on a terminal and plain otherwise (pipes, files, CI=true). json prints one object per event on standard output."))
    var progress: ProgressMode = .auto

    @Option(name: .long, help: "Seconds between plain progress status lines (0: none).")
    var progressInterval: Double = 10

    @Flag(name: .long, help: "Accept inputs that hold no document (without it, that is exit status 2).")
    var allowEmpty = false

    @OptionGroup var reports: CIReportOptions

    @Option(name: .long, help: ArgumentHelp(
        "An earlier run's output folder (or manifest.json) to compare this run with, as its last stage.",
        discussion: "Writes <output>/diff/ as galley diff does and marks the changed pages on the contact sheet; the exit status stays the run's (see diff/diff.json's outcome). A folder that does not exist or is empty is a first run: nothing is compared, and the summaries (and diff/summary.md) say so."), completion: .directory)
    var baseline: String?

    @OptionGroup(title: "With --baseline") var diffSettings: DiffSettings

    func run() throws {
        do {
            try runReporting()
        } catch let failure as CommandFailure {
            // Stopped before any document was counted (a configuration mistake, bad usage):
            // CI still gets an annotation, a step summary and a JUnit file saying why.
            reports.writeStopped(failure)
            throw failure
        }
    }

    private func runReporting() throws {
        let logger = options.logger()
        var configuration = try options.configuration()
        configuration.shard = try CommandFailure.catching {
            try shard.map { try Shard(parsing: $0) } ?? Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount)
        }
        if let plan {
            let planned = try CommandFailure.catching { [shard, shardCount, configuration, options] in
                try PlannedShard.load(path: plan, shard: { (count: Int?) throws(UsageError) -> Shard? in
                    if let shard { return try Shard(parsing: shard) }
                    return try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: shardCount ?? count)
                }, configuration: configuration, mapsInputs: !options.input.isEmpty)
            }
            configuration.plannedShard = planned
            configuration.shard = planned.shard
        }
        var runOptions = RunOptions(force: force, requireDocuments: !allowEmpty)
        runOptions.continuesRunStartedAt = CrashRestart.runStartedAt
        if let baseline {
            let url = URL(fileURLWithPath: baseline, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            if Self.isMissingOrEmpty(url.standardizedFileURL) {
                // A first run: the artifact download found no earlier run and left no folder.
                runOptions.missingBaseline = baseline
            } else {
                runOptions.baseline = try CommandFailure.catching { try RunOutputs(at: url.standardizedFileURL) }
            }
            runOptions.diffOptions = diffSettings.options(workers: configuration.workers.render)
        }
        let reporter = ProgressReporter(mode: progress, interval: progressInterval)
        let timer = DocumentTimer()
        let summary = try Self.runPipeline(configuration, runOptions, waitForOutput: options.wait, logger: logger) {
            timer.handle($0)
            reporter.handle($0)
        }
        reporter.finish(summary, status: Galley.Status.code(for: summary.outcome))
        Self.printSummary(summary, toStandardError: reporter.mode == .json)
        reports.write(summary, durations: timer.durations, standardOutputIsJSON: reporter.mode == .json)
        try Self.requireSuccess(summary)
    }

    /// A `--baseline` that is no earlier run yet: no such path, or an empty folder.
    static func isMissingOrEmpty(_ url: URL) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            // A dangling link is a mistake, not a first run.
            return (try? FileManager.default.destinationOfSymbolicLink(atPath: url.path)) == nil
        }
        return isFolder.boolValue && (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.isEmpty == true
    }

    /// Runs the pipeline once with Ctrl-C handling, holding the output folder's lock
    /// (`waitForOutput`: waiting for it).
    static func runPipeline(_ configuration: Configuration, _ runOptions: RunOptions, waitForOutput: Bool, logger: Logger,
                            onEvent: @escaping @Sendable (PipelineEvent) -> Void = { Run.report($0) }) throws(CommandFailure) -> RunSummary {
        let cancellation = Cancellation()
        // Once the lock is held, an exit forced by a signal clears `.galley/tmp` first, as the
        // pipeline does when it stops in time (a loaded machine may take longer than the grace).
        let locked = Mutex(false)
        let store = OutputStore(root: configuration.outputURL)
        let signals = cancelOnSignals(cancellation, beforeExit: { if locked.withLock({ $0 }) { store.cleanUp() } })
        defer { signals.forEach { $0.cancel() } }
        let lock = try OutputLock.acquire(for: configuration, wait: waitForOutput, cancellation: cancellation)
        locked.withLock { $0 = true }
        do {
            return try Pipeline(configuration: configuration, logger: logger).run(runOptions, lock: lock, cancellation: cancellation,
                                                                                   onEvent: onEvent)
        } catch {
            throw CommandFailure(stopping: error)
        }
    }

    /// Throws the exit status of a run that did not succeed.
    static func requireSuccess(_ summary: RunSummary) throws(ExitCode) {
        let status = Galley.Status.code(for: summary.outcome)
        if status != 0 { throw ExitCode(status) }
    }

    /// Seconds between a first interrupt and the exit that follows whatever is still running.
    /// `GALLEY_TEST_EXIT_GRACE` sets it for the tests that check that work stops on its own,
    /// before the forced exit, on a machine of any load.
    static let exitGrace = ProcessInfo.processInfo.environment["GALLEY_TEST_EXIT_GRACE"].flatMap(Double.init) ?? 0.9

    /// Ctrl-C and SIGTERM cancel the run; the pipeline stops in-flight work and cleans up.
    /// A second one exits at once, after removing `.galley/tmp` (`beforeExit`); never a
    /// half-written output is left under its final name, and the next run clears what a
    /// writer put in `tmp` after that.
    /// So does the first when the run has not ended `exitGrace` seconds after it: work that
    /// does not stop when cancelled (a long C call) does not keep the process alive, and a
    /// supervisor's SIGTERM always acts within a second.
    /// `stamp` starts the messages (`galley watch` puts the time there); `beforeExit` runs
    /// before an exit the signals force (removing temporary files).
    static func cancelOnSignals(_ cancellation: Cancellation, stamp: @escaping @Sendable () -> String = { "" },
                                beforeExit: @escaping @Sendable () -> Void = {}) -> [DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if cancellation.isCancelled {
                    FileHandle.standardError.write(Data((stamp() + "galley: interrupted again; exiting now\n").utf8))
                    // Not a thrown ExitCode: this handler runs on a dispatch queue while the
                    // command's thread is busy in the pipeline, so there is no caller to throw
                    // to; and `_exit`, unlike `exit`, runs no atexit handlers and flushes no
                    // stdio buffers, whose locks a worker thread may hold.
                    beforeExit()
                    _exit(Galley.Status.interrupted)
                }
                FileHandle.standardError.write(Data(("\n" + stamp() + "galley: interrupted; stopping in-flight work (again to exit now)\n").utf8))
                cancellation.cancel()
                DispatchQueue.global().asyncAfter(deadline: .now() + exitGrace) {
                    FileHandle.standardError.write(Data((stamp() + "galley: in-flight work did not stop within \(exitGrace) s of the interrupt; exiting now\n").utf8))
                    beforeExit()
                    _exit(Galley.Status.interrupted)  // as for a second signal
                }
            }
            source.resume()
            return source
        }
    }

    /// The per-document line of plain progress, on standard error.
    static func report(_ event: PipelineEvent, stamp: String = "") {
        guard case .documentFinished = event else { return }
        FileHandle.standardError.write(Data((stamp + line(for: event) + "\n").utf8))
    }

    /// `[3/10] reports/q1.pdf → reports/q1/: 4 pages` (or FAILED with the reason).
    /// Names and reasons come from files, so the line is escaped for the terminal
    /// (`Escape.terminal`): a name holding a line break or an ESC sequence stays one line of text.
    static func line(for event: PipelineEvent) -> String {
        guard case let .documentFinished(name, source, status, pages, failure, done, total) = event else { return "" }
        return Escape.terminal(unescapedLine(done: done, total: total, source: source, name: name, status: status, pages: pages, failure: failure))
    }

    private static func unescapedLine(done: Int, total: Int, source: String, name: String, status: Manifest.Status, pages: Int, failure: Failure?) -> String {
        var line = "[\(done)/\(total)] \(source) → \(name)/: "
        if status == .failed, let failure {
            line += "FAILED \(failure)"
        } else if status == .unchanged {
            line += "unchanged, " + plural(pages, "page")
        } else {
            line += plural(pages, "page")
        }
        return line
    }

    /// The final summary: on standard output, or `toStandardError` when standard output
    /// carries JSON progress.
    /// `stamp` starts every line (`galley watch` puts the time there).
    static func printSummary(_ summary: RunSummary, toStandardError: Bool = false, stamp: String = "") {
        // Every line escaped for the terminal: names and reasons come from files.
        let print = { (line: String) in
            let line = Escape.terminal(line)
            if toStandardError { FileHandle.standardError.write(Data((stamp + line + "\n").utf8)) } else { Swift.print(stamp + line) }
        }
        let seconds = String(format: "%.2f", summary.duration)
        guard let manifest = summary.manifest else {
            print("galley: interrupted after \(seconds) s; finished pages are in \(summary.outputFolder.path), no manifest was written")
            return
        }
        let totals = manifest.totals
        let rate = summary.duration > 0 ? String(format: "%.1f", Double(totals.pages) / summary.duration) : "-"
        print("galley: \(plural(totals.documents, "document")): \(totals.ok) ok, \(totals.failed) failed, \(totals.unchanged) unchanged; "
              + "\(plural(totals.pages, "page")) in \(seconds) s (\(rate) pages/s)")
        // Warnings are in the manifest and on the contact sheet, not on the terminal: say how many.
        let warned = manifest.documents.filter { !$0.warnings.isEmpty }
        let warnings = warned.reduce(0) { $0 + $1.warnings.count }
        if warnings > 0 {
            print("galley: \(plural(warnings, "warning")) in \(plural(warned.count, "document")) (the contact sheet and manifest.json list them; --annotations github shows them in CI)")
        }
        var work = "galley: \(plural(summary.drawnOutputs, "image")) drawn, \(summary.reusedOutputs) reused"
        if summary.removedDocuments > 0 { work += "; outputs of \(plural(summary.removedDocuments, "vanished document")) removed" }
        print(work)
        if !summary.skipped.isEmpty {
            var skipped = summary.skipped
            let folders = skipped.foldersNotEntered
            (skipped.linkedFolders, skipped.unlisted) = ([], [])
            if !skipped.isEmpty { print("galley: passed over \(skipped.counts) file(s) under the inputs (--verbose lists them)") }
            if !folders.isEmpty { print("galley: under the inputs, \(folders) (--verbose lists them)") }
        }
        printFailures(manifest, print: print)
        for removal in summary.removals { print("  removed: \(removal)") }
        print("galley: outputs in \(summary.outputFolder.path) (manifest: \(summary.outputFolder.appendingPathComponent("manifest.json").path))")
        if let diff = summary.diff {
            print(DiffSummary.headline(diff))
            print("galley: review page: \(summary.outputFolder.appendingPathComponent(RunDiff.defaultFolder).appendingPathComponent(RunDiff.reviewPageName).path)")
        }
        if let note = summary.baselineNote { print("galley: \(note)") }
        if let diffError = summary.diffError { print("galley: \(diffError)") }
        if let manifestError = summary.manifestError {
            print("galley: the manifest could not be written, so it is out of date or missing: \(manifestError)")
        }
    }

    static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}

/// Standard error's log lines with their messages escaped for the terminal (`Escape.terminal`):
/// warnings quote names, titles and `src` values from documents.
struct TerminalLogHandler: LogHandler {
    var inner: StreamLogHandler

    init(_ inner: StreamLogHandler) {
        self.inner = inner
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        event.message = "\(Escape.terminal(event.message.description))"
        inner.log(event: event)
    }
}

/// The failed documents of a run or a merge, one line each, as the summary lists them
/// (escaped for the terminal by default: names and reasons come from files).
func printFailures(_ manifest: Manifest, print: (String) -> Void = { Swift.print(Escape.terminal($0)) }) {
    for document in manifest.documents where document.status == .failed {
        if let error = document.error { print("  failed: \(document.source): \(error)") }
    }
}
