import Foundation
import GalleyRaster
import GalleyText
import Testing

/// Multi-column elements (CSS Multi-column Level 1: `columns`, `column-count`, `column-width`,
/// `column-gap`, `column-rule`, `column-fill`, `column-span` inside them) on a block, inside
/// the page's own column: laid out by the multicol pass in columns of their own.
@Suite struct MulticolElementTests {
    /// Words enough for `count` lines or so of a narrow column.
    static func words(_ count: Int, _ word: String = "word") -> String {
        (0..<count).map { "\(word)\($0 % 10)" }.joined(separator: " ")
    }

    /// The pages of `html` on a `width` x `height` pt page without inset, in one column (or a
    /// vertical-rl layout).
    static func pages(_ html: String, width: Double = 600, height: Double = 450, vertical: Bool = false) throws -> (AttributedText, [TypesetPage]) {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        #expect(article.text.validate().isEmpty, "\(article.text.validate())")
        var layout = ArticleLayout(name: "multicol")
        (layout.pageWidth, layout.pageHeight) = (width, height)
        layout.inset = .init(all: 0)
        if vertical { layout.writingMode = .verticalRL }
        return (article.text, try typesetAll(article.text, layout, fonts: sharedFonts))
    }

    /// The lines of `page` whose text is in `range`, grouped by their left edge (rounded), left to
    /// right: the columns they were set in.
    static func columnsOfLines(_ page: TypesetPage, in range: Range<Int>) -> [(x: Double, lines: [LineBox])] {
        let lines = page.columns.flatMap(\.lines).filter { range.contains($0.range.lowerBound) }
        let groups = Dictionary(grouping: lines) { ($0.rect.x / 10).rounded(.down) }
        return groups.keys.sorted().map { key in (groups[key]!.map(\.rect.x).min()!, groups[key]!) }
    }

    /// Where the text of the element with `id` (marked by its first and last words) is.
    static func range(of first: String, to last: String, in text: AttributedText) -> Range<Int> {
        let string = String(String.UnicodeScalarView(text.scalars))
        let start = string.unicodeScalars.distance(from: string.unicodeScalars.startIndex,
                                                   to: string.range(of: first)!.lowerBound)
        let end = string.unicodeScalars.distance(from: string.unicodeScalars.startIndex, to: string.range(of: last, options: .backwards)!.upperBound)
        return start..<end
    }

    @Test func aTwoColumnDivInAOneColumnPageSetsItsLinesSideBySide() throws {
        // 600 pt wide, a 24 pt gap: two columns of 288 pt.
        let html = "<body style='margin: 0'><p>Before the element, across the page.</p>"
            + "<div style='column-count: 2; column-gap: 24pt'><p>START " + Self.words(120) + " END</p></div>"
            + "<p>After the element, across the page again.</p></body>"
        let (text, pages) = try Self.pages(html)
        #expect(pages.count == 1)
        let page = try #require(pages.first)
        let inside = Self.range(of: "START", to: "END", in: text)
        let columns = Self.columnsOfLines(page, in: inside)
        try #require(columns.count == 2, "two columns of lines: \(columns.map(\.x))")
        #expect(abs(columns[0].x - 0) < 1 && abs(columns[1].x - 312) < 1, "\(columns.map(\.x))")
        for column in columns {
            #expect(column.lines.allSatisfy { $0.rect.width <= 288 + 0.5 }, "lines inside the 288 pt measure")
            #expect(column.lines.count >= 3)
        }
        // Side by side: both start at the same height, below the paragraph before.
        let tops = columns.map { $0.lines.map(\.rect.y).min()! }
        #expect(abs(tops[0] - tops[1]) < 0.5)
        let before = try #require(page.columns.flatMap(\.lines).first)
        #expect(tops[0] >= before.rect.maxY)
        // The paragraph after is below both, across the page again.
        let after = try #require(page.columns.flatMap(\.lines).last)
        #expect(after.rect.y >= columns.flatMap(\.lines).map(\.rect.maxY).max()! - 0.5)
        // The page reports the element's columns, with their text.
        let reported = page.columns.filter { $0.multicol == 0 }
        #expect(reported.count == 2)
        #expect(reported.map(\.rect.width).allSatisfy { abs($0 - 288) < 0.5 })
        #expect(reported.first?.range.lowerBound ?? -1 <= inside.lowerBound && reported.last?.range.upperBound ?? -1 >= inside.upperBound)
        // Columns still tile the text.
        #expect(zip(page.columns, page.columns.dropFirst()).allSatisfy { $0.range.upperBound == $1.range.lowerBound })
    }

    @Test func aThreeColumnSectionUnderAFullWidthLead() throws {
        let html = "<body style='margin: 0'><h1>The lead heading</h1><p class='lead'>LEAD " + Self.words(40) + " LEADEND</p>"
            + "<section style='columns: 3; column-gap: 12pt'><h2>First</h2><p>START " + Self.words(150) + " END</p></section></body>"
        let (text, pages) = try Self.pages(html)
        let page = try #require(pages.first)
        let lead = Self.columnsOfLines(page, in: Self.range(of: "LEAD", to: "LEADEND", in: text))
        // The lead spans the page: one column of lines, wider than a third of it.
        #expect(lead.count == 1)
        #expect(lead.first?.lines.contains { $0.rect.width > 300 } == true)
        let section = Self.columnsOfLines(page, in: Self.range(of: "First", to: "END", in: text))
        try #require(section.count == 3, "\(section.map(\.x))")
        // (600 - 2 x 12) / 3 = 192 pt columns at 0, 204 and 408.
        #expect(zip(section.map(\.x), [0.0, 204, 408]).allSatisfy { abs($0 - $1) < 1 }, "\(section.map(\.x))")
        let leadBottom = lead.flatMap(\.lines).map(\.rect.maxY).max()!
        #expect(section.allSatisfy { $0.lines.map(\.rect.y).min()! >= leadBottom })
        #expect(section.flatMap(\.lines).allSatisfy { $0.rect.width <= 192.5 })
    }

    @Test func theColumnGapAndTheRuleAreDrawn() throws {
        // Page 800 px at 96 dpi; a 40 px gap with a 4 px red rule in its middle (x 398 to 402).
        let html = "<body style='margin: 0'><div style='column-count: 2; column-gap: 40px; column-rule: 4px solid #ff0000'>"
            + "<p>" + Self.words(200) + "</p></div></body>"
        let (_, pages) = try Self.pages(html)
        let bitmap = try #require(pages.first).render(scale: 96.0 / 72, cancellation: Cancellation())
        let red = SizedBoxTests.area(of: (255, 0, 0), in: bitmap)
        let box = try #require(red.box)
        #expect(box.x == 398 && box.width == 4, "\(box)")
        #expect(box.height > 100 && red.count == 4 * box.height)
        // Nothing drawn in the gap but the rule.
        var ink = 0
        for y in box.y..<(box.y + box.height) {
            for x in (380..<420) where !(398..<402).contains(x) && bitmap.pixel(x: x, y: y) != (255, 255, 255) { ink += 1 }
        }
        #expect(ink == 0)
    }

    @Test(arguments: [
        // column-count with column-width: the count the widths allow, at most column-count.
        ("columns: 3 150pt; column-gap: 0", 3, 200.0),
        ("column-count: 5; column-width: 250pt; column-gap: 0", 2, 300.0),
        // column-width alone: as many as fit, sharing the room.
        ("column-width: 110pt; column-gap: 10pt", 5, 112.0),
        // Wider than the element: one column.
        ("column-width: 700pt", 1, 600.0),
    ])
    func theUsedColumnCountFollowsCSSsPseudoAlgorithm(style: String, count: Int, width: Double) throws {
        let html = "<body style='margin: 0'><div style='\(style)'><p>" + Self.words(400) + "</p></div></body>"
        let (_, pages) = try Self.pages(html)
        let page = try #require(pages.first)
        let columns = page.columns.filter { $0.multicol == 0 }
        #expect(columns.count == count)
        #expect(columns.allSatisfy { abs($0.rect.width - width) < 0.5 }, "\(columns.map(\.rect.width))")
        #expect(Set(page.columns.flatMap(\.lines).map { ($0.rect.x / 10).rounded(.down) }).count == count)
    }

    @Test func aSizedElementSharesItsOwnWidthAndABoxInsideStaysInItsColumn() throws {
        // 200 pt wide: two columns of 100 pt, not halves of the page.
        let (_, pages) = try Self.pages("<body style='margin: 0'><div style='width: 200pt; column-count: 2; column-gap: 0'><p>"
                                        + Self.words(40) + "</p></div></body>")
        let columns = try #require(pages.first).columns.filter { $0.multicol == 0 }
        #expect(columns.map(\.rect.x) == [0, 100] && columns.allSatisfy { $0.rect.width == 100 }, "\(columns.map(\.rect))")
        // A box inside the element holding all its text is drawn in its column (75 px of the
        // 150 px), not across the element.
        let (_, boxed) = try Self.pages("<body style='margin: 0'><div style='width: 150px; column-count: 2; column-gap: 0'>"
                                        + "<div style='height: 30px; background: blue'></div></div></body>")
        let bitmap = try #require(boxed.first).render(scale: 96.0 / 72, cancellation: Cancellation())
        let blue = SizedBoxTests.area(of: SizedBoxTests.blue, in: bitmap)
        #expect(blue.box?.x == 0 && blue.box?.width == 75 && blue.box?.height == 30, "\(String(describing: blue.box))")
    }

    @Test func balancedColumnsEndAtNearlyTheSameHeightAndAutoFillsInTurn() throws {
        // About 13 lines of a 192 pt column, one paragraph: a third of them in each when
        // balanced (no margin between paragraphs or orphans to keep apart).
        let body = "<p>" + Self.words(64) + "</p></div><p>After.</p></body>"
        let (_, balanced) = try Self.pages("<body style='margin: 0'><div style='column-count: 3'>" + body)
        let columns = try #require(balanced.first).columns.filter { $0.multicol == 0 }
        try #require(columns.count == 3)
        // As short as the lines allow: the tallest holds a third of them, rounded up, and the
        // greedy fill at that height leaves the last one at most two short of it.
        let counts = columns.map(\.lines.count)
        #expect(counts.max()! == (counts.reduce(0, +) + 2) / 3, "\(counts)")
        #expect(counts.min()! >= counts.max()! - 2, "\(counts)")
        let feet = columns.map { $0.lines.map(\.rect.maxY).max() ?? 0 }
        #expect(feet.max()! < 150, "the columns are short, not filled to the page's foot: \(feet)")
        // column-fill: auto fills the first column to the page's foot before the next.
        let (_, auto) = try Self.pages("<body style='margin: 0'><div style='column-count: 3; column-fill: auto'>" + body)
        let sequential = try #require(auto.first).columns.filter { $0.multicol == 0 && !$0.lines.isEmpty }
        #expect(sequential.count == 1, "\(sequential.map(\.range))")
    }

    @Test func anElementThatDoesNotFitGoesOnInColumnsOnTheNextPage() throws {
        let html = "<body style='margin: 0'><p>Before.</p><div style='column-count: 2; column-rule: 1pt solid blue'><p>START "
            + Self.words(700) + " END</p></div><p>After.</p></body>"
        let (text, pages) = try Self.pages(html, height: 300)
        #expect(pages.count >= 2)
        let inside = Self.range(of: "START", to: "END", in: text)
        for page in pages.prefix(2) {
            let columns = Self.columnsOfLines(page, in: inside)
            #expect(columns.count == 2, "page \(page.number): \(columns.map(\.x))")
            #expect(page.columns.filter { $0.multicol == 0 }.count == 2)
        }
        // The first page's columns are full: their lines reach its foot.
        let first = Self.columnsOfLines(pages[0], in: inside)
        #expect(first.allSatisfy { $0.lines.map(\.rect.maxY).max()! > 270 })
        // Every character is set once, in order.
        let ranges = pages.flatMap(\.columns).map(\.range)
        #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == text.count)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    }

    @Test func aSpanningBlockInsideCrossesTheElementsColumns() throws {
        let html = "<body style='margin: 0'><div style='column-count: 2; column-gap: 24pt'><p>START " + Self.words(60)
            + " MIDDLE</p><h2 style='column-span: all'>A heading across both columns of the element</h2><p>AGAIN "
            + Self.words(60) + " END</p></div></body>"
        let (text, pages) = try Self.pages(html)
        let page = try #require(pages.first)
        let above = Self.columnsOfLines(page, in: Self.range(of: "START", to: "MIDDLE", in: text))
        let below = Self.columnsOfLines(page, in: Self.range(of: "AGAIN", to: "END", in: text))
        let heading = try #require(page.columns.flatMap(\.lines).first { text.string($0.range).hasPrefix("A heading") })
        #expect(above.count == 2 && below.count == 2)
        #expect(heading.rect.width > 288, "the heading runs across the gap")
        #expect(above.flatMap(\.lines).allSatisfy { $0.rect.maxY <= heading.rect.y + 0.5 })
        #expect(below.flatMap(\.lines).allSatisfy { $0.rect.y >= heading.rect.maxY - 0.5 })
    }

    @Test func verticalTextIsSetAsBefore() throws {
        let paragraph = "<p>" + String(repeating: "縦書きの文章です。", count: 40) + "</p>"
        let (_, plain) = try Self.pages("<body><div>" + paragraph + "</div></body>", vertical: true)
        let (_, multicol) = try Self.pages("<body><div style='column-count: 2'>" + paragraph + "</div></body>", vertical: true)
        #expect(plain.map { $0.columns.map(\.range) } == multicol.map { $0.columns.map(\.range) })
        #expect(plain.flatMap { $0.columns.flatMap(\.lines).map(\.rect) } == multicol.flatMap { $0.columns.flatMap(\.lines).map(\.rect) })
        #expect(multicol.allSatisfy { $0.columns.allSatisfy { $0.multicol == nil } })
    }
}
