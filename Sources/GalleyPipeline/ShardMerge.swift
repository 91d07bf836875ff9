import Foundation
import GalleyBase
import GalleyCatalog

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
    public static func merge(shards: [URL], into output: URL) throws -> Manifest {
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

        // Scan order, as InputScanner orders documents. Two glob matches with the same relative
        // path were named in scan order, the later one with a longer `-N` suffix: the name
        // breaks the tie.
        let inputIndex = Dictionary(first.shard.inputs.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let documents = parts.flatMap { part in part.manifest.documents.map { (document: $0, folder: part.folder) } }
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
        for (document, folder) in documents {
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
        try mergeCatalogs(parts.map { ($0.folder, $0.shard) }, into: store, keeping: Set(merged.flatMap(\.outputPaths)))
        // The shards' sources, so the merged sheet links to the files a single run's would.
        var sources = SourceFiles()
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
    static func mergeCatalogs(_ shards: [(folder: URL, shard: Manifest.ShardInfo)], into store: OutputStore, keeping: Set<String>) throws {
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
            let gone = earlier.values.filter { !imported.contains($0.sourcePath) }.compactMap(\.id)
            var folders = Set<String>()
            for output in try catalog.outputs(documentIDs: gone) where !keeping.contains(output.path) {
                _ = store.confined.removeFile(output.path)
                folders.formUnion(PathText.folders(above: output.path))
            }
            for folder in folders.sorted(by: { $0.count > $1.count }) { _ = store.confined.removeEmptyFolder(folder) }
            try catalog.remove(documentIDs: gone)
        } catch let error as CatalogError {
            throw OutputError(path: path, message: "the merged catalog cannot be written (\(error.message))")
        }
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
