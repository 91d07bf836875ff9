/// Page images and thumbnails as PNG: 8-bit RGB, no time chunk, compressed with a preset.
public struct PNGImageEncoder: ImageEncoder {
    public var compression: PNGCompression

    public init(compression: PNGCompression = .default) {
        self.compression = compression
    }

    public var fileExtension: String { "png" }

    public var fingerprint: String { "png \(compression.rawValue)" }

    public func encode(_ bitmap: Bitmap) throws(RasterError) -> [UInt8] {
        try bitmap.pngData(compression: compression)
    }

    public func bandEncoder(width: Int, height: Int) throws(RasterError) -> any BandEncoder {
        try PNGEncoder(width: width, height: height, compression: compression)
    }

    public func pixelSize(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        PNGText.dimensions(of: bytes)
    }
}

extension PNGEncoder: BandEncoder {}
