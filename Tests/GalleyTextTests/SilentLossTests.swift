import GalleyText
import Testing

/// Text never disappears without a word: a raw-text element left open (`<iframe/>`, which the
/// HTML parser takes for a start tag, a `<title>` without its end) would swallow the rest of
/// the document as its text; it is read as markup instead, with a warning, and the source and
/// set character counts show any loss.
@Suite struct SilentLossTests {
    static let body = "<h1>The guide</h1><p>First paragraph of the guide.</p><p>Second paragraph, with <b>bold</b> text.</p>"

    func parse(_ html: String) -> ParsedArticle {
        MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
    }

    @Test(arguments: ["iframe", "noembed", "noframes", "xmp", "textarea", "title", "style"])
    func anUnclosedRawTextElementDoesNotSwallowTheDocument(_ name: String) {
        let html = "<!DOCTYPE html><html><head></head><body><nav>Menu</nav>\n\n<\(name) src='x.html'/>\n\(Self.body)</body></html>"
        let article = parse(html)
        let text = article.text.string
        #expect(text.contains("First paragraph of the guide.") && text.contains("Second paragraph, with bold text."), "\(name): \(text)")
        #expect(!text.contains("<p>"), "no markup shown as text")
        #expect(article.warnings.contains { $0.contains("<\(name)> on line 3 is never closed") }, "\(article.warnings)")
        #expect(article.setCharacters >= article.sourceCharacters - 2, "source \(article.sourceCharacters), set \(article.setCharacters)")
    }

    @Test func closedRawTextElementsAreLeftAlone() {
        let article = parse("<!DOCTYPE html><body><noframes><p>Frames are needed.</p></noframes><iframe src=x></iframe>\(Self.body)</body>")
        #expect(!article.warnings.contains { $0.contains("never closed") })
        #expect(!article.text.string.contains("Frames are needed"), "noframes content is not shown")
        #expect(article.text.string.contains("Second paragraph"))
    }

    @Test func sourceAndSetCharactersAgreeWhenNothingIsLost() {
        let article = parse("<!DOCTYPE html><body>\(Self.body)<ul><li>one</li></ul></body>")
        // "The guide" … "one": every character of text but white space, plus the list marker.
        let expected = "Theguide" + "Firstparagraphoftheguide." + "Secondparagraph,withboldtext." + "one"
        #expect(article.sourceCharacters == expected.count)
        #expect(article.setCharacters == expected.count + 2, "the list marker `1.` or `•` is set text too: \(article.setCharacters)")
    }
}
