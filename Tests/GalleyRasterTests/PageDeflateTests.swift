import Foundation
@testable import GalleyRaster
import GalleyTestSupport
import Testing

/// Galley's own deflate for drawn pages (`Sources/CGalleyPNG/page_deflate.c`), which the
/// presets use for images of at most 2048 colours: every stream it writes, at every effort,
/// in every stored form (palettes of 1 to 8 bits, grey, RGB), from one pixel to rows wider
/// than deflate's window, decodes to exactly the drawn pixels in libdeflate (Galley's reader),
/// libpng (netpbm's `pngtopnm`) and zlib (Pillow), passes `pngcheck`, and is the same bytes
/// each time.
@Suite struct PageDeflateTests {
    enum Kind: CaseIterable {
        /// Every pixel a colour of the set at random: nothing repeats but by chance.
        case noise
        /// A page: background runs, a few glyph shapes stamped along text lines, rows that
        /// repeat the row above, and a rule across the page.
        case page
        /// Each row one colour of the set, some rows repeated.
        case stripes
    }

    /// The `n`th of a set of distinct colours (grey ones when `grey`: at most 256).
    static func colour(_ n: Int, of count: Int, grey: Bool) -> (UInt8, UInt8, UInt8) {
        if grey {
            let v = UInt8(count > 1 ? n * 255 / (count - 1) : 128)
            return (v, v, v)
        }
        return (UInt8(n % 256), UInt8((n * 37) % 256), UInt8(truncatingIfNeeded: n / 256 * 50 + 3))
    }

    static func bitmap(_ kind: Kind, width: Int, height: Int, colours: Int, grey: Bool = false,
                       seed: UInt64) throws -> Bitmap {
        var random = SplitMix(seed: seed)
        let bitmap = try Bitmap(width: width, height: height)
        func set(_ x: Int, _ y: Int, _ n: Int) {
            let (r, g, b) = colour(n % colours, of: colours, grey: grey)
            let offset = y * bitmap.rowBytes + x * 3
            bitmap.pixels[offset] = r; bitmap.pixels[offset + 1] = g; bitmap.pixels[offset + 2] = b
        }
        func copyRow(from source: Int, to target: Int) {
            for i in 0..<bitmap.rowBytes { bitmap.pixels[target * bitmap.rowBytes + i] = bitmap.pixels[source * bitmap.rowBytes + i] }
        }
        switch kind {
        case .noise:
            for y in 0..<height { for x in 0..<width { set(x, y, Int(random.next() % UInt64(colours))) } }
        case .stripes:
            for y in 0..<height {
                if y > 0 && random.next() % 3 == 0 { copyRow(from: y - 1, to: y); continue }
                let n = Int(random.next() % UInt64(colours))
                for x in 0..<width { set(x, y, n) }
            }
        case .page:
            for y in 0..<height { for x in 0..<width { set(x, y, colours - 1) } }
            // Four glyph shapes of 5x7 pixels from the set's other colours.
            let glyphs = (0..<4).map { _ in (0..<35).map { _ in Int(random.next() % UInt64(max(colours - 1, 1))) } }
            var y = 1
            while y + 7 <= height {
                var x = Int(random.next() % 4)
                while x + 5 <= width {
                    let glyph = glyphs[Int(random.next() % 4)]
                    for gy in 0..<7 { for gx in 0..<5 where glyph[gy * 5 + gx] % 3 != 0 { set(x + gx, y + gy, glyph[gy * 5 + gx]) } }
                    x += 6 + Int(random.next() % 3)
                }
                y += 10
            }
            if height > 2 { for x in 0..<width { set(x, height / 2, 0) } }
        }
        return bitmap
    }

    /// The first IDAT's first two bytes: the zlib header, 78 01 from the page encoder (libdeflate
    /// writes 78 5E at the presets' levels).
    static func zlibHeader(_ png: [UInt8]) -> [UInt8] {
        guard let type = PNGReductionTests.offset(of: "IDAT", in: png), type + 6 <= png.count else { return [] }
        return Array(png[(type + 4)..<(type + 6)])
    }

    static func settings(effort: Int32) -> PNGCompression.Settings {
        var settings = PNGCompression.balanced.settings
        settings.pageDeflate = effort
        return settings
    }

    /// Encodes with the page encoder at `effort`, checks Galley's decoder and the bytes of a
    /// second encoding, and hands the PNG to the independent decoders.
    static func check(_ bitmap: Bitmap, colours: Int, effort: Int32, decoders: IndependentPNGDecoders,
                      name: String) throws {
        let base = try #require(bitmap.pixels.baseAddress)
        func encode() throws -> [UInt8] {
            try WholeImagePNG.encode(rows: base, width: bitmap.width, height: bitmap.height, stride: bitmap.rowBytes,
                                     channels: 3, settings: settings(effort: effort), dpi: 150).bytes
        }
        let png = try encode()
        #expect(try encode() == png, "\(name): equal pixels give equal bytes")
        #expect(try Bitmap(pngData: png).bytes == bitmap.bytes, "\(name)")
        if colours <= 2048 {
            #expect(zlibHeader(png) == [0x78, 0x01], "\(name): compressed by the page encoder")
        }
        try decoders.add(png, expected: bitmap, name: name)
    }

    static let sizes = [(1, 1), (1, 300), (300, 1), (3, 3), (97, 23), (203, 67), (700, 12)]
    /// (colours, grey): palettes of 1, 2, 4 and 8 bits, 8-bit grey, RGB of few colours (the
    /// page encoder) and of many (libdeflate).
    static let colourSets = [(2, false), (4, false), (16, false), (200, false), (256, true), (1500, false), (3000, false)]

    @Test(arguments: [Int32(1), 2, 3])
    func everyFormDecodesAsDrawn(effort: Int32) throws {
        let decoders = try IndependentPNGDecoders()
        var seed: UInt64 = 1
        for kind in Kind.allCases {
            for (colours, grey) in Self.colourSets {
                for (width, height) in Self.sizes {
                    seed += 1
                    let bitmap = try Self.bitmap(kind, width: width, height: height, colours: colours, grey: grey, seed: seed)
                    try Self.check(bitmap, colours: colours, effort: effort, decoders: decoders,
                                   name: "\(kind)-\(colours)-\(grey)-\(width)x\(height)-e\(effort)")
                }
            }
        }
        let (problems, checked) = try decoders.mismatches()
        #expect(problems.isEmpty, "\(problems)")
        #expect(checked == decoders.count)
    }

    /// Rows longer than deflate's 32 KiB window (no match with the row above is possible),
    /// runs far longer than a match's 258 bytes, and a row at the writer's widest.
    @Test(arguments: [Int32(1), 2, 3])
    func rowsWiderThanTheWindowDecodeAsDrawn(effort: Int32) throws {
        let decoders = try IndependentPNGDecoders()
        let cases: [(Kind, Int, Int, Int, Bool)] = [
            (.page, 11_000, 12, 1500, false),   // RGB rows of 33,001 bytes
            (.noise, 11_000, 3, 600, false),
            (.page, 40_000, 9, 200, false),     // palette rows of 40,001 bytes
            (.stripes, 40_000, 4, 256, true),   // grey
            (.noise, 1_000_000, 1, 2, false),   // 1-bit palette, PNGImageEncoder's widest side
            (.stripes, 1_000_000, 2, 17, false),
        ]
        for (index, (kind, width, height, colours, grey)) in cases.enumerated() {
            let bitmap = try Self.bitmap(kind, width: width, height: height, colours: colours, grey: grey,
                                         seed: UInt64(100 + index))
            try Self.check(bitmap, colours: colours, effort: effort, decoders: decoders,
                           name: "wide-\(kind)-\(colours)-\(width)x\(height)-e\(effort)")
        }
        let (problems, checked) = try decoders.mismatches()
        #expect(problems.isEmpty, "\(problems)")
        #expect(checked == decoders.count)
    }

    /// Random kinds, sizes and colour counts, many more than the cases above.
    @Test func randomImagesDecodeAsDrawn() throws {
        let decoders = try IndependentPNGDecoders()
        var random = SplitMix(seed: 39)
        for index in 0..<240 {
            let kind = Kind.allCases[Int(random.next() % 3)]
            let wide = random.next() % 16 == 0
            let width = wide ? 9_000 + Int(random.next() % 3_000) : 1 + Int(random.next() % 160)
            let height = 1 + Int(random.next() % (wide ? 6 : 40))
            let colours = [1, 2, 3, 5, 9, 16, 17, 64, 255, 256, 257, 900, 2048, 2049][Int(random.next() % 14)]
            let grey = colours <= 256 && random.next() % 2 == 0
            let bitmap = try Self.bitmap(kind, width: width, height: height, colours: colours, grey: grey,
                                         seed: random.next())
            try Self.check(bitmap, colours: colours, effort: Int32(1 + index % 3), decoders: decoders,
                           name: "random-\(index)")
        }
        let (problems, checked) = try decoders.mismatches()
        #expect(problems.isEmpty, "\(problems)")
        #expect(checked == decoders.count)
    }

    /// RGBA and unreduced RGB are not counted, so they stay with libdeflate whatever the
    /// preset, and still decode as drawn.
    @Test func rgbaAndUnreducedImagesStayWithLibdeflate() throws {
        let bitmap = try Self.bitmap(.page, width: 120, height: 40, colours: 5, seed: 7)
        var rgba = [UInt8]()
        for i in stride(from: 0, to: bitmap.pixels.count, by: 3) {
            rgba += [bitmap.pixels[i], bitmap.pixels[i + 1], bitmap.pixels[i + 2], 255]
        }
        let png = try rgba.withUnsafeBytes { buffer in
            try WholeImagePNG.encode(rows: buffer.baseAddress!, width: 120, height: 40, stride: 480, channels: 4,
                                     settings: Self.settings(effort: 3))
        }
        #expect(png.colourType == .rgba)
        #expect(Self.zlibHeader(png.bytes) != [0x78, 0x01])
        #expect(try Bitmap(pngData: png.bytes).bytes == bitmap.bytes)
        let rgb = try bitmap.pngData(compression: .balanced, reduce: false)
        #expect(Self.zlibHeader(rgb) != [0x78, 0x01])
        #expect(try Bitmap(pngData: rgb).bytes == bitmap.bytes)
    }
}
