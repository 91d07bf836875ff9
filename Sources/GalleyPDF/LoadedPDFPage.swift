import CGalleyMuPDF
import GalleyRaster
#if canImport(Glibc)
import Glibc
#endif

/// A PDF page loaded but not recorded: drawing it runs its contents straight into the drawing.
///
/// A page drawn once (a thumbnails-only run draws the largest box and reduces the others from
/// that drawing) gains nothing from a display list: recording one only to play it back once
/// costs the list's building and its replay on top of running the contents. Drawn straight,
/// Debian's manuals took 7-10% less CPU per 256-pixel drawing (issue 39); the pixels are the
/// list's but on a few pages where the list culls differently (a few bytes of a thumbnail).
///
/// Confined to the thread that loaded it: the page belongs to its open document, which MuPDF
/// lets one thread use at a time, and is run and released with the document's own context. A
/// run's page lane loads, draws and lets go of each page in one operation before the next
/// (`Stages.recordPages`); `draw` on another thread is a programming error, and traps. Sendable
/// only so that it can stand where a `PageSource` does.
public final class LoadedPDFPage: PageSource, @unchecked Sendable {
    /// The document (kept open while the page lives) and its context.
    private let handle: DocumentHandle
    private let page: OpaquePointer
    /// The thread that loaded the page: the only one that may draw it.
    private let owner = pthread_self()
    private let bounds: (x0: Float, y0: Float, x1: Float, y1: Float)
    /// The page's /Rotate, normalised to 0, 90, 180 or 270.
    public let rotation: Int
    /// Told, after each drawing, how many errors MuPDF met and skipped reading the page.
    private let readErrors: @Sendable (Int) -> Void

    init(handle: DocumentHandle, page: OpaquePointer, info: gm_page_info, readErrors: @escaping @Sendable (Int) -> Void) {
        self.handle = handle
        self.page = page
        self.bounds = (info.x0, info.y0, info.x1, info.y1)
        self.rotation = Int(info.rotation)
        self.readErrors = readErrors
    }

    deinit {
        assert(pthread_equal(owner, pthread_self()) != 0, "a loaded PDF page was released off the thread that loaded it")
        gm_page_free(handle.context, page)
    }

    public var size: PageSize {
        PageSize(width: Double(bounds.x1 - bounds.x0), height: Double(bounds.y1 - bounds.y0))
    }

    public func pixelBounds(scale: Double) -> PixelRect {
        mupdfPixelBounds(bounds, scale: scale)
    }

    public func draw(into bitmap: Bitmap, rect: PixelRect, scale: Double, cancellation: Cancellation) throws {
        precondition(bitmap.width == rect.width && bitmap.height == rect.height, "bitmap does not match the rectangle")
        precondition(pthread_equal(owner, pthread_self()) != 0, "a loaded PDF page is drawn only on the thread that loaded it")
        guard !cancellation.isCancelled else {
            throw PDFError(.cancelled, "rendering was cancelled", function: "fz_run_page")
        }
        guard let samples = bitmap.pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let cookie = try CookieHandle()
        var errors: Int32 = 0
        let context = handle.context, page = self.page
        _ = try cancellation.whileRegistered(onCancel: { cookie.abort() }) { () throws(PDFError) in
            try mupdfCall("fz_run_page", code: .renderFailed) {
                gm_page_render_rgb(context, page, Float(scale), Int32(rect.x), Int32(rect.y),
                                   Int32(rect.width), Int32(rect.height), samples, cookie.cookie, &errors, $0)
            }
        }
        readErrors(Int(errors))
    }
}
