import Crypto
import Foundation

/// Writes outputs atomically: bytes go to a temporary file under `<output>/.galley/tmp` and
/// are renamed into place, so an interrupted run never leaves a half-written file.
public struct OutputStore: Sendable {
    public let root: URL
    public var stateFolder: URL { root.appendingPathComponent(".galley", isDirectory: true) }
    public var temporaryFolder: URL { stateFolder.appendingPathComponent("tmp", isDirectory: true) }

    public init(root: URL) {
        self.root = root
    }

    /// Creates the folders and removes temporary files a killed run left behind.
    public func prepare() throws(OutputError) {
        try? FileManager.default.removeItem(at: temporaryFolder)
        do {
            try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
        } catch {
            throw OutputError(path: temporaryFolder.path, message: "cannot create the output folder: \(error.localizedDescription)")
        }
    }

    /// Removes the temporary folder (at the end of a run, finished or interrupted).
    public func cleanUp() {
        try? FileManager.default.removeItem(at: temporaryFolder)
    }

    /// Writes `bytes` to `relativePath` under the root, atomically.
    public func write(_ bytes: [UInt8], to relativePath: String) throws(OutputError) {
        let destination = root.appendingPathComponent(relativePath)
        let temporary = temporaryFolder.appendingPathComponent("\(UUID().uuidString).tmp")
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw OutputError(path: destination.path, message: "cannot create its folder: \(error.localizedDescription)")
        }
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw OutputError(path: temporary.path, errno: errno, action: "create") }
        var written = 0
        let failure: Int32? = bytes.withUnsafeBytes { buffer -> Int32? in
            while written < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += n
            }
            return nil
        }
        if let failure {
            close(fd)
            unlink(temporary.path)
            throw OutputError(path: destination.path, errno: failure, action: "write")
        }
        guard close(fd) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw OutputError(path: destination.path, errno: code, action: "close")
        }
        guard rename(temporary.path, destination.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw OutputError(path: destination.path, errno: code, action: "rename into place")
        }
    }
}

/// A failure writing an output file.
public struct OutputError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    init(path: String, errno code: Int32, action: String) {
        self.init(path: path, message: "cannot \(action): \(String(cString: strerror(code)))")
    }

    public var description: String { "\(path): \(message)" }
}

/// SHA-256 as lowercase hex.
enum Digest {
    static func sha256(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// Hashes a file in 1 MiB pieces, so large documents are not read into memory at once.
    static func sha256(file url: URL) throws -> (hash: String, bytes: Int) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        var total = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            total += chunk.count
        }
        return (hex(hasher.finalize()), total)
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
