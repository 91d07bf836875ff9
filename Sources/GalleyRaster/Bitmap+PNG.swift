import CGalleyPNG
#if canImport(Glibc)
import Glibc
#endif

/// Encodes an image to PNG band by band through libpng and zlib, so a page may be drawn and
/// encoded in strips.
///
/// Output is 8-bit RGB or RGBA, non-interlaced, with no time chunk, so equal pixels give equal
/// bytes. An image held whole goes through `WholeImagePNG` instead, which is faster and
/// reduces colour types.
public final class PNGEncoder {
    private let writer: OpaquePointer
    public let width: Int
    public let height: Int
    public let channels: Int

    /// Starts an image; `dpi` becomes a pHYs chunk; `text` entries become tEXt chunks, in the
    /// given order.
    public init(width: Int, height: Int, channels: Int = 3, compression: PNGCompression, dpi: Double? = nil,
                text: [(key: String, value: String)] = []) throws(RasterError) {
        var options = gp_options(zlib_level: compression.settings.zlibLevel,
                                 zlib_strategy: compression.settings.zlibStrategy,
                                 filters: compression.settings.zlibFilters,
                                 pixels_per_metre: WholeImagePNG.pixelsPerMetre(dpi: dpi))
        var error = [CChar](repeating: 0, count: 256)
        // Keep the C strings alive for the duration of the call.
        let keys = text.map { strdup($0.key) }
        let values = text.map { strdup($0.value) }
        defer { (keys + values).forEach { free($0) } }
        var chunks = zip(keys, values).map { gp_text(key: $0, value: $1) }
        let handle = chunks.withUnsafeMutableBufferPointer { chunkBuffer in
            gp_writer_new(Int32(width), Int32(height), Int32(channels), &options,
                          chunkBuffer.baseAddress, Int32(chunkBuffer.count), &error, error.count)
        }
        guard let handle else {
            throw RasterError(.encodeFailed, String(cStringBuffer: error))
        }
        self.writer = handle
        self.width = width
        self.height = height
        self.channels = channels
    }

    deinit { gp_writer_free(writer) }

    /// Appends rows: `count` rows of `width * channels` bytes starting at `rows`, `stride` apart.
    public func write(rows: UnsafeRawPointer, stride: Int, count: Int) throws(RasterError) {
        guard gp_writer_write_rows(writer, rows.assumingMemoryBound(to: UInt8.self), stride, Int32(count)) == 0 else {
            throw RasterError(.encodeFailed, String(cString: gp_writer_error(writer)))
        }
    }

    /// Appends every row of a bitmap.
    public func write(_ bitmap: Bitmap) throws(RasterError) {
        precondition(bitmap.width == width && channels == Bitmap.channels, "bitmap does not match the encoder")
        guard let base = bitmap.pixels.baseAddress else { return }
        try write(rows: base, stride: bitmap.rowBytes, count: bitmap.height)
    }

    /// Ends the image and returns the encoded bytes.
    public func finish() throws(RasterError) -> [UInt8] {
        guard gp_writer_finish(writer) == 0 else {
            throw RasterError(.encodeFailed, String(cString: gp_writer_error(writer)))
        }
        var length = 0
        guard let bytes = gp_writer_bytes(writer, &length) else { return [] }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }
}

extension Bitmap {
    /// The bitmap as PNG bytes: grey or a palette when that keeps every pixel (unless `reduce`
    /// is false), with a pHYs chunk when `dpi` is given.
    public func pngData(compression: PNGCompression = .default, dpi: Double? = nil,
                        reduce: Bool = true) throws(RasterError) -> [UInt8] {
        guard let base = pixels.baseAddress else { throw RasterError(.invalidSize, "bitmap has no pixels") }
        return try WholeImagePNG.encode(rows: base, width: width, height: height, stride: rowBytes,
                                        channels: Bitmap.channels, compression: compression, reduce: reduce,
                                        dpi: dpi).bytes
    }

    /// Decodes PNG bytes to an RGB bitmap, compositing any transparency onto white.
    public convenience init(pngData: [UInt8]) throws(RasterError) {
        let (width, height) = try Self.pngSize(pngData)
        try self.init(width: width, height: height)
        try decodePNG(pngData)
    }

    /// Decodes PNG bytes as `init(pngData:)` does, into `reusable` when it has the image's
    /// size (its pixels are overwritten), else into a new bitmap: a caller decoding page after
    /// page keeps one bitmap's memory instead of touching fresh pages for each, whose faults
    /// cost as much as the decoding (`galley diff`).
    public static func decoding(pngData: [UInt8], reusing reusable: Bitmap?) throws(RasterError) -> Bitmap {
        let (width, height) = try pngSize(pngData)
        guard let reusable, reusable.width == width, reusable.height == height else {
            let bitmap = try Bitmap(width: width, height: height)
            try bitmap.decodePNG(pngData)
            return bitmap
        }
        try reusable.decodePNG(pngData)
        return reusable
    }

    private static func pngSize(_ pngData: [UInt8]) throws(RasterError) -> (width: Int, height: Int) {
        var error = [CChar](repeating: 0, count: 256)
        var width: Int32 = 0, height: Int32 = 0
        let status = pngData.withUnsafeBufferPointer { gp_decode_size($0.baseAddress, $0.count, &width, &height, &error, error.count) }
        guard status == 0 else { throw RasterError(.decodeFailed, String(cStringBuffer: error)) }
        return (Int(width), Int(height))
    }

    /// Decodes straight into the pixels, whose size must be the image's.
    private func decodePNG(_ pngData: [UInt8]) throws(RasterError) {
        guard let target = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw RasterError(.invalidSize, "bitmap has no pixels")
        }
        var error = [CChar](repeating: 0, count: 256)
        let status = pngData.withUnsafeBufferPointer {
            gp_decode_rgb($0.baseAddress, $0.count, Int32(width), Int32(height), target, &error, error.count)
        }
        guard status == 0 else { throw RasterError(.decodeFailed, String(cStringBuffer: error)) }
    }
}

extension String {
    /// The NUL-terminated UTF-8 string at the start of a C buffer (a message a shim wrote).
    package init(cStringBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
