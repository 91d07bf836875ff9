import CGalleyPNG
import Glibc

extension RasterImage {
    /// A PNG file decoded a row at a time straight to a whole fraction of its size, no fewer
    /// pixels than `maxWidth` x `maxHeight` allow it to be drawn at (`gp_decode_reduced`),
    /// its intrinsic size still the file's; nil when it is not reduced so (not a PNG, damaged,
    /// interlaced, with a colour profile, over `maximumPixels`, or under twice the drawn size).
    public static func reducedPNG(_ bytes: [UInt8], maximumPixels: Int, maxWidth: Int32, maxHeight: Int32,
                                  keepsAspect: Bool) -> RasterImage? {
        var width: Int32 = 0, height: Int32 = 0, sourceWidth: Int32 = 0, sourceHeight: Int32 = 0
        var samples: UnsafeMutablePointer<UInt8>?
        let done = bytes.withUnsafeBufferPointer { data in
            gp_decode_reduced(data.baseAddress, data.count, maximumPixels, maxWidth, maxHeight, keepsAspect ? 1 : 0,
                              &width, &height, &sourceWidth, &sourceHeight, &samples)
        }
        guard done == 1, let samples else { return nil }
        defer { free(samples) }
        return RasterImage(width: Int(width), height: Int(height),
                           pixels: Array(UnsafeBufferPointer(start: samples, count: Int(width) * Int(height) * channels)),
                           intrinsic: (Double(sourceWidth), Double(sourceHeight)))
    }
}
