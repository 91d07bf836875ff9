import Foundation
import GalleyRaster
import GalleyTestSupport
import Testing

/// The WebP, JPEG and AVIF encoders, checked the way a user of their files would: each file is
/// read back by a decoder that shares no code with the encoder (Pillow, avifdec) and compared
/// with the pixels Galley drew.
@Suite struct ImageFormatTests {
    /// A page-like bitmap: white paper, black strokes one to three pixels wide (text), a
    /// coloured block and a gradient (a picture). Odd sizes, so halved chroma has edges to round.
    static func page(width: Int = 301, height: Int = 203) throws -> Bitmap {
        let bitmap = try Bitmap(width: width, height: height)
        bitmap.fill(r: 255, g: 255, b: 255)
        for y in 0..<height {
            for x in 0..<width {
                let offset = y * bitmap.rowBytes + x * 3
                if y > 120 {
                    bitmap.pixels[offset] = UInt8(x * 255 / width)
                    bitmap.pixels[offset + 1] = UInt8((y - 120) * 255 / (height - 120))
                    bitmap.pixels[offset + 2] = 140
                } else if x > 220 && y > 20 && y < 100 {
                    (bitmap.pixels[offset], bitmap.pixels[offset + 1], bitmap.pixels[offset + 2]) = (26, 79, 156)
                } else if x > 10 && x < 210 && y % 12 < 1 + (x / 70) && (x / 7) % 3 != 0 {
                    (bitmap.pixels[offset], bitmap.pixels[offset + 1], bitmap.pixels[offset + 2]) = (0, 0, 0)
                }
            }
        }
        return bitmap
    }

    /// Largest mean absolute difference (fraction of full scale) allowed for a lossy format at
    /// its default quality: about 3 levels of 255. Measured on this page: 0.6 to 1.6 levels.
    static let lossyTolerance = 0.012

    static let lossyEncoders: [any ImageEncoder] = [
        JPEGImageEncoder(), JPEGImageEncoder(progressive: true, chroma: .full), WebPImageEncoder(), AVIFImageEncoder(),
        AVIFImageEncoder(speed: 8, chroma: .half),
    ]

    @Test(arguments: 0..<lossyEncoders.count)
    func lossyFilesDecodeToThePixelsDrawnWithinTolerance(index: Int) throws {
        let encoder = Self.lossyEncoders[index]
        let page = try Self.page()
        let bytes = try encoder.encode(page, dpi: 150)
        let (decoded, facts) = try IndependentImageDecoder.decode(bytes, format: encoder.format)
        #expect(decoded.width == page.width && decoded.height == page.height)
        let difference = ImageProperties.meanAbsoluteDifference(decoded, page)
        #expect(difference < Self.lossyTolerance, "\(encoder.fingerprint): \(difference * 255) levels")
        #expect(difference > 0, "a lossy encoder at its default quality changes some pixel")
        #expect(encoder.pixelSize(of: bytes).map { [$0.width, $0.height] } == [page.width, page.height])
        if let jpeg = encoder as? JPEGImageEncoder { #expect(facts.progressive == jpeg.progressive) }
    }

    @Test func losslessWebPDecodesToExactlyThePixelsDrawn() throws {
        let page = try Self.page()
        let bytes = try WebPImageEncoder(lossless: true).encode(page, dpi: nil)
        let (decoded, _) = try IndependentImageDecoder.decode(bytes, format: .webp)
        #expect(decoded.bytes == page.bytes)
    }

    /// Quality is what the user turns: a low quality must cost pixels and save bytes.
    @Test(arguments: [ImageFormat.jpeg, .webp, .avif])
    func lowerQualityGivesSmallerFilesFurtherFromThePixels(format: ImageFormat) throws {
        let page = try Self.page()
        func encoded(_ quality: Int) throws -> (bytes: Int, difference: Double) {
            var encoding = ImageEncoding(format: format)
            encoding.quality = quality
            let bytes = try encoding.encoder.encode(page, dpi: nil)
            return (bytes.count, ImageProperties.meanAbsoluteDifference(try IndependentImageDecoder.decode(bytes, format: format).bitmap, page))
        }
        let high = try encoded(95), low = try encoded(20)
        #expect(low.bytes < high.bytes)
        #expect(low.difference > high.difference)
    }

    /// Same pixels and settings, same bytes: no time, no thread-dependent choice.
    @Test(arguments: [ImageFormat.jpeg, .webp, .avif])
    func equalPixelsGiveEqualBytes(format: ImageFormat) throws {
        let encoder = ImageEncoding(format: format).encoder
        #expect(try encoder.encode(try Self.page(), dpi: 150) == encoder.encode(try Self.page(), dpi: 150))
    }

    @Test func jpegCarriesTheResolutionInItsJFIFHeader() throws {
        let page = try Self.page()
        let facts = try IndependentImageDecoder.decode(try JPEGImageEncoder().encode(page, dpi: 150), format: .jpeg).facts
        #expect(facts.jfifUnit == 1 && facts.jfifDensity == [150, 150])
        // A thumbnail records none: no unit, aspect 1:1.
        let thumbnail = try IndependentImageDecoder.decode(try JPEGImageEncoder().encode(page, dpi: nil), format: .jpeg).facts
        #expect(thumbnail.jfifUnit == 0 && thumbnail.jfifDensity == [1, 1])
    }

    @Test(arguments: [false, true])
    func webPCarriesTheResolutionInAnExifChunk(lossless: Bool) throws {
        let page = try Self.page()
        let bytes = try WebPImageEncoder(lossless: lossless).encode(page, dpi: 72.5)
        let (decoded, facts) = try IndependentImageDecoder.decode(bytes, format: .webp)
        #expect(facts.exifResolution == [72.5, 72.5, 2])
        if lossless { #expect(decoded.bytes == page.bytes, "the Exif chunk leaves the pixels alone") }
        #expect(try IndependentImageDecoder.decode(try WebPImageEncoder().encode(page, dpi: nil), format: .webp).facts.exifResolution == nil)
    }

    @Test func avifCarriesTheResolutionInAnExifItem() throws {
        let folder = try ScratchFolder()
        let file = folder.path("page.avif")
        try Data(try AVIFImageEncoder().encode(try Self.page(), dpi: 150)).write(to: file)
        let info = try PeerTools.run("avifdec", ["--info", file.path])
        #expect(info.stdout.contains("Exif Metadata  : Present (66 bytes)"), "\(info.stdout)")
        try Data(try AVIFImageEncoder().encode(try Self.page(), dpi: nil)).write(to: file)
        #expect(try PeerTools.run("avifdec", ["--info", file.path]).stdout.contains("Exif Metadata  : Absent"))
    }

    /// A JPEG handed over in bands is one image, whatever the bands: the bytes do not depend
    /// on where the bands were cut, and decode to the page within the lossy tolerance.
    @Test func jpegInBandsIsTheSameWhateverTheBands() throws {
        let page = try Self.page()
        func banded(rows: Int) throws -> [UInt8] {
            let encoder = try JPEGImageEncoder().bandEncoder(width: page.width, height: page.height, dpi: 150)
            var y = 0
            while y < page.height {
                let count = min(rows, page.height - y)
                let band = try Bitmap(width: page.width, height: count)
                band.pixels.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(page.pixels)[(y * page.rowBytes)..<((y + count) * page.rowBytes)]))
                try encoder.write(band)
                y += count
            }
            return try encoder.finish()
        }
        let inSeventeens = try banded(rows: 17), inHundreds = try banded(rows: 100)
        #expect(inSeventeens == inHundreds)
        let (decoded, facts) = try IndependentImageDecoder.decode(inSeventeens, format: .jpeg)
        #expect(ImageProperties.meanAbsoluteDifference(decoded, page) < Self.lossyTolerance)
        #expect(facts.jfifDensity == [150, 150] && !facts.progressive)
    }

    @Test func aJPEGMissingRowsIsAnErrorNotACrash() throws {
        let encoder = try JPEGImageEncoder().bandEncoder(width: 40, height: 30, dpi: nil)
        try encoder.write(try Bitmap(width: 40, height: 10))
        #expect(throws: RasterError.self) { try encoder.finish() }
    }

    @Test func encodersThatNeedTheWholeImageRefusePagesOverTheirLimit() throws {
        #expect(WebPImageEncoder().maximumPixels == wholeImagePixelLimit && AVIFImageEncoder().maximumPixels == 12 << 20)
        for encoder in [WebPImageEncoder(), AVIFImageEncoder()] as [any ImageEncoder] {
            let limit = try #require(encoder.maximumPixels)
            let side = Int(Double(limit).squareRoot()) + 1
            #expect(throws: RasterError.self) { try encoder.checkSize(width: side, height: side) }
            do {
                try encoder.checkSize(width: side, height: side)
            } catch {
                #expect(error.code == .tooLargeForFormat && error.failure.code == .tooLargeForFormat)
                #expect(error.message.contains("\(limit)"), "\(error.message)")
            }
            try encoder.checkSize(width: side - 1, height: side - 1)
            #expect(throws: RasterError.self) { try encoder.bandEncoder(width: side, height: side, dpi: nil) }
        }
        // WebP's own limit on a side, whatever the pixel count.
        #expect(throws: RasterError.self) { try WebPImageEncoder().checkSize(width: 16384, height: 10) }
        // Band writers take any pixel count, up to the format's side.
        try JPEGImageEncoder().checkSize(width: 60000, height: 60000)
        try PNGImageEncoder().checkSize(width: 100_000, height: 100_000)
        #expect(throws: RasterError.self) { try JPEGImageEncoder().checkSize(width: 65501, height: 10) }
    }

    /// Galley's own decoders (what `galley diff` reads pages with) give the pixels the
    /// independent decoders give, and refuse an image over the size asked for.
    @Test(arguments: [ImageFormat.png, .jpeg, .webp, .avif])
    func galleyReadsEveryFormatItWritesAsOthersDo(format: ImageFormat) throws {
        let page = try Self.page()
        let bytes = try ImageEncoding(format: format).encoder.encode(page, dpi: 150)
        let own = try Bitmap(encoded: bytes, format: format)
        let independent = try IndependentImageDecoder.decode(bytes, format: format).bitmap
        #expect(own.width == page.width && own.height == page.height)
        // libjpeg's and Pillow's may upsample chroma differently; within a level on average.
        #expect(ImageProperties.meanAbsoluteDifference(own, independent) <= 1.0 / 255)
        #expect(throws: RasterError.self) { try Bitmap(encoded: bytes, format: format, maximumPixels: page.width * page.height - 1) }
        #expect(throws: RasterError.self) { try Bitmap(encoded: Array(bytes.prefix(40)), format: format) }
    }

    @Test func namesAndExtensions() {
        #expect(ImageFormat.allCases.map(\.fileExtension) == ["png", "webp", "jpg", "avif"])
        #expect(ImageFormat.allCases.allSatisfy { ImageFormat(fileExtension: $0.fileExtension) == $0 })
        #expect(ImageFormat.allCases.filter(\.writesBands) == [.png, .jpeg])
    }

    @Test func fingerprintsChangeWithEverySettingOfTheBytes() {
        let fingerprints = [
            JPEGImageEncoder().fingerprint, JPEGImageEncoder(quality: 80).fingerprint, JPEGImageEncoder(progressive: true).fingerprint,
            JPEGImageEncoder(chroma: .full).fingerprint, WebPImageEncoder().fingerprint, WebPImageEncoder(quality: 80).fingerprint,
            WebPImageEncoder(lossless: true).fingerprint, AVIFImageEncoder().fingerprint, AVIFImageEncoder(quality: 60).fingerprint,
            AVIFImageEncoder(speed: 9).fingerprint, AVIFImageEncoder(chroma: .half).fingerprint, PNGImageEncoder().fingerprint,
        ]
        #expect(Set(fingerprints).count == fingerprints.count)
    }
}
