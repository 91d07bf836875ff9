import Foundation
import GalleyTestSupport
@testable import GalleyText
import Testing

/// `column_fill: balance` (the default): the last page's columns end at about the same height
/// instead of the first filling up and the rest staying empty; the pages before it, where
/// lines go and what is set are as with `auto`.
@Suite struct BalancedColumnsTests {
    /// How far the column's lines and tables reach into it, in the block direction.
    static func extent(_ column: ColumnFrame, vertical: Bool) -> Double {
        let rects = column.lines.map(\.rect) + column.tables.map(\.rect)
        guard !rects.isEmpty else { return 0 }
        return vertical ? column.rect.maxX - rects.map(\.x).min()! : rects.map(\.maxY).max()! - column.rect.y
    }

    static func parse(_ html: String, _ layout: ArticleLayout) -> AttributedText {
        MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
    }

    static func filled(_ layout: ArticleLayout, _ fill: ArticleLayout.ColumnFill) -> ArticleLayout {
        var layout = layout
        layout.columnFill = fill
        return layout
    }

    @Test(arguments: BreakRulesTests.layouts())
    func theLastPagesColumnsEndTogetherAndNothingElseMoves(_ layout: ArticleLayout) throws {
        let vertical = layout.writingMode.isVertical
        var balancedPages = 0
        for seed: UInt64 in 1...10 {
            let text = Self.parse(BreakRulesTests.article(seed: seed, sections: 2 + Int(seed) * 2), layout)
            let auto = try typesetAll(text, Self.filled(layout, .auto), fonts: sharedFonts)
            let balanced = try typesetAll(text, Self.filled(layout, .balance), fonts: sharedFonts)
            // The same pages, and every page but the last set exactly as before.
            try #require(auto.count == balanced.count, "seed \(seed)")
            for (before, after) in zip(auto.dropLast(), balanced.dropLast()) {
                #expect(before.columns.map(\.range) == after.columns.map(\.range), "seed \(seed), page \(after.number)")
            }
            // The last page holds the same text, nothing lost or set twice.
            let last = balanced.last!
            var next = balanced.dropLast().last?.columns.last?.range.upperBound ?? 0
            for column in last.columns {
                #expect(column.range.lowerBound == next)
                next = column.range.upperBound
            }
            #expect(next == text.count)
            // Columns the page left empty count as empty.
            func extents(_ page: TypesetPage) -> [Double] {
                page.columns.map { Self.extent($0, vertical: vertical) } + Array(repeating: 0, count: layout.columns - page.columns.count)
            }
            let (extents, autoExtents) = (extents(last), extents(auto.last!))
            let lineHeight = last.columns.flatMap(\.lines).map { vertical ? $0.rect.width : $0.rect.height }.max() ?? 0
            // Never taller than the first column of the unbalanced page; when that page left
            // a column short, the balanced columns differ by little: a few lines, as keep
            // rules (a heading with its text, two lines each side of a break) allow.
            #expect(extents.max()! <= autoExtents.max()! + 0.01, "seed \(seed): \(extents) against \(autoExtents)")
            if autoExtents.max()! - autoExtents.min()! > 4 * lineHeight {
                balancedPages += 1
                #expect(extents.max()! - extents.min()! <= 4 * lineHeight, "seed \(seed): \(extents), lines \(lineHeight) high")
            }
        }
        #expect(balancedPages >= 2, "these articles end on pages worth balancing: \(balancedPages)")
    }

    @Test func aShortArticleIsSplitOverTheColumnsOfItsOnlyPage() throws {
        var layout = ArticleLayout(name: "two")
        (layout.pageWidth, layout.pageHeight, layout.columns) = (420, 600, 2)
        layout.inset = .init(all: 20)
        let html = "<p>" + Array(repeating: "A short article that fills part of one column and no more.", count: 12).joined(separator: " ") + "</p>"
        let text = Self.parse(html, layout)
        let auto = try typesetAll(text, Self.filled(layout, .auto), fonts: sharedFonts)
        let balanced = try typesetAll(text, layout, fonts: sharedFonts)
        try #require(auto.count == 1 && balanced.count == 1)
        #expect(auto[0].columns.count == 1, "one column holds it all when columns are filled in turn")
        let columns = balanced[0].columns
        try #require(columns.count == 2)
        let lines = columns.map(\.lines.count)
        #expect(abs(lines[0] - lines[1]) <= 1, "\(lines) lines")
        #expect(lines[0] + lines[1] == auto[0].columns[0].lines.count)
    }

    /// A table carried over from the page before is set from where it was: the trial fills
    /// go on from a copy of the table's state, and the real fill from the original.
    @Test func aTableGoingOnFromThePreviousPageIsBalancedWithoutLosingRows() throws {
        var layout = ArticleLayout(name: "two")
        (layout.pageWidth, layout.pageHeight, layout.columns) = (420, 300, 2)
        layout.inset = .init(all: 20)
        layout.base.fontSize = 9
        var html = "<table border=1><thead><tr><th>Key</th><th>Value</th></tr></thead>"
        for row in 0..<70 { html += "<tr><td>row \(row)</td><td>value of row \(row)</td></tr>" }
        html += "</table><p>After the table.</p>"
        let text = Self.parse(html, layout)
        let auto = try typesetAll(text, Self.filled(layout, .auto), fonts: sharedFonts)
        let balanced = try typesetAll(text, layout, fonts: sharedFonts)
        try #require(auto.count == balanced.count && balanced.count >= 2)
        func rows(_ pages: [TypesetPage]) -> [String] {
            pages.flatMap(\.columns).flatMap(\.lines).map { text.string($0.range) }
        }
        // The same lines in the same order: no row lost, repeated or reordered.
        #expect(rows(auto) == rows(balanced))
        let last = balanced.last!.columns.map { Self.extent($0, vertical: false) }
        let autoLast = auto.last!.columns.map { Self.extent($0, vertical: false) }
        #expect(last.count == 2 && last.max()! < autoLast.max()!, "\(last) against \(autoLast)")
    }
}
