import CAVIF

/// Page images and thumbnails as AVIF through libavif and the AV1 encoder Debian builds it
/// with (libaom): 8-bit full-range YUV (BT.601 matrix, sRGB transfer) at 4:4:4 or 4:2:0,
/// `quality` 0...100 mapped onto AV1's quantizer (0...63) as later libavif releases map it,
/// `speed` 0...10. One thread, so the bytes do not depend on the machine. A page image's
/// resolution goes into an Exif item (AVIF has no field of its own). libavif encodes from the
/// whole image, so pages over `maximumPixels`, a lower limit than WebP's, are refused.
public struct AVIFImageEncoder: ImageEncoder {
    public var quality: Int
    public var speed: Int
    public var chroma: ChromaSubsampling

    public init(quality: Int = ImageEncoding.defaultQuality(.avif), speed: Int = ImageEncoding.defaultSpeed,
                chroma: ChromaSubsampling = .full) {
        self.quality = quality
        self.speed = speed
        self.chroma = chroma
    }

    public var format: ImageFormat { .avif }
    /// AV1's largest frame side.
    public var maximumSide: Int { 65536 }
    /// 12 MiP (12,582,912 pixels: A4 up to about 360 dpi): libaom's frame buffers come on top
    /// of the RGB and YUV copies, 13 to 14 bytes a pixel more than a PNG page costs, and a page at this limit keeps a run under 300 MB (`scripts/benchmark-memory.py`).
    public var maximumPixels: Int? { 12 << 20 }

    /// AV1's quantizer for a quality: 100 → 0 (lossless quantizer), 0 → 63.
    var quantizer: Int32 { Int32(((100 - quality) * 63 + 50) / 100) }

    public var fingerprint: String {
        var codecs = [CChar](repeating: 0, count: 256)
        avifCodecVersions(&codecs)
        return "avif libavif \(String(cString: avifVersion())) (\(String(cStringBuffer: codecs))) aom quantizer \(quantizer) "
            + "speed \(speed) chroma \(chroma.rawValue), full range BT.601, one thread, Exif resolution"
    }

    public func encode(_ bitmap: Bitmap, dpi: Double?) throws(RasterError) -> [UInt8] {
        try checkSize(width: bitmap.width, height: bitmap.height)
        guard ImageEncoding.qualityRange.contains(quality), ImageEncoding.speedRange.contains(speed) else {
            throw RasterError(.encodeFailed, "AVIF quality \(quality) or speed \(speed) is outside 0...100, 0...10")
        }
        guard let image = avifImageCreate(UInt32(bitmap.width), UInt32(bitmap.height), 8,
                                          chroma == .full ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420) else {
            throw RasterError(.encodeFailed, "libavif: out of memory")
        }
        defer { avifImageDestroy(image) }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = UInt16(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = UInt16(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = UInt16(AVIF_MATRIX_COEFFICIENTS_BT601)
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGB
        rgb.depth = 8
        rgb.pixels = bitmap.pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
        rgb.rowBytes = UInt32(bitmap.rowBytes)
        var result = avifImageRGBToYUV(image, &rgb)
        guard result == AVIF_RESULT_OK else { throw Self.error("converting to YUV", result) }
        if let exif = ExifResolution.block(dpi: dpi) {
            exif.withUnsafeBufferPointer { avifImageSetMetadataExif(image, $0.baseAddress, $0.count) }
        }
        guard let encoder = avifEncoderCreate() else { throw RasterError(.encodeFailed, "libavif: out of memory") }
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.codecChoice = AVIF_CODEC_CHOICE_AOM
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = Int32(speed)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        result = avifEncoderWrite(encoder, image, &output)
        guard result == AVIF_RESULT_OK, let data = output.data else { throw Self.error("encoding", result) }
        return Array(UnsafeBufferPointer(start: data, count: output.size))
    }

    private static func error(_ doing: String, _ result: avifResult) -> RasterError {
        RasterError(.encodeFailed, "libavif: \(doing): \(String(cString: avifResultToString(result)))")
    }

    public func bandEncoder(width: Int, height: Int, dpi: Double?) throws(RasterError) -> any BandEncoder {
        try checkSize(width: width, height: height)
        throw RasterError(.tooLargeForFormat, "AVIF is encoded from the whole image, not in bands")
    }

    public func pixelSize(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard let decoder = avifDecoderCreate() else { return nil }
        defer { avifDecoderDestroy(decoder) }
        return bytes.withUnsafeBufferPointer { buffer -> (width: Int, height: Int)? in
            guard avifDecoderSetIOMemory(decoder, buffer.baseAddress, buffer.count) == AVIF_RESULT_OK,
                  avifDecoderParse(decoder) == AVIF_RESULT_OK, let image = decoder.pointee.image else { return nil }
            return (Int(image.pointee.width), Int(image.pointee.height))
        }
    }
}
