import Foundation
import GRDB

/// What Galley knows about the documents it has processed and the files it made of them,
/// kept in SQLite (`<output>/.galley/catalog.sqlite`, WAL mode) so that a rerun does only the
/// work that changed and a killed run resumes.
///
/// The catalog knows nothing of the pipeline: a document is a source path with the facts that
/// tell whether it changed, and an output is a file made from one page of it, with the
/// fingerprint of every setting that changed those bytes. Callers decide what those mean.
///
/// Sendable: all state is in the database, reached through GRDB's `DatabasePool`, which is
/// Sendable and serializes writes (reads run concurrently against WAL snapshots).
public final class Catalog: Sendable {
    /// The database file.
    public let path: String
    private let pool: DatabasePool

    /// Opens (or creates) the catalog at `path` and brings its schema up to date.
    ///
    /// - Throws: `CatalogError` naming the file when it cannot be opened or migrated (a file
    ///   that is not a database, a schema from a newer Galley, an unwritable folder).
    public init(path: String) throws(CatalogError) {
        self.path = path
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // WAL (DatabasePool's mode) plus NORMAL sync: a committed row survives a killed
            // process; only a power loss may lose the last transactions, which a rerun redoes.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // A page cache of 512 KiB per connection (SQLite's default is 2 MB each): the
            // catalog is written a row at a time and read by index, and the default let peak
            // memory grow with the catalog (4.6 MB of cache after a 3,000-page document).
            try db.execute(sql: "PRAGMA cache_size = -512")
        }
        configuration.busyMode = .timeout(10)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch {
            throw CatalogError(path: path, error)
        }
    }

    /// The schema, one migration per change; never edit a migration that has shipped.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: documents and outputs") { db in
            try db.create(table: DocumentRecord.databaseTableName) { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("sourcePath", .text).notNull().unique()
                t.column("contentHash", .text).notNull().indexed()
                t.column("size", .integer).notNull()
                t.column("mtime", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("pageCount", .integer)
                t.column("status", .text).notNull()
                t.column("errorCode", .text)
                t.column("errorMessage", .text)
                t.column("settings", .text)
                t.column("summary", .blob)
            }
            try db.create(table: OutputRecord.databaseTableName) { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo(DocumentRecord.databaseTableName, onDelete: .cascade).notNull()
                t.column("layout", .text).notNull()
                t.column("page", .integer).notNull()
                t.column("variant", .text).notNull()
                t.column("fingerprint", .text).notNull()
                t.column("path", .text).notNull()
                t.column("sha256", .text).notNull()
                t.column("bytes", .integer).notNull()
                t.column("width", .integer).notNull()
                t.column("height", .integer).notNull()
                t.uniqueKey(["documentId", "layout", "page", "variant"])
            }
        }
        migrator.registerMigration("v2: thumbnail cache") { db in
            try db.create(table: CacheEntry.databaseTableName) { t in
                t.primaryKey("key", .text)
                t.column("sourcePath", .text).notNull().indexed()
                t.column("bytes", .integer).notNull()
                t.column("lastUsed", .double).notNull().indexed()
            }
        }
        migrator.registerMigration("v3: documents in progress and crashes") { db in
            try db.create(table: InProgressMark.databaseTableName) { t in
                t.column("sourcePath", .text).notNull()
                t.column("contentHash", .text).notNull()
                t.column("runID", .text).notNull()
                t.column("startedAt", .double).notNull()
                t.primaryKey(["sourcePath", "runID"])
            }
            try db.create(table: "crash") { t in
                t.primaryKey("contentHash", .text)
                t.column("count", .integer).notNull()
            }
        }
        migrator.registerMigration("v4: when documents finished") { db in
            try db.alter(table: DocumentRecord.databaseTableName) { t in t.add(column: "finishedAt", .double) }
        }
        // Rows of older catalogs get NULL: their documents' time is not known until drawn again.
        migrator.registerMigration("v5: how long documents took to draw") { db in
            try db.alter(table: DocumentRecord.databaseTableName) { t in t.add(column: "drawSeconds", .double) }
        }
        return migrator
    }

    /// The names of the migrations applied, oldest first.
    public func appliedMigrations() throws(CatalogError) -> [String] {
        try read { db in try Self.migrator.appliedMigrations(db) }
    }

    // MARK: Documents

    /// Every document, by source path.
    public func documents() throws(CatalogError) -> [String: DocumentRecord] {
        try read { db in
            Dictionary(try DocumentRecord.fetchAll(db).map { ($0.sourcePath, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Starts (or restarts) work on a document: inserts it, or updates the row with the same
    /// source path. When its content hash changed, the outputs recorded for the old content
    /// can no longer stand in for anything (their fingerprints are cleared) but stay listed,
    /// since their files are still on disk until `finish` or `remove`. The row's status
    /// becomes `pending` until `finish` is called; its drawing time (`drawSeconds`) stays the
    /// earlier one until `finish` records another.
    @discardableResult
    public func begin(_ document: DocumentRecord) throws(CatalogError) -> DocumentRecord {
        try write { db in
            var record = document
            record.status = .pending
            record.summary = nil
            if let existing = try DocumentRecord.filter(Column("sourcePath") == document.sourcePath).fetchOne(db) {
                record.id = existing.id
                record.drawSeconds = document.drawSeconds ?? existing.drawSeconds
                if existing.contentHash != document.contentHash {
                    try db.execute(sql: "UPDATE output SET fingerprint = '' WHERE documentId = ?", arguments: [existing.id])
                }
                try record.update(db)
            } else {
                record.id = nil
                try record.insert(db)
            }
            return record
        }
    }

    /// A document whose content is unchanged was seen with a new size or modification time.
    public func touch(documentID: Int64, size: Int64, mtime: Int64) throws(CatalogError) {
        try write { db in
            try db.execute(sql: "UPDATE document SET size = ?, mtime = ? WHERE id = ?", arguments: [size, mtime, documentID])
        }
    }

    /// A document is done: its outcome, the settings fingerprint it was made with and the
    /// caller's summary of it, and how long drawing it took (`drawSeconds`; nil keeps the
    /// time recorded before, for a document this run did not draw in full). When it succeeded, outputs whose path is not in `keeping`
    /// (pages it no longer has, boxes no longer made) are forgotten; a failed document keeps
    /// its list, as its files stay on disk, so that they go with it if it vanishes.
    public func finish(documentID: Int64, status: DocumentRecord.Status, pageCount: Int?, errorCode: String?, errorMessage: String?,
                       settings: String?, summary: Data?, drawSeconds: Double? = nil, keeping paths: Set<String>) throws(CatalogError) {
        try write { db in
            try db.execute(sql: """
                UPDATE document SET status = ?, pageCount = ?, errorCode = ?, errorMessage = ?, settings = ?, summary = ?,
                finishedAt = ?, drawSeconds = COALESCE(?, drawSeconds) WHERE id = ?
                """, arguments: [status.rawValue, pageCount, errorCode, errorMessage, settings, summary, Date().timeIntervalSince1970,
                              drawSeconds, documentID])
            guard status == .ok else { return }
            // Read as a cursor of ids and paths, not as records: a document of thousands of
            // pages has thousands of outputs, and this runs at its end, when memory peaks.
            var forgotten: [Int64] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT id, path FROM output WHERE documentId = ?", arguments: [documentID])
            while let row = try rows.next() {
                if !paths.contains(row["path"] as String) { forgotten.append(row["id"]) }
            }
            if !forgotten.isEmpty { _ = try OutputRecord.deleteAll(db, keys: forgotten) }
        }
    }

    /// Forgets documents and their outputs.
    public func remove(documentIDs: [Int64]) throws(CatalogError) {
        guard !documentIDs.isEmpty else { return }
        try write { db in
            _ = try DocumentRecord.filter(keys: documentIDs).deleteAll(db)
        }
    }

    /// Takes in every document of `other` with its outputs (a shard's catalog, when `galley
    /// merge` puts shards together), each replacing the document with the same source path
    /// here, with its drawing time; `mapPath` gives each source path as this catalog names it.
    /// Returns the source paths taken in.
    @discardableResult
    public func importDocuments(from other: Catalog, mapPath: @Sendable (String) -> String) throws(CatalogError) -> Set<String> {
        let (documents, outputs) = try other.read { db in
            (try DocumentRecord.fetchAll(db), Dictionary(grouping: try OutputRecord.fetchAll(db), by: \.documentId))
        }
        return try write { db in
            var imported = Set<String>()
            for document in documents {
                var record = document
                record.sourcePath = mapPath(document.sourcePath)
                record.id = nil
                let existing = DocumentRecord.filter(Column("sourcePath") == record.sourcePath)
                // A shard that reused every output of a document knows no time for it: the one here stays.
                if record.drawSeconds == nil { record.drawSeconds = try existing.fetchOne(db)?.drawSeconds }
                try existing.deleteAll(db)
                try record.insert(db)
                guard let id = record.id else { continue }
                for output in outputs[document.id ?? -1] ?? [] {
                    var copy = output
                    copy.id = nil
                    copy.documentId = id
                    try copy.insert(db)
                }
                imported.insert(record.sourcePath)
            }
            return imported
        }
    }

    // MARK: Outputs

    /// Outputs that can stand in for a document's: its own, then those of other documents
    /// with the same content (copies and renames), oldest first; not those made from content
    /// a document had before (`begin`); each with the source path of its document.
    public func reusableOutputs(documentID: Int64?, contentHash: String) throws(CatalogError)
        -> [(output: OutputRecord, sourcePath: String)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT output.*, document.sourcePath AS documentSourcePath FROM output
                JOIN document ON document.id = output.documentId
                WHERE document.contentHash = ? AND output.fingerprint != ''
                ORDER BY (output.documentId = ?) DESC, output.documentId, output.id
                """, arguments: [contentHash, documentID ?? -1]).map { row in
                (try OutputRecord(row: row), row["documentSourcePath"] as String)
            }
        }
    }

    /// Every output of these documents.
    public func outputs(documentIDs: [Int64]) throws(CatalogError) -> [OutputRecord] {
        try read { db in try OutputRecord.filter(documentIDs.contains(Column("documentId"))).fetchAll(db) }
    }

    /// Records a finished output file, replacing what was recorded for the same page and
    /// variant. Called as each file lands, so a killed run leaves a record of what is done.
    public func record(_ output: OutputRecord) throws(CatalogError) {
        try write { db in
            var record = output
            record.id = nil
            // REPLACE: the row for the same document, layout, page and variant gives way.
            try record.insert(db, onConflict: .replace)
        }
    }

    // MARK: Work in progress and crashes

    /// Records that run `runID` is about to open a document, and returns once the transaction
    /// is committed. That is what makes the mark outlive a process that dies while the
    /// document is open: in WAL mode a commit has written its frames into the `-wal` file
    /// (`write(2)`, so into the kernel's page cache, which a dying process cannot take with it);
    /// with `synchronous = NORMAL` it is not synced, so a power cut may lose it, and the
    /// document is then simply not counted.
    public func markInProgress(sourcePath: String, contentHash: String, runID: String) throws(CatalogError) {
        try write { db in
            try InProgressMark(sourcePath: sourcePath, contentHash: contentHash, runID: runID,
                               startedAt: Date().timeIntervalSince1970).insert(db, onConflict: .replace)
        }
    }

    /// Work on a document ended without the process dying: its mark goes. With
    /// `forgettingCrashesOf`, the content finished normally (ok, or failed for a reason of its
    /// own), so the deaths counted against it are forgotten too.
    public func clearInProgress(sourcePath: String, runID: String, forgettingCrashesOf contentHash: String?) throws(CatalogError) {
        try write { db in
            try db.execute(sql: "DELETE FROM inProgress WHERE sourcePath = ? AND runID = ?", arguments: [sourcePath, runID])
            if let contentHash { try db.execute(sql: "DELETE FROM crash WHERE contentHash = ?", arguments: [contentHash]) }
        }
    }

    /// Every mark of run `runID` goes, none counted: the run stopped on purpose (interrupted),
    /// or ended with documents it did not finish.
    public func clearInProgress(runID: String) throws(CatalogError) {
        try write { db in try db.execute(sql: "DELETE FROM inProgress WHERE runID = ?", arguments: [runID]) }
    }

    /// The marks other runs left, counted as crashes and cleared.
    ///
    /// Call it only while holding the output folder's lock: then no other process is working,
    /// so every mark is one a process left when it died. Each run that died counts once
    /// against each content it had in progress (two copies of one file in flight are one
    /// death). Counts of content no document has any more are forgotten.
    ///
    /// - Returns: the marks found, and the deaths counted against each content hash so far
    ///   (those just counted included).
    public func countCrashes() throws(CatalogError) -> (found: [InProgressMark], crashes: [String: Int]) {
        try write { db in
            let marks = try InProgressMark.order(Column("startedAt"), Column("sourcePath")).fetchAll(db)
            for marksOfRun in Dictionary(grouping: marks, by: \.runID).values {
                for hash in Set(marksOfRun.map(\.contentHash)) {
                    try db.execute(sql: """
                        INSERT INTO crash (contentHash, count) VALUES (?, 1)
                        ON CONFLICT (contentHash) DO UPDATE SET count = count + 1
                        """, arguments: [hash])
                }
            }
            try db.execute(sql: "DELETE FROM inProgress")
            try db.execute(sql: "DELETE FROM crash WHERE contentHash NOT IN (SELECT contentHash FROM document)")
            let rows = try Row.fetchAll(db, sql: "SELECT contentHash, count FROM crash")
            return (marks, Dictionary(rows.map { ($0["contentHash"] as String, $0["count"] as Int) }, uniquingKeysWith: max))
        }
    }

    /// Marks of runs in progress or dead, oldest first (what `countCrashes` would count).
    public func inProgress() throws(CatalogError) -> [InProgressMark] {
        try read { db in try InProgressMark.order(Column("startedAt"), Column("sourcePath")).fetchAll(db) }
    }

    // MARK: Access

    func read<T>(_ body: @Sendable (Database) throws -> T) throws(CatalogError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw CatalogError(path: path, error)
        }
    }

    func write<T>(_ body: @Sendable (Database) throws -> T) throws(CatalogError) -> T {
        do {
            return try pool.write(body)
        } catch {
            throw CatalogError(path: path, error)
        }
    }
}

/// A source document as the catalog remembers it.
public struct DocumentRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "document"

    /// Where work on a document stands.
    public enum Status: String, Codable, Sendable {
        /// Work started and has not finished (or the run was killed).
        case pending
        /// Every output was made.
        case ok
        /// The document failed; `errorCode` says why.
        case failed
    }

    public var id: Int64?
    /// Absolute path of the source file.
    public var sourcePath: String
    /// SHA-256 of the file's bytes, lowercase hex.
    public var contentHash: String
    public var size: Int64
    /// Modification time in nanoseconds since 1970.
    public var mtime: Int64
    public var kind: String
    public var pageCount: Int?
    public var status: Status
    public var errorCode: String?
    public var errorMessage: String?
    /// Fingerprint of every setting the document's outputs were made with, set when it finished.
    public var settings: String?
    /// The caller's description of the finished document (opaque to the catalog).
    public var summary: Data?
    /// When it finished, in seconds since 1970 (nil in catalogs from before it was kept).
    public var finishedAt: Double?
    /// How long its pages took to draw when a run last drew it in full: the wall seconds of the
    /// work done for it (opening or typesetting, recording, drawing and encoding its pages),
    /// summed over the threads that did it. What `galley plan` balances shards by when known;
    /// kept here only, never in the manifest, so outputs do not depend on it (nil when no run
    /// recorded it: catalogs from before it was kept, documents only ever reused).
    public var drawSeconds: Double?

    /// A new row (status `pending`).
    public init(sourcePath: String, contentHash: String, size: Int64, mtime: Int64, kind: String) {
        self.sourcePath = sourcePath
        self.contentHash = contentHash
        self.size = size
        self.mtime = mtime
        self.kind = kind
        self.status = .pending
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A file made from one page of a document.
public struct OutputRecord: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "output"

    public var id: Int64?
    public var documentId: Int64
    /// The layout the page belongs to (articles), or empty.
    public var layout: String
    /// The page number (1-based, within its layout).
    public var page: Int
    /// What the file is, e.g. `image` or `thumbnail-128`.
    public var variant: String
    /// Fingerprint of every setting that changes the file's bytes.
    public var fingerprint: String
    /// Path relative to the output folder.
    public var path: String
    public var sha256: String
    public var bytes: Int
    public var width: Int
    public var height: Int

    public init(documentId: Int64, layout: String, page: Int, variant: String, fingerprint: String, path: String,
                sha256: String, bytes: Int, width: Int, height: Int) {
        self.documentId = documentId
        self.layout = layout
        self.page = page
        self.variant = variant
        self.fingerprint = fingerprint
        self.path = path
        self.sha256 = sha256
        self.bytes = bytes
        self.width = width
        self.height = height
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A document a run was working on: written before it is opened, cleared when its outcome is
/// recorded. One left behind means the process died while the document was open.
public struct InProgressMark: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "inProgress"

    /// Absolute path of the source file.
    public var sourcePath: String
    /// SHA-256 of its bytes: what a death is counted against.
    public var contentHash: String
    /// The run that opened it.
    public var runID: String
    /// When it was opened, in seconds since 1970.
    public var startedAt: Double
}

/// A catalog that cannot be read or written: the file and SQLite's reason.
public struct CatalogError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    init(path: String, _ error: any Error) {
        self.init(path: path, message: (error as? DatabaseError)?.message ?? "\(error)")
    }

    public var description: String { "\(path): \(message)" }
}
