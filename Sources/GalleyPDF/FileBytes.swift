#if canImport(Glibc)
import Glibc
#endif

/// A file's bytes, read whole into memory with one pass over the file: what a caller that
/// both hashes a PDF and opens it (`galley plan`) reads once, opening the document from here
/// (`PDFDocument(bytes:path:password:engine:)`) instead of having MuPDF read the file again.
///
/// The memory is the file's size: callers read only files under a limit of their own this way.
///
/// `Sendable` by construction: the bytes are written once, in `init`, and only read after,
/// so the documents of a run's page lanes, each in a MuPDF engine of its own on its own
/// thread, read the same bytes at once (MuPDF wraps them in a buffer of each engine's that it
/// never writes).
public final class FileBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer
    /// How many bytes were read (the file's size, unless it shrank meanwhile).
    public let count: Int

    /// Reads the file at `path`.
    ///
    /// - Throws: `PDFError` `unreadable` with the system's reason when it cannot be opened or read.
    public init(path: String) throws(PDFError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PDFError(.unreadable, "cannot read the file: \(String(cString: strerror(errno)))", function: "open")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw PDFError(.unreadable, "cannot read the file: \(String(cString: strerror(errno)))", function: "fstat")
        }
        let size = max(0, Int(info.st_size))
        // One byte more than the size, never zero: the buffer must exist for an empty file too.
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: size + 1, alignment: 16)
        var filled = 0
        while filled < size {
            let got = read(descriptor, storage.baseAddress! + filled, size - filled)
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else {
                let reason = String(cString: strerror(errno))
                storage.deallocate()
                throw PDFError(.unreadable, "cannot read the file: \(reason)", function: "read")
            }
            if got == 0 { break }  // shorter than it was a moment ago
            filled += got
        }
        self.storage = storage
        self.count = filled
    }

    /// Calls `body` with the bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    deinit {
        storage.deallocate()
    }
}
