import Foundation
import GalleyBase

/// One of N deterministic parts of a corpus, so N machines can each run one (`--shard K/N`).
///
/// A document belongs to shard K when the first eight bytes of its content's SHA-256, read as
/// a big-endian number, are K − 1 modulo N. That depends only on the bytes, never on where
/// the file is or in what order a file system lists it, so every machine agrees on the split
/// without talking to the others, and a document renamed between runs stays in its shard.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// 1-based: 1...count.
    public let index: Int
    public let count: Int

    /// Most shards a corpus may be split into.
    public static let maximumCount = 100_000

    public init(index: Int, count: Int) throws(UsageError) {
        guard (1...Self.maximumCount).contains(count) else {
            throw UsageError(subject: "--shard", message: "the shard count \(count) is outside 1...\(Self.maximumCount)")
        }
        guard (1...count).contains(index) else {
            throw UsageError(subject: "--shard", message: "shard \(index) of \(count) does not exist; shards are numbered 1 to \(count)")
        }
        self.index = index
        self.count = count
    }

    /// Parses `K/N` (1-based K).
    public init(parsing text: String) throws(UsageError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0].trimmingCharacters(in: .whitespaces)),
              let count = Int(parts[1].trimmingCharacters(in: .whitespaces)) else {
            throw UsageError(subject: "--shard", message: "'\(text)' is not K/N (say --shard 2/8 for the second of eight shards)")
        }
        try self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The shard a job is, from the environment of the engines that run job arrays, when the
    /// command line gives none: `GALLEY_SHARD` (`K/N`); a Kubernetes Indexed Job's
    /// `JOB_COMPLETION_INDEX` or an AWS Batch array job's `AWS_BATCH_JOB_ARRAY_INDEX` (both
    /// 0-based) with the total from `count` (`--shard-count`) or `GALLEY_SHARD_COUNT`, since
    /// neither engine tells a job how many there are; a Slurm job array's task
    /// (`SLURM_ARRAY_TASK_ID` counted from `SLURM_ARRAY_TASK_MIN` in steps of
    /// `SLURM_ARRAY_TASK_STEP`, of `SLURM_ARRAY_TASK_COUNT`, which `count` overrides: `sbatch
    /// --array=1-8` and `--array=0-7` both make shards 1/8 to 8/8). nil when none is set.
    public static func fromEnvironment(_ environment: [String: String], count: Int?) throws(UsageError) -> Shard? {
        if let value = environment["GALLEY_SHARD"], !value.isEmpty { return try Shard(parsing: value) }
        if let value = environment["SLURM_ARRAY_TASK_ID"], !value.isEmpty {
            func number(_ name: String) -> Int? { environment[name].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
            guard let task = Int(value.trimmingCharacters(in: .whitespaces)), let first = number("SLURM_ARRAY_TASK_MIN") else {
                throw UsageError(subject: "--shard", message: "SLURM_ARRAY_TASK_ID=\(value) without a numeric SLURM_ARRAY_TASK_MIN is not a task of a job array")
            }
            let step = max(1, number("SLURM_ARRAY_TASK_STEP") ?? 1)
            guard task >= first, (task - first) % step == 0 else {
                throw UsageError(subject: "--shard", message: "SLURM_ARRAY_TASK_ID=\(value) is not a task of the array from \(first) in steps of \(step); give the array as a range (sbatch --array=1-N)")
            }
            guard let total = count ?? number("SLURM_ARRAY_TASK_COUNT") else {
                throw UsageError(subject: "--shard", message: "SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT; pass --shard-count N")
            }
            return try Shard(index: (task - first) / step + 1, count: total)
        }
        for variable in ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] {
            guard let value = environment[variable], !value.isEmpty else { continue }
            guard let zeroBased = Int(value), zeroBased >= 0 else {
                throw UsageError(subject: "--shard", message: "\(variable)=\(value) is not a job index (0, 1, 2, ...)")
            }
            let total: Int
            if let count {
                total = count
            } else if let text = environment["GALLEY_SHARD_COUNT"], let parsed = Int(text) {
                total = parsed
            } else {
                throw UsageError(subject: "--shard", message: "\(variable) is set but not how many shards there are; pass --shard-count N or set GALLEY_SHARD_COUNT")
            }
            return try Shard(index: zeroBased + 1, count: total)
        }
        return nil
    }

    /// Whether the document whose content has this SHA-256 (lowercase hex, as the catalog
    /// keeps it) belongs to this shard.
    public func contains(sha256Hex digest: String) -> Bool {
        guard let value = UInt64(digest.prefix(16), radix: 16) else { return index == 1 }
        return Int(value % UInt64(count)) == index - 1
    }
}
