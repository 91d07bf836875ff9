import Foundation
@testable import GalleyText
import Testing

/// A word already joined by a hyphen breaks at that hyphen only (`update-index`, not
/// `up-date-index`), except in German, where hyphenating compounds further is customary.
@Suite struct HyphenatedWordTests {
    func lines(_ html: String, language: String, width: Double) throws -> [(text: String, hyphenated: Bool)] {
        var layout = column(width, threshold: 0.8)
        layout.base.hyphens = .auto
        layout.base.language = language
        layout.base.fontSize = 10
        let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
        return try typesetAll(article.text, layout, fonts: sharedFonts).flatMap { $0.columns.flatMap(\.lines) }
            .map { (article.text.string($0.range), $0.isHyphenated) }
    }

    /// The token a hyphenated line ends inside: from its last space to its end.
    func lastToken(_ line: String) -> String {
        String(line.trimmingCharacters(in: .whitespaces).split(separator: " ").last ?? "")
    }

    @Test func englishHyphenatedWordsAreNotHyphenatedAgain() throws {
        let words = "Run git update-index with the SQL-standard behaviour and well-documented read-only co-ordination everywhere"
        let set = try lines("<p>\(Array(repeating: words, count: 6).joined(separator: " "))</p>", language: "en-US", width: 110)
        let hyphenated = set.filter(\.hyphenated)
        #expect(!hyphenated.isEmpty, "the column is narrow enough to hyphenate plain words")
        for line in hyphenated {
            #expect(!lastToken(line.text).contains("-"), "a hyphenated word hyphenated again: \(line.text)")
        }
    }

    @Test func germanCompoundsJoinedByAHyphenAreStillHyphenated() throws {
        let words = "Das Paketverwaltungs-System und die Konfigurations-Datenbank der Installations-Programme"
        let set = try lines("<p>\(Array(repeating: words, count: 6).joined(separator: " "))</p>", language: "de", width: 110)
        #expect(set.contains { $0.hyphenated && lastToken($0.text).contains("-") }, "\(set.map(\.text))")
    }

    /// German capitalises nouns: a lower-case word alone in quotation marks (`»preinst«`) is a
    /// name or an English word, not to be cut with German patterns (`»pr-einst«`); a German
    /// noun in quotation marks still is.
    @Test func aQuotedLowerCaseWordInGermanIsNotHyphenated() throws {
        let words = "Die Dateien »preinst«, »postinst« und »conffiles« sowie »maintainer« werden im »Paketverwaltungssystem« verarbeitet"
        var hyphenated: [String] = []
        // Across widths, every word comes to a line's end somewhere.
        for width in stride(from: 100.0, through: 220, by: 6) {
            let set = try lines("<p>\(Array(repeating: words, count: 3).joined(separator: " "))</p>", language: "de", width: width)
            hyphenated += set.filter(\.hyphenated).map { lastToken($0.text) }
        }
        #expect(hyphenated.contains { $0.hasPrefix("»Pa") }, "\(hyphenated)")
        for token in hyphenated {
            #expect(!["»pr", "»po", "»co", "»ma"].contains { token.hasPrefix($0) }, "a quoted name hyphenated: \(token)")
        }
    }
}
