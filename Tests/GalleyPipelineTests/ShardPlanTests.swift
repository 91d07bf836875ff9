import Foundation
import GalleyBase
import GalleyCatalog
import GalleyPipeline
import GalleyTestSupport
import Logging
import Testing

/// A plan made once (`galley plan`), its shards run (`galley run --plan`), and merged: one
/// machine's output, and a merged folder the next run finds up to date.
@Suite struct ShardPlanTests {
    let logger = Logger(label: "test")

    /// Plans the corpus of `ShardMergeTests` into `plan.json`, with the catalog of `library`.
    func plan(_ folder: ScratchFolder, shards: Int = 3, library: String = "merged") throws -> (plan: ShardPlan, read: Int) {
        let made = try ShardPlan.make(configuration: try ShardMergeTests.corpus(folder, output: library), shards: shards)
        try made.plan.encoded().write(to: folder.path("plan.json"))
        return (made.plan, made.read)
    }

    /// Runs shard `k` of `plan.json` into `shard<k>`, seeing the inputs as `inputs` when given.
    func runShard(_ folder: ScratchFolder, _ k: Int, of count: Int = 3, inputs: [String]? = nil) throws -> RunSummary {
        var configuration = try ShardMergeTests.corpus(folder, output: "shard\(k)")
        if let inputs { configuration.inputs = inputs }
        let planned = try PlannedShard.load(path: folder.path("plan.json").path,
                                            shard: { (_: Int?) throws(UsageError) -> Shard? in try Shard(index: k, count: count) },
                                            configuration: configuration, mapsInputs: inputs != nil)
        configuration.plannedShard = planned
        configuration.shard = planned.shard
        return try Pipeline(configuration: configuration, logger: logger).run()
    }

    func single(_ folder: ScratchFolder, output: String = "single") throws -> RunSummary {
        try Pipeline(configuration: try ShardMergeTests.corpus(folder, output: output), logger: logger).run()
    }

    @Test func plannedShardsMergeIntoASingleRunAndTheMergedFolderStaysIncremental() throws {
        let folder = try ScratchFolder("plan")
        let single = try #require(try single(folder).manifest)
        let (plan, read) = try plan(folder)
        #expect(read == single.documents.count, "every file hashed once by the planner (the catalog of the merged folder is empty)")
        let entries = plan.shards.flatMap(\.documents)
        #expect(entries.map(\.name).sorted() == single.documents.map(\.name).sorted(), "every document in exactly one list")
        #expect(entries.allSatisfy { !$0.path.hasPrefix("/") }, "paths relative to their input's root")
        let hashes = Dictionary(single.documents.map { ($0.name, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        for entry in entries where hashes[entry.name] != nil {
            #expect(entry.sha256 == hashes[entry.name] ?? nil, "\(entry.name)")
        }
        let costs = plan.shards.map(\.cost)
        #expect((costs.max() ?? 0) - (costs.min() ?? 0) <= entries.map(\.cost).max() ?? 0, "balanced: \(costs)")

        var sizes: [Int] = []
        for k in 1...3 {
            let manifest = try #require(try runShard(folder, k).manifest)
            #expect(manifest.documents.map(\.name) == plan.shards[k - 1].documents.map(\.name), "shard \(k) drew exactly its list")
            #expect(manifest.shard?.plan != nil)
            #expect(manifest.documents.allSatisfy { !$0.warnings.contains { $0.contains("since the plan") } })
            #expect(try ManifestSchema.violations(of: folder.path("shard\(k)/manifest.json")) == [])
            sizes.append(manifest.documents.count)
        }
        _ = try ShardMerge.merge(shards: (1...3).map { folder.path("shard\($0)") }, into: folder.path("merged"))
        try ShardMergeTests.expectMergedIsSingle(folder, single)

        // Each document's drawing time, recorded by its shard, came along into the merged catalog.
        let merged = try Self.catalog(folder, "merged").documents()
        for k in 1...3 {
            let rows = try Self.catalog(folder, "shard\(k)").documents()
            #expect(rows.isEmpty || rows.values.contains { ($0.drawSeconds ?? 0) > 0 })
            for (path, row) in rows { #expect(merged[path]?.drawSeconds == row.drawSeconds, "\(path)") }
        }

        // The shards' catalogs came along: nothing to draw in the merged folder.
        let rerun = try self.single(folder, output: "merged")
        #expect(rerun.manifest?.totals.unchanged == single.documents.count - 1, "all but the broken PDF unchanged")
        #expect(rerun.drawnOutputs == 0)
        // And the next plan reads no file the merged catalog knows.
        #expect(try self.plan(folder).read == 0)
    }

    @Test func aFileChangedSincePlanningIsDrawnAndFlagged() throws {
        let folder = try ScratchFolder("plan")
        _ = try ShardMergeTests.corpus(folder, output: "single")
        let (plan, _) = try plan(folder, shards: 1)
        let entries = plan.shards[0].documents
        let edited = try #require(entries.first { $0.source == "landscape.pdf" })
        let touched = try #require(entries.first { $0.source == "magazine.html" })
        let root = plan.roots[0]
        try FileManager.default.removeItem(atPath: "\(root)/\(edited.path)")
        try FileManager.default.copyItem(at: Fixtures.pdf("mixed.pdf"), to: URL(fileURLWithPath: "\(root)/\(edited.path)"))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: "\(root)/\(touched.path)")

        let manifest = try #require(try runShard(folder, 1, of: 1).manifest)
        let drawn = try #require(manifest.documents.first { $0.name == edited.name })
        #expect(drawn.warnings.contains { $0.contains("changed since the plan was made") }, "\(drawn.warnings)")
        #expect(drawn.sha256 != edited.sha256 && drawn.status == .ok, "drawn as it is now")
        let same = try #require(manifest.documents.first { $0.name == touched.name })
        #expect(!same.warnings.contains { $0.contains("since the plan") }, "only its time changed: \(same.warnings)")
    }

    @Test func aShardSeesTheInputsUnderAnotherMountPoint() throws {
        let folder = try ScratchFolder("plan")
        let single = try #require(try single(folder).manifest)
        _ = try plan(folder)
        try FileManager.default.createDirectory(at: folder.path("mnt"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: folder.path("in"), to: folder.path("mnt/corpus"))
        for k in 1...3 { _ = try runShard(folder, k, inputs: ["mnt/corpus/*"]) }
        let other = #expect(throws: UsageError.self) { try runShard(folder, 1, inputs: ["mnt/corpus/one", "mnt/corpus/two"]) }
        #expect(other?.message.contains("one --input per planned input") == true)
        _ = try ShardMerge.merge(shards: (1...3).map { folder.path("shard\($0)") }, into: folder.path("merged"))
        try ShardMergeTests.expectMergedIsSingle(folder, single)
        // The merged catalog names the files where the plan was made.
        let rerun = try self.single(folder, output: "merged")
        #expect(rerun.drawnOutputs == 0 && rerun.manifest?.totals.unchanged == single.documents.count - 1)
    }

    /// The nightly run: a plan against the merged folder leaves its unchanged documents to it,
    /// the shards draw only the edited file, and the merge into the library updates it in
    /// place to what a single incremental run gives, a removed file's outputs gone.
    @Test func oneEditedFileIsAllThatIsDrawnAfterPlanShardsAndMergeIntoTheLibrary() throws {
        let folder = try ScratchFolder("plan")
        _ = try single(folder)
        _ = try plan(folder)
        for k in 1...3 { _ = try runShard(folder, k) }
        _ = try ShardMerge.merge(shards: (1...3).map { folder.path("shard\($0)") }, into: folder.path("merged"))
        for k in 1...3 { try FileManager.default.removeItem(at: folder.path("shard\(k)")) }

        // Content no other file has (a comment after the end), so nothing can be reused.
        let handle = try FileHandle(forWritingTo: folder.path("in/one/landscape.pdf"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n% edited\n".utf8))
        try handle.close()
        try FileManager.default.removeItem(at: folder.path("in/two/again"))
        let incremental = try single(folder)
        let (plan, read) = try plan(folder)
        #expect(read == 1, "only the edited file is read")
        let listed = plan.shards.flatMap(\.documents).map(\.source).sorted()
        #expect(listed == ["garbage.pdf", "landscape.pdf"], "the edited file, and the one that failed: \(listed)")
        #expect(plan.library?.count == (incremental.manifest?.documents.count ?? 0) - 2)
        var drawn = 0
        for k in 1...3 { drawn += try runShard(folder, k).drawnOutputs }
        #expect(drawn == incremental.drawnOutputs && drawn > 0, "only the edited file's pages drawn: \(drawn)")

        let shards = (1...3).map { folder.path("shard\($0)") }
        let withoutPlan = #expect(throws: UsageError.self) { try ShardMerge.merge(shards: shards, into: folder.path("merged")) }
        #expect(withoutPlan?.message.contains("--into LIBRARY --plan PLAN") == true)
        let merged = try ShardMerge.merge(shards: shards, into: folder.path("merged"), plan: folder.path("plan.json"))
        #expect(merged.totals == incremental.manifest?.totals)
        try ShardMergeTests.expectMergedIsSingle(folder, try #require(incremental.manifest))
        #expect(!FileManager.default.fileExists(atPath: folder.path("merged/again").path), "the removed document's outputs are gone")
        let rerun = try self.single(folder, output: "merged")
        #expect(rerun.drawnOutputs == 0)
    }

    static func catalog(_ folder: ScratchFolder, _ output: String) throws -> Catalog {
        try Catalog(path: Pipeline.catalogURL(output: folder.path(output)).path)
    }

    /// The planner balances on the drawing times the library's catalog recorded, not on page
    /// counts: a document of few pages that took long goes into a shard of its own.
    @Test func recordedDrawingTimesDecideTheBalance() throws {
        let folder = try ScratchFolder("plan")
        _ = try single(folder, output: "merged")
        let catalog = try Self.catalog(folder, "merged")
        let rows = try catalog.documents()
        // Each content's time is recorded (a copy that took its twin's outputs has none of its own).
        #expect(Set(rows.values.filter { ($0.drawSeconds ?? 0) > 0 }.map(\.contentHash)) == Set(rows.values.map(\.contentHash)))
        // The PDF of fewest pages (1) took 1,000 s, every other document 1 s.
        let copies = Dictionary(grouping: rows.values, by: \.contentHash)
        let slow = try #require(rows.values.filter { $0.kind == "pdf" && $0.status == .ok && copies[$0.contentHash]?.count == 1 }
            .min { ($0.pageCount ?? 0, $0.sourcePath) < ($1.pageCount ?? 0, $1.sourcePath) })
        #expect(slow.pageCount == 1)
        for row in rows.values {
            let id = try #require(row.id)
            let outputs = try catalog.outputs(documentIDs: [id]).map(\.path)
            try catalog.begin(row)
            try catalog.finish(documentID: id, status: row.status, pageCount: row.pageCount, errorCode: row.errorCode,
                               errorMessage: row.errorMessage, settings: row.settings, summary: row.summary,
                               drawSeconds: row.sourcePath == slow.sourcePath ? 1000 : 1, keeping: Set(outputs))
        }
        // Other settings than the library's: every document is planned, none read (all known).
        var configuration = try ShardMergeTests.corpus(folder, output: "merged")
        configuration.dpi = 40
        let (plan, _, read) = try ShardPlan.make(configuration: configuration, shards: 3)
        #expect(read == 0 && plan.library == nil)
        let slowShard = try #require(plan.shards.first { list in list.documents.contains { $0.seconds == 1000 } })
        #expect(slowShard.documents.count == 1, "a shard of its own: \(slowShard.documents.map(\.source))")
        let others = plan.shards.filter { $0.index != slowShard.index }
        #expect(others.allSatisfy { $0.cost < slowShard.cost && !$0.documents.isEmpty }, "\(plan.shards.map(\.cost))")
        #expect(plan.shards.flatMap(\.documents).allSatisfy { $0.seconds != nil })
    }

    /// A run that draws a document only in part (here its page images at another resolution,
    /// its thumbnails kept) keeps the time of the run that drew it whole: its own would make
    /// the document look cheaper than drawing it is.
    @Test func aDocumentDrawnInPartKeepsItsEarlierTime() throws {
        let folder = try ScratchFolder("plan")
        _ = try single(folder, output: "lib")
        let ok = { (rows: [String: DocumentRecord]) in rows.filter { $0.value.status == .ok }.mapValues(\.drawSeconds) }
        let first = ok(try Self.catalog(folder, "lib").documents())
        #expect(first.values.contains { $0 != nil }, "recorded (a copy that took its twin's outputs has none)")
        var configuration = try ShardMergeTests.corpus(folder, output: "lib")
        configuration.thumbnailBoxes = [64, 32]
        let rerun = try Pipeline(configuration: configuration, logger: logger).run()
        #expect(rerun.drawnOutputs > 0 && rerun.manifest?.totals.unchanged == 0)
        #expect(ok(try Self.catalog(folder, "lib").documents()) == first)
    }

    /// The planner reads each new file once: hashed and, for a PDF, opened for its page count
    /// from the same read. Counted by the kernel for this thread (the planner reads on the
    /// caller's), so nothing another test reads meanwhile counts.
    @Test func thePlannerReadsEachNewFileOnce() throws {
        let folder = try ScratchFolder("plan")
        let configuration = try ShardMergeTests.corpus(folder, output: "merged")
        func bytesRead() throws -> Int {
            let io = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
            let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("rchar:") })
            return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
        }
        let before = try bytesRead()
        let (plan, _, read) = try ShardPlan.make(configuration: configuration, shards: 3)
        let after = try bytesRead()
        let entries = plan.shards.flatMap(\.documents)
        let corpus = entries.reduce(0) { $0 + Int($1.size) }
        let pdfs = entries.filter { $0.kind == .pdf }
        #expect(read == entries.count && pdfs.count >= 10)
        #expect(pdfs.filter { $0.source != "garbage.pdf" }.allSatisfy { $0.cost >= 1 && $0.seconds == nil })
        // The PDFs' page counts were found (not estimated from their sizes): the multi-page one.
        #expect(pdfs.contains { $0.cost > 1 })
        // A few KiB of slack: the file system's and the scan's own reads, not another pass.
        #expect(after - before <= corpus + 16 << 10, "read \(after - before) bytes of a corpus of \(corpus)")
    }

    /// Item 5 of #37: a shard that did not finish (its folder missing, or without a manifest)
    /// is named by the merge, which writes nothing; running that shard alone then completes it.
    @Test func aShardThatDidNotFinishIsNamedAndRerunningItAloneCompletesTheMerge() throws {
        let folder = try ScratchFolder("plan")
        let single = try #require(try single(folder).manifest)
        _ = try plan(folder)
        for k in [1, 3] { _ = try runShard(folder, k) }
        let shards = (1...3).map { folder.path("shard\($0)") }
        let missing = #expect(throws: UsageError.self) { try ShardMerge.merge(shards: shards, into: folder.path("merged")) }
        #expect(missing?.subject == folder.path("shard2").path && missing?.message.contains("did its run finish") == true)
        try FileManager.default.createDirectory(at: folder.path("shard2"), withIntermediateDirectories: true)
        let unfinished = #expect(throws: UsageError.self) { try ShardMerge.merge(shards: shards, into: folder.path("merged")) }
        #expect(unfinished?.subject == folder.path("shard2").path)
        #expect(!FileManager.default.fileExists(atPath: folder.path("merged/manifest.json").path))

        _ = try runShard(folder, 2)
        _ = try ShardMerge.merge(shards: shards, into: folder.path("merged"))
        try ShardMergeTests.expectMergedIsSingle(folder, single)
    }
}
