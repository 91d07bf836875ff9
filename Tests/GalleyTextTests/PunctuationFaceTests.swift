import Foundation
@testable import GalleyText
import Testing

/// Punctuation and spaces after bold, italic or code are set in the surrounding text's face,
/// as browsers set them: `<b>bold</b>, x` has a regular comma, `<code>code</code> (p)` a
/// proportional space and bracket.
@Suite struct PunctuationFaceTests {
    @Test func punctuationAfterAStyledRunTakesTheSurroundingFace() throws {
        let html = "<p>Use <b>dpkg</b> (possibly <i>aptitude</i>); or <code>apt</code> (p), then <b>bold</b>, x.</p>"
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        let text = article.text
        let paragraph = try #require(text.paragraphs.first)
        var itemizer = Itemizer(text: text, fonts: sharedFonts)
        let items = try itemizer.items(of: paragraph.range, direction: .auto).items
        func face(at offset: Int) -> FontFace? {
            guard let item = items.first(where: { $0.range.contains(offset) }), case .text(let face) = item.kind else { return nil }
            return face
        }
        let string = text.string(paragraph.range)
        let scalars = Array(string.unicodeScalars)
        let regular = try #require(face(at: paragraph.range.lowerBound))  // "U" of "Use"
        for (index, scalar) in scalars.enumerated() where ",;() ".unicodeScalars.contains(scalar) {
            // Characters outside the styled words: every punctuation mark and space here is.
            let styled = text.styleRuns.first { $0.range.contains(paragraph.range.lowerBound + index) }?.value
            guard styled?.font.weight == 400, styled?.font.italic == false, styled?.verbatim == false else { continue }
            #expect(face(at: paragraph.range.lowerBound + index) === regular,
                    "'\(scalar)' at \(index) in \"\(string)\" is set in \(face(at: paragraph.range.lowerBound + index)?.family ?? "?")")
        }
    }

    /// The count `galley typeset --lines` reports (`punctuation_in_another_face`): a comma after
    /// bold text is not counted; an opening quote before a Latin word in Japanese text takes
    /// the word's face (it took the ideographs' before it); a comma after ideographs keeps
    /// their face before a Latin word, which Latin face has a comma too: counted; an
    /// ideographic comma, which the Latin face lacks, is not; and without the typography
    /// asking nothing is counted.
    @Test func punctuationInAnotherFaceIsCountedPerLine() throws {
        func counts(_ html: String, asking: Bool = true) throws -> [Int] {
            var layout = column(400)
            layout.typography.countsPunctuationFaces = asking
            let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
            return try typesetAll(article.text, layout, fonts: sharedFonts).flatMap { $0.columns.flatMap(\.lines) }.map(\.punctuationInAnotherFace)
        }
        #expect(try counts("<p>Use <b>dpkg</b>, then <i>aptitude</i>; or <code>apt</code> (p).</p>") == [0])
        #expect(try counts("<p lang=ja>これは \"Debian\" と「Debian」です</p>") == [0])
        #expect(try counts("<p>漢字, word and 漢字; again</p>") == [2])
        #expect(try counts("<p>word\u{3001}word</p>") == [0])
        #expect(try counts("<p>漢字, word</p>", asking: false) == [0])
    }
}
