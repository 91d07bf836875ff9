import Foundation
import GalleyPDF
import GalleyRaster
import GalleyTestSupport
import GalleyText
import Testing

/// An inline-block (`display: inline-block`) in the vector PDF: its border, background and
/// words drawn where the page image draws them.
struct InlineBlockPDFTests {
    @Test func theInlineBlockIsDrawnInThePDFWhereThePageImageHasIt() throws {
        let html = "<p>Before <span style='display: inline-block; padding: 6px; border: 3px solid #008000; background: #0000ff; "
            + "color: white'>Boxed words</span> after.</p>"
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        var layout = ArticleLayout(name: "pdf")
        (layout.pageWidth, layout.pageHeight) = (300, 200)
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: try FontLibrary())
        let page = try #require(try typesetter.nextPage())
        let writer = PDFDocumentFormat().makeWriter(text: article.text, layout: layout)
        try writer.add(page)
        let folder = try ScratchFolder("inline-block-pdf")
        let url = folder.path("page.pdf")
        try Data(try writer.finish()).write(to: url)
        let pdf = try PDFDocument(path: url.path, password: nil, engine: try MuPDFEngine())
        #expect(try pdf.pageText(0).contains("Boxed words"))
        let scale = 96.0 / 72
        let vector = try pdf.recordPage(0).render(scale: scale, cancellation: Cancellation())
        let raster = try page.render(scale: scale, cancellation: Cancellation())
        /// The bounding box of the pixels close to `rgb`.
        func box(_ rgb: (Int, Int, Int), in bitmap: Bitmap) -> (x: Int, y: Int, maxX: Int, maxY: Int)? {
            var found: (x: Int, y: Int, maxX: Int, maxY: Int)?
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let p = bitmap.pixel(x: x, y: y)
                    guard abs(Int(p.r) - rgb.0) < 8, abs(Int(p.g) - rgb.1) < 8, abs(Int(p.b) - rgb.2) < 8 else { continue }
                    found = found.map { (min($0.x, x), min($0.y, y), max($0.maxX, x), max($0.maxY, y)) } ?? (x, y, x, y)
                }
            }
            return found
        }
        let border = try #require(box((0, 128, 0), in: raster))
        let vectorBorder = try #require(box((0, 128, 0), in: vector), "the border in the PDF")
        #expect(abs(border.x - vectorBorder.x) <= 1 && abs(border.y - vectorBorder.y) <= 1
                && abs(border.maxX - vectorBorder.maxX) <= 1 && abs(border.maxY - vectorBorder.maxY) <= 1, "\(border) against \(vectorBorder)")
        // Padding inside the border: 3 px of border and 6 of padding around the words.
        #expect(border.maxY - border.y + 1 >= 18 + 14)
        let blue = try #require(box((0, 0, 255), in: vector), "the background in the PDF")
        #expect(blue.x == vectorBorder.x + 3 || blue.x == vectorBorder.x + 4)
    }
}
