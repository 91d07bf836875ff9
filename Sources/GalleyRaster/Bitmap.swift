/// An 8-bit RGB pixel buffer, rows packed (`width * 3` bytes apart), top row first.
///
/// A bitmap is handed from stage to stage (render, then encode): exactly one stage owns it at a
/// time and the hand-off goes through an `OperationQueue`, which orders the writes of the
/// producer before the reads of the consumer. That discipline, not a lock, is why it may be
/// `Sendable`; it is never written by two stages at once.
public final class Bitmap: @unchecked Sendable {
    public let width: Int
    public let height: Int
    public static let channels = 3
    /// Pixel bytes; `width * height * 3` of them.
    public let pixels: UnsafeMutableRawBufferPointer

    /// Allocates a bitmap. Throws when the size is empty or too large to address.
    public init(width: Int, height: Int) throws(RasterError) {
        guard width > 0, height > 0 else {
            throw RasterError(.invalidSize, "bitmap size \(width)×\(height) is empty")
        }
        let (rowBytes, o1) = width.multipliedReportingOverflow(by: Bitmap.channels)
        let (count, o2) = rowBytes.multipliedReportingOverflow(by: height)
        guard !o1, !o2, count <= Bitmap.maximumByteCount else {
            throw RasterError(.invalidSize, "bitmap size \(width)×\(height) exceeds the \(Bitmap.maximumByteCount >> 20) MiB limit")
        }
        self.width = width
        self.height = height
        self.pixels = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
    }

    deinit { pixels.deallocate() }

    /// 4 GiB: a single band larger than this means the caller should render in bands.
    public static let maximumByteCount = 4 << 30

    public var rowBytes: Int { width * Bitmap.channels }

    /// The RGB value at (x, y).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height)")
        let offset = y * rowBytes + x * Bitmap.channels
        return (pixels[offset], pixels[offset + 1], pixels[offset + 2])
    }

    /// Fills every pixel with one colour.
    public func fill(r: UInt8, g: UInt8, b: UInt8) {
        if r == g && g == b {
            pixels.initializeMemory(as: UInt8.self, repeating: r)
            return
        }
        let bytes = pixels.bindMemory(to: UInt8.self)
        var i = 0
        while i < bytes.count {
            bytes[i] = r; bytes[i + 1] = g; bytes[i + 2] = b
            i += 3
        }
    }
}

/// A pixel size.
public struct PixelSize: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    public var description: String { "\(width)×\(height)" }
}
