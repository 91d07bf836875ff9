import Foundation
@testable import GalleyText
import Testing

/// A word wider than its line is the last resort's: a no-break space that fits is taken first
/// (`Chapter 7. Basics`, DocBook's headings), else the word is cut between two letters with a
/// hyphen shown, and counted for a warning; code is cut without one.
@Suite struct EmergencyBreakTests {
    func lines(_ html: String, width: Double, marker: Unicode.Scalar? = nil) throws -> (lines: [(text: String, hyphenated: Bool)], cut: Int) {
        var layout = column(width)
        layout.typography.continuationMarker = marker
        layout.base.fontSize = 10
        layout.base.language = "en"
        let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts)
        var pages: [TypesetPage] = []
        while let page = try typesetter.nextPage() { pages.append(page) }
        let all = pages.flatMap { $0.columns.flatMap(\.lines) }.map { (article.text.string($0.range), $0.isHyphenated) }
        return (all, typesetter.wordsCut)
    }

    @Test func aHeadingJoinedByNoBreakSpacesBreaksAtOneRatherThanInsideAWord() throws {
        let (set, cut) = try lines("<h1>Chapter&#160;7.&#160;Basics&#160;of&#160;packages</h1>", width: 150)
        #expect(set.count >= 2)
        for line in set.dropLast() {
            #expect(line.text.hasSuffix("\u{00A0}"), "the line ends at a no-break space: \(set.map(\.text))")
        }
        #expect(cut == 0)
    }

    @Test func aWordWiderThanTheColumnIsCutWithAHyphen() throws {
        let (set, cut) = try lines("<p>Paketverwaltungssystemkonfigurationsdatei</p>", width: 60)
        #expect(set.count >= 3)
        for line in set.dropLast() {
            #expect(line.hyphenated, "a cut word shows a hyphen: \(set.map(\.text))")
        }
        #expect(cut == set.count - 1)
    }

    @Test func codeIsCutWithoutAHyphen() throws {
        let (set, _) = try lines("<p><code>pd_pagesize_version_and_more_of_it</code></p>", width: 60)
        #expect(set.count >= 2)
        #expect(set.allSatisfy { !$0.hyphenated }, "\(set.map(\.text))")
    }

    /// Code cut inside a narrow table cell (PostgreSQL's `pd_pagesize_version`) shows the
    /// layout's continuation mark at the end of each cut line, where a word would show a hyphen.
    @Test func codeCutShowsTheLayoutsContinuationMark() throws {
        let html = "<table><tr><td><code>pdpagesizeversionandmoreofthis</code></td><td>x</td></tr></table>"
        let (set, _) = try lines(html, width: 120, marker: "\u{21AA}")
        let code = set.filter { $0.text != "x" }
        #expect(code.count >= 2)
        for line in code.dropLast() {
            #expect(line.hyphenated, "a cut line of code shows the mark: \(set.map(\.text))")
        }
        #expect(code.last.map { !$0.hyphenated } ?? false)
        // A preformatted block shows the marker at its continuations' start, not at the cut.
        let pre = try lines("<pre>pd_pagesizeversionandmoreofit</pre>", width: 60, marker: "\u{21AA}")
        #expect(pre.lines.count >= 2)
        #expect(pre.lines.allSatisfy { !$0.hyphenated }, "\(pre.lines.map(\.text))")
    }
}
