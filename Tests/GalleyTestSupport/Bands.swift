import GalleyRaster

extension PageSource {
    /// The whole page at `scale`, drawn band after band of `rows` rows and stitched together:
    /// equal to `render(scale:)` when drawing does not depend on the band.
    public func renderInBands(scale: Double, rows: Int) throws -> Bitmap {
        let bounds = pixelBounds(scale: scale)
        let stitched = try Bitmap(width: bounds.width, height: bounds.height)
        var y = 0
        while y < bounds.height {
            let count = min(rows, bounds.height - y)
            let band = try Bitmap(width: bounds.width, height: count)
            try draw(into: band, rect: PixelRect(x: bounds.x, y: bounds.y + y, width: bounds.width, height: count),
                     scale: scale, cancellation: Cancellation())
            stitched.pixels.baseAddress!.advanced(by: y * stitched.rowBytes)
                .copyMemory(from: band.pixels.baseAddress!, byteCount: band.pixels.count)
            y += count
        }
        return stitched
    }
}
