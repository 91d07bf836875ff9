import GalleyText
import Testing

/// `::before` and `::after` boxes and counters (CSS 2.1 §12): the text they generate, where
/// it goes, and the style it is drawn in.
@Suite struct GeneratedContentTests {
    /// The article's paragraphs, trimmed.
    static func paragraphs(_ html: String) -> [String] {
        let text = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil).text
        return text.paragraphs.map { text.string($0.range).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    @Test func aCounterIncrementedByEachBlockNumbersThem() {
        let html = "<style>div { counter-increment: n } div::before { content: counter(n) \". \" }</style>"
            + "<div>First</div><div>Second</div><div>Third</div>"
        #expect(Self.paragraphs(html) == ["1. First", "2. Second", "3. Third"])
    }

    @Test func countersShowTheNestedInstancesAndAResetStartsANewOne() {
        let html = "<style>ol { counter-reset: item 4 } li { display: block; counter-increment: item }"
            + " li:before { content: counters(item, \".\", upper-roman) \" \" }</style>"
            + "<ol><li>One<ol><li>Inner</li><li>Other</li></ol></li><li>Two</li></ol>"
        // The outer list counts from 4; the inner one nests its own instance under V.
        #expect(Self.paragraphs(html) == ["V One", "V.V Inner", "V.VI Other", "VI Two"])
    }

    @Test func afterContentComesAtTheEndWithAttributesAndQuotes() {
        let html = "<style>a::after { content: \" (\" attr(href) \")\" } q:before { content: open-quote }"
            + " q:after { content: close-quote }</style>"
            + "<p>See <a href='http://example.org/'>the site</a>, <q>quoted</q>.</p>"
        #expect(Self.paragraphs(html) == ["See the site (http://example.org/), \u{201C}quoted\u{201D}."])
    }

    @Test func noContentNoBoxAndPseudoElementRulesLeaveTheElementAlone() throws {
        // `content: none` generates nothing, `::marker` (not supported) is skipped; the
        // `::before` rule's colour is its box's, not the paragraph's, which stays red.
        let html = "<style>p { color: red } p::before { content: \"Blue \"; color: blue } p.none::before { content: none }"
            + " p::marker { color: green }</style><p>Red text</p><p class='none'>Only this</p>"
        #expect(Self.paragraphs(html) == ["Blue Red text", "Only this"])
        let bitmap = try SizedBoxTests.drawn("<style>p { color: red } p::before { content: \"Blue \"; color: blue }</style><p>Red text</p>")
        let blue = try #require(SizedBoxTests.area(of: SizedBoxTests.blue, in: bitmap).box)
        let red = try #require(SizedBoxTests.area(of: PositionTests.red, in: bitmap).box)
        // On one line, the generated text first.
        #expect(blue.x + blue.width < red.x && blue.y < red.y + red.height && red.y < blue.y + blue.height, "\(blue) \(red)")
    }
}
