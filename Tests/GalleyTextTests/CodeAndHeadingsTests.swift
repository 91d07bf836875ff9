import Foundation
@testable import GalleyText
import Testing

/// Real articles in magazine layouts (justified with a threshold, hyphenated): code keeps its
/// characters and spacing, headings are never justified or hyphenated, and CJK lines take
/// their slack between ideographs, not inside the Latin words among them.
@Suite struct CodeAndHeadingsTests {
    /// A narrow justified, hyphenated English column.
    static func magazine(width: Double = 200) -> ArticleLayout {
        var layout = column(width, threshold: 0.8)
        layout.base.hyphens = .auto
        layout.base.language = "en-US"
        layout.base.fontSize = 10
        return layout
    }

    func typeset(_ html: String, layout: ArticleLayout = magazine()) throws -> (text: AttributedText, lines: [LineBox]) {
        let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
        let pages = try typesetAll(article.text, layout, fonts: sharedFonts)
        return (article.text, pages.flatMap { $0.columns.flatMap(\.lines) })
    }

    /// The lines whose text lies in the first element that holds `marker`.
    func lines(of text: AttributedText, _ lines: [LineBox], holding marker: String) -> [LineBox] {
        let paragraph = text.paragraphs.first { text.string($0.range).contains(marker) }!
        return lines.filter { paragraph.range.contains($0.range.lowerBound) }
    }

    @Test func preformattedTextIsNeverJustifiedNorHyphenatedAndWrapsWithAHangingIndent() throws {
        let code = "def compare(first, second):\n\treturn sorted(list(reversed(bytes(first)))) == sorted(list(reversed(bytes(second)))) or either_of_them_is_configuration_dependent(first, second)\n  -h, --help  show this help message and exit"
        let html = "<p>Some prose before the code, long enough to be justified when it wraps in this narrow column of text.</p>"
            + "<pre>\(code.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;"))</pre>"
        let (text, all) = try typeset(html)
        let pre = lines(of: text, all, holding: "def compare")
        #expect(pre.count > 3, "the long line wraps")
        #expect(pre.allSatisfy { !$0.isJustified && !$0.isHyphenated }, "no preformatted line is justified or hyphenated")
        #expect(all.contains { $0.isJustified }, "the prose is justified, so the layout does justify")
        // The characters are the source's, tabs expanded to the next multiple of 8 columns.
        let set = pre.map { text.string($0.range) }.joined()
        #expect(set.replacingOccurrences(of: "\u{2028}", with: "\n") == code.replacingOccurrences(of: "\t", with: "        "))
        // Lines going on from a wrap are counted and hang: they start further in than the
        // source lines they continue.
        let wrapped = pre.filter(\.isWrappedPreformatted)
        #expect(wrapped.count >= 2)
        let sourceLineStart = pre[0].rect.x
        #expect(wrapped.allSatisfy { $0.rect.x > sourceLineStart + 5 }, "\(wrapped.map(\.rect.x)) vs \(sourceLineStart)")
        #expect(pre.filter { !$0.isWrappedPreformatted }.allSatisfy { abs($0.rect.x - sourceLineStart) < 0.01 })
    }

    /// `preformatted_marker`: each continuation of a wrapped preformatted line starts with the
    /// marker, drawn in its hanging indent where the source line began; the text is unchanged.
    @Test func wrappedPreformattedLinesCarryTheConfiguredMarker() throws {
        let html = "<pre>short line\nsorted(list(reversed(bytes(first)))) == sorted(list(reversed(bytes(second)))) or either_of_them(first)</pre>"
        func marks(_ marker: Unicode.Scalar?) throws -> (continuations: [LineBox], marks: [(x: Double, y: Double)], text: String) {
            var layout = Self.magazine()
            layout.typography.continuationMarker = marker
            let article = MarkupParser(base: layout.base).parse(html: Array(html.utf8), baseURL: nil)
            let pages = try typesetAll(article.text, layout, fonts: sharedFonts)
            let lines = pages.flatMap { $0.columns.flatMap(\.lines) }
            let arrow = pages[0].glyphRuns.first.flatMap { $0.face.glyph(for: "↪") }
            let positions = pages.flatMap { page in
                page.glyphRuns.flatMap { run in zip(run.glyphs, run.positions).filter { $0.0 == arrow }.map(\.1) }
            }
            return (lines.filter(\.isWrappedPreformatted), positions, lines.map { article.text.string($0.range) }.joined())
        }
        let marked = try marks("↪"), plain = try marks(nil)
        #expect(marked.continuations.count >= 2)
        #expect(plain.marks.isEmpty)
        #expect(marked.marks.count == marked.continuations.count)
        for (line, mark) in zip(marked.continuations, marked.marks) {
            #expect(mark.x < line.rect.x - 5, "in the hanging indent, before the line's text")
            #expect(abs(mark.y - line.baseline) < 0.01)
        }
        #expect(marked.text == plain.text && !marked.text.contains("↪"))
    }

    @Test func inlineCodeIsNeitherHyphenatedNorSpread() throws {
        let html = "<p>Typesetting compositors distribute additional spacing between words: call "
            + "<code>compare_configuration_dependencies(a, b)</code> and <code>representation_independent</code> "
            + "before comparing the internationalization representations of the documentation.</p>"
        let (text, all) = try typeset(html, layout: Self.magazine(width: 150))
        #expect(all.contains { $0.isHyphenated }, "the prose is hyphenated, so the layout does hyphenate")
        for line in all where line.isHyphenated {
            let style = text.styleRuns[text.styleRunIndex(at: line.range.upperBound - 1)].value
            #expect(!style.verbatim, "no hyphen inside code: \(text.string(line.range))")
        }
    }

    /// Long identifiers in a narrow column leave lines too loose to justify; code may then
    /// break inside, at a `.` or after `(`, `,`, `_`, with no hyphen and its characters
    /// unchanged, and only where a line would otherwise be loose.
    @Test(arguments: [ArticleLayout.Typography.LineBreaking.greedy, .optimal])
    func inlineCodeBreaksInsideOnlyToSpareALooseLine(breaking: ArticleLayout.Typography.LineBreaking) throws {
        let html = "<p>The function <code>os.path.expanduser(path)</code> replaces a leading tilde in the path with the home "
            + "folder of the user, and <code>subprocess.check_output(arguments)</code> runs a command and returns what it "
            + "printed, as bytes, unless it is asked for text by its <code>universal_newlines</code> argument.</p>"
        func endsInsideCode(_ line: LineBox, _ text: AttributedText) -> Bool {
            let last = line.range.upperBound - 1
            let style = text.styleRuns[text.styleRunIndex(at: last)].value
            return style.verbatim && line.range.upperBound < text.scalars.count && !text.scalars[last].isWhitespaceOrObjectReplacement
                && !text.scalars[line.range.upperBound].isWhitespaceOrObjectReplacement
        }
        var narrow = Self.magazine(width: 220)
        narrow.typography.lineBreaking = breaking
        let (text, all) = try typeset(html, layout: narrow)
        let paragraph = lines(of: text, all, holding: "leading tilde")
        #expect(paragraph.contains { endsInsideCode($0, text) }, "\(paragraph.map { text.string($0.range) })")
        #expect(paragraph.allSatisfy { !$0.isLoose }, "\(paragraph.filter(\.isLoose).map { text.string($0.range) })")
        #expect(!paragraph.contains { $0.isHyphenated && text.styleRuns[text.styleRunIndex(at: $0.range.upperBound - 1)].value.verbatim })
        #expect(paragraph.map { text.string($0.range) }.joined() == text.string(text.paragraphs[0].range))
        // Where the column is wide enough for the words to fill lines, code stays whole.
        var wide = Self.magazine(width: 420)
        wide.typography.lineBreaking = breaking
        let (wideText, wideLines) = try typeset(html, layout: wide)
        #expect(!wideLines.contains { endsInsideCode($0, wideText) }, "\(wideLines.map { wideText.string($0.range) })")
    }

    /// A justified line whose spaces would have to grow past their limit takes the rest
    /// between its letters, up to `max_letter_spacing`, and is flush instead of loose; the
    /// breaks stay where they were; code and scripts whose letters join are never spaced.
    @Test func letterSpacingSparesLooseLinesButNeverSpacesCode() throws {
        let html = "<p style='text-align: justify'>Counterrevolutionaries institutionalized internationalization, "
            + "notwithstanding extraordinarily uncharacteristic misunderstandings, while photographers documented "
            + "disproportionately uncompromising representations of telecommunications infrastructure and "
            + "electroencephalography laboratories everywhere.</p>"
            + "<p style='text-align: justify'><code>configuration_value</code> <code>another_identifier</code> "
            + "<code>third_name_here</code> <code>fourth_value</code> <code>fifth_identifier</code></p>"
        var layout = Self.magazine(width: 150)
        layout.base.hyphens = .manual
        layout.typography.maximumLetterSpacing = 0
        let (text, ragged) = try typeset(html, layout: layout)
        layout.typography.maximumLetterSpacing = 0.04
        let (_, spaced) = try typeset(html, layout: layout)
        #expect(ragged.map(\.range) == spaced.map(\.range), "letter spacing moves no break")
        #expect(ragged.allSatisfy { $0.letterGap == nil })
        let prose = lines(of: text, spaced, holding: "Counterrevolutionaries")
        let letterSpaced = prose.filter { $0.letterGap != nil }
        #expect(!letterSpaced.isEmpty)
        #expect(spaced.count(where: \.isLoose) < ragged.count(where: \.isLoose))
        for line in letterSpaced {
            #expect(line.isJustified && !line.isLoose)
            #expect(abs(line.rect.width - 150) < 0.01, "flush: \(line.rect.width)")
            #expect(line.letterGap! > 0 && line.letterGap! <= 0.04 * 10 + 1e-9)
        }
        // Code's letters never part: a line of one identifier is left ragged.
        let code = lines(of: text, spaced, holding: "configuration_value")
        #expect(code.allSatisfy { $0.letterGap == nil } && code.contains(where: \.isLoose),
                "\(code.map { (text.string($0.range), $0.isLoose, $0.letterGap) })")
        #expect(ParagraphAnalysis.takesLetterGap(after: "a", before: "b"))
        #expect(ParagraphAnalysis.takesLetterGap(after: "ω", before: "3"))
        for (a, b): (Unicode.Scalar, Unicode.Scalar) in [("a", " "), ("a", "\u{AD}"), ("ب", "ت"), ("क", "र"), ("あ", "い"), ("a", "\u{FFFC}")] {
            #expect(!ParagraphAnalysis.takesLetterGap(after: a, before: b), "\(a) \(b)")
        }
    }

    /// Documentation prose in a start-aligned paragraph justified by the threshold: a line is
    /// left with a ragged end mid-paragraph when it is too loose to justify or short of the
    /// threshold, usually beside an identifier that cannot break. Total fit counts either as
    /// the worst line, weighted by its gap, so across a range of column widths it leaves fewer
    /// ragged ends than greedy filling, and less white at them, with the same text.
    @Test func optimalBreakingLeavesFewerAndSmallerRaggedEndsInDocumentation() throws {
        let html = """
            <p>For heterogeneous collections of data where access by name is clearer than access by index, \
            <code>collections.namedtuple()</code> may be a more appropriate choice than a simple tuple object, \
            and <code>typing.NamedTuple</code> adds annotations.</p>
            <p>Set the <code>close_on_exec</code> flag for the new <code>eventfd()</code> file descriptor, and see \
            <code>os.set_inheritable()</code> for the inheritance of descriptors by the child processes that \
            <code>subprocess.Popen</code> and <code>os.posix_spawn()</code> create.</p>
            <p>Note that <code>m.start(group)</code> will equal <code>m.end(group)</code> if the group matched a \
            null string, and that <code>str.removeprefix()</code> returns <code>string[len(prefix):]</code> when \
            the string starts with the prefix.</p>
            """
        func ragged(_ breaking: ArticleLayout.Typography.LineBreaking, width: Double) throws -> (count: Int, gap: Double, text: String) {
            var layout = Self.magazine(width: width)
            layout.typography.lineBreaking = breaking
            let (text, all) = try typeset(html, layout: layout)
            var count = 0, gap = 0.0
            for paragraph in text.paragraphs {
                let own = all.filter { paragraph.range.contains($0.range.lowerBound) }
                for line in own.dropLast() where !line.isJustified {
                    count += 1
                    gap += width - line.rect.width
                }
            }
            return (count, gap, all.map { text.string($0.range) }.joined())
        }
        var greedy = (count: 0, gap: 0.0), optimal = (count: 0, gap: 0.0)
        for width in stride(from: 150.0, through: 250, by: 10) {
            let g = try ragged(.greedy, width: width), o = try ragged(.optimal, width: width)
            #expect(o.text == g.text, "the same text at \(width) pt")
            greedy.count += g.count; greedy.gap += g.gap
            optimal.count += o.count; optimal.gap += o.gap
        }
        #expect(greedy.count > 0, "the sample has lines greedy filling cannot justify")
        #expect(optimal.count < greedy.count, "ragged ends: optimal \(optimal.count), greedy \(greedy.count)")
        #expect(optimal.gap < greedy.gap, "white at ragged ends: optimal \(optimal.gap) pt, greedy \(greedy.gap) pt")
    }

    @Test func headingsAreNeverJustifiedNorHyphenated() throws {
        // Every word fits the column: one wider than its line is cut with a hyphen as the last
        // resort (EmergencyBreakTests), headings too.
        let html = "<h2>An Informal Introduction to Boolean Operations and Comparisons of Typography</h2>"
            + "<p>Some prose after the heading, long enough to be justified when it wraps in this narrow column.</p>"
        let (text, all) = try typeset(html, layout: Self.magazine(width: 160))
        let heading = lines(of: text, all, holding: "Informal")
        #expect(heading.count > 2)
        #expect(heading.allSatisfy { !$0.isJustified && !$0.isHyphenated && !$0.isLoose })
        // An author's `text-align: justify` on the heading itself still justifies it.
        let justifiedHTML = "<h2 style='text-align: justify'>An informal introduction to the operations and the comparisons "
            + "of the typesetting of long headings in narrow columns</h2>"
        let (justifiedText, justifiedLines) = try typeset(justifiedHTML, layout: Self.magazine(width: 240))
        let justifiedHeading = lines(of: justifiedText, justifiedLines, holding: "informal")
        #expect(justifiedHeading.contains { $0.isJustified }, "\(justifiedHeading.map { justifiedText.string($0.range) })")
    }

    /// The slack of a justified Chinese line goes between ideographs and at spaces: the letters
    /// of `Debian` and the digits of `2026` keep their natural spacing.
    @Test func justifiedCJKLinesDoNotLetterSpaceLatinWords() throws {
        var style = TextStyle(font: FontRequest(families: ["Noto Serif CJK SC"]), size: 12)
        style.language = "zh-Hans"
        let string = "排版Debian排版2026年"
        let text = AttributedText(scalars: Array(string.unicodeScalars), styleRuns: [AttributeRun(range: 0..<string.unicodeScalars.count, value: style)],
                                  paragraphs: [AttributeRun(range: 0..<string.unicodeScalars.count, value: ParagraphStyle())], attachments: [])
        var analyzer = ParagraphAnalyzer(text: text, fonts: sharedFonts, maximumBox: (500, 500))
        let analysis = try analyzer.analyze(paragraph: 0)
        let count = string.unicodeScalars.count
        let stretch = analysis.stretch(0, count)
        #expect(stretch.betweenClusters)
        // 排|版 版|D n|排 排|版 版|2 6|年: six places, not the thirteen cluster boundaries.
        #expect(stretch.opportunities == 6)
        let natural = TypesetLine(analysis: analysis, local: 0..<count)
        let spread = TypesetLine(analysis: analysis, local: 0..<count, expansion: .clusters(2))
        #expect(abs(spread.width - natural.width - 12) < 0.01, "2 pt at each of the six places")
    }

    @Test(arguments: [("漢字と仮名の文章です。", "ja"), ("这是一个中文句子，没有假名。", "zh"), ("한국어 문장입니다 漢字.", "ko"), ("Plain English.", nil)])
    func textWithoutALanguageIsSetInTheOneItsScriptSays(_ sentence: String, _ language: String?) {
        let parsed = MarkupParser(base: BaseStyle()).parse(html: Array("<p>\(sentence)</p>".utf8), baseURL: nil)
        #expect(parsed.text.styleRuns.allSatisfy { $0.value.language == language })
        // A language from the layout or the markup wins.
        let given = MarkupParser(base: BaseStyle(language: "zh-Hant")).parse(html: Array("<p>\(sentence)</p>".utf8), baseURL: nil)
        #expect(given.text.styleRuns.allSatisfy { $0.value.language == "zh-Hant" })
        let marked = MarkupParser(base: BaseStyle()).parse(html: Array("<p lang=en>\(sentence)</p>".utf8), baseURL: nil)
        #expect(marked.text.styleRuns.allSatisfy { $0.value.language == "en" })
    }
}

/// `text_autospace`: a quarter em between ideographs or kana and Latin letters or digits,
/// counted in the line's width, so a line stays within its column.
@Test func textAutospaceAddsAQuarterEmAtEachScriptBoundary() throws {
    var style = TextStyle(font: FontRequest(families: ["Noto Serif CJK SC"]), size: 12)
    style.language = "zh-Hans"
    let string = "排版Debian排版2026年"
    let count = string.unicodeScalars.count
    let text = AttributedText(scalars: Array(string.unicodeScalars), styleRuns: [AttributeRun(range: 0..<count, value: style)],
                              paragraphs: [AttributeRun(range: 0..<count, value: ParagraphStyle())], attachments: [])
    func width(autospace: Bool) throws -> Double {
        var typography = ArticleLayout.Typography()
        typography.textAutospace = autospace
        var analyzer = ParagraphAnalyzer(text: text, fonts: sharedFonts, maximumBox: (500, 500), typography: typography)
        let analysis = try analyzer.analyze(paragraph: 0)
        let line = TypesetLine(analysis: analysis, local: 0..<count)
        #expect(abs(line.width - analysis.width(0, count)) < 0.001, "drawn as measured")
        return line.width
    }
    // 版|D, n|排, 版|2, 6|年: four boundaries, 3 pt each at 12 pt.
    #expect(abs(try width(autospace: true) - width(autospace: false) - 12) < 0.001)
}
