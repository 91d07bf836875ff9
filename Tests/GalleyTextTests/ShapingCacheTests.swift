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

/// Shaping an item in bounded runs (`Shaper.runLimit`), each cut where HarfBuzz marks no glyph
/// unsafe to break, gives the glyphs of one HarfBuzz call: on every fixture, with runs of 200
/// characters so that their long items are cut many times, no HarfBuzz call sees more.
@Test(arguments: Fixtures.articles)
func shapingInBoundedRunsMatchesShapingInOneCall(_ article: URL) throws {
    let bytes = try [UInt8](Data(contentsOf: article))
    let parser = MarkupParser(base: BaseStyle())
    let parsed = article.pathExtension == "txt" ? parser.parse(plainText: bytes) : parser.parse(html: bytes, baseURL: nil)
    let result = try ShapingCache.compareRuns(in: parsed.text, fonts: sharedFonts, runLimit: 200)
    #expect(result.differences.isEmpty, "\(result.differences.prefix(5))")
    #expect(result.longestCall <= 200)
}

/// The same on long items of the scripts shaped whole (Arabic and Hebrew right to left,
/// ideographs) and on Latin with ligatures and kerning: each is cut into several runs, and
/// their glyphs, clusters and positions are those of one call.
@Test func shapingInBoundedRunsMatchesShapingInOneCallOnLongItems() throws {
    let text = testText([
        String(repeating: "مرحبا بالعالم، هذه فقرة طويلة بالعربية للتجربة. ", count: 40),
        String(repeating: "שלום עולם, זו פסקה ארוכה בעברית. ", count: 40),
        String(repeating: "这是一个很长的中文段落，用来测试。", count: 60),
        String(repeating: "Office affinity: fifty flying fish, AVA Tea, To Yo. ", count: 40),
        String(repeating: "a", count: 3000),
    ])
    let result = try ShapingCache.compareRuns(in: text, fonts: sharedFonts, runLimit: 256)
    #expect(result.differences.isEmpty, "\(result.differences)")
    #expect(result.split >= 5, "every paragraph's item is longer than a run: \(result.split) of \(result.items)")
    #expect(result.longestCall <= 256)
}
