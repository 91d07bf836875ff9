/// An article read by `MarkupParser`.
public struct ParsedArticle: Sendable {
    /// The body text with its attributes; it always passes `validate()`.
    public var text: AttributedText
    /// The text of `<title>`, white space collapsed; nil when missing or blank.
    public var title: String?
    /// The `lang` of `<html>` (or `<body>`); nil when the markup gives none.
    public var language: String?
    /// The language guessed from the letters of the text that had none (`LanguageGuesser`),
    /// when neither the markup nor the layout gave one and its script did not tell (Chinese,
    /// Japanese and Korean are told by their scripts); nil otherwise.
    public var guessedLanguage: String?
    /// The content of `<meta name="author">`; nil when missing or blank.
    public var author: String?
    /// The writing mode the markup declares for the whole article (CSS `writing-mode` on
    /// `<body>` or `<html>`, else on the first element that declares one); nil when it
    /// declares none, and the layout's applies.
    public var writingMode: WritingMode?
    /// The page's colour the markup gives: `<html>`'s background, else `<body>`'s, which a
    /// browser paints over the whole canvas (CSS 2.1 §14.2); nil when neither has one, and
    /// the layout's `background` applies.
    public var pageBackground: RGBColor?
    /// What a reader of the log may want to know: charset fallbacks, replaced bytes, dropped
    /// tags, ignored CSS.
    public var warnings: [String]
    /// Characters of text (not white space) read from the source: shown text, and text an
    /// unclosed raw-text element swallowed. Compared with `setCharacters`, a loss shows.
    public var sourceCharacters = 0
    /// CSS properties the article declares that Galley does not support, with how many of its
    /// distinct element styles declared each (`galley run --verbose` lists them).
    public var ignoredProperties: [String: Int] = [:]

    /// Characters of the article's text that are not white space (list markers included):
    /// what is set on its pages.
    public var setCharacters: Int {
        text.scalars.reduce(0) { count, scalar in
            count + (scalar.isHTMLWhitespace || scalar == AttributedText.lineSeparator || scalar == AttributedText.objectReplacement ? 0 : 1)
        }
    }

    /// An article as read; `author` starts nil.
    public init(text: AttributedText, title: String?, language: String?, writingMode: WritingMode? = nil, warnings: [String]) {
        self.text = text
        self.title = title
        self.language = language
        self.writingMode = writingMode
        self.warnings = warnings
    }
}
