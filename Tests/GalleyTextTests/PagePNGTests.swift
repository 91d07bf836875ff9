import Foundation
import GalleyRaster
import GalleyTestSupport
import GalleyText
import Testing

/// Every page of every fixture article, typeset in two columns and drawn at 96 dpi (one ink on
/// a background, the case colour-type reduction helps most): the reduced PNG decodes to the
/// drawn pixels in Galley's decoder and in independent ones.
@Test func reducedPNGsOfEveryFixtureArticlePageDecodeAsDrawn() throws {
    var layout = ArticleLayout(name: "two-columns")
    layout.columns = 2
    var pages: [(name: String, bitmap: Bitmap)] = []
    for article in Fixtures.articles {
        let bytes = try [UInt8](Data(contentsOf: article))
        let parser = MarkupParser(base: BaseStyle())
        let parsed = article.pathExtension == "txt" ? parser.parse(plainText: bytes) : parser.parse(html: bytes, baseURL: nil)
        for (number, page) in try typesetAll(parsed.text, layout, fonts: sharedFonts).enumerated() {
            pages.append(("\(article.lastPathComponent)-\(number + 1)", try page.render(scale: 96.0 / 72, cancellation: Cancellation())))
        }
    }
    let (problems, forms, reducedBytes, rgbBytes) = try ReducedPNGCheck.check(pages, dpi: 96)
    #expect(problems.isEmpty, "\(problems)")
    #expect(reducedBytes < rgbBytes * 9 / 10, "reduced \(reducedBytes) bytes, RGB \(rgbBytes)")
    #expect(forms.values.reduce(0, +) == pages.count && pages.count > Fixtures.articles.count, "\(forms)")
    #expect(forms["rgb", default: 0] < pages.count, "text pages are stored reduced: \(forms)")
}
