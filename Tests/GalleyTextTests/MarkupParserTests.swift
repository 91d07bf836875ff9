import Foundation
import GalleyTestSupport
import GalleyText
import Testing

/// Parser tests: what a reader of the typeset article would notice.
@Suite struct MarkupParserTests {
    let base = BaseStyle(fontFamily: "DejaVu Serif", fontSize: 10, lineHeight: 1.2, color: .black, language: nil)

    func html(_ markup: String, baseURL: URL? = nil) -> ParsedArticle {
        html(Array(markup.utf8), baseURL: baseURL)
    }

    func html(_ bytes: [UInt8], baseURL: URL? = nil) -> ParsedArticle {
        let article = MarkupParser(base: base).parse(html: bytes, baseURL: baseURL)
        #expect(article.text.validate() == [])
        return article
    }

    func plain(_ text: String) -> ParsedArticle {
        let article = MarkupParser(base: base).parse(plainText: Array(text.utf8))
        #expect(article.text.validate() == [])
        return article
    }

    /// The paragraphs' text, without their U+000A.
    func paragraphs(_ article: ParsedArticle) -> [String] {
        article.text.paragraphs.map { paragraph in
            var scalars = String.UnicodeScalarView(article.text.scalars[paragraph.range])
            if scalars.last == "\n" { scalars.removeLast() }
            return String(scalars)
        }
    }

    /// The style of the first character of the first occurrence of `needle`.
    func style(of needle: String, in article: ParsedArticle, sourceLocation: SourceLocation = #_sourceLocation) -> TextStyle? {
        guard let range = article.text.string.range(of: needle) else {
            Issue.record("\"\(needle)\" not in \"\(article.text.string)\"", sourceLocation: sourceLocation)
            return nil
        }
        let offset = article.text.string.unicodeScalars.distance(from: article.text.string.unicodeScalars.startIndex,
                                                                  to: range.lowerBound)
        return article.text.styleRuns[article.text.styleRunIndex(at: offset)].value
    }

    /// The paragraph holding the first occurrence of `needle`.
    func paragraph(of needle: String, in article: ParsedArticle, sourceLocation: SourceLocation = #_sourceLocation) -> ParagraphStyle? {
        guard let range = article.text.string.range(of: needle) else {
            Issue.record("\"\(needle)\" not in \"\(article.text.string)\"", sourceLocation: sourceLocation)
            return nil
        }
        let offset = article.text.string.unicodeScalars.distance(from: article.text.string.unicodeScalars.startIndex,
                                                                  to: range.lowerBound)
        return article.text.paragraphs[article.text.paragraphIndex(at: offset)].value
    }

    // MARK: Text

    @Test func entitiesAreDecoded() {
        let article = html("<p>Fish &amp; chips &lt;3 &eacute;t&eacute; &#x263A; &#8212; a&nbsp;b &copy</p>")
        #expect(article.text.string == "Fish & chips <3 été ☺ — a\u{A0}b ©")
    }

    @Test func whiteSpaceCollapses() {
        let article = html("<p>  one \n\t two   <b> three </b>  four \n</p>\n\n<p>\n five</p>")
        #expect(paragraphs(article) == ["one two three four", "five"])
    }

    @Test func malformedMarkupKeepsEveryWordInOrder() {
        let article = html("<p>one <b>two <i>three</p> four</b> five")
        #expect(article.text.string.split(whereSeparator: { $0 == " " || $0 == "\n" }) == ["one", "two", "three", "four", "five"])
        #expect(style(of: "three", in: article)?.font.italic == true)
        #expect(style(of: "three", in: article)?.font.weight == 700)

        let soup = html("<div><span>alpha<table><tr><td>beta</table>gamma</span><li>delta<p>epsilon<td>zeta</div>eta</b></i>theta")
        let words = soup.text.string.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(words.contains("alpha"))
        for word in ["beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"] {
            #expect(soup.text.string.contains(word), "\(word) lost")
        }
        let positions = ["delta", "epsilon", "zeta", "theta"].compactMap { soup.text.string.range(of: $0)?.lowerBound }
        #expect(positions == positions.sorted())
    }

    @Test func unknownTagsKeepTheirText() {
        let article = html("<p>a <blink>b</blink> <x-widget>c</x-widget> <o:p>d</o:p> <svg><text>e</text></svg></p>")
        #expect(article.text.string == "a b c d e")
    }

    @Test func scriptsStylesAndTitleAreNotBodyText() {
        let article = html("""
            <html><head><title> The
              Title </title><style>p { color: red }</style><script>var head = 1</script></head>
            <body><p>a<script>alert("x")</script>b<style>.x{}</style></p><template>hidden</template><noscript>shown</noscript></body></html>
            """)
        #expect(article.text.string == "ab\nshown")
        #expect(article.title == "The Title")
    }

    @Test func emptyAndTagOnlyDocumentsGiveEmptyText() {
        for markup in ["", "<html><head></head><body></body></html>", "<p></p><div><span></span></div>", "   \n  "] {
            let article = html(markup)
            #expect(article.text.count == 0)
            #expect(article.text.paragraphs.isEmpty)
        }
        #expect(plain("").text.count == 0)
    }

    // MARK: Blocks

    @Test func headingsAreBoldAndLarger() {
        let article = html("<h1>Big</h1><h3>Middle</h3><p>body</p>")
        #expect(paragraphs(article) == ["Big", "Middle", "body"])
        #expect(style(of: "Big", in: article)?.size == 20)
        #expect(style(of: "Big", in: article)?.font.weight == 700)
        #expect(style(of: "Middle", in: article).map { abs($0.size - 11.7) < 0.001 } == true)
        #expect(style(of: "body", in: article)?.font.weight == 400)
        #expect(style(of: "body", in: article)?.size == 10)
        // Margins collapse: max(h1 bottom 0.67 × 20, h3 top 1 × 11.7).
        #expect(paragraph(of: "Middle", in: article).map { abs($0.spaceBefore - 13.4) < 0.001 } == true)
    }

    @Test func paragraphMarginsCollapseAcrossEmptyBlocks() {
        let article = html("<p>a</p><div></div><p style='margin-top: 30px'>b</p><div><p></p></div><p>c</p>")
        #expect(paragraphs(article) == ["a", "b", "c"])
        #expect(paragraph(of: "a", in: article)?.spaceBefore == 10)
        #expect(paragraph(of: "b", in: article)?.spaceBefore == 22.5)
        #expect(paragraph(of: "c", in: article)?.spaceBefore == 10)
        #expect(paragraph(of: "a", in: article)?.spaceAfter == 0)
        #expect(paragraph(of: "c", in: article)?.spaceAfter == 10)
    }

    @Test func listsHaveRealMarkersAndNumbering() {
        let article = html("""
            <ul><li>one<ul><li>sub<ul><li>deep</li></ul></li></ul></li><li>two</li></ul>
            <ol start="3"><li>c</li><li>d</li><li value="10">j</li><li>k</li></ol>
            <ol reversed><li>x</li><li>y</li></ol>
            <ol type="a"><li>first</li></ol><ol type="I"><li>roman</li><li>roman</li></ol>
            <ul style="list-style-type: none"><li>plain</li></ul>
            """)
        #expect(paragraphs(article) == [
            "•\u{A0}one", "◦\u{A0}sub", "▪\u{A0}deep", "•\u{A0}two",
            "3.\u{A0}c", "4.\u{A0}d", "10.\u{A0}j", "11.\u{A0}k",
            "2.\u{A0}x", "1.\u{A0}y",
            "a.\u{A0}first", "I.\u{A0}roman", "II.\u{A0}roman",
            "plain",
        ])
        #expect(paragraph(of: "one", in: article)?.startIndent == 18)
        #expect(paragraph(of: "sub", in: article)?.startIndent == 36)
        #expect(paragraph(of: "deep", in: article)?.startIndent == 54)
        for item in ["one", "sub", "3.", "2."] {
            let firstLine = paragraph(of: item, in: article)?.firstLineIndent ?? 0
            #expect(firstLine < 0 && firstLine >= -18, "marker of \(item) should hang")
        }
        #expect(paragraph(of: "plain", in: article)?.firstLineIndent == 0)
        // Nested lists have no margins of their own.
        #expect(paragraph(of: "sub", in: article)?.spaceBefore == 0)
    }

    @Test func listItemContentInParagraphsGetsTheMarker() {
        let article = html("<ol><li><p>para</p><p>more</p></li><li></li></ol>")
        #expect(paragraphs(article) == ["1.\u{A0}para", "more", "2.\u{A0}"])
        #expect(paragraph(of: "more", in: article)?.firstLineIndent == 0)
    }

    @Test func lineBreaksBecomeLineSeparators() {
        let article = html("<p>a <br> b<br/>c<br></p><p><br></p><p>d</p>")
        #expect(paragraphs(article) == ["a\u{2028}b\u{2028}c", "\u{2028}", "d"])
    }

    @Test func preformattedTextKeepsSpacesAndLines() {
        let article = html("<pre>\n  a  b\n\tc\r\nx\td\n</pre><p>after   text</p>")
        #expect(paragraphs(article) == ["  a  b\u{2028}        c\u{2028}x       d", "after text"])
        #expect(style(of: "a  b", in: article)?.font.families == ["DejaVu Sans Mono", "monospace"])
        let wrapped = html("<p style='white-space: pre-wrap'>a  b\nc</p><p style='white-space: pre-line'>d   e\n f</p>")
        #expect(paragraphs(wrapped) == ["a  b\u{2028}c", "d e\u{2028}f"])
    }

    @Test func horizontalRuleMarksTheNextParagraph() {
        let article = html("<p>a</p><hr><p>b</p><hr>")
        #expect(paragraphs(article) == ["a", "b"])
        #expect(paragraph(of: "a", in: article)?.ruleAbove == false)
        #expect(paragraph(of: "b", in: article)?.ruleAbove == true)
    }

    @Test func blockquotesIndentAndTableCellsAreParagraphs() {
        let article = html("<blockquote><p>quoted</p></blockquote><table><tr><td>a</td><th>b</th></tr></table><center>c</center>")
        #expect(paragraphs(article) == ["quoted", "a", "b", "c"])
        #expect(paragraph(of: "quoted", in: article)?.startIndent == 30)
        #expect(paragraph(of: "quoted", in: article)?.endIndent == 30)
        #expect(style(of: "b", in: article)?.font.weight == 700)
        #expect(paragraph(of: "c", in: article)?.alignment == .center)
    }

    // MARK: Styles

    @Test func inlineStylesApply() {
        let article = html("""
            <p style="color: #f00; font-size: 18px; font-weight: bold; font-style: italic; text-align: justify; \
            text-indent: 2em; line-height: 1.17; margin-top: 24pt; margin-bottom: 0; margin-left: 20px">x</p>
            <p style="line-height: 27px; font-size: 18pt; font-family: 'Helvetica Neue', Arial, sans-serif">y</p>
            <p style="font: italic 300 12pt/2 Georgia, serif">z</p>
            """)
        let x = style(of: "x", in: article)
        #expect(x?.color == RGBColor(r: 255, g: 0, b: 0))
        #expect(x?.size == 13.5)
        #expect(x?.font.weight == 700)
        #expect(x?.font.italic == true)
        let xParagraph = paragraph(of: "x", in: article)
        #expect(xParagraph?.alignment == .justify)
        #expect(xParagraph?.firstLineIndent == 27)
        #expect(xParagraph.map { abs($0.lineHeight - 1) < 1e-9 } == true)
        #expect(xParagraph?.spaceBefore == 24)
        #expect(xParagraph?.startIndent == 15)
        // A list ending in a generic family gets no base family after it (see `fontFamilies`).
        #expect(style(of: "y", in: article)?.font.families == ["Helvetica Neue", "Arial", "sans-serif"])
        // 27 px = 20.25 pt over 1.17 × 18 pt.
        #expect(paragraph(of: "y", in: article).map { abs($0.lineHeight - 20.25 / (1.17 * 18)) < 1e-9 } == true)
        let z = style(of: "z", in: article)
        #expect(z?.font.italic == true)
        #expect(z?.font.weight == 300)
        #expect(z?.size == 12)
        #expect(z?.font.families == ["Georgia", "serif"])
        #expect(paragraph(of: "z", in: article).map { abs($0.lineHeight - 2 / 1.17) < 1e-9 } == true)
        // The bottom margin of y (1 em of 18 pt) and the top one of z (12 pt) collapse.
        #expect(paragraph(of: "z", in: article)?.spaceBefore == 18)
    }

    @Test func remIsRelativeToTheRootElement() {
        let article = html("<html style='font-size: 62.5%'><body><p style='font-size: 1.6rem'>r</p><p>e</p></body></html>")
        #expect(style(of: "r", in: article)?.size == 10)
        #expect(style(of: "e", in: article)?.size == 6.25)
    }

    @Test func styleSheetsApplyBySpecificityThenOrder() {
        let article = html("""
            <style>
            /* comment */ <!--
            #lead { color: purple }
            p.note { color: blue }
            .note { color: green }
            p { color: red; font-size: 12pt }
            p { font-size: 14pt }
            div p, a:hover, p > span { color: orange }
            @media screen { p { color: black } }
            .strong, h6 { font-weight: bold !important }
            -->
            </style>
            <p>red</p><p class="note">blue</p><p class="note strong" id="lead" style="font-weight: 300">purple</p>
            <span class="note">green</span><span class="strong" style="font-weight: normal">bold</span>
            """)
        #expect(style(of: "red", in: article)?.color == RGBColor(r: 255, g: 0, b: 0))
        #expect(style(of: "red", in: article)?.size == 14)
        #expect(style(of: "blue", in: article)?.color == RGBColor(r: 0, g: 0, b: 255))
        #expect(style(of: "purple", in: article)?.color == RGBColor(r: 128, g: 0, b: 128))
        #expect(style(of: "purple", in: article)?.font.weight == 700)
        #expect(style(of: "green", in: article)?.color == RGBColor(r: 0, g: 128, b: 0))
        #expect(style(of: "bold", in: article)?.font.weight == 700)
        #expect(article.warnings.contains { $0.contains("style sheet: 1 selector not supported") })
    }

    /// Class names are separated by ASCII white space only, as in browsers: a no-break space
    /// belongs to the name; tabs and line breaks separate.
    @Test func classNamesSplitOnASCIIWhiteSpaceOnly() {
        let article = html("""
            <style>.a { color: blue } .b { color: green }</style>
            <p class="a&nbsp;b">joined</p><p class="x\r\na">crlf</p><p class="x\tb">tab</p>
            """)
        #expect(style(of: "joined", in: article)?.color == RGBColor(r: 0, g: 0, b: 0))
        #expect(style(of: "crlf", in: article)?.color == RGBColor(r: 0, g: 0, b: 255))
        #expect(style(of: "tab", in: article)?.color == RGBColor(r: 0, g: 128, b: 0))
    }

    /// Styles are computed once per parent style, tag and attributes, and reused: the same
    /// markup must still take each parent's inherited style, its own attributes and links.
    @Test func theSameElementInDifferentParentsOrWithDifferentAttributesGetsItsOwnStyle() {
        let article = html("""
            <style>.big { font-size: 20pt }</style>
            <div style="color: red"><p><em>one</em></p></div><div style="color: blue"><p><em>two</em></p></div>
            <p><em>three</em></p><p><em>four</em></p><p class="big"><em>five</em></p>
            <p><a href="/a">first</a> <a href="/b">second</a> <a href="/a">third</a></p>
            <p lang="de"><em>sechs</em></p><p lang="fr"><em>sept</em></p>
            <ul><li>outer<ul><li>inner</li></ul></li></ul><ul><li>again</li></ul>
            """, baseURL: URL(string: "https://example.com/"))
        #expect(style(of: "one", in: article)?.color == RGBColor(r: 255, g: 0, b: 0))
        #expect(style(of: "two", in: article)?.color == RGBColor(r: 0, g: 0, b: 255))
        #expect(style(of: "three", in: article)?.color == .black)
        #expect(style(of: "four", in: article) == style(of: "three", in: article))
        #expect(style(of: "five", in: article)?.size == 20)
        #expect(style(of: "four", in: article)?.size == 10)
        #expect(style(of: "first", in: article)?.link == "https://example.com/a")
        #expect(style(of: "second", in: article)?.link == "https://example.com/b")
        #expect(style(of: "third", in: article)?.link == "https://example.com/a")
        #expect(style(of: "sechs", in: article)?.language == "de")
        #expect(style(of: "sept", in: article)?.language == "fr")
        // A list inside a list loses its vertical margins; the next top-level list keeps them.
        #expect(paragraph(of: "inner", in: article)?.spaceBefore == 0)
        #expect((paragraph(of: "again", in: article)?.spaceBefore ?? 0) > 0)
    }

    /// More distinct elements than the style memo keeps, inside a styled parent that stays
    /// open while the memo starts over: what comes after still takes the parent's style, and
    /// not the style of an element computed before or after the memo started over.
    @Test func stylesStayRightPastTheStyleMemosLimit() {
        let count = 5000
        let children = (0..<count).map { "<p style=\"color: green\" id=\"p\($0)\"><em>g\($0)x</em></p>" }.joined()
        let article = html("<div style=\"color: red\">\(children)<em>tail</em></div><p><em>after</em></p>")
        for index in stride(from: 0, to: count, by: 499) {
            #expect(style(of: "g\(index)x", in: article)?.color == RGBColor(r: 0, g: 128, b: 0))
        }
        #expect(style(of: "tail", in: article)?.color == RGBColor(r: 255, g: 0, b: 0))
        #expect(style(of: "after", in: article)?.color == .black)
    }

    /// Text nodes are decoded in place; any byte sequence comes out as `String` decodes it.
    @Test func textIsDecodedAsStringDecodesIt() {
        let samples: [[UInt8]] = [
            Array("plain ASCII".utf8), Array("é ß ñ — “quotes” 漢字 かな 😀 👩‍👩‍👧".utf8),
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF5, 0x80, 0x80, 0x80], [0x61, 0xE2, 0x82], [0xF0, 0x9F, 0x98],
            [0x80, 0xBF, 0x41], [0xE2, 0x28, 0xA1], [0xF4, 0x90, 0x80, 0x80], [0xFF, 0xFE, 0x41, 0xC2],
        ]
        for bytes in samples {
            let decoded = bytes.withUnsafeBufferPointer { Array(UTF8Scalars($0)) }
            #expect(decoded == Array(String(decoding: bytes, as: UTF8.self).unicodeScalars), "\(bytes)")
        }
    }

    @Test func textLevelElements() {
        let article = html("""
            <p><u>under</u> <del>gone</del> H<sub>2</sub>O x<sup>2</sup> <small>small</small> <big>big</big> \
            <a href="/next">link</a> <code>code</code> <span style="text-decoration: underline line-through">both</span></p>
            """, baseURL: URL(string: "https://example.com/mag/issue.html"))
        #expect(style(of: "under", in: article)?.underline == true)
        #expect(style(of: "gone", in: article)?.strikethrough == true)
        #expect(style(of: "2O", in: article)?.baselineShift == -2.5)
        #expect(style(of: "2O", in: article).map { abs($0.size - 8.3) < 1e-9 } == true)
        #expect(style(of: "2 ", in: article).map { abs($0.baselineShift - 3.5) < 1e-9 } == true)
        #expect(style(of: "small", in: article).map { abs($0.size - 8.3) < 1e-9 } == true)
        #expect(style(of: "big", in: article).map { abs($0.size - 11.7) < 1e-9 } == true)
        #expect(style(of: "link", in: article)?.link == "https://example.com/next")
        #expect(style(of: "link", in: article)?.color == BaseStyle.defaultLinkColor)
        #expect(style(of: "link", in: article)?.underline == true)
        #expect(style(of: "code", in: article)?.font.families == ["DejaVu Sans Mono", "monospace"])
        #expect(style(of: "both", in: article).map { $0.underline && $0.strikethrough } == true)
    }

    @Test func fontElement() {
        let article = html("<p><font color=red face=\"Georgia, 'Times New Roman', serif\" size=5>big</font> <font size=-1>less</font> <font size=7>max</font></p>")
        let big = style(of: "big", in: article)
        #expect(big?.color == RGBColor(r: 255, g: 0, b: 0))
        #expect(big?.font.families == ["Georgia", "Times New Roman", "serif"])
        #expect(big?.size == 15)
        #expect(style(of: "less", in: article)?.size == 8.125)
        #expect(style(of: "max", in: article)?.size == 30)
    }

    @Test func languageAndDirectionAreInherited() {
        let article = html("<html lang=de><body><div dir=rtl lang=he><p>a<span lang=en>b</span></p><p dir=ltr>x</p></div><p>c</p></body></html>")
        #expect(article.language == "de")
        #expect(style(of: "a", in: article)?.language == "he")
        #expect(style(of: "b", in: article)?.language == "en")
        #expect(style(of: "c", in: article)?.language == "de")
        #expect(paragraph(of: "a", in: article)?.direction == .rtl)
        #expect(paragraph(of: "x", in: article)?.direction == .ltr)
        #expect(paragraph(of: "c", in: article)?.direction == .auto)
    }

    @Test func imagesBecomeAttachments() {
        let article = html("<p>see <img src=\"a.png\" width=200 height=\"100px\" alt=\"A picture\"> and <img src=b.png width=\"50%\"></p>")
        #expect(article.text.string == "see \u{FFFC} and \u{FFFC}")
        #expect(article.text.attachments.count == 2)
        let first = article.text.attachments[0]
        #expect(first.offset == 4)
        #expect(first.source == "a.png")
        #expect(first.width == 150)
        #expect(first.height == 75)
        #expect(first.alternative == "A picture")
        let second = article.text.attachments[1]
        #expect(second.offset == 10)
        #expect(second.width == nil)
        #expect(second.height == nil)
    }

    // MARK: Encodings

    @Test func shiftJISIsDecoded() {
        let bytes = Array("<html><head><meta charset=\"Shift_JIS\"></head><body><p>".utf8) + [0x93, 0xFA, 0x96, 0x7B]
            + Array("</p></body></html>".utf8)
        #expect(html(bytes).text.string == "日本")
    }

    @Test func gbkBig5EucJPAndWindows1252AreDecoded() {
        let gbk = Array("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=GBK\"><p>".utf8) + [0xD6, 0xD0, 0xCE, 0xC4]
        #expect(html(gbk).text.string == "中文")
        let big5 = Array("<meta charset='big5'><p>".utf8) + [0xA4, 0xA4, 0xA4, 0xE5]
        #expect(html(big5).text.string == "中文")
        let eucJP = Array("<?xml version=\"1.0\" encoding=\"EUC-JP\"?><p>".utf8) + [0xC6, 0xFC, 0xCB, 0xDC]
        #expect(html(eucJP).text.string == "日本")
        let latin = Array("<meta charset=iso-8859-1><p>".utf8) + [0x93, 0x63, 0x61, 0x66, 0xE9, 0x94, 0x20, 0x80]
        #expect(html(latin).text.string == "“café” €")
        // A stale declaration on a page that is valid UTF-8.
        let stale = html("<meta charset=windows-1252><p>café 日本</p>")
        #expect(stale.text.string == "café 日本")
        #expect(!stale.warnings.isEmpty)
    }

    @Test func byteOrderMarksWin() {
        let units = Array("<meta charset=shift_jis><p>é日</p>".utf16)
        let utf16: [UInt8] = [0xFF, 0xFE] + units.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(html(utf16).text.string == "é日")
        #expect(html([0xEF, 0xBB, 0xBF] + Array("<p>bom</p>".utf8)).text.string == "bom")
    }

    /// UTF-32 with its byte order mark, little- and big-endian, in plain text and HTML. Before,
    /// UTF-32LE's mark (FF FE 00 00) was taken for UTF-16LE's and the text set as garbage.
    @Test(arguments: [true, false])
    func utf32WithAByteOrderMarkIsRead(littleEndian: Bool) {
        func utf32(_ text: String) -> [UInt8] {
            let mark: [UInt8] = littleEndian ? [0xFF, 0xFE, 0x00, 0x00] : [0x00, 0x00, 0xFE, 0xFF]
            return mark + text.unicodeScalars.flatMap { scalar -> [UInt8] in
                let bytes = (0..<4).map { UInt8(truncatingIfNeeded: scalar.value >> (8 * $0)) }
                return littleEndian ? bytes : bytes.reversed()
            }
        }
        let text = "Plain text in UTF-32: café, 日本, \u{1F600}."
        let article = MarkupParser(base: base).parse(plainText: utf32(text))
        #expect(article.text.validate() == [])
        #expect(article.text.string == text && article.warnings.isEmpty, "\(article.text.string) \(article.warnings)")
        #expect(html(utf32("<p>\(text)</p>")).text.string == text)
    }

    @Test func invalidBytesBecomeReplacementCharacters() {
        let article = html(Array("<p>a".utf8) + [0xFF] + Array("b".utf8) + [0xC3] + Array("</p>".utf8))
        #expect(article.text.string == "a\u{FFFD}b\u{FFFD}")
        #expect(!article.warnings.isEmpty)
        let sjis = html(Array("<meta charset=shift_jis><p>x".utf8) + [0x81, 0x20, 0x93, 0xFA])
        #expect(sjis.text.string.hasPrefix("x\u{FFFD}"))
        #expect(sjis.text.string.hasSuffix("日"))
        let text = MarkupParser(base: base).parse(plainText: [0x61, 0xFE, 0x62])
        #expect(text.text.string == "a\u{FFFD}b")
    }

    // MARK: Plain text

    @Test func plainTextParagraphs() {
        let article = plain("First line\nsame   paragraph.\r\n\r\n  Second\tparagraph \r\n \n\n\nThird\rline")
        #expect(paragraphs(article) == ["First line same paragraph.", "Second paragraph", "Third line"])
        #expect(article.text.paragraphs.dropFirst().allSatisfy { $0.value.spaceBefore == 10 })
        #expect(style(of: "Third", in: article)?.font.families == ["DejaVu Serif"])
    }

    // MARK: Robustness

    @Test func deepAndPathologicalNestingKeepsText() {
        let deep = String(repeating: "<div>", count: 50_000) + "deep text" + String(repeating: "</div>", count: 50_000)
        #expect(html(deep).text.string == "deep text")
        let formatting = (0..<3_000).map { "<font color=#\(String($0, radix: 16))>t\($0)<p>" }.joined()
        let article = html(formatting)
        #expect(article.text.string.contains("t0"))
        #expect(article.text.string.contains("t2999"))
        #expect(article.text.paragraphs.count == 3_000)
    }

    @Test func everyOutputValidates() {
        var generator = SplitMix(seed: 0x5EED)
        let vocabulary = ["<p>", "</p>", "<b>", "</b>", "<i>", "<li>", "<ul>", "</ul>", "<ol start=-2>", "<pre>", "</pre>",
                          "<br>", "<hr>", "<img src=x>", "<table><tr><td>", "<font size=9>", "<sup>", "<h1>", "</h1>",
                          "<style>p{color:red}", "</style>", "<script>", "</script>", "<!--", "-->", "&amp;", "&#0;",
                          " ", "\n", "\t", "\r", "\u{2029}", "word", "日本", "<span style='white-space:pre'>",
                          "<p style='margin:-20px'>", "<div dir=rtl>", "</div>", "<title>", "</title>", "<![CDATA[x]]>", "<"]
        for _ in 0..<300 {
            let markup = (0..<Int.random(in: 0...60, using: &generator)).map { _ in
                vocabulary[Int.random(in: 0..<vocabulary.count, using: &generator)]
            }.joined()
            let article = MarkupParser(base: base).parse(html: Array(markup.utf8), baseURL: nil)
            #expect(article.text.validate() == [], "\(markup)")
            let text = MarkupParser(base: base).parse(plainText: Array(markup.utf8))
            #expect(text.text.validate() == [], "\(markup)")
        }
        for length in [0, 1, 2, 3, 100, 10_000] {
            for _ in 0..<5 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                #expect(MarkupParser(base: base).parse(html: bytes, baseURL: nil).text.validate() == [])
                #expect(MarkupParser(base: base).parse(plainText: bytes).text.validate() == [])
            }
        }
    }

    @Test func theArticlesWritingModeComesFromBodyOrTheFirstElementThatDeclaresOne() {
        #expect(html("<p>横</p>").writingMode == nil)
        #expect(html("<body style='writing-mode: vertical-rl'><p>縦</p></body>").writingMode == .verticalRL)
        #expect(html("<html style='-epub-writing-mode: tb-rl'><p>縦</p></html>").writingMode == .verticalRL)
        #expect(html("<style>.tate { writing-mode: vertical-rl }</style><div class=tate><p>縦</p></div>").writingMode == .verticalRL)
        // <body> wins over <html>, and says nothing about the others.
        let bodyWins = html("<html style='writing-mode: vertical-rl'><body style='writing-mode: horizontal-tb'><p>横</p></body></html>")
        #expect(bodyWins.writingMode == .horizontalTB && bodyWins.warnings.isEmpty)
        // A page has one writing mode: a later, different one is reported, not followed.
        let mixed = html("<body style='writing-mode: vertical-rl'><p>縦</p><div style='writing-mode: horizontal-tb'>横</div></body>")
        #expect(mixed.writingMode == .verticalRL)
        #expect(mixed.warnings.contains { $0.contains("horizontal-tb on <div> ignored") })
        let unsupported = html("<body style='writing-mode: vertical-lr'><p>ᠮᠣᠩᠭᠣᠯ</p></body>")
        #expect(unsupported.writingMode == nil)
        #expect(unsupported.warnings.contains { $0.contains("vertical-lr") && $0.contains("not supported") })
        #expect(paragraphs(unsupported) == ["ᠮᠣᠩᠭᠣᠯ"], "the text is kept")
    }
}
