import ArgumentParser
import Foundation
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

    @Argument(help: "The merged output folder.", completion: .directory)
    var output: String

    @Argument(help: "The shards' output folders.", completion: .directory)
    var shards: [String]

    func run() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let url = { (path: String) in URL(fileURLWithPath: path, relativeTo: cwd).standardizedFileURL }
        let manifest: Manifest
        do {
            manifest = try ShardMerge.merge(shards: shards.map(url), into: url(output))
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
