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
}
