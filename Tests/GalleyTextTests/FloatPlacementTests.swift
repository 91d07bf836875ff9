import Foundation
import GalleyTestSupport
@testable import GalleyText
import Testing

/// Floated blocks placed as CSS 2.1 §9.5.1 places floats, in one block formatting context:
/// side by side in their containing block (a sized box's content box, not the column), a
/// float that does not fit beside the others moving below them, never above an earlier one,
/// one wider than its containing block stopped only by the floats of the other side; their
/// own margins in their rectangle and no gap of Galley's own around them; below the margin
/// of the paragraph before them.
@Suite struct FloatPlacementTests {
    /// One column 440 pt wide from (30, 30).
    static func column(_ html: String) throws -> (AttributedText, ColumnFrame) {
        var layout = FloatTests.layout(columns: 1)
        layout.columnFill = .auto
        let (text, pages) = try FloatTests.typeset(html, layout)
        return (text, pages[0].columns[0])
    }

    static func box(_ width: Double, _ height: Double, _ style: String = "") -> String {
        "<div style='float: left; width: \(width)pt; height: \(height)pt; background: blue; \(style)'></div>"
    }

    @Test func leftFloatsStandSideBySideInTheirSizedContainerAndTheOneThatDoesNotFitGoesBelow() throws {
        // Narrower than half the column, as in floats-clear/floats-014.
        let (_, column) = try Self.column("<div style='width: 180pt; border: 1pt solid black'>"
                                          + (1...4).map { _ in Self.box(60, 50) }.joined() + "</div>")
        let floats = column.floats.sorted { $0.block < $1.block }.map(\.rect)
        #expect(floats.count == 4)
        let left = column.rect.x + 1  // Inside the border.
        #expect(floats.map(\.x) == [left, left + 60, left + 120, left], "\(floats)")
        #expect(floats[0].y == floats[1].y && floats[1].y == floats[2].y)
        #expect(abs(floats[3].y - floats[0].maxY) < 0.01, "the fourth is below the first three, with no gap: \(floats)")
    }

    @Test func aFloatsMarginsAreInItsRectangleAndNothingElseKeepsTheTextAway() throws {
        let (text, column) = try Self.column(Self.box(100, 40, "margin: 6pt 10pt 4pt 0") + "<p style='margin: 0'>Beside the float.</p>")
        let float = try #require(column.floats.first)
        #expect(abs(float.rect.width - 110) < 0.01 && abs(float.rect.height - 50) < 0.01, "\(float.rect)")
        let line = try #require(column.lines.first { text.string($0.range).hasPrefix("Beside") })
        #expect(abs(line.rect.x - float.rect.maxX) < 0.01, "the text starts at its margin's edge: \(line.rect.x) against \(float.rect.maxX)")
        let painted = try #require(column.boxes.first)
        #expect(abs(painted.rect.y - (float.rect.y + 6)) < 0.01 && abs(painted.rect.height - 40) < 0.01,
                "its box is below its top margin: \(painted.rect) in \(float.rect)")
    }

    @Test func aFloatWiderThanItsContainingBlockStopsOnlyAtTheOtherSidesFloats() throws {
        // CSS 2.1's floats-rule3-outside-left-001: a right float 40 pt wide, then a block 300 pt
        // wide whose left float is 340 pt wide: beside the right float, not below it.
        let (_, column) = try Self.column("<div style='width: 400pt'><div style='float: right; width: 40pt; height: 200pt'></div>"
                                          + "<div style='margin-right: 100pt'>" + Self.box(340, 8) + "</div></div>")
        let floats = column.floats.sorted { $0.block < $1.block }.map(\.rect)
        #expect(floats.count == 2)
        #expect(abs(floats[1].y - floats[0].y) < 0.01, "level with the right float: \(floats)")
        // With a left float beside it, the containing block's edge holds (rule 7): below it.
        let (_, stacked) = try Self.column("<div style='width: 400pt'>" + Self.box(40, 200) + "<div style='margin-left: 100pt'>"
                                           + Self.box(340, 8) + "</div></div>")
        let second = stacked.floats.sorted { $0.block < $1.block }.map(\.rect)
        #expect(abs(second[1].y - second[0].maxY) < 0.01 && abs(second[1].x - (stacked.rect.x + 100)) < 0.01, "\(second) in \(stacked.rect)")
    }

    @Test func aFloatIsNeverAboveAnEarlierOne() throws {
        let (_, column) = try Self.column("<div style='width: 200pt'>" + Self.box(150, 30) + Self.box(150, 30) + Self.box(20, 10) + "</div>")
        let floats = column.floats.sorted { $0.block < $1.block }.map(\.rect)
        #expect(floats.count == 3)
        #expect(abs(floats[1].y - floats[0].maxY) < 0.01, "the second does not fit beside the first: below it")
        #expect(floats[2].y >= floats[1].y - 0.01, "the small third would fit beside the first, but not above the second: \(floats)")
    }

    @Test func aFloatAfterAParagraphStartsBelowItsBottomMarginAndKeepsItsFirstChildsMargin() throws {
        let (text, column) = try Self.column("<p style='margin: 0 0 20pt'>Before.</p><div style='float: left; width: 100pt'>"
                                             + "<div style='margin-top: 30pt; height: 10pt; background: blue'></div></div>")
        let before = try #require(column.lines.first { text.string($0.range).hasPrefix("Before") })
        let float = try #require(column.floats.first)
        #expect(abs(float.rect.y - (before.rect.maxY + 20)) < 0.01, "\(float.rect) below \(before.rect)")
        let inner = try #require(column.boxes.first)
        #expect(abs(inner.rect.y - (float.rect.y + 30)) < 0.01, "the child's margin is kept inside the float: \(inner.rect)")
        #expect(abs(float.rect.height - 40) < 0.01)
    }

    /// CSS 2.1's margin-collapse-039: a float between a paragraph and a cleared block whose
    /// child has a large top margin.
    static let clearedAfterFloat = "<p style='margin: 0 0 16pt'>Before.</p>"
        + "<div style='float: left; width: 100pt; height: 50pt; background: green'></div>"
        + "<div style='clear: left'><div style='margin-top: 50pt; height: 50pt; width: 100pt; background: blue'>Cleared.</div></div>"

    @Test func aFloatBetweenBlocksIsBelowTheMarginBeforeItNotTheNextBlocksLargerOne() throws {
        // §9.5.1 rule 4 and §8.3.1: as if in an empty block there, whose top collapses with the
        // paragraph's bottom margin (16 pt) only, not with the next block's 50 pt.
        let (text, column) = try Self.column("<p style='margin: 0 0 16pt'>Before.</p>" + Self.box(100, 50)
                                             + "<p style='margin: 50pt 0 0'>After.</p>")
        let before = try #require(column.lines.first { text.string($0.range).hasPrefix("Before") })
        let float = try #require(column.floats.first)
        #expect(abs(float.rect.y - (before.rect.maxY + 16)) < 0.01, "\(float.rect) against \(before.rect)")
    }

    @Test func theClearOfABlockReachesTheChildThatHoldsItsTextAndTakesThePlaceOfItsMargin() throws {
        let (text, column) = try Self.column(Self.clearedAfterFloat)
        let float = try #require(column.floats.first)
        let cleared = try #require(column.lines.first { text.string($0.range).hasPrefix("Cleared") })
        // The child's box starts at the float's foot (clearance, not clearance plus its 50 pt
        // margin), at the column's start, not beside the float.
        let box = try #require(column.boxes.first { abs($0.rect.height - 50) < 0.01 && $0.rect.y > float.rect.y })
        #expect(abs(box.rect.y - float.rect.maxY) < 0.01, "\(box.rect) against the float's \(float.rect)")
        #expect(cleared.rect.x < float.rect.maxX && cleared.rect.y >= float.rect.maxY - 0.01, "\(cleared.rect)")
    }

    @Test func floatsArePaintedOverTheBoxesOfTheFlow() throws {
        // CSS 2.1 Appendix E: in-flow blocks' backgrounds first, floats over them. A block
        // after a float has its box under it (block boxes do not move aside for floats).
        let (_, column) = try Self.column(Self.box(100, 50) + "<div style='height: 80pt; background: red'>Text.</div>")
        let float = try #require(column.floats.first)
        let blue = try #require(column.boxes.firstIndex { abs($0.rect.y - float.rect.y) < 0.01 && abs($0.rect.height - 50) < 0.01 })
        let red = try #require(column.boxes.firstIndex { abs($0.rect.height - 80) < 0.01 })
        #expect(red < blue, "the float's box is drawn after (over) the red block's: \(column.boxes.map(\.rect))")
    }
}
