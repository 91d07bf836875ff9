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

    /// A trial copy dropped with a table half set is freed with its table: the table does not
    /// keep its framesetter alive (balancing makes a dozen such copies per page).
    @Test func aCopyDroppedInTheMiddleOfATableIsFreed() throws {
        var html = "<table border=1>"
        for row in 0..<40 { html += "<tr><td>row \(row)</td><td>value of row \(row)</td></tr>" }
        html += "</table>"
        let text = Self.parse(html, ArticleLayout(name: "one"))
        let framesetter = Framesetter(text: text, fonts: sharedFonts, maximumBox: (200, 200))
        let frame = try framesetter.fill(Rect(x: 0, y: 0, width: 200, height: 100), from: 0)
        #expect(!frame.tables.isEmpty && frame.range.upperBound < text.count, "the table goes on past the rectangle")
        weak var dropped: Framesetter?
        do {
            let copy = framesetter.copy()
            dropped = copy
            _ = try copy.fill(Rect(x: 0, y: 0, width: 200, height: 100), from: frame.range.upperBound)
        }
        #expect(dropped == nil)
    }
}

/// `column-span: all`: a headline or standfirst set across the page's columns, the columns
/// above it balanced, and the columns going on below it.
@Suite struct SpanningBlockTests {
    static func layout(columns: Int = 3, vertical: Bool = false) -> ArticleLayout {
        var layout = ArticleLayout(name: "three")
        (layout.pageWidth, layout.pageHeight, layout.columns) = (500, 700, columns)
        layout.inset = .init(all: 30)
        layout.base.fontSize = 10
        if vertical {
            layout.writingMode = .verticalRL
            layout.base.language = "ja"
        }
        return layout
    }

    static func prose(_ words: Int, seed: UInt64) -> String {
        var generator = SplitMix(seed: seed)
        return (0..<words).map { _ in BreakRulesTests.words.randomElement(using: &generator)! }.joined(separator: " ") + "."
    }

    /// Every character set once, in order, over the pages' rectangles.
    static func expectTiled(_ pages: [TypesetPage], _ text: AttributedText, sourceLocation: SourceLocation = #_sourceLocation) {
        var next = 0
        for column in pages.flatMap(\.columns) {
            #expect(column.range.lowerBound == next, sourceLocation: sourceLocation)
            next = column.range.upperBound
        }
        #expect(next == text.count, sourceLocation: sourceLocation)
    }

    @Test func aHeadlineSpansTheColumnsAndTheTextGoesOnBelowIt() throws {
        let layout = Self.layout()
        let html = "<h1 style='column-span: all'>A headline as wide as the page, over all three of its columns</h1>"
            + (1...12).map { "<p>\(Self.prose(60, seed: UInt64($0)))</p>" }.joined()
        let text = BalancedColumnsTests.parse(html, layout)
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        Self.expectTiled(pages, text)
        let first = try #require(pages.first)
        let headline = try #require(first.columns.first)
        let columnWidth = layout.columnWidth
        // Across the text area, and its first line wider than a column could hold.
        #expect(abs(headline.rect.width - (layout.pageWidth - 60)) < 0.01)
        #expect(headline.lines.first!.rect.width > columnWidth + 1)
        #expect(text.string(headline.range).hasPrefix("A headline"))
        // Three columns below it, side by side, starting under its last line.
        let below = Array(first.columns.dropFirst())
        try #require(below.count == 3)
        let headlineBottom = headline.lines.map(\.rect.maxY).max()!
        for column in below {
            #expect(abs(column.rect.width - columnWidth) < 0.01)
            #expect(column.lines.allSatisfy { $0.rect.y >= headlineBottom - 0.01 }, "a line above the headline's foot")
        }
        #expect(Set(below.map(\.rect.x)).count == 3)
        // The next pages are plain columns.
        for page in pages.dropFirst() { #expect(page.columns.allSatisfy { abs($0.rect.width - columnWidth) < 0.01 }) }
    }

    @Test func theColumnsAboveASpanningBlockAreBalanced() throws {
        let layout = Self.layout()
        let html = "<p>\(Self.prose(120, seed: 7))</p><p>\(Self.prose(80, seed: 8))</p>"
            + "<blockquote style='column-span: all'><p>A pull quote across the page.</p></blockquote>"
            + "<p>\(Self.prose(150, seed: 9))</p>"
        let text = BalancedColumnsTests.parse(html, layout)
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        Self.expectTiled(pages, text)
        try #require(pages.count == 1)
        let columns = pages[0].columns
        // Three columns, the quote, three columns.
        try #require(columns.count == 7, "\(columns.map(\.rect))")
        let above = columns[0..<3], quote = columns[3], below = columns[4..<7]
        #expect(text.string(quote.range).hasPrefix("A pull quote"))
        let extents = above.map { BalancedColumnsTests.extent($0, vertical: false) }
        let lineHeight = above.flatMap(\.lines).map(\.rect.height).max()!
        #expect(extents.max()! - extents.min()! <= 2 * lineHeight, "balanced above: \(extents)")
        let aboveBottom = above.flatMap(\.lines).map(\.rect.maxY).max()!
        let quoteTop = quote.lines.map(\.rect.y).min()!, quoteBottom = quote.lines.map(\.rect.maxY).max()!
        #expect(quoteTop >= aboveBottom - 0.01)
        #expect(below.flatMap(\.lines).allSatisfy { $0.rect.y >= quoteBottom - 0.01 })
        // The last page's columns below are balanced too.
        let belowExtents = below.map { $0.lines.map(\.rect.maxY).max()! - quoteBottom }
        #expect(belowExtents.max()! - belowExtents.min()! <= 2 * lineHeight, "balanced below: \(belowExtents)")
    }

    @Test func aSpanningBlockLongerThanThePageGoesOnAcrossTheNext() throws {
        let layout = Self.layout()
        let html = "<p>\(Self.prose(100, seed: 3))</p><div style='column-span: all'><p>\(Self.prose(900, seed: 4))</p></div><p>\(Self.prose(100, seed: 5))</p>"
        let text = BalancedColumnsTests.parse(html, layout)
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        Self.expectTiled(pages, text)
        #expect(pages.count >= 2)
        let wide = layout.pageWidth - 60
        // The second page starts with the rest of the spanning block, across the page.
        let second = try #require(pages.dropFirst().first?.columns.first)
        #expect(abs(second.rect.width - wide) < 0.01)
    }

    @Test func inVerticalTextASpanningBlockCrossesTheBands() throws {
        let layout = Self.layout(vertical: true)
        let html = "<h1 style='column-span: all'>縦書きの見出しは段をまたぐ</h1>"
            + (1...4).map { _ in "<p>" + String(repeating: "縦書きの本文が三段に組まれる。", count: 12) + "</p>" }.joined()
        let text = BalancedColumnsTests.parse(html, layout)
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        Self.expectTiled(pages, text)
        let first = try #require(pages.first)
        let headline = try #require(first.columns.first)
        // As tall as the three bands and the gaps between them; the bands follow to its left.
        #expect(abs(headline.rect.height - (layout.pageHeight - 60)) < 0.01)
        let headlineLeft = headline.lines.map(\.rect.x).min()!
        for band in first.columns.dropFirst() {
            #expect(band.lines.allSatisfy { $0.rect.maxX <= headlineLeft + 0.01 })
        }
    }
}
