import Foundation
import GalleyTestSupport
@testable import GalleyText
import Testing

/// Where columns end: a heading is never a column's last line, a paragraph broken across
/// columns leaves `orphans` lines before the break and carries `widows` after it, forced
/// breaks start a new column or page; when a rule cannot be kept without emptying a column it
/// yields and the page counts it. Nothing is lost or set twice.
@Suite struct BreakRulesTests {
    static let words = ["column", "measure", "galley", "proof", "leading", "kerning", "the", "a", "of", "and", "type",
                        "paragraph", "heading", "widow", "orphan", "line", "page", "set", "in", "to"]

    /// An article of headings and paragraphs of 1 to 12 lines' worth of words.
    static func article(seed: UInt64, sections: Int = 30) -> String {
        var generator = SplitMix(seed: seed)
        var html = "<!DOCTYPE html><html lang=en><body>"
        for section in 0..<sections {
            html += "<h2>Section \(section) heading</h2>"
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let count = Int.random(in: 3...90, using: &generator)
                html += "<p>" + (0..<count).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ") + ".</p>"
            }
        }
        return html + "</body></html>"
    }

    static func layouts() -> [ArticleLayout] {
        var greedy = ArticleLayout(name: "greedy")
        (greedy.pageWidth, greedy.pageHeight, greedy.columns) = (420, 300, 2)
        greedy.inset = .init(all: 20)
        greedy.base.fontSize = 10
        var optimal = greedy
        optimal.typography.lineBreaking = .optimal
        optimal.typography.justifyThreshold = 0.8
        var vertical = greedy
        vertical.writingMode = .verticalRL
        vertical.base.language = "ja"
        return [greedy, optimal, vertical]
    }

    @Test(arguments: layouts())
    func headingsStayWithTheirTextAndParagraphsBreakWithTwoLinesEachSide(_ layout: ArticleLayout) throws {
        for seed: UInt64 in [1, 2, 3] {
            let article = MarkupParser(base: layout.base).parse(html: Array(Self.article(seed: seed).utf8), baseURL: nil)
            let text = article.text
            let pages = try typesetAll(text, layout, fonts: sharedFonts)
            let columns = pages.flatMap(\.columns).filter { !$0.lines.isEmpty }
            // Columns hold many lines here: every rule can be kept.
            #expect(pages.reduce(0) { $0 + $1.breakExceptionCount } == 0)
            // Nothing lost or set twice.
            var next = 0
            for column in pages.flatMap(\.columns) {
                #expect(column.range.lowerBound == next)
                next = column.range.upperBound
            }
            #expect(next == text.count)
            var broken = 0
            for (index, column) in columns.enumerated().dropLast() {
                let last = column.lines.last!
                let paragraph = text.paragraphs[text.paragraphIndex(at: last.range.lowerBound)]
                #expect(paragraph.value.breakAfter != .avoid,
                        "seed \(seed): a heading ends column \(index): \(text.string(paragraph.range))")
                // A paragraph going on in the next column: two lines here, two there.
                let nextColumn = columns[index + 1]
                guard last.range.upperBound < paragraph.range.upperBound else { continue }
                broken += 1
                let here = column.lines.filter { paragraph.range.contains($0.range.lowerBound) }.count
                let there = nextColumn.lines.filter { paragraph.range.contains($0.range.lowerBound) }.count
                let total = here + there
                #expect((here >= 2 && there >= 2) || total < 4, "seed \(seed): \(here) lines here, \(there) there")
            }
            #expect(broken > 3, "paragraphs do break across columns in this test: \(broken)")
        }
    }

    @Test func forcedBreaksStartANewColumnOrPage() throws {
        var layout = ArticleLayout(name: "two")
        (layout.pageWidth, layout.pageHeight, layout.columns) = (420, 600, 2)
        let html = "<p>First paragraph.</p><p style='break-before: column'>In the second column.</p>"
            + "<p style='page-break-before: always'>On the second page.</p><div style='break-after: page'><p>Still page two.</p></div>"
            + "<p>Page three.</p>"
        let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        #expect(pages.count == 3)
        func columnText(_ page: Int, _ column: Int) -> String {
            guard page < pages.count, column < pages[page].columns.count else { return "" }
            return text.string(pages[page].columns[column].range)
        }
        #expect(columnText(0, 0).contains("First") && !columnText(0, 0).contains("second column"))
        #expect(columnText(0, 1).contains("In the second column"))
        #expect(columnText(1, 0).contains("On the second page") && columnText(1, 0).contains("Still page two"))
        #expect(columnText(2, 0).contains("Page three"))
    }

    /// A heading with too little room below it goes to the next column; one that cannot (a
    /// column that holds only headings) stays and the page counts the exception.
    @Test func aRuleThatWouldEmptyAColumnYieldsAndIsCounted() throws {
        var layout = ArticleLayout(name: "short")
        (layout.pageWidth, layout.pageHeight) = (300, 120)
        layout.inset = .init(all: 10)
        let html = (1...8).map { "<h3>Heading number \($0)</h3>" }.joined() + "<p>Finally some text.</p>"
        let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        #expect(pages.reduce(0) { $0 + $1.breakExceptionCount } > 0)
        #expect(pages.last.map { text.string($0.range).contains("Finally") } == true)
    }

    /// Two columns 260 pt deep, 10 pt type: about 18 lines a column.
    static func shortTwoColumns() -> ArticleLayout {
        var layout = ArticleLayout(name: "two")
        (layout.pageWidth, layout.pageHeight, layout.columns) = (420, 300, 2)
        layout.inset = .init(all: 20)
        layout.base.fontSize = 10
        return layout
    }

    /// A heading at a column's top followed by a table that does not fit below it but would
    /// fit a fresh column: the heading cannot go with the table without emptying its column,
    /// so the table starts below it, cut at the column's foot, rather than leaving the heading
    /// alone in the column (Debian's DocBook pages put a note's table after a heading).
    @Test func aTableAfterAHeadingThatCannotMoveStartsBelowIt() throws {
        let layout = Self.shortTwoColumns()
        var cut = 0
        // One row (a note's icon and text, as one group) from lower than the room below the
        // heading to taller than a column: some fit a fresh column but not below the heading.
        for lines in 8...24 {
            let cell = (1...lines).map { "Line \($0) of the note" }.joined(separator: "<br>")
            let html = "<p>Intro.</p><h3 style='break-before: column'>A heading</h3><table><tr><td>!</td><td>\(cell)</td></tr></table><p>After.</p>"
            let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
            let pages = try typesetAll(text, layout, fonts: sharedFonts)
            let columns = pages.flatMap(\.columns).filter { !$0.lines.isEmpty || !$0.tables.isEmpty }
            let headed = try #require(columns.first { text.string($0.range).contains("A heading") })
            #expect(!headed.tables.isEmpty, "\(lines) lines: the heading is alone in its column")
            if let table = headed.tables.first, !text.string(headed.range).contains("Line \(lines) of") { cut += 1 }
            var next = 0
            for column in pages.flatMap(\.columns) {
                #expect(column.range.lowerBound == next)
                next = column.range.upperBound
            }
            #expect(next == text.count)
            #expect(text.string(pages.last!.range).contains("After."))
        }
        #expect(cut > 0, "some table is cut below the heading")
    }

    /// DocBook's table title (`<p class="title"><b>Table 7.1. …</b></p>` before the table's
    /// `div`) and a lead-in ending in a colon stay with their table: never the last line of a
    /// column whose table starts in the next one. A sentence before a table may stay behind.
    @Test func aTablesTitleIsNotLeftAtAColumnsFoot() throws {
        var layout = Self.shortTwoColumns()
        layout.columnFill = .auto  // Columns filled in turn: the last page is not rebalanced.
        var titlesAtFoot = 0, sentencesAtFoot = 0
        let rows = (1...6).map { "<tr><td>package\($0)</td><td>what it does</td></tr>" }.joined()
        for lines in 10...24 {
            let intro = (1...lines).map { "Line \($0) of text." }.joined(separator: "<br>")
            for (title, isTitle) in [("<p class=title><b>Table 7.1. List of packages</b></p>", true),
                                     ("<p>The packages are:</p>", true), ("<p>Packages follow.</p>", false)] {
                let html = "<p>\(intro)</p><div class=table>\(title)<div class=table-contents><table>\(rows)</table></div></div><p>After.</p>"
                let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
                let pages = try typesetAll(text, layout, fonts: sharedFonts)
                let columns = pages.flatMap(\.columns)
                for column in columns {
                    guard let last = column.lines.last, column.tables.isEmpty else { continue }
                    let line = text.string(last.range)
                    if line.hasPrefix("Table 7.1") || line.hasPrefix("The packages") { titlesAtFoot += 1 }
                    if line.hasPrefix("Packages follow") && !isTitle { sentencesAtFoot += 1 }
                }
            }
        }
        #expect(titlesAtFoot == 0)
        #expect(sentencesAtFoot > 0, "the intro's lengths bring the title to a column's foot")
    }

    /// `break-inside: avoid` on a block longer than a column (Debian's DocBook style sheet
    /// puts it on every `pre.screen`): the block breaks after all, counted as an exception,
    /// and still leaves two lines on each side of the break.
    @Test func aBlockTooLongToKeepWholeStillKeepsItsWidowsAndOrphans() throws {
        var layout = Self.shortTwoColumns()
        layout.columnFill = .auto  // Columns filled in turn: the last page is not rebalanced.
        var breaks = 0
        for count in 20...60 {
            let body = (1...count).map { "  symbol_\($0)@Base 1.\($0)" }.joined(separator: "\n")
            let html = "<p>Intro.</p><pre style='break-inside: avoid; background: #eee; padding: 0.5em 1em; white-space: pre-wrap'>\(body)\n...</pre><p>After.</p>"
            let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
            let pages = try typesetAll(text, layout, fonts: sharedFonts)
            let pre = try #require(text.paragraphs.first { text.string($0.range).hasPrefix("  symbol_1@") })
            let counts = pages.flatMap(\.columns).map { $0.lines.count { pre.range.contains($0.range.lowerBound) } }.filter { $0 > 0 }
            #expect(counts.count > 1, "\(count) lines: the block is longer than a column")
            #expect(counts.allSatisfy { $0 >= 2 }, "\(count) lines: \(counts) lines of the block in its columns")
            #expect(pages.reduce(0) { $0 + $1.breakExceptionCount } >= counts.count - 1, "breaking it is counted")
            breaks += counts.count - 1
        }
        #expect(breaks > 0)
    }

    /// A table row cut at a column's foot does not leave a cell's paragraph with one line
    /// there (DocBook's notes are tables: `Note`, then the note's text, cut after its first
    /// line); the row starts the next column instead.
    @Test func aCutTableRowLeavesNoOrphanInItsCells() throws {
        var layout = Self.shortTwoColumns()
        layout.columnFill = .auto
        let note = (1...30).map { "Sentence \($0) of the note goes on for a while." }.joined(separator: " ")
        var cut = 0
        for intro in 1...18 {
            let paragraphs = (1...intro).map { "<p>Intro line \($0).</p>" }.joined()
            let html = paragraphs + "<table><tr><td rowspan=2>!</td><th>Note</th></tr><tr><td><p>\(note)</p></td></tr></table><p>After.</p>"
            let text = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil).text
            let pages = try typesetAll(text, layout, fonts: sharedFonts)
            let paragraph = try #require(text.paragraphs.first { text.string($0.range).hasPrefix("Sentence 1 ") })
            // Lines of the note's paragraph in each column that holds some (cells' lines are
            // the column's lines).
            let counts = pages.flatMap(\.columns).map { column in
                column.lines.count { paragraph.range.contains($0.range.lowerBound) }
            }.filter { $0 > 0 }
            #expect(counts.reduce(0, +) > 0)
            if counts.count > 1 { cut += 1 }
            #expect(counts.dropLast().allSatisfy { $0 >= 2 }, "\(intro) intro lines: the note's lines by column \(counts)")
            #expect(text.string(pages.last!.range).contains("After."))
        }
        #expect(cut > 0, "the note is cut across columns in some of these")
    }
}
