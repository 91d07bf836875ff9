/// A page size in points (1/72 in), as shown: after cropping and rotation.
public struct PageSize: Hashable, Sendable {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A pixel rectangle in a page's device space at some scale.
public struct PixelRect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The seam between inputs and outputs: a page that knows its size and can draw itself at any
/// scale. A PDF page is a recorded display list; a typeset page is glyph runs and image boxes.
///
/// Thumbnails are drawn from the source at the largest box's scale, or, in a run that makes page
/// images, reduced from the page image's drawing (one drawing of the page for all its outputs).
public protocol PageSource: Sendable {
    /// The page's size in points.
    var size: PageSize { get }

    /// The device-space pixel rectangle the whole page covers at `scale` (pixels per point).
    ///
    /// Its width and height are the page image's pixel size; its origin need not be zero.
    func pixelBounds(scale: Double) -> PixelRect

    /// Draws the part of the page inside `rect` (device space at `scale`) into `bitmap`, whose
    /// size must equal the rectangle's. Drawing in bands lets huge pages stream.
    func draw(into bitmap: Bitmap, rect: PixelRect, scale: Double, cancellation: Cancellation) throws
}

extension PageSource {
    /// The scale that fits the page inside a `box`×`box` square with its aspect ratio kept:
    /// its pixel bounds are at most `box` on both sides and `box` or `box - 1` on the longer.
    public func thumbnailScale(box: Int) -> Double {
        let longest = max(size.width, size.height)
        guard longest > 0 else { return 1 }
        let scale = Double(box) / longest
        // Outward rounding of bounds that do not start on a whole pixel can add one.
        let bounds = pixelBounds(scale: scale)
        return max(bounds.width, bounds.height) > box ? Double(box - 1) / longest : scale
    }

    /// Draws the whole page at `scale` into a new bitmap.
    public func render(scale: Double, cancellation: Cancellation) throws -> Bitmap {
        let rect = pixelBounds(scale: scale)
        let bitmap = try Bitmap(width: rect.width, height: rect.height)
        try draw(into: bitmap, rect: rect, scale: scale, cancellation: cancellation)
        return bitmap
    }
}
