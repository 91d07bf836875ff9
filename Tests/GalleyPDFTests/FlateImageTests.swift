import Foundation
import GalleyPDF
import GalleyRaster
import GalleyTestSupport
import Testing

/// Flate images are inflated without zlib's checksum (`CGalleyMuPDF` draw.c): the pixels must
/// be MuPDF's own, at full size and subsampled, with PNG predictors, with a checksum that does
/// not match and with data cut short.
@Suite(.serialized) struct FlateImageTests {
    @Test(arguments: TestPDF.ImageStream.allCases)
    func rawInflateDrawsMuPDFsPixels(stream: TestPDF.ImageStream) throws {
        let folder = try ScratchFolder()
        let url = folder.path("image.pdf")
        // 301 × 203: odd sizes, so subsampling has partial blocks at the right and bottom.
        try TestPDF.writeImagePage(width: 301, height: 203, stream: stream, pixel: { x, y in
            (UInt8(truncatingIfNeeded: x &* 7 ^ y &* 13), UInt8(truncatingIfNeeded: y &* 3), UInt8(truncatingIfNeeded: (x >> 2) &+ y))
        }, to: url)
        let engine = try MuPDFEngine()
        let page = try PDFDocument(path: url.path, password: nil, engine: engine).recordPage(0)
        defer { MuPDFEngine.inflatesFlateImagesRaw(true) }
        // At its own size, at 2x, and at sizes MuPDF decodes subsampled by 2, 4 and 16.
        for scale in [1.0, 2.0, 0.4, 0.2, 0.05] {
            MuPDFEngine.inflatesFlateImagesRaw(false)
            let mupdf = try page.render(scale: scale, cancellation: Cancellation())
            MuPDFEngine.inflatesFlateImagesRaw(true)
            let raw = try page.render(scale: scale, cancellation: Cancellation())
            #expect(Array(raw.pixels) == Array(mupdf.pixels), "\(stream) at \(scale)")
            #expect(ImageProperties.inkCoverage(raw) > 0.1, "\(stream) at \(scale): the image is drawn")
        }
    }
}
