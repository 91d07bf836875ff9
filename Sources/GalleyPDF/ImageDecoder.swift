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

    /// Decodes `bytes` (a whole image file) at its pixel size, its resolution ignored.
    ///
    /// - Throws: `PDFError` `.corrupt` with MuPDF's message when MuPDF cannot read the image,
    ///   `.tooLarge` when it has more than `maximumPixels` pixels (refused before decoding).
    public func decodeImage(_ bytes: [UInt8], maximumPixels: Int = MuPDFEngine.maximumImagePixels) throws(PDFError) -> RasterImage {
        try withContext { context throws(PDFError) in
            var width: Int32 = 0, height: Int32 = 0
            var samples: UnsafeMutablePointer<UInt8>?
            try mupdfCall("fz_get_pixmap_from_image", code: .corrupt) { error in
                bytes.withUnsafeBufferPointer { data in
                    gm_decode_image(context, data.baseAddress, data.count, maximumPixels, &width, &height, &samples, error)
                }
            }
            guard let samples else { throw PDFError(.corrupt, "MuPDF decoded no pixels", function: "fz_get_pixmap_from_image") }
            defer { gm_image_samples_free(samples) }
            let count = Int(width) * Int(height) * RasterImage.channels
            return RasterImage(width: Int(width), height: Int(height),
                               pixels: Array(UnsafeBufferPointer(start: samples, count: count)))
        }
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
    /// `maximumPixels`), with its density, so it keeps its intrinsic size (one SVG unit is a
    /// CSS px).
    public func renderSVG(_ bytes: [UInt8], maximumPixels: Int = MuPDFEngine.maximumImagePixels) throws(PDFError) -> RasterImage {
        try withContext { context throws(PDFError) in
            var width: Int32 = 0, height: Int32 = 0
            var scale = 0.0
            var samples: UnsafeMutablePointer<UInt8>?
            try mupdfCall("fz_new_pixmap_from_page", code: .corrupt) { error in
                bytes.withUnsafeBufferPointer { data in
                    gm_render_svg(context, data.baseAddress, data.count, maximumPixels, Self.svgDensity, &width, &height, &scale, &samples, error)
                }
            }
            guard let samples, width > 0, height > 0, scale > 0 else {
                throw PDFError(.corrupt, "MuPDF rendered no pixels", function: "fz_new_pixmap_from_page")
            }
            defer { gm_image_samples_free(samples) }
            let count = Int(width) * Int(height) * RasterImage.channels
            return RasterImage(width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: samples, count: count)),
                               density: scale)
        }
    }
}
