import ArgumentParser
import Foundation
import GalleyBase
import GalleyPipeline
import GalleyRaster

/// `galley thumbs`: thumbnails only, into the output folder or a freedesktop.org cache.
struct Thumbs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbs",
        abstract: "Regenerate thumbnails only: the output folder's, or with --freedesktop the desktop's thumbnail cache.",
        discussion: """
            Without --freedesktop: the configured thumbnail boxes of every page, from the thumbnail cache \
            (memory, then <output>/.galley/thumbnail-cache, kept within thumbnail_cache_size, least recently \
            used first) or drawn; page images an earlier run made are kept, none are drawn; the manifest is \
            rewritten. --prune removes cache entries whose source file is gone.

            With --freedesktop [DIR]: the first page of every document in the Thumbnail Managing Standard's \
            layout under DIR (default $XDG_CACHE_HOME/thumbnails, else ~/.cache/thumbnails); only missing or \
            stale thumbnails are made. --prune removes Galley's thumbnails whose file is gone.
            """)

    @OptionGroup var options: PipelineOptions

    @Flag(name: .long, help: "Remove cached thumbnails whose source file is gone.")
    var prune = false

    @Flag(name: .long, help: "Write freedesktop.org thumbnails (to DIR, or the default cache folder).")
    var freedesktop = false

    @Option(name: .long, help: "With --freedesktop: sizes to make, comma-separated (normal, large, x-large, xx-large).",
            completion: .list(FreedesktopThumbnails.Size.allCases.map(\.rawValue) + [FreedesktopThumbnails.Size.allCases.map(\.rawValue).joined(separator: ",")]))
    var sizes: String = FreedesktopThumbnails.Size.allCases.map(\.rawValue).joined(separator: ",")

    @Argument(help: "With --freedesktop: the thumbnail folder.", completion: .directory)
    var directory: String?

    func validate() throws {
        if directory != nil && !freedesktop { throw ValidationError("a folder is only taken with --freedesktop") }
        for name in sizes.split(separator: ",") where FreedesktopThumbnails.Size(rawValue: String(name)) == nil {
            throw ValidationError("--sizes \(name): use normal, large, x-large, xx-large")
        }
    }

    func run() throws {
        let logger = options.logger()
        let configuration = try options.configuration()
        guard freedesktop else {
            let summary = try Run.runPipeline(configuration, RunOptions(thumbnailsOnly: true, pruneCache: prune),
                                              waitForOutput: options.wait, logger: logger)
            Run.printSummary(summary)
            if prune { print("galley: \(Run.plural(summary.cachePruned, "cached thumbnail")) of vanished files removed") }
            try Run.requireSuccess(summary)
            return
        }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let folder = directory.map { URL(fileURLWithPath: $0, relativeTo: cwd).standardizedFileURL } ?? FreedesktopThumbnails.defaultFolder()
        let thumbnailer = FreedesktopThumbnails(folder: folder, sizes: sizes.split(separator: ",").compactMap { .init(rawValue: String($0)) },
                                                configuration: configuration, logger: logger)
        let cancellation = Cancellation()
        let signals = Run.cancelOnSignals(cancellation)
        defer { signals.forEach { $0.cancel() } }
        var summary = try CommandFailure.catching {
            try thumbnailer.run(cancellation: cancellation) { source, what in
                FileHandle.standardError.write(Data((Escape.terminal("\(source): \(what)") + "\n").utf8))
            }
        }
        if prune { summary.pruned = thumbnailer.prune() }
        print("galley: freedesktop thumbnails in \(folder.path): \(summary.written) written, \(summary.fresh) fresh, \(summary.failed) failed"
              + (prune ? ", \(summary.pruned) of vanished files removed" : ""))
        if cancellation.isCancelled { throw ExitCode(Galley.Status.interrupted) }
        if summary.failed > 0 { throw ExitCode(Galley.Status.someFailed) }
    }
}
