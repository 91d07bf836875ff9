import Foundation
import GalleyTestSupport
import GalleyText
import Testing

/// The tables of supported HTML elements and CSS properties (docs/articles.md), checked row by
/// row, so the documentation cannot promise what the parser does not do.
@Suite struct SupportedMarkupTests {
    /// The rows of the docs/articles.md table after the marker comment `<!-- name: ...`, as cells.
    static func table(_ name: String) throws -> [[String]] {
        let readme = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/articles.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("<!-- \(name):") })
        return lines[(start + 1)...].prefix { !$0.isEmpty }.dropFirst(2).map { row in
            row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    static func codes(_ cell: String) -> [String] {
        cell.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    func parse(_ html: String) -> ParsedArticle {
        MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
    }

    /// `b` set inside the element, between `a` and `c`, in the context the element needs.
    static func markup(_ tag: String) -> String {
        let inner = "<\(tag)>b</\(tag)>"
        switch tag {
        case "li": return "a<ul>\(inner)</ul>c"
        case "dt", "dd": return "a<dl>\(inner)</dl>c"
        case "legend": return "a<fieldset>\(inner)</fieldset>c"
        case "summary": return "a<details>\(inner)</details>c"
        case "figcaption": return "a<figure>\(inner)</figure>c"
        case "caption", "td", "th": return "a<table>\(inner)</table>c"
        // Text directly in these would be moved before the table, as HTML does: a cell holds it.
        case "table", "tr": return "a<table><tr><td>b</td></tr></table>c"
        case "thead", "tbody", "tfoot": return "a<table><\(tag)><tr><td>b</td></tr></\(tag)></table>c"
        case "head", "title": return "<html><head><title>b</title></head><body>a c</body></html>"
        default: return "a\(inner)c"
        }
    }

    @Test func everyElementIsSetAsTheTableSays() throws {
        let rows = try Self.table("elements")
        #expect(rows.count >= 6)
        for row in rows {
            let kind = row[1]
            for tag in Self.codes(row[0]) {
                let text = parse("<!DOCTYPE html><body>" + Self.markup(tag) + "</body>").text
                let paragraphs = text.paragraphs.map { text.string($0.range).trimmingCharacters(in: .whitespacesAndNewlines) }
                switch kind {
                case "block": #expect(paragraphs.contains("b") || paragraphs.contains { $0.hasSuffix("b") && !$0.contains("a") }, "<\(tag)> is a block: \(paragraphs)")
                case "inline": #expect(paragraphs.contains { $0.contains("abc") }, "<\(tag)> is inline: \(paragraphs)")
                case "not set": #expect(!text.string.contains("b"), "<\(tag)> is not set: \(paragraphs)")
                default: Issue.record("unknown kind \(kind) in docs/articles.md")
                }
            }
        }
    }

    @Test func everyPropertyChangesTheArticleOrIsIgnoredAsTheTableSays() throws {
        let rows = try Self.table("properties")
        #expect(rows.count >= 20)
        // On a list item and on a paragraph: what applies to either shows.
        func article(_ style: String) -> ParsedArticle {
            parse("<!DOCTYPE html><body><ul><li>first item with some text</li><li style='\(style)'>second item, with more text "
                  + "in it</li><li>third</li></ul><p>A paragraph.</p><p style='\(style)'>Another paragraph, with more text in it "
                  + "than one line holds.</p><p>The last one.</p></body>")
        }
        let plain = article("")
        for row in rows {
            let property = try #require(Self.codes(row[0]).first), value = try #require(Self.codes(row[1]).first)
            let styled = article("\(property): \(value)")
            let changed = styled.text != plain.text || styled.writingMode != plain.writingMode
            switch row[2] {
            case "set": #expect(changed, "\(property): \(value) changes nothing")
            case "ignored": #expect(!changed, "\(property): \(value) is listed as ignored but changes the article")
            default: Issue.record("unknown kind \(row[2]) in docs/articles.md")
            }
        }
    }
}
