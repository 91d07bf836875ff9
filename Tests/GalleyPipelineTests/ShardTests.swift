import Foundation
import GalleyBase
import GalleyPipeline
import GalleyTestSupport
import Testing

@Suite struct ShardTests {
    @Test func shardsAreParsedAndImpossibleOnesRefused() throws {
        #expect(try Shard(parsing: "2/8") == Shard(index: 2, count: 8))
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2", "1/2/3", ""] {
            let error = #expect(throws: UsageError.self) { try Shard(parsing: bad) }
            #expect(error?.description.hasPrefix("--shard") == true, "\(bad)")
        }
    }

    @Test func theEnginesJobIndexesNameTheShard() throws {
        #expect(try Shard.fromEnvironment([:], count: nil) == nil)
        #expect(try Shard.fromEnvironment(["GALLEY_SHARD": "3/5"], count: nil) == Shard(index: 3, count: 5))
        // Kubernetes Indexed Jobs and AWS Batch array jobs count from 0.
        #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], count: 4) == Shard(index: 1, count: 4))
        #expect(try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "9", "GALLEY_SHARD_COUNT": "10"], count: nil) == Shard(index: 10, count: 10))
        let noTotal = #expect(throws: UsageError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], count: nil) }
        #expect(noTotal?.message.contains("--shard-count") == true)
        #expect(throws: UsageError.self) { try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "4"], count: 4) }
        #expect(throws: UsageError.self) { try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "x"], count: 4) }
    }

    /// Slurm tells a task its array's range: `--array=1-8`, `--array=0-7` and `--array=2-16:2`
    /// all make shards 1/8 to 8/8, the count from the array unless --shard-count says otherwise.
    @Test func aSlurmArrayTaskNamesTheShard() throws {
        func slurm(_ task: Int, min: Int, step: Int? = nil, count: Int? = 8) -> [String: String] {
            var environment = ["SLURM_ARRAY_TASK_ID": "\(task)", "SLURM_ARRAY_TASK_MIN": "\(min)", "SLURM_JOB_ID": "77"]
            if let step { environment["SLURM_ARRAY_TASK_STEP"] = "\(step)" }
            if let count { environment["SLURM_ARRAY_TASK_COUNT"] = "\(count)" }
            return environment
        }
        #expect(try Shard.fromEnvironment(slurm(1, min: 1), count: nil) == Shard(index: 1, count: 8))
        #expect(try Shard.fromEnvironment(slurm(8, min: 1), count: nil) == Shard(index: 8, count: 8))
        #expect(try Shard.fromEnvironment(slurm(0, min: 0), count: nil) == Shard(index: 1, count: 8))
        #expect(try Shard.fromEnvironment(slurm(16, min: 2, step: 2), count: nil) == Shard(index: 8, count: 8))
        #expect(try Shard.fromEnvironment(slurm(3, min: 1, count: nil), count: 4) == Shard(index: 3, count: 4))
        #expect(throws: UsageError.self) { try Shard.fromEnvironment(slurm(3, min: 2, step: 2), count: nil) }
        #expect(throws: UsageError.self) { try Shard.fromEnvironment(slurm(9, min: 1), count: nil) }
        let noCount = #expect(throws: UsageError.self) { try Shard.fromEnvironment(slurm(2, min: 1, count: nil), count: nil) }
        #expect(noCount?.message.contains("--shard-count") == true)
    }

    @Test func everyDocumentIsInExactlyOneShardAndTheSplitIsEven() throws {
        let count = 7
        let shards = try (1...count).map { try Shard(index: $0, count: count) }
        var sizes = [Int](repeating: 0, count: count)
        var generator = SplitMix(seed: 42)
        for _ in 0..<7000 {
            // SHA-256 digests are uniformly distributed bytes, kept as lowercase hex.
            let digest = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
            let owners = shards.filter { $0.contains(sha256Hex: digest) }
            #expect(owners.count == 1)
            if let owner = owners.first { sizes[owner.index - 1] += 1 }
        }
        // 1,000 expected per shard; a hash split stays well within ±15%.
        #expect(sizes.allSatisfy { (850...1150).contains($0) }, "\(sizes)")
    }
}
