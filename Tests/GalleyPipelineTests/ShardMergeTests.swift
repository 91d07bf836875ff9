import Foundation
import GalleyBase
import GalleyManifest
import GalleyPipeline
import GalleyTestSupport
import Logging
import Testing

/// Three machines each running one shard, merged, give what one machine gives.
@Suite struct ShardMergeTests {
    /// Two folders matched by the glob `in/*`; both hold a `photo.pdf` and a `vector-art.pdf`
    /// of different content, so two documents share each relative path (and get `-2` names).
    func run(_ folder: ScratchFolder, output: String, shard: Shard?) throws -> RunSummary {
        var configuration = try Self.corpus(folder, output: output)
        configuration.shard = shard
        return try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
    }

    /// The corpus (made in `folder` the first time) and the settings of these tests.
    static func corpus(_ folder: ScratchFolder, output: String) throws -> Configuration {
        if !FileManager.default.fileExists(atPath: folder.path("in").path) {
            _ = try folder.copy(Fixtures.goodPDFs.map(Fixtures.pdf) + [Fixtures.brokenFolder.appendingPathComponent("garbage.pdf"),
                                                                     Fixtures.articlesFolder.appendingPathComponent("magazine.html"),
                                                                     Fixtures.articlesFolder.appendingPathComponent("ja-vertical.html")], into: "in/one")
            try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent("images"), to: folder.path("in/one/images"))
            try FileManager.default.createDirectory(at: folder.path("in/two"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixtures.pdf("mixed.pdf"), to: folder.path("in/two/photo.pdf"))
            try FileManager.default.copyItem(at: Fixtures.pdf("landscape.pdf"), to: folder.path("in/two/vector-art.pdf"))
            // The same content twice under another name.
            _ = try folder.copy([Fixtures.pdf("photo.pdf")], into: "in/two/again")
        }
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in/*"]
        configuration.output = output
        configuration.dpi = 30
        configuration.thumbnailBoxes = [64]
        return configuration
    }

    @Test func mergedShardsAreByteForByteASingleRun() throws {
        let folder = try ScratchFolder("shards")
        let single = try #require(try run(folder, output: "single", shard: nil).manifest)
        var sizes: [Int] = []
        for k in 1...3 {
            let manifest = try #require(try run(folder, output: "shard\(k)", shard: try Shard(index: k, count: 3)).manifest)
            #expect(manifest.shard == Manifest.ShardInfo(index: k, count: 3, inputs: ["in/*"]))
            #expect(try ManifestSchema.violations(of: folder.path("shard\(k)/manifest.json")) == [])
            sizes.append(manifest.documents.count)
        }
        #expect(sizes.reduce(0, +) == single.documents.count, "every document in exactly one shard: \(sizes)")
        #expect(sizes.filter { $0 > 0 }.count >= 2, "the split is not degenerate: \(sizes)")
        #expect(single.documents.filter { $0.source == "photo.pdf" }.map(\.name) == ["photo", "photo-2"])
        // Given in any order.
        var merged = try ShardMerge.merge(shards: [folder.path("shard3"), folder.path("shard1"), folder.path("shard2")], into: folder.path("merged"))
        merged.run = single.run
        #expect(merged == single)
        try Self.expectMergedIsSingle(folder, single)
    }

    /// `merged` holds exactly the files of `single` and its manifest (apart from `run`).
    static func expectMergedIsSingle(_ folder: ScratchFolder, _ single: Manifest) throws {
        #expect(PipelineTests.withoutRunBlock(try Data(contentsOf: folder.path("merged/manifest.json")))
                 == PipelineTests.withoutRunBlock(try Data(contentsOf: folder.path("single/manifest.json"))))
        for path in single.documents.flatMap(\.pages).flatMap({ [$0.image?.path].compactMap { $0 } + $0.thumbnails.map(\.path) }) + ["index.html"] {
            #expect(try Data(contentsOf: folder.path("single/\(path)")) == Data(contentsOf: folder.path("merged/\(path)")), "\(path)")
        }
    }

    @Test func aMissingOrForeignShardIsRefused() throws {
        let folder = try ScratchFolder("shards")
        for k in [1, 3] { _ = try run(folder, output: "shard\(k)", shard: try Shard(index: k, count: 3)) }
        _ = try run(folder, output: "whole", shard: nil)
        let missing = #expect(throws: UsageError.self) {
            try ShardMerge.merge(shards: [folder.path("shard1"), folder.path("shard3")], into: folder.path("merged"))
        }
        #expect(missing?.message.contains("2/3") == true)
        let whole = #expect(throws: UsageError.self) {
            try ShardMerge.merge(shards: [folder.path("shard1"), folder.path("whole")], into: folder.path("merged"))
        }
        #expect(whole?.message.contains("not the output of a sharded run") == true)
        #expect(!FileManager.default.fileExists(atPath: folder.path("merged/manifest.json").path))
    }
}
