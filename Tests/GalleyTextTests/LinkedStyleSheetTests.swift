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
        // Hidden, as a browser hides it: its room kept, nothing drawn (`TextStyle.isHidden`).
        #expect(style(of: "¶", in: article)?.isHidden == true, "\(article.text.string)")
        #expect(style(of: "Boolean", in: article)?.isHidden == false)
        #expect(style(of: "noted", in: article)?.font.weight == 700, "the imported sheet applies")
        #expect(style(of: "noted", in: article)?.color == .black, "screen-only rules do not")
        #expect(style(of: "Text", in: article)?.size == 15, "print rules do (20 px = 15 pt)")
        // Without the sheet the mark shows, and the refusal is a warning.
        let refused = parse(html)
        #expect(refused.text.string.contains("¶") && style(of: "¶", in: refused)?.isHidden == false)
        #expect(refused.warnings.contains { $0.contains("style sheet \"_static/basic.css\": no such file") })
    }

    /// A documentation page's style sheets: rules for the screen, the encoding and animations
    /// are no warning; what is passed over is one line per kind, refusals one line per reason.
    /// XHTML wraps a style sheet in `<![CDATA[ ... ]]>` (EPUB chapters, `.xht` pages); an HTML
    /// parser leaves the markers in the CSS, where they must not swallow the first rule.
    @Test func anXHTMLStyleSheetInCDATAApplies() {
        let article = parse("<style type='text/css'><![CDATA[\nem { color: #ff0000 }\nb { color: #0000ff }\n]]></style><p><em>red</em> and <b>blue</b></p>")
        #expect(style(of: "red", in: article)?.color == RGBColor(r: 255, g: 0, b: 0))
        #expect(style(of: "blue", in: article)?.color == RGBColor(r: 0, g: 0, b: 255))
    }

    @Test func styleSheetWarningsAreOneLinePerKindAndOtherMediaAreNone() {
        let quiet = "<html><head><style>@charset \"utf-8\"; @media screen and (max-width: 875px) { p { margin: 0 } }\n"
            + "@media (prefers-color-scheme: dark) and screen { p { color: white } } @keyframes spin { from { opacity: 0 } }\n"
            + "@-webkit-keyframes spin { to { opacity: 1 } } p { color: black }</style></head><body><p>Text.</p></body></html>"
        #expect(parse(quiet).warnings.filter { $0.contains("style sheet") } == [], "\(parse(quiet).warnings)")

        let html = "<html><head><link rel='stylesheet' href='a.css'><link rel='stylesheet' href='b.css'>"
            + "<style>a:hover { color: red } p::marker { color: red } p::after { content: 'x' } @font-face { font-family: X } @supports (display: grid) { p { color: red } }</style>"
            + "</head><body><p>Text.</p></body></html>"
        let warnings = parse(html).warnings.filter { $0.contains("style sheet") }
        #expect(warnings == [
            "style sheets \"a.css\", \"b.css\": no such file",
            "style sheet: 2 selectors not supported (pseudo-classes but :first-child, pseudo-elements but ::before, ::after, ::first-letter and ::first-line); their rules ignored",
            "style sheet: 2 at-rules not supported, ignored: @font-face, @supports",
        ], "\(warnings)")
    }

    @Test func displayNoneLeavesTextOutAndVisibilityHiddenKeepsItUndrawnButNeverTheBody() {
        let article = parse("<body><p>Shown.</p><div style='display:none'><p>Gone.</p></div><p style='visibility:hidden'>Hidden.</p>"
                            + "<p style='display:none; display:block'>Back.</p></body>")
        let text = article.text.string
        #expect(text.contains("Shown.") && text.contains("Back.") && !text.contains("Gone.") && text.contains("Hidden."))
        #expect(style(of: "Hidden.", in: article)?.isHidden == true && style(of: "Shown.", in: article)?.isHidden == false)
        #expect(article.warnings.contains { $0.contains("1 elements hidden") && $0.contains("(5 characters") }, "\(article.warnings)")
        let body = parse("<body style='display:none'><p>Loaded by a script.</p></body>")
        #expect(body.text.string.contains("Loaded by a script."), "a hidden body is set anyway")
        let invisible = parse("<body style='visibility:hidden'><p>Shown by a script.</p></body>")
        #expect(style(of: "Shown by a script.", in: invisible)?.isHidden == false, "and drawn")
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

    @Test func selectorsMatchAncestorsAttributesAndPosition() {
        let css = """
            div p { color: blue }
            div > p { font-weight: bold }
            section p.note { color: green }
            #main .note { color: purple }
            p.note { color: red }
            a[href] { color: orange }
            a[href="#top"] { color: olive }
            p[lang~=fr] { font-style: italic }
            li:first-child { color: maroon }
            h1 + p { color: navy }
            h2 ~ p { color: teal }
            p::marker, a:hover { color: fuchsia }
            """
        let html = "<style>\(css)</style><p>plain</p><div><p>direct</p><blockquote><p>nested</p></blockquote></div>"
            + "<section><p class=note>noted</p></section><div id=main><section><p class=note>main note</p></section></div>"
            + "<p>see <a href=x>anchor</a> <a href='#top'>top</a> <a name=n>named</a></p><p lang='en fr'>both</p>"
            + "<ul><li>first</li><li>second</li></ul><h1>T</h1><p>after heading</p><p>two after</p>"
            + "<h2>U</h2><aside><p>inside</p></aside><p>later sibling</p><section><h1>V</h1><!-- c --><p>next element</p></section>"
        let article = parse(html)
        func color(_ needle: String) -> RGBColor? { style(of: needle, in: article)?.color }
        #expect(color("plain") == .black)
        #expect(color("direct") == RGBColor(r: 0, g: 0, b: 255) && style(of: "direct", in: article)?.font.weight == 700)
        #expect(color("nested") == RGBColor(r: 0, g: 0, b: 255) && style(of: "nested", in: article)?.font.weight == 400,
                "a descendant, not a child")
        #expect(color("noted") == RGBColor(r: 0, g: 128, b: 0), "section p.note is more specific than p.note")
        #expect(color("main note") == RGBColor(r: 128, g: 0, b: 128), "an id outweighs everything else")
        #expect(color("anchor") == RGBColor(r: 255, g: 165, b: 0))
        #expect(color("top") == RGBColor(r: 128, g: 128, b: 0))
        #expect(color("named") == .black, "no href: not a link, not a[href]")
        #expect(style(of: "both", in: article)?.font.italic == true)
        #expect(color("first") == RGBColor(r: 128, g: 0, b: 0) && color("second") == .black)
        #expect(color("after heading") == RGBColor(r: 0, g: 0, b: 128), "h1 + p: the element right after")
        #expect(color("two after") == .black, "h1 + p: not the one after that")
        #expect(color("next element") == RGBColor(r: 0, g: 0, b: 128), "a comment between is no element")
        #expect(color("later sibling") == RGBColor(r: 0, g: 128, b: 128), "h2 ~ p: any later sibling")
        #expect(color("inside") == .black, "h2 ~ p: a sibling's child is no sibling")
        #expect(article.warnings.contains { $0.contains("2 selectors not supported") }, "\(article.warnings)")
    }

    /// `+` looks at the element just before, `~` at any before, among the element children of
    /// the same parent: elements that are not set (`script`) count, text and comments do not.
    @Test func siblingCombinatorsLookAtTheElementsBefore() {
        let css = "h2 + p { color: navy } h2 ~ p { font-style: italic } p + p + p { font-weight: bold } .a ~ .b span { color: green }"
        let html = "<style>\(css)</style><p>lead</p><h2>Title</h2><p>first</p><p>second</p><p>third</p><script>x</script>"
            + "<p>fourth</p><div class=a>a</div> text <!-- c --><div class=b><span>inner</span></div><div><p>nested</p></div>"
        let article = parse(html)
        func style(_ needle: String) -> TextStyle? { self.style(of: needle, in: article) }
        let navy = RGBColor(r: 0, g: 0, b: 128)
        #expect(style("lead")?.color == .black && style("lead")?.font.italic == false)
        #expect(style("first")?.color == navy && style("first")?.font.italic == true && style("first")?.font.weight == 400)
        #expect(style("second")?.color == .black && style("second")?.font.italic == true && style("second")?.font.weight == 400,
                "p + p + p needs two p before it")
        #expect(style("third")?.font.weight == 700)
        #expect(style("fourth")?.font.weight == 400 && style("fourth")?.font.italic == true, "the script between counts as a sibling")
        #expect(style("inner")?.color == RGBColor(r: 0, g: 128, b: 0))
        #expect(style("nested")?.font.italic == false, "a p inside a later sibling is not a sibling of the h2")
        #expect(!article.warnings.contains { $0.contains("selectors not supported") }, "\(article.warnings)")
    }

    /// Code set in the generic `monospace` (with names before it a reader may not have, as
    /// Sphinx's style sheets write it) gets a monospaced face, not the base serif.
    @Test(arguments: ["monospace", "\"monospace\", monospace", "'Consolas', 'Menlo', monospace", "Menlo, sans-serif"])
    func genericFamiliesResolveToTheirFonts(_ families: String) throws {
        let article = parse("<style>pre { font-family: \(families) }</style><pre>code()</pre>")
        let font = try #require(style(of: "code()", in: article)).font
        let family = try sharedFonts.fallback(for: font, language: nil).primary().family
        let expected = families.hasSuffix("sans-serif") ? "DejaVu Sans" : "DejaVu Sans Mono"
        #expect(family == expected, "\(families): \(family)")
    }

    /// Properties Galley does not support are ignored quietly but counted, for `--verbose`.
    @Test func ignoredPropertiesAreCounted() {
        let article = parse("<style>em { float: left; color: red } .box { border: 1px solid } em.x { float: right }</style>"
                            + "<p>one <em>a</em></p><p class=box>two <em class=x>b</em></p><span style='text-shadow: 1px 1px'>three</span>")
        #expect(article.ignoredProperties["float"] == 3, "declared by em for both inline elements and by em.x for the second (blocks and pictures float)")
        #expect(article.ignoredProperties["border-top-width"] == nil && article.ignoredProperties["border"] == nil, "drawn around a block")
        #expect(parse("<p>a <span style='border: 1px solid'>framed</span> word</p>").ignoredProperties["border"] == 1,
                "not around an inline element")
        #expect(article.ignoredProperties["text-shadow"] == 1)
        #expect(article.ignoredProperties["color"] == nil, "supported properties are not listed")
        #expect(!article.warnings.contains { $0.contains("float") }, "quietly: no warning")
    }
}
