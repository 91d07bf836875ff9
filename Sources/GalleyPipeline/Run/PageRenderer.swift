import GalleyBase
import GalleyRaster

/// A page made into the bytes of one image file, in any format (PNG, JPEG, WebP, AVIF): the one
/// place that decides, for the run's stages and for `galley render`, `galley thumbnail` and
/// `galley thumbs --freedesktop`,
///
/// 1. whether the format holds the image at all: one its encoder cannot hold fails as
///    `too-large-for-format` before anything is drawn (`ImageEncoder.checkSize`);
/// 2. whether it is drawn whole or band by band: an image of more than
///    `Pipeline.bandPixelLimit` pixels is drawn and encoded a band at a time, so a huge page
///    costs one band of memory;
/// 3. how it is encoded: page images record their resolution, thumbnails none.
///
/// The run spreads these steps over its stages (a whole page is drawn in a render operation
/// and encoded in an encode operation, a banded one drawn and encoded in its render
/// operation); the single-file commands take them in one call, `render`.
struct PageRenderer: Sendable {
    let encoder: any ImageEncoder
    /// The resolution the files record (page images); nil for thumbnails.
    let dpi: Double?

    init(encoder: any ImageEncoder, dpi: Double?) {
        self.encoder = encoder
        self.dpi = dpi
    }

    /// How an image is drawn.
    enum Drawing {
        /// Into one bitmap, then encoded.
        case whole
        /// Band by band, each band encoded as it is drawn.
        case bands
    }

    /// How an image of `bounds` is drawn.
    ///
    /// - Throws: `too-large-for-format` when the encoder cannot hold it: nothing need be drawn.
    func drawing(_ bounds: PixelRect) throws(RasterError) -> Drawing {
        try encoder.checkSize(width: bounds.width, height: bounds.height)
        return Self.isBanded(bounds) ? .bands : .whole
    }

    /// Whether an image of `bounds` is drawn and encoded band by band (more than
    /// `Pipeline.bandPixelLimit` pixels) rather than whole.
    static func isBanded(_ bounds: PixelRect) -> Bool {
        bounds.width * bounds.height > Pipeline.bandPixelLimit
    }

    /// The file's bytes for a whole drawn image.
    func encode(_ bitmap: Bitmap) throws(RasterError) -> [UInt8] {
        try encoder.encode(bitmap, dpi: dpi)
    }

    /// The file's bytes for an image of `bounds` drawn band by band by `draw` (into a band
    /// bitmap, the band's rectangle of `bounds`), each band encoded as it comes.
    func encodeInBands(_ bounds: PixelRect, draw: (Bitmap, PixelRect) throws -> Void) throws -> [UInt8] {
        let bandHeight = max(1, Pipeline.bandPixelLimit / bounds.width)
        let bands = try encoder.bandEncoder(width: bounds.width, height: bounds.height, dpi: dpi)
        var band = try Bitmap(width: bounds.width, height: min(bandHeight, bounds.height))
        var y = 0
        while y < bounds.height {
            let rows = min(bandHeight, bounds.height - y)
            if rows != band.height { band = try Bitmap(width: bounds.width, height: rows) }
            try draw(band, PixelRect(x: bounds.x, y: bounds.y + y, width: bounds.width, height: rows))
            try bands.write(band)
            y += rows
        }
        return try bands.finish()
    }

    /// The file's bytes for `page` (page `number`) drawn at `scale` band by band, each band
    /// drawn under `limiter` (`page_timeout`) and encoded as it comes.
    func encodeInBands(_ page: any PageSource, number: Int, scale: Double, limiter: TimeLimiter) throws -> [UInt8] {
        try encodeInBands(page.pixelBounds(scale: scale)) { band, rect in
            try limiter.run(page: number, doing: "draw") { limit in
                try page.draw(into: band, rect: rect, scale: scale, cancellation: limit)
            }
        }
    }

    /// `page` (page `number`) at `scale` as a file's bytes, in one call: refused when too large
    /// for the format, drawn whole or band by band under `limiter` (`page_timeout`, as in a
    /// run), encoded.
    func render(_ page: any PageSource, number: Int, scale: Double, limiter: TimeLimiter) throws -> [UInt8] {
        switch try drawing(page.pixelBounds(scale: scale)) {
        case .whole:
            return try encode(try limiter.run(page: number, doing: "draw") { limit in
                try page.render(scale: scale, cancellation: limit)
            })
        case .bands:
            return try encodeInBands(page, number: number, scale: scale, limiter: limiter)
        }
    }
}
