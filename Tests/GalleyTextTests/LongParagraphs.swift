import GalleyTestSupport
import GalleyText

// Long generated paragraphs for the tests of analysis windows (`ParagraphWindowTests`,
// `ParagraphAnalysisTests`, `ParagraphBidiTests`): every kind of text a window must cut
// without changing a line, each with the layout it is set in.

/// The words, styles and layouts the samples are made of.
extension LongParagraphSample {
    /// Latin words that break, hyphenate, kern and ligate in different ways: soft hyphens,
    /// decomposed accents, "fi" and "ffl", kerning pairs, hard hyphens, no-break spaces,
    /// punctuation that may not start a line, an address, numbers, a picture.
    static let latinWords = [
        "typesetting", "composition", "of", "the", "and", "a", "justification", "internationalization",
        "counterrevolutionaries", "office", "affluent", "fjord", "AVATAR", "WAVY", "Tokyo", "naïve", "cafe\u{301}",
        "co\u{00AD}op\u{00AD}er\u{00AD}a\u{00AD}tion", "well-known", "(parenthesised)", "“quoted,”", "end.", "—", "2026",
        "3.14159", "https://example.org/typesetting/hyphenation", "no\u{00A0}break", "x\u{200B}y", "\u{FFFC}",
        "characteristically", "Silbentrennung", "semicolon;", "question?", "\u{E000}",
    ]
    static let greekAndCyrillic = ["τυπογραφία", "στήλες", "εφημερίδων", "Типографика", "переносы", "колонках", "вёрстки"]
    static let chinese = ["排版是指将文字", "、", "图片", "、", "图形等可视化信息元素", "在版面布局上调整位置", "，", "大小", "。",
                           "「引用」", "在这里", "，", "（括号）", "也在这里", "。", "版面设计", "123", "与", "English", "混排", "。"]
    static let japanese = ["日本語の組版では", "、", "句読点や括弧類が", "行頭に来ないように", "禁則処理を行う", "。", "「これは読みやすさのためである。」",
                            "ひらがな", "、", "カタカナ", "、", "漢字が混在する", "。", "英語", " Latin ", "と数字", "2026", "は横に寝かせる", "。", "ー"]
    static let rightToLeft = ["עברית", "שלום", "הספר", "פסקה", "(בסוגריים)", "العربية", "مرحبا", "كتاب", "الفقرة", "لا", "سلام",
                               "١٢٣", "456", "English", "words", "[mixed]", "7.5%", "،", ".", "!"]

    /// A paragraph of `count` characters or a little more: words drawn from `words`, joined by
    /// `separator`.
    static func paragraph(_ words: [String], characters count: Int, separator: String = " ", seed: UInt64) -> String {
        var generator = SplitMix(seed: seed)
        var text = ""
        var scalars = 0
        while scalars < count {
            let word = words.randomElement(using: &generator) ?? ""
            text += word + separator
            scalars += word.unicodeScalars.count + separator.unicodeScalars.count
        }
        return text
    }

    /// The styles a generated paragraph cycles through: faces, weights, sizes, and automatic
    /// hyphenation on and off.
    static func styles(language: String?, family: String = "DejaVu Serif") -> [TextStyle] {
        func style(_ families: [String], weight: Int = 400, italic: Bool = false, size: Double = 11, hyphens: Hyphens = .auto) -> TextStyle {
            var style = TextStyle(font: FontRequest(families: families, weight: weight, italic: italic), size: size)
            style.language = language
            style.hyphens = hyphens
            return style
        }
        return [style([family]), style([family], italic: true), style(["DejaVu Sans"], weight: 700, size: 12),
                style([family], hyphens: .manual), style([family], size: 9)]
    }

    /// Text of `paragraphs`, each cut into style runs of random length taken from `styles` in
    /// turn (one run per paragraph when `styles` holds one).
    static func styledText(_ paragraphs: [String], styles: [TextStyle], paragraphStyle: ParagraphStyle, seed: UInt64) -> AttributedText {
        var generator = SplitMix(seed: seed)
        let plain = testText(paragraphs, paragraphStyle: paragraphStyle)
        var runs: [AttributeRun<TextStyle>] = []
        for paragraph in plain.paragraphs {
            var offset = paragraph.range.lowerBound
            while offset < paragraph.range.upperBound {
                let end = styles.count == 1 ? paragraph.range.upperBound
                    : min(paragraph.range.upperBound, offset + Int.random(in: 1...400, using: &generator))
                runs.append(AttributeRun(range: offset..<end, value: styles[runs.count % styles.count]))
                offset = end
            }
        }
        let text = AttributedText(scalars: plain.scalars, styleRuns: runs, paragraphs: plain.paragraphs, attachments: plain.attachments)
        precondition(text.validate().isEmpty, "generated text is malformed: \(text.validate())")
        return text
    }

    /// Columns `width` wide, `columns` to a page `height` high, justified from 0.8 of the
    /// measure.
    static func layout(width: Double = 230, height: Double = 500, columns: Int = 2, vertical: Bool = false,
                       breaking: ArticleLayout.Typography.LineBreaking = .greedy) -> ArticleLayout {
        var layout = ArticleLayout(name: "windows")
        layout.pageWidth = width * Double(columns) + 18 * Double(columns - 1) + 40
        layout.pageHeight = height
        layout.columns = columns
        layout.inset = .init(all: 20)
        layout.typography.justifyThreshold = 0.8
        layout.typography.lineBreaking = breaking
        if vertical { layout.writingMode = .verticalRL }
        return layout
    }
}

/// A generated text with at least one paragraph much longer than the windows it is tested
/// with, the layout it is set in, and those windows.
struct LongParagraphSample: CustomStringConvertible, Sendable {
    var name: String
    var text: AttributedText
    var layout: ArticleLayout
    /// Analysis windows to set it in, all far shorter than its longest paragraph.
    var windows: [Int]

    var description: String { name }

    static let all: [LongParagraphSample] = {
        var justified = ParagraphStyle()
        justified.alignment = .justify
        var samples: [LongParagraphSample] = []
        let latin = ["A short paragraph before the long one.", paragraph(latinWords + greekAndCyrillic, characters: 12_000, seed: 1),
                     "A short one after it.", paragraph(latinWords, characters: 3_000, seed: 2)]
        samples.append(.init(name: "Latin, Greek and Cyrillic in five styles, justified and hyphenated",
                             text: styledText(latin, styles: styles(language: "en-US"), paragraphStyle: justified, seed: 3),
                             layout: layout(), windows: [90, 300, 1_200]))
        // One style run: one item per script for the whole paragraph, cut only by the windows.
        samples.append(.init(name: "Latin in one style",
                             text: styledText([paragraph(latinWords, characters: 8_000, seed: 4)], styles: [styles(language: "en-US")[0]],
                                              paragraphStyle: ParagraphStyle(), seed: 5),
                             layout: layout(width: 160), windows: [100, 700]))
        samples.append(.init(name: "Chinese, justified between ideographs",
                             text: styledText([paragraph(chinese, characters: 6_000, separator: "", seed: 6)],
                                              styles: [TextStyle(font: FontRequest(families: ["Noto Serif CJK SC"]), size: 11)],
                                              paragraphStyle: justified, seed: 7),
                             layout: layout(width: 11 * 14.5), windows: [80, 400]))
        samples.append(.init(name: "Japanese in five styles",
                             text: styledText([paragraph(japanese, characters: 6_000, separator: "", seed: 8)],
                                              styles: styles(language: "ja", family: "Noto Serif CJK JP"), paragraphStyle: justified, seed: 9),
                             layout: layout(), windows: [120]))
        samples.append(.init(name: "vertical Japanese",
                             text: styledText([paragraph(japanese, characters: 5_000, separator: "", seed: 10), "短い段落。"],
                                              styles: styles(language: "ja", family: "Noto Serif CJK JP"), paragraphStyle: ParagraphStyle(),
                                              seed: 11),
                             layout: layout(width: 300, height: 360, vertical: true), windows: [100, 500]))
        for direction in [WritingDirection.auto, .rtl, .ltr] {
            var style = justified
            style.direction = direction
            let paragraphs = [paragraph(rightToLeft, characters: 7_000, seed: 12), paragraph(rightToLeft + latinWords, characters: 7_000, seed: 13)]
            samples.append(.init(name: "Hebrew, Arabic and English, direction \(direction)",
                                 text: styledText(paragraphs, styles: styles(language: nil, family: "DejaVu Sans"), paragraphStyle: style, seed: 14),
                                 layout: layout(), windows: [90, 600]))
        }
        // Isolates and embeddings keep FriBidi from cutting the first paragraph: it is
        // resolved whole. Brackets in the second are opened long before they close.
        let isolated = "\u{2067}" + paragraph(rightToLeft, characters: 200, seed: 15) + "\u{2069} "
            + paragraph(rightToLeft + ["\u{202B}", "\u{202C}", "\u{200F}"], characters: 5_000, seed: 16)
        let bracketed = "English (" + paragraph(rightToLeft + latinWords, characters: 3_000, seed: 17) + ") and [שלום "
            + paragraph(rightToLeft, characters: 3_000, seed: 18) + "] done."
        samples.append(.init(name: "bidi isolates, embeddings and long brackets",
                             text: styledText([isolated, bracketed], styles: styles(language: nil, family: "DejaVu Sans"),
                                              paragraphStyle: ParagraphStyle(), seed: 19),
                             layout: layout(), windows: [100, 450]))
        // A token of 6,000 characters with no break opportunity (broken between clusters) and
        // one with few (an address), hyphenated automatically where it may be.
        let blob = paragraph(["QmFzZTY0", "ZW5jb2Rl", "ZGRhdGE", "+/", "x9", "Wm"], characters: 6_000, separator: "", seed: 20)
        let words = paragraph(["internationalization", "typesetting", "/", "-", "."], characters: 4_000, separator: "", seed: 21)
        samples.append(.init(name: "paragraphs without spaces",
                             text: styledText([blob, words], styles: styles(language: "en-US"), paragraphStyle: ParagraphStyle(), seed: 22),
                             layout: layout(width: 150), windows: [100, 500]))
        // Preformatted lines (U+2028) and pictures in one long paragraph.
        let lines = (0..<400).map { index in
            paragraph(latinWords, characters: index % 7 == 0 ? 0 : 20 + index % 37, seed: UInt64(100 + index))
        }.joined(separator: "\u{2028}")
        samples.append(.init(name: "forced line breaks and pictures",
                             text: styledText([lines], styles: styles(language: "en-US"), paragraphStyle: ParagraphStyle(), seed: 23),
                             layout: layout(), windows: [100, 1_000]))
        return samples
    }()
}
