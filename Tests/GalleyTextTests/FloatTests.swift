import Foundation
import GalleyTestSupport
@testable import GalleyText
import Testing

/// `float: left | right` on pictures and `clear` on blocks: the picture is set at the
/// column's edge from the top of the line it is anchored in, the lines beside it are
/// shortened by it and its margin, and no line ever runs over it.
@Suite struct FloatTests {
    static func layout(columns: Int = 2, vertical: Bool = false) -> ArticleLayout {
        var layout = SpanningBlockTests.layout(columns: columns, vertical: vertical)
        layout.pageHeight = 640
        return layout
    }

    static func overlaps(_ a: Rect, _ b: Rect) -> Bool {
        a.x < b.maxX - 0.01 && b.x < a.maxX - 0.01 && a.y < b.maxY - 0.01 && b.y < a.maxY - 0.01
    }

    static func typeset(_ html: String, _ layout: ArticleLayout) throws -> (AttributedText, [TypesetPage]) {
        let text = BalancedColumnsTests.parse(html, layout)
        return (text, try typesetAll(text, layout, fonts: sharedFonts))
    }

    /// Every floated picture set exactly once, inside its column, and no line over any.
    static func expectNothingOverAFloat(_ text: AttributedText, _ pages: [TypesetPage], sourceLocation: SourceLocation = #_sourceLocation) {
        let floated = text.attachments.filter { $0.float != nil }.map(\.offset)
        var seen: [Int] = []
        for page in pages {
            for frame in page.attachments where floated.contains(frame.offset) {
                seen.append(frame.offset)
                let column = page.columns[frame.column].rect
                #expect(frame.rect.x >= column.x - 0.01 && frame.rect.maxX <= column.maxX + 0.01
                        && frame.rect.y >= column.y - 0.01 && frame.rect.maxY <= column.maxY + 0.01,
                        "picture \(frame.rect) outside its column \(column)", sourceLocation: sourceLocation)
                for line in page.columns.flatMap(\.lines) where overlaps(line.rect, frame.rect) {
                    Issue.record("line \(text.string(line.range)) at \(line.rect) runs over the picture at \(frame.rect)", sourceLocation: sourceLocation)
                }
            }
        }
        #expect(seen.sorted() == floated, "each floated picture once", sourceLocation: sourceLocation)
        SpanningBlockTests.expectTiled(pages, text, sourceLocation: sourceLocation)
    }

    @Test(arguments: [FloatSide.right, .left])
    func linesBesideAFloatedPictureAreShortenedAndTheRestRunFullWidth(_ side: FloatSide) throws {
        let layout = Self.layout()
        let html = "<p><img src='x.png' width=120 height=90 style='float: \(side.rawValue)'>\(SpanningBlockTests.prose(220, seed: 1))</p>"
        let (text, pages) = try Self.typeset(html, layout)
        Self.expectNothingOverAFloat(text, pages)
        let page = try #require(pages.first)
        let picture = try #require(page.attachments.first)
        let column = page.columns[0]
        // At the column's edge, its top at the paragraph's first line.
        #expect(abs(picture.rect.width - 90) < 0.01 && abs(picture.rect.height - 67.5) < 0.01)
        if side == .right { #expect(abs(picture.rect.maxX - column.rect.maxX) < 0.01) } else { #expect(abs(picture.rect.x - column.rect.x) < 0.01) }
        let first = try #require(column.lines.first)
        #expect(abs(first.rect.y - picture.rect.y) < 0.01)
        let beside = column.lines.filter { $0.rect.y < picture.rect.maxY }
        let below = column.lines.filter { $0.rect.y >= picture.rect.maxY + Framesetter.floatMargin }
        #expect(beside.count >= 4 && below.count >= 4)
        for line in beside {
            if side == .right {
                #expect(line.rect.maxX <= picture.rect.x - Framesetter.floatMargin + 0.01)
            } else {
                #expect(line.rect.x >= picture.rect.maxX + Framesetter.floatMargin - 0.01)
            }
        }
        // Lines below take the whole measure again: some are longer than a line beside it can be.
        #expect(below.contains { $0.rect.width > column.rect.width - picture.rect.width - Framesetter.floatMargin + 1 })
    }

    /// White space around a floated picture collapses as if it were not in the line: no space
    /// opens a paragraph that starts with one, and none is doubled around one in the middle.
    @Test func whiteSpaceAroundAFloatCollapses() {
        let layout = Self.layout()
        let text = BalancedColumnsTests.parse("<p><img src='a.png' style='float: right'>\n  Opening words. <img src='b.png' style='float: left'>  Then more.</p>", layout)
        #expect(text.attachments.count == 2 && text.attachments.allSatisfy { $0.float != nil })
        let shown = text.string(0..<text.count).unicodeScalars.filter { $0 != AttributedText.objectReplacement }
        #expect(String(String.UnicodeScalarView(shown)) == "Opening words. Then more.")
    }

    @Test func clearStartsABlockBelowTheFloats() throws {
        // One column: in two, balancing would start the heading in the second.
        let layout = Self.layout(columns: 1)
        let html = "<p><img src='x.png' width=120 height=200 style='float: left'>A short paragraph.</p>"
            + "<h2 style='clear: both'>Below the picture</h2><p>\(SpanningBlockTests.prose(40, seed: 2))</p>"
        let (text, pages) = try Self.typeset(html, layout)
        Self.expectNothingOverAFloat(text, pages)
        let page = try #require(pages.first)
        let picture = try #require(page.attachments.first)
        let heading = try #require(page.columns.flatMap(\.lines).first { text.string($0.range).hasPrefix("Below") })
        #expect(heading.rect.y >= picture.rect.maxY)
        // Without clear, the heading is set beside the picture.
        let (unclearedText, uncleared) = try Self.typeset(html.replacingOccurrences(of: "style='clear: both'", with: ""), layout)
        let besideHeading = try #require(uncleared[0].columns.flatMap(\.lines).first { unclearedText.string($0.range).hasPrefix("Below") })
        #expect(besideHeading.rect.y < picture.rect.maxY)
    }

    @Test func aPictureThatDoesNotFitGoesToTheNextColumnWithItsLine() throws {
        // Columns filled in turn, so the second paragraph starts low in the first column.
        var layout = Self.layout()
        layout.columnFill = .auto
        // Enough text to fill most of the first column, then a paragraph whose fourth line
        // holds a tall floated picture.
        let html = "<p>\(SpanningBlockTests.prose(250, seed: 3))</p><p>\(SpanningBlockTests.prose(24, seed: 5)) "
            + "<img src='x.png' width=120 height=300 style='float: right'> \(SpanningBlockTests.prose(120, seed: 4))</p>"
        let (text, pages) = try Self.typeset(html, layout)
        Self.expectNothingOverAFloat(text, pages)
        let picture = try #require(pages.first?.attachments.first)
        #expect(picture.column == 1, "in the second column, at its top")
        // Its paragraph did start in the first column, but the line it is anchored in went
        // with it to the top of the second.
        let paragraphStart = text.paragraphs[1].range.lowerBound
        #expect(pages[0].columns[0].range.contains(paragraphStart))
        #expect(pages[0].columns[1].range.contains(text.attachments[0].offset))
        #expect(picture.rect.y == pages[0].columns[1].rect.y)
    }

    @Test(arguments: [false, true])
    func manyFloatsNeverLieUnderText(vertical: Bool) throws {
        let layout = Self.layout(columns: vertical ? 2 : 3, vertical: vertical)
        var generator = SplitMix(seed: 11)
        var html = "<h1>Floats</h1>"
        for index in 0..<24 {
            let side = index % 3 == 0 ? "left" : "right"
            let (width, height) = (Int.random(in: 40...140, using: &generator), Int.random(in: 30...160, using: &generator))
            let words = Int.random(in: 10...120, using: &generator)
            let at = Int.random(in: 0...words, using: &generator)
            let prose = SpanningBlockTests.prose(words, seed: UInt64(index)).split(separator: " ")
            html += "<p\(index % 7 == 6 ? " style='clear: both'" : "")>" + prose[..<at].joined(separator: " ")
                + " <img src='x.png' width=\(width) height=\(height) style='float: \(side)'> " + prose[at...].joined(separator: " ") + "</p>"
        }
        let (text, pages) = try Self.typeset(html, layout)
        #expect(text.attachments.filter { $0.float != nil }.count == 24)
        Self.expectNothingOverAFloat(text, pages)
    }
}
