import ArgumentParser
import Foundation
import GalleyManifest
import GalleyPipeline

/// `galley merge`: the outputs of a sharded run's machines, combined.
struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the output folders of a sharded run (galley run --shard K/N) into one.",
        discussion: """
            OUT gets every shard's page images and thumbnails under the names one run would give them, and a \
            manifest.json and index.html identical to a single run's apart from the manifest's run block. Every \
            shard 1...N must be given, once. Exit status as for galley run: 1 when a document failed in some shard, \
            2 when a folder is not a shard of the same run or a shard is missing.
            """)

    @Argument(help: "The merged output folder, then the shards' output folders (only the shards' with --into).", completion: .directory)
    var folders: [String]

    @Option(name: .long, help: ArgumentHelp(
        "An existing output folder to update in place: the library the plan was made against (galley plan --library).",
        discussion: "New and changed documents replace theirs, documents the plan left to the library keep theirs, and outputs of documents no longer there are removed."),
        completion: .directory)
    var into: String?

    @Option(name: .long, help: "The plan the shards ran (galley run --plan), needed when it left documents to the library.", completion: .file())
    var plan: String?

    func validate() throws {
        if into == nil && folders.count < 2 { throw ValidationError("give the merged folder, then the shards' folders") }
        if into != nil && folders.isEmpty { throw ValidationError("give the shards' folders") }
    }

    func run() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let url = { (path: String) in URL(fileURLWithPath: path, relativeTo: cwd).standardizedFileURL }
        let output = into ?? folders[0]
        let shards = into == nil ? Array(folders.dropFirst()) : folders
        let manifest: Manifest
        do {
            manifest = try ShardMerge.merge(shards: shards.map(url), into: url(output), plan: plan.map(url))
        } catch {
            throw CommandFailure(stopping: error)
        }
        let totals = manifest.totals
        print("galley: merged \(shards.count) shards: \(totals.documents) documents (\(totals.ok) ok, \(totals.failed) failed, "
              + "\(totals.unchanged) unchanged), \(totals.pages) pages in \(url(output).path)")
        printFailures(manifest)
        if totals.failed > 0 { throw ExitCode(Galley.Status.someFailed) }
    }
}
