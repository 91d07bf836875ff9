import GalleyRaster

/// Image properties tests assert on: what a person looking at the picture would notice.
public enum ImageProperties {
    /// Mean absolute difference of two equally sized bitmaps, as a fraction of full scale.
    public static func meanAbsoluteDifference(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height, "sizes differ")
        return meanAbsoluteDifference(a, b, width: a.width, height: a.height)
    }

    /// Mean absolute difference over the top-left `width`×`height` of two bitmaps (for images
    /// whose sizes may differ by a rounding pixel).
    public static func meanAbsoluteDifference(_ a: Bitmap, _ b: Bitmap, width: Int, height: Int) -> Double {
        precondition(width <= min(a.width, b.width) && height <= min(a.height, b.height), "region outside a bitmap")
        var total = 0
        for y in 0..<height {
            for x in 0..<width * Bitmap.channels {
                total += abs(Int(a.pixels[y * a.rowBytes + x]) - Int(b.pixels[y * b.rowBytes + x]))
            }
        }
        return Double(total) / Double(width * height * Bitmap.channels) / 255
    }

    /// Pixels that are not pure white, and how many of them lie outside every rectangle
    /// (given in bitmap pixels, widened by `margin` on every side).
    public static func ink(_ bitmap: Bitmap, outside rects: [(x0: Double, y0: Double, x1: Double, y1: Double)],
                           margin: Double) -> (inked: Int, outside: Int) {
        var inked = 0, outside = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y) != (255, 255, 255) {
                inked += 1
                let inside = rects.contains { r in
                    Double(x) >= r.x0 - margin && Double(x) <= r.x1 + margin && Double(y) >= r.y0 - margin && Double(y) <= r.y1 + margin
                }
                if !inside { outside += 1 }
            }
        }
        return (inked, outside)
    }

    /// The size of the box around the pixels that are not white in `rows`, nil when there
    /// are none.
    public static func inkBounds(_ bitmap: Bitmap, rows: Range<Int>? = nil) -> (width: Int, height: Int)? {
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in rows ?? 0..<bitmap.height {
            for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y) != (255, 255, 255) {
                minX = min(minX, x); maxX = max(maxX, x)
                minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        return maxX < 0 ? nil : (maxX - minX + 1, maxY - minY + 1)
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


extension Bitmap {
    /// A copy of the pixel bytes. `Array(Bitmap(...).pixels)` on a temporary may read freed
    /// memory (the bitmap can be released once `pixels` is read); here `self` lives for the
    /// whole copy.
    public var bytes: [UInt8] { withExtendedLifetime(self) { Array(pixels) } }
}
