import GalleyRaster

/// Image properties tests assert on: what a person looking at the picture would notice.
public enum ImageProperties {
    /// Mean absolute difference of two equally sized bitmaps, as a fraction of full scale.
    public static func meanAbsoluteDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height, "sizes differ")
        var total = 0
        for i in 0..<a.pixels.count {
            total += abs(Int(a.pixels[i]) - Int(b.pixels[i]))
        }
        return Double(total) / Double(a.pixels.count) / 255
    }

    /// Fraction of pixels that are not pure white.
    public static func inkCoverage(_ bitmap: Bitmap) -> Double {
        var ink = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                if p.r != 255 || p.g != 255 || p.b != 255 { ink += 1 }
            }
        }
        return Double(ink) / Double(bitmap.width * bitmap.height)
    }

    /// Rows that are entirely black (a classic sign of an uninitialised or mis-strided buffer).
    public static func blackRows(_ bitmap: Bitmap) -> Int {
        (0..<bitmap.height).filter { y in
            (0..<bitmap.width).allSatisfy { x in
                let p = bitmap.pixel(x: x, y: y)
                return p.r == 0 && p.g == 0 && p.b == 0
            }
        }.count
    }

    /// The PNG chunk types in order.
    public static func chunkTypes(_ png: [UInt8]) -> [String] {
        var types: [String] = []
        var offset = 8
        while offset + 8 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            types.append(String(decoding: png[offset + 4..<offset + 8], as: UTF8.self))
            offset += 12 + length
        }
        return types
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// A tiny lock for test helpers (Foundation-free modules).
public final class NSLockLike: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    public init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body()
    }
}
