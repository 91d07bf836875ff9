import GalleyTestSupport
@testable import GalleyText
import Testing

/// Justification with a threshold, soft hyphens and automatic hyphenation, as a reader of the
/// pages would notice them: flush edges, hyphens where words break and nowhere else, no text
/// lost or repeated.

private let english = """
    Typesetting is the composition of text by means of arranging physical type or its digital equivalents. \
    Stored letters and other symbols are retrieved and ordered according to a language's orthography for \
    visual display. Compositors justified their lines by distributing additional spacing between the words, \
    and when that was not enough they hyphenated the words according to the conventions of the language, \
    which readers accepted as long as consecutive hyphens were rare and the fragments were not too short.
    """

private let german = """
    Die Silbentrennung ist ein wesentlicher Bestandteil des Schriftsatzes, besonders bei schmalen Spalten \
    und im Blocksatz. Donaudampfschifffahrtsgesellschaften veröffentlichen Übersetzungsverzeichnisse \
    gelegentlich in außergewöhnlich umfangreichen Zeitschriftenausgaben.
    """

private let french = """
    La typographie française exige une hyphénation soigneuse : les compositeurs professionnels considéraient \
    anticonstitutionnellement les coupures malheureuses comme des fautes impardonnables dans les ouvrages \
    imprimés, particulièrement dans les colonnes étroites des quotidiens.
    """

/// Russian and Greek: dictionaries in KOI8-R and ISO 8859-7.
private let russian = """
    Типографика — искусство оформления печатного текста средствами набора и вёрстки; переносы слов \
    необходимы в узких колонках газетных публикаций, особенно в продолжительных словосочетаниях и \
    многочисленных терминологических определениях.
    """

private let greek = """
    Η τυπογραφία είναι η τέχνη και η τεχνική της διάταξης των γραμμάτων ώστε να γίνεται ο γραπτός λόγος \
    ευανάγνωστος, ιδιαίτερα στις στενές στήλες των εφημερίδων και των περιοδικών εκδόσεων.
    """

/// Every line of the pages with its column. Typesetting text that yields no line at all is
/// an issue of its own, so checks over the lines cannot pass on nothing.
private func lines(_ pages: [TypesetPage], sourceLocation: SourceLocation = #_sourceLocation) -> [(line: LineBox, column: ColumnFrame)] {
    let all = pages.flatMap { page in page.columns.flatMap { column in column.lines.map { ($0, column) } } }
    if all.isEmpty { Issue.record("the text was set in no line", sourceLocation: sourceLocation) }
    return all
}


private func isLetter(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isAlphabetic }

/// Letters of the word a line ends in before and after the break, soft hyphens not counted.
private func fragments(at offset: Int, in text: AttributedText) -> (before: Int, after: Int) {
    var before = 0, i = offset - 1
    while i >= 0 && (isLetter(text.scalars[i]) || text.scalars[i] == "\u{00AD}") {
        if text.scalars[i] != "\u{00AD}" { before += 1 }
        i -= 1
    }
    var after = 0
    i = offset
    while i < text.count && (isLetter(text.scalars[i]) || text.scalars[i] == "\u{00AD}") {
        if text.scalars[i] != "\u{00AD}" { after += 1 }
        i += 1
    }
    return (before, after)
}

/// The right end of the glyphs drawn on a line's baseline.
private func inkEnd(of line: LineBox, on page: TypesetPage) -> Double? {
    page.placedGlyphs.filter { abs($0.y - line.baseline) < 0.01 && $0.x >= line.rect.x - 0.01 && $0.x <= line.rect.maxX + 0.01 }
        .map { $0.x + $0.face.advance(of: $0.glyph) * $0.size }.max()
}

private func paragraphStyle(_ alignment: TextAlignment) -> ParagraphStyle {
    var style = ParagraphStyle()
    style.alignment = alignment
    return style
}

/// Half a pixel at 150 dpi, in points.
private let halfPixel = 0.5 * 72 / 150

@Test func justifiedLinesEndFlushAtTheMeasureExceptTheLastAndForcedBreaks() throws {
    let text = testText([english + "\u{2028}A forced break ends this line. " + english], paragraphStyle: paragraphStyle(.justify))
    let pages = try typesetAll(text, column(260), fonts: sharedFonts)
    let all = lines(pages)
    #expect(all.count > 8)
    for (index, (line, column)) in all.enumerated() {
        let last = index == all.count - 1
        let forced = text.scalars[line.range.upperBound - 1] == AttributedText.lineSeparator
        if last || forced {
            #expect(!line.isJustified, "line \(index) (\(text.string(line.range))) must not be justified")
            #expect(line.rect.maxX < column.rect.maxX - 1)
        } else if line.isJustified {
            let end = try #require(inkEnd(of: line, on: pages[0]))
            #expect(abs(end - column.rect.maxX) <= halfPixel, "line \(index) ends at \(end), the measure at \(column.rect.maxX)")
            #expect(abs(line.rect.x - column.rect.x) <= halfPixel)
        } else {
            #expect(line.isLoose, "line \(index) of a justified paragraph is neither justified nor counted as loose")
        }
    }
    #expect(all.filter(\.line.isJustified).count > all.count / 2)
}

@Test func theThresholdChoosesWhichStartAlignedLinesAreJustified() throws {
    let text = testText([english, english])
    func justified(_ threshold: Double) throws -> [LineBox] {
        lines(try typesetAll(text, column(240, threshold: threshold), fonts: sharedFonts)).map(\.line).filter(\.isJustified)
    }
    #expect(try justified(1).isEmpty, "a threshold of 1 turns justification off")
    let loose = try justified(0.5), strict = try justified(0.97)
    #expect(!loose.isEmpty)
    #expect(strict.count < loose.count, "a higher threshold justifies fewer lines")
    // Line breaks do not depend on the threshold: the same ranges whenever lines may be
    // justified. Justified, spaces may also shrink, so lines take as much text or more.
    let ranges = { (t: Double) in try lines(typesetAll(text, column(240, threshold: t), fonts: sharedFonts)).map(\.line.range) }
    #expect(try ranges(0.97) == ranges(0.5))
    #expect(try ranges(0.5).count <= ranges(1).count)
}

@Test func centredAndRightAlignedParagraphsAreNeverJustified() throws {
    for alignment in [TextAlignment.center, .right] {
        let text = testText([english], paragraphStyle: paragraphStyle(alignment))
        #expect(try lines(typesetAll(text, column(240, threshold: 0), fonts: sharedFonts)).allSatisfy { !$0.line.isJustified })
    }
}

@Test func aLineOfIdeographsSpreadsItsSlackBetweenCharacters() throws {
    let chinese = "排版是指将文字、图片、图形等可视化信息元素在版面布局上调整位置、大小，使版面布局条理化的过程。「引用」在这里，（括号）也在这里。"
    // A measure that is not a whole number of ideographs leaves slack on every line.
    let text = testText([chinese + chinese], paragraphStyle: paragraphStyle(.justify))
    let pages = try typesetAll(text, column(11 * 12.5), fonts: sharedFonts)
    let justified = lines(pages).filter(\.line.isJustified)
    #expect(justified.count >= 3)
    for (line, column) in justified {
        let end = try #require(inkEnd(of: line, on: pages[0]))
        #expect(abs(end - column.rect.maxX) <= halfPixel, "\(text.string(line.range)) ends at \(end)")
        // The glyphs are evenly spread: every gap between neighbours is the same.
        let xs = pages[0].placedGlyphs.filter { abs($0.y - line.baseline) < 0.01 }.map(\.x).sorted()
        let steps = zip(xs.dropFirst(), xs).map { $0 - $1 }
        #expect((steps.max() ?? 0) - (steps.min() ?? 0) < 0.01, "uneven spacing \(steps)")
    }
}

@Test func aLineWhoseSpacesWouldStretchTooFarStaysRaggedAndIsCounted() throws {
    // Long words in a narrow justified column, no hyphenation: some lines would need their
    // spaces more than tripled.
    let text = testText(["internationalization characteristically incomprehensibilities a interdisciplinary counterrevolutionaries b uncharacteristically"],
                        paragraphStyle: paragraphStyle(.justify))
    let pages = try typesetAll(text, column(150), fonts: sharedFonts)
    let loose = lines(pages).filter(\.line.isLoose)
    #expect(!loose.isEmpty)
    for (line, column) in loose {
        #expect(!line.isJustified)
        #expect(line.rect.maxX < column.rect.maxX - 1, "a loose line is left ragged")
    }
    #expect(pages.reduce(0) { $0 + $1.looseLineCount } == loose.count)
}

@Test func aSoftHyphenShowsAHyphenOnlyWhereTheLineBreaks() throws {
    let word = "extra\u{00AD}ordinarily\u{00AD}long\u{00AD}compound\u{00AD}construction"
    let text = testText(["Here is an \(word) and then \(word) again, with ordinary words around it."])
    let pages = try typesetAll(text, column(150), fonts: sharedFonts)
    let all = lines(pages)
    let hyphenated = all.filter(\.line.isHyphenated)
    #expect(!hyphenated.isEmpty)
    for (line, column) in hyphenated {
        #expect(text.scalars[line.range.upperBound - 1] == "\u{00AD}", "an automatic hyphen without hyphenation turned on")
        #expect(line.rect.maxX <= column.rect.maxX + 0.01, "the hyphen's width was not counted")
    }
    // One visible hyphen glyph per hyphenated line, and none anywhere else.
    let glyphs = pages.flatMap(\.placedGlyphs)
    let face = try #require(glyphs.first?.face)
    let hyphen = try #require(face.glyph(for: "\u{2010}") ?? face.glyph(for: "-"))
    #expect(glyphs.filter { $0.glyph == hyphen }.count == hyphenated.count)
    // Wide enough for everything: no line ends at a soft hyphen, no hyphen is drawn.
    let wide = try typesetAll(text, column(2000), fonts: sharedFonts)
    #expect(wide.flatMap(\.placedGlyphs).filter { $0.glyph == hyphen }.isEmpty)
    // The text is unchanged: the columns still hold the soft hyphens, nothing inserted.
    #expect(pages.flatMap(\.columns).map(\.range).reduce(0) { $0 + $1.count } == text.count)
}

@Test func hyphensNoneIgnoresSoftHyphens() throws {
    let word = "extra\u{00AD}ordinarily\u{00AD}long\u{00AD}compound\u{00AD}construction"
    let text = testText(["Here is an \(word) word."], hyphens: .none)
    let all = lines(try typesetAll(text, column(150), fonts: sharedFonts))
    #expect(all.allSatisfy { !$0.line.isHyphenated && text.scalars[$0.line.range.upperBound - 1] != "\u{00AD}" })
}

@Test(arguments: [("en-US", english), ("de", german), ("fr", french), ("ru", russian), ("el", greek)])
func automaticHyphenationBreaksWordsWithTheLanguagesDictionary(language: String, sample: String) throws {
    let text = testText([sample, sample], language: language, hyphens: .auto)
    var layout = column(130)
    layout.typography.maximumConsecutiveHyphens = 20
    let all = lines(try typesetAll(text, layout, fonts: sharedFonts))
    let hyphenated = all.filter(\.line.isHyphenated)
    #expect(hyphenated.count >= 3, "\(language): \(hyphenated.count) hyphenated lines")
    for (line, _) in hyphenated {
        let break_ = line.range.upperBound
        let (before, after) = fragments(at: break_, in: text)
        #expect(before >= 2 && after >= 3, "\(language): \(text.string(line.range)) leaves \(before) + \(after)")
        #expect(isLetter(text.scalars[break_ - 1]) && isLetter(text.scalars[break_]), "a hyphen after something that is not a letter")
    }
    // Without a dictionary for the language, nothing is hyphenated automatically (in a column
    // every word fits: one wider than its line is cut with a hyphen as the last resort).
    let unknown = testText([sample], language: "xx", hyphens: .auto)
    #expect(lines(try typesetAll(unknown, column(300), fonts: sharedFonts)).allSatisfy { !$0.line.isHyphenated })
}

@Test func aRegionalTagFallsBackToTheLanguagesDictionary() throws {
    // No hyph_en_GB.dic is installed: en-GB takes hyph_en.dic (or another hyph_en_*.dic).
    let text = testText([english], language: "en-GB", hyphens: .auto)
    #expect(lines(try typesetAll(text, column(130), fonts: sharedFonts)).contains { $0.line.isHyphenated })
}

@Test func aParagraphTooLongForTotalFitIsBrokenGreedily() throws {
    let long = Array(repeating: english, count: 60).joined(separator: " ")
    let text = testText([long], language: "en-US", hyphens: .auto)
    #expect(text.scalars.filter { $0 == " " }.count > 4000, "the sample must exceed the opportunity limit")
    func ranges(_ breaking: ArticleLayout.Typography.LineBreaking) throws -> [Range<Int>] {
        var layout = column(150)
        layout.typography.lineBreaking = breaking
        return lines(try typesetAll(text, layout, fonts: sharedFonts)).map(\.line.range)
    }
    #expect(try ranges(.optimal) == ranges(.greedy))
}

@Test func hyphenationRespectsTheConfiguredFragmentsAndSkipsAddressesAndNumbers() throws {
    let tricky = "Visit https://typesetting.example.org/hyphenation/internationalization or write to " +
        "characteristically.unhelpful@example.org about the model XJ2000internationalization, " +
        "then read counterrevolutionaries/internationalization documentation."
    let text = testText([english, tricky], language: "en-US", hyphens: .auto)
    var layout = column(120)
    layout.typography.hyphenateBefore = 4
    layout.typography.hyphenateAfter = 4
    layout.typography.maximumConsecutiveHyphens = 20
    let all = lines(try typesetAll(text, layout, fonts: sharedFonts))
    let hyphenated = all.filter(\.line.isHyphenated)
    #expect(!hyphenated.isEmpty)
    let protected = ["https://typesetting.example.org/hyphenation/internationalization", "characteristically.unhelpful@example.org",
                     "XJ2000internationalization,", "counterrevolutionaries/internationalization"]
    let whole = text.string(0..<text.count)
    for (line, _) in hyphenated {
        let (before, after) = fragments(at: line.range.upperBound, in: text)
        #expect(before >= 4 && after >= 4, "\(text.string(line.range)) leaves \(before) + \(after)")
        for token in protected {
            guard let found = whole.range(of: token) else { Issue.record("missing \(token)"); continue }
            let start = whole.unicodeScalars.distance(from: whole.unicodeScalars.startIndex, to: found.lowerBound)
            let end = start + token.unicodeScalars.count
            #expect(!(start < line.range.upperBound && line.range.upperBound < end), "hyphenated inside \(token)")
        }
    }
}

@Test(arguments: [ArticleLayout.Typography.LineBreaking.greedy, .optimal])
func consecutiveHyphenatedLinesAreLimited(breaking: ArticleLayout.Typography.LineBreaking) throws {
    let text = testText([english, english, english], language: "en-US", hyphens: .auto)
    for limit in [1, 2] {
        var layout = column(110)
        layout.typography.lineBreaking = breaking
        layout.typography.maximumConsecutiveHyphens = limit
        let pages = try typesetAll(text, layout, fonts: sharedFonts)
        var run = 0, longest = 0
        for (line, _) in lines(pages) {
            run = line.isHyphenated ? run + 1 : 0
            longest = max(longest, run)
        }
        #expect(longest <= limit, "\(longest) consecutive hyphenated lines with a limit of \(limit)")
        #expect(pages.reduce(0) { $0 + $1.hyphenatedLineCount } > 0, "nothing hyphenated: the limit was not put to the test")
    }
}

/// Total fit minimizes the sum of the lines' demerits (badness, hyphens, hyphens in a row);
/// the greedy breaks are one of the breakings it considered, so it can only do as well or
/// better, and it places the same text.
@Test func optimalBreakingNeverDoesWorseThanGreedy() throws {
    let text = testText([english, french], language: "en-US", hyphens: .auto, paragraphStyle: paragraphStyle(.justify))
    func demerits(_ breaking: ArticleLayout.Typography.LineBreaking) throws -> (Double, [LineBox]) {
        var layout = column(150)
        layout.typography.lineBreaking = breaking
        layout.typography.maximumConsecutiveHyphens = 20
        let placed = lines(try typesetAll(text, layout, fonts: sharedFonts)).map(\.line)
        var total = 0.0
        for (index, line) in placed.enumerated() {
            total += (10 + line.badness) * (10 + line.badness)
            if line.isHyphenated { total += 50 * 50 }
            if line.isHyphenated, index > 0, placed[index - 1].isHyphenated { total += 3000 }
        }
        return (total, placed)
    }
    let (greedy, greedyLines) = try demerits(.greedy)
    let (optimal, optimalLines) = try demerits(.optimal)
    #expect(optimal <= greedy + 1e-6, "optimal \(optimal) > greedy \(greedy)")
    #expect(optimalLines.map(\.range) != greedyLines.map(\.range), "total fit chose the greedy breaks everywhere; the sample should differ")
    #expect(optimalLines.first?.range.lowerBound == 0 && optimalLines.last?.range.upperBound == text.count)
}

@Test func justifiedHyphenatedTextMatchesItsGolden() throws {
    let text = testText([english, "A soft\u{00AD}hyphenated para\u{00AD}graph\u{00AD}ing ex\u{00AD}am\u{00AD}ple."], language: "en-US",
                        hyphens: .auto, paragraphStyle: paragraphStyle(.justify))
    try LayoutGolden.check("justified-hyphenated-en", try typesetAll(text, column(180), fonts: sharedFonts), text: text)
    let chinese = testText(["排版是指将文字、图片、图形等可视化信息元素在版面布局上调整位置、大小，使版面布局条理化的过程。"],
                           paragraphStyle: paragraphStyle(.justify))
    try LayoutGolden.check("justified-ideographs", try typesetAll(chinese, column(11 * 9.5), fonts: sharedFonts), text: chinese)
}

/// A justified line's spaces may also shrink (to `Framesetter.minimumSpace` of their width), so
/// a line takes one more word rather than stretching; no line is wider than the column and no
/// space narrower than the minimum.
@Test func justifiedSpacesMayShrinkToTheMinimum() throws {
    let text = testText([english, french, russian, greek, english + " " + english], hyphens: .manual, paragraphStyle: paragraphStyle(.justify))
    let shrunk = lines(try typesetAll(text, column(300), fonts: sharedFonts)).map(\.line)
    #expect(shrunk.allSatisfy { $0.rect.width <= 300 + 0.01 }, "no line is wider than the column")
    // Some lines were taken because their spaces shrink: they hold more than fits at natural width.
    var analyzer = ParagraphAnalyzer(text: text, fonts: sharedFonts, maximumBox: (300, 4000))
    var shrunkLines = 0
    for line in shrunk {
        let paragraph = text.paragraphIndex(at: line.range.lowerBound)
        let analysis = try analyzer.analyze(paragraph: paragraph)
        let local = (line.range.lowerBound - analysis.range.lowerBound)..<(line.range.upperBound - analysis.range.lowerBound)
        let natural = analysis.lineWidth(local.lowerBound, local.upperBound)
        if natural > 300 + 0.01 {
            shrunkLines += 1
            #expect(natural - analysis.shrink(local.lowerBound, local.upperBound) <= 300 + 0.01, "shrunk at most to the minimum")
        }
    }
    #expect(shrunkLines > 0)
}

/// A list marker stands outside the text, as in a browser: when an item's line is justified,
/// the space after its bullet keeps its width and the words' spaces take the slack.
@Test(arguments: [("en", "Justified lines of a list item spread their word spaces to the measure and leave the gap after the bullet alone."),
                   ("ja", "日本語の箇条書きの行は両端揃えで文字の間に余白を配分しますが、記号の後の空きはそのままにします。")])
func aJustifiedListItemsMarkerKeepsItsSpace(language: String, item: String) throws {
    let html = "<ul lang=\(language) style='text-align: justify'><li>\(item)</li><li>\(item) \(item)</li><li>Short.</li></ul>"
    let text = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil).text
    let pages = try typesetAll(text, column(200), fonts: sharedFonts)
    let lines = pages.flatMap(\.columns).flatMap(\.lines)
    let glyphs = pages.flatMap(\.placedGlyphs)
    // Each item's first line: bullet, no-break space, first letter.
    let firstLines = lines.filter { text.scalars[$0.range.lowerBound] == "•" }
    #expect(firstLines.count == 3)
    var gaps: [Double] = []
    for line in firstLines {
        let row = glyphs.filter { abs($0.y - line.baseline) < 0.01 }.map(\.x).sorted()
        gaps.append(row[2] - row[0])
    }
    #expect(firstLines.filter(\.isJustified).count == 2, "the two long items' first lines are justified")
    #expect(gaps.allSatisfy { abs($0 - gaps[2]) < 0.01 }, "bullet to first letter: \(gaps) (the last item is not justified)")
}
