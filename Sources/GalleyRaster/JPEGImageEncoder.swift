import CGalleyJPEG

/// Page images and thumbnails as JPEG through libjpeg-turbo: baseline tables at `quality`,
/// YCbCr with chroma at full or half resolution, a JFIF header carrying the page's
/// resolution in dots per inch. Images held whole get Huffman tables made for them (and a
/// progressive scan script when asked); pages drawn in bands are sequential with the standard
/// tables, since both of the others need every coefficient of the image in memory.
public struct JPEGImageEncoder: ImageEncoder {
    public var quality: Int
    public var progressive: Bool
    public var chroma: ChromaSubsampling

    public init(quality: Int = ImageEncoding.defaultQuality(.jpeg), progressive: Bool = false, chroma: ChromaSubsampling = .half) {
        self.quality = quality
        self.progressive = progressive
        self.chroma = chroma
    }

    public var format: ImageFormat { .jpeg }
    public var maximumSide: Int { Int(GJ_MAX_DIMENSION) }
    public var maximumPixels: Int? { nil }

    public var fingerprint: String {
        "jpeg libjpeg-turbo \(gj_version()) quality \(quality) \(progressive ? "progressive" : "sequential") chroma \(chroma.rawValue), "
            + "optimized whole, standard tables in bands, JFIF density"
    }

    public func encode(_ bitmap: Bitmap, dpi: Double?) throws(RasterError) -> [UInt8] {
        let writer = try JPEGWriter(width: bitmap.width, height: bitmap.height, quality: quality, progressive: progressive,
                                    optimize: true, chroma: chroma, dpi: dpi)
        try writer.write(bitmap)
        return try writer.finish()
    }

    public func bandEncoder(width: Int, height: Int, dpi: Double?) throws(RasterError) -> any BandEncoder {
        try JPEGWriter(width: width, height: height, quality: quality, progressive: false, optimize: false, chroma: chroma, dpi: dpi)
    }

    public func pixelSize(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        var width: Int32 = 0, height: Int32 = 0
        let status = bytes.withUnsafeBufferPointer { gj_dimensions($0.baseAddress, $0.count, &width, &height) }
        return status == 0 ? (Int(width), Int(height)) : nil
    }

    /// The JFIF density for a resolution: whole dots per inch, 1...65535; 0 (no unit) when
    /// there is none to record.
    static func density(dpi: Double?) -> UInt32 {
        guard let dpi, dpi.isFinite, dpi >= 0.5 else { return 0 }
        return UInt32(min(dpi.rounded(), 65535))
    }
}

/// One JPEG being written into memory by the libjpeg shim, rows handed over band by band.
final class JPEGWriter: BandEncoder {
    private let writer: OpaquePointer
    let width: Int

    init(width: Int, height: Int, quality: Int, progressive: Bool, optimize: Bool, chroma: ChromaSubsampling,
         dpi: Double?) throws(RasterError) {
        guard ImageEncoding.qualityRange.contains(quality) else {
            throw RasterError(.encodeFailed, "JPEG quality \(quality) is outside 0...100")
        }
        guard width > 0, height > 0, width <= Int(GJ_MAX_DIMENSION), height <= Int(GJ_MAX_DIMENSION) else {
            throw RasterError(.tooLargeForFormat, "\(width)×\(height) pixels cannot be a JPEG (1 to \(GJ_MAX_DIMENSION) on a side)")
        }
        var options = gj_options(quality: Int32(quality), progressive: progressive ? 1 : 0, optimize: optimize ? 1 : 0,
                                 chroma444: chroma == .full ? 1 : 0, dpi: JPEGImageEncoder.density(dpi: dpi))
        var error = [CChar](repeating: 0, count: 256)
        guard let handle = gj_writer_new(Int32(width), Int32(height), &options, &error, error.count) else {
            throw RasterError(.encodeFailed, String(cStringBuffer: error))
        }
        self.writer = handle
        self.width = width
    }

    deinit { gj_writer_free(writer) }

    func write(_ band: Bitmap) throws(RasterError) {
        precondition(band.width == width, "band width \(band.width) is not the image's \(width)")
        guard let base = band.pixels.baseAddress else { return }
        guard gj_writer_write_rows(writer, base.assumingMemoryBound(to: UInt8.self), band.rowBytes, Int32(band.height)) == 0 else {
            throw RasterError(.encodeFailed, String(cString: gj_writer_error(writer)))
        }
    }

    func finish() throws(RasterError) -> [UInt8] {
        guard gj_writer_finish(writer) == 0 else {
            throw RasterError(.encodeFailed, String(cString: gj_writer_error(writer)))
        }
        var length = 0
        guard let bytes = gj_writer_bytes(writer, &length) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }
}
