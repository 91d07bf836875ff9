import CWebP

/// Page images and thumbnails as WebP through libwebp: lossy at `quality` (YUV 4:2:0, the
/// format's only lossy form), or lossless. One thread (`thread_level` 0), so the bytes do not
/// depend on the machine. A page image's resolution goes into an Exif chunk (WebP has no
/// field of its own). libwebp encodes from the whole image, so pages over `maximumPixels`
/// are refused.
public struct WebPImageEncoder: ImageEncoder {
    public var quality: Int
    public var lossless: Bool

    public init(quality: Int = ImageEncoding.defaultQuality(.webp), lossless: Bool = false) {
        self.quality = quality
        self.lossless = lossless
    }

    public var format: ImageFormat { .webp }
    /// WEBP_MAX_DIMENSION.
    public var maximumSide: Int { 16383 }
    public var maximumPixels: Int? { wholeImagePixelLimit }

    public var fingerprint: String {
        let version = WebPGetEncoderVersion()
        return "webp libwebp \(version >> 16).\(version >> 8 & 0xFF).\(version & 0xFF) "
            + (lossless ? "lossless effort \(quality)" : "lossy quality \(quality)") + " method 4, one thread, Exif resolution"
    }

    public func encode(_ bitmap: Bitmap, dpi: Double?) throws(RasterError) -> [UInt8] {
        try checkSize(width: bitmap.width, height: bitmap.height)
        guard ImageEncoding.qualityRange.contains(quality) else {
            throw RasterError(.encodeFailed, "WebP quality \(quality) is outside 0...100")
        }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw RasterError(.encodeFailed, "libwebp: version mismatch") }
        config.quality = Float(quality)
        config.lossless = lossless ? 1 : 0
        config.method = 4
        config.thread_level = 0
        guard WebPValidateConfig(&config) != 0 else { throw RasterError(.encodeFailed, "libwebp: invalid settings") }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw RasterError(.encodeFailed, "libwebp: version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(bitmap.width)
        picture.height = Int32(bitmap.height)
        picture.use_argb = lossless ? 1 : 0
        guard let base = bitmap.pixels.baseAddress,
              WebPPictureImportRGB(&picture, base.assumingMemoryBound(to: UInt8.self), Int32(bitmap.rowBytes)) != 0 else {
            throw RasterError(.encodeFailed, "libwebp: out of memory importing \(bitmap.width)×\(bitmap.height) pixels")
        }
        var memory = WebPMemoryWriter()
        WebPMemoryWriterInit(&memory)
        defer { WebPMemoryWriterClear(&memory) }
        let encoded = withUnsafeMutablePointer(to: &memory) { writer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writer)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, let bytes = memory.mem else {
            throw RasterError(.encodeFailed, "libwebp: cannot encode (error \(picture.error_code.rawValue))")
        }
        let image = Array(UnsafeBufferPointer(start: bytes, count: memory.size))
        guard let exif = ExifResolution.block(dpi: dpi) else { return image }
        return try Self.adding(exif: exif, to: image)
    }

    /// The image with an EXIF chunk (an extended, VP8X, file).
    private static func adding(exif: [UInt8], to image: [UInt8]) throws(RasterError) -> [UInt8] {
        let result: [UInt8]? = image.withUnsafeBufferPointer { imageBytes in
            exif.withUnsafeBufferPointer { exifBytes in
                var bitstream = WebPData(bytes: imageBytes.baseAddress, size: imageBytes.count)
                guard let mux = WebPMuxCreate(&bitstream, 0) else { return nil }
                defer { WebPMuxDelete(mux) }
                var chunk = WebPData(bytes: exifBytes.baseAddress, size: exifBytes.count)
                guard WebPMuxSetChunk(mux, "EXIF", &chunk, 1) == WEBP_MUX_OK else { return nil }
                var assembled = WebPData()
                defer { WebPDataClear(&assembled) }
                guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, let bytes = assembled.bytes else { return nil }
                return Array(UnsafeBufferPointer(start: bytes, count: assembled.size))
            }
        }
        guard let result else { throw RasterError(.encodeFailed, "libwebpmux: cannot add the resolution's Exif chunk") }
        return result
    }

    public func bandEncoder(width: Int, height: Int, dpi: Double?) throws(RasterError) -> any BandEncoder {
        try checkSize(width: width, height: height)
        throw RasterError(.tooLargeForFormat, "WebP is encoded from the whole image, not in bands")
    }

    public func pixelSize(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        var width: Int32 = 0, height: Int32 = 0
        let ok = bytes.withUnsafeBufferPointer { WebPGetInfo($0.baseAddress, $0.count, &width, &height) }
        return ok != 0 ? (Int(width), Int(height)) : nil
    }
}
