/// Page images and thumbnails as PNG, compressed with a preset, with no time chunk.
///
/// A whole image is stored as 8-bit grey, a palette or RGB, whichever keeps every pixel with
/// the least data (`WholeImagePNG`), and compressed by libdeflate; a page drawn in bands is
/// 8-bit RGB through libpng and zlib. Page images carry their resolution (pHYs).
public struct PNGImageEncoder: ImageEncoder {
    public var compression: PNGCompression

    public init(compression: PNGCompression = .default) {
        self.compression = compression
    }

    public var format: ImageFormat { .png }
    /// The format allows 2^31 - 1 pixels on a side, but libpng, which writes pages drawn in
    /// bands, refuses more than 1,000,000 unless told otherwise (`PNG_USER_WIDTH_MAX`,
    /// "Invalid IHDR data"), and so do the readers built on it, which is most of them: a wider
    /// page is refused as `too-large-for-format` before it is drawn, whatever its size in
    /// pixels, so that whole and banded images have the same limit.
    public var maximumSide: Int { Self.libpngSideLimit }
    public static let libpngSideLimit = 1_000_000
    public var maximumPixels: Int? { nil }

    /// The preset and every setting behind it, so retuning a preset redraws what it made.
    public var fingerprint: String {
        let s = compression.settings
        let few = s.pageDeflate > 0 ? " (few colours: page deflate \(s.pageDeflate))" : ""
        return "png \(compression.rawValue): reduced, libdeflate \(s.deflateLevel) \(s.filter)/\(s.fewColoursFilter)\(few), "
            + "bands zlib \(s.zlibLevel) \(s.zlibStrategy) \(s.zlibFilters), pHYs"
    }

    public func encode(_ bitmap: Bitmap, dpi: Double?) throws(RasterError) -> [UInt8] {
        try bitmap.pngData(compression: compression, dpi: dpi)
    }

    public func bandEncoder(width: Int, height: Int, dpi: Double?) throws(RasterError) -> any BandEncoder {
        try PNGEncoder(width: width, height: height, compression: compression, dpi: dpi)
    }

    public func pixelSize(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        // A PNG is 1 to 2^31 - 1 pixels on a side; a header that says otherwise is no image.
        guard let size = PNGText.dimensions(of: bytes), (1...Int(Int32.max)).contains(size.width),
              (1...Int(Int32.max)).contains(size.height) else { return nil }
        return size
    }
}

extension PNGEncoder: BandEncoder {}
