import CGalleyMuPDF
import GalleyBase

/// MuPDF's base context (with locks) and a pool of contexts cloned from it.
///
/// MuPDF contexts must not be used by two threads at once, but contexts cloned from one base
/// share its resource store under the base's locks. Operation queues do not pin work to
/// threads, so instead of one context per thread, each unit of work borrows a cloned context
/// from this pool for its duration: at most one thread uses a context at any time, and the
/// pool never holds more contexts than there were concurrent borrowers.
public final class MuPDFEngine: Sendable {
    /// The base context; only touched under `pool`'s lock (cloning) and in `deinit`.
    private nonisolated(unsafe) let engine: OpaquePointer
    /// Idle cloned contexts.
    private let pool = Mutex<[ContextHandle]>([])

    /// The MuPDF version linked in.
    public static var version: String { String(cString: gm_mupdf_version()) }

    /// Creates the engine. `storeBytes` bounds MuPDF's cache of parsed fonts, images and
    /// other resources, shared by all of its contexts. (Decoded image tiles do not affect
    /// output: every drawing decodes its own, see the CGalleyMuPDF shim.)
    public init(storeBytes: Int = 256 << 20) throws(PDFError) {
        var error = gm_error()
        guard let engine = gm_engine_new(storeBytes, &error) else {
            throw PDFError(.outOfMemory, error.text, function: "fz_new_context")
        }
        self.engine = engine
    }

    deinit {
        pool.withLock { contexts in
            for context in contexts { gm_context_free(context.pointer) }
            contexts.removeAll()
        }
        gm_engine_free(engine)
    }

    /// Runs `body` with a context that no other thread uses until `body` returns.
    func withContext<T>(_ body: (OpaquePointer) throws(PDFError) -> T) throws(PDFError) -> T {
        let context = try borrow()
        defer { pool.withLock { $0.append(context) } }
        return try body(context.pointer)
    }

    /// A new context for one long-lived user (an open document); the caller frees it.
    func cloneContext(_ error: UnsafeMutablePointer<gm_error>) -> OpaquePointer? {
        let handle = pool.withLock { _ in gm_engine_clone_context(engine, error).map(ContextHandle.init) }
        return handle?.pointer
    }

    private func borrow() throws(PDFError) -> ContextHandle {
        let result: Result<ContextHandle, PDFError> = pool.withLock { contexts in
            if let context = contexts.popLast() { return .success(context) }
            var error = gm_error()
            guard let context = gm_engine_clone_context(engine, &error) else {
                return .failure(PDFError(.outOfMemory, error.text, function: "fz_clone_context"))
            }
            return .success(ContextHandle(pointer: context))
        }
        return try result.get()
    }
}

/// A cloned MuPDF context moving between threads. Sendable because ownership is exclusive: a
/// context is either idle in the pool (under its lock) or borrowed by exactly one caller.
private struct ContextHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// Test hooks: what drawings do with pictures, seen from outside.
extension MuPDFEngine {
    /// From now on (in the whole process), counts how many times drawings decode an image of
    /// `width` × `height` pixels, its size in the file, from zero: `countedImageDecodes`.
    public static func countImageDecodes(width: Int, height: Int) {
        gm_count_image_decodes(Int32(clamping: width), Int32(clamping: height))
    }

    /// Decodes counted since `countImageDecodes`.
    public static var countedImageDecodes: Int { Int(gm_counted_image_decodes()) }

    /// Whether drawings inflate Flate images without zlib's checksum (true, the default) or
    /// through MuPDF's own filter; the pixels are the same either way.
    public static func inflatesFlateImagesRaw(_ raw: Bool) {
        gm_set_raw_inflate(raw ? 1 : 0)
    }
}
