import Foundation
import GalleyBase
import GalleyCatalog
import GalleyManifest

/// Puts the output folders of a sharded run (`galley run --shard K/N` on N machines) back
/// together into the folder one run would have written: the same page images and thumbnails
/// under the same names, and a manifest and contact sheet identical to a single run's apart
/// from the `run` block.
public enum ShardMerge {
    /// Merges `shards` (output folders, any order) into `output`, holding `output`'s lock once
    /// the shards are checked. The shards are only read, and are not locked: they are usually
    /// another machine's finished artifacts.
    ///
    /// - Throws: `UsageError` when `output` is in use by another process, a folder has no
    ///   manifest, is not a shard, belongs to a different run (other settings, inputs or shard
    ///   count), when a shard is missing or given twice, or when `output` cannot be made;
    ///   `OutputError` when a file cannot be copied or written.
    ///
    /// A plan made against a library (an earlier output folder) leaves the documents done there
    /// to it: `planURL` must then be that plan and `output` that library, whose entries for them
    /// are kept (marked unchanged, as a run there would mark them). Outputs of the folder's
    /// earlier manifest that the merged one does not list are removed.
    public static func merge(shards: [URL], into output: URL, plan planURL: URL? = nil) throws -> Manifest {
        var parts: [(folder: URL, manifest: Manifest, shard: Manifest.ShardInfo)] = []
        for folder in shards {
            let url = folder.appendingPathComponent("manifest.json")
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw UsageError(subject: folder.path, message: "no manifest.json: is this a shard's output folder, and did its run finish?")
            }
            let manifest: Manifest
            do {
                manifest = try Manifest.decode(data)
            } catch {
                throw UsageError(subject: url.path, message: "not a Galley manifest (\(error))")
            }
            guard let shard = manifest.shard else {
                throw UsageError(subject: url.path, message: "not the output of a sharded run (galley run --shard K/N)")
            }
            parts.append((folder, manifest, shard))
        }
        guard let first = parts.first else { throw UsageError(subject: "merge", message: "no shard output folders given") }
        for part in parts.dropFirst() {
            guard part.shard.count == first.shard.count, part.shard.inputs == first.shard.inputs, part.shard.plan == first.shard.plan,
                  part.manifest.settings == first.manifest.settings else {
                throw UsageError(subject: part.folder.path,
                                 message: "belongs to a different run than \(first.folder.path) (shard count, inputs, plan or settings differ)")
            }
        }
        let indexes = parts.map(\.shard.index)
        if let twice = Dictionary(grouping: indexes, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw UsageError(subject: "merge", message: "shard \(twice)/\(first.shard.count) is given twice")
        }
        let missing = Set(1...first.shard.count).subtracting(indexes).sorted()
        guard missing.isEmpty else {
            throw UsageError(subject: "merge", message: "shard(s) \(missing.map { "\($0)/\(first.shard.count)" }.joined(separator: ", ")) missing; every shard's output folder is needed")
        }

        var library: [(document: Manifest.Document, folder: URL)] = []
        var librarySources = Set<String>()
        let earlier = FileManager.default.contents(atPath: output.appendingPathComponent("manifest.json").path).flatMap { try? Manifest.decode($0) }
        if let planURL {
            guard let data = FileManager.default.contents(atPath: planURL.path) else {
                throw UsageError(subject: "--plan", message: "\(planURL.path) cannot be read")
            }
            let plan = try ShardPlan.decode(data, from: planURL.path)
            guard first.shard.plan == ContentHash.sha256([UInt8](data)) else {
                throw UsageError(subject: "--plan", message: "\(planURL.path) is not the plan the shards ran (its SHA-256 differs from their manifests')")
            }
            let kept = Dictionary((earlier?.documents ?? []).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            for entry in plan.library ?? [] {
                guard var document = kept[entry.name], document.input == plan.inputs[entry.input], document.source == entry.source else {
                    throw UsageError(subject: output.path, message: "holds no document \(entry.name) (\(entry.source)) that the plan left to its library; merge into the folder the plan was made against (galley plan --library)")
                }
                document.status = .unchanged
                library.append((document, output))
                librarySources.insert(entry.path.hasPrefix("/") ? entry.path : plan.roots[entry.input] + "/" + entry.path)
            }
        } else if let left = first.shard.library, left > 0 {
            throw UsageError(subject: "merge", message: "the shards' plan left \(left) document(s) to the library it was made against; merge into it with the plan: galley merge --into LIBRARY --plan PLAN SHARD...")
        }

        // Scan order, as InputScanner orders documents. Two glob matches with the same relative
        // path were named in scan order, the later one with a longer `-N` suffix: the name
        // breaks the tie.
        let inputIndex = Dictionary(first.shard.inputs.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let documents = (parts.flatMap { part in part.manifest.documents.map { (document: $0, folder: part.folder) } } + library)
            .map { entry in (entry, key: (input: inputIndex[entry.document.input] ?? inputIndex.count, path: Array(entry.document.source.utf8))) }
            .sorted { a, b in
                if let order = InputScanner.scanOrder(a.key, b.key) { return order }
                let x = a.0.document.name, y = b.0.document.name
                return x.utf8.count != y.utf8.count ? x.utf8.count < y.utf8.count : Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            }
            .map(\.0)
        if let clash = Dictionary(grouping: documents.map(\.document.name), by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw UsageError(subject: "merge", message: "two shards both wrote a document named \(clash): were they run over the same inputs?")
        }

        let lock = try OutputLock.acquire(output: output)
        defer { withExtendedLifetime(lock) {} }
        let store = OutputStore(root: output)
        do {
            try store.prepare()
        } catch {
            throw UsageError(subject: output.path, message: "\(error.message); choose a folder you can write to")
        }
        defer { store.cleanUp() }
        for (document, folder) in documents where folder != output {
            for page in document.pages {
                for path in page.outputPaths {
                    guard let bytes = FileManager.default.contents(atPath: folder.appendingPathComponent(path).path) else {
                        throw OutputError(path: folder.appendingPathComponent(path).path, message: "listed in the shard's manifest but missing")
                    }
                    try store.write(Array(bytes), to: path)
                }
            }
        }
        let merged = documents.map(\.document)
        let failed = merged.count { $0.status == .failed }, unchanged = merged.count { $0.status == .unchanged }
        var run = first.manifest.run
        run.startedAt = parts.map(\.manifest.run.startedAt).min() ?? run.startedAt
        run.durationSeconds = parts.map(\.manifest.run.durationSeconds).max() ?? run.durationSeconds
        // The first shard's inputs folder, seen from the merged folder instead.
        run.inputsFolder = run.inputsFolder.map {
            FilePaths.relativePath(of: URL(fileURLWithPath: $0, relativeTo: first.folder).standardizedFileURL.path, from: output.path)
        }
        let manifest = Manifest(settings: first.manifest.settings,
                                totals: .init(documents: merged.count, ok: merged.count - failed - unchanged, failed: failed,
                                              unchanged: unchanged, pages: merged.reduce(0) { $0 + $1.pages.count }),
                                documents: merged, shard: nil, run: run)
        do {
            try store.write(to: "manifest.json") { sink in try manifest.write(to: sink.write) }
        } catch let error as OutputError {
            throw error
        } catch {
            throw OutputError(path: output.appendingPathComponent("manifest.json").path, message: "cannot encode: \(error)")
        }
        let keep = Set(merged.flatMap(\.outputPaths))
        try mergeCatalogs(parts.map { ($0.folder, $0.shard) }, into: store, keeping: keep, documents: librarySources)
        // What the folder's earlier manifest listed and this one does not: no stale outputs.
        removeOutputs((earlier?.documents ?? []).flatMap(\.outputPaths).filter { !keep.contains($0) }, from: store)
        // The shards' sources, so the merged sheet links to the files a single run's would.
        var sources = SourceFiles()
        // Those of the documents left to the library, from its own run.
        let libraryNames = Set(library.map(\.document.name))
        sources.paths = SourceFiles.read(outputFolder: output).paths.filter { libraryNames.contains($0.key) }
        for part in parts {
            sources.paths.merge(SourceFiles.read(outputFolder: part.folder).paths.mapValues(part.shard.planPath),
                                uniquingKeysWith: { first, _ in first })
        }
        try sources.write(to: store)
        let links = sources.links(from: output)
        try store.write(to: "index.html") { sink in
            ContactSheet.write(manifest, sources: links) { sink.write($0) }
        }
        return manifest
    }

    /// The shards' catalogs into the merged folder's, so a run there afterwards is as
    /// incremental as after a single run: each document as the shard recorded it, named by
    /// its path where the plan was made (a shard that saw the inputs elsewhere is mapped
    /// back). Documents an earlier merge recorded that no shard has now go, with their outputs
    /// (but those in `keeping`): no stale outputs remain.
    static func mergeCatalogs(_ shards: [(folder: URL, shard: Manifest.ShardInfo)], into store: OutputStore, keeping: Set<String>,
                              documents kept: Set<String>) throws {
        let path = Pipeline.catalogURL(output: store.root).path
        do {
            for suffix in ["", "-wal", "-shm", "-journal"] { try store.confined.checkFile(".galley/catalog.sqlite" + suffix) }
            let catalog = try Catalog(path: path)
            let earlier = try catalog.documents()
            var imported = Set<String>()
            for (folder, shard) in shards {
                let shardPath = Pipeline.catalogURL(output: folder).path
                guard FileManager.default.fileExists(atPath: shardPath) else { continue }
                imported.formUnion(try catalog.importDocuments(from: try Catalog(path: shardPath), mapPath: shard.planPath))
            }
            let gone = earlier.values.filter { !imported.contains($0.sourcePath) && !kept.contains($0.sourcePath) }.compactMap(\.id)
            removeOutputs(try catalog.outputs(documentIDs: gone).map(\.path).filter { !keeping.contains($0) }, from: store)
            try catalog.remove(documentIDs: gone)
        } catch let error as CatalogError {
            throw OutputError(path: path, message: "the merged catalog cannot be written (\(error.message))")
        }
    }
}

extension ShardMerge {
    /// Removes output files (paths relative to the folder), then the folders they leave empty.
    static func removeOutputs(_ paths: [String], from store: OutputStore) {
        var folders = Set<String>()
        for path in paths where store.confined.removeFile(path) { folders.formUnion(PathText.folders(above: path)) }
        for folder in folders.sorted(by: { $0.count > $1.count }) { _ = store.confined.removeEmptyFolder(folder) }
    }
}

extension Manifest.ShardInfo {
    /// A source's absolute path as this shard saw it, made the path where the plan was made
    /// (the shard saw the inputs under another mount point); other paths are kept.
    @Sendable func planPath(_ path: String) -> String {
        for (seen, planned) in zip(roots ?? [], planRoots ?? []) where seen != planned && path.hasPrefix(seen + "/") {
            return planned + path.dropFirst(seen.count)
        }
        return path
    }
}
