import Foundation
import GalleyTestSupport
@testable import GalleyText
import Testing

/// The layout's `justify_threshold` justifies running text; a table cell's narrow measure
/// would leave most of its lines loose, so cells are set ragged unless their CSS asks for
/// `text-align: justify`.
@Suite struct CellJustificationTests {
    static func lines(_ html: String) throws -> (text: AttributedText, lines: [LineBox]) {
        var layout = ArticleLayout(name: "threshold")
        layout.columns = 1
        layout.typography.justifyThreshold = 0.6
        let text = BalancedColumnsTests.parse(html, layout)
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        return (text, pages.flatMap(\.columns).flatMap(\.lines))
    }

    static let cellText = SpanningBlockTests.prose(60, seed: 3)

    @Test func cellsAreRaggedWhileTheTextAroundIsJustified() throws {
        let paragraph = SpanningBlockTests.prose(80, seed: 4)
        let (text, lines) = try Self.lines("<p>\(paragraph)</p><table><tr><td><p>\(Self.cellText)</p></td><td>\(Self.cellText)</td></tr></table>")
        let tableStart = text.string(0..<text.count).unicodeScalars.count - 2 * Self.cellText.unicodeScalars.count - 2
        let running = lines.filter { $0.range.upperBound <= tableStart }
        let cells = lines.filter { $0.range.lowerBound >= tableStart }
        #expect(running.contains { $0.isJustified }, "the paragraph before is justified by the threshold")
        #expect(cells.count > 6 && !cells.contains { $0.isJustified || $0.isLoose })
    }

    @Test func aCellThatAsksForJustificationIsJustified() throws {
        let (_, lines) = try Self.lines("<table><tr><td style='text-align: justify'>\(Self.cellText)</td><td><p style='text-align: justify'>\(Self.cellText)</p></td></tr></table>")
        #expect(lines.filter { $0.isJustified }.count >= 4)
    }
}
