import Foundation
import GalleyCatalog

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
        try Self.makeFolders(temporaryFolder.path)
    }

    /// Removes the temporary folder (at the end of a run, finished or interrupted).
    public func cleanUp() {
        try? FileManager.default.removeItem(at: temporaryFolder)
    }

    /// Writes `bytes` to `relativePath` under the root, atomically.
    public func write(_ bytes: [UInt8], to relativePath: String) throws(OutputError) {
        try Self.write(bytes, to: root.appendingPathComponent(relativePath).path,
                       through: temporaryFolder.appendingPathComponent("\(UUID().uuidString).tmp").path, mode: 0o644)
    }

    /// Writes `bytes` to `temporary` (created with `mode`) and renames it to `destination`,
    /// making the destination's folders on first need. Nothing is left under either name when
    /// it fails.
    static func write(_ bytes: [UInt8], to destination: String, through temporary: String, mode: mode_t) throws(OutputError) {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw OutputError(path: temporary, errno: errno, action: "create") }
        var written = 0
        let failure: Int32? = bytes.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            while written < buffer.count {
                let n = Glibc.write(fd, base + written, buffer.count - written)
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
            unlink(temporary)
            throw OutputError(path: destination, errno: failure, action: "write")
        }
        guard close(fd) == 0 else {
            let code = errno
            unlink(temporary)
            throw OutputError(path: destination, errno: code, action: "close")
        }
        // The document's folders are made on first need, not checked for every file.
        var renamed = rename(temporary, destination) == 0
        if !renamed && errno == ENOENT {
            do {
                try Self.makeFolders((destination as NSString).deletingLastPathComponent)
            } catch {
                unlink(temporary)
                throw error
            }
            renamed = rename(temporary, destination) == 0
        }
        guard renamed else {
            let code = errno
            unlink(temporary)
            throw OutputError(path: destination, errno: code, action: "rename into place")
        }
    }

    /// `mkdir -p`, reporting the system's reason when a folder cannot be made.
    static func makeFolders(_ path: String) throws(OutputError) {
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw OutputError(path: path, message: "cannot create the folder \(current): \(String(cString: strerror(errno)))")
            }
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

