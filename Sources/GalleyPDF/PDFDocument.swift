import CGalleyMuPDF
import GalleyRaster
#if canImport(Glibc)
import Glibc
#endif

/// An open PDF, used by one thread for its whole life.
///
/// It owns a cloned MuPDF context, so a worker keeps the document open while it records page
/// after page (reopening per page would reparse the file each time). It is deliberately not
/// `Sendable`: the pages it records are what crosses threads.
public final class PDFDocument {
    public let engine: MuPDFEngine
    public let path: String
    /// The number of pages.
    public let pageCount: Int
    /// Whether MuPDF had to rebuild the file's cross-reference table to open it.
    public let wasRepaired: Bool
    /// Whether the file was cut short: repaired, and without its `%%EOF` marker. Its pages are
    /// what MuPDF rebuilt from what is there (as `mutool draw` draws them); later ones may be
    /// lost.
    public let isTruncated: Bool
    /// The name of the document's encryption (`None` when it has none), as MuPDF reports it.
    public let encryption: String
    /// Whether the document is encrypted (whether or not it needed a password).
    public var isEncrypted: Bool { encryption != "None" }

    /// The open document and its context, released together whenever this object or a
    /// failing initializer lets go of them.
    private let handle: DocumentHandle
    /// Pages recorded (or loaded) so far: every `cacheDropInterval`th drops the parsed objects
    /// nothing holds any more.
    private var recorded = 0
    /// How many pages a document records between drops of its parsed objects that nothing holds
    /// (`gm_page_record`'s `drop_cached`): memory of long documents against the cost of parsing
    /// them again. The objects come to about 1.5 KB a page, so 256 pages hold about 384 KB; a
    /// drop costs the next pages the parsing of the page tree, resources and object streams
    /// again: every 32 pages (the old interval) made thumbnails of Debian's 261-page reference
    /// take 28% more instructions than never dropping, every 128 8% (issue 39).
    public var cacheDropInterval = 256
    private var context: OpaquePointer { handle.context }
    private var document: OpaquePointer { handle.document }

    /// Opens `path`, authenticating with `password` when the document needs one.
    public convenience init(path: String, password: String?, engine: MuPDFEngine) throws(PDFError) {
        try self.init(path: path, bytes: nil, password: password, engine: engine)
    }

    /// Opens the PDF whose bytes the caller read (`bytes`, from `path`, which errors name):
    /// MuPDF reads no file, so a caller that also hashes the file reads it once.
    public convenience init(bytes: FileBytes, path: String, password: String?, engine: MuPDFEngine) throws(PDFError) {
        try self.init(path: path, bytes: bytes, password: password, engine: engine)
    }

    private init(path: String, bytes: FileBytes?, password: String?, engine: MuPDFEngine) throws(PDFError) {
        guard bytes != nil || access(path, R_OK) == 0 else {
            throw PDFError(.unreadable, "cannot read the file: \(String(cString: strerror(errno)))", function: "access")
        }
        var error = gm_error()
        guard let context = engine.cloneContext(&error) else {
            throw PDFError(.outOfMemory, error.text, function: "fz_clone_context")
        }
        var document: OpaquePointer?
        do {
            try mupdfCall("fz_open_document", code: .corrupt) { error in
                guard let bytes else { return gm_open_document(context, path, &document, error) }
                return bytes.withUnsafeBytes { data in
                    gm_open_document_from_memory(context, data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count,
                                                 "application/pdf", &document, error)
                }
            }
        } catch {
            gm_context_free(context)
            throw PDFDocument.classifyOpenFailure(error, path: path, bytes: bytes)
        }
        guard let document else {
            gm_context_free(context)
            throw PDFError(.corrupt, "MuPDF returned no document", function: "fz_open_document")
        }
        // From here on the handle releases both, however initialization ends.
        let handle = DocumentHandle(context: context, document: document, engine: engine, bytes: bytes)
        self.handle = handle
        self.engine = engine
        self.path = path
        let encryptionName = Self.metadata("encryption", context: context, document: document) ?? "None"
        self.encryption = encryptionName
        let wasRepaired = gm_document_was_repaired(context, document) != 0
        self.wasRepaired = wasRepaired
        self.isTruncated = wasRepaired && !PDFDocument.hasEndMarker(path: path, bytes: bytes)

        var needs: Int32 = 0
        try mupdfCall("fz_needs_password", code: .corrupt) { gm_document_needs_password(context, document, &needs, $0) }
        if needs != 0 {
            guard let password else {
                throw PDFError(.passwordRequired,
                               "the document is encrypted (\(encryptionName)) and no password is configured for it",
                               function: "fz_needs_password")
            }
            var ok: Int32 = 0
            try mupdfCall("fz_authenticate_password", code: .corrupt) {
                gm_document_authenticate(context, document, password, &ok, $0)
            }
            guard ok != 0 else {
                throw PDFError(.wrongPassword, "the configured password does not open this \(encryptionName) document",
                               function: "fz_authenticate_password")
            }
        }
        var count: Int32 = 0
        try mupdfCall("fz_count_pages", code: .corrupt) { gm_document_count_pages(context, document, &count, $0) }
        guard count > 0 else {
            if isTruncated {
                throw PDFError(.truncated, "the file ends without its %%EOF marker and MuPDF rebuilt no page from what is there",
                               function: "pdf_repair_xref")
            }
            let why = wasRepaired ? "MuPDF repaired the damaged file and found no pages" : "the document has no pages"
            throw PDFError(.noPages, why, function: "fz_count_pages")
        }
        // A file cut short is drawn as far as MuPDF could rebuild it, as `mutool draw` does;
        // the caller says so (`isTruncated`), since pages after the cut may be missing.
        //
        // The count is the page tree's /Count, a claim: a 338-byte file claiming 1,000,000,000
        // pages had a run allocate every page number and abort. When the tree holds no page at
        // the claimed last index, the pages it does hold are found by bisection (each probe
        // walks the tree to one page, about 31 probes at most), and those are the document's.
        self.claimedPageCount = Int(count)
        var found = Int(count)
        if gm_document_page_exists(context, document, count - 1) == 0 {
            var low = 0, high = Int(count) - 1  // page `low` - 1 exists (or low is 0); page `high` does not
            while low < high {
                let middle = low + (high - low) / 2
                if gm_document_page_exists(context, document, Int32(middle)) != 0 { low = middle + 1 } else { high = middle }
            }
            found = low
        }
        guard found > 0 else {
            throw PDFError(.impossiblePageTree, "the page tree claims \(count) page(s) but holds none", function: "pdf_lookup_page_obj")
        }
        self.pageCount = found
    }

    /// The page count the document's page tree claims; more than `pageCount` when the tree
    /// does not hold that many pages (the document then fails as `impossible-page-tree`, its
    /// pages that exist still drawn).
    public let claimedPageCount: Int

    /// A metadata value such as `info:Title`, or nil when absent or empty.
    public func metadata(_ key: String) -> String? {
        Self.metadata(key, context: context, document: document)
    }

    private static func metadata(_ key: String, context: OpaquePointer, document: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 1024)
        guard gm_document_metadata(context, document, key, &buffer, Int32(buffer.count)) > 1 else { return nil }
        let value = String(cStringBuffer: buffer)
        return value.isEmpty ? nil : value
    }

    /// A page's size in points (after CropBox and /Rotate), its /Rotate and its number of
    /// links, read without running its contents.
    public func pageFacts(_ index: Int) throws(PDFError) -> (size: PageSize, rotation: Int, links: Int) {
        precondition(index >= 0 && index < pageCount, "page \(index) outside 0..<\(pageCount)")
        var info = gm_page_info()
        var links: Int32 = 0
        try mupdfCall("fz_load_page", code: .corrupt) { gm_page_inspect(context, document, Int32(index), &info, &links, $0) }
        return (PageSize(width: Double(info.x1 - info.x0), height: Double(info.y1 - info.y0)), Int(info.rotation), Int(links))
    }

    /// The text of page `index` (0-based), as MuPDF extracts it: a line of the page a line.
    public func pageText(_ index: Int) throws(PDFError) -> String {
        precondition(index >= 0 && index < pageCount, "page \(index) outside 0..<\(pageCount)")
        var text: UnsafeMutablePointer<CChar>?
        var length = 0
        try mupdfCall("fz_new_stext_page_from_page", code: .corrupt) { gm_page_text(context, document, Int32(index), &text, &length, $0) }
        guard let text else { return "" }
        defer { gm_text_free(text) }
        return text.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// Loads page `index` (0-based) and records it as a display list that any thread may draw.
    /// Cancelling `cancellation` stops the recording.
    public func recordPage(_ index: Int, cancellation: Cancellation = Cancellation()) throws(PDFError) -> PDFPage {
        precondition(index >= 0 && index < pageCount, "page \(index) outside 0..<\(pageCount)")
        var list: OpaquePointer?
        var info = gm_page_info()
        let cookie = try CookieHandle()
        recorded += 1
        let dropCached: Int32 = recorded % cacheDropInterval == 0 ? 1 : 0
        _ = try cancellation.whileRegistered(onCancel: { cookie.abort() }) { () throws(PDFError) in
            try mupdfCall("fz_load_page", code: .corrupt) {
                gm_page_record(context, document, Int32(index), dropCached, &list, &info, cookie.cookie, $0)
            }
        }
        guard let list else {
            throw PDFError(.corrupt, "MuPDF recorded no display list for page \(index + 1)", function: "fz_new_display_list_from_page")
        }
        return PDFPage(engine: engine, list: list, info: info)
    }

    /// Loads page `index` (0-based) without recording it: the page is drawn by running its
    /// contents straight into the drawing (`LoadedPDFPage`), on this thread only. For a page
    /// drawn once; `readErrors` is told how many errors MuPDF skipped reading it, once drawn.
    public func loadPage(_ index: Int, readErrors: @escaping @Sendable (Int) -> Void) throws(PDFError) -> LoadedPDFPage {
        precondition(index >= 0 && index < pageCount, "page \(index) outside 0..<\(pageCount)")
        var page: OpaquePointer?
        var info = gm_page_info()
        recorded += 1
        let dropCached: Int32 = recorded % cacheDropInterval == 0 ? 1 : 0
        try mupdfCall("fz_load_page", code: .corrupt) {
            gm_page_load(context, document, Int32(index), dropCached, &page, &info, $0)
        }
        guard let page else {
            throw PDFError(.corrupt, "MuPDF loaded no page \(index + 1)", function: "fz_load_page")
        }
        return LoadedPDFPage(handle: handle, page: page, info: info, readErrors: readErrors)
    }

    /// A failure to open, classified by looking at the file's first bytes.
    private static func classifyOpenFailure(_ error: PDFError, path: String, bytes: FileBytes?) -> PDFError {
        guard error.code == .corrupt else { return error }
        var info = stat()
        if bytes.map({ $0.count == 0 }) ?? (stat(path, &info) == 0 && info.st_size == 0) {
            return PDFError(.notPDF, "the file is empty (0 bytes)", function: error.function)
        }
        if !hasPDFHeader(path: path, bytes: bytes) {
            return PDFError(.notPDF, "the file is not a PDF (no %PDF header); MuPDF said: \(error.message)",
                            function: error.function)
        }
        if !hasEndMarker(path: path, bytes: bytes) {
            return PDFError(.truncated, "the file ends without its %%EOF marker and MuPDF cannot rebuild it; MuPDF said: \(error.message)",
                            function: error.function)
        }
        return error
    }

    /// Whether `%PDF-` occurs in the first KiB, where readers accept the header (of `bytes`
    /// when the document was opened from memory, else of the file).
    static func hasPDFHeader(path: String, bytes: FileBytes? = nil) -> Bool {
        contains(Array("%PDF-".utf8), inFirst: true, path: path, in: bytes)
    }

    /// Whether `%%EOF` occurs in the last KiB (writers may append a little after it).
    static func hasEndMarker(path: String, bytes: FileBytes? = nil) -> Bool {
        contains(Array("%%EOF".utf8), inFirst: false, path: path, in: bytes)
    }

    private static func contains(_ signature: [UInt8], inFirst: Bool, path: String, in memory: FileBytes?) -> Bool {
        let window = 1024
        var bytes = [UInt8](repeating: 0, count: window)
        var count = 0
        if let memory {
            bytes = memory.withUnsafeBytes { all in Array(inFirst ? all.prefix(window) : all.suffix(window)) }
            count = bytes.count
        } else {
            guard let file = fopen(path, "rb") else { return false }
            defer { fclose(file) }
            if !inFirst { fseeko(file, 0, SEEK_END); fseeko(file, max(0, ftello(file) - off_t(window)), SEEK_SET) }
            count = fread(&bytes, 1, bytes.count, file)
        }
        guard count >= signature.count else { return false }
        return (0...(count - signature.count)).contains { start in
            bytes[start..<(start + signature.count)].elementsEqual(signature)
        }
    }
}

/// Owns an open MuPDF document and the context it was opened with, and keeps the engine
/// those came from alive until both are freed: dropping a document takes the engine's locks
/// (MuPDF purges its glyph cache), so the engine must outlive it. `PDFDocument` holds the
/// engine too, but the order in which an object's properties are released is not a
/// guarantee; a release build of `galley thumbnail` freed the engine first and aborted.
final class DocumentHandle {
    let context: OpaquePointer
    let document: OpaquePointer
    private let engine: MuPDFEngine
    /// The bytes a document opened from memory reads, released after it (stored properties go
    /// after `deinit`'s body has run).
    private let bytes: FileBytes?

    init(context: OpaquePointer, document: OpaquePointer, engine: MuPDFEngine, bytes: FileBytes?) {
        self.context = context
        self.document = document
        self.engine = engine
        self.bytes = bytes
    }

    deinit {
        gm_document_free(context, document)
        gm_context_free(context)
    }
}
