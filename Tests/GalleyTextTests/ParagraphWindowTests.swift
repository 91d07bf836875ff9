import GalleyText
import Testing

// A paragraph longer than the analysis window (64 K characters) is analysed a window at a
// time. The pages must not show it: these tests typeset long generated paragraphs with the
// window forced small, so that a paragraph spans dozens or hundreds of windows, and with no
// window at all (every paragraph analysed whole, as before windows existed), and require the
// same pages: lines, their ranges and boxes, justification, hyphens, every glyph and where it
// is drawn, pictures, and the characters and languages reported missing.

/// What a reader could see of a typesetting, compared exactly: the pages as the layout
/// goldens serialize them (lines, ranges, boxes, glyph x of justified and hyphenated lines),
/// and then every line box, glyph and picture frame to the bit, and the warnings' material.
private struct Typeset: Equatable {
    var golden: [UInt8]
    var columns: [[ColumnFrame]]
    var attachments: [[AttachmentFrame]]
    /// Per page, each glyph: face, size, id, position, orientation (a `Double` prints
    /// exactly, so equal descriptions are equal numbers).
    var glyphs: [[String]]
    var uncovered: [Unicode.Scalar: Int]
    var unhyphenated: Set<String>

    init(_ text: AttributedText, _ layout: ArticleLayout, window: Int) throws {
        let typesetter = try ArticleTypesetter(text: text, layout: layout, fonts: sharedFonts, analysisWindow: window)
        var pages: [TypesetPage] = []
        while let page = try typesetter.nextPage() {
            pages.append(page)
            if pages.count > text.count {
                Issue.record("\(pages.count) pages for \(text.count) characters: the typesetter does not advance")
                break
            }
        }
        golden = LayoutGolden.serialize(pages, text: text)
        columns = pages.map(\.columns)
        attachments = pages.map(\.attachments)
        glyphs = pages.map { page in
            page.placedGlyphs.map { "\(ObjectIdentifier($0.face)) \($0.size) \($0.glyph) \($0.x) \($0.y) \($0.orientation)" }
        }
        uncovered = typesetter.uncoveredCharacters
        unhyphenated = typesetter.unhyphenatedLanguages
    }

    var lines: [LineBox] { columns.flatMap { $0.flatMap(\.lines) } }
}

/// Typesets `text` whole and in windows of each of `windows` characters and requires the
/// same pages; returns the whole typesetting for further checks.
@discardableResult
private func expectSamePagesInWindows(_ text: AttributedText, _ layout: ArticleLayout, windows: [Int],
                                      sourceLocation: SourceLocation = #_sourceLocation) throws -> Typeset {
    let longest = text.paragraphs.map(\.range.count).max() ?? 0
    let whole = try Typeset(text, layout, window: .max)
    #expect(whole.lines.count > 20, "the text fills many lines", sourceLocation: sourceLocation)
    #expect(whole.lines.last?.range.upperBound == text.count, "every character is placed", sourceLocation: sourceLocation)
    for window in windows {
        #expect(longest >= 10 * window, "the longest paragraph spans many windows of \(window)", sourceLocation: sourceLocation)
        let windowed = try Typeset(text, layout, window: window)
        let samePages = windowed.golden == whole.golden, sameDetails = windowed == whole
        #expect(samePages, "pages differ with a window of \(window) characters", sourceLocation: sourceLocation)
        if samePages {
            #expect(sameDetails, "line boxes, glyphs or warnings differ with a window of \(window) characters",
                    sourceLocation: sourceLocation)
        } else if let (a, b) = zip(windowed.lines, whole.lines).first(where: { $0 != $1 }) {
            Issue.record("first differing line: \(a.range) \"\(text.string(a.range))\" against \(b.range) \"\(text.string(b.range))\"",
                         sourceLocation: sourceLocation)
        }
    }
    return whole
}

@Test(arguments: LongParagraphSample.all)
func longParagraphsSetTheSamePagesInWindows(sample: LongParagraphSample) throws {
    try expectSamePagesInWindows(sample.text, sample.layout, windows: sample.windows)
}

@Test func theWindowSamplesHyphenateJustifyAndCountMissingCharacters() throws {
    // What the samples are for: lines that end in hyphens and lines spread to the measure,
    // and a character no font has, counted once wherever windows overlap.
    let sample = try #require(LongParagraphSample.all.first)
    let whole = try Typeset(sample.text, sample.layout, window: .max)
    let windowed = try Typeset(sample.text, sample.layout, window: sample.windows[0])
    #expect(whole.lines.contains(where: \.isHyphenated) && whole.lines.contains(where: \.isJustified))
    let missing = sample.text.scalars.filter { $0 == "\u{E000}" }.count
    #expect(missing > 10 && whole.uncovered["\u{E000}"] == missing && windowed.uncovered["\u{E000}"] == missing)
}

@Test func optimalBreakingPlansParagraphsUpToItsLimitAndBreaksLongerOnesGreedily() throws {
    // Optimal breaking needs a paragraph analysed at once: up to `OptimalBreaker.maximumLength`
    // (64 K) characters that is done whatever the window, and longer paragraphs are broken
    // greedily, window or not. So the pages are the same in windows.
    let short = LongParagraphSample.paragraph(LongParagraphSample.latinWords, characters: 3_000, seed: 24)
    let long = LongParagraphSample.paragraph(LongParagraphSample.latinWords, characters: 70_000, seed: 25)
    let text = LongParagraphSample.styledText([short, long], styles: LongParagraphSample.styles(language: "en-US"),
                                              paragraphStyle: ParagraphStyle(), seed: 26)
    let optimal = try expectSamePagesInWindows(text, LongParagraphSample.layout(breaking: .optimal), windows: [5_000])
    let greedy = try Typeset(text, LongParagraphSample.layout(), window: .max)
    let shortEnd = text.paragraphs[0].range.upperBound
    let optimalShort = optimal.lines.filter { $0.range.upperBound <= shortEnd }.map(\.range)
    #expect(optimalShort != greedy.lines.filter { $0.range.upperBound <= shortEnd }.map(\.range),
            "the short paragraph is broken by the plan, not greedily")
    #expect(optimal.lines.filter { $0.range.lowerBound >= shortEnd }.map(\.range)
        == greedy.lines.filter { $0.range.lowerBound >= shortEnd }.map(\.range), "the long paragraph is broken greedily")
}
