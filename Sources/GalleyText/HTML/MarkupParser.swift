import CGumbo
import Foundation

/// What `MarkupParser.styleSheetLoader` answers for a style sheet's href.
public enum StyleSheetLoad: Sendable {
    case css(String)
    /// Not read, and why (outside the input folder, a URL, no such file).
    case refused(String)
}

/// Reads HTML-like articles and plain text into `AttributedText`.
///
/// HTML goes through gumbo (an HTML5 parser, so malformed markup is repaired as browsers
/// repair it and no text is lost), then a small CSS cascade: a user-agent style sheet scaled
/// to the base style (`UserAgent.css`), presentational attributes (`<font>`, `align`, `dir`,
/// list `type`), the document's style sheets (`<style>` elements and `<link rel=stylesheet>`
/// read through `styleSheetLoader`, with their `@import`s and their `@media print` and
/// `all` rules; type, class and id selectors) and `style` attributes.
///
/// Defaults, as in a browser:
/// - Body text uses the base family, size, colour, line height and language.
/// - `p`, `ul`, `ol`, `dl`, `pre`, `blockquote`, `figure`: 1 em margins above and below.
///   Margins collapse, and the gap between two paragraphs is the `spaceBefore` of the second
///   (see `AttributedTextBuilder`).
/// - `h1`–`h6`: bold, 2, 1.5, 1.17, 1, 0.83, 0.67 em, margins 0.67, 0.83, 1, 1.33, 1.67,
///   2.33 em of their own size.
/// - Lists indent 18 pt per level; each item starts with a marker that is real text, a
///   bullet (`•`, then `◦`, then `▪` by depth) or a number (`1.`, honouring `start`,
///   `reversed`, `<li value>` and `type`) followed by U+00A0. The first line hangs by an
///   estimate of the marker's width (0.6 em a character, 0.3 em for `.` and the space).
/// - `blockquote`: 30 pt start and end indents; `dd`: 30 pt start indent.
/// - `pre`, `code`, `tt`, `kbd`, `samp`: DejaVu Sans Mono, then `monospace`.
/// - `sub`/`sup`: 0.83 em, baseline −0.25/+0.35 em of the parent.
/// - Links (`<a href>`) take the base style's link colour and underline
///   (`BaseStyle.linkColor`, `linkUnderline`) unless the article's CSS says otherwise;
///   `TextStyle.link` holds `href`, resolved against the base URL when there is one.
/// - `display: none` and `visibility: hidden` leave an element and its content out (never
///   `<html>` or `<body>`), with a warning counting them.
/// - `<hr>` draws a rule above the next paragraph; with no next paragraph, nothing.
/// - CSS line heights other than `normal` go into `ParagraphStyle.cssLineHeight` (a number
///   times each inline box's font size, or a length: `1.5em` and `150%` are 1.5 × the
///   element's size, inherited as that length), which the lines follow (CSS 2.1 §10.8.1);
///   `ParagraphStyle.lineHeight` gets an estimate of it as a multiple of the natural line
///   height, 1.17 × the size (`ComputedStyle.naturalLineHeight`), for what measures room before
///   lines are set. `normal` is the base line height.
///
/// Not supported: pseudo-classes but `:first-child`, pseudo-elements but `::before`, `::after`,
/// `::first-letter` and `::first-line`,
/// `@media` for screen only, floats, `dir` on inline elements, backgrounds and borders (but on
/// tables and their cells, which are read into `AttributedText.tables`, tables nested in
/// cells into `TextTable.nested`), tables nested more than `TextTable.maximumNesting` deep as
/// grids (their cells become paragraphs of the outer cell).
public struct MarkupParser: Sendable {
    /// The styles the article starts from.
    public var base: BaseStyle
    /// Reads the style sheets `<link rel=stylesheet href>` and `@import` name (the href
    /// joined to the importing sheet's folder); nil reads none. The pipeline's finds files by
    /// the rules pictures follow (under the input folder, nothing fetched).
    public var styleSheetLoader: (@Sendable (String) -> StyleSheetLoad)?

    /// Documents longer than this many bytes are parsed in pieces about this long where that
    /// gives the same tree (`HTMLPieces`), so that gumbo's tree of one piece is held at a time.
    /// Tests and the markup fuzzer make it small, to compare pieces with the whole.
    public var pieceSize = 1 << 20

    /// Pictures (`src` as written) that could not be read: one the markup gives no size and
    /// an `alt` text is set as that text, as a browser and WeasyPrint show a broken picture,
    /// instead of a placeholder box (a DocBook note's `[Tip]` icon missing beside the page).
    public var unavailablePictures: Set<String> = []

    /// A parser whose articles start from `base`.
    public init(base: BaseStyle) {
        self.base = base
    }

    /// Parses an HTML document.
    ///
    /// The charset comes from a byte order mark, else `<meta charset>` (or the `http-equiv`
    /// form, or an XML declaration) in the first 4 KB, else UTF-8; other charsets are
    /// converted with iconv. A declared charset is overruled when the bytes are valid UTF-8
    /// with non-ASCII characters (a stale declaration; warned about). Bytes that are invalid in the charset become U+FFFD, never
    /// dropped. The text is that of `<body>` (of the whole document if there is none), without
    /// the contents of `script`, `style`, `template`, `title`, `iframe`, `noembed` and
    /// `noframes`.
    public func parse(html: [UInt8], baseURL: URL?) -> ParsedArticle {
        let decoded = TextDecoding.decode(html: html)
        var warnings = decoded.warnings
        let limited = NestingLimiter.limit(decoded.utf8)
        if limited.droppedTags > 0 {
            warnings.append("\(limited.droppedTags) start tags nested too deeply were dropped (their text is kept)")
        }
        let empty = ParsedArticle(text: AttributedTextBuilder().build(), title: nil, language: nil, warnings: warnings)
        var options = kGumboDefaultOptions
        options.max_errors = 0  // Parse errors are not reported, and a broken page can have millions.
        let parsed: ParsedArticle? = limited.html.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress, !buffer.isEmpty else { return nil }
            let cuts = buffer.count > pieceSize ? HTMLPieces.cuts(buffer, pieceSize: pieceSize) : []
            return start.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                // Trees point into `buffer`, so they are walked before the closure returns.
                if !cuts.isEmpty, let article = parseInPieces(pointer, count: buffer.count, cuts: cuts, options: options, baseURL: baseURL) {
                    return article
                }
                guard let output = gumbo_parse_with_options(&options, pointer, buffer.count) else { return nil }
                defer { gumbo_destroy_output(&options, output) }
                var walker = HTMLWalker(base: base, baseURL: baseURL, styleSheetLoader: styleSheetLoader, unavailablePictures: unavailablePictures)
                var article = walker.article(from: output.pointee)
                if !walker.unclosedRawText.isEmpty, let repaired = reparse(buffer, closing: walker.unclosedRawText, baseURL: baseURL) {
                    article = repaired
                }
                return article
            }
        }
        guard var article = parsed else { return empty }
        article.warnings = warnings + article.warnings
        (article.text, article.guessedLanguage) = withLanguageFromText(article.text)
        return article
    }

    /// The document parsed again with an end tag after the start tag of each raw-text element
    /// that was never closed and swallowed markup (`<iframe/>` taken for self-closing, a
    /// `<title>` without `</title>`): the markup after it is read as markup, as MuPDF's and
    /// WeasyPrint's HTML engines read it, and a warning says so. Nil when that parse fails.
    private func reparse(_ html: UnsafeBufferPointer<UInt8>, closing unclosed: [(name: String, line: Int, afterStartTag: Int, characters: Int)],
                         baseURL: URL?) -> ParsedArticle? {
        var bytes = Array(html)
        for element in unclosed.sorted(by: { $0.afterStartTag > $1.afterStartTag }) where element.afterStartTag <= bytes.count {
            bytes.insert(contentsOf: Array("</\(element.name)>".utf8), at: element.afterStartTag)
        }
        var options = kGumboDefaultOptions
        options.max_errors = 0
        let repaired: ParsedArticle? = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                guard let output = gumbo_parse_with_options(&options, pointer, buffer.count) else { return nil }
                defer { gumbo_destroy_output(&options, output) }
                var walker = HTMLWalker(base: base, baseURL: baseURL, styleSheetLoader: styleSheetLoader, unavailablePictures: unavailablePictures)
                return walker.article(from: output.pointee)
            }
        }
        guard var article = repaired else { return nil }
        article.warnings += unclosed.map { element in
            "<\(element.name)> on line \(element.line) is never closed, so the rest of the document (\(element.characters) characters) "
                + "would have been its text; it was read as markup instead"
        }
        return article
    }

    /// Parses `html` as a document up to `cuts[0]`, and each piece after it as a fragment in
    /// `<body>` once the walker has walked the body so far; one tree at a time is alive. Nil
    /// when the pieces did not all reach the body (the caller then parses the document whole).
    private func parseInPieces(_ html: UnsafePointer<CChar>, count: Int, cuts: [HTMLPieces.Cut], options: GumboOptions,
                               baseURL: URL?) -> ParsedArticle? {
        var options = options
        guard let first = gumbo_parse_with_options(&options, html, cuts[0].offset) else { return nil }
        defer { gumbo_destroy_output(&options, first) }
        var fragmentOptions = options
        fragmentOptions.fragment_context = GUMBO_TAG_BODY
        fragmentOptions.fragment_namespace = GUMBO_NAMESPACE_HTML
        // Rows of a long table, after a cut between them.
        var rowOptions = fragmentOptions
        rowOptions.fragment_context = GUMBO_TAG_TBODY
        let bounds = cuts.map(\.offset) + [count]
        var piece = 0
        var fragment: (output: UnsafeMutablePointer<GumboOutput>, inTable: Bool)?
        func destroyFragment() {
            guard let done = fragment else { return }
            if done.inTable { gumbo_destroy_output(&rowOptions, done.output) } else { gumbo_destroy_output(&fragmentOptions, done.output) }
            fragment = nil
        }
        defer { destroyFragment() }
        var walker = HTMLWalker(base: base, baseURL: baseURL, styleSheetLoader: styleSheetLoader, unavailablePictures: unavailablePictures)
        walker.nextPiece = { inTable in
            // Asked for rows where the body goes on: the table ended in the piece before.
            guard piece < cuts.count, !inTable || cuts[piece].inTable else { return nil }
            destroyFragment()
            let start = bounds[piece], end = bounds[piece + 1], rows = cuts[piece].inTable
            piece += 1
            let parsed = rows ? gumbo_parse_with_options(&rowOptions, html + start, end - start)
                : gumbo_parse_with_options(&fragmentOptions, html + start, end - start)
            guard let output = parsed else { return nil }
            fragment = (output, rows)
            guard let root = output.pointee.root, root.pointee.type == GUMBO_NODE_ELEMENT else { return nil }
            return (root.pointee.v.element.children, rows)
        }
        let article = walker.article(from: first.pointee)
        return piece == cuts.count ? article : nil
    }

    /// Parses plain text: paragraphs are separated by lines that are empty or white space;
    /// inside a paragraph line breaks and runs of white space become one space. Every
    /// paragraph has the margins of `<p>`.
    ///
    /// The text is UTF-8 (UTF-16 with a byte order mark); invalid bytes become U+FFFD. Line
    /// breaks of poems or tables are not kept: plain-text articles are prose.
    public func parse(plainText: [UInt8]) -> ParsedArticle {
        let decoded = TextDecoding.decode(plainText: plainText)
        let root = ComputedStyle(base: base)
        let style = root.text
        var builder = AttributedTextBuilder()
        builder.paragraphStyle = root.paragraphStyle(base: base)
        let margin = base.fontSize  // 1 em, as `p`.
        var line: [Unicode.Scalar] = []
        var blankLineSeen = false
        var afterCarriageReturn = false
        func endLine() {
            if line.allSatisfy({ $0.isHTMLWhitespace }) {
                blankLineSeen = true
            } else {
                if blankLineSeen || builder.isEmpty {
                    builder.breakParagraph()
                    builder.addMargin(margin)
                    blankLineSeen = false
                }
                line.append(" ")
                builder.append(line, style: style)
            }
            line.removeAll(keepingCapacity: true)
        }
        for scalar in String(decoding: decoded.utf8, as: UTF8.self).unicodeScalars {
            if scalar == "\n" && afterCarriageReturn {
                afterCarriageReturn = false
                continue
            }
            afterCarriageReturn = scalar == "\r"
            if scalar == "\n" || scalar == "\r" {
                endLine()
            } else {
                line.append(scalar)
            }
        }
        endLine()
        builder.addMargin(margin)
        let (text, guessed) = withLanguageFromText(builder.finish())
        var article = ParsedArticle(text: text, title: nil, language: nil, warnings: decoded.warnings)
        article.guessedLanguage = guessed
        article.sourceCharacters = decoded.utf8.withUnsafeBufferPointer { HTMLWalker.visibleCharacters($0) }
        return article
    }

    /// The language CJK text is in when neither the markup nor the layout says: Japanese when
    /// it holds kana, else Korean when it holds Hangul, else Chinese when it holds Han
    /// ideographs; nil for other text. Fontconfig picks glyph forms by it (Chinese and Japanese
    /// draw many ideographs differently), and line breaking its rules.
    static func languageFromScript(_ scalars: [Unicode.Scalar]) -> String? {
        var han = false, hangul = false
        for scalar in scalars where scalar.value >= 0x1100 {
            if scalar.isKana { return "ja" }
            if scalar.isHangul { hangul = true } else if scalar.isHanIdeograph { han = true }
        }
        return hangul ? "ko" : han ? "zh" : nil
    }

    /// `text` with a language given to the runs that have none, when the layout gives none:
    /// `languageFromScript` for Chinese, Japanese and Korean, else what `LanguageGuesser`
    /// reads from their prose (code left out), when it is clear; with the language guessed
    /// that way (nil when none was, or when the script told it).
    private func withLanguageFromText(_ text: AttributedText) -> (text: AttributedText, guessed: String?) {
        guard base.language == nil, text.styleRuns.contains(where: { $0.value.language == nil }) else { return (text, nil) }
        var guessed: String?
        let language: String
        if let script = Self.languageFromScript(text.scalars) {
            language = script
        } else if let letters = LanguageGuesser.shared.guess(Self.prose(of: text, upTo: LanguageGuesser.maximumSample)) {
            (language, guessed) = (letters, letters)
        } else {
            return (text, nil)
        }
        let runs = text.styleRuns.map { run -> AttributeRun<TextStyle> in
            guard run.value.language == nil else { return run }
            var run = run
            run.value.language = language
            return run
        }
        var languaged = AttributedText(scalars: text.scalars, styleRuns: runs, paragraphs: text.paragraphs, attachments: text.attachments,
                                       tables: text.tables, boxes: text.boxes, floats: text.floats, boxTree: text.boxTree)
        languaged.keepExtras(of: text)
        return (languaged, guessed)
    }

    /// Up to `limit` bytes of UTF-8: the text of the runs without a language that are not
    /// code, white space collapsed and pictures left out.
    static func prose(of text: AttributedText, upTo limit: Int) -> [UInt8] {
        var sample: [UInt8] = []
        sample.reserveCapacity(limit)
        var space = true
        for run in text.styleRuns where run.value.language == nil && !run.value.verbatim {
            for index in run.range {
                let scalar = text.scalars[index]
                if scalar.isHTMLWhitespace || scalar == AttributedText.lineSeparator || scalar == AttributedText.objectReplacement
                    || scalar.properties.generalCategory == .control {
                    if !space { sample.append(0x20) }
                    space = true
                    continue
                }
                space = false
                UTF8.encode(scalar) { sample.append($0) }
                if sample.count >= limit { return sample }
            }
            if !space { sample.append(0x20); space = true }
        }
        return sample
    }
}
