import Foundation
import GalleyRaster
import GalleyTestSupport
import Testing

/// Colour-type reduction and the whole-image writer: every stored form decodes to exactly the
/// drawn pixels, in Galley's decoder and in independent ones.
@Suite struct PNGReductionTests {
    /// A bitmap of `colours` distinct colours (grey ones when `grey`) in stripes and blocks,
    /// with a width that is no multiple of 8 so packed rows end in a partial byte.
    static func bitmap(colours: Int, grey: Bool = false, width: Int = 203, height: Int = 67) throws -> Bitmap {
        let bitmap = try Bitmap(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let n = (x / 3 + y * 7 + (x * y) % 5) % colours
                let offset = y * bitmap.rowBytes + x * 3
                if grey {
                    let v = UInt8(colours > 1 ? n * 255 / (colours - 1) : 128)
                    bitmap.pixels[offset] = v; bitmap.pixels[offset + 1] = v; bitmap.pixels[offset + 2] = v
                } else {
                    bitmap.pixels[offset] = UInt8(n % 256)
                    bitmap.pixels[offset + 1] = UInt8((n * 37) % 256)
                    bitmap.pixels[offset + 2] = UInt8(n / 256 * 50 + 3)
                }
            }
        }
        return bitmap
    }

    static func header(_ png: [UInt8]) -> (bitDepth: UInt8, colourType: UInt8) { (png[24], png[25]) }

    /// (colours, grey, expected IHDR bit depth and colour type)
    static let cases: [(Int, Bool, UInt8, UInt8)] = [
        (1, false, 1, 3), (2, false, 1, 3), (3, false, 2, 3), (4, false, 2, 3), (5, false, 4, 3), (16, false, 4, 3),
        (17, false, 8, 3), (256, false, 8, 3), (257, false, 8, 2), (3000, false, 8, 2),
        (2, true, 1, 3), (16, true, 4, 3), (17, true, 8, 0), (256, true, 8, 0),
    ]

    @Test(arguments: cases.indices)
    func smallestLosslessFormIsStored(index: Int) throws {
        let (colours, grey, depth, type) = Self.cases[index]
        let bitmap = try Self.bitmap(colours: colours, grey: grey)
        for preset in PNGCompression.allCases {
            let png = try bitmap.pngData(compression: preset)
            #expect(Self.header(png) == (depth, type), "\(colours) colours, grey \(grey), \(preset)")
            #expect(try Bitmap(pngData: png).bytes == bitmap.bytes)
            let rgb = try bitmap.pngData(compression: preset, reduce: false)
            #expect(Self.header(rgb) == (8, 2))
        }
    }

    @Test func independentDecodersReadEveryFormAsDrawn() throws {
        let decoders = try IndependentPNGDecoders()
        for (colours, grey, _, _) in Self.cases {
            let bitmap = try Self.bitmap(colours: colours, grey: grey, width: 97, height: 23)
            for preset in PNGCompression.allCases {
                try decoders.add(try bitmap.pngData(compression: preset, dpi: 150), expected: bitmap,
                                 name: "\(colours)-\(grey)-\(preset)")
            }
        }
        let (problems, checked) = try decoders.mismatches()
        #expect(problems.isEmpty, "\(problems)")
        #expect(checked == decoders.count)
    }

    @Test func pageImagesCarryTheirResolutionAndPassPNGCheck() throws {
        let folder = try ScratchFolder("phys")
        let file = folder.path("page.png")
        try Data(try Self.bitmap(colours: 40).pngData(dpi: 150)).write(to: file)
        let check = try PeerTools.run("pngcheck", ["-v", file.path])
        #expect(check.status == 0, "\(check.stdout)")
        // As mutool writes 150 dpi: 5906 pixels per metre.
        #expect(check.stdout.contains("5906x5906 pixels/meter (150 dpi)"), "\(check.stdout)")
        #expect(check.stdout.contains("PLTE"))
        let plain = try Self.bitmap(colours: 40).pngData()
        #expect(!ImageProperties.chunkTypes(plain).contains("pHYs"), "no resolution given, none written")
    }

    @Test func largeStreamsAreSplitOverIDATChunks() throws {
        // Noise does not compress: more than 1 MiB of zlib stream, so several IDAT chunks.
        let bitmap = try Bitmap(width: 900, height: 700)
        var random = SplitMix(seed: 18)
        for i in 0..<bitmap.pixels.count { bitmap.pixels[i] = UInt8(truncatingIfNeeded: random.next()) }
        let png = try bitmap.pngData(compression: .fast, dpi: 72)
        #expect(ImageProperties.chunkTypes(png).filter { $0 == "IDAT" }.count >= 2)
        let decoders = try IndependentPNGDecoders()
        try decoders.add(png, expected: bitmap, name: "noise")
        let (problems, _) = try decoders.mismatches()
        #expect(problems.isEmpty, "\(problems)")
        #expect(try Bitmap(pngData: png).bytes == bitmap.bytes)
    }

    @Test func rgbaIsKeptWhenAsked() throws {
        var rgba = [UInt8](repeating: 255, count: 5 * 4 * 4)
        rgba[3] = 0  // one transparent pixel
        let png = try rgba.withUnsafeBytes { buffer in
            try WholeImagePNG.encode(rows: buffer.baseAddress!, width: 5, height: 4, stride: 20, channels: 4,
                                     compression: .default, reduce: true, text: [(key: "Thumb::Size", value: "12")])
        }
        #expect(png.colourType == .rgba && png.bitDepth == 8)
        #expect(PNGText.chunks(of: png.bytes)?["Thumb::Size"] == "12")
    }

    /// The forms a run writes are read by Galley's own reader; anything else (transparency
    /// here) goes to libpng, and a damaged file is refused, never decoded to wrong pixels.
    @Test func transparencyIsCompositedOntoWhiteAndDamageIsRefused() throws {
        // Black pixels: opaque, transparent, half transparent.
        var rgba = [UInt8](repeating: 0, count: 3 * 4)
        rgba[3] = 255; rgba[7] = 0; rgba[11] = 128
        let png = try rgba.withUnsafeBytes { buffer in
            try WholeImagePNG.encode(rows: buffer.baseAddress!, width: 3, height: 1, stride: 12, channels: 4,
                                     compression: .default, reduce: true)
        }
        let decoded = try Bitmap(pngData: png.bytes)
        #expect(decoded.pixel(x: 0, y: 0) == (0, 0, 0) && decoded.pixel(x: 1, y: 0) == (255, 255, 255))
        #expect((1...254).contains(decoded.pixel(x: 2, y: 0).r), "half-transparent black on white is grey (libpng blends in linear light)")

        let page = try Self.bitmap(colours: 40).pngData()
        var damaged = page
        // A byte inside the first IDAT's data: its CRC no longer matches.
        let type = try #require(Self.offset(of: "IDAT", in: damaged))
        damaged[type + 12] ^= 0x40
        let error = #expect(throws: RasterError.self) { try Bitmap(pngData: damaged) }
        #expect(error?.code == .decodeFailed)
        #expect(error.map { "\($0)".hasPrefix("libpng: ") } == true, "libpng says what is wrong: \(String(describing: error))")
    }

    /// A bitmap decoded into again (as `galley diff` does page after page) holds the new
    /// image alone, whatever form either was stored in; one of another size is not reused.
    @Test func aReusedBitmapHoldsOnlyTheNewImage() throws {
        let first = try Self.bitmap(colours: 3000), second = try Self.bitmap(colours: 2, grey: true)
        let reusable = try Bitmap.decoding(pngData: try first.pngData(), reusing: nil)
        let again = try Bitmap.decoding(pngData: try second.pngData(), reusing: reusable)
        #expect(again === reusable && again.bytes == second.bytes)
        let smaller = try Self.bitmap(colours: 17, width: 50, height: 20)
        let other = try Bitmap.decoding(pngData: try smaller.pngData(), reusing: reusable)
        #expect(other !== reusable && other.bytes == smaller.bytes)
    }

    /// Where a chunk type first appears in `png`.
    static func offset(of type: String, in png: [UInt8]) -> Int? {
        let bytes = Array(type.utf8)
        return png.indices.dropLast(3).first { Array(png[$0..<($0 + 4)]) == bytes }
    }

    @Test func badTextKeysAreRefused() throws {
        let bitmap = try Self.bitmap(colours: 3)
        for key in ["", String(repeating: "k", count: 80)] {
            let error = #expect(throws: RasterError.self) {
                try WholeImagePNG.encode(rows: UnsafeRawPointer(bitmap.pixels.baseAddress!), width: bitmap.width,
                                         height: bitmap.height, stride: bitmap.rowBytes, channels: 3,
                                         compression: .fast, text: [(key: key, value: "v")])
            }
            #expect(error?.code == .encodeFailed)
        }
    }
}
