import CGumbo
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An article read by `MarkupParser`.
public struct ParsedArticle: Sendable {
    /// The body text with its attributes; it always passes `validate()`.
    public var text: AttributedText
    /// The text of `<title>`, white space collapsed; nil when missing or blank.
    public var title: String?
    /// The `lang` of `<html>` (or `<body>`); nil when the markup gives none.
    public var language: String?
    /// The content of `<meta name="author">`; nil when missing or blank.
    public var author: String?
    /// The writing mode the markup declares for the whole article (CSS `writing-mode` on
    /// `<body>` or `<html>`, else on the first element that declares one); nil when it
    /// declares none, and the layout's applies.
    public var writingMode: WritingMode?
    /// What a reader of the log may want to know: charset fallbacks, replaced bytes, dropped
    /// tags, ignored CSS.
    public var warnings: [String]

    public init(text: AttributedText, title: String?, language: String?, writingMode: WritingMode? = nil, warnings: [String]) {
        self.text = text
        self.title = title
        self.language = language
        self.writingMode = writingMode
        self.warnings = warnings
    }
}

/// Reads HTML-like articles and plain text into `AttributedText`.
///
/// HTML goes through gumbo (an HTML5 parser, so malformed markup is repaired as browsers
/// repair it and no text is lost), then a small CSS cascade: a user-agent style sheet scaled
/// to the base style, presentational attributes (`<font>`, `align`, `dir`, list `type`), the
/// document's `<style>` elements (type, class and id selectors) and `style` attributes.
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
/// - Links keep the text's colour and are not underlined (magazines style them too
///   differently for one default to fit); `TextStyle.link` holds `href`, resolved against
///   the base URL when there is one.
/// - `<hr>` draws a rule above the next paragraph; with no next paragraph, nothing.
/// - CSS line heights are multiples of the font size and `ParagraphStyle.lineHeight` is a
///   multiple of the font's natural line height, taken as 1.17 × the size
///   (`ComputedStyle.naturalLineHeight`): `line-height: 1.5`, `1.5em` and `150%` all become
///   1.5 / 1.17; `normal` is the base line height.
///
/// Not supported: descendant and other combinators, pseudo-classes, `@media`, floats, tables
/// as grids (each cell is a paragraph), `display: none` (hidden text is kept, as body text is
/// never dropped), `dir` on inline elements, backgrounds and borders.
public struct MarkupParser: Sendable {
    /// The styles the article starts from.
    public var base: BaseStyle

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
            return start.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                // The tree points into `buffer`, so it is walked before the closure returns.
                guard let output = gumbo_parse_with_options(&options, pointer, buffer.count) else { return nil }
                defer { gumbo_destroy_output(&options, output) }
                var walker = HTMLWalker(base: base, baseURL: baseURL)
                var article = walker.article(from: output.pointee)
                article.warnings = warnings + article.warnings
                return article
            }
        }
        return parsed ?? empty
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
            if line.allSatisfy({ StyleSheet.isWhitespace($0) }) {
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
        return ParsedArticle(text: builder.build(), title: nil, language: nil, warnings: decoded.warnings)
    }
}

/// The characters of UTF-8 text gumbo made, decoded where they lie: ASCII directly, anything
/// else through the standard library's decoder, so an invalid sequence (gumbo makes none)
/// becomes U+FFFD exactly as `String(decoding:as:)` would make it.
package struct UTF8Scalars: Sequence {
    let bytes: UnsafeBufferPointer<UInt8>

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    package func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    package struct Iterator: IteratorProtocol {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        package mutating func next() -> Unicode.Scalar? {
            guard index < bytes.count else { return nil }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                return Unicode.Scalar(lead)
            }
            var rest = UnsafeBufferPointer(rebasing: bytes[index...]).makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            switch parser.parseScalar(from: &rest) {
            case .valid(let encoded):
                index += encoded.count
                return Unicode.UTF8.decode(encoded)
            case .error(let length):
                index += length
                return "\u{FFFD}"
            case .emptyInput:
                return nil
            }
        }
    }
}

// MARK: - Tree walk

/// Walks gumbo's tree in document order with an explicit stack (deep documents cannot
/// overflow the call stack), computing each element's style and feeding the builder.
private struct HTMLWalker {
    /// An element being walked, with its position among its children.
    struct Frame {
        var children: GumboVector
        var next = 0
        var style: ComputedStyle
        /// Names `style` for `styleMemo`: frames with the same id have the same style.
        var styleID: Int
        /// Paragraph attributes for text directly inside this element.
        var paragraph: ParagraphStyle
        var list: ListState?
    }

    /// Numbering of an open `ul` or `ol`.
    struct ListState {
        var ordered: Bool
        var next: Int
        var step: Int
        /// 1 for a top-level list.
        var depth: Int
    }

    let base: BaseStyle
    let baseURL: URL?
    var sheet = StyleSheet()
    var builder = AttributedTextBuilder()
    var frames: [Frame] = []
    /// Indices in `frames` of the open lists.
    var listFrames: [Int] = []
    /// What the walker needs to know of each gumbo tag, filled in on first use.
    var knownTags: [Tag?] = Array(repeating: nil, count: Int(GUMBO_TAG_LAST.rawValue) + 1)
    var title: String?
    var author: String?
    /// The article's writing mode, and the element that declared it.
    var writingMode: (mode: WritingMode, element: String)?
    /// Writing-mode declarations not followed, as warnings.
    var writingModeWarnings: [String] = []
    /// How often each of `writingModeWarnings` came up: one warning per kind, with its count.
    var writingModeWarningCounts: [String: Int] = [:]
    /// Element styles already computed, with their ids (`Frame.styleID`). Most elements are a
    /// `p` or an `em` with no attributes inside a parent of the same style, and computing a
    /// style runs the element's CSS declarations, so it is done once per distinct `StyleKey`.
    var styleMemo: [StyleKey: (style: ComputedStyle, id: Int)] = [:]
    /// The id the next computed style gets; 0 is the root's.
    var nextStyleID = 1
    /// Entries `styleMemo` holds at most; past this it starts over (a page whose every element
    /// has its own `id`).
    static let styleMemoLimit = 4096

    /// Everything an element's style depends on besides the style sheets and the base style,
    /// which stay the same through a walk.
    struct StyleKey: Hashable {
        var parent: Int
        var tag: String
        /// A list inside another list, which loses its vertical margins.
        var nestedList: Bool
        /// Every attribute's name and value, NUL-terminated, in document order.
        var attributes: [UInt8]
    }

    init(base: BaseStyle, baseURL: URL?) {
        self.base = base
        self.baseURL = baseURL
    }

    /// Elements whose content is not shown: scripts, style sheets, the head, and raw-text
    /// elements whose content is markup source.
    static let skippedElements: Set<String> = ["script", "style", "template", "title", "head", "iframe", "noembed", "noframes"]
    static let listElements: Set<String> = ["ul", "ol", "menu", "dir"]

    /// An element name with what the walker does with it.
    struct Tag {
        var name: String
        var isSkipped: Bool
        var isList: Bool
        var userAgentStyle: [CSSDeclaration]

        init(_ name: String) {
            self.name = name
            isSkipped = HTMLWalker.skippedElements.contains(name)
            isList = HTMLWalker.listElements.contains(name)
            userAgentStyle = MarkupParser.userAgentStyles[name] ?? []
        }
    }

    mutating func article(from output: GumboOutput) -> ParsedArticle {
        collectStyleSheetsAndTitle(output.document)
        var warnings: [String] = []
        if sheet.unsupportedSelectorCount > 0 || sheet.skippedAtRuleCount > 0 {
            warnings.append("style sheet: \(sheet.unsupportedSelectorCount) selectors not supported (combinators, "
                            + "pseudo-classes, attributes) and \(sheet.skippedAtRuleCount) at-rules (@media, ...) ignored")
        }
        var language: String?
        if let root = output.root, root.pointee.type == GUMBO_NODE_ELEMENT {
            language = languageAttribute(root.pointee.v.element)
            if language == nil, let body = child(of: root.pointee.v.element, named: GUMBO_TAG_BODY) {
                language = languageAttribute(body.pointee.v.element)
            }
        }
        let rootStyle = ComputedStyle(base: base)
        let rootParagraph = rootStyle.paragraphStyle(base: base)
        builder.paragraphStyle = rootParagraph
        guard let document = output.document else {
            return ParsedArticle(text: builder.build(), title: title, language: language, warnings: warnings)
        }
        frames = [Frame(children: document.pointee.v.document.children, style: rootStyle, styleID: 0, paragraph: rootParagraph)]
        while let top = frames.indices.last {
            let index = frames[top].next
            guard index < Int(frames[top].children.length) else {
                exit(frames.removeLast())
                continue
            }
            frames[top].next += 1
            guard let child = frames[top].children.data[index] else { continue }
            visit(child.assumingMemoryBound(to: GumboNode.self))
        }
        var article = ParsedArticle(text: builder.build(), title: title, language: language, writingMode: writingMode?.mode,
                                    warnings: warnings + writingModeWarnings.map { warning in
                                        let count = writingModeWarningCounts[warning, default: 1]
                                        return count > 1 ? "\(warning) (\(count) elements)" : warning
                                    })
        article.author = author
        return article
    }

    /// Takes an element's `writing-mode` as the article's when it is the first, or when it is
    /// `<body>`'s (over `<html>`'s); warns about the others, since a page has one writing mode.
    private mutating func noteWritingMode(_ value: String, element: String) {
        guard let mode = ComputedStyle.writingMode(value) else {
            warnWritingMode("writing-mode \(value) on <\(element)> is not supported (horizontal-tb and vertical-rl are); ignored")
            return
        }
        if let current = writingMode, element != "body" || current.element != "html" {
            if mode != current.mode {
                warnWritingMode("writing-mode \(value) on <\(element)> ignored: the article is set \(current.mode.rawValue), as <\(current.element)> declares")
            }
        } else {
            writingMode = (mode, element)
        }
    }

    private mutating func warnWritingMode(_ warning: String) {
        writingModeWarningCounts[warning, default: 0] += 1
        if writingModeWarningCounts[warning] == 1 { writingModeWarnings.append(warning) }
    }

    /// HTML's white space, which separates class names and collapses in titles: ASCII only
    /// (U+00A0 is part of a class name); CR LF is one `Character`.
    private static func isHTMLWhitespace(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy(StyleSheet.isWhitespace)
    }

    /// Collects the `<style>` sheets, the first `<title>` and the first `<meta name=author>`,
    /// wherever they are.
    private mutating func collectStyleSheetsAndTitle(_ document: UnsafeMutablePointer<GumboNode>?) {
        guard let document else { return }
        var pending = [document]
        while let node = pending.popLast() {
            let children: GumboVector
            switch node.pointee.type {
            case GUMBO_NODE_DOCUMENT:
                children = node.pointee.v.document.children
            case GUMBO_NODE_ELEMENT:
                let element = node.pointee.v.element
                if element.tag_namespace == GUMBO_NAMESPACE_HTML {
                    if element.tag == GUMBO_TAG_STYLE {
                        sheet.add(css: textContent(element))
                        continue
                    }
                    if element.tag == GUMBO_TAG_TITLE {
                        if title == nil {
                            let collapsed = textContent(element).split(whereSeparator: Self.isHTMLWhitespace).joined(separator: " ")
                            if !collapsed.isEmpty { title = collapsed }
                        }
                        continue
                    }
                    if element.tag == GUMBO_TAG_SCRIPT { continue }
                    if element.tag == GUMBO_TAG_META, author == nil, attribute(element, "name")?.lowercased() == "author",
                       let content = attribute(element, "content")?.trimmingASCIIWhitespace(), !content.isEmpty {
                        author = content
                    }
                }
                children = element.children
            default:
                continue
            }
            for index in stride(from: Int(children.length) - 1, through: 0, by: -1) {
                if let child = children.data[index] { pending.append(child.assumingMemoryBound(to: GumboNode.self)) }
            }
        }
    }

    private mutating func visit(_ node: UnsafeMutablePointer<GumboNode>) {
        switch node.pointee.type {
        case GUMBO_NODE_TEXT, GUMBO_NODE_CDATA, GUMBO_NODE_WHITESPACE:
            guard let text = node.pointee.v.text.text, let frame = frames.last else { return }
            let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
            builder.append(UTF8Scalars(UnsafeBufferPointer(start: bytes, count: strlen(text))), style: frame.style.text,
                           whiteSpace: frame.style.whiteSpace)
        case GUMBO_NODE_ELEMENT:
            enter(node.pointee.v.element)
        default:
            break  // Comments; templates, whose content is inert.
        }
    }

    private mutating func enter(_ element: GumboElement) {
        guard let parent = frames.last else { return }
        let tag = self.tag(element)
        let name = tag.name
        guard element.tag_namespace == GUMBO_NAMESPACE_HTML else {
            // SVG and MathML: their text is kept as inline text of the parent's style.
            if !["script", "style", "title", "desc", "metadata"].contains(name) {
                frames.append(Frame(children: element.children, style: parent.style.child(), styleID: newStyleID(),
                                    paragraph: parent.paragraph))
            }
            return
        }
        guard !tag.isSkipped else { return }

        let isList = tag.isList
        let key = StyleKey(parent: parent.styleID, tag: name, nestedList: isList && !listFrames.isEmpty,
                           attributes: Self.attributeBytes(element))
        let style: ComputedStyle, styleID: Int
        if let known = styleMemo[key] {
            (style, styleID) = known
        } else {
            style = computedStyle(element, tag: tag, nestedList: key.nestedList, parent: parent.style)
            styleID = newStyleID()
            if styleMemo.count >= Self.styleMemoLimit { styleMemo.removeAll(keepingCapacity: true) }
            styleMemo[key] = (style, styleID)
        }
        if let declared = style.declaredWritingMode { noteWritingMode(declared, element: name) }

        switch name {
        case "br":
            builder.appendLineBreak(style: style.text)
            return
        case "wbr":
            builder.appendBreakOpportunity(style: style.text)
            return
        case "img", "image":
            appendImage(element, style: style, parent: parent)
            return
        case "hr":
            builder.breakParagraph()
            builder.addMargin(style.marginTop)
            builder.addRuleAbove()
            builder.addMargin(style.marginBottom)
            return
        default:
            break
        }

        var paragraph = parent.paragraph
        if style.display != .inline {
            builder.breakParagraph()
            builder.addMargin(style.marginTop)
            paragraph = style.paragraphStyle(base: base)
            builder.paragraphStyle = paragraph
        }
        var list: ListState?
        if isList {
            list = listState(element, ordered: name == "ol")
        }
        if style.display == .listItem {
            setListMarker(element, style: style)
        }
        frames.append(Frame(children: element.children, style: style, styleID: styleID, paragraph: paragraph, list: list))
        if list != nil { listFrames.append(frames.count - 1) }
    }

    /// An element's style: its parent's inherited properties, then the user agent's
    /// declarations for the tag, presentational attributes, matching style-sheet rules and
    /// the `style` attribute, then `lang` and a link's target. Depends only on what
    /// `StyleKey` holds.
    private func computedStyle(_ element: GumboElement, tag: Tag, nestedList: Bool, parent: ComputedStyle) -> ComputedStyle {
        let name = tag.name
        var style = parent.child()
        var declarations = tag.userAgentStyle
        if tag.isList {
            style.listMarker = nil  // Each list picks its own markers unless told otherwise.
            if nestedList {
                declarations += [CSSDeclaration(property: "margin-top", value: "0"),
                                 CSSDeclaration(property: "margin-bottom", value: "0")]
            }
        }
        declarations += presentationalHints(element, name: name)
        if !sheet.isEmpty {
            let classes = attribute(element, "class")?.split(whereSeparator: Self.isHTMLWhitespace).map(String.init) ?? []
            declarations += sheet.declarations(tag: name, id: attribute(element, "id"), classes: classes)
        }
        if let inline = attribute(element, "style") {
            declarations += StyleSheet.declarations(in: inline)
        }
        style.apply(declarations, parent: parent, base: base)
        if name == "html" { style.rootSize = style.text.size }  // What `rem` refers to.
        if let language = attribute(element, "lang") ?? attribute(element, "xml:lang") {
            let trimmed = language.trimmingASCIIWhitespace()
            style.text.language = trimmed.isEmpty ? nil : trimmed
        }
        if name == "a", let href = attribute(element, "href") {
            style.text.link = resolvedLink(href)
        }
        return style
    }

    private mutating func newStyleID() -> Int {
        defer { nextStyleID += 1 }
        return nextStyleID
    }

    /// An element's attributes as `StyleKey` keeps them; empty (no allocation) for an
    /// element without attributes.
    private static func attributeBytes(_ element: GumboElement) -> [UInt8] {
        let attributes = element.attributes
        guard attributes.length > 0 else { return [] }
        var bytes: [UInt8] = []
        for index in 0..<Int(attributes.length) {
            guard let attribute = attributes.data[index]?.assumingMemoryBound(to: GumboAttribute.self) else { continue }
            for text in [attribute.pointee.name, attribute.pointee.value] {
                if let text {
                    bytes.append(contentsOf: UnsafeRawBufferPointer(start: text, count: strlen(text)))
                }
                bytes.append(0)
            }
        }
        return bytes
    }

    private mutating func exit(_ frame: Frame) {
        if frame.list != nil, listFrames.last == frames.count { listFrames.removeLast() }
        if frame.style.display == .listItem { builder.flushListMarker() }
        if frame.style.display != .inline {
            builder.breakParagraph()
            builder.addMargin(frame.style.marginBottom)
            if let parent = frames.last { builder.paragraphStyle = parent.paragraph }
        }
    }

    private mutating func appendImage(_ element: GumboElement, style: ComputedStyle, parent: Frame) {
        var source = attribute(element, "src") ?? ""
        // Lazy-loading pages put a placeholder in `src` and the picture in `data-src`.
        if source.isEmpty || source.hasPrefix("data:"), let lazy = attribute(element, "data-src"), !lazy.isEmpty {
            source = lazy
        }
        let width = style.width ?? Self.htmlLength(attribute(element, "width"))
        let height = style.height ?? Self.htmlLength(attribute(element, "height"))
        let isBlock = style.display != .inline
        if isBlock {
            builder.breakParagraph()
            builder.addMargin(style.marginTop)
            builder.paragraphStyle = style.paragraphStyle(base: base)
        }
        builder.appendAttachment(source: source, width: width, height: height,
                                 alternative: attribute(element, "alt") ?? "", style: style.text)
        if isBlock {
            builder.breakParagraph()
            builder.addMargin(style.marginBottom)
            builder.paragraphStyle = parent.paragraph
        }
    }

    // MARK: Lists

    private func listState(_ element: GumboElement, ordered: Bool) -> ListState {
        let reversed = attribute(element, "reversed") != nil
        var start = attribute(element, "start").flatMap { Int($0.trimmingASCIIWhitespace()) }
        if start == nil && reversed {
            var items = 0
            for index in 0..<Int(element.children.length) {
                guard let child = element.children.data[index]?.assumingMemoryBound(to: GumboNode.self),
                      child.pointee.type == GUMBO_NODE_ELEMENT, child.pointee.v.element.tag == GUMBO_TAG_LI else { continue }
                items += 1
            }
            start = items
        }
        return ListState(ordered: ordered, next: start ?? 1, step: reversed ? -1 : 1, depth: listFrames.count + 1)
    }

    private mutating func setListMarker(_ element: GumboElement, style: ComputedStyle) {
        var ordinal = 1
        var ordered = false
        var depth = 1
        if let index = listFrames.last, var list = frames[index].list {
            if let value = attribute(element, "value").flatMap({ Int($0.trimmingASCIIWhitespace()) }) {
                list.next = value
            }
            ordinal = list.next
            list.next = list.next &+ list.step
            frames[index].list = list
            ordered = list.ordered
            depth = list.depth
        }
        let bullets: [ComputedStyle.ListMarker] = [.disc, .circle, .square]
        let kind = style.listMarker ?? (ordered ? .decimal : bullets[min(depth, 3) - 1])
        guard let marker = Self.markerText(kind, ordinal) else { return }
        var markerStyle = style.text
        markerStyle.underline = false
        markerStyle.strikethrough = false
        markerStyle.link = nil
        markerStyle.baselineShift = 0
        let ems = marker.unicodeScalars.reduce(0.0) { $0 + ($1 == "." || $1 == "\u{A0}" ? 0.3 : 0.6) }
        builder.setListMarker(marker, style: markerStyle, width: ems * markerStyle.size)
    }

    /// The marker of a list item: a bullet or a number, then a no-break space; nil for `none`.
    static func markerText(_ kind: ComputedStyle.ListMarker, _ ordinal: Int) -> String? {
        let label: String
        switch kind {
        case .none: return nil
        case .disc: return "\u{2022}\u{A0}"
        case .circle: return "\u{25E6}\u{A0}"
        case .square: return "\u{25AA}\u{A0}"
        case .decimal: label = String(ordinal)
        case .lowerAlpha: label = alphabetic(ordinal) ?? String(ordinal)
        case .upperAlpha: label = alphabetic(ordinal)?.uppercased() ?? String(ordinal)
        case .lowerRoman: label = roman(ordinal)?.lowercased() ?? String(ordinal)
        case .upperRoman: label = roman(ordinal) ?? String(ordinal)
        }
        return label + ".\u{A0}"
    }

    private static func alphabetic(_ number: Int) -> String? {
        guard number > 0 else { return nil }
        var n = number
        var letters: [Character] = []
        while n > 0 {
            n -= 1
            letters.append(Character(Unicode.Scalar(UInt8(97 + n % 26))))
            n /= 26
        }
        return String(letters.reversed())
    }

    private static func roman(_ number: Int) -> String? {
        guard (1...3999).contains(number) else { return nil }
        let table: [(Int, String)] = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
                                      (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
        var n = number
        var result = ""
        for (value, letters) in table {
            while n >= value {
                result += letters
                n -= value
            }
        }
        return result
    }

    // MARK: Attributes

    /// Presentational attributes as CSS declarations, which author style sheets override.
    private func presentationalHints(_ element: GumboElement, name: String) -> [CSSDeclaration] {
        var hints: [CSSDeclaration] = []
        if name == "font" {
            if let color = attribute(element, "color") { hints.append(CSSDeclaration(property: "color", value: color)) }
            if let face = attribute(element, "face") { hints.append(CSSDeclaration(property: "font-family", value: face)) }
            if let size = attribute(element, "size"), let keyword = Self.fontSizeKeyword(size) {
                hints.append(CSSDeclaration(property: "font-size", value: keyword))
            }
        }
        if let align = attribute(element, "align")?.lowercased(),
           ["p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "tr", "thead", "tbody", "tfoot", "caption",
            "legend", "section", "article", "header", "footer", "li", "blockquote", "center"].contains(name) {
            let value = align == "middle" ? "center" : align
            if ["left", "right", "center", "justify"].contains(value) {
                hints.append(CSSDeclaration(property: "text-align", value: value))
            }
        }
        if let dir = attribute(element, "dir")?.lowercased(), ["ltr", "rtl", "auto"].contains(dir) {
            hints.append(CSSDeclaration(property: "direction", value: dir))
        }
        if Self.listElements.contains(name) || name == "li", let type = attribute(element, "type") {
            let mapped: String?
            switch type {
            case "1": mapped = "decimal"
            case "a": mapped = "lower-alpha"
            case "A": mapped = "upper-alpha"
            case "i": mapped = "lower-roman"
            case "I": mapped = "upper-roman"
            default: mapped = ["disc", "circle", "square", "none"].contains(type.lowercased()) ? type.lowercased() : nil
            }
            if let mapped { hints.append(CSSDeclaration(property: "list-style-type", value: mapped)) }
        }
        return hints
    }

    /// `<font size>`: 1 to 7, or `+n`/`-n` relative to 3, as a CSS size keyword.
    static func fontSizeKeyword(_ text: String) -> String? {
        let value = text.trimmingASCIIWhitespace()
        guard let parsed = Int(value.hasPrefix("+") ? String(value.dropFirst()) : value) else { return nil }
        let number = min(max(parsed, -10), 10)
        let size = value.hasPrefix("+") || value.hasPrefix("-") ? 3 + number : number
        let keywords = ["x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large"]
        return keywords[min(max(size, 1), 7) - 1]
    }

    /// An HTML `width`/`height` attribute (CSS pixels) in points; nil for percentages and junk.
    static func htmlLength(_ text: String?) -> Double? {
        guard let text else { return nil }
        let value = text.trimmingASCIIWhitespace()
        guard !value.contains("%") else { return nil }
        let digits = value.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard let number = Double(digits), number.isFinite, number >= 0 else { return nil }
        return number * CSSLength.pointsPerPixel
    }

    private func resolvedLink(_ href: String) -> String {
        let trimmed = href.trimmingASCIIWhitespace()
        guard let baseURL, let url = URL(string: trimmed, relativeTo: baseURL) else { return trimmed }
        return url.absoluteString
    }

    private func languageAttribute(_ element: GumboElement) -> String? {
        guard let value = attribute(element, "lang") ?? attribute(element, "xml:lang") else { return nil }
        let trimmed = value.trimmingASCIIWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    private func attribute(_ element: GumboElement, _ name: String) -> String? {
        var attributes = element.attributes
        guard let attribute = gumbo_get_attribute(&attributes, name), let value = attribute.pointee.value else {
            return nil
        }
        return String(cString: value)
    }

    private mutating func tag(_ element: GumboElement) -> Tag {
        let index = Int(element.tag.rawValue)
        if element.tag != GUMBO_TAG_UNKNOWN && index < knownTags.count {
            if let tag = knownTags[index] { return tag }
            let tag = Tag(gumbo_normalized_tagname(element.tag).map { String(cString: $0) } ?? "")
            knownTags[index] = tag
            return tag
        }
        // Custom elements: gumbo keeps only the source text of their tag.
        var piece = element.original_tag
        guard piece.data != nil, piece.length > 0 else { return Tag("") }
        gumbo_tag_from_original_text(&piece)
        guard let data = piece.data else { return Tag("") }
        return Tag(String(decoding: UnsafeRawBufferPointer(start: data, count: piece.length), as: UTF8.self).lowercased())
    }

    private func textContent(_ element: GumboElement) -> String {
        var text = ""
        for index in 0..<Int(element.children.length) {
            guard let child = element.children.data[index]?.assumingMemoryBound(to: GumboNode.self) else { continue }
            switch child.pointee.type {
            case GUMBO_NODE_TEXT, GUMBO_NODE_CDATA, GUMBO_NODE_WHITESPACE:
                if let value = child.pointee.v.text.text { text += String(cString: value) }
            default:
                break
            }
        }
        return text
    }

    private func child(of element: GumboElement, named tag: GumboTag) -> UnsafeMutablePointer<GumboNode>? {
        for index in 0..<Int(element.children.length) {
            guard let child = element.children.data[index]?.assumingMemoryBound(to: GumboNode.self),
                  child.pointee.type == GUMBO_NODE_ELEMENT, child.pointee.v.element.tag == tag else { continue }
            return child
        }
        return nil
    }
}

extension MarkupParser {
    /// The user-agent style sheet: a browser's defaults for the supported elements, in
    /// units relative to the base style.
    static let userAgentStyles: [String: [CSSDeclaration]] = {
        var css: [String: String] = [:]
        func add(_ tags: String, _ declarations: String) {
            for tag in tags.split(separator: " ") { css[String(tag), default: ""] += declarations + ";" }
        }
        add("""
            html body address article aside blockquote center details dialog dir div dl dt dd fieldset figcaption \
            figure footer form h1 h2 h3 h4 h5 h6 header hgroup legend listing main menu nav ol p plaintext pre \
            search section summary ul xmp table caption thead tbody tfoot tr td th optgroup frameset
            """, "display: block")
        add("li", "display: list-item")
        add("p dl figure pre xmp listing plaintext blockquote ul ol menu dir", "margin-top: 1em; margin-bottom: 1em")
        add("blockquote figure", "margin-inline-start: 30pt; margin-inline-end: 30pt")
        add("ul ol menu dir", "padding-inline-start: 18pt")
        add("dd", "margin-inline-start: 30pt")
        add("h1", "font-size: 2em; margin-top: 0.67em; margin-bottom: 0.67em")
        add("h2", "font-size: 1.5em; margin-top: 0.83em; margin-bottom: 0.83em")
        add("h3", "font-size: 1.17em; margin-top: 1em; margin-bottom: 1em")
        add("h4", "font-size: 1em; margin-top: 1.33em; margin-bottom: 1.33em")
        add("h5", "font-size: 0.83em; margin-top: 1.67em; margin-bottom: 1.67em")
        add("h6", "font-size: 0.67em; margin-top: 2.33em; margin-bottom: 2.33em")
        add("h1 h2 h3 h4 h5 h6 b strong th", "font-weight: bold")
        add("i em cite var dfn address", "font-style: italic")
        add("u ins", "text-decoration: underline")
        add("s strike del", "text-decoration: line-through")
        add("small", "font-size: 0.83em")
        add("big", "font-size: 1.17em")
        add("sub", "font-size: 0.83em; vertical-align: sub")
        add("sup", "font-size: 0.83em; vertical-align: super")
        add("pre xmp listing plaintext", "white-space: pre")
        add("textarea", "white-space: pre-wrap")
        add("pre xmp listing plaintext code tt kbd samp textarea", "font-family: -galley-monospace")
        add("hr", "display: block; margin-top: 0.5em; margin-bottom: 0.5em")
        add("center th caption", "text-align: center")
        return css.mapValues { StyleSheet.declarations(in: $0) }
    }()
}

// MARK: - Charsets

/// Turns article bytes into UTF-8, which is what gumbo reads.
enum TextDecoding {
    struct Decoded {
        var utf8: [UInt8]
        var warnings: [String] = []
    }

    /// HTML: byte order mark, else the declared charset (unless the bytes are valid UTF-8
    /// with non-ASCII characters), else UTF-8.
    static func decode(html bytes: [UInt8]) -> Decoded {
        if let mark = byteOrderMark(bytes) {
            return convert(bytes[mark.length...], iconvNames: [mark.encoding], label: mark.encoding)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return utf8(bytes[3...]) }
        guard let label = declaredCharset(bytes) else { return utf8(bytes[...]) }
        if utf8Labels.contains(label) { return utf8(bytes[...]) }
        // Pages saved from a server that sent UTF-8 often keep a stale `<meta>`; text in a
        // legacy charset with non-ASCII bytes is practically never valid UTF-8.
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) != nil {
            return Decoded(utf8: bytes, warnings: ["charset \"\(label)\" declared but the bytes are UTF-8; read as UTF-8"])
        }
        let names = iconvNames[label] ?? [label.uppercased()]
        return convert(bytes[...], iconvNames: names, label: label)
    }

    /// Plain text: byte order mark, else UTF-8.
    static func decode(plainText bytes: [UInt8]) -> Decoded {
        if let mark = byteOrderMark(bytes) {
            return convert(bytes[mark.length...], iconvNames: [mark.encoding], label: mark.encoding)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return utf8(bytes[3...]) }
        return utf8(bytes[...])
    }

    /// UTF-16 byte order marks (UTF-8's is handled by the callers).
    private static func byteOrderMark(_ bytes: [UInt8]) -> (length: Int, encoding: String)? {
        if bytes.starts(with: [0xFF, 0xFE]) { return (2, "UTF-16LE") }
        if bytes.starts(with: [0xFE, 0xFF]) { return (2, "UTF-16BE") }
        return nil
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>) -> Decoded {
        if String(validating: bytes, as: UTF8.self) != nil {
            return Decoded(utf8: Array(bytes))
        }
        return Decoded(utf8: Array(String(decoding: bytes, as: UTF8.self).utf8),
                       warnings: ["invalid UTF-8 sequences replaced by U+FFFD"])
    }

    /// WHATWG labels that mean UTF-8, and the UTF-16 ones, which a `<meta>` readable as ASCII
    /// cannot truly mean (the HTML standard treats them as UTF-8).
    private static let utf8Labels: Set<String> = [
        "utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8",
        "utf-16", "utf-16le", "utf-16be", "unicode", "ucs-2", "unicodefffe",
    ]

    /// WHATWG encoding labels and the glibc iconv names that decode them (the first that
    /// opens is used); supersets where the web uses them (windows-1252 for Latin-1, CP932
    /// for Shift_JIS, GB18030 for GBK and GB2312, Big5-HKSCS for Big5, CP949 for EUC-KR).
    /// Other labels go to iconv as they are.
    private static let iconvNames: [String: [String]] = {
        var table: [String: [String]] = [:]
        func add(_ labels: String, _ names: [String]) {
            for label in labels.split(separator: " ") { table[String(label)] = names }
        }
        add("""
            ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 \
            iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252 x-user-defined
            """, ["CP1252"])
        add("csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis", ["CP932", "SHIFT_JIS"])
        add("cseucpkdfmtjapanese euc-jp x-euc-jp", ["EUC-JP-MS", "EUC-JP"])
        add("csiso2022jp iso-2022-jp", ["ISO-2022-JP"])
        add("""
            chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk gb18030 \
            cp936 ms936 windows-936
            """, ["GB18030", "GBK"])
        add("big5 big5-hkscs cn-big5 csbig5 x-x-big5", ["BIG5-HKSCS", "BIG5"])
        add("""
            cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 \
            windows-949
            """, ["CP949", "EUC-KR"])
        add("dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874", ["CP874"])
        add("iso-8859-9 iso8859-9 iso88599 latin5 l5 windows-1254", ["CP1254"])
        add("x-mac-cyrillic x-mac-ukrainian", ["MAC-CYRILLIC"])
        add("macintosh mac csmacintosh x-mac-roman", ["MACINTOSH"])
        return table
    }()

    /// The charset named by an XML declaration or a `<meta>` in the first 4 KB, lower-cased.
    static func declaredCharset(_ bytes: [UInt8]) -> String? {
        let head = bytes.prefix(4096).map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }[...]
        if head.starts(with: Array("<?xml".utf8)), let end = find(Array("?>".utf8), in: head, from: 0),
           let label = value(after: Array("encoding".utf8), in: head[..<end]) {
            return label
        }
        var from = 0
        while let meta = find(Array("<meta".utf8), in: head, from: from) {
            let end = find([UInt8(ascii: ">")], in: head, from: meta) ?? head.count
            if let label = value(after: Array("charset".utf8), in: head[meta..<end]) { return label }
            from = end
        }
        return nil
    }

    /// The value of `name = value` (quotes optional) in `text`, trying each occurrence of `name`.
    private static func value(after name: [UInt8], in text: ArraySlice<UInt8>) -> String? {
        var from = text.startIndex
        while let found = find(name, in: text, from: from) {
            var i = found + name.count
            from = i
            while i < text.endIndex, [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(text[i]) { i += 1 }
            guard i < text.endIndex, text[i] == UInt8(ascii: "=") else { continue }
            i += 1
            while i < text.endIndex, [0x20, 0x09, 0x0A, 0x0D, 0x0C, 0x22, 0x27].contains(text[i]) { i += 1 }
            let start = i
            while i < text.endIndex, isLabelByte(text[i]) { i += 1 }
            if i > start { return String(decoding: text[start..<i], as: UTF8.self) }
        }
        return nil
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
            || byte == 0x2E || byte == 0x3A
    }

    /// The index of the first `needle` in `haystack` at or after `start`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>, from start: Int) -> Int? {
        guard !needle.isEmpty else { return nil }
        var i = max(haystack.startIndex, start)
        while i + needle.count <= haystack.endIndex {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// Converts with the first iconv name that opens; falls back to UTF-8 when none does.
    private static func convert(_ bytes: ArraySlice<UInt8>, iconvNames names: [String], label: String) -> Decoded {
        for name in names {
            if let converted = iconvToUTF8(bytes, from: name) {
                var decoded = Decoded(utf8: converted.utf8)
                if converted.invalid > 0 {
                    decoded.warnings.append("\(converted.invalid) byte sequences invalid in \(label) replaced by U+FFFD")
                }
                return decoded
            }
        }
        var decoded = utf8(bytes)
        decoded.warnings.insert("charset \"\(label)\" not supported; read as UTF-8", at: 0)
        return decoded
    }

    /// glibc iconv to UTF-8; each invalid byte becomes U+FFFD (the conversion resumes at the
    /// next byte), as does a truncated sequence at the end. Nil if iconv cannot open `name`.
    static func iconvToUTF8(_ bytes: ArraySlice<UInt8>, from name: String) -> (utf8: [UInt8], invalid: Int)? {
        guard let converter = iconv_open("UTF-8", name), Int(bitPattern: converter) != -1 else { return nil }
        defer { iconv_close(converter) }
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3 / 2 + 16)
        var invalid = 0
        var input = Array(bytes)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        input.withUnsafeMutableBufferPointer { inputBuffer in
            chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                guard let chunkStart = chunkBuffer.baseAddress else { return }
                var inPointer = inputBuffer.baseAddress.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self) }
                var inLeft = inputBuffer.count
                var flushing = false
                while true {
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(chunkStart).assumingMemoryBound(to: CChar.self)
                    var outLeft = chunkBuffer.count
                    let result: Int
                    if inLeft > 0 {
                        result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                    } else {
                        flushing = true  // Ends a stateful encoding's shift sequence.
                        result = iconv(converter, nil, nil, &outPointer, &outLeft)
                    }
                    let error = errno
                    output.append(contentsOf: chunkBuffer[0..<(chunkBuffer.count - outLeft)])
                    if result != -1 {
                        if flushing { break }
                        continue
                    }
                    if error == E2BIG { continue }
                    guard inLeft > 0 else { break }
                    output.append(contentsOf: replacement)
                    invalid += 1
                    if error == EINVAL {
                        inLeft = 0  // A truncated sequence at the end.
                    } else {
                        inPointer = inPointer.map { $0 + 1 }
                        inLeft -= 1
                    }
                }
            }
        }
        return (output, invalid)
    }
}

// MARK: - Nesting limits

/// Drops start tags that would make gumbo's work grow faster than the input.
///
/// gumbo 0.10.1 looks up element scopes by walking the stack of open elements (200,000 nested
/// `<div>`s take two minutes) and reopens every active formatting element in each new block
/// (20,000 unclosed `<font color=…>` in as many paragraphs need 24 GB). So, while following a
/// rough model of the HTML tree builder (implied end tags of `p`, `li`, `dd`, `td`, ...,
/// formatting elements with markers and the Noah's Ark rule), start tags beyond a depth of 200
/// or beyond 16 active formatting elements are removed from the input. Only tags go: text is
/// kept. Documents within the limits pass through untouched.
enum NestingLimiter {
    static let maximumDepth = 200
    static let maximumActiveFormatting = 16

    /// The markup with the excess start tags removed, and how many there were.
    static func limit(_ html: [UInt8]) -> (html: [UInt8], droppedTags: Int) {
        var model = TreeModel()
        let dropped = html.withUnsafeBufferPointer { model.excessTags(in: $0) }
        guard !dropped.isEmpty else { return (html, 0) }
        var output: [UInt8] = []
        output.reserveCapacity(html.count)
        var copied = 0
        for range in dropped {
            output.append(contentsOf: html[copied..<range.lowerBound])
            copied = range.upperBound
        }
        output.append(contentsOf: html[copied...])
        return (output, dropped.count)
    }

    private static func names(_ list: String) -> Set<[UInt8]> {
        Set(list.split(separator: " ").map { Array($0.utf8) })
    }

    /// What the model does with an element, looked up once per tag.
    struct Category: OptionSet, Hashable {
        let rawValue: Int
        static let void = Category(rawValue: 1 << 0)
        static let rawText = Category(rawValue: 1 << 1)
        static let formatting = Category(rawValue: 1 << 2)
        static let marker = Category(rawValue: 1 << 3)
        static let closesParagraph = Category(rawValue: 1 << 4)
        static let heading = Category(rawValue: 1 << 5)
        static let foreignRoot = Category(rawValue: 1 << 6)
        static let document = Category(rawValue: 1 << 7)
    }

    static let categories: [[UInt8]: Category] = {
        var table: [[UInt8]: Category] = [:]
        let sets: [(Set<[UInt8]>, Category)] = [
            (voidElements, .void), (rawTextElements, .rawText), (formattingElements, .formatting),
            (markerElements, .marker), (closesParagraph, .closesParagraph), (headings, .heading),
            (foreignRoots, .foreignRoot), (documentElements, .document),
        ]
        for (names, category) in sets {
            for name in names { table[name, default: []].insert(category) }
        }
        return table
    }()

    static let voidElements = names("""
        area base basefont bgsound br col command embed frame hr image img input keygen link menuitem meta param \
        source track wbr
        """)
    /// Elements whose content the tokenizer reads as text up to their end tag.
    static let rawTextElements = names("script style textarea title xmp iframe noembed noframes")
    static let formattingElements = names("a b big code em font i nobr s small strike strong tt u")
    /// Elements that put a marker in the list of active formatting elements.
    static let markerElements = names("td th caption marquee object applet template")
    static let closesParagraph = names("""
        address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form \
        h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre section summary table ul li dd dt listing xmp \
        plaintext search
        """)
    static let headings = names("h1 h2 h3 h4 h5 h6")
    static let listRoots = names("ul ol menu dir")
    static let documentElements = names("html head body")
    static let definitionRoots = names("dl")
    static let rowRoots = names("tr table")
    static let tableRoots = names("table")
    static let paragraph = Array("p".utf8)
    static let listItem = Array("li".utf8)
    static let term = Array("dt".utf8)
    static let definition = Array("dd".utf8)
    static let cell = Array("td".utf8)
    static let headerCell = Array("th".utf8)
    static let row = Array("tr".utf8)
    static let option = Array("option".utf8)
    static let anchor = Array("a".utf8)
    static let plaintext = Array("plaintext".utf8)
    static let foreignRoots = names("svg math")

    /// The open elements and active formatting elements of the tree builder, roughly.
    private struct TreeModel {
        var open: [[UInt8]] = []
        /// How many elements of each name are open, to skip most searches of `open`.
        var openCounts: [[UInt8]: Int] = [:]
        /// Active formatting elements: tag name and a key of the whole tag; nil is a marker.
        var active: [(name: [UInt8], key: Int)?] = []
        var foreignDepth = 0

        mutating func excessTags(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
            var dropped: [Range<Int>] = []
            let count = bytes.count
            var i = 0
            while i < count {
                guard let lessThan = Self.index(of: UInt8(ascii: "<"), in: bytes, from: i) else { break }
                i = lessThan + 1
                guard i < count else { break }
                let c = bytes[i]
                if c == UInt8(ascii: "!") {
                    if i + 2 < count && bytes[i + 1] == UInt8(ascii: "-") && bytes[i + 2] == UInt8(ascii: "-") {
                        i = Self.endOfComment(in: bytes, from: i + 3)
                    } else {
                        i = Self.after(UInt8(ascii: ">"), in: bytes, from: i)
                    }
                } else if c == UInt8(ascii: "?") {
                    i = Self.after(UInt8(ascii: ">"), in: bytes, from: i)
                } else if c == UInt8(ascii: "/") {
                    guard i + 1 < count, Self.isLetter(bytes[i + 1]) else {
                        i = Self.after(UInt8(ascii: ">"), in: bytes, from: i)
                        continue
                    }
                    let (name, afterName) = Self.name(in: bytes, from: i + 1)
                    i = Self.after(UInt8(ascii: ">"), in: bytes, from: afterName)
                    endTag(name)
                } else if Self.isLetter(c) {
                    let (name, afterName) = Self.name(in: bytes, from: i)
                    guard let tagEnd = Self.endOfTag(in: bytes, from: afterName) else { break }
                    let end = tagEnd.end
                    i = end
                    let category = categories[name] ?? []
                    var key = 0
                    if category.contains(.formatting) {
                        var hasher = Hasher()
                        hasher.combine(name)
                        hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[afterName..<end])))
                        key = hasher.finalize()
                    }
                    if !startTag(name, category: category, key: key, selfClosing: tagEnd.selfClosing) {
                        dropped.append(lessThan..<end)
                    }
                    if name == plaintext { break }
                    if category.contains(.rawText) && foreignDepth == 0 {
                        i = Self.endTag(name, in: bytes, from: i)
                    }
                }
            }
            return dropped
        }

        /// Updates the model for a start tag; false when the tag is to be dropped.
        private mutating func startTag(_ name: [UInt8], category: Category, key: Int, selfClosing: Bool) -> Bool {
            if category.contains(.void) || (selfClosing && foreignDepth > 0) { return true }
            if category.contains(.rawText) && foreignDepth == 0 { return true }
            if category.contains(.document) { return true }
            if category.contains(.closesParagraph), let index = lastOpen([paragraph]) {
                pop(to: index)
            }
            if name == listItem {
                if let index = lastOpen([listItem], stoppingAt: listRoots) { pop(to: index) }
            } else if name == term || name == definition {
                if let index = lastOpen([term, definition], stoppingAt: definitionRoots) { pop(to: index) }
            } else if name == cell || name == headerCell {
                if let index = lastOpen([cell, headerCell], stoppingAt: rowRoots) { pop(to: index) }
            } else if name == row {
                if let index = lastOpen([row], stoppingAt: tableRoots) { pop(to: index) }
            } else if name == option {
                if open.last == option { pop(to: open.count - 1) }
            } else if name == anchor {
                removeActive(name)
                if let index = lastOpen([anchor]) { pop(to: index) }
            } else if category.contains(.heading), let last = open.last, headings.contains(last) {
                pop(to: open.count - 1)
            }
            let isFormatting = category.contains(.formatting)
            if open.count >= maximumDepth || (isFormatting && activeSinceMarker() >= maximumActiveFormatting) {
                return false
            }
            open.append(name)
            openCounts[name, default: 0] += 1
            if category.contains(.foreignRoot) { foreignDepth += 1 }
            if category.contains(.marker) { active.append(nil) }
            if isFormatting {
                // Noah's Ark: at most three identical entries after the last marker.
                var identical: [Int] = []
                for index in active.indices.reversed() {
                    guard let entry = active[index] else { break }
                    if entry.key == key { identical.append(index) }
                }
                if identical.count >= 3, let earliest = identical.last { active.remove(at: earliest) }
                active.append((name, key))
            }
            return true
        }

        private mutating func endTag(_ name: [UInt8]) {
            if formattingElements.contains(name) { removeActive(name) }
            if let index = lastOpen([name]) { pop(to: index) }
        }

        private func activeSinceMarker() -> Int {
            var count = 0
            for entry in active.reversed() {
                guard entry != nil else { break }
                count += 1
            }
            return count
        }

        private mutating func removeActive(_ name: [UInt8]) {
            for index in active.indices.reversed() {
                guard let entry = active[index] else { return }
                if entry.name == name {
                    active.remove(at: index)
                    return
                }
            }
        }

        /// The index of the topmost open element named one of `names`, unless one of
        /// `boundaries` is above it.
        private func lastOpen(_ names: [[UInt8]], stoppingAt boundaries: Set<[UInt8]> = []) -> Int? {
            guard names.contains(where: { openCounts[$0, default: 0] > 0 }) else { return nil }
            for index in open.indices.reversed() {
                if names.contains(open[index]) { return index }
                if boundaries.contains(open[index]) { return nil }
            }
            return nil
        }

        /// Closes the open element at `index` and those above it.
        private mutating func pop(to index: Int) {
            while open.count > index {
                let name = open.removeLast()
                openCounts[name, default: 1] -= 1
                if foreignRoots.contains(name) { foreignDepth -= 1 }
                if markerElements.contains(name) {
                    while let entry = active.popLast(), entry != nil {}
                }
            }
        }

        // MARK: Tokenizing

        static func isLetter(_ byte: UInt8) -> Bool {
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }

        static func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
        }

        static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
            guard start < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }

        /// The index after the next `byte`, or the end.
        static func after(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
            index(of: byte, in: bytes, from: start).map { $0 + 1 } ?? bytes.count
        }

        static func endOfComment(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
            var i = start
            while let dash = index(of: UInt8(ascii: "-"), in: bytes, from: i) {
                if dash + 2 < bytes.count && bytes[dash + 1] == UInt8(ascii: "-") && bytes[dash + 2] == UInt8(ascii: ">") {
                    return dash + 3
                }
                i = dash + 1
            }
            return bytes.count
        }

        /// A tag name, lower-cased, and the index after it.
        static func name(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> ([UInt8], Int) {
            var name: [UInt8] = []
            var i = start
            while i < bytes.count {
                let byte = bytes[i]
                if isSpace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") { break }
                name.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
                i += 1
            }
            return (name, i)
        }

        /// The index after a start tag's `>` and whether it ends with `/>`; nil if the input
        /// ends inside the tag (gumbo then drops it).
        static func endOfTag(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, selfClosing: Bool)? {
            var i = start
            var selfClosing = false
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: ">") { return (i + 1, selfClosing) }
                if byte == UInt8(ascii: "/") {
                    selfClosing = true
                    i += 1
                } else if byte == UInt8(ascii: "=") {
                    selfClosing = false
                    i += 1
                    while i < bytes.count && isSpace(bytes[i]) { i += 1 }
                    if i < bytes.count && (bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'")) {
                        guard let close = index(of: bytes[i], in: bytes, from: i + 1) else { return nil }
                        i = close + 1
                    }
                } else {
                    if !isSpace(byte) { selfClosing = false }
                    i += 1
                }
            }
            return nil
        }

        /// The index of `</name` closing a raw-text element, or the end.
        static func endTag(_ name: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
            var i = start
            while let lessThan = index(of: UInt8(ascii: "<"), in: bytes, from: i) {
                let nameStart = lessThan + 2
                if nameStart + name.count <= bytes.count, bytes[lessThan + 1] == UInt8(ascii: "/") {
                    var matches = true
                    for (offset, expected) in name.enumerated() {
                        let byte = bytes[nameStart + offset]
                        if ((0x41...0x5A).contains(byte) ? byte + 0x20 : byte) != expected {
                            matches = false
                            break
                        }
                    }
                    let after = nameStart + name.count
                    if matches && (after == bytes.count || isSpace(bytes[after]) || bytes[after] == UInt8(ascii: ">")
                                   || bytes[after] == UInt8(ascii: "/")) {
                        return lessThan
                    }
                }
                i = lessThan + 1
            }
            return bytes.count
        }
    }
}
