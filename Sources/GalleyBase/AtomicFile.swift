#if canImport(Glibc)
import Glibc
#endif

/// Writes files atomically: the bytes go to a temporary file on the same file system, which is
/// renamed over the destination, so a reader (or a run killed half-way) never sees half a
/// file. The one implementation behind page images, manifests, the thumbnail cache and
/// freedesktop thumbnails.
///
/// Without `fsync`: a file lost in a power cut is made again by the next run, and syncing every
/// page would cost more than drawing it.
public enum AtomicFile {
    /// Writes `bytes` to `temporary` (created exclusively, with `mode`) and renames it to
    /// `destination`. The folders of either are made when the first attempt finds them missing.
    /// Nothing is left under either name when it fails.
    ///
    /// - Throws: `OutputError` naming the file and the system's reason.
    public static func write(_ bytes: [UInt8], to destination: String, through temporary: String,
                             mode: mode_t = 0o644) throws(OutputError) {
        try write(bytes, to: .path(destination), through: temporary, mode: mode)
    }

    /// `write(_:to:through:mode:)` to `relative` inside `folder`, through real folders only
    /// (`ConfinedFolder.place`): a link on the way fails the write.
    public static func write(_ bytes: [UInt8], to relative: String, in folder: ConfinedFolder, through temporary: String,
                             mode: mode_t = 0o644) throws(OutputError) {
        try write(bytes, to: .confined(folder, relative), through: temporary, mode: mode)
    }

    /// `write(to:through:mode:contents:)` to `relative` inside `folder`, through real folders only.
    public static func write(to relative: String, in folder: ConfinedFolder, through temporary: String, mode: mode_t = 0o644,
                             contents: (Sink) throws -> Void) throws {
        try write(to: .confined(folder, relative), through: temporary, mode: mode, contents: contents)
    }

    /// Where a written file goes.
    enum Destination {
        case path(String)
        case confined(ConfinedFolder, String)

        var path: String {
            switch self {
            case let .path(path): path
            case let .confined(folder, relative): folder.path(relative)
            }
        }
    }

    private static func write(_ bytes: [UInt8], to destination: Destination, through temporary: String,
                              mode: mode_t) throws(OutputError) {
        let fd = try create(temporary, mode: mode)
        if let failure = writeAll(bytes, to: fd) {
            close(fd)
            unlink(temporary)
            throw OutputError(path: destination.path, errno: failure, action: "write")
        }
        try finish(fd, temporary: temporary, destination: destination)
    }

    /// Writes what `contents` gives its sink, piece by piece, as `write(_:to:through:mode:)`
    /// writes its bytes: for a file too big to hold in memory at once (a long run's manifest).
    /// An error `contents` throws leaves nothing behind and is rethrown; a failed write is an
    /// `OutputError`.
    public static func write(to destination: String, through temporary: String, mode: mode_t = 0o644,
                             contents: (Sink) throws -> Void) throws {
        try write(to: .path(destination), through: temporary, mode: mode, contents: contents)
    }

    private static func write(to destination: Destination, through temporary: String, mode: mode_t,
                              contents: (Sink) throws -> Void) throws {
        let fd = try create(temporary, mode: mode)
        let sink = Sink(fd)
        do {
            try contents(sink)
            sink.flush()
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        if let failure = sink.failure {
            close(fd)
            unlink(temporary)
            throw OutputError(path: destination.path, errno: failure, action: "write")
        }
        try finish(fd, temporary: temporary, destination: destination)
    }

    /// Where `write(to:through:mode:contents:)` puts the bytes: buffered, written 64 KiB at a
    /// time; after a failed write it drops the rest and keeps the failure.
    ///
    /// Not Sendable: it lives inside one call to `write`, on one thread.
    public final class Sink {
        private let fd: Int32
        private var buffer: [UInt8] = []
        fileprivate private(set) var failure: Int32?
        private static let capacity = 1 << 16

        fileprivate init(_ fd: Int32) {
            self.fd = fd
            buffer.reserveCapacity(Self.capacity)
        }

        public func write(_ bytes: [UInt8]) {
            guard failure == nil else { return }
            buffer += bytes
            if buffer.count >= Self.capacity { flush() }
        }

        /// Writes `text` as UTF-8, without an array of its own.
        public func write(_ text: String) {
            guard failure == nil else { return }
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= Self.capacity { flush() }
        }

        fileprivate func flush() {
            guard failure == nil, !buffer.isEmpty else { return }
            failure = AtomicFile.writeAll(buffer, to: fd)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Creates `temporary` exclusively, making its folders when they are missing.
    private static func create(_ temporary: String, mode: mode_t) throws(OutputError) -> Int32 {
        var fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        if fd < 0 && errno == ENOENT {
            try makeFolders(parent(of: temporary))
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        }
        guard fd >= 0 else { throw OutputError(path: temporary, errno: errno, action: "create") }
        return fd
    }

    /// Closes the written temporary file and renames it to `destination`; removes it on failure.
    private static func finish(_ fd: Int32, temporary: String, destination destination_: Destination) throws(OutputError) {
        // A failed close can be the first report of a failed write (NFS, a full disk).
        guard close(fd) == 0 else {
            let code = errno
            unlink(temporary)
            throw OutputError(path: destination_.path, errno: code, action: "close")
        }
        let destination: String
        switch destination_ {
        case let .path(path):
            destination = path
        case let .confined(folder, relative):
            do {
                try folder.place(temporary, at: relative)
                return
            } catch {
                unlink(temporary)
                throw error
            }
        }
        var renamed = rename(temporary, destination) == 0
        if !renamed && errno == ENOENT {
            do {
                try makeFolders(parent(of: destination))
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
    public static func makeFolders(_ path: String) throws(OutputError) {
        var current = ""
        for component in path.split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw OutputError(path: path, message: "cannot create the folder \(current): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Writes every byte, retrying after signals; the errno of a failure.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var written = 0
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
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// A failure writing an output file, with its path and the reason.
public struct OutputError: Error, CustomStringConvertible, Sendable, FailureConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// The system's reason for `errno` while doing `action` to `path`.
    public init(path: String, errno code: Int32, action: String) {
        self.init(path: path, message: "cannot \(action): \(String(cString: strerror(code)))")
    }

    public var description: String { "\(path): \(message)" }

    public var failure: Failure { Failure(code: .writeFailed, message: description) }
}
