import CGalleySystem
import Foundation
import GalleyBase
import GalleyCatalog
import GalleyDiff
import GalleyManifest
import GalleyPDF
import GalleyRaster
import GalleyText
import Logging

/// The batch pipeline: scan → open → render page / render thumbnails → encode → record.
///
/// Every stage after scan is a Foundation `OperationQueue` whose width comes from the
/// configuration; a unit of work is a document (open) or a page (render, thumbnails, encode,
/// record). Pages in flight are bounded by `max_pages_in_flight`.
public final class Pipeline: Sendable {
    public static let version = "0.1.0"

    /// What `galley --version` prints: Galley's version and the commit it was built from
    /// (release builds), then the versions of the libraries that draw and set the pages.
    public static var versionDescription: String {
        let build = buildCommit.map { "commit \($0.prefix(12))" } ?? "development build"
        return "galley \(version) (\(build))\nMuPDF \(MuPDFEngine.version), HarfBuzz \(LibraryVersions.harfBuzz), FreeType \(LibraryVersions.freeType)"
    }

    /// The commit this galley was built from (release builds), or nil.
    public static var buildCommit: String? {
        let commit = String(cString: gs_build_commit())
        return commit.isEmpty ? nil : commit
    }

    /// Pages with more pixels than this are drawn and encoded in horizontal bands, so a huge
    /// page costs a band of memory, not the whole bitmap.
    public static let bandPixelLimit = 16 << 20

    public let configuration: Configuration
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The catalog of an output folder.
    public static func catalogURL(output: URL) -> URL {
        OutputStore(root: output).stateFolder.appendingPathComponent("catalog.sqlite")
    }

    /// Runs the pipeline to the end, or until `cancellation` fires.
    ///
    /// The run is incremental: documents the catalog knows as finished with the same content
    /// and settings are not opened, and outputs already made with the same settings are kept
    /// (or copied from a file with the same content) instead of drawn again; thumbnails come
    /// from the thumbnail cache when it has them. `options` can force a full run or make
    /// thumbnails only.
    ///
    /// The run holds the output folder's lock throughout: `lock` when the caller holds it
    /// already (`galley watch` keeps it across runs), else it takes it, failing when another
    /// process holds it. A document that was open when a process died in an earlier run is
    /// processed after the others, on its own; one that was open at two such deaths fails as
    /// `crashed` without being opened, until its content changes (or `options.force`).
    ///
    /// - Throws: `UsageError` when the output folder is in use by another process, an input
    ///   is missing, the output folder cannot be made or the catalog cannot be opened,
    ///   `ConfigurationError` when a font folder is missing, `OutputError` when the manifest
    ///   cannot be written. Failing documents do not throw: they are in the manifest.
    public func run(_ options: RunOptions = RunOptions(), lock: OutputLock? = nil, cancellation: Cancellation = Cancellation(),
                    onEvent: @escaping @Sendable (PipelineEvent) -> Void = { _ in }) throws -> RunSummary {
        if let baseline = options.baseline,
           baseline.folder.standardizedFileURL.path == configuration.outputURL.standardizedFileURL.path {
            throw UsageError(subject: "--baseline", message: "\(baseline.folder.path) is this run's own output folder; give the folder of an earlier run (a copy, or a downloaded artifact)")
        }
        try configuration.checkFoldersApart()
        if options.baseline != nil, configuration.shard != nil {
            throw UsageError(subject: "--baseline", message: "a shard holds only some of the documents; merge the shards (galley merge), then compare the merged folder with galley diff")
        }
        let held = try lock ?? OutputLock.acquire(output: configuration.outputURL)
        precondition(held.output.standardizedFileURL.path == configuration.outputURL.standardizedFileURL.path,
                     "the lock held is another output folder's")
        defer { withExtendedLifetime(held) {} }
        // A run restarted after a crash counts from its first attempt.
        let started = options.continuesRunStartedAt.map(Date.init(timeIntervalSince1970:)) ?? Date()
        var inboxWarnings: [String] = []
        var inboxMoves: [(String, String)] = []
        if configuration.inbox != nil {
            (inboxMoves, inboxWarnings) = try Inbox(configuration: configuration).collect()
            for (from, to) in inboxMoves { logger.info("inbox: \(from) → \(to)") }
        }
        // A planned shard does not scan: its work list names its documents.
        let (scanned, scanWarnings, skipped) = try configuration.plannedShard.map { ($0.documents, [], InputScanner.Skipped()) }
            ?? InputScanner(configuration: configuration).scanCountingSkipped()
        if !skipped.isEmpty {
            logger.info("skipped \(skipped.counts) file(s) under the inputs (--verbose lists them)")
            for path in skipped.unsupported { logger.debug("skipped, unsupported type: \(path)") }
            for path in skipped.hidden { logger.debug("skipped, hidden: \(path)") }
            for path in skipped.outputFolder { logger.debug("skipped, the output folder: \(path)") }
            for path in skipped.linkedFolders { logger.debug("skipped, a link to a folder (follow_symlinks is off): \(path)") }
            for path in skipped.unlisted { logger.warning("skipped, a folder that cannot be listed: \(path)") }
        }
        // A planned shard's list may be empty (fewer documents to draw than shards).
        if scanned.isEmpty, options.requireDocuments, configuration.plannedShard == nil {
            let inputs = configuration.inputs.map { "\($0) (\(configuration.resolveInput($0).path))" }.joined(separator: ", ")
            let passedOver = skipped.isEmpty ? "" : "; passed over: \(skipped.counts)"
            throw UsageError(subject: "inputs",
                             message: "no documents (.pdf, .html, .htm, .xhtml, .txt) found in \(inputs)\(passedOver); fix inputs in pipeline.yml or --input, or pass --allow-empty to accept an empty run")
        }
        var warnings = inboxWarnings + scanWarnings
        for warning in warnings { logger.warning("\(warning)") }
        let store = OutputStore(root: configuration.outputURL)
        do {
            try store.prepare()
        } catch {
            // Nothing has been done yet: this is a setting to fix, not a failed document.
            throw UsageError(subject: "output",
                             message: "\(configuration.output): \(error.message); choose a folder you can write to (output: in pipeline.yml, or --output)")
        }
        defer { store.cleanUp() }
        let catalogURL = Self.catalogURL(output: store.root)
        do {
            // SQLite opens by path: the catalog and its journal files must be files, not links.
            for suffix in ["", "-wal", "-shm", "-journal"] { try store.confined.checkFile(".galley/catalog.sqlite" + suffix) }
        } catch {
            throw UsageError(subject: "output", message: "\(error.description)")
        }
        let runCatalog: RunCatalog
        do {
            runCatalog = try RunCatalog(catalog: try Catalog(path: catalogURL.path), configuration: configuration, store: store,
                                        force: options.force, continuesRunStartedAt: options.continuesRunStartedAt, logger: logger)
        } catch {
            throw UsageError(subject: catalogURL.path,
                             message: "the catalog cannot be used (\(error.message)); if the disk is full, free some space; if the file is damaged, delete it to start afresh (the next run then redoes every page)")
        }
        defer { runCatalog.endRun() }
        // Named over the whole scan first, so every shard gives a document the name a single run
        // would. A file that cannot (or must not) be read belongs to the first shard, so one
        // shard reports it.
        let changedSincePlanned = configuration.plannedShard.map { verify($0, scanned, runCatalog) } ?? [:]
        let documents = configuration.plannedShard != nil ? scanned : configuration.shard.map { shard in
            scanned.filter { document in
                guard document.refusal == nil else { return shard.index == 1 }
                return runCatalog.contentHash(of: document).map(shard.contains(sha256Hex:)) ?? (shard.index == 1)
            }
        } ?? scanned

        if options.thumbnailsOnly {
            // Thumbnails only draws no page image and must not drop one: images made with other
            // settings would be neither current nor kept, so the run does not start.
            let other = runCatalog.documentsWithPageImagesOfOtherSettings(documents)
            if !other.isEmpty {
                let listed = other.prefix(3).joined(separator: ", ") + (other.count > 3 ? " …" : "")
                throw UsageError(subject: "thumbs", message: """
                    the page images of \(other.count) document(s) in \(store.root.path) (\(listed)) were made with other settings \
                    than these (dpi \(configuration.dpi.formatted()), format \(configuration.format.rawValue), png \(configuration.png.rawValue)\(configuration.pageImages ? "" : ", page_images: false")); \
                    galley thumbs keeps page images and draws none, so give it the settings of the run that made them \
                    (--dpi, --format, --png, pipeline.yml), or use galley run to draw them again
                    """)
            }
        }
        try configuration.checkFontFolders()
        let engine = try MuPDFEngine()  // decodes articles' pictures
        let slots = PageSlots(capacity: configuration.maxPagesInFlight)
        let outputsPerPage = OutputVariant.all(configuration).count
        // The sheet written while the run goes, told of each document finished before the caller is.
        let progressSheet = Mutex<ProgressSheet?>(nil)
        let recorder = RunRecorder(documents: documents, outputsPerPage: outputsPerPage, slots: slots,
                                   onEvent: { event in
                                       if case .documentFinished = event { progressSheet.withLock { $0 }?.documentFinished() }
                                       onEvent(event)
                                   },
                                   onFinished: { index, entry in runCatalog.finish(index, kind: documents[index].kind, entry: entry) })
        for (index, change) in changedSincePlanned.sorted(by: { $0.key < $1.key }) {
            logger.warning("\(documents[index].relativePath): \(change)")
            recorder.warn(index, change)
        }
        let settings = Manifest.Settings(
            dpi: configuration.dpi, pageImages: configuration.pageImages, thumbnails: configuration.thumbnailBoxes, png: configuration.png.rawValue,
            format: configuration.format.rawValue, thumbnailFormat: (configuration.thumbnailFormat ?? configuration.format).rawValue,
            quality: configuration.outputFormats.first(where: \.isLossy).map { configuration.quality ?? ImageEncoding.defaultQuality($0) },
            pages: configuration.pageSelection?.description, maxPages: configuration.maxPages)
        if let interval = options.progressSheetInterval {
            progressSheet.withLock {
                $0 = ProgressSheet(interval: interval, started: started, store: store, settings: settings, galleyVersion: Self.version,
                                   finishedDocuments: { recorder.finishedDocuments() })
            }
        }
        let fonts = LazyFonts(configuration: configuration)
        // Without page images each page is drawn once, at the largest thumbnail box, in its lane.
        // Not in `galley thumbs` with page images configured: its thumbnails are reduced from the
        // page drawn at their dpi as in `galley run`, whose pages are recorded, and must be the
        // same bytes (their fingerprints are).
        let opener = DocumentOpener(configuration: configuration, engine: engine, fonts: fonts,
                                    documentFiles: DocumentFiles(configuration: configuration, store: store, scanned: scanned),
                                    drawsOnce: !configuration.pageImages)
        let stages = Stages(configuration: configuration, documents: documents, opener: opener,
                            store: store, slots: slots, recorder: recorder, catalog: runCatalog, drawImages: !options.thumbnailsOnly,
                            cancellation: cancellation, logger: logger)
        logger.info("scanned \(documents.count) document(s) from \(configuration.inputs.joined(separator: ", "))")
        // Documents open when a process died go last, one at a time with nothing else in
        // flight, so that another death is counted against the culprit alone and the innocent
        // neighbours of the first death are cleared.
        let suspects = documents.indices.filter { runCatalog.isSuspect(documents[$0]) }
        cancellation.whileRegistered(onCancel: { runCatalog.interrupt() }) {
            stages.process(documents.indices.filter { !suspects.contains($0) })
            for suspect in suspects where !cancellation.isCancelled {
                if !runCatalog.isQuarantined(documents[suspect]) {
                    recorder.warn(suspect, "Galley stopped (its process died) while this document was open in an earlier run, perhaps because of another document open with it; it was processed again on its own")
                }
                stages.process([suspect])
            }
        }
        let duration = Date().timeIntervalSince(started)
        // Said once for the run as well as on each article, so a log shows it without a
        // manifest.
        let fontWarnings = fonts.substitutionWarnings(configuration.layouts)
        for warning in fontWarnings { logger.warning("\(warning)") }
        warnings += fontWarnings
        progressSheet.withLock { $0 }?.finish(interrupted: cancellation.isCancelled)
        if cancellation.isCancelled {
            return RunSummary(outcome: .interrupted, manifest: nil, outputFolder: store.root, duration: duration, warnings: warnings,
                              inboxMoves: inboxMoves)
        }

        let manifestDocuments = recorder.manifestDocuments()
        let stale = store.removeStaleOutputs(of: manifestDocuments, configuration: configuration, keepingPageImages: options.thumbnailsOnly)
        let keep = Set(manifestDocuments.flatMap(\.outputPaths))
        let (removed, vanished) = runCatalog.removeVanished(scanned: Set(documents.map(\.url.path)), keeping: keep)
        let cache = runCatalog.closeCache(prune: options.pruneCache)
        runCatalog.reportFailures()
        let failed = manifestDocuments.filter { $0.status == .failed }.count
        let unchanged = manifestDocuments.filter { $0.status == .unchanged }.count
        let manifest = Manifest(
            settings: settings,
            totals: .init(documents: manifestDocuments.count, ok: manifestDocuments.count - failed - unchanged, failed: failed,
                          unchanged: unchanged, pages: manifestDocuments.reduce(0) { $0 + $1.pages.count }),
            documents: manifestDocuments,
            shard: configuration.shard.map { shard in
                configuration.plannedShard.map { planned in
                    .init(index: shard.index, count: shard.count, inputs: planned.plan.inputs, plan: planned.planHash,
                          roots: planned.roots, planRoots: planned.plan.roots, library: planned.plan.library?.count)
                } ?? .init(index: shard.index, count: shard.count, inputs: configuration.inputs)
            },
            run: .init(galleyVersion: Self.version, mupdfVersion: MuPDFEngine.version,
                       startedAt: ISO8601DateFormatter().string(from: started),
                       durationSeconds: (duration * 1000).rounded() / 1000,
                       workers: .init(open: configuration.workers.open, render: configuration.workers.render,
                                      thumbnails: configuration.workers.thumbnails, encode: configuration.workers.encode),
                       maxPagesInFlight: configuration.maxPagesInFlight,
                       inputsFolder: FilePaths.relativePath(of: (configuration.inputBaseDirectory ?? configuration.baseDirectory).path,
                                                            from: store.root.path)))
        // A manifest that cannot be written (a full disk) does not hide the documents' outcomes:
        // the summary carries them and says so, and the run counts as failed.
        var manifestError: String?
        var diff: DiffReport?, diffError: String?, baselineNote: String?
        do {
            try store.write(to: "manifest.json") { sink in try manifest.write(to: sink.write) }
            if let baseline = options.baseline {
                // The last stage: this run against the baseline. Pages with the hashes of the
                // baseline's are not read, so unchanged documents cost nothing here.
                do {
                    // A real folder inside the output folder, never what a link there leads to.
                    _ = try store.confined.openFolder(RunDiff.defaultFolder, create: true).map(close)
                    diff = try RunDiff.diff(base: baseline, new: RunOutputs(folder: store.root, manifest: manifest),
                                            output: store.root.appendingPathComponent(RunDiff.defaultFolder, isDirectory: true),
                                            options: options.diffOptions, labels: (baseline.folder.path, store.root.path))
                } catch {
                    diffError = "the diff against \(baseline.folder.path) could not be made: \(error)"
                    logger.error("\(diffError ?? "")")
                }
            } else if let missing = options.missingBaseline {
                baselineNote = RunDiff.missingBaselineNote(missing)
                do {
                    try RunDiff.writeMissingBaselineNote(baselineNote ?? "", in: store)
                } catch {
                    diffError = "the note on the missing baseline could not be written: \(error)"
                }
            }
            let sources = SourceFiles(documents)
            try sources.write(to: store)
            let links = sources.links(from: store.root)
            try store.write(to: "index.html") { sink in
                ContactSheet.write(manifest, baseline: diff.map(ContactSheet.Baseline.init), sources: links) { sink.write($0) }
            }
        } catch let error as OutputError {
            manifestError = error.description
        } catch {
            manifestError = "\(store.root.appendingPathComponent("manifest.json").path): cannot encode: \(error)"
        }
        if let manifestError { logger.error("\(manifestError)") }
        let counts = recorder.outputCounts
        return RunSummary(outcome: failed > 0 || manifestError != nil || diffError != nil ? .someFailed : .succeeded, manifest: manifest,
                          outputFolder: store.root, duration: duration, warnings: warnings,
                          drawnOutputs: counts.drawn, reusedOutputs: counts.reused, removedDocuments: removed, removals: stale + vanished, manifestError: manifestError,
                          cacheEvicted: cache.evicted, cachePruned: cache.pruned, inboxMoves: inboxMoves, skipped: skipped,
                          sources: Dictionary(documents.map { ($0.name, $0.url) }, uniquingKeysWith: { first, _ in first }),
                          diff: diff, diffError: diffError, baselineNote: baselineNote)
    }

    /// A planned shard's files checked before anything is drawn: one with the size and
    /// modification time it was planned with is taken to have the plan's hash (not read);
    /// another is hashed, and when its content is not the planned one it is drawn as it is now
    /// and flagged. Returns the flags, by document index.
    private func verify(_ planned: PlannedShard, _ documents: [SourceDocument], _ catalog: RunCatalog) -> [Int: String] {
        var changed: [Int: String] = [:]
        for (index, (document, entry)) in zip(documents, planned.entries).enumerated() where document.refusal == nil {
            // Missing or unreadable: the open stage says so.
            guard let stamp = FileStamp(path: document.url.path) else { continue }
            if stamp.size == entry.size, stamp.mtime == entry.mtime, let hash = entry.sha256 {
                catalog.trust(document, hash: hash)
                continue
            }
            guard let hash = try? ContentHash.sha256(file: document.url).hash else { continue }
            catalog.trust(document, hash: hash)
            if hash != entry.sha256 {
                changed[index] = "changed since the plan was made (\(entry.size) bytes then, \(stamp.size) now; other content): drawn as it is now"
            }
        }
        return changed
    }
}
