import CAVIF
import CGalleyJPEG
import CWebP
#if canImport(Glibc)
import Glibc
#endif

extension Bitmap {
    /// Decodes a page image or thumbnail in any of the formats Galley writes to RGB (what
    /// `galley diff` compares), refusing one of more than `maximumPixels` pixels before its
    /// pixels are decoded.
    public convenience init(encoded bytes: [UInt8], format: ImageFormat, maximumPixels: Int = Bitmap.maximumByteCount / 3) throws(RasterError) {
        switch format {
        case .png:
            if let size = PNGText.dimensions(of: bytes),
               size.width.multipliedReportingOverflow(by: size.height).overflow || size.width * size.height > maximumPixels {
                throw RasterError(.decodeFailed, "a PNG of \(size.width)×\(size.height) pixels is over the \(maximumPixels) asked for")
            }
            try self.init(pngData: bytes)
        case .jpeg:
            var pixels: UnsafeMutablePointer<UInt8>?
            var width: Int32 = 0, height: Int32 = 0
            var error = [CChar](repeating: 0, count: 256)
            let status = bytes.withUnsafeBufferPointer {
                gj_decode($0.baseAddress, $0.count, maximumPixels, &pixels, &width, &height, &error, error.count)
            }
            guard status == 0, let pixels else { throw RasterError(.decodeFailed, String(cStringBuffer: error)) }
            defer { free(pixels) }
            try self.init(width: Int(width), height: Int(height))
            self.pixels.copyMemory(from: UnsafeRawBufferPointer(start: pixels, count: self.pixels.count))
        case .webp:
            var width: Int32 = 0, height: Int32 = 0
            guard bytes.withUnsafeBufferPointer({ WebPGetInfo($0.baseAddress, $0.count, &width, &height) }) != 0,
                  Int(width) * Int(height) <= maximumPixels else {
                throw RasterError(.decodeFailed, "not a WebP image, or one over \(maximumPixels) pixels")
            }
            try self.init(width: Int(width), height: Int(height))
            let target = self.pixels
            let decoded = bytes.withUnsafeBufferPointer {
                WebPDecodeRGBInto($0.baseAddress, $0.count, target.baseAddress?.assumingMemoryBound(to: UInt8.self), target.count,
                                  Int32(width) * 3)
            }
            guard decoded != nil else { throw RasterError(.decodeFailed, "libwebp cannot decode the image") }
        case .avif:
            guard let decoder = avifDecoderCreate() else { throw RasterError(.decodeFailed, "libavif: out of memory") }
            defer { avifDecoderDestroy(decoder) }
            decoder.pointee.maxThreads = 1
            // libavif 0.11 takes no limit above its default (16384 × 16384): "not implemented".
            decoder.pointee.imageSizeLimit = UInt32(min(maximumPixels, 16384 * 16384))
            guard let image = avifImageCreateEmpty() else { throw RasterError(.decodeFailed, "libavif: out of memory") }
            defer { avifImageDestroy(image) }
            let result = bytes.withUnsafeBufferPointer { avifDecoderReadMemory(decoder, image, $0.baseAddress, $0.count) }
            guard result == AVIF_RESULT_OK else {
                throw RasterError(.decodeFailed, "libavif: \(String(cString: avifResultToString(result)))")
            }
            try self.init(width: Int(image.pointee.width), height: Int(image.pointee.height))
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGB
            rgb.depth = 8
            rgb.pixels = self.pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(rowBytes)
            let converted = avifImageYUVToRGB(image, &rgb)
            guard converted == AVIF_RESULT_OK else {
                throw RasterError(.decodeFailed, "libavif: \(String(cString: avifResultToString(converted)))")
            }
        }
    }
}
