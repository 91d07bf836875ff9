import CGalleyPNG
#if canImport(Glibc)
import Glibc
#endif

/// Encodes an image held whole in memory to PNG in one call: the colour type reduced
/// losslessly, the rows filtered, the stream compressed by libdeflate, the chunks written by
/// Galley's own writer (`Sources/CGalleyPNG/whole_image.c`). Pages above the band threshold
/// stream through `PNGEncoder` (libpng and zlib) instead.
public enum WholeImagePNG {
    /// How the pixels of an image were stored.
    public enum ColourType: Int32, Sendable {
        case grey = 0, rgb = 2, palette = 3, rgba = 6
    }

    /// Encodes `height` rows of `width * channels` bytes (3: RGB, 4: RGBA) starting at `rows`,
    /// `stride` apart. With `reduce`, RGB is stored as 8-bit grey or a palette when that keeps
    /// every pixel; `dpi` becomes a pHYs chunk; `text` entries become tEXt chunks in order.
    public static func encode(rows: UnsafeRawPointer, width: Int, height: Int, stride: Int, channels: Int,
                              compression: PNGCompression, reduce: Bool = true, dpi: Double? = nil,
                              text: [(key: String, value: String)] = []) throws(RasterError)
        -> (bytes: [UInt8], colourType: ColourType, bitDepth: Int) {
        try encode(rows: rows, width: width, height: height, stride: stride, channels: channels,
                   settings: compression.settings, reduce: reduce, dpi: dpi, text: text)
    }

    /// `encode` with settings no preset has (the tests' every effort of the page encoder).
    static func encode(rows: UnsafeRawPointer, width: Int, height: Int, stride: Int, channels: Int,
                       settings: PNGCompression.Settings, reduce: Bool = true, dpi: Double? = nil,
                       text: [(key: String, value: String)] = []) throws(RasterError)
        -> (bytes: [UInt8], colourType: ColourType, bitDepth: Int) {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw RasterError(.invalidSize, "image size \(width)×\(height) cannot be a PNG")
        }
        var options = gp_image_options(level: settings.deflateLevel, filter: settings.filter.rawValue,
                                       few_colours_filter: settings.fewColoursFilter.rawValue, reduce: reduce ? 1 : 0,
                                       pixels_per_metre: pixelsPerMetre(dpi: dpi), page_deflate: settings.pageDeflate)
        var error = [CChar](repeating: 0, count: 256)
        let keys = text.map { strdup($0.key) }
        let values = text.map { strdup($0.value) }
        defer { (keys + values).forEach { free($0) } }
        var chunks = zip(keys, values).map { gp_text(key: $0, value: $1) }
        var encoded = gp_encoded()
        let status = chunks.withUnsafeMutableBufferPointer { chunkBuffer in
            gp_encode_image(rows.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height), stride,
                            Int32(channels), &options, chunkBuffer.baseAddress, Int32(chunkBuffer.count),
                            &encoded, &error, error.count)
        }
        guard status == 0, let bytes = encoded.bytes else {
            throw RasterError(.encodeFailed, String(cStringBuffer: error))
        }
        defer { gp_encoded_free(&encoded) }
        return (Array(UnsafeBufferPointer(start: bytes, count: encoded.length)),
                ColourType(rawValue: encoded.colour_type) ?? .rgb, Int(encoded.bit_depth))
    }

    /// Pixels per metre for a pHYs chunk, rounded as `mutool draw` rounds (150 dpi → 5906); 0
    /// (no chunk) when there is no usable resolution.
    static func pixelsPerMetre(dpi: Double?) -> UInt32 {
        guard let dpi, dpi.isFinite, dpi > 0 else { return 0 }
        let value = (dpi * 100 / 2.54).rounded()
        return value < Double(UInt32.max) ? UInt32(value) : 0
    }
}
