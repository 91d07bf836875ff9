import Foundation
import GalleyBase
import GalleyCatalog
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
final class RunCatalog: Sendable {
    let catalog: Catalog
    private let known: [String: DocumentRecord]
    /// Content hashes read by `contentHash(of:)`, by path.
    private let hashed = Mutex<[String: String]>([:])
    private let fingerprints: Fingerprints
    /// Output fingerprints by layout name ("" for PDFs) and variant.
    private let outputFingerprints: [String: [OutputVariant: String]]
    private let documentFingerprints: [SourceDocument.Kind: String]
    private let force: Bool
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
        /// What the document's pixels depend on besides the settings: its content, and for an
        /// article also its folder, against which its pictures are found (`outputIdentity`).
        var identity: String
        var sourcePath: String
        var reusable: [OutputKey: OutputRecord]
    }

    struct OutputKey: Hashable, Sendable {
        var layout: String
        var page: Int
        var variant: String
    }

    init(catalog: Catalog, configuration: Configuration, store: OutputStore, force: Bool, logger: Logger) throws(CatalogError) {
        self.catalog = catalog
        self.known = try catalog.documents()
        self.fingerprints = Fingerprints(configuration: configuration)
        self.force = force
        self.store = store
        self.encoder = configuration.imageEncoder
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
        if let stamp = FileStamp(path: path), let row = known[path], row.size == stamp.size, row.mtime == stamp.mtime {
            return row.contentHash
        }
        guard let hash = try? ContentHash.sha256(file: document.url).hash else { return nil }
        hashed.withLock { $0[path] = hash }
        return hash
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
        entry.status = .unchanged
        return .unchanged(entry)
    }

    private func outputsExist(_ page: Manifest.Page) -> Bool {
        let paths = page.outputPaths
        return paths.allSatisfy { access(store.root.appendingPathComponent($0).path, F_OK) == 0 }
    }

    /// What a document's outputs depend on besides the settings. For a PDF, its content. For
    /// an article, its content and its folder: its pictures are found relative to it, so the
    /// same markup in another folder may show other pictures.
    static func outputIdentity(_ document: SourceDocument, hash: String) -> String {
        document.kind == .markup ? "\(hash)@\(folder(of: document.url.path))" : hash
    }

    private static func folder(of path: String) -> String {
        (path as NSString).deletingLastPathComponent
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
                $0[index] = DocumentWork(id: id, identity: Self.outputIdentity(document, hash: hash), sourcePath: document.url.path,
                                         reusable: reusable)
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
        let source = store.root.appendingPathComponent(candidate.path).path
        if candidate.path == path {
            var info = stat()
            return stat(source, &info) == 0 && Int(info.st_size) == candidate.bytes ? written : nil
        }
        guard let data = FileManager.default.contents(atPath: source), ContentHash.sha256([UInt8](data)) == candidate.sha256 else { return nil }
        do {
            try store.write([UInt8](data), to: path)
        } catch {
            return nil
        }
        return written
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
            try store.write(bytes, to: path)
        } catch {
            return nil
        }
        return WrittenOutput(path: path, width: size.width, height: size.height, sha256: ContentHash.sha256(bytes), bytes: bytes.count)
    }

    /// A thumbnail just drawn goes into the cache.
    func cache(_ index: Int, page facts: PageFacts, variant: OutputVariant, bytes: [UInt8]) {
        guard let thumbnails, let (key, source) = cacheKey(index, facts, variant) else { return }
        note { try thumbnails.store(bytes, forKey: key, sourcePath: source) }
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

    /// A document finished: its outcome and manifest entry, for the next run.
    func finish(_ index: Int, kind: SourceDocument.Kind, entry: Manifest.Document) {
        guard let id = work.withLock({ $0.removeValue(forKey: index)?.id }) else { return }
        var keep = Set<String>()
        for page in entry.pages { keep.formUnion(page.outputPaths) }
        let ok = entry.status == .ok
        // A thumbnails-only run may leave page images out: such a document is not finished
        // for the next full run, which then draws just those.
        let complete = !fingerprints.configuration.pageImages || entry.pages.allSatisfy { $0.image != nil }
        note {
            try catalog.finish(documentID: id, status: ok ? .ok : .failed, pageCount: entry.pageCount,
                               errorCode: entry.error?.code.rawValue, errorMessage: entry.error?.message,
                               settings: ok && complete ? documentFingerprints[kind] : nil,
                               summary: ok ? Data(try entry.encodedEntry()) : nil, keeping: keep)
        }
    }

    /// Documents the scan no longer finds: their outputs (those no current document uses) and
    /// rows are removed. Returns how many documents went.
    func removeVanished(scanned: Set<String>, keeping: Set<String>) -> Int {
        let gone = known.values.filter { !scanned.contains($0.sourcePath) }.compactMap(\.id)
        guard !gone.isEmpty else { return 0 }
        note {
            let fileManager = FileManager.default
            var folders = Set<String>()
            for output in try catalog.outputs(documentIDs: gone) where !keeping.contains(output.path) {
                try? fileManager.removeItem(at: store.root.appendingPathComponent(output.path))
                folders.insert((output.path as NSString).deletingLastPathComponent)
            }
            // Empty folders left behind go too, deepest first, never the output folder itself.
            var parents = Set<String>()
            for folder in folders {
                var current = folder
                while !current.isEmpty {
                    parents.insert(current)
                    current = (current as NSString).deletingLastPathComponent
                }
            }
            for folder in parents.sorted(by: { $0.count > $1.count }) {
                let url = store.root.appendingPathComponent(folder)
                if (try? fileManager.contentsOfDirectory(atPath: url.path))?.isEmpty == true { try? fileManager.removeItem(at: url) }
            }
            try catalog.remove(documentIDs: gone)
        }
        return gone.count
    }

    private func note(_ body: () throws -> Void) {
        do {
            try body()
        } catch {
            logger.warning("catalog: \(error); this run goes on, the next may redo more work")
        }
    }
}

extension Manifest.Document {
    /// One document's manifest entry as JSON, as the catalog keeps it.
    func encodedEntry() throws -> [UInt8] {
        Array(try Manifest.encoder(pretty: false).encode(self))
    }

    /// Reads one document's entry written by `encodedEntry()`.
    static func decodeEntry(_ data: Data) throws -> Manifest.Document {
        try Manifest.decoder().decode(Manifest.Document.self, from: data)
    }
}
