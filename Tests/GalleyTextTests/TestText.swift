import GalleyText
import Testing

/// Builds attributed text directly, without the markup parser, so typesetter tests do not
/// depend on it: each string is a paragraph in the base style.
func testText(_ paragraphs: [String], size: Double = 11, family: String = "DejaVu Serif", language: String? = nil,
              color: RGBColor = .black, hyphens: Hyphens = .manual,
              paragraphStyle: ParagraphStyle = ParagraphStyle()) -> AttributedText {
    var scalars: [Unicode.Scalar] = []
    var paragraphRuns: [AttributeRun<ParagraphStyle>] = []
    var attachments: [GalleyText.Attachment] = []
    for (i, paragraph) in paragraphs.enumerated() {
        let start = scalars.count
        for scalar in paragraph.unicodeScalars {
            if scalar == AttributedText.objectReplacement {
                attachments.append(GalleyText.Attachment(offset: scalars.count, source: "image.png", width: 200, height: 100, alternative: ""))
            }
            scalars.append(scalar)
        }
        if i < paragraphs.count - 1 { scalars.append(AttributedText.paragraphSeparator) }
        paragraphRuns.append(AttributeRun(range: start..<scalars.count, value: paragraphStyle))
    }
    var style = TextStyle(font: FontRequest(families: [family]), size: size, color: color)
    style.language = language
    style.hyphens = hyphens
    return AttributedText(scalars: scalars, styleRuns: [AttributeRun(range: 0..<scalars.count, value: style)],
                          paragraphs: paragraphRuns, attachments: attachments)
}

/// Every page of `text` in `layout`. More pages than characters means the typesetter made
/// pages without placing text: that is recorded as a failure and the loop stops.
func typesetAll(_ text: AttributedText, _ layout: ArticleLayout, fonts: FontLibrary,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> [TypesetPage] {
    let typesetter = try ArticleTypesetter(text: text, layout: layout, fonts: fonts)
    var pages: [TypesetPage] = []
    while let page = try typesetter.nextPage() {
        pages.append(page)
        if pages.count > text.count {
            Issue.record("\(pages.count) pages for \(text.count) characters: the typesetter does not advance", sourceLocation: sourceLocation)
            break
        }
    }
    return pages
}

/// One tall column `width` points wide, justification at `threshold` (1: off).
func column(_ width: Double, threshold: Double = 1) -> ArticleLayout {
    var layout = ArticleLayout(name: "column")
    layout.pageWidth = width + 20
    layout.pageHeight = 4000
    layout.inset = .init(all: 10)
    layout.typography.justifyThreshold = threshold
    return layout
}

extension AttributedText {
    /// The text of `range` as a string.
    func string(_ range: Range<Int>) -> String {
        String(String.UnicodeScalarView(scalars[range]))
    }
}

/// One font library for all tests: fontconfig loads once.
let sharedFonts: FontLibrary = {
    do { return try FontLibrary() } catch { fatalError("fontconfig: \(error)") }
}()
