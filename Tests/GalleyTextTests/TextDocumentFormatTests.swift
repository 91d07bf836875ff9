import Foundation
import GalleyText
import Testing

/// The text document: what a search index or a text diff reads of an article as set.
struct TextDocumentFormatTests {
    /// The text file of every page of `text` in `layout`, and the pages.
    func written(_ text: AttributedText, _ layout: ArticleLayout) throws -> (text: String, pages: [TypesetPage]) {
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        let writer = TextDocumentFormat().makeWriter(text: text, layout: layout)
        for page in pages { try writer.add(page) }
        return (String(decoding: try writer.finish(), as: UTF8.self), pages)
    }

    @Test func everyLineIsWrittenAsSetAndNoWordIsLost() throws {
        let words = "Typesetting a long paragraph in narrow justified columns with automatic hyphenation of unbreakable vocabulary"
        let text = testText(Array(repeating: words, count: 30), language: "en", hyphens: .auto)
        var layout = column(110, threshold: 0.8)
        layout.pageHeight = 300
        let (file, pages) = try written(text, layout)
        #expect(pages.count > 2, "the test needs several pages")
        let filePages = file.split(separator: "\u{0C}", omittingEmptySubsequences: false)
        #expect(filePages.count == pages.count)
        for (page, filePage) in zip(pages, filePages) {
            let lines = filePage.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == page.columns.reduce(0) { $0 + $1.lines.count }, "page \(page.number)")
        }
        let hyphenated = pages.flatMap(\.columns).flatMap(\.lines).filter(\.isHyphenated).count
        #expect(hyphenated > 0, "the test needs hyphenated lines")
        #expect(file.split(separator: "\n").filter { $0.hasSuffix("-") }.count == hyphenated)
        // Joining hyphenated lines and splitting on white space gives back the article's words.
        let joined = file.replacingOccurrences(of: "-\n", with: "").replacingOccurrences(of: "\u{0C}", with: "\n")
        #expect(joined.split(whereSeparator: \.isWhitespace) == text.string.split(whereSeparator: \.isWhitespace))
        #expect(file.hasSuffix("\n") && !file.contains(" \n"))
    }

    @Test func columnsAreWrittenInFillingOrderAndPicturesLeftOut() throws {
        let text = testText(["First paragraph \u{FFFC} with a picture.", "Second paragraph.", "Third paragraph."])
        var layout = ArticleLayout(name: "two")
        layout.columns = 2
        layout.pageHeight = 200
        layout.pageWidth = 300
        layout.inset = .init(all: 10)
        let (file, pages) = try written(text, layout)
        #expect(!file.contains("\u{FFFC}"))
        let expected = pages.flatMap(\.columns).flatMap(\.lines).map { text.string($0.range) }
            .map { $0.replacingOccurrences(of: "\u{FFFC}", with: "").trimmingCharacters(in: .whitespacesAndNewlines) }
        let lines = file.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        #expect(lines == expected.filter { !$0.isEmpty })
    }
}
