import Foundation
import GalleyBase
import GalleyManifest
import GalleyRaster

/// The right to write into an output folder: one process at a time holds an exclusive
/// `flock(2)` lock on `<output>/.galley/lock`.
///
/// Two runs into one folder would remove each other's temporary files (`OutputStore.prepare`)
/// and count each other's documents in progress as crashes (`Catalog.countCrashes`). The
/// kernel releases the lock when its holder dies however it dies, so a lock left by a killed
/// process never blocks; the file itself stays (removing it would let a second process lock
/// a new file while a third still holds the old one) and says who held it last: `<pid>
/// <ISO 8601 start time>`, which only feeds the message of a run that finds it held.
///
/// Sendable: the descriptor is set once and only closed in `deinit`.
public final class OutputLock: Sendable {
    /// The output folder this lock is for.
    public let output: URL
    private let descriptor: Int32

    /// Who holds a lock, as the holder wrote it into the lock file.
    public struct Holder: Sendable, CustomStringConvertible {
        public var pid: Int32?
        /// ISO 8601 time the holder took the lock.
        public var since: String?

        public var description: String {
            guard let pid else { return "another galley process" }
            return "galley (pid \(pid))" + (since.map { " since \($0)" } ?? "")
        }
    }

    private init(output: URL, descriptor: Int32) {
        self.output = output
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)  // releases the lock
    }

    /// Takes the lock of `output` (made when missing), failing at once when another process
    /// holds it.
    ///
    /// - Throws: `UsageError` naming the holder when the folder is in use (followed by
    ///   `hint`), or naming the system's reason when the lock file cannot be made.
    public static func acquire(output: URL, hint: String = "try again when it has finished") throws(UsageError) -> OutputLock {
        let descriptor = try open(output)
        guard tryLock(descriptor) else {
            let holder = Self.holder(descriptor)
            close(descriptor)
            throw UsageError(subject: output.path, message: "output folder in use by \(holder); \(hint)")
        }
        return claim(output, descriptor)
    }

    /// Takes the lock of `output`, waiting while another process holds it: `onWait` is told
    /// once whom it waits for. Returns nil when `cancellation` fires first.
    ///
    /// Waiting polls a non-blocking `flock` rather than blocking in it: Ctrl-C reaches the
    /// command through a dispatch source with the signal itself ignored, so a blocked `flock`
    /// could never be interrupted.
    ///
    /// - Throws: `UsageError` when the lock file cannot be made.
    public static func acquire(output: URL, waiting cancellation: Cancellation,
                               onWait: (Holder) -> Void) throws(UsageError) -> OutputLock? {
        let descriptor = try open(output)
        var told = false
        while !tryLock(descriptor) {
            if !told {
                onWait(holder(descriptor))
                told = true
            }
            guard !cancellation.isCancelled else {
                close(descriptor)
                return nil
            }
            usleep(50_000)
        }
        return claim(output, descriptor)
    }

    private static func lockPath(_ output: URL) -> String {
        OutputStore(root: output).stateFolder.appendingPathComponent("lock").path
    }

    private static func open(_ output: URL) throws(UsageError) -> Int32 {
        let path = lockPath(output)
        // Through real folders only, and never through a link named `lock`: a planted link
        // would have its target truncated or created.
        let output = ConfinedFolder(root: output.path)
        do {
            _ = try output.openFolder(".galley", create: true).map(close)
        } catch {
            throw UsageError(subject: "output", message: "\(error.description); choose a folder you can write to (output: in pipeline.yml, or --output)")
        }
        let descriptor = output.openFile(".galley/lock", flags: O_RDWR | O_CREAT)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link; remove it (Galley makes the lock itself)" : String(cString: strerror(errno))
            throw UsageError(subject: "output",
                             message: "\(path): cannot open the output folder's lock: \(reason); choose a folder you can write to (output: in pipeline.yml, or --output)")
        }
        return descriptor
    }

    /// One non-blocking attempt, retried after signals.
    private static func tryLock(_ descriptor: Int32) -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EINTR else { return false }
        }
        return true
    }

    /// Writes who holds the lock into its file, for the message of whoever finds it held.
    private static func claim(_ output: URL, _ descriptor: Int32) -> OutputLock {
        let record = Array("\(getpid()) \(ISO8601DateFormatter().string(from: Date()))\n".utf8)
        // Best effort: the lock is held whatever the file says.
        if ftruncate(descriptor, 0) == 0 { _ = record.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) } }
        return OutputLock(output: output, descriptor: descriptor)
    }

    /// What the holder wrote. It writes just after locking, so an empty file is read again
    /// for a moment before giving up on naming it.
    private static func holder(_ descriptor: Int32) -> Holder {
        for _ in 0..<20 {
            var buffer = [UInt8](repeating: 0, count: 128)
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            let fields = String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).split(whereSeparator: \.isWhitespace)
            if fields.count >= 2, let pid = Int32(fields[0]) { return Holder(pid: pid, since: String(fields[1])) }
            usleep(10_000)
        }
        return Holder()
    }
}
