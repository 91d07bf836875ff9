import Foundation
import GalleyBase
import GalleyCatalog
import GalleyManifest
import GalleyRaster
import GalleyText
import Logging

/// A source file's size and modification time: what tells, without reading the file, that it
/// has not changed since the catalog saw it.
struct FileStamp: Equatable, Sendable {
    var size: Int64
    /// Nanoseconds since 1970.
    var mtime: Int64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}

/// The catalog as one run uses it: which documents need nothing done, which finished outputs
/// can be kept or copied instead of drawn again, and recording what lands as it lands.
///
/// A catalog that fails mid-run costs incrementality, never outputs: the failure is logged and
/// the run goes on as a full one.
///
/// It also keeps one file from stopping every later run: each document is marked in progress
/// before it is opened and cleared when its outcome is recorded; marks a dead process left
/// count against their content, which is then processed on its own (`isSuspect`), and after a
/// second death not at all (`quarantine`).
final class RunCatalog: Sendable {
    let catalog: Catalog
    private let known: [String: DocumentRecord]
    /// This run, in its in-progress marks.
    private let runID = UUID().uuidString
    /// Deaths counted against each content hash (`Catalog.countCrashes`).
    private let crashes: [String: Int]
    /// Set once the run is cancelled: no mark is written after that, and those written are
    /// cleared, so an interrupted run is never taken for a crash.
    private let interrupted = Mutex(false)
    /// Content hashes read by `contentHash(of:)`, by path.
    private let hashed = Mutex<[String: String]>([:])
    private let fingerprints: Fingerprints
    /// Output fingerprints by layout name ("" for PDFs) and variant.
    private let outputFingerprints: [String: [OutputVariant: String]]
    private let documentFingerprints: [SourceDocument.Kind: String]
    private let force: Bool
    /// When the run this one continues after a crash started (`RunOptions`).
    private let continuesRunStartedAt: Double?
    private let store: OutputStore
    /// Reads back the pixel size of cached thumbnails.
    private let encoder: any ImageEncoder
    private let logger: Logger
    private let work = Mutex<[Int: DocumentWork]>([:])
    /// Thumbnails by content and settings, in memory and on disk (nil when turned off).
    let thumbnails: ThumbnailCache?

    /// What a run does with a document in the catalog.
    enum Decision {
        /// Nothing to do: its manifest entry from the run that made it, marked unchanged.
        case unchanged(Manifest.Document)
        /// Open it; the content hash is given when it was computed while deciding.
        case open(hash: String?)
    }

    /// A document being worked on: its catalog row and the outputs that may stand in for its own.
    struct DocumentWork: Sendable {
        var id: Int64
        var contentHash: String
        /// Whether this run marked it in progress (`markInProgress`).
        var marked = false
        /// What the document's pixels depend on besides the settings: its content, and for an
        /// article also its folder, against which its pictures are found (`outputIdentity`).
        var identity: String
        var sourcePath: String
        var reusable: [OutputKey: OutputRecord]
        /// Wall seconds of the work done for it so far (`addDrawTime`).
        var seconds = 0.0
        /// Whether a finished output stood in for one of its own (kept, copied or cached): its
        /// time is then not what drawing it costs, and the earlier one is kept (as it is after
        /// a thumbnails-only run, which draws no page image).
        var reused = false
    }

    struct OutputKey: Hashable, Sendable {
        var layout: String
        var page: Int
        var variant: String
    }

    /// Reads the catalog for a run. Marks left in progress are counted as crashes, so the
    /// caller must hold the output folder's lock (then no other process can be working).
    init(catalog: Catalog, configuration: Configuration, store: OutputStore, force: Bool, continuesRunStartedAt: Double? = nil,
         logger: Logger) throws(CatalogError) {
        self.catalog = catalog
        self.continuesRunStartedAt = continuesRunStartedAt
        let (found, crashes) = try catalog.countCrashes()
        self.crashes = crashes
        for mark in found {
            let count = crashes[mark.contentHash] ?? 1
            let started = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: mark.startedAt))
            logger.warning("""
                an earlier run stopped (its process died) while processing \(mark.sourcePath), opened at \(started): \
                \(count < 2 ? "it is processed last, on its own" : "it is skipped as crashed until its content changes (--force tries it again)")
                """)
        }
        self.known = try catalog.documents()
        self.fingerprints = Fingerprints(configuration: configuration)
        self.force = force
        self.store = store
        self.encoder = configuration.thumbnailEncoder
        self.logger = logger
        var outputs: [String: [OutputVariant: String]] = [:]
        let layouts: [ArticleLayout?] = [nil] + configuration.layouts.map { $0 }
        for layout in layouts {
            for variant in fingerprints.variants() {
                outputs[layout?.name ?? "", default: [:]][variant] = fingerprints.output(variant, layout: layout)
            }
        }
        outputFingerprints = outputs
        thumbnails = configuration.thumbnailCacheMiB == 0 ? nil
            : ThumbnailCache(folder: store.stateFolder.appendingPathComponent("thumbnail-cache"), catalog: catalog,
                             diskBudget: configuration.thumbnailCacheMiB << 20, temporaryFolder: store.temporaryFolder)
        documentFingerprints = [.pdf: fingerprints.document(.pdf), .markup: fingerprints.document(.markup)]
    }

    // MARK: deciding

    /// The content hash of a document before the open stage (to pick its shard): the
    /// catalog's when size and modification time are unchanged, else read and remembered, so
    /// `decide` and the open stage do not read the file for it again.
    func contentHash(of document: SourceDocument) -> String? {
        let path = document.url.path
        if let trusted = hashed.withLock({ $0[path] }) { return trusted }
        if let stamp = FileStamp(path: path), let row = known[path], row.size == stamp.size, row.mtime == stamp.mtime {
            return row.contentHash
        }
        guard let hash = try? ContentHash.sha256(file: document.url).hash else { return nil }
        hashed.withLock { $0[path] = hash }
        return hash
    }

    /// A content hash known without reading the file (a plan's, for a file with the size and
    /// modification time it was planned with): used as if this run had read it.
    func trust(_ document: SourceDocument, hash: String) {
        hashed.withLock { $0[document.url.path] = hash }
    }

    /// Whether a document needs opening. Unchanged means: finished with the same settings,
    /// under the same name, every output still on disk, and either the same size and
    /// modification time (the file is not read) or the same content hash.
    func decide(_ document: SourceDocument, stamp: FileStamp?) -> Decision {
        let earlier = hashed.withLock { $0[document.url.path] }
        guard !force, let stamp, let row = known[document.url.path], row.status == .ok,
              row.settings == documentFingerprints[document.kind], let summary = row.summary,
              var entry = try? Manifest.Document.decodeEntry(summary),
              entry.name == document.name, entry.input == document.input, entry.source == document.relativePath,
              entry.pages.allSatisfy(outputsExist) else {
            return .open(hash: earlier)
        }
        if row.size != stamp.size { return .open(hash: earlier) }
        if row.mtime != stamp.mtime {
            guard let hash = earlier ?? (try? ContentHash.sha256(file: document.url).hash) else { return .open(hash: nil) }
            guard hash == row.contentHash, let id = row.id else { return .open(hash: hash) }
            note { try catalog.touch(documentID: id, size: stamp.size, mtime: stamp.mtime) }
        }
        // Finished by the attempt of this run that died: done in this run, not unchanged.
        let finishedInThisRun = continuesRunStartedAt.map { started in (row.finishedAt ?? 0) >= started } ?? false
        entry.status = finishedInThisRun ? .ok : .unchanged
        return .unchanged(entry)
    }

    /// Whether a process died while this document's content was open in an earlier run: it
    /// is then processed after the others, on its own, so that a death while it is open
    /// counts against it alone.
    func isSuspect(_ document: SourceDocument) -> Bool {
        guard !crashes.isEmpty, let hash = contentHash(of: document) else { return false }
        return crashes[hash, default: 0] > 0
    }

    /// Whether `document`'s content is skipped as crashed (`quarantine`).
    func isQuarantined(_ document: SourceDocument) -> Bool {
        contentHash(of: document).flatMap(quarantine(contentHash:)) != nil
    }

    /// The failure of content that was open when a process died in two earlier runs: it is
    /// not opened again until it changes (or with `--force`).
    func quarantine(contentHash: String) -> Failure? {
        guard !force || continuesRunStartedAt != nil, let count = crashes[contentHash], count >= 2 else { return nil }
        return Failure(code: .crashed, message: "Galley stopped while processing this document in \(count) earlier runs; "
                       + "it is skipped until its content changes (--force tries it again)")
    }

    /// Marks a document in progress, on disk, before it is opened. False when the run was
    /// interrupted: the document is then not opened.
    func markInProgress(_ index: Int) -> Bool {
        interrupted.withLock { interrupted in
            guard !interrupted else { return false }
            guard let work = work.withLock({ $0[index] }) else { return true }
            note { try catalog.markInProgress(sourcePath: work.sourcePath, contentHash: work.contentHash, runID: runID) }
            self.work.withLock { $0[index]?.marked = true }
            return true
        }
    }

    /// The run was interrupted (Ctrl-C is not a crash): its marks go now, before a second
    /// Ctrl-C can end the process, and no more are written.
    func interrupt() {
        interrupted.withLock { interrupted in
            interrupted = true
            note { try catalog.clearInProgress(runID: runID) }
        }
    }

    /// The run is over, however it ended: marks of documents it did not finish go.
    func endRun() {
        note { try catalog.clearInProgress(runID: runID) }
    }

    private func outputsExist(_ page: Manifest.Page) -> Bool {
        let paths = page.outputPaths
        return paths.allSatisfy { store.confined.fileSize($0) != nil }
    }

    /// What a document's outputs depend on besides the settings. For a PDF, its content. For
    /// an article, its content and its folder: its pictures are found relative to it, so the
    /// same markup in another folder may show other pictures.
    static func outputIdentity(_ document: SourceDocument, hash: String) -> String {
        document.kind == .markup ? "\(hash)@\(folder(of: document.url.path))" : hash
    }

    private static func folder(of path: String) -> String {
        PathText.parent(of: path)
    }

    /// Work on a document starts: its row (new content forgets old outputs) and what can be
    /// reused: its own outputs first, then those of files with the same identity
    /// (`outputIdentity`: for an article, only files in its own folder).
    func begin(_ index: Int, _ document: SourceDocument, stamp: FileStamp?, hash: String, bytes: Int) {
        var record = DocumentRecord(sourcePath: document.url.path, contentHash: hash, size: stamp?.size ?? Int64(bytes),
                                    mtime: stamp?.mtime ?? 0, kind: document.kind.rawValue)
        note {
            record = try catalog.begin(record)
            guard let id = record.id else { return }
            var reusable: [OutputKey: OutputRecord] = [:]
            if !force {
                let folder = Self.folder(of: document.url.path)
                for (output, source) in try catalog.reusableOutputs(documentID: id, contentHash: hash)
                where document.kind == .pdf || Self.folder(of: source) == folder {
                    let key = OutputKey(layout: output.layout, page: output.page, variant: output.variant)
                    if reusable[key] == nil { reusable[key] = output }
                }
            }
            work.withLock {
                $0[index] = DocumentWork(id: id, contentHash: hash, identity: Self.outputIdentity(document, hash: hash),
                                         sourcePath: document.url.path, reusable: reusable)
            }
        }
    }

    // MARK: reusing

    /// A finished output that can stand in for this one: the file already in place, or a
    /// copy of another document's (same content, same settings) after checking its bytes.
    func reuse(_ index: Int, page facts: PageFacts, variant: OutputVariant, path: String) -> WrittenOutput? {
        let layout = facts.layout?.name ?? ""
        let key = OutputKey(layout: layout, page: facts.number, variant: variant.catalogName)
        guard let candidate = work.withLock({ $0[index]?.reusable[key] }),
              candidate.fingerprint == outputFingerprints[layout]?[variant] else { return nil }
        let written = WrittenOutput(path: path, width: candidate.width, height: candidate.height,
                                    sha256: candidate.sha256, bytes: candidate.bytes)
        // Read through real folders only: a link in the output folder is no output of Galley's.
        if candidate.path == path { return store.confined.fileSize(path) == candidate.bytes ? reused(index, written) : nil }
        guard let data = store.confined.read(candidate.path), ContentHash.sha256(data) == candidate.sha256 else { return nil }
        do {
            try store.write(data, to: path)
        } catch {
            return nil
        }
        return reused(index, written)
    }

    /// Notes that an output of document `index` was not drawn, and returns it.
    private func reused(_ index: Int, _ output: WrittenOutput) -> WrittenOutput {
        work.withLock { $0[index]?.reused = true }
        return output
    }

    /// Work done for document `index` took `seconds` (of wall time, on one thread).
    func addDrawTime(_ index: Int, seconds: Double) {
        work.withLock { $0[index]?.seconds += seconds }
    }

    /// The thumbnail cache's key for an output: the document's identity (`outputIdentity`)
    /// and every setting of its bytes.
    private func cacheKey(_ index: Int, _ facts: PageFacts, _ variant: OutputVariant) -> (key: String, source: String)? {
        let layout = facts.layout?.name ?? ""
        guard case .thumbnail = variant, let work = work.withLock({ $0[index] }),
              let fingerprint = outputFingerprints[layout]?[variant] else { return nil }
        return ("\(work.identity)@\(layout)@\(facts.number)@\(fingerprint)", work.sourcePath)
    }

    /// A thumbnail from the cache (memory, then disk), written into place.
    func cachedThumbnail(_ index: Int, page facts: PageFacts, variant: OutputVariant, path: String) -> WrittenOutput? {
        guard !force, let thumbnails, let (key, _) = cacheKey(index, facts, variant),
              let bytes = thumbnails.bytes(forKey: key), let size = encoder.pixelSize(of: bytes) else { return nil }
        do {
            // The cached file itself, under a second name, when it can be; else its bytes.
            if try !store.place(to: path, linking: { thumbnails.linkEntry(forKey: key, to: $0) }) { try store.write(bytes, to: path) }
        } catch {
            return nil
        }
        return reused(index, WrittenOutput(path: path, width: size.width, height: size.height, sha256: ContentHash.sha256(bytes),
                                           bytes: bytes.count))
    }

    /// A thumbnail just drawn goes into the cache.
    /// `path`: the output just written with these bytes, which the cache entry becomes a
    /// second name of.
    func cache(_ index: Int, page facts: PageFacts, variant: OutputVariant, bytes: [UInt8], path: String) {
        guard let thumbnails, let (key, source) = cacheKey(index, facts, variant) else { return }
        note { try thumbnails.store(bytes, forKey: key, sourcePath: source, written: (store.confined, path)) }
    }

    /// The end of a run: the disk cache is brought within its budget, and with `prune`
    /// entries whose source file is gone are removed. Returns (evicted, pruned).
    func closeCache(prune: Bool) -> (evicted: Int, pruned: Int) {
        guard let thumbnails else { return (0, 0) }
        var result = (evicted: 0, pruned: 0)
        note {
            if prune { result.pruned = try thumbnails.prune { access($0, F_OK) == 0 } }
            result.evicted = try thumbnails.evict()
        }
        return result
    }

    // MARK: recording

    /// An output landed: recorded at once, so a killed run keeps it.
    func record(_ index: Int, page facts: PageFacts, variant: OutputVariant, output: WrittenOutput) {
        guard let id = work.withLock({ $0[index]?.id }) else { return }
        let layout = facts.layout?.name ?? ""
        guard let fingerprint = outputFingerprints[layout]?[variant] else { return }
        note {
            try catalog.record(OutputRecord(documentId: id, layout: layout, page: facts.number, variant: variant.catalogName,
                                            fingerprint: fingerprint, path: output.path, sha256: output.sha256,
                                            bytes: output.bytes, width: output.width, height: output.height))
        }
    }

    /// A document file written for a layout (`documents:`), so it goes with its document.
    func recordDocumentFile(_ index: Int, layout: ArticleLayout, file: Manifest.DocumentFile) {
        guard let id = work.withLock({ $0[index]?.id }) else { return }
        let fingerprint = fingerprints.documentFile(file.format, layout: layout)
        note {
            try catalog.record(OutputRecord(documentId: id, layout: layout.name, page: 0, variant: "document-\(file.format)",
                                            fingerprint: fingerprint, path: file.path, sha256: file.sha256,
                                            bytes: file.bytes, width: 0, height: 0))
        }
    }

    /// A document finished: its outcome and manifest entry, for the next run.
    func finish(_ index: Int, kind: SourceDocument.Kind, entry: Manifest.Document) {
        guard let work = work.withLock({ $0.removeValue(forKey: index) }) else { return }
        let id = work.id
        let keep = Set(entry.outputPaths)
        let ok = entry.status == .ok
        // A thumbnails-only run may leave page images out: such a document is not finished
        // for the next full run, which then draws just those.
        let complete = !fingerprints.configuration.pageImages || entry.pages.allSatisfy { $0.image != nil }
        note {
            try catalog.finish(documentID: id, status: ok ? .ok : .failed, pageCount: entry.pageCount,
                               errorCode: entry.error?.code.rawValue, errorMessage: entry.error?.message,
                               settings: ok && complete ? documentFingerprints[kind] : nil,
                               summary: ok ? Data(try entry.encodedEntry()) : nil, drawSeconds: work.reused || !complete ? nil : work.seconds,
                               keeping: keep)
        }
        guard work.marked else { return }
        // Opened and finished without the process dying: earlier deaths are forgotten, unless
        // the run was interrupted, when finishing may just mean giving up.
        let normally = !interrupted.withLock { $0 }
        note {
            try catalog.clearInProgress(sourcePath: work.sourcePath, runID: runID, forgettingCrashesOf: normally ? work.contentHash : nil)
        }
    }

    /// The scanned documents (source paths as the manifest shows them) with page images an
    /// earlier run made with settings other than this run's: a thumbnails-only run could not
    /// keep them as current, and draws none.
    func documentsWithPageImagesOfOtherSettings(_ documents: [SourceDocument]) -> [String] {
        let ids = Dictionary(documents.compactMap { document in known[document.url.path]?.id.map { ($0, document.relativePath) } },
                             uniquingKeysWith: { first, _ in first })
        guard !ids.isEmpty, let outputs = try? catalog.outputs(documentIDs: Array(ids.keys)) else { return [] }
        var found = Set<String>()
        for output in outputs where output.variant == OutputVariant.image.catalogName
            && outputFingerprints[output.layout]?[.image] != output.fingerprint {
            if let source = ids[output.documentId] { found.insert(source) }
        }
        return found.sorted()
    }

    /// Documents the scan no longer finds: their outputs (those no current document uses) and
    /// rows are removed. Returns how many documents went, and what was removed of each.
    func removeVanished(scanned: Set<String>, keeping: Set<String>) -> (documents: Int, removals: [Removal]) {
        let vanished = known.values.filter { !scanned.contains($0.sourcePath) }
        let gone = vanished.compactMap(\.id)
        guard !gone.isEmpty else { return (0, []) }
        var removed: [Int64: Int] = [:]
        note {
            var folders = Set<String>()
            for output in try catalog.outputs(documentIDs: gone) where !keeping.contains(output.path) {
                if store.confined.removeFile(output.path) { removed[output.documentId, default: 0] += 1 }
                folders.formUnion(PathText.folders(above: output.path))
            }
            // Empty folders left behind go too, deepest first, never the output folder itself.
            let parents = folders
            for folder in parents.sorted(by: { $0.count > $1.count }) { store.confined.removeEmptyFolder(folder) }
            try catalog.remove(documentIDs: gone)
        }
        let removals = vanished.sorted { $0.sourcePath < $1.sourcePath }.compactMap { record -> Removal? in
            guard let id = record.id, let count = removed[id] else { return nil }
            return Removal(source: record.sourcePath, what: "outputs", count: count, reason: "its source is gone")
        }
        return (gone.count, removals)
    }

    /// Catalog operations that failed in this run: the first few are logged, the rest counted
    /// (a full disk fails every write, and one line each would bury the summary).
    private let failures = Mutex(0)
    private static let failuresLogged = 3

    private func note(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            let count = failures.withLock { count in
                count += 1
                return count
            }
            if count <= Self.failuresLogged {
                logger.warning("catalog: \(error); this run goes on, the next may redo more work")
            }
        }
    }

    /// Logs how many catalog operations failed beyond those already logged.
    func reportFailures() {
        let count = failures.withLock { $0 }
        if count > Self.failuresLogged {
            logger.warning("catalog: \(count) operations failed in all (\(count - Self.failuresLogged) more not shown); the next run may redo more work")
        }
    }
}

extension Manifest.Document {
    /// Reads one document's entry written by `encodedEntry()`.
    static func decodeEntry(_ data: Data) throws -> Manifest.Document {
        try Manifest.decoder().decode(Manifest.Document.self, from: data)
    }
}
