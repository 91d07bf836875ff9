import Foundation
import GalleyBase
import GalleyCatalog
import GalleyManifest
import GalleyPDF

/// A sharded run's work, decided once (`galley plan --shards N`): every document with its
/// content hash, size and modification time, in N work lists balanced by estimated cost, so
/// shards neither scan nor hash the corpus again (`galley run --plan PLAN --shard K/N`).
///
/// Written as JSON (`docs/sharding.md` has the schema); paths are relative to each input's
/// root, so a shard that sees the inputs under another mount point maps them with `--input`.
public struct ShardPlan: Codable, Sendable, Equatable {
    /// The plan format this Galley writes and reads.
    public static let currentVersion = 1

    public var version: Int
    /// N: how many work lists (`shards`) there are.
    public var shardCount: Int
    /// The configured inputs, in order, as the manifest's `input` fields show them.
    public var inputs: [String]
    /// Each input's root folder where the plan was made (absolute): a document is at
    /// `roots[input]/path`.
    public var roots: [String]
    public var shards: [WorkList]
    /// Documents the library (the output folder the plan was made against) holds done, with
    /// the same size, modification time and settings: in no work list; `galley merge --into
    /// LIBRARY` keeps their outputs. Absent when there are none.
    public var library: [Entry]?

    public struct WorkList: Codable, Sendable, Equatable {
        /// 1-based.
        public var index: Int
        /// The sum of its documents' costs.
        public var cost: Double
        /// Its documents, in scan order.
        public var documents: [Entry]
    }

    public struct Entry: Codable, Sendable, Equatable {
        /// Which of `inputs` (0-based) found it.
        public var input: Int
        /// Relative to `roots[input]`, with `/` separators.
        public var path: String
        /// The manifest's `source` (relative to the input folder).
        public var source: String
        /// Its folder under the output folder, as a single run names it.
        public var name: String
        public var kind: SourceDocument.Kind
        /// SHA-256 of its content when planned (nil when it could not be read).
        public var sha256: String?
        public var size: Int64
        /// Nanoseconds since 1970.
        public var mtime: Int64
        /// Estimated work: pages for PDFs, kilobytes / 4 for articles (about a page of text); for
        /// a document with a recorded drawing time (`seconds`), that time in the same unit.
        public var cost: Double
        /// How long drawing its content took when a run last drew it (the library's catalog: the
        /// longest time of any file with this content), in seconds; nil when no run recorded it.
        public var seconds: Double?
        /// Why the scan refuses to read it (a link leading out of the inputs).
        public var refusal: Failure?
    }

    /// The plan in `data`; a plan of another version, or not a plan, is a usage error.
    public static func decode(_ data: Data, from path: String) throws(UsageError) -> ShardPlan {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Version: Decodable { var version: Int? }
        guard let version = (try? decoder.decode(Version.self, from: data))?.version else {
            throw UsageError(subject: path, message: "not a Galley plan (no version field); make one with galley plan --shards N")
        }
        guard version == currentVersion else {
            throw UsageError(subject: path, message: "a plan of version \(version); this Galley reads version \(currentVersion): plan again with this Galley")
        }
        do {
            let plan = try decoder.decode(ShardPlan.self, from: data)
            guard plan.shards.count == plan.shardCount, plan.roots.count == plan.inputs.count,
                  plan.shards.allSatisfy({ list in list.documents.allSatisfy { plan.inputs.indices.contains($0.input) } }) else {
                throw UsageError(subject: path, message: "an inconsistent plan (work lists or inputs do not match their counts)")
            }
            return plan
        } catch let error as UsageError {
            throw error
        } catch {
            throw UsageError(subject: path, message: "not a readable Galley plan (\(error))")
        }
    }

    /// The plan as JSON: keys sorted, in snake case, so the same scan gives the same bytes.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return try encoder.encode(self) + Data("\n".utf8)
    }

    /// The folder an input's documents are found under: a folder input itself (links
    /// resolved, as the scan walks it), a file's folder, or a glob's folder before its first
    /// wildcard.
    static func root(of input: String, configuration: Configuration) -> URL {
        let url = configuration.resolveInput(input)
        if input.contains(where: { "*?[".contains($0) }) {
            var fixed = URL(fileURLWithPath: "/")
            for component in url.pathComponents.dropFirst() {
                if component.contains(where: { "*?[".contains($0) }) { break }
                fixed.appendPathComponent(component)
            }
            return fixed.pathComponents.count == url.pathComponents.count ? fixed.deletingLastPathComponent() : fixed
        }
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
        return isFolder.boolValue ? url.resolvingSymlinksInPath() : url.deletingLastPathComponent()
    }

    /// Makes the plan of `configuration`'s inputs: scans them once; a file the catalog of the
    /// output folder (an earlier merged run's) knows with the same size and modification time
    /// is not read (its hash and page count come from there); any other is read once, hashed
    /// and, when a new PDF, opened from the same read for its page count (`examine`).
    /// Documents go to the cheapest list so far, costliest first; a document's cost is the
    /// drawing time the catalog recorded for its content when there is one (`costs`).
    ///
    /// - Throws: `UsageError` when an input is missing or `shards` is out of range.
    public static func make(configuration: Configuration, shards: Int) throws(UsageError) -> (plan: ShardPlan, warnings: [String], read: Int) {
        guard (1...Shard.maximumCount).contains(shards) else {
            throw UsageError(subject: "--shards", message: "the shard count \(shards) is outside 1...\(Shard.maximumCount)")
        }
        let (scanned, warnings) = try InputScanner(configuration: configuration).scan()
        let catalogPath = Pipeline.catalogURL(output: configuration.outputURL).path
        let known = FileManager.default.fileExists(atPath: catalogPath) ? ((try? Catalog(path: catalogPath).documents()) ?? [:]) : [:]
        // Drawing times by content: a copy or a renamed file costs what its content took.
        let seconds = Dictionary(known.values.compactMap { row in row.drawSeconds.map { (row.contentHash, $0) } },
                                 uniquingKeysWith: max)
        let roots = configuration.inputs.map { root(of: $0, configuration: configuration).path }
        let inputIndex = Dictionary(configuration.inputs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let engine = try? MuPDFEngine(storeBytes: 16 << 20)
        let fingerprints = Fingerprints(configuration: configuration)
        let library = configuration.outputURL
        var read = 0
        var entries: [Entry] = []
        var done: [Entry] = []
        for document in scanned {
            let input = inputIndex[document.input] ?? 0
            let root = roots[input]
            let path = document.url.path.hasPrefix(root + "/") ? String(document.url.path.dropFirst(root.count + 1)) : document.url.path
            let stamp = FileStamp(path: document.url.path)
            var entry = Entry(input: input, path: path, source: document.relativePath, name: document.name, kind: document.kind,
                              sha256: nil, size: stamp?.size ?? 0, mtime: stamp?.mtime ?? 0, cost: 1, seconds: nil,
                              refusal: document.refusal)
            guard document.refusal == nil, let stamp else {
                entries.append(entry)
                continue
            }
            var pages: Int?
            let row = known[document.url.path]
            if let row, row.size == stamp.size, row.mtime == stamp.mtime {
                entry.sha256 = row.contentHash
                pages = row.pageCount
                // Done in the library as a run there would find it: left to it.
                if row.status == .ok, row.settings == fingerprints.document(document.kind), let summary = row.summary,
                   let finished = try? Manifest.Document.decodeEntry(summary), finished.name == document.name,
                   finished.input == document.input, finished.source == document.relativePath,
                   finished.outputPaths.allSatisfy({ FileManager.default.fileExists(atPath: library.appendingPathComponent($0).path) }) {
                    entry.cost = 0
                    done.append(entry)
                    continue
                }
            } else {
                // Content the catalog knows (a file touched, not changed) keeps its page count.
                (entry.sha256, pages) = examine(document, password: configuration.password(forRelativePath: document.relativePath),
                                                engine: engine) { hash in row?.contentHash == hash ? row?.pageCount : nil }
                read += 1
            }
            entry.seconds = entry.sha256.flatMap { seconds[$0] }
            entry.cost = document.kind == .pdf ? Double(max(1, pages ?? Int(stamp.size >> 16)))
                : max(1, (Double(stamp.size) / 4096).rounded())
            entries.append(entry)
        }
        costs(&entries)
        let lists = balance(entries, into: shards)
        let plan = ShardPlan(version: currentVersion, shardCount: shards, inputs: configuration.inputs, roots: roots,
                             shards: lists.enumerated().map { index, members in
                                 WorkList(index: index + 1, cost: members.reduce(0) { $0 + entries[$1].cost },
                                          documents: members.sorted().map { entries[$0] })
                             }, library: done.isEmpty ? nil : done)
        return (plan, warnings, read)
    }

    /// Files up to this size are read into memory whole, hashed there and, when PDFs, opened
    /// from there: one read of the file. A larger one is hashed as it is read, a MiB at a time,
    /// and MuPDF then opens the file itself: memory stays bounded whatever the corpus holds, and
    /// opening a PDF reads only its cross-reference table and page tree, a small part of a
    /// large file (it is a small PDF that MuPDF reads about whole).
    static let wholeFileLimit: Int64 = 64 << 20

    /// A new file's content hash and, for a PDF, its page count (nil when it cannot be read or
    /// opened), reading the file once (`wholeFileLimit`). `knownPages` gives the page count of
    /// content the catalog knows, which is then not opened.
    static func examine(_ document: SourceDocument, password: String?, engine: MuPDFEngine?,
                        knownPages: (String) -> Int?) -> (sha256: String?, pages: Int?) {
        let path = document.url.path
        guard document.kind == .pdf, let engine else { return ((try? ContentHash.sha256(file: document.url))?.hash, nil) }
        if let stamp = FileStamp(path: path), stamp.size <= wholeFileLimit, let bytes = try? FileBytes(path: path) {
            let hash = bytes.withUnsafeBytes { ContentHash.sha256($0) }
            let pages = knownPages(hash) ?? (try? PDFDocument(bytes: bytes, path: path, password: password, engine: engine))?.pageCount
            return (hash, pages)
        }
        guard let hash = (try? ContentHash.sha256(file: document.url))?.hash else { return (nil, nil) }
        return (hash, knownPages(hash) ?? (try? PDFDocument(path: path, password: password, engine: engine))?.pageCount)
    }

    /// Costs in one unit: a document with a recorded drawing time costs that time, scaled so
    /// that the timed documents' times add up to what their estimates (pages, article sizes)
    /// add up to; the others keep their estimates. Shards then balance on what documents
    /// really cost where that is known (a short document slow to draw weighs what it took),
    /// and on the estimate, in the same unit, where it is not. Rounded to thousandths.
    static func costs(_ entries: inout [Entry]) {
        let timed = entries.indices.filter { entries[$0].refusal == nil && (entries[$0].seconds ?? 0) > 0 }
        let seconds = timed.reduce(0.0) { $0 + (entries[$1].seconds ?? 0) }
        let estimated = timed.reduce(0.0) { $0 + entries[$1].cost }
        guard seconds > 0 else { return }
        for index in timed {
            entries[index].cost = max(0.001, ((entries[index].seconds ?? 0) * estimated / seconds * 1000).rounded() / 1000)
        }
    }

    /// Indexes of `entries` per list: costliest first, each to the list with the least cost
    /// so far (the lowest index on a tie); refused documents to the first list.
    static func balance(_ entries: [Entry], into count: Int) -> [[Int]] {
        var lists = [[Int]](repeating: [], count: count)
        // A binary heap of (cost so far, list index).
        var heap = (0..<count).map { (cost: 0.0, index: $0) }
        func less(_ a: (cost: Double, index: Int), _ b: (cost: Double, index: Int)) -> Bool {
            a.cost != b.cost ? a.cost < b.cost : a.index < b.index
        }
        let order = entries.indices.sorted { a, b in
            entries[a].cost != entries[b].cost ? entries[a].cost > entries[b].cost : a < b
        }
        for entry in order {
            if entries[entry].refusal != nil {
                lists[0].append(entry)
                continue
            }
            let top = heap[0]
            lists[top.index].append(entry)
            heap[0].cost += entries[entry].cost
            // Sift down.
            var at = 0
            while true {
                let left = 2 * at + 1, right = left + 1
                var smallest = at
                if left < heap.count, less(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count, less(heap[right], heap[smallest]) { smallest = right }
                if smallest == at { break }
                heap.swapAt(at, smallest)
                at = smallest
            }
        }
        return lists
    }
}

/// One shard's part of a plan, as `galley run --plan PLAN --shard K/N` runs it.
public struct PlannedShard: Sendable, Equatable {
    public var plan: ShardPlan
    public var shard: Shard
    /// Where this machine sees each input's root: the plan's, or those of `--input` given in
    /// the plan's order.
    public var roots: [String]
    /// SHA-256 of the plan file, so the merge can tell shards of different plans apart.
    public var planHash: String

    /// - Throws: `UsageError` when the shard count is not the plan's, or `--input` gives
    ///   another number of inputs than the plan has.
    public init(plan: ShardPlan, planHash: String, shard: Shard, configuration: Configuration, mapsInputs: Bool) throws(UsageError) {
        guard shard.count == plan.shardCount else {
            throw UsageError(subject: "--shard", message: "shard \(shard) of a plan of \(plan.shardCount) shards; give --shard K/\(plan.shardCount)")
        }
        if mapsInputs {
            guard configuration.inputs.count == plan.inputs.count else {
                throw UsageError(subject: "--input", message: "\(configuration.inputs.count) input(s) given for the plan's \(plan.inputs.count) (\(plan.inputs.joined(separator: ", "))); give one --input per planned input, in order")
            }
            roots = configuration.inputs.map { ShardPlan.root(of: $0, configuration: configuration).path }
        } else {
            roots = plan.roots
        }
        self.plan = plan
        self.planHash = planHash
        self.shard = shard
    }

    /// The shard's documents, as the scan of the whole corpus named them.
    var documents: [SourceDocument] {
        plan.shards[shard.index - 1].documents.map { entry in
            SourceDocument(url: URL(fileURLWithPath: entry.path.hasPrefix("/") ? entry.path : roots[entry.input] + "/" + entry.path),
                           input: plan.inputs[entry.input], relativePath: entry.source, kind: entry.kind, name: entry.name,
                           refusal: entry.refusal)
        }
    }

    var entries: [ShardPlan.Entry] { plan.shards[shard.index - 1].documents }
}

extension PlannedShard {
    /// The plan file at `path`, for `shard` (a count of nil takes the plan's).
    public static func load(path: String, shard: (Int?) throws(UsageError) -> Shard?, configuration: Configuration,
                            mapsInputs: Bool) throws(UsageError) -> PlannedShard {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(subject: "--plan", message: "\(path): cannot be read; make a plan with galley plan --shards N --output PLAN")
        }
        let plan = try ShardPlan.decode(data, from: path)
        guard let shard = try shard(plan.shardCount) else {
            throw UsageError(subject: "--plan", message: "which shard of the plan? pass --shard K/\(plan.shardCount), or run it as a job array's task")
        }
        return try PlannedShard(plan: plan, planHash: ContentHash.sha256([UInt8](data)), shard: shard, configuration: configuration,
                                mapsInputs: mapsInputs)
    }
}
