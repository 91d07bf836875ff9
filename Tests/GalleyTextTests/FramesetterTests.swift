import GalleyRaster
import GalleyTestSupport
import GalleyText
import Testing

/// Layouts with 1, 2 and 3 columns on pages of different shapes; the last two justify lines
/// at least 60% full, and the text is hyphenated, so the properties hold with both on; the
/// last breaks lines by total fit.
private let layouts: [ArticleLayout] = [(1, 595.0, 842.0, 1.0), (2, 595, 842, 0.6), (3, 842, 595, 0.6)].map { columns, width, height, threshold in
    var layout = ArticleLayout(name: "c\(columns)")
    layout.columns = columns
    layout.pageWidth = width
    layout.pageHeight = height
    layout.typography.justifyThreshold = threshold
    if columns == 3 { layout.typography.lineBreaking = .optimal }
    return layout
}

private let mixedParagraphs = [
    "Typesetting is the composition of text by means of arranging physical type or its digital equivalents. Stored letters and other symbols are retrieved and ordered according to a language's orthography for visual display.",
    "Ελληνικά και Кириллица in one line, with numbers 1234567890 and a dash — then more words to wrap across the measure.",
    "排版是指将文字、图片、图形等可视化信息元素在版面布局上调整位置、大小，使版面布局条理化的过程。「引用」在这里，（括号）也在这里。",
    "日本語の組版では、句読点や括弧類が行頭に来ないように禁則処理を行う。これは読みやすさのためである。",
    "Short.",
]

private func longText() -> AttributedText {
    testText(Array(repeating: mixedParagraphs, count: 12).flatMap { $0 }, language: "en", hyphens: .auto)
}

@Test(arguments: layouts)
func columnRangesTileTheText(layout: ArticleLayout) throws {
    let text = longText()
    let pages = try typesetAll(text, layout, fonts: sharedFonts)
    #expect(pages.count > 1)
    var next = 0
    for page in pages {
        for column in page.columns {
            #expect(column.range.lowerBound == next, "page \(page.number): column starts at \(column.range.lowerBound), expected \(next)")
            var lineNext = column.range.lowerBound
            for line in column.lines {
                #expect(line.range.lowerBound == lineNext)
                lineNext = line.range.upperBound
            }
            #expect(lineNext == column.range.upperBound)
            next = column.range.upperBound
        }
    }
    #expect(next == text.count, "the pages place \(next) of \(text.count) characters")
}

@Test(arguments: layouts)
func linesAndGlyphsStayInsideTheirColumns(layout: ArticleLayout) throws {
    let pages = try typesetAll(longText(), layout, fonts: sharedFonts)
    let tolerance = 0.01
    #expect(pages.count > 1 && pages.allSatisfy { !$0.placedGlyphs.isEmpty && $0.columns.contains { !$0.lines.isEmpty } })
    for page in pages {
        for column in page.columns {
            for line in column.lines {
                #expect(line.rect.x >= column.rect.x - tolerance && line.rect.maxX <= column.rect.maxX + tolerance,
                        "line \(line.range) spans \(line.rect.x)...\(line.rect.maxX), column \(column.rect.x)...\(column.rect.maxX)")
                #expect(line.rect.y >= column.rect.y - tolerance && line.rect.maxY <= column.rect.maxY + tolerance)
            }
        }
        // Every glyph's advance box lies in some column of the page, vertically within it too.
        for glyph in page.placedGlyphs {
            let advance = glyph.face.advance(of: glyph.glyph) * glyph.size
            let inside = page.columns.contains { column in
                glyph.x >= column.rect.x - tolerance && glyph.x + advance <= column.rect.maxX + tolerance
                    && glyph.y > column.rect.y && glyph.y <= column.rect.maxY
            }
            #expect(inside, "glyph \(glyph.glyph) at (\(glyph.x), \(glyph.y)) on page \(page.number) is outside every column")
        }
    }
}

@Test func everyCharacterFindsAFontWhenOneIsInstalled() throws {
    let text = testText(mixedParagraphs + ["עברית מימין לשמאל", "العربية من اليمين", "Ünïcödé ﬁ ligature"])
    let typesetter = try ArticleTypesetter(text: text, layout: layouts[0], fonts: sharedFonts)
    var glyphs = 0
    while let page = try typesetter.nextPage() {
        for glyph in page.placedGlyphs {
            #expect(glyph.glyph != 0, "a missing-glyph box in \(glyph.face.family)")
            glyphs += 1
        }
    }
    #expect(glyphs > 300)
    #expect(typesetter.uncoveredCharacters.isEmpty)
}

@Test func charactersNoFontCoversAreReported() throws {
    let text = testText(["Private use: \u{10FFFC}\u{10FFFD} end."])
    let typesetter = try ArticleTypesetter(text: text, layout: layouts[0], fonts: sharedFonts)
    while try typesetter.nextPage() != nil {}
    #expect(typesetter.uncoveredCharacters == ["\u{10FFFC}": 1, "\u{10FFFD}": 1])
}

/// A font fontconfig lists but HarfBuzz cannot open (a Type 1 font claiming U+F8FF and
/// U+10FFFD) is passed over, asked for by name or met as a fallback: the text is set in the
/// next face, a character nothing else covers is drawn as that face's missing-glyph box and
/// reported. Before, the first character the font claimed failed the article as font-missing.
@Test(arguments: [Fixtures.noGlyphsFontFamily, "DejaVu Serif"])
func aFontWithoutUsableGlyphsIsPassedOver(_ family: String) throws {
    let fonts = try FontLibrary(fontFolders: [Fixtures.noGlyphsFontFolder])
    let text = testText(["Apple \u{F8FF} and \u{10FFFD} end."], family: family)
    let typesetter = try ArticleTypesetter(text: text, layout: layouts[0], fonts: fonts)
    var pages: [TypesetPage] = []
    while let page = try typesetter.nextPage() { pages.append(page) }
    #expect(typesetter.uncoveredCharacters["\u{10FFFD}"] == 1)
    let glyphs = pages.flatMap(\.placedGlyphs)
    #expect(!glyphs.contains { $0.face.family == Fixtures.noGlyphsFontFamily })
    // U+10FFFD's glyph is the missing-glyph box (glyph 0 of a face that can draw it).
    #expect(glyphs.contains { $0.glyph == 0 }, "the missing-glyph box is drawn: \(glyphs.map(\.glyph))")
    #expect(glyphs.count >= text.count - 4, "every character but the spaces is drawn")
}

/// Lines of `text` typeset in one column `width` points wide, as strings.
private func lineStrings(_ text: AttributedText, width: Double) throws -> [String] {
    try typesetAll(text, column(width), fonts: sharedFonts).flatMap { $0.columns.flatMap(\.lines) }.map { text.string($0.range) }
}

@Test func ideographsBreakBetweenCharactersButNeverBeforeClosingPunctuation() throws {
    let paragraph = String(repeating: "排版是指将文字、图片在版面上调整位置。「引用」（括号）！", count: 6)
    let lines = try lineStrings(testText([paragraph], language: "zh-Hans"), width: 100)
    #expect(lines.count > 10)
    for line in lines.dropFirst() {
        let first = line.unicodeScalars.first.map(String.init) ?? ""
        #expect(!"。、」）！，".contains(first), "a line starts with closing punctuation: \(line)")
    }
    for line in lines.dropLast() {
        let last = line.unicodeScalars.last.map(String.init) ?? ""
        #expect(!"「（".contains(last), "a line ends with opening punctuation: \(line)")
    }
}

@Test func noBreakSpaceHoldsWordsTogether() throws {
    let paragraph = (0..<40).map { "\($0)\u{00A0}km" }.joined(separator: " ")
    let lines = try lineStrings(testText([paragraph]), width: 120)
    #expect(lines.count > 3)
    for line in lines {
        #expect(!line.hasSuffix("\u{00A0}") && !line.hasPrefix("km"), "split at a no-break space: \(line.debugDescription)")
    }
}

@Test func forcedLineBreaksEndLines() throws {
    let lines = try lineStrings(testText(["one\u{2028}two\u{2028}\u{2028}three"]), width: 400)
    #expect(lines == ["one\u{2028}", "two\u{2028}", "\u{2028}", "three"])
}

@Test func aWordWiderThanTheColumnIsBrokenInsideNotOverflowing() throws {
    let word = String(repeating: "antidisestablishmentarianism", count: 4)
    let text = testText(["Before \(word) after."])
    let lines = try lineStrings(text, width: 90)
    #expect(lines.count >= 4)
    #expect(lines.joined() == text.string)
    for page in try typesetAll(text, column(90), fonts: sharedFonts) {
        for line in page.columns.flatMap(\.lines) { #expect(line.rect.width <= 90 + 1e-6) }
    }
}

@Test func aColumnTooSmallForOneLineIsAnErrorNotAnEndlessLoop() throws {
    var short = ArticleLayout(name: "short")
    short.pageHeight = 120
    short.inset = .init(top: 54, right: 54, bottom: 60, left: 54)
    let tooShort = #expect(throws: TypesetError.self) { try typesetAll(testText(["Some text."]), short, fonts: sharedFonts) }
    #expect(tooShort?.code == .columnTooSmall)
    var thin = ArticleLayout(name: "thin")
    thin.pageWidth = 112
    thin.inset = .init(all: 54)
    let tooThin = #expect(throws: TypesetError.self) { try typesetAll(testText(["W"], size: 24), thin, fonts: sharedFonts) }
    #expect(tooThin?.code == .columnTooSmall)
}

@Test func alignmentPlacesLinesAtTheRightEdgeOrCentre() throws {
    for alignment in [TextAlignment.right, .center, .left] {
        var style = ParagraphStyle()
        style.alignment = alignment
        let text = testText([String(repeating: "Words of varied length wrap here. ", count: 8)], paragraphStyle: style)
        let page = try #require(try typesetAll(text, layouts[0], fonts: sharedFonts).first)
        let column = page.columns[0].rect
        #expect(page.columns[0].lines.count > 3)
        for line in page.columns[0].lines {
            switch alignment {
            case .right: #expect(abs(line.rect.maxX - column.maxX) < 1e-6)
            case .center: #expect(abs((line.rect.x + line.rect.maxX) / 2 - (column.x + column.maxX) / 2) < 1e-6)
            default: #expect(abs(line.rect.x - column.x) < 1e-6)
            }
        }
    }
}

@Test func rightToLeftParagraphsStartAtTheRightEdge() throws {
    let text = testText(["שלום עולם, זוהי פסקה בעברית שנכתבת מימין לשמאל ויש בה מספיק מילים כדי לשבור שורות רבות בעמודה."])
    // Not justified, so every line, the short last one included, shows where it starts.
    let lines = try #require(try typesetAll(text, column(200), fonts: sharedFonts).first).columns[0]
    #expect(lines.lines.count > 2)
    #expect(lines.lines.last.map { $0.rect.width < lines.rect.width - 20 } == true, "the last line should be short")
    for line in lines.lines { #expect(abs(line.rect.maxX - lines.rect.maxX) < 1e-6) }
}

@Test func paragraphsAreSpacedAndIndentedAsStyled() throws {
    var style = ParagraphStyle()
    style.spaceBefore = 20
    style.firstLineIndent = 30
    let text = testText(["First paragraph.", "Second paragraph."], paragraphStyle: style)
    let lines = try #require(try typesetAll(text, layouts[0], fonts: sharedFonts).first).columns[0].lines
    #expect(lines.count == 2)
    #expect(abs(lines[0].rect.x - (54 + 30)) < 1e-6)
    // The first paragraph of the first page keeps its space before (no break is there, CSS
    // keeps the margin); the next paragraph gets its own.
    #expect(abs(lines[0].rect.y - (54 + 20)) < 1e-6)
    #expect(abs(lines[1].rect.y - lines[0].rect.maxY - 20) < 1e-6)
}

@Test func lineHeightScalesWithTheFontsAndTheMultiplier() throws {
    var single = ParagraphStyle()
    single.lineHeight = 1
    var double = ParagraphStyle()
    double.lineHeight = 2
    let one = try #require(try typesetAll(testText(["Line"], paragraphStyle: single), layouts[0], fonts: sharedFonts).first).columns[0].lines[0]
    let two = try #require(try typesetAll(testText(["Line"], paragraphStyle: double), layouts[0], fonts: sharedFonts).first).columns[0].lines[0]
    #expect(abs(two.rect.height - 2 * one.rect.height) < 1e-6)
    // DejaVu Serif's ascender + descender is about 1.16 em.
    #expect(one.rect.height > 11 * 1.1 && one.rect.height < 11 * 1.25)
    let cjk = try #require(try typesetAll(testText(["漢字"], paragraphStyle: single), layouts[0], fonts: sharedFonts).first).columns[0].lines[0]
    #expect(cjk.rect.height > one.rect.height, "a line of CJK takes the CJK font's taller metrics")
}

@Test func anImageWiderThanTheIndentedMeasureIsScaledToIt() throws {
    var style = ParagraphStyle()
    style.startIndent = 200
    // The attachment box of testText is 200 × 100 pt; the column is 292 pt from x = 54, the
    // indent cut to half of it (146 pt), so the measure is 146 pt from x = 200. A picture
    // fits the content box of its block, as one with `max-width: 100%` does in a browser,
    // aspect ratio kept, and the text goes on after it. (Before, it kept its 200 pt and was
    // set at the column's width.)
    let text = testText(["Indented: \u{FFFC} after."], paragraphStyle: style)
    var layout = ArticleLayout(name: "indented")
    layout.pageWidth = 400
    let pages = try typesetAll(text, layout, fonts: sharedFonts)
    let frame = try #require(pages.first?.attachments.first)
    #expect(abs(frame.rect.width - 146) < 1e-6 && abs(frame.rect.height - 73) < 1e-6, "\(frame.rect)")
    #expect(abs(frame.rect.x - 200) < 1e-6 && frame.rect.maxX <= 54 + 292 + 1e-6, "\(frame.rect)")
    #expect(pages.flatMap(\.columns).last?.range.upperBound == text.count)
}
