import Foundation
@testable import GalleyText
import Testing

/// CSS `line-break`: by default (`strict`, the rule for Japanese books) no line starts with a
/// small kana or the prolonged sound mark; `normal` lets them; `anywhere` breaks between any two
/// characters.
@Suite struct LineBreakStrictnessTests {
    static let katakana = "第3章 Debian ディストリビューションの選択とインストールのチェックリストとバージョンアップのフォローアップ。"

    func lineStarts(_ html: String, vertical: Bool = false, width: Double = 96) throws -> [String] {
        var layout = column(width)
        if vertical {
            layout = ArticleLayout(name: "tate")
            layout.writingMode = .verticalRL
            layout.pageWidth = 300
            layout.pageHeight = width + 72
            layout.inset = .init(all: 36)
        }
        layout.base.fontSize = 10
        layout.base.language = "ja"
        layout.base.fontFamily = "Noto Sans CJK JP"
        let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
        let lines = try typesetAll(article.text, layout, fonts: sharedFonts).flatMap { $0.columns.flatMap(\.lines) }
        return lines.map { article.text.string($0.range) }
    }

    func startsWithSmallKana(_ line: String) -> Bool {
        line.unicodeScalars.first.map { LineBreaks.isConditionalJapaneseStarter($0.value) } ?? false
    }

    @Test(arguments: [false, true])
    func noLineStartsWithASmallKanaByDefault(vertical: Bool) throws {
        let text = Array(repeating: Self.katakana, count: 8).joined()
        let strict = try lineStarts("<p>\(text)</p>", vertical: vertical)
        #expect(strict.count > 10)
        #expect(!strict.dropFirst().contains(where: startsWithSmallKana), "\(strict.filter(startsWithSmallKana))")
        // The same text under line-break: normal does start lines with them: the rule is what
        // keeps them off.
        let normal = try lineStarts("<p style=\"line-break: normal\">\(text)</p>", vertical: vertical)
        #expect(normal.dropFirst().contains(where: startsWithSmallKana))
    }

    @Test func anywhereBreaksInsideWordsWithoutAHyphen() throws {
        let html = "a bb Paketverwaltungssystemkonfigurationsdatei"
        let strict = try lineStarts("<p lang=\"en\">\(html)</p>", width: 120)
        let anywhere = try lineStarts("<p lang=\"en\" style=\"line-break: anywhere\">\(html)</p>", width: 120)
        #expect(strict.first?.trimmingCharacters(in: .whitespaces) == "a bb", "\(strict)")
        #expect(anywhere.first?.hasPrefix("a bb Paket") == true, "the first line is filled from the long word: \(anywhere)")
    }
}
