import Foundation
@testable import GalleyText
import Testing

/// Line heights inherited as lengths: `body { line-height: 1.2em }` is 1.2 × the body's size
/// in every descendant, which CSS applies as it is; a heading with a larger font would print its
/// lines over one another, so they are kept at least their text's height apart. A line height
/// declared on the element itself is kept, however tight.
@Suite struct LineHeightTests {
    static let heading = "A heading long enough to wrap over several lines of this narrow column"

    func headingLines(_ css: String, layout: ArticleLayout) throws -> (lines: [LineBox], size: Double) {
        let html = "<style>\(css)</style><h2>\(Self.heading)</h2><p>Body text after the heading.</p>"
        let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
        let pages = try typesetAll(article.text, layout, fonts: sharedFonts)
        let paragraph = try #require(article.text.paragraphs.first { article.text.string($0.range).hasPrefix("A heading") })
        let size = try #require(article.text.styleRuns.first { $0.range.contains(paragraph.range.lowerBound) }?.value.size)
        return (pages.flatMap { $0.columns.flatMap(\.lines) }.filter { paragraph.range.contains($0.range.lowerBound) }, size)
    }

    /// Distances between the baselines of neighbouring lines: vertical in horizontal text,
    /// horizontal (right to left) in vertical text.
    func steps(_ lines: [LineBox], vertical: Bool) -> [Double] {
        zip(lines, lines.dropFirst()).map { vertical ? $0.rect.midX - $1.rect.midX : $1.baseline - $0.baseline }
    }

    @Test func anInheritedEmLineHeightNeverPrintsAHeadingOverItself() throws {
        var horizontal = column(160)
        horizontal.base.fontSize = 10
        var vertical = ArticleLayout(name: "tate")
        vertical.writingMode = .verticalRL
        vertical.pageWidth = 420
        vertical.pageHeight = 300
        vertical.inset = .init(all: 36)
        vertical.base.fontSize = 10
        vertical.base.language = "ja"
        for (layout, isVertical) in [(horizontal, false), (vertical, true)] {
            let (lines, size) = try headingLines("body { line-height: 1.2em } h2 { font-size: 2em }", layout: layout)
            #expect(lines.count >= 2, "the heading wraps")
            for step in steps(lines, vertical: isVertical) {
                #expect(step >= size - 0.01, "\(isVertical ? "vertical" : "horizontal"): lines \(step) pt apart, the font is \(size) pt")
            }
        }
    }

    @Test func aTightLineHeightDeclaredOnTheElementIsKept() throws {
        var layout = column(160)
        layout.base.fontSize = 10
        let (lines, size) = try headingLines("h2 { font-size: 20pt; line-height: 12pt }", layout: layout)
        #expect(lines.count >= 2)
        for step in steps(lines, vertical: false) { #expect(abs(step - 12) < 0.5, "\(step) pt apart, declared 12 pt for a \(size) pt font") }
    }
}
