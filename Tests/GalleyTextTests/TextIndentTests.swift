import GalleyText
import Testing

/// CSS `text-indent` (CSS Text 3 §8.1): a length or a percentage of the paragraph's block
/// width, on the first line, or with `hanging` on every line but the first.
@Suite struct TextIndentTests {
    /// The start of each line of the first page of `html`: a 600 pt page without inset, the
    /// paragraph in a block 400 px (300 pt) wide.
    static func lineStarts(_ style: String, words: String = String(repeating: "words to wrap over several lines of the block ", count: 8)) throws -> [Double] {
        let html = "<div style='width: 400px'><p style='margin: 0; text-indent: \(style)'>\(words)</p></div>"
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        var layout = ArticleLayout(name: "indent")
        (layout.pageWidth, layout.pageHeight) = (600, 450)
        layout.inset = .init(all: 0)
        let page = try #require(try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts).nextPage())
        return page.columns.flatMap(\.lines).map(\.rect.x)
    }

    @Test func aLengthIndentsTheFirstLine() throws {
        let starts = try Self.lineStarts("24pt")
        #expect(starts.count > 3)
        #expect(abs(starts[0] - 24) < 0.01 && starts.dropFirst().allSatisfy { abs($0) < 0.01 }, "\(starts)")
    }

    @Test func aPercentageIsOfTheBlocksWidth() throws {
        // 10 % of the 300 pt block, not of the 600 pt column. Before, the declaration was
        // dropped and no line was indented.
        let starts = try Self.lineStarts("10%")
        #expect(abs(starts[0] - 30) < 0.01 && starts.dropFirst().allSatisfy { abs($0) < 0.01 }, "\(starts)")
    }

    @Test func hangingIndentsEveryLineButTheFirst() throws {
        // Before, `hanging` made the declaration invalid and no line was indented.
        let starts = try Self.lineStarts("24pt hanging")
        #expect(abs(starts[0]) < 0.01 && starts.dropFirst().allSatisfy { abs($0 - 24) < 0.01 }, "\(starts)")
        let percent = try Self.lineStarts("20% hanging each-line")
        #expect(abs(percent[0]) < 0.01 && percent.dropFirst().allSatisfy { abs($0 - 60) < 0.01 }, "\(percent)")
    }

    @Test func eachLineIndentsTheLineAfterEachForcedBreak() throws {
        // Two wrapped lines, a <br>, two more: with each-line the third starts indented like
        // the first; without, only the first does. Before, each-line was read and not applied.
        let words = String(repeating: "words to wrap ", count: 12)
        let indented = try Self.lineStarts("24pt each-line", words: words + "<br>" + words)
        #expect(indented.count >= 4)
        let afterBreak = indented.count / 2
        #expect(abs(indented[0] - 24) < 0.01 && abs(indented[afterBreak] - 24) < 0.01, "\(indented)")
        #expect(indented.enumerated().filter { abs($0.element - 24) < 0.01 }.map(\.offset) == [0, afterBreak], "\(indented)")
        let plain = try Self.lineStarts("24pt", words: words + "<br>" + words)
        #expect(plain.dropFirst().allSatisfy { abs($0) < 0.01 }, "\(plain)")
    }
}
