import GalleyBase
import GalleyRaster

/// A page drawn and encoded: whole, or band by band when it has more than
/// `Pipeline.bandPixelLimit` pixels, so a huge page costs one band of memory. A page the
/// encoder cannot hold is refused before it is drawn (`too-large-for-format`).
enum PageImages {
    /// `dpi`: the resolution recorded in the file (page images carry it, thumbnails do not).
    static func encode(_ page: any PageSource, scale: Double, encoder: any ImageEncoder, dpi: Double?,
                       cancellation: Cancellation) throws -> [UInt8] {
        let bounds = page.pixelBounds(scale: scale)
        try encoder.checkSize(width: bounds.width, height: bounds.height)
        guard isBanded(bounds) else {
            return try encoder.encode(try page.render(scale: scale, cancellation: cancellation), dpi: dpi)
        }
        return try encodeBanded(page, bounds: bounds, scale: scale, encoder: encoder, dpi: dpi) { band, rect in
            try page.draw(into: band, rect: rect, scale: scale, cancellation: cancellation)
        }
    }

    /// Whether a page of `bounds` is drawn and encoded band by band (more than
    /// `Pipeline.bandPixelLimit` pixels) rather than whole: the one place this is decided, for
    /// the run's render stage and for `galley render`.
    static func isBanded(_ bounds: PixelRect) -> Bool {
        bounds.width * bounds.height > Pipeline.bandPixelLimit
    }

    /// Draws `bounds` band by band with `draw` (into a band, its rectangle) and encodes each.
    static func encodeBanded(_ page: any PageSource, bounds: PixelRect, scale: Double, encoder: any ImageEncoder, dpi: Double?,
                             draw: (Bitmap, PixelRect) throws -> Void) throws -> [UInt8] {
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
}
