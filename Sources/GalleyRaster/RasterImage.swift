/// A decoded picture: RGBA, 8 bits a channel, alpha premultiplied, rows packed (`width * 4`
/// bytes apart), top row first.
///
/// Premultiplied because that is how MuPDF decodes, and because averaging premultiplied
/// samples is what resampling needs (a transparent pixel's colour then weighs nothing). It
/// lives here, beside `Bitmap`, so the decoder (GalleyPDF) and the painter (GalleyText) share
/// it without depending on each other. Immutable, so any number of threads may read it.
public struct RasterImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 4` bytes.
    public let pixels: [UInt8]
    /// Pixels per CSS px: 1 for a decoded bitmap, more for a drawing (SVG) rendered finer than
    /// its intrinsic size so that it stays sharp when drawn at a page's resolution.
    public let density: Double
    /// Its size in CSS px, as the file gives it: `width` and `height` over `density`, unless
    /// the picture was decoded or rendered reduced to the size it is drawn at (then its pixels
    /// are fewer than the file's and the sides need not share one density).
    public let intrinsicWidth: Double
    public let intrinsicHeight: Double
    /// The JPEG file the pixels were decoded from, whole and unreduced, when a PDF may embed
    /// it as it is (`JPEGFile.passesThrough`); nil otherwise.
    public private(set) var jpeg: [UInt8]?
    /// The SVG file these pixels were drawn from, which a PDF draws as paths and text instead
    /// of the pixels; nil for a bitmap.
    public private(set) var svg: [UInt8]?

    public static let channels = 4

    /// The picture repeated `across` times side by side and `down` times one under another
    /// (a background's tile made larger so that fewer copies are drawn); nil past 16 MP.
    public func repeated(across: Int, down: Int) -> RasterImage? {
        guard across >= 1, down >= 1, width * across * height * down <= 16_000_000 else { return nil }
        let row = width * Self.channels
        var out = [UInt8]()
        out.reserveCapacity(row * across * height * down)
        for _ in 0..<down {
            for y in 0..<height {
                let line = pixels[(y * row)..<((y + 1) * row)]
                for _ in 0..<across { out.append(contentsOf: line) }
            }
        }
        return RasterImage(width: width * across, height: height * down, pixels: out, density: density,
                           intrinsic: (intrinsicWidth * Double(across), intrinsicHeight * Double(down)))
    }

    /// The same picture, remembering the JPEG file it was decoded from when that file's
    /// pixels are these (same size, greyscale or RGB, baseline or progressive): a PDF then
    /// embeds the file instead of the pixels.
    public func rememberingJPEG(_ bytes: [UInt8]) -> RasterImage {
        guard let facts = JPEGFile.facts(bytes), facts.width == width, facts.height == height,
              facts.components == 1 || facts.components == 3 else { return self }
        var copy = self
        copy.jpeg = bytes
        return copy
    }

    /// The same picture, remembering the SVG file it was drawn from.
    public func rememberingSVG(_ bytes: [UInt8]) -> RasterImage {
        var copy = self
        copy.svg = bytes
        return copy
    }

    public init(width: Int, height: Int, pixels: [UInt8], density: Double = 1,
                intrinsic: (width: Double, height: Double)? = nil) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * Self.channels,
                     "\(pixels.count) bytes for a \(width)×\(height) RGBA image")
        precondition(density > 0 && density.isFinite, "density \(density)")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.density = density
        intrinsicWidth = intrinsic?.width ?? Double(width) / density
        intrinsicHeight = intrinsic?.height ?? Double(height) / density
    }

    /// The premultiplied RGBA value at (x, y).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
        let offset = (y * width + x) * Self.channels
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3])
    }
}
