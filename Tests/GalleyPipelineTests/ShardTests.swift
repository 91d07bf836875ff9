import Foundation
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
