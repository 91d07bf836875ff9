import CGalleyMuPDF
import GalleyRaster

/// Decodes image files with MuPDF's image loader (PNG, JPEG including CMYK, GIF, BMP, TIFF,
/// JPEG 2000, PNM, ...).
///
/// It lives in GalleyPDF, not in the typesetter, because this module owns the MuPDF engine and
/// its shim: the pipeline decodes an article's images here and hands the pixels
/// (`RasterImage`) to GalleyText, which so stays free of MuPDF.
extension MuPDFEngine {
    /// Largest image decoded, in pixels: 40 megapixels is 160 MB of RGBA, and bigger than any
    /// page image at usual resolutions.
    public static let maximumImagePixels = 40_000_000

    /// Decodes `bytes` (a whole image file) at its pixel size, its resolution ignored, or, when
    /// it has at least twice the pixels `drawnAtMost` (the most it is drawn at) on each side,
    /// reduced by a whole factor to no fewer than those: a 6,300 px picture drawn in a 500 px
    /// column is held as 6,300 / 12 = 525 px, its intrinsic size still the file's.
    ///
    /// - Throws: `PDFError` `.corrupt` with MuPDF's message when MuPDF cannot read the image,
    ///   `.tooLarge` when it has more than `maximumPixels` pixels (refused before decoding).
    public func decodeImage(_ bytes: [UInt8], maximumPixels: Int = MuPDFEngine.maximumImagePixels,
                            drawnAtMost: PixelSize? = nil) throws(PDFError) -> RasterImage {
        // A PNG is reduced as it is read, a row at a time: MuPDF's loader would hold it whole twice.
        if let drawnAtMost, let reduced = RasterImage.reducedPNG(bytes, maximumPixels: maximumPixels, maxWidth: drawnAtMost.clampedWidth,
                                                                   maxHeight: drawnAtMost.clampedHeight, keepsAspect: drawnAtMost.keepsAspect) {
            return reduced
        }
        return try withContext { context throws(PDFError) in
            var width: Int32 = 0, height: Int32 = 0, sourceWidth: Int32 = 0, sourceHeight: Int32 = 0
            var samples: UnsafeMutablePointer<UInt8>?
            try mupdfCall("fz_get_pixmap_from_image", code: .corrupt) { error in
                bytes.withUnsafeBufferPointer { data in
                    gm_decode_image(context, data.baseAddress, data.count, maximumPixels, drawnAtMost?.clampedWidth ?? 0,
                                    drawnAtMost?.clampedHeight ?? 0, drawnAtMost?.keepsAspect ?? true ? 1 : 0, &width, &height, &sourceWidth, &sourceHeight, &samples, error)
                }
            }
            guard let samples else { throw PDFError(.corrupt, "MuPDF decoded no pixels", function: "fz_get_pixmap_from_image") }
            defer { gm_image_samples_free(samples) }
            let count = Int(width) * Int(height) * RasterImage.channels
            let reduced = width != sourceWidth || height != sourceHeight
            return RasterImage(width: Int(width), height: Int(height),
                               pixels: Array(UnsafeBufferPointer(start: samples, count: count)),
                               intrinsic: reduced ? (Double(sourceWidth), Double(sourceHeight)) : nil)
        }
    }

    /// The most pixels a picture is drawn at, per side, and whether it is drawn with its own
    /// aspect ratio (then scaled to fit both sides; else each side may reach its own).
    public struct PixelSize: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var keepsAspect: Bool

        public init(width: Int, height: Int, keepsAspect: Bool = false) {
            self.width = width
            self.height = height
            self.keepsAspect = keepsAspect
        }

        var clampedWidth: Int32 { Int32(clamping: width) }
        var clampedHeight: Int32 { Int32(clamping: height) }
    }

    /// An SVG file: named `.svg`, or starting (after white space, a BOM, an XML declaration
    /// or comments) with `<svg`.
    public static func isSVG(path: String, bytes: [UInt8]) -> Bool {
        if path.lowercased().hasSuffix(".svg") { return true }
        let head = String(decoding: bytes.prefix(1024), as: UTF8.self).lowercased()
        let start = head.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        return start.hasPrefix("<") && head.contains("<svg")
    }

    /// Pixels per SVG unit an SVG picture is rendered at: four times its intrinsic size, so it
    /// is drawn from finer pixels (never scaled up) at page resolutions up to 288 dpi.
    public static let svgDensity = 4.0

    /// An SVG picture rendered by MuPDF at `svgDensity` (less when that would pass
    /// `maximumPixels`, or be over twice as fine as `drawnAtMost` needs), with its density, so it keeps
    /// its intrinsic size (one SVG unit is a CSS px).
    public func renderSVG(_ bytes: [UInt8], maximumPixels: Int = MuPDFEngine.maximumImagePixels,
                          drawnAtMost: PixelSize? = nil) throws(PDFError) -> RasterImage {
        try withContext { context throws(PDFError) in
            var width: Int32 = 0, height: Int32 = 0
            var scale = 0.0, intrinsicWidth = 0.0, intrinsicHeight = 0.0
            var samples: UnsafeMutablePointer<UInt8>?
            try mupdfCall("fz_new_pixmap_from_page", code: .corrupt) { error in
                bytes.withUnsafeBufferPointer { data in
                    gm_render_svg(context, data.baseAddress, data.count, maximumPixels, Self.svgDensity,
                                  drawnAtMost?.clampedWidth ?? 0, drawnAtMost?.clampedHeight ?? 0, drawnAtMost?.keepsAspect ?? true ? 1 : 0,
                                  &width, &height, &scale, &intrinsicWidth, &intrinsicHeight, &samples, error)
                }
            }
            guard let samples, width > 0, height > 0, scale > 0 else {
                throw PDFError(.corrupt, "MuPDF rendered no pixels", function: "fz_new_pixmap_from_page")
            }
            defer { gm_image_samples_free(samples) }
            let count = Int(width) * Int(height) * RasterImage.channels
            // Rendered coarser than `svgDensity` only to fit the drawn size: then the intrinsic
            // size is the SVG's own, not the pixels' over the scale (which round).
            return RasterImage(width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: samples, count: count)),
                               density: scale, intrinsic: intrinsicWidth > 0 ? (intrinsicWidth, intrinsicHeight) : nil)
        }
    }
}
