import Foundation
import GRDB
import GalleyBase

/// Encoded thumbnails by key: a memory store in front of a disk store, each with its own
/// limit, as an image cache is (the key carries every setting that changes the bytes, so a
/// hit is always the right picture).
///
/// The disk store is a folder of files named by a hash of the key, indexed in the catalog with
/// their size, their source and when they were last used; `evict()` removes the least recently
/// used files until the folder fits `diskBudget`. The memory store keeps the most recently
/// used entries up to `memoryBudget` bytes.
///
/// Sendable: the memory store is behind a mutex; the disk store is files written atomically
/// plus catalog rows (the catalog is Sendable).
public final class ThumbnailCache: Sendable {
    /// The disk store's folder.
    public let folder: URL
    /// Bytes the disk store may hold after `evict()`.
    public let diskBudget: Int
    /// Bytes the memory store may hold.
    public let memoryBudget: Int
    /// Where files are written before they are renamed into the store (cleared by the caller
    /// after a killed run).
    public let temporaryFolder: URL
    /// The folder holding `folder`: entries are reached from it through real folders only, so a
    /// link planted as the store's folder or an entry is never read, written or deleted through.
    private let parent: ConfinedFolder
    private let catalog: Catalog
    private let memory: Mutex<MemoryStore>
    /// Keys read from disk since the last `flush()`, whose use time is written in one go.
    private let used = Mutex<[String: Double]>([:])
    private let counters = Mutex(Statistics())

    /// How the cache answered.
    public struct Statistics: Sendable, Equatable {
        public var memoryHits = 0
        public var diskHits = 0
        public var misses = 0
    }

    /// - Parameters:
    ///   - folder: the disk store's folder (made on first store).
    ///   - diskBudget: bytes the disk store may hold after eviction.
    ///   - memoryBudget: bytes the memory store may hold.
    ///   - temporaryFolder: a folder on the same file system for writing before the rename;
    ///     the store's own folder when nil.
    public init(folder: URL, catalog: Catalog, diskBudget: Int, memoryBudget: Int = 32 << 20, temporaryFolder: URL? = nil) {
        self.folder = folder
        parent = ConfinedFolder(root: folder.deletingLastPathComponent().path)
        self.temporaryFolder = temporaryFolder ?? folder
        self.catalog = catalog
        self.diskBudget = diskBudget
        self.memoryBudget = memoryBudget
        self.memory = Mutex(MemoryStore())
    }

    /// How the cache has answered so far.
    public var statistics: Statistics { counters.withLock { $0 } }

    /// The bytes stored under `key`, from memory or else from disk, or nil.
    public func bytes(forKey key: String) -> [UInt8]? {
        if let bytes = memory.withLock({ $0.get(key) }) {
            counters.withLock { $0.memoryHits += 1 }
            return bytes
        }
        guard let bytes = parent.read(entry(forKey: key)) else {
            counters.withLock { $0.misses += 1 }
            return nil
        }
        memory.withLock { $0.put(key, bytes, budget: memoryBudget) }
        used.withLock { $0[key] = Date().timeIntervalSince1970 }
        counters.withLock { $0.diskHits += 1 }
        return bytes
    }

    /// Stores `bytes` under `key`, in memory and on disk; `sourcePath` is the file they were
    /// made from, for `prune`. A file that already holds exactly these bytes is left as it is
    /// (a page drawn again, as `--force` does, encodes to the same bytes): replacing it would
    /// free one inode and allocate another for nothing, and on ext4 without a journal every
    /// allocation then steps over the inodes freed in the last minutes, which made a forced
    /// thumbnail-only rerun of 480 pages take 1.3 s longer.
    ///
    /// `written`: the output file that holds these bytes (a folder and a name in it), which the
    /// entry becomes a second name of (a hard link: one file written a thumbnail, not two;
    /// outputs are replaced by renaming, never rewritten in place, so the entry keeps its bytes
    /// when the output changes or goes); the bytes are written when that cannot be done.
    public func store(_ bytes: [UInt8], forKey key: String, sourcePath: String,
                      written: (folder: ConfinedFolder, path: String)? = nil) throws(CatalogError) {
        memory.withLock { $0.put(key, bytes, budget: memoryBudget) }
        let name = entry(forKey: key)
        if parent.read(name) != bytes {
            let temporary = temporaryFolder.appendingPathComponent("cache-\(UUID().uuidString).tmp")
            // Written (or linked) and renamed into place like an output; the folders are made
            // when the first write finds them missing.
            do throws(OutputError) {
                if let written, written.folder.link(written.path, to: temporary.path) {
                    do {
                        try parent.place(temporary.path, at: name)
                    } catch {
                        unlink(temporary.path)
                        throw error
                    }
                } else {
                    try AtomicFile.write(bytes, to: name, in: parent, through: temporary.path)
                }
            } catch {
                throw CatalogError(path: parent.path(name), message: "cannot write a cached thumbnail: \(error.message)")
            }
        }
        let entry = CacheEntry(key: key, sourcePath: sourcePath, bytes: bytes.count, lastUsed: Date().timeIntervalSince1970)
        try catalog.write { db in try entry.insert(db, onConflict: .replace) }
    }

    /// Writes the use times of entries read from disk.
    public func flush() throws(CatalogError) {
        let times = used.withLock { used in
            defer { used.removeAll() }
            return used
        }
        guard !times.isEmpty else { return }
        try catalog.write { db in
            for (key, time) in times {
                try db.execute(sql: "UPDATE thumbnailCache SET lastUsed = ? WHERE key = ?", arguments: [time, key])
            }
        }
    }

    /// Bytes the disk store holds.
    public func diskBytes() throws(CatalogError) -> Int {
        try catalog.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(bytes), 0) FROM thumbnailCache") ?? 0 }
    }

    /// Removes least recently used entries until the disk store fits its budget; returns how
    /// many entries went.
    @discardableResult
    public func evict() throws(CatalogError) -> Int {
        try flush()
        var total = try diskBytes()
        guard total > diskBudget else { return 0 }
        let entries = try catalog.read { db in try CacheEntry.order(Column("lastUsed"), Column("key")).fetchAll(db) }
        var doomed: [CacheEntry] = []
        for entry in entries where total > diskBudget {
            doomed.append(entry)
            total -= entry.bytes
        }
        try remove(doomed)
        return doomed.count
    }

    /// Removes the entries made from sources that `exists` says are gone; returns how many.
    @discardableResult
    public func prune(keepingSourcesWhere exists: (String) -> Bool) throws(CatalogError) -> Int {
        let entries = try catalog.read { db in try CacheEntry.fetchAll(db) }
        var existence: [String: Bool] = [:]
        let doomed = entries.filter { entry in
            if let known = existence[entry.sourcePath] { return !known }
            let present = exists(entry.sourcePath)
            existence[entry.sourcePath] = present
            return !present
        }
        try remove(doomed)
        return doomed.count
    }

    private func remove(_ entries: [CacheEntry]) throws(CatalogError) {
        guard !entries.isEmpty else { return }
        let keys = entries.map(\.key)
        memory.withLock { store in keys.forEach { store.remove($0) } }
        try catalog.write { db in _ = try CacheEntry.filter(keys: keys).deleteAll(db) }
        for key in keys { parent.removeFile(entry(forKey: key)) }
    }

    /// The disk file of a key: the key's SHA-256, so any key is a safe file name.
    func file(forKey key: String) -> URL {
        folder.appendingPathComponent(ContentHash.sha256(Array(key.utf8)) + ".png")
    }

    /// `file(forKey:)` relative to `parent`.
    /// Makes `path` (absolute, on the same file system, not there yet) a second name of the
    /// entry stored under `key`; false when there is none on disk or it cannot be linked.
    public func linkEntry(forKey key: String, to path: String) -> Bool {
        parent.link(entry(forKey: key), to: path)
    }

    private func entry(forKey key: String) -> String {
        folder.lastPathComponent + "/" + ContentHash.sha256(Array(key.utf8)) + ".png"
    }
}

/// A row of the disk store's index.
struct CacheEntry: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "thumbnailCache"
    var key: String
    var sourcePath: String
    var bytes: Int
    var lastUsed: Double
}

/// Least-recently-used entries within a byte budget.
struct MemoryStore {
    private var entries: [String: (bytes: [UInt8], tick: Int)] = [:]
    private var tick = 0
    private var total = 0

    mutating func get(_ key: String) -> [UInt8]? {
        guard let entry = entries[key] else { return nil }
        tick += 1
        entries[key] = (entry.bytes, tick)
        return entry.bytes
    }

    mutating func put(_ key: String, _ bytes: [UInt8], budget: Int) {
        guard bytes.count <= budget else { return }
        remove(key)
        tick += 1
        entries[key] = (bytes, tick)
        total += bytes.count
        while total > budget, let oldest = entries.min(by: { $0.value.tick < $1.value.tick })?.key {
            remove(oldest)
        }
    }

    mutating func remove(_ key: String) {
        if let old = entries.removeValue(forKey: key) { total -= old.bytes.count }
    }
}
