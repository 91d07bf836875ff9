import Foundation
import GalleyTestSupport
import GalleyText
import Testing

/// Shaping word by word through the cache gives the glyphs that shaping whole items gives, on
/// every fixture and on text made to tempt it: ligatures and kerning inside words, marks and
/// joiners beside spaces, runs of spaces, no-break spaces, Greek and Cyrillic, right-to-left
/// text and ideographs (which are shaped whole).
@Test(arguments: Fixtures.articles)
func shapingWordByWordMatchesShapingWholeItems(_ article: URL) throws {
    let bytes = try [UInt8](Data(contentsOf: article))
    let parser = MarkupParser(base: BaseStyle())
    let parsed = article.pathExtension == "txt" ? parser.parse(plainText: bytes) : parser.parse(html: bytes, baseURL: nil)
    let result = try ShapingCache.compareWithWholeItems(in: parsed.text, fonts: sharedFonts)
    #expect(result.differences.isEmpty, "\(result.differences.prefix(5))")
    #expect(result.items > 0)
}

@Test func shapingWordByWordMatchesShapingWholeItemsOnTemptingText() throws {
    let text = testText([
        "Office affinity: fifty flying fish, AVA Tea. “Quoted,” she said — V. W. Yates, T. Y. L.",
        "Cafe\u{301} naïve e\u{301} \u{301}mark after a space, a\u{200D} b joiner, x\u{FE0F} y selector.",
        "Several   spaces,\u{00A0}no-break\u{00A0}spaces and soft\u{00AD}hyphens in one line of text.",
        "Ελληνικά γράμματα και Кириллица: съешь же ещё этих мягких французских булок.",
        "שלום עולם and مرحبا بالعالم in a left-to-right paragraph; 漢字とかなも。",
    ])
    let result = try ShapingCache.compareWithWholeItems(in: text, fonts: sharedFonts)
    #expect(result.differences.isEmpty, "\(result.differences)")
    // Not vacuous: most items went word by word, and some did not.
    #expect(result.byWord > 0 && result.byWord < result.items, "\(result.byWord) of \(result.items) items by word")
}
