import Foundation
import GalleyPDF
import GalleyRaster
import GalleyTestSupport
import Testing

/// The article image decoder: fixture PNG and JPEG files (`scripts/make-articles.py`) decoded
/// through MuPDF into premultiplied RGBA.
@Suite struct ImageDecoderTests {
    let engine: MuPDFEngine

    init() throws {
        engine = try MuPDFEngine()
    }

    func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Fixtures.articlesFolder.appendingPathComponent("images/\(name)")))
    }

    @Test func decodesAPNGAtItsPixelSizeWithItsColours() throws {
        let image = try engine.decodeImage(try fixture("figure.png"))
        #expect(image.width == 120 && image.height == 80)
        // The gradient's first row and the axis the script draws, fully opaque.
        #expect(image.pixel(x: 0, y: 0) == (247, 241, 229, 255))
        #expect(image.pixel(x: 10, y: 40) == (60, 50, 40, 255))
    }

    @Test func decodesAJPEGToRGB() throws {
        let image = try engine.decodeImage(try fixture("photo.jpg"))
        #expect(image.width == 160 && image.height == 100)
        // Lossy, so near the halves' colours (30, 80, 200) and (230, 140, 20), away from the seam.
        for (x, colour) in [(20, (30, 80, 200)), (140, (230, 140, 20))] {
            let pixel = image.pixel(x: x, y: 50)
            #expect(near(pixel, colour) && pixel.a == 255, "x \(x): \(pixel)")
        }
    }

    @Test func keepsAlpha() throws {
        let image = try engine.decodeImage(try fixture("badge.png"))
        #expect(image.width == 48 && image.height == 48)
        #expect(image.pixel(x: 0, y: 0) == (0, 0, 0, 0))
        #expect(image.pixel(x: 24, y: 24) == (46, 107, 46, 255))
    }

    @Test func bytesThatAreNoImageFailWithMuPDFsMessage() throws {
        let error = #expect(throws: PDFError.self) {
            try engine.decodeImage(Array("this is not an image, just text".utf8))
        }
        #expect(error?.code == .corrupt)
        #expect(error?.message.isEmpty == false)
        // A PNG cut short after its header.
        let truncated = Array(try fixture("figure.png").prefix(60))
        #expect(throws: PDFError.self) { try engine.decodeImage(truncated) }
    }

    @Test func imagesOverThePixelLimitAreRefusedWithTheirSize() throws {
        let error = #expect(throws: PDFError.self) {
            try engine.decodeImage(try fixture("figure.png"), maximumPixels: 9_000)
        }
        #expect(error?.code == .tooLarge)
        #expect(error?.message.contains("120×80") == true, "\(String(describing: error))")
        #expect(try engine.decodeImage(try fixture("figure.png"), maximumPixels: 9_600).width == 120)
    }
}

private func near(_ pixel: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ colour: (Int, Int, Int), tolerance: Int = 12) -> Bool {
    abs(Int(pixel.r) - colour.0) <= tolerance && abs(Int(pixel.g) - colour.1) <= tolerance && abs(Int(pixel.b) - colour.2) <= tolerance
}
