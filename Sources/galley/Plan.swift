import ArgumentParser
import Foundation
import GalleyPipeline

/// `galley plan`: a sharded run's work lists, decided once.
struct Plan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Split the inputs into N balanced work lists for galley run --plan PLAN --shard K/N.",
        discussion: """
            Scans the inputs once and hashes each file, except those the catalog of the library (an earlier \
            merged run's output folder) knows with the same size and modification time, which are not read. Each document goes to \
            one list, with its hash, size and modification time; lists are balanced by pages (PDFs) and size \
            (articles). The plan is JSON (docs/sharding.md has its schema), with paths relative to each input.
            """)

    @Option(name: .long, help: "The configuration file.", completion: .configurationFile)
    var config: String = "pipeline.yml"

    @Option(name: .long, help: "An input folder, file or glob; repeat for several. Replaces the file's inputs.", completion: .file())
    var input: [String] = []

    @Option(name: .long, help: "The merged output folder of an earlier run, whose catalog spares reading unchanged files (default: the configuration's output).",
            completion: .directory)
    var library: String?

    @Option(name: .long, help: "How many work lists (shards) to make.")
    var shards: Int

    @Option(name: .customLong("output"), help: "Where to write the plan (default: standard output).", completion: .file())
    var planFile: String?

    func run() throws {
        var options = try PipelineOptions.parse([])
        options.config = config
        options.input = input
        options.output = library
        let configuration = try options.configuration()
        let made: (plan: ShardPlan, warnings: [String], read: Int)
        do {
            made = try ShardPlan.make(configuration: configuration, shards: shards)
        } catch {
            throw CommandFailure(stopping: error)
        }
        for warning in made.warnings { FileHandle.standardError.write(Data("galley: warning: \(warning)\n".utf8)) }
        let data = try made.plan.encoded()
        let documents = made.plan.shards.reduce(0) { $0 + $1.documents.count }
        let costs = made.plan.shards.map { $0.cost.formatted() }.joined(separator: ", ")
        let library = made.plan.library?.count ?? 0
        let summary = "galley: planned \(documents) documents in \(shards) shards (costs \(costs))"
            + (library > 0 ? ", \(library) left to the library (done there)" : "") + "; read \(made.read) file(s)\n"
        if let planFile {
            let url = URL(fileURLWithPath: planFile, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            do {
                try data.write(to: url, options: .atomic)
            } catch {
                throw CommandFailure("\(planFile): cannot write the plan (\(error.localizedDescription))")
            }
            print(summary, terminator: "")
        } else {
            FileHandle.standardOutput.write(data)
            FileHandle.standardError.write(Data(summary.utf8))
        }
    }
}
