import GalleyText
import Testing

/// The article's own look: linked and imported style sheets (print media), `display: none`
/// and `visibility: hidden`, and links coloured and underlined unless the CSS says otherwise.
@Suite struct LinkedStyleSheetTests {
    /// Style sheets by href, as a loader gives them; anything else is refused.
    static func loader(_ sheets: [String: String]) -> @Sendable (String) -> StyleSheetLoad {
        { href in sheets[href].map(StyleSheetLoad.css) ?? .refused("no such file") }
    }

    func parse(_ html: String, sheets: [String: String] = [:], base: BaseStyle = BaseStyle()) -> ParsedArticle {
        var parser = MarkupParser(base: base)
        parser.styleSheetLoader = Self.loader(sheets)
        return parser.parse(html: Array(html.utf8), baseURL: nil)
    }

    func style(of needle: String, in article: ParsedArticle) -> TextStyle? {
        let text = article.text.string
        guard let range = text.range(of: needle) else { return nil }
        let offset = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: range.lowerBound.samePosition(in: text.unicodeScalars)!)
        return article.text.styleRuns[article.text.styleRunIndex(at: offset)].value
    }

    /// Documentation pages hide their permalink marks with their own style sheet.
    @Test func aLinkedStyleSheetHidesPermalinkMarks() {
        let html = "<!DOCTYPE html><html><head><link rel='stylesheet' href='_static/basic.css'></head><body>"
            + "<h2>Boolean Operations<a class='headerlink' href='#bool' title='Link to this heading'>¶</a></h2>"
            + "<p>Text <em class='note'>noted</em>.</p></body></html>"
        let sheets = ["_static/basic.css": "@import url('pygments.css');\n@media screen { em { color: red } }\n"
                      + "a.headerlink { visibility: hidden }\n@media print, screen { p { font-size: 20px } }",
                      "_static/pygments.css": ".note { font-weight: bold }"]
        let article = parse(html, sheets: sheets)
        #expect(!article.text.string.contains("¶"), "\(article.text.string)")
        #expect(article.warnings.contains { $0.contains("1 elements hidden") })
        #expect(style(of: "noted", in: article)?.font.weight == 700, "the imported sheet applies")
        #expect(style(of: "noted", in: article)?.color == .black, "screen-only rules do not")
        #expect(style(of: "Text", in: article)?.size == 15, "print rules do (20 px = 15 pt)")
        // Without the sheet the mark shows, and the refusal is a warning.
        let refused = parse(html)
        #expect(refused.text.string.contains("¶"))
        #expect(refused.warnings.contains { $0.contains("style sheet \"_static/basic.css\": no such file") })
    }

    @Test func displayNoneAndVisibilityHiddenLeaveTextOutButNeverTheBody() {
        let article = parse("<body><p>Shown.</p><div style='display:none'><p>Gone.</p></div><p style='visibility:hidden'>Hidden.</p>"
                            + "<p style='display:none; display:block'>Back.</p></body>")
        let text = article.text.string
        #expect(text.contains("Shown.") && text.contains("Back.") && !text.contains("Gone.") && !text.contains("Hidden."))
        #expect(article.warnings.contains { $0.contains("2 elements hidden") && $0.contains("(12 characters") }, "\(article.warnings)")
        let body = parse("<body style='display:none'><p>Loaded by a script.</p></body>")
        #expect(body.text.string.contains("Loaded by a script."), "a hidden body is set anyway")
    }

    @Test func linksAreColouredAndUnderlinedUnlessTheLayoutOrTheCSSSaysOtherwise() {
        let html = "<p>See <a href='x.html'>the guide</a> and <a href='y.html' style='text-decoration: none; color: green'>this</a>.</p>"
        let article = parse(html)
        #expect(style(of: "the guide", in: article)?.color == BaseStyle.defaultLinkColor)
        #expect(style(of: "the guide", in: article)?.underline == true)
        #expect(style(of: "See", in: article)?.underline == false)
        #expect(style(of: "this", in: article)?.underline == false)
        #expect(style(of: "this", in: article)?.color == RGBColor(r: 0, g: 128, b: 0))
        var plain = BaseStyle()
        plain.linkColor = nil
        plain.linkUnderline = false
        let unstyled = parse(html, base: plain)
        #expect(style(of: "the guide", in: unstyled)?.color == .black && style(of: "the guide", in: unstyled)?.underline == false)
    }
}
