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

