import Foundation
import GalleyText
import Testing

/// `<object>` and `<embed>`: a picture is drawn as an `img` would be (DocBook's HTML gives every
/// figure as `<object data="figure.svg">`); anything else sets its fallback content, or is
/// named in a warning; never dropped in silence.
@Suite struct ObjectElementTests {
    func parse(_ html: String) -> ParsedArticle {
        MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
    }

    @Test func aPictureObjectIsDrawnAsAPicture() {
        let article = parse("""
            <div class="figure"><object data="figures/layout.svg" type="image/svg+xml" width="300" height="100">Page layout</object>
            <p class="title">Figure 73.1. Page Layout</p></div>
            <p>Also <embed src="chart.png"> and <object data="photo.JPG?v=2"></object>.</p>
            """)
        #expect(article.text.attachments.map(\.source) == ["figures/layout.svg", "chart.png", "photo.JPG?v=2"])
        #expect(article.text.attachments.first?.width == 225, "300 px wide")
        #expect(article.text.attachments.first?.alternative == "Page layout", "its fallback text is the alternative")
        let text = String(String.UnicodeScalarView(article.text.scalars))
        #expect(!text.contains("Page layout"), "the fallback is not set beside the picture")
        #expect(article.warnings.isEmpty, "\(article.warnings)")
    }

    @Test func anotherObjectSetsItsFallbackOrIsNamedInAWarning() {
        let article = parse("""
            <p>Before <object data="movie.swf" type="application/x-shockwave-flash">the fallback text</object> after.</p>
            <p><object data="applet.class" type="application/java"></object><embed src="player.swf" type="application/x-shockwave-flash"></p>
            """)
        let text = String(String.UnicodeScalarView(article.text.scalars))
        #expect(text.contains("Before the fallback text after."))
        #expect(article.text.attachments.isEmpty)
        #expect(article.warnings.contains { $0.contains("<object> or <embed> element of type application/java not set") }, "\(article.warnings)")
        #expect(article.warnings.contains { $0.contains("of type application/x-shockwave-flash not set") }, "\(article.warnings)")
    }
}
