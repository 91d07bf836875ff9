import CGalleyMuPDF
import GalleyRaster

/// A PDF page recorded as a MuPDF display list: the `PageSource` for PDFs.
///
/// Sendable because the display list is immutable once recorded and MuPDF documents that one
/// display list may be run concurrently by threads using contexts cloned from the same base;
/// every draw borrows its own context from the engine's pool.
public final class PDFPage: PageSource, @unchecked Sendable {
    private let engine: MuPDFEngine
    private let list: OpaquePointer
    /// The page's bounds in points (after CropBox and /Rotate), in MuPDF's page space.
    private let bounds: (x0: Float, y0: Float, x1: Float, y1: Float)
    /// The page's /Rotate, normalised to 0, 90, 180 or 270.
    public let rotation: Int
    /// Errors MuPDF met and skipped while reading the page: when non-zero, the page is drawn
    /// as far as it could be read and may be incomplete.
    public let readErrors: Int

    init(engine: MuPDFEngine, list: OpaquePointer, info: gm_page_info) {
        self.engine = engine
        self.list = list
        self.bounds = (info.x0, info.y0, info.x1, info.y1)
        self.rotation = Int(info.rotation)
        self.readErrors = Int(info.errors)
    }

    deinit {
        let list = self.list
        // Dropping needs a context; if none can be had the list leaks rather than crashing.
        try? engine.withContext { context in gm_display_list_free(context, list) }
    }

    public var size: PageSize {
        PageSize(width: Double(bounds.x1 - bounds.x0), height: Double(bounds.y1 - bounds.y0))
    }

    /// The same rounding as MuPDF's `fz_round_rect` on the scaled bounds, in single precision,
    /// so page images have exactly the pixel size `mutool draw -r` gives.
    public func pixelBounds(scale: Double) -> PixelRect {
        mupdfPixelBounds(bounds, scale: scale)
    }

    public func draw(into bitmap: Bitmap, rect: PixelRect, scale: Double, cancellation: Cancellation) throws {
        precondition(bitmap.width == rect.width && bitmap.height == rect.height, "bitmap does not match the rectangle")
        guard !cancellation.isCancelled else {
            throw PDFError(.cancelled, "rendering was cancelled", function: "fz_run_display_list")
        }
        guard let samples = bitmap.pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let cookie = try CookieHandle()
        try engine.withContext { context throws(PDFError) in
            _ = try cancellation.whileRegistered(onCancel: { cookie.abort() }) { () throws(PDFError) in
                try mupdfCall("fz_run_display_list", code: .renderFailed) {
                    gm_render_rgb(context, list, Float(scale), Int32(rect.x), Int32(rect.y),
                                  Int32(rect.width), Int32(rect.height), samples, cookie.cookie, $0)
                }
            }
        }
    }
}

/// The pixels MuPDF draws page `bounds` (points, MuPDF's page space) into at `scale`: the same
/// rounding as its `fz_round_rect` on the scaled bounds, in single precision, so page images
/// have exactly the pixel size `mutool draw -r` gives.
func mupdfPixelBounds(_ bounds: (x0: Float, y0: Float, x1: Float, y1: Float), scale: Double) -> PixelRect {
    let zoom = Float(scale)
    let epsilon: Float = 0.001
    let x0 = Int((bounds.x0 * zoom + epsilon).rounded(.down))
    let y0 = Int((bounds.y0 * zoom + epsilon).rounded(.down))
    let x1 = Int((bounds.x1 * zoom - epsilon).rounded(.up))
    let y1 = Int((bounds.y1 * zoom - epsilon).rounded(.up))
    return PixelRect(x: x0, y: y0, width: max(x1 - x0, 1), height: max(y1 - y0, 1))
}

/// A MuPDF cookie that another thread may abort.
///
/// Only `abort()` is called across threads, and it is an atomic store. The cookie is freed
/// when the last reference goes: a cancellation that took the abort action just before the
/// MuPDF call returned still holds the action, and with it the cookie, so its store never
/// lands in freed memory.
final class CookieHandle: @unchecked Sendable {
    let cookie: OpaquePointer

    init() throws(PDFError) {
        guard let cookie = gm_cookie_new() else {
            throw PDFError(.outOfMemory, "cannot allocate a MuPDF cookie", function: "calloc")
        }
        self.cookie = cookie
    }

    deinit { gm_cookie_free(cookie) }

    func abort() { gm_cookie_abort(cookie) }
}
