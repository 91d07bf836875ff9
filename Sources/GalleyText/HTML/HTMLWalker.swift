import CGumbo
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Walks gumbo's tree in document order with an explicit stack (deep documents cannot
/// overflow the call stack), computing each element's style and feeding the builder.
struct HTMLWalker {
    /// An element being walked, with its position among its children.
    private struct Frame {
        var children: GumboVector
        var next = 0
        var style: ComputedStyle
        /// Names `style` for `styleMemo`: frames with the same id have the same style.
        var styleID: Int
        /// Paragraph attributes for text directly inside this element.
        var paragraph: ParagraphStyle
        var list: ListState?
        /// The element as selectors see it, kept when the style sheets have selectors that
        /// look at ancestors.
        var element: CSSElement?
        /// Element children entered so far (for `:first-child`).
        var elementChildren = 0
        /// The last of them as selectors see it, for sibling combinators (with `element`).
        var lastChild: CSSElement.Sibling?
        /// What the element is in the table being built, if anything.
        var tableRole: TableRole?
        /// Index in `builder.boxes` of the element's box, if it draws one.
        var boxIndex: Int?
        /// Index in `builder.boxTree` of the element's block box, if it is a block.
        var node: Int?
        /// Whether the element is the floated block being built (`openFloat`).
        var floats = false
        /// The element's tag, for the pieces of a table cut between rows (`nextPiece`).
        var tag = GUMBO_TAG_UNKNOWN
        /// Whether the element is an inline-block, its content built apart (`interruptedFlows`).
        var opensInlineBlock = false
    }

    /// A block floated to a side, open: where its paragraphs start, and the margin waiting
    /// above it, which the block after it takes instead (a float is out of the flow, so the
    /// margins before and after it collapse together).
    private struct OpenFloat {
        var block: FloatedBlock
        var marginBefore: Double
    }
    private var openFloat: OpenFloat?

    /// What an element is in the table being built. A table inside a cell is built as a grid
    /// of its own (`TextTable.nested`), down to `TextTable.maximumNesting` levels; a deeper
    /// one, or one outside the cells (in a caption), is set as paragraphs where it is, one
    /// cell under another, with a warning (`nestedTable`).
    private enum TableRole { case table, nestedTable, rowGroup, row, cell, caption, column, columnGroup }

    /// An anonymous table (CSS 2.1 §17.2.1) open around `display: table-row-group`, `-row` or
    /// `-cell` elements that are in no table: the depth of `frames` its parts are children at.
    /// It ends before a sibling that is not a table part (an element or text), or with their
    /// parent.
    private var anonymousTableDepth: Int?

    /// Whether the last text walked ended inside a word (`text-transform: capitalize`
    /// starts no word at the start of the next).
    private var textEndsInWord = false

    /// The counters in scope and what `::before` and `::after` boxes show.
    private var generated = GeneratedContent()
    /// The `::after` box of an open element that has one, by the index its frame has: its
    /// style and the element its `attr()` reads, set when the element ends.
    private var pendingAfters: [Int: (style: ComputedStyle, element: CSSElement)] = [:]

    /// The innermost open table: its rows so far, the row and cell being read, and the grid's
    /// columns still covered by rowspans from the rows above.
    private struct OpenTable {
        var table = TextTable(paragraphs: 0..<0, rows: [])
        var row: [TextTable.Cell]?
        var cellStart: Int?
        var cell = TextTable.Cell(paragraphs: 0..<0, column: 0)
        /// Rows still covered by a rowspan, per grid column, counting the current one.
        var spans: [Int] = []
        var inHeader = false
        var firstCell = true
        /// The row open is an anonymous one, around cells in a table or row group without a
        /// row of their own: it ends before the next row or row group, or with them.
        var anonymousRow = false
        /// HTML `cellpadding` (points) and whether `border` asks for cell borders.
        var cellPadding: Double?
        var cellBorders = false
        /// Markup that cannot be a grid (too many columns, content outside cells).
        var broken = false
        /// Backgrounds of the row and row group being read, for their cells that have none
        /// (CSS paints them under the cells).
        var rowBackground: RGBColor?
        var groupBackground: RGBColor?
        /// The next grid column a `<col>` describes.
        var nextColumnElement = 0
        /// The `<colgroup>` open: its background, under its columns', and the column it
        /// starts at (one with no `<col>` inside stands for `span` columns itself).
        var columnGroupBackground: RGBColor?
        var columnGroup: (start: Int, span: Int, width: Double?, widthFraction: Double?)?
        /// The paragraph the table's content starts at: where the margin above the table
        /// goes back to when it is set as paragraphs after all.
        var firstParagraph = 0
        /// The caption being read: its first paragraph, its box, and whether it is drawn below.
        var captionStart: Int?
        var caption = TextTable.Caption(paragraphs: 0..<0, style: TextTable.CellStyle(), bottom: false)
        /// `empty-cells: hide` on the cell being read.
        var cellHidesWhenEmpty = false
    }

    /// Numbering of an open `ul` or `ol`.
    private struct ListState {
        var ordered: Bool
        var next: Int
        var step: Int
        /// 1 for a top-level list.
        var depth: Int
    }

    private let base: BaseStyle
    private let baseURL: URL?
    private var sheet = StyleSheet()
    private var builder = AttributedTextBuilder()
    private var frames: [Frame] = []
    /// Indices in `frames` of the open lists.
    private var listFrames: [Int] = []
    /// What the walker needs to know of each gumbo tag, filled in on first use.
    private var knownTags: [Tag?] = Array(repeating: nil, count: Int(GUMBO_TAG_LAST.rawValue) + 1)
    private var title: String?
    private var author: String?
    /// The language `<meta http-equiv="content-language" content="…">` sets for a document
    /// whose root has no `lang`.
    private var pragmaLanguage: String?
    /// The article's writing mode, and the element that declared it.
    private var writingMode: (mode: WritingMode, element: String)?
    /// The first `<html>` and `<body>` backgrounds: the page's (`ParsedArticle.pageBackground`).
    private var rootBackground: RGBColor?
    private var bodyBackground: RGBColor?
    /// Writing-mode declarations not followed, as warnings.
    private var writingModeWarnings: [String] = []
    /// How often each of `writingModeWarnings` came up: one warning per kind, with its count.
    private var writingModeWarningCounts: [String: Int] = [:]
    /// Element styles already computed, with their ids (`Frame.styleID`). Most elements are a
    /// `p` or an `em` with no attributes inside a parent of the same style, and computing a
    /// style runs the element's CSS declarations, so it is done once per distinct `StyleKey`.
    private var styleMemo: [StyleKey: (style: ComputedStyle, id: Int)] = [:]
    /// The id the next computed style gets; 0 is the root's.
    private var nextStyleID = 1
    /// Entries `styleMemo` holds at most; past this it starts over (a page whose every element
    /// has its own `id`).
    private static let styleMemoLimit = 4096

    /// Everything an element's style depends on besides the style sheets and the base style,
    /// which stay the same through a walk.
    private struct StyleKey: Hashable {
        var parent: Int
        var tag: String
        /// A list inside another list, which loses its vertical margins.
        var nestedList: Bool
        /// Every attribute's name and value, NUL-terminated, in document order.
        var attributes: [UInt8]
    }

    /// The next children of the body (false) or of the row group of a body-level table that
    /// was cut between its rows (true) when its current ones run out: the next piece of a
    /// document parsed in pieces (`HTMLPieces`), and whether it holds rows; nil when there is
    /// none (or, asked for rows, when the body goes on). Asked for the body, it may give rows:
    /// those of a table that was not walked (hidden). The children it returned before are not
    /// used again, nor are those of the elements around that table.
    var nextPiece: ((_ inTable: Bool) -> (children: GumboVector, inTable: Bool)?)?
    /// Index in `frames` of `<body>`'s frame, once entered.
    private var bodyFrame: Int?
    /// Non-white-space characters of the text read from the source: what is shown, and what
    /// an unclosed raw-text element swallowed.
    private(set) var sourceCharacters = 0
    /// Raw-text elements never closed whose text holds markup: the rest of the document was
    /// read as their text. Name, line, the byte offset just after the start tag, and the
    /// characters swallowed.
    private(set) var unclosedRawText: [(name: String, line: Int, afterStartTag: Int, characters: Int)] = []
    /// Elements whose content is text up to their end tag, so that an unclosed one swallows
    /// the rest of the document.
    private static let rawTextElements: Set<String> = ["iframe", "noembed", "noframes", "xmp", "textarea", "title", "style"]

    private var openTable: OpenTable?
    /// The tables `openTable` is nested in, outermost first: each waits in one of its cells.
    private var enclosingTables: [OpenTable] = []
    /// Tables open inside `openTable` that are set as paragraphs (too deep, or in a caption).
    private var nestedTableDepth = 0
    private var nestedTables = 0
    /// Tables set as paragraphs because they cannot be a grid.
    private var flattenedTables = 0

    private let styleSheetLoader: (@Sendable (String) -> StyleSheetLoad)?
    /// Style sheets not read, as warnings.
    /// Style sheets not read, and why.
    private var styleSheetWarnings: [(href: String, reason: String)] = []
    /// CSS properties Galley does not support, with how many computed styles declared them.
    private var ignoredProperties: [String: Int] = [:]
    /// Elements left out by `display: none`, and their characters.
    private var hiddenElements = 0
    /// `<object>` and `<embed>` elements that hold something other than a picture (a plugin, a
    /// frame), with no fallback content to set in their place, by type.
    private var unsetObjects: [String: Int] = [:]
    private var hiddenCharacters = 0

    init(base: BaseStyle, baseURL: URL?, styleSheetLoader: (@Sendable (String) -> StyleSheetLoad)? = nil,
         unavailablePictures: Set<String> = []) {
        self.base = base
        self.baseURL = baseURL
        self.styleSheetLoader = styleSheetLoader
        self.unavailablePictures = unavailablePictures
    }

    /// `MarkupParser.unavailablePictures`.
    private let unavailablePictures: Set<String>

    /// Elements whose content is not shown: scripts, style sheets, the head, and raw-text
    /// elements whose content is markup source.
    private static let skippedElements: Set<String> = ["script", "style", "template", "title", "head", "iframe", "noembed", "noframes"]
    private static let listElements: Set<String> = ["ul", "ol", "menu", "dir"]
    /// The elements that make up a table.
    private static let tableParts: Set<String> = ["table", "caption", "thead", "tbody", "tfoot", "tr", "td", "th", "col", "colgroup"]

    /// An element name with what the walker does with it.
    private struct Tag {
        var name: String
        var isSkipped: Bool
        var isList: Bool
        var userAgentStyle: [CSSDeclaration]

        init(_ name: String) {
            self.name = name
            isSkipped = HTMLWalker.skippedElements.contains(name)
            isList = HTMLWalker.listElements.contains(name)
            userAgentStyle = StyleSheet.userAgent.declarations(tag: name, id: nil, classes: [])
        }
    }

    mutating func article(from output: GumboOutput) -> ParsedArticle {
        collectStyleSheetsAndTitle(output.document)
        // One line per kind: the sheets refused for one reason together, then what was passed over.
        var warnings = Self.grouped(styleSheetWarnings)
        if sheet.unsupportedSelectorCount > 0 {
            warnings.append("style sheet: \(sheet.unsupportedSelectorCount) selector\(sheet.unsupportedSelectorCount == 1 ? "" : "s") not supported "
                            + "(pseudo-classes but :first-child, pseudo-elements but ::before, ::after, ::first-letter and ::first-line); their rules ignored")
        }
        if sheet.skippedAtRuleCount > 0 {
            let names = sheet.skippedAtRules.sorted { $0.key < $1.key }.map { $0.value == 1 ? $0.key : "\($0.key) ×\($0.value)" }
            warnings.append("style sheet: \(sheet.skippedAtRuleCount) at-rule\(sheet.skippedAtRuleCount == 1 ? "" : "s") not supported, ignored: "
                            + names.joined(separator: ", "))
        }
        if !sheet.pagedMedia.unsupported.isEmpty {
            warnings.append("style sheet: not supported, ignored: " + sheet.pagedMedia.unsupported.joined(separator: ", "))
        }
        var language: String?
        if let root = output.root, root.pointee.type == GUMBO_NODE_ELEMENT {
            language = languageAttribute(root.pointee.v.element)
            if language == nil, let body = child(of: root.pointee.v.element, named: GUMBO_TAG_BODY) {
                language = languageAttribute(body.pointee.v.element)
            }
        }
        if language == nil { language = pragmaLanguage }
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
                if top == bodyFrame || continuesTable(top), let next = nextPiece?(top != bodyFrame) {
                    if next.inTable && top == bodyFrame {
                        // Rows of a hidden table or row group, left out.
                        hiddenCharacters += visibleCharacters(in: next.children)
                        continue
                    }
                    frames[top].children = next.children
                    frames[top].next = 0
                    continue
                }
                exit(frames.removeLast())
                continue
            }
            frames[top].next += 1
            guard let child = frames[top].children.data[index] else { continue }
            visit(child.assumingMemoryBound(to: GumboNode.self))
        }
        if nestedTables > 0 {
            warnings.append("\(nestedTables) tables nested more than \(TextTable.maximumNesting) levels deep in table cells (or in a caption) were set as paragraphs in their cells, one cell under another")
        }
        if flattenedTables > 0 {
            warnings.append("\(flattenedTables) tables could not be set as grids (more than \(TextTable.maximumColumns) columns, or "
                            + "content outside their cells) and were set as paragraphs, one cell under another")
        }
        for (type, count) in unsetObjects.sorted(by: { $0.key < $1.key }) {
            warnings.append("\(count) <object> or <embed> element\(count == 1 ? "" : "s") of type \(type) not set: only pictures are drawn, and \(count == 1 ? "it has" : "they have") no fallback content")
        }
        if hiddenElements > 0 {
            warnings.append("\(hiddenElements) elements hidden by display: none were left out "
                            + "(\(hiddenCharacters) characters of text)")
        }
        var article = ParsedArticle(text: builder.finish(), title: title, language: language, writingMode: writingMode?.mode,
                                    warnings: warnings + writingModeWarnings.map { warning in
                                        let count = writingModeWarningCounts[warning, default: 1]
                                        return count > 1 ? "\(warning) (\(count) elements)" : warning
                                    })
        article.author = author
        article.pageBackground = rootBackground ?? bodyBackground
        article.sourceCharacters = sourceCharacters
        article.ignoredProperties = ignoredProperties
        article.text.pagedMedia.rules = sheet.pagedMedia.rules
        return article
    }

    /// Whether frame `index` is the row group of a body-level table ending a piece: it, its
    /// table and the body have no children left, so a piece cut between rows may follow.
    private func continuesTable(_ index: Int) -> Bool {
        guard let body = bodyFrame, index == body + 2, frames[index].tag == GUMBO_TAG_TBODY,
              frames[index - 1].tag == GUMBO_TAG_TABLE else { return false }
        return frames[body...].allSatisfy { $0.next >= Int($0.children.length) }
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
        character.unicodeScalars.allSatisfy { $0.isHTMLWhitespace }
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
                        if Self.appliesToPrint(attribute(element, "media")) { addStyleSheet(textContent(element), href: nil, depth: 0) }
                        continue
                    }
                    if element.tag == GUMBO_TAG_LINK, let href = attribute(element, "href"),
                       let rel = attribute(element, "rel"), rel.lowercased().split(whereSeparator: Self.isHTMLWhitespace).contains("stylesheet"),
                       Self.appliesToPrint(attribute(element, "media")) {
                        loadStyleSheet(href.trimmingASCIIWhitespace(), depth: 0)
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
                    if element.tag == GUMBO_TAG_META, attribute(element, "http-equiv")?.trimmingASCIIWhitespace().lowercased() == "content-language",
                       let content = attribute(element, "content"), !content.contains(",") {
                        // HTML's pragma-set default language: the first word of the content,
                        // a list of several languages sets none; the last such element wins.
                        let first = content.split(whereSeparator: Self.isHTMLWhitespace).first.map(String.init)
                        if let first { pragmaLanguage = first }
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

    /// Whether a `media` attribute includes print: absent, empty, or a list naming `print`,
    /// `all` or no media type.
    private static func appliesToPrint(_ media: String?) -> Bool {
        guard let media = media?.trimmingASCIIWhitespace().lowercased(), !media.isEmpty else { return true }
        return StyleSheet.isPrintMedia("@media " + media)
    }

    /// Style sheets refused for the same reason, in one line: `style sheets "a.css", "b.css": outside the input folder`.
    static func grouped(_ refusals: [(href: String, reason: String)]) -> [String] {
        var order: [String] = [], hrefs: [String: [String]] = [:]
        for (href, reason) in refusals {
            if hrefs[reason] == nil { order.append(reason) }
            if hrefs[reason]?.contains(href) != true { hrefs[reason, default: []].append(href) }
        }
        return order.map { reason in
            let names = hrefs[reason] ?? []
            let shown = names.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ") + (names.count > 5 ? " and \(names.count - 5) more" : "")
            return "style sheet\(names.count == 1 ? "" : "s") \(shown): \(reason)"
        }
    }

    /// Reads a linked or imported style sheet through the loader, warning when it cannot.
    private mutating func loadStyleSheet(_ href: String, depth: Int) {
        guard let styleSheetLoader else { return }
        guard depth < 8 else {
            styleSheetWarnings.append((href, "@import nested more than 8 deep; not read"))
            return
        }
        switch styleSheetLoader(href) {
        case .css(let css): addStyleSheet(css, href: href, depth: depth)
        case .refused(let reason): styleSheetWarnings.append((href, reason))
        }
    }

    /// Adds a style sheet's rules after following its `@import`s (which come first in a
    /// sheet), each href taken relative to the folder of the sheet that imports it.
    private mutating func addStyleSheet(_ css: String, href: String?, depth: Int) {
        var rest = Substring(css)
        while true {
            rest = rest.drop { $0.isWhitespace }
            if rest.hasPrefix("/*"), let end = rest.range(of: "*/") {
                rest = rest[end.upperBound...]
                continue
            }
            let lowered = rest.prefix(8).lowercased()
            guard lowered.hasPrefix("@import") || lowered.hasPrefix("@charset"), let semicolon = rest.firstIndex(of: ";") else { break }
            let rule = rest[..<semicolon]
            rest = rest[rest.index(after: semicolon)...]
            guard lowered.hasPrefix("@import"), let target = Self.importTarget(rule.dropFirst(7)) else { continue }
            guard Self.appliesToPrint(String(target.media)) else { continue }
            loadStyleSheet(Self.joined(target.href, to: href), depth: depth + 1)
        }
        sheet.add(css: String(rest))
    }

    /// The href and media list of an `@import` rule's text after `@import`.
    private static func importTarget(_ text: Substring) -> (href: String, media: Substring)? {
        var text = text.drop { $0.isWhitespace }
        var href: Substring
        if text.lowercased().hasPrefix("url(") {
            text = text.dropFirst(4)
            guard let close = text.firstIndex(of: ")") else { return nil }
            href = text[..<close].trimmingASCIIWhitespace()[...]
            text = text[text.index(after: close)...]
        } else {
            guard let quote = text.first, quote == "\"" || quote == "'" else { return nil }
            text = text.dropFirst()
            guard let close = text.firstIndex(of: quote) else { return nil }
            href = text[..<close]
            text = text[text.index(after: close)...]
        }
        if let first = href.first, first == "\"" || first == "'", href.count >= 2, href.last == first { href = href.dropFirst().dropLast() }
        return (String(href), text)
    }

    /// `href` relative to the folder of the sheet `base` (itself relative to the article).
    private static func joined(_ href: String, to base: String?) -> String {
        guard let base, !href.hasPrefix("/"), !href.contains(":"), let slash = base.lastIndex(of: "/") else { return href }
        return String(base[...slash]) + href
    }

    private mutating func visit(_ node: UnsafeMutablePointer<GumboNode>) {
        switch node.pointee.type {
        case GUMBO_NODE_TEXT, GUMBO_NODE_CDATA, GUMBO_NODE_WHITESPACE:
            guard let text = node.pointee.v.text.text, let frame = frames.last else { return }
            if node.pointee.type != GUMBO_NODE_WHITESPACE, anonymousTableDepth == frames.count { closeAnonymousTable() }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text))
            sourceCharacters += Self.visibleCharacters(bytes)
            if frame.style.textTransform != .none {
                let transformed = frame.style.textTransform.applied(to: String(decoding: bytes, as: UTF8.self), wordGoesOn: textEndsInWord)
                builder.append(transformed.unicodeScalars, style: frame.style.text, whiteSpace: frame.style.whiteSpace)
            } else {
                builder.append(UTF8Scalars(bytes), style: frame.style.text, whiteSpace: frame.style.whiteSpace)
            }
            textEndsInWord = bytes.last.map { $0 >= 0x80 || ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) } ?? textEndsInWord
        case GUMBO_NODE_ELEMENT:
            enter(node.pointee.v.element)
        default:
            break  // Comments; templates, whose content is inert.
        }
    }

    private mutating func enter(_ element: GumboElement) {
        guard let parent = frames.last else { return }
        let isFirstChild = parent.elementChildren == 0
        frames[frames.count - 1].elementChildren += 1
        let tag = self.tag(element)
        let name = tag.name
        // Every element child is a sibling to selectors, whether it is set or not (`script`,
        // `svg`).
        let structural = sheet.hasStructuralSelectors
        var selected = sheet.isEmpty ? nil : cssElement(element, tag: name, isFirstChild: isFirstChild)
        if structural, selected != nil {
            frames[frames.count - 1].lastChild = CSSElement.Sibling.after(parent.lastChild, element: &selected!)
        }
        guard element.tag_namespace == GUMBO_NAMESPACE_HTML else {
            // SVG and MathML: their text is kept as inline text of the parent's style.
            if !["script", "style", "title", "desc", "metadata"].contains(name) {
                frames.append(Frame(children: element.children, style: parent.style.child(), styleID: newStyleID(),
                                    paragraph: parent.paragraph))
            }
            return
        }
        if Self.rawTextElements.contains(name) { noteIfUnclosed(element, name: name) }
        guard !tag.isSkipped else { return }

        let isList = tag.isList
        let key = StyleKey(parent: parent.styleID, tag: name, nestedList: isList && !listFrames.isEmpty,
                           attributes: Self.attributeBytes(element))
        var style: ComputedStyle, styleID: Int
        // With selectors that look at ancestors or position, an element's style depends on
        // more than `StyleKey` holds: it is computed each time.
        if !structural, let known = styleMemo[key] {
            (style, styleID) = known
        } else {
            let ancestors = structural ? frames.compactMap(\.element) : []
            style = computedStyle(element, tag: tag, nestedList: key.nestedList, parent: parent.style, selected: selected, ancestors: ancestors)
            // A percentage height is of the parent block's height when it has one (the memo's
            // key holds the parent's style, so a remembered style has it resolved too).
            if parent.style.isBlockLevel, !style.outOfFlow {
                style.box.size.resolveHeightPercentages(against: parent.style.box.definiteContentHeight)
            }
            styleID = newStyleID()
            if !structural {
                if styleMemo.count >= Self.styleMemoLimit { styleMemo.removeAll(keepingCapacity: true) }
                styleMemo[key] = (style, styleID)
            }
        }
        if let declared = style.declaredWritingMode { noteWritingMode(declared, element: name) }
        // The canvas takes the root's background, or the body's when the root has none.
        if let background = style.box.background, (name == "html" && rootBackground == nil) || (name == "body" && bodyBackground == nil) {
            if name == "html" { rootBackground = background } else { bodyBackground = background }
        }
        if name == "html" || name == "body" {
            // Pages hide their body until a script shows it: Galley shows it.
            (style.visibilityHidden, style.text.isHidden) = (false, false)
        }
        if style.displayNone && name != "html" && name != "body" {
            hiddenElements += 1
            hiddenCharacters += visibleCharacters(inside: element)
            return
        }
        if style.counterReset != nil || style.counterIncrement != nil {
            generated.change(reset: style.counterReset, increment: style.counterIncrement, scope: frames.count - 1)
        }
        // An element's table part: its own (`td`), else the one its `display` makes it.
        let tablePart = Self.tableParts.contains(name) ? name : style.tablePart ?? name
        if anonymousTableDepth == frames.count && !Self.anonymousTableParts.contains(tablePart) { closeAnonymousTable() }

        switch name {
        case "br":
            textEndsInWord = false
            builder.appendLineBreak(style: style.text)
            return
        case "wbr":
            builder.appendBreakOpportunity(style: style.text)
            return
        case "img", "image":
            appendImage(element, style: style, parent: parent)
            return
        case "object", "embed":
            // A picture given as an object (`<object data="figure.svg" type="image/svg+xml">`,
            // as DocBook's HTML gives every figure) is drawn like an `img`, its fallback content
            // left out; anything else sets its fallback content (walked below, as a browser
            // without the plugin shows it), or is counted in a warning when it has none.
            let source = attribute(element, name == "object" ? "data" : "src") ?? ""
            if Self.isPicture(source: source, type: attribute(element, "type")) {
                appendImage(element, style: style, parent: parent, source: source,
                            alternative: attribute(element, "alt") ?? textContent(element).trimmingASCIIWhitespace())
                return
            }
            if visibleCharacters(inside: element) == 0 {
                unsetObjects[attribute(element, "type") ?? (source.isEmpty ? "(none)" : "of \(source)"), default: 0] += 1
                return
            }
        case "hr":
            builder.breakParagraph()
            builder.addMargin(style.marginTop)
            builder.addRuleAbove()
            builder.addMargin(style.marginBottom)
            return
        default:
            break
        }

        if style.display == .inlineBlock && !setsInlineBlock(name) { style.display = .inline }
        // An inline table is set in its line as an inline-block holding the table (outside
        // tables; in one, or in vertical text, it is set between blocks as a table).
        if style.inlineTable && openTable == nil && nestedTableDepth == 0 && setsInlineBlock("div") { style.display = .inlineBlock }
        // A table's part made inline (`td { display: inline }`) is inline text, not a cell
        // (`col`, which the user-agent sheet leaves inline, still sizes its columns).
        let tableRole = style.display == .inline && Self.tableParts.contains(name) && name != "col" && name != "colgroup"
            ? nil : self.tableRole(tablePart, element: element, parent: parent.style)
        // An inline's background is drawn behind its own lines' glyphs, never behind a block
        // inside it (CSS 2.1 §9.2.1.1: the block breaks the inline box in two).
        if style.isBlockLevel { style.text.background = nil }
        if style.isBlockLevel { takeInlineOffsets(&style) }
        if tableRole == .cell || tableRole == .caption {
            // A cell's content is indented from the cell's padding box, not the column.
            style.startIndent = 0
            style.endIndent = 0
            style.inTableCell = true
        }
        // `page` applies to the boxes at the flow's class A break points (CSS Paged Media 3
        // §4.4.2, `page`: "applies to boxes that create class A break points"): a table in the
        // flow starts its named page, but not a row, a cell or what a cell holds (the table
        // breaks between its rows without changing page name), nor a float or a positioned
        // block, which are out of the flow, nor what they hold. These keep the page of the box
        // around them, as WeasyPrint's pages do; their own name is not a page break either.
        if style.pageName != parent.style.pageName,
           (tableRole != nil && tableRole != .table) || openTable != nil || openFloat != nil || style.float != nil || style.outOfFlow {
            style.pageName = parent.style.pageName
            // Its children inherit the page from it: not one memo for both.
            styleID = newStyleID()
        }
        var paragraph = parent.paragraph
        // A floated block: the outermost one outside tables and spanning blocks (a float in a
        // float or a cell stays in its flow, as does one in a block across the columns).
        // An absolutely positioned block is set apart as a floated one is, then placed at its
        // offsets (`FramePositions`); in vertical text it stays in the flow.
        // A table positioned itself is set in a positioned block of its own, as a table in one.
        let positioned = style.outOfFlow && writingMode?.mode.isVertical != true && style.isBlockLevel && name != "img" && name != "image"
            && (tableRole == nil || tableRole == .table) && openTable == nil && openFloat == nil && !style.spansColumns
        let floats = positioned || style.float != nil && style.isBlockLevel && name != "img" && name != "image"
            && tableRole == nil && openTable == nil && openFloat == nil && !style.spansColumns
        if floats, let side = positioned ? .left : style.float {
            builder.breakParagraph()
            var block = FloatedBlock(paragraphs: builder.paragraphCount..<builder.paragraphCount, side: side)
            if positioned { block.positioning = PositionedBlock(offsets: style.offsets, containingBox: containingBox, zIndex: style.zIndex) }
            block.width = style.width
            block.widthFraction = style.box.widthFraction
            block.containerStartIndent = ComputedStyle.clamped(parent.style.startIndent, 0)
            block.containerEndIndent = ComputedStyle.clamped(parent.style.endIndent, 0)
            block.ownStart = max(0, ComputedStyle.clamped(style.startIndent, 0) - block.containerStartIndent)
            block.ownEnd = max(0, ComputedStyle.clamped(style.endIndent, 0) - block.containerEndIndent)
            if !positioned { (block.marginTop, block.marginBottom) = (style.marginTop, style.marginBottom) }
            let waiting = builder.takePendingMargin()
            block.spaceAbove = waiting
            let parentNode = builder.boxTree.boxes[currentNode]
            block.opensItsParent = parentNode.children.isEmpty && parentNode.paragraphs.lowerBound == builder.paragraphCount
                && parentNode.style.border.top.width <= 0 && parentNode.style.padding.top <= 0
            openFloat = OpenFloat(block: block, marginBefore: waiting)
        }
        let opensInlineBlock = style.display == .inlineBlock
        if opensInlineBlock { paragraph = openInlineBlock(&style, parent: parent, name: name, element: element) }
        if style.isBlockLevel {
            builder.breakParagraph()
            textEndsInWord = false
            if !floats {
                builder.addMargin(style.marginTop)
                builder.addBreakBefore(style.breakBefore)
                builder.addClear(style.clear)
                builder.pageSidePending = style.pageSide ?? builder.pageSidePending
            }
            paragraph = style.paragraphStyle(base: base)
            paragraph.element = ([name] + (attribute(element, "class")?.split(whereSeparator: Self.isHTMLWhitespace).map(String.init) ?? []))
                .joined(separator: ".")
            builder.paragraphStyle = paragraph
        }
        let isBlock = tableRole == nil && openTable == nil && style.isBlockLevel
        let boxIndex = isBlock ? openBox(style, name: name, floats: floats, containerRightToLeft: parent.style.direction == .rtl) : nil
        let node = isBlock ? openNode(style, element: paragraph.element, textBox: boxIndex, floats: floats) : nil
        var list: ListState?
        if isList {
            list = listState(element, ordered: name == "ol")
        }
        if style.display == .listItem {
            setListMarker(element, style: style)
        }
        if let tableRole { beginTablePart(tableRole, element, style: style, header: tablePart == "thead") }
        let arrangesChildren = tableRole == .table
        if let value = style.stringSet { builder.openStringSet(value, depth: frames.count) }
        if let reset = style.counterReset.flatMap({ PagedMedia.pageCounterValue($0.lowercased(), implied: 0) }) { builder.resetPageCounter(to: reset) }
        if let anchor = attribute(element, "id") ?? (name == "a" ? attribute(element, "name") : nil) {
            builder.addAnchor(anchor.trimmingASCIIWhitespace())
        }
        if sheet.hasPseudoElementRules, let selected {
            let ancestors = structural ? frames.compactMap(\.element) : []
            // Before `::before`, whose text holds the first letter when it comes first (§5.12.2).
            if style.display != .inline || tableRole == .cell { awaitFirstLetterAndLine(of: selected, ancestors: ancestors, style: style) }
            if let before = pseudoElementStyle(.before, of: selected, ancestors: ancestors, style: style) {
                appendGenerated(before, element: selected, scope: frames.count)
            }
            pendingAfters[frames.count] = pseudoElementStyle(.after, of: selected, ancestors: ancestors, style: style).map { ($0, selected) }
        }
        frames.append(Frame(children: element.children, style: style, styleID: styleID, paragraph: paragraph, list: list,
                            element: structural ? selected : nil, tableRole: tableRole, boxIndex: boxIndex, node: node, floats: floats,
                            tag: element.tag, opensInlineBlock: opensInlineBlock))
        if list != nil { listFrames.append(frames.count - 1) }
        if arrangesChildren { arrangeTableChildren(frames.count - 1) }
        if element.tag == GUMBO_TAG_BODY && bodyFrame == nil { bodyFrame = frames.count - 1 }
    }

    /// An element's style: its parent's inherited properties, then the user agent's
    /// declarations for the tag, presentational attributes, matching style-sheet rules and
    /// the `style` attribute, then `lang` and a link's target. Depends only on what
    /// `StyleKey` holds.
    private mutating func computedStyle(_ element: GumboElement, tag: Tag, nestedList: Bool, parent: ComputedStyle, selected: CSSElement?,
                                        ancestors: [CSSElement]) -> ComputedStyle {
        let name = tag.name
        var style = parent.child()
        var declarations = tag.userAgentStyle
        if name == "a" && attribute(element, "href") != nil {
            // The layout's look for links, which the article's CSS may change.
            if let color = base.linkColor { declarations.append(CSSDeclaration(property: "color", value: color.description)) }
            if base.linkUnderline { declarations.append(CSSDeclaration(property: "text-decoration", value: "underline")) }
        }
        if tag.isList {
            style.listMarker = nil  // Each list picks its own markers unless told otherwise.
            if nestedList {
                declarations += [CSSDeclaration(property: "margin-top", value: "0"),
                                 CSSDeclaration(property: "margin-bottom", value: "0")]
            }
        }
        declarations += presentationalHints(element, name: name)
        if let selected {
            declarations += sheet.declarations(for: selected, ancestors: ancestors)
        }
        if let inline = attribute(element, "style") {
            declarations += StyleSheet.declarations(in: inline)
        }
        let tableElement = ["table", "caption", "thead", "tbody", "tfoot", "tr", "td", "th", "col", "colgroup"].contains(name)
        for property in style.apply(declarations, parent: parent, base: base, tableElement: tableElement) {
            ignoredProperties[property, default: 0] += 1
        }
        // A floated inline-block is a floated block (CSS 2.1 §9.7).
        if style.display == .inlineBlock && style.float != nil { style.display = .block }
        if name != "img" && name != "image" && style.display == .inline {
            // Pictures and blocks float; on other inline elements (which CSS would make
            // blocks) `float` is ignored, and counted so.
            let floats = declarations.count { $0.property == "float" }
            if floats > 0 { ignoredProperties["float", default: 0] += floats }
            style.float = nil
        }
        if name == "html" { style.rootSize = style.text.size }  // What `rem` refers to.
        if let language = attribute(element, "lang") ?? attribute(element, "xml:lang") {
            let trimmed = language.trimmingASCIIWhitespace()
            style.text.language = trimmed.isEmpty ? nil : trimmed
        } else if name == "html", let pragmaLanguage {
            // No lang on the root: `<meta http-equiv="content-language">` gives the default.
            style.text.language = pragmaLanguage
        }
        if name == "a", let href = attribute(element, "href") {
            style.text.link = resolvedLink(href)
        }
        return style
    }

    /// Notes a raw-text element without an end tag whose text holds markup (`<` then a letter,
    /// `/` or `!`): everything after its start tag became its text.
    private mutating func noteIfUnclosed(_ element: GumboElement, name: String) {
        guard element.original_end_tag.length == 0, element.original_tag.length > 0 else { return }
        let text = textContent(element)
        let bytes = Array(text.utf8)
        let holdsMarkup = bytes.indices.dropLast().contains { index in
            bytes[index] == UInt8(ascii: "<")
                && (bytes[index + 1].isASCIILetter || bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "!"))
        }
        guard holdsMarkup else { return }
        let characters = bytes.withUnsafeBufferPointer { Self.visibleCharacters($0) }
        sourceCharacters += characters
        unclosedRawText.append((name, Int(element.start_pos.line), Int(element.start_pos.offset) + element.original_tag.length, characters))
    }

    /// Characters of UTF-8 text that are not HTML white space.
    static func visibleCharacters(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        for byte in bytes where byte & 0xC0 != 0x80 && !byte.isHTMLWhitespace { count += 1 }
        return count
    }

    /// The element as selectors see it: tag, id, classes, attributes and position.
    private func cssElement(_ element: GumboElement, tag: String, isFirstChild: Bool) -> CSSElement {
        var attributes: [(name: String, value: String)] = []
        for index in 0..<Int(element.attributes.length) {
            guard let attribute = element.attributes.data[index]?.assumingMemoryBound(to: GumboAttribute.self),
                  let name = attribute.pointee.name else { continue }
            attributes.append((String(cString: name), attribute.pointee.value.map { String(cString: $0) } ?? ""))
        }
        let classes = attributes.first { $0.name == "class" }?.value.split(whereSeparator: Self.isHTMLWhitespace).map(String.init) ?? []
        return CSSElement(tag: tag, id: attributes.first { $0.name == "id" }?.value, classes: classes, attributes: attributes,
                          isFirstChild: isFirstChild)
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
        builder.endFirstLetter(depth: frames.count)
        if !pendingAfters.isEmpty, let after = pendingAfters.removeValue(forKey: frames.count) {
            appendGenerated(after.style, element: after.element, scope: frames.count)
        }
        if let depth = anonymousTableDepth, frames.count < depth { closeAnonymousTable() }
        if frame.list != nil, listFrames.last == frames.count { listFrames.removeLast() }
        if frame.style.display == .listItem { builder.flushListMarker() }
        // An inline table ends inside its inline-block, in the inline-block's own box tree.
        let inlineTable = frame.opensInlineBlock && frame.tableRole == .table
        if inlineTable {
            frames.append(frame)
            endTablePart(.table, text: frame.style.text)
            frames.removeLast()
        }
        if frame.opensInlineBlock { closeInlineBlock(frame) }
        if frame.style.isBlockLevel {
            builder.breakParagraph()
            textEndsInWord = false
            if frame.floats, let open = openFloat, builder.paragraphCount == open.block.paragraphs.lowerBound {
                // A floated block around nothing with a height: a spacer that high holds it.
                let height = frame.style.box.size.usedContentHeight(content: 0, edges: 0)
                if height > 0 {
                    builder.appendSpacer(style: frame.style.text, height: height)
                    builder.breakParagraph()
                }
            }
            if let index = frame.boxIndex { closeBox(index, style: frame.style.text) }
            if let node = frame.node { closeNode(node) }
            if frame.floats, var open = openFloat.take() {
                let end = builder.paragraphCount
                open.block.paragraphs = open.block.paragraphs.lowerBound..<end
                // A float holding a table stays in the flow, where the table is set as a grid;
                // an absolutely positioned block sets it as its own.
                if end > open.block.paragraphs.lowerBound,
                   open.block.positioning != nil || !builder.tables.contains(where: { $0.paragraphs.overlaps(open.block.paragraphs) }) {
                    builder.floats.append(open.block)
                    if let node = frame.node { markFloat(node, index: builder.floats.count - 1) }
                }
                builder.discardPendingMargins()
                builder.addMargin(open.marginBefore)
            } else {
                builder.addBreakAfter(frame.style.breakAfter)
                builder.pageSidePending = frame.style.pageSideAfter ?? builder.pageSidePending
                builder.addMargin(frame.style.marginBottom)
            }
            if let parent = frames.last { builder.paragraphStyle = parent.paragraph }
        }
        if let role = frame.tableRole, !inlineTable { endTablePart(role, text: frame.style.text) }
        builder.closeStringSets(depth: frames.count)
        generated.leave(scope: frames.count)
    }

    // MARK: Generated content

    /// The style of an element's `::before` or `::after` box, nil when it has none (no rule
    /// gives it a `content` that makes one, or it is `display: none`).
    private mutating func pseudoElementStyle(_ pseudoElement: CSSSelector.PseudoElement, of element: CSSElement, ancestors: [CSSElement],
                                             style: ComputedStyle) -> ComputedStyle? {
        let declarations = sheet.declarations(for: element, ancestors: ancestors, pseudoElement: pseudoElement)
        guard declarations.contains(where: { $0.property == "content" }) else { return nil }
        var box = style.child()
        for property in box.apply(declarations, parent: style, base: base) { ignoredProperties[property, default: 0] += 1 }
        return box.displayNone ? nil : box
    }

    /// A block opens: the styles of its `::first-letter` and `::first-line`, if rules give
    /// them, wait in the builder for its first letter and its first paragraph.
    private mutating func awaitFirstLetterAndLine(of element: CSSElement, ancestors: [CSSElement], style: ComputedStyle) {
        for pseudoElement in [CSSSelector.PseudoElement.firstLetter, .firstLine] {
            let declarations = sheet.declarations(for: element, ancestors: ancestors, pseudoElement: pseudoElement)
            guard !declarations.isEmpty else { continue }
            var part = style.child()
            for property in part.apply(declarations, parent: style, base: base) { ignoredProperties[property, default: 0] += 1 }
            if pseudoElement == .firstLetter {
                builder.awaitFirstLetter(block: style.text, letter: part.text,
                                         transform: part.textTransform == style.textTransform ? nil : part.textTransform, depth: frames.count)
            } else {
                builder.awaitFirstLine(TextStyleChange(before: style.text, after: part.text), depth: frames.count)
            }
        }
    }

    /// Sets a `::before` or `::after` box: its counters change, then its text, inline (a block
    /// one as a paragraph of its own). `scope`: the index of its element's frame.
    private mutating func appendGenerated(_ box: ComputedStyle, element: CSSElement, scope: Int) {
        generated.change(reset: box.counterReset, increment: box.counterIncrement, scope: scope)
        guard let content = generated.text(of: box.content, attribute: element.attribute), !content.isEmpty else { return }
        let text = box.textTransform.applied(to: content, wordGoesOn: false)
        if box.isBlockLevel { builder.breakParagraph() }
        builder.append(text.unicodeScalars, style: box.text, whiteSpace: box.whiteSpace)
        if box.isBlockLevel { builder.breakParagraph() }
    }

    // MARK: Boxes

    /// Starts the box of a block that draws one (a border, vertical padding or a background),
    /// its paragraphs to be filled in when it closes; nil for other blocks, and for `html` and
    /// `body`, whose background is the page's, which the layout chooses.
    /// A floated block's width is its `FloatedBlock`'s: its box takes no size of its own.
    private mutating func openBox(_ style: ComputedStyle, name: String, floats: Bool, containerRightToLeft: Bool) -> Int? {
        // Positioned and clipping blocks keep a box, drawn or not, for `FramePositions`, which
        // places horizontal text only: in vertical text an absolute block is set as `static`,
        // without a size.
        let vertical = writingMode?.mode.isVertical == true
        let sized = !style.tableDisplay && (style.outOfFlow ? !vertical : !floats)
        let placed = !vertical && (style.position.isPositioned || style.clipsOverflow)
        guard style.box.isDrawnOnBlock || (style.box.size.isSized && sized) || placed, name != "html", name != "body" else { return nil }
        let declared = style.box
        let start = builder.paragraphCount
        var box = TextBox(paragraphs: start..<start)
        box.border.top = declared.drawnBox(declared.border.top, color: style.text.color)
        box.border.right = declared.drawnBox(declared.border.right, color: style.text.color)
        box.border.bottom = declared.drawnBox(declared.border.bottom, color: style.text.color)
        box.border.left = declared.drawnBox(declared.border.left, color: style.text.color)
        box.padding.top = declared.padding.top ?? 0
        box.padding.bottom = declared.padding.bottom ?? 0
        box.background = declared.background
        box.backgroundImage = declared.backgroundImage
        box.padding.left = declared.padding.left ?? 0
        box.padding.right = declared.padding.right ?? 0
        if sized { box.size = declared.size } else { box.spacerAllowed = false }
        (box.marginStart, box.marginEnd) = declared.margins
        box.startIndent = ComputedStyle.clamped(style.boxIndents.start, 0)
        box.endIndent = ComputedStyle.clamped(style.boxIndents.end, 0)
        box.rightToLeft = style.direction == .rtl
        box.containerRightToLeft = containerRightToLeft
        box.isHidden = style.visibilityHidden
        box.clipsOverflow = style.clipsOverflow
        // A top border or padding keeps the margins above it and those inside it apart.
        // So does a block that cuts its overflow: it is a block formatting context of its own,
        // whose margins do not collapse with its children's (CSS 2.1 §8.3.1).
        if box.topEdge > 0 || box.clipsOverflow { box.marginBefore = builder.takePendingMargin() }
        builder.boxes.append(box)
        return builder.boxes.count - 1
    }

    /// Gives a closing box its paragraphs (after `breakParagraph()`), and the margin below
    /// its last paragraph when a bottom border or padding keeps it inside; a box around
    /// nothing is dropped (the boxes inside it were dropped already, so it is the last).
    private mutating func closeBox(_ index: Int, style: TextStyle) {
        guard index < builder.boxes.count else { return }
        // (A positioned block's own box closes before the block is listed in `floats`.)
        if let last = builder.floats.last, last.positioning != nil, last.paragraphs.upperBound == builder.paragraphCount,
           builder.boxes[index].paragraphs.lowerBound <= last.paragraphs.lowerBound {
            closeAfterPositioned(style: style)
        }
        let box = builder.boxes[index]
        if builder.paragraphCount == box.paragraphs.lowerBound, box.spacerAllowed, writingMode?.mode.isVertical != true,
           box.topEdge + box.bottomEdge > 0 || box.size.usedContentHeight(content: 0, edges: box.topEdge + box.bottomEdge) > 0 {
            // A box around nothing that still has a height (its padding, border, `height` or
            // `min-height`): a paragraph holding only a spacer carries it through layout.
            builder.appendSpacer(style: style)
            builder.breakParagraph()
        }
        let end = builder.paragraphCount
        if end > builder.boxes[index].paragraphs.lowerBound {
            builder.boxes[index].paragraphs = builder.boxes[index].paragraphs.lowerBound..<end
            if builder.boxes[index].bottomEdge > 0 || builder.boxes[index].clipsOverflow {
                builder.boxes[index].spaceInsideAfter = builder.takePendingMargin()
            }
        } else if index == builder.boxes.count - 1 {
            builder.boxes.removeLast()
        }
    }

    // MARK: Inline-blocks

    /// The flow an inline-block interrupts, kept while its content is built as a text of its
    /// own: the builder of the text around it, and the table and floated block open there.
    private struct InterruptedFlow {
        var builder: AttributedTextBuilder
        var openTable: OpenTable?
        var enclosingTables: [OpenTable]
        var nestedTableDepth: Int
        var openFloat: OpenFloat?
        /// The style of the text around it, which its U+FFFC takes.
        var text: TextStyle
        /// How far `vertical-align` raises its baseline (`sub`, `super`, a length).
        var baselineShift: Double
    }
    private var interruptedFlows: [InterruptedFlow] = []

    /// Whether an element with `display: inline-block` is set as one: not a table's part (set
    /// inline, as before), and not in vertical text, which sets it inline.
    private func setsInlineBlock(_ name: String) -> Bool {
        !Self.tableParts.contains(name)
            && writingMode?.mode.isVertical != true && interruptedFlows.count < Self.inlineBlockNesting
    }

    /// Inline-blocks inside inline-blocks deeper than this are set inline.
    private static let inlineBlockNesting = 32

    /// Starts an inline-block's content: a new builder, no table or float open, its lines
    /// from its content edge with no decoration carried in from the text around it. Returns
    /// the paragraph style of its content.
    private mutating func openInlineBlock(_ style: inout ComputedStyle, parent: Frame, name: String, element: GumboElement) -> ParagraphStyle {
        interruptedFlows.append(InterruptedFlow(builder: builder, openTable: openTable.take(), enclosingTables: enclosingTables,
                                                nestedTableDepth: nestedTableDepth, openFloat: openFloat.take(), text: parent.style.text,
                                                baselineShift: style.text.baselineShift))
        builder = AttributedTextBuilder()
        (enclosingTables, nestedTableDepth) = ([], 0)
        (style.startIndent, style.endIndent) = (0, 0)
        // Decorations of the text around it do not reach inside (CSS 2.1 §16.3.1); its own do.
        style.text.underline = style.text.underline && !parent.style.text.underline
        style.text.strikethrough = style.text.strikethrough && !parent.style.text.strikethrough
        (style.text.baselineShift, style.text.background) = (0, nil)
        var paragraph = style.paragraphStyle(base: base)
        paragraph.element = ([name] + (attribute(element, "class")?.split(whereSeparator: Self.isHTMLWhitespace).map(String.init) ?? []))
            .joined(separator: ".")
        builder.paragraphStyle = paragraph
        return paragraph
    }

    /// Ends an inline-block: its content and box go into the text around it as one U+FFFC.
    private mutating func closeInlineBlock(_ frame: Frame) {
        guard let flow = interruptedFlows.popLast() else { return }
        var block = InlineBlock(content: builder.finish())
        let style = frame.style, box = style.box
        block.size = box.size
        block.padding = TextTable.Sides(0.0)
        (block.padding.top, block.padding.right) = (box.padding.top ?? 0, box.padding.right ?? 0)
        (block.padding.bottom, block.padding.left) = (box.padding.bottom ?? 0, box.padding.left ?? 0)
        block.border.top = box.drawnBox(box.border.top, color: style.text.color)
        block.border.right = box.drawnBox(box.border.right, color: style.text.color)
        block.border.bottom = box.drawnBox(box.border.bottom, color: style.text.color)
        block.border.left = box.drawnBox(box.border.left, color: style.text.color)
        block.background = box.background
        if frame.tableRole == .table {
            // An inline table: the table draws its own border and background, inside its width.
            (block.padding, block.border, block.background) = (TextTable.Sides(0.0), TextTable.Sides(TextBox.Border()), nil)
            block.baselineIsFirstLine = true
        }
        let rtl = style.direction == .rtl
        (block.margin.left, block.margin.right) = rtl ? (box.margins.end, box.margins.start) : (box.margins.start, box.margins.end)
        (block.margin.top, block.margin.bottom) = (style.marginTop, style.marginBottom)
        (block.marginFraction, block.paddingFraction) = (box.marginFractions, box.paddingFractions)
        block.alignment = style.inlineBlockAlignment
        block.baselineShift = flow.baselineShift
        block.clipsOverflow = style.clipsOverflow
        block.isHidden = style.visibilityHidden
        builder = flow.builder
        (openTable, enclosingTables, nestedTableDepth, openFloat) = (flow.openTable, flow.enclosingTables, flow.nestedTableDepth, flow.openFloat)
        builder.appendInlineBlock(block, style: flow.text)
    }

    /// The box of the nearest positioned block around the element: the containing block of
    /// an absolutely positioned one (nil: the page's text area).
    private var containingBox: Int? {
        frames.last { $0.style.position.isPositioned && $0.boxIndex != nil }?.boxIndex
    }

    /// A block inside a relatively positioned inline element (`<span style="position:
    /// relative; left: 1em"><div>…`) moves with it, as the anonymous blocks CSS makes of
    /// the inline around it do: a block that is not positioned itself takes the offsets of
    /// the nearest such inline between it and its parent block.
    private func takeInlineOffsets(_ style: inout ComputedStyle) {
        guard style.position == .static,
              let inline = frames.reversed().prefix(while: { $0.node == nil && $0.tableRole == nil }).first(where: { $0.style.position == .relative })
        else { return }
        style.position = .relative
        style.offsets = inline.style.offsets
    }

    /// Ends a box that ends with an absolutely positioned block with an empty paragraph (a
    /// spacer 0 high), so that the box opens and closes in the flow around the block, which
    /// is out of it, rather than being taken for the block's own.
    private mutating func closeAfterPositioned(style: TextStyle) {
        builder.appendSpacer(style: style)
        builder.breakParagraph()
    }

    // MARK: The box tree

    /// The innermost open block box (`BoxTree.root` outside every block).
    private var currentNode: Int {
        // An inline-block's content is a tree of its own.
        frames.last { $0.node != nil || $0.opensInlineBlock }?.node ?? BoxTree.root
    }

    /// Opens the block box of an element (after its margin and box went in), a child of the
    /// innermost open one.
    private mutating func openNode(_ style: ComputedStyle, element: String, textBox: Int?, floats: Bool) -> Int {
        let parent = currentNode
        var block = BlockStyle()
        block.display = style.display == .listItem ? .listItem : .block
        block.size = style.box.size
        (block.marginTop, block.marginBottom) = (style.marginTop, style.marginBottom)
        (block.marginStart, block.marginEnd) = style.box.margins
        let declared = style.box
        block.padding = declared.paddings()
        block.border.top = declared.drawnBox(declared.border.top, color: style.text.color)
        block.border.right = declared.drawnBox(declared.border.right, color: style.text.color)
        block.border.bottom = declared.drawnBox(declared.border.bottom, color: style.text.color)
        block.border.left = declared.drawnBox(declared.border.left, color: style.text.color)
        block.background = declared.background
        block.float = floats ? style.float : nil
        multicolStyle(style, into: &block)
        (block.position, block.offsets, block.clipsOverflow) = (style.position, style.offsets, style.clipsOverflow)
        block.zIndex = style.position.isPositioned ? style.zIndex : nil
        let start = builder.paragraphCount
        var box = BlockBox(element: element, style: block, parent: parent, paragraphs: start..<start)
        box.textBox = textBox
        builder.boxTree.boxes.append(box)
        let index = builder.boxTree.boxes.count - 1
        let multicol = block.columns.isMulticol && !floats && !style.outOfFlow && openFloat == nil && !builder.boxTree.isInMulticol(parent)
        builder.boxTree.boxes[parent].children.append(multicol ? .multicol(index) : .block(index))
        return index
    }

    /// What the block box of a multi-column element needs: its columns (the gap `normal` is
    /// 1em), where its content box is, and whether it spans the page's columns.
    private func multicolStyle(_ style: ComputedStyle, into block: inout BlockStyle) {
        block.columns = style.columns
        block.columns.gap = style.columns.gap ?? style.text.size
        block.columns.minimumWidth = style.text.size
        block.columns.rule = style.box.drawnBox(style.columnRule, color: style.text.color)
        (block.contentStartIndent, block.contentEndIndent) = (style.startIndent, style.endIndent)
        block.spansColumns = style.spansColumns
    }

    /// Closes a block box (after its last paragraph ended and its `TextBox` closed).
    private mutating func closeNode(_ index: Int) {
        builder.boxTree.close(index, end: builder.paragraphCount, tables: builder.tables)
        // A box around nothing was dropped.
        if let textBox = builder.boxTree.boxes[index].textBox, textBox >= builder.boxes.count { builder.boxTree.boxes[index].textBox = nil }
    }

    /// Marks a closed block box as the floated block `index` of `AttributedText.floats`.
    private mutating func markFloat(_ node: Int, index: Int) {
        guard let parent = builder.boxTree.boxes[node].parent,
              let position = builder.boxTree.boxes[parent].children.lastIndex(of: .block(node)) else { return }
        builder.boxTree.boxes[parent].children[position] = .float(block: node, index: index)
    }

    // MARK: Tables

    /// The role of an element in the table being built; nil for elements outside it and for
    /// the parts of tables set as paragraphs in it.
    private mutating func tableRole(_ name: String, element: GumboElement, parent: ComputedStyle) -> TableRole? {
        if name == "table" {
            if nestedTableDepth == 0 {
                if openTable == nil { return .table }
                // In a cell, not too deep: a grid of its own, nested in the open table.
                if openTable?.cellStart != nil && enclosingTables.count + 1 < TextTable.maximumNesting { return .table }
            }
            nestedTableDepth += 1
            nestedTables += 1
            return .nestedTable
        }
        if openTable == nil && nestedTableDepth == 0 && Self.anonymousTableParts.contains(name) && writingMode?.mode.isVertical != true {
            openAnonymousTable(element, parent: parent)
        }
        guard openTable != nil, nestedTableDepth == 0 else { return nil }
        switch name {
        case "thead", "tbody", "tfoot":
            if openTable?.anonymousRow == true { endTablePart(.row) }
            return .rowGroup
        case "tr":
            if openTable?.anonymousRow == true { endTablePart(.row) }
            return .row
        case "td", "th":
            if openTable?.row == nil && openTable?.cellStart == nil {
                // A cell in a table or row group, not in a row: in an anonymous row.
                openTable?.row = []
                openTable?.rowBackground = nil
                openTable?.anonymousRow = true
            }
            return openTable?.row != nil && openTable?.cellStart == nil ? .cell : nil
        case "caption":
            // A caption in a cell (`display: table-caption`) is a block of the cell's.
            return openTable?.cellStart == nil && openTable?.row == nil ? .caption : nil
        case "col": return openTable?.row == nil && openTable?.table.rows.isEmpty == true ? .column : nil
        case "colgroup": return openTable?.row == nil && openTable?.table.rows.isEmpty == true && openTable?.columnGroup == nil ? .columnGroup : nil
        default: return nil
        }
    }

    /// The table parts (as `tablePart` names them) that open an anonymous table around them
    /// when they are in none.
    private static let anonymousTableParts: Set<String> = ["thead", "tbody", "tfoot", "tr", "td", "th"]

    /// Opens an anonymous table around a row group, row or cell in no table: it takes the
    /// inherited properties of their parent (`border-spacing`, `border-collapse`), no box and
    /// no HTML attributes.
    private mutating func openAnonymousTable(_ element: GumboElement, parent: ComputedStyle) {
        beginTablePart(.table, element, style: parent.child(), anonymous: true)
        anonymousTableDepth = frames.count
    }

    private mutating func closeAnonymousTable() {
        anonymousTableDepth = nil
        if openTable?.anonymousRow == true { endTablePart(.row) }
        endTablePart(.table)
    }

    /// `header`: the part is a header group (`thead`, `display: table-header-group`).
    private mutating func beginTablePart(_ role: TableRole, _ element: GumboElement, style: ComputedStyle, anonymous: Bool = false,
                                         header: Bool = false) {
        // An anonymous table reads no attributes; a `div` made a cell takes CSS's defaults
        // (no spacing, padding or middle alignment, which HTML gives its tables and cells).
        func attribute(_ element: GumboElement, _ name: String) -> String? { anonymous ? nil : self.attribute(element, name) }
        let isHTML = !anonymous && [GUMBO_TAG_TABLE, GUMBO_TAG_TD, GUMBO_TAG_TH].contains(element.tag)
        switch role {
        case .table:
            builder.keepLeadInWithTable()
            var open = OpenTable()
            var tableStyle = TextTable.Style()
            tableStyle.spaceBefore = builder.takePendingMargin()
            tableStyle.collapse = style.borderCollapse
            // Its padding is inside its border (separated borders; collapsed ones have none),
            // not in its indents as a block's horizontal padding is.
            if !tableStyle.collapse {
                tableStyle.padding.top = style.box.padding.top ?? 0
                tableStyle.padding.bottom = style.box.padding.bottom ?? 0
                (tableStyle.padding.left, tableStyle.padding.right) = style.direction == .rtl
                    ? (style.box.padding.right ?? 0, style.box.padding.left ?? 0) : (style.box.padding.left ?? 0, style.box.padding.right ?? 0)
            }
            let horizontal = (start: (style.direction == .rtl ? style.box.padding.right : style.box.padding.left) ?? 0,
                              end: (style.direction == .rtl ? style.box.padding.left : style.box.padding.right) ?? 0)
            tableStyle.startIndent = style.startIndent - horizontal.start
            tableStyle.endIndent = style.endIndent - horizontal.end
            let borderAttribute = Self.htmlLength(attribute(element, "border")).map { $0 > 0 ? $0 : 0 }
                ?? (attribute(element, "border") != nil ? CSSLength.pointsPerPixel : nil)
            let box = style.box
            // A border the style sheet declares wins over the `border` attribute's.
            func border(_ side: ComputedStyle.Box.Side) -> TextTable.Border {
                let declared = box.drawn(side, color: style.text.color)
                guard let attributeWidth = borderAttribute, !side.visible else { return declared }
                return TextTable.Border(width: attributeWidth, color: Self.attributeBorderColor)
            }
            tableStyle.border.top = border(box.border.top)
            tableStyle.border.right = border(box.border.right)
            tableStyle.border.bottom = border(box.border.bottom)
            tableStyle.border.left = border(box.border.left)
            open.cellBorders = (borderAttribute ?? 0) > 0
            open.cellPadding = Self.htmlLength(attribute(element, "cellpadding"))
            tableStyle.spacing = style.borderSpacing ?? Self.htmlLength(attribute(element, "cellspacing")) ?? (isHTML ? tableStyle.spacing : 0)
            if style.borderSpacing != nil { tableStyle.rowSpacing = style.borderRowSpacing }
            tableStyle.background = box.background
            tableStyle.fixedLayout = box.fixedLayout
            tableStyle.width = style.width
            tableStyle.widthFraction = box.widthFraction
            if style.width == nil, let width = attribute(element, "width")?.trimmingASCIIWhitespace() {
                if width.hasSuffix("%"), let percent = Double(width.dropLast()), percent.isFinite, percent > 0 {
                    tableStyle.widthFraction = min(percent, 100) / 100
                } else {
                    tableStyle.width = Self.htmlLength(width)
                }
            }
            open.table.style = tableStyle
            open.firstParagraph = builder.paragraphCount
            if let outer = openTable { enclosingTables.append(outer) }
            openTable = open
        case .rowGroup:
            let first = openTable?.table.rows.isEmpty == true
            openTable?.inHeader = header && first
            openTable?.groupBackground = style.box.background
        case .row:
            openTable?.row = []
            openTable?.rowBackground = style.box.background
        case .column:
            // `<col width>` or CSS `width` (points) for the columns it spans: their minimum and
            // maximum widths, as CSS 2.1's automatic layout takes a column's width.
            guard var open = openTable.take() else { return }
            let span = attribute(element, "span").flatMap { Int($0.trimmingASCIIWhitespace()) }.map { min(max($0, 1), 1000) } ?? 1
            let width = style.width ?? Self.htmlLength(attribute(element, "width"))
            // A column group's background shows under its columns' (CSS 2.1 §17.5.1).
            let background = style.box.background ?? open.columnGroupBackground
            for column in open.nextColumnElement..<min(open.nextColumnElement + span, TextTable.maximumColumns) {
                while open.table.columnWidths.count <= column {
                    open.table.columnWidths.append(nil)
                    open.table.columnWidthFractions.append(nil)
                    open.table.columnBackgrounds.append(nil)
                }
                open.table.columnWidths[column] = width
                open.table.columnWidthFractions[column] = width == nil ? style.box.widthFraction : nil
                open.table.columnBackgrounds[column] = background
            }
            open.nextColumnElement += span
            openTable = open
        case .columnGroup:
            let span = attribute(element, "span").flatMap { Int($0.trimmingASCIIWhitespace()) }.map { min(max($0, 1), 1000) } ?? 1
            let start = openTable?.nextColumnElement ?? 0
            let width = style.width ?? Self.htmlLength(attribute(element, "width"))
            openTable?.columnGroupBackground = style.box.background
            openTable?.columnGroup = (start, span, width, style.box.widthFraction)
        case .cell:
            guard var open = openTable.take() else { return }
            builder.discardPendingMargins()
            let start = builder.paragraphCount
            if open.firstCell { open.table.paragraphs = start..<start }
            open.firstCell = false
            open.cellStart = start
            var cell = TextTable.Cell(paragraphs: start..<start, column: 0)
            cell.columnSpan = attribute(element, "colspan").flatMap { Int($0.trimmingASCIIWhitespace()) }
                .map { min(max($0, 1), TextTable.maximumColumns) } ?? 1
            cell.rowSpan = attribute(element, "rowspan").flatMap { Int($0.trimmingASCIIWhitespace()) }
                .map { $0 <= 0 ? TextTable.maximumRowSpan : min($0, TextTable.maximumRowSpan) } ?? 1
            let box = style.box
            let padding = isHTML ? open.cellPadding ?? CSSLength.pointsPerPixel : 0
            var cellStyle = TextTable.CellStyle()
            cellStyle.padding = box.paddings(missing: padding)
            let attributeBorder = TextTable.Border(width: open.cellBorders ? CSSLength.pointsPerPixel : 0, color: Self.attributeBorderColor)
            func cellBorder(_ side: ComputedStyle.Box.Side) -> TextTable.Border {
                side.visible ? box.drawn(side, color: style.text.color) : attributeBorder
            }
            cellStyle.border.top = cellBorder(box.border.top)
            cellStyle.border.right = cellBorder(box.border.right)
            cellStyle.border.bottom = cellBorder(box.border.bottom)
            cellStyle.border.left = cellBorder(box.border.left)
            cellStyle.background = box.background ?? open.rowBackground ?? open.groupBackground
            cellStyle.verticalAlignment = box.verticalAlignment ?? (isHTML ? .middle : .baseline)
            cellStyle.width = style.width ?? Self.htmlLength(attribute(element, "width"))
            cellStyle.widthFraction = cellStyle.width == nil ? box.widthFraction : nil
            cellStyle.height = style.height ?? Self.htmlLength(attribute(element, "height"))
            cell.style = cellStyle
            open.cellHidesWhenEmpty = style.emptyCellsHide && !open.table.style.collapse
            // Cells of one style share it: the cell before, in this row or the one above.
            if let previous = open.row?.last ?? open.table.rows.last?.cells.last { cell = cell.sharingStyle(of: previous) }
            open.cell = cell
            openTable = open
        case .caption:
            // A box as wide as the table (CSS 2.1 §17.4), its content set as a cell's.
            builder.discardPendingMargins()
            let box = style.box
            var captionStyle = TextTable.CellStyle()
            captionStyle.padding = box.paddings()
            captionStyle.border = box.drawnBorders(color: style.text.color)
            captionStyle.background = box.background
            openTable?.caption = TextTable.Caption(paragraphs: 0..<0, style: captionStyle, bottom: style.captionSideBottom)
            openTable?.captionStart = builder.paragraphCount
        case .nestedTable:
            break
        }
    }

    /// Puts the children of the table element of frame `index` in the order CSS 2.1 draws
    /// them, so that the table's text runs in that order too: the captions drawn above
    /// (`caption-side: top`) first, the first header group before the rows, the first footer
    /// group after them (§17.2: later ones are ordinary row groups), the captions drawn below
    /// last. Gumbo's vector of children is permuted in place; an element's part is its tag's
    /// (`thead`), else its `display`'s, for which its style is computed ahead.
    private mutating func arrangeTableChildren(_ index: Int) {
        let children = frames[index].children
        let count = Int(children.length)
        guard count > 1 else { return }
        enum Part: Equatable { case other, rows, header, footer, captionAbove, captionBelow }
        var parts: [Part] = []
        parts.reserveCapacity(count)
        // Computed again when the child is entered: counted once.
        let ignored = ignoredProperties
        defer { ignoredProperties = ignored }
        let structural = sheet.hasStructuralSelectors
        /// The table part of an element (and whether it is a caption drawn below): its tag's,
        /// else its `display`'s; an inline element around one table part and white space
        /// (`display: contents`, which Galley sets inline) stands for that part, two levels deep.
        func part(of node: UnsafeMutablePointer<GumboNode>, parent: ComputedStyle, ancestors: [CSSElement], isFirstChild: Bool,
                  depth: Int) -> (name: String?, below: Bool) {
            guard node.pointee.type == GUMBO_NODE_ELEMENT, node.pointee.v.element.tag_namespace == GUMBO_NAMESPACE_HTML else { return (nil, false) }
            let element = node.pointee.v.element
            let tag = self.tag(element)
            let name: String? = Self.tableParts.contains(tag.name) ? tag.name : nil
            guard !tag.isSkipped, name == nil || name == "caption" else { return (name, false) }
            let selected = sheet.isEmpty ? nil : cssElement(element, tag: tag.name, isFirstChild: isFirstChild)
            let style = computedStyle(element, tag: tag, nestedList: false, parent: parent, selected: selected, ancestors: ancestors)
            if style.displayNone { return (nil, false) }
            if let found = name ?? style.tablePart { return (found, style.captionSideBottom) }
            guard style.display == .inline, depth < 2 else { return (nil, false) }
            var inner: UnsafeMutablePointer<GumboNode>?
            for index in 0..<Int(element.children.length) {
                guard let child = element.children.data[index]?.assumingMemoryBound(to: GumboNode.self) else { continue }
                if child.pointee.type == GUMBO_NODE_WHITESPACE || child.pointee.type == GUMBO_NODE_COMMENT { continue }
                guard inner == nil, child.pointee.type == GUMBO_NODE_ELEMENT else { return (nil, false) }
                inner = child
            }
            guard let inner else { return (nil, false) }
            return part(of: inner, parent: style, ancestors: structural ? ancestors + [selected].compactMap { $0 } : [], isFirstChild: true,
                        depth: depth + 1)
        }
        var elementChildren = 0
        let ancestors = structural ? frames.compactMap(\.element) : []
        for child in 0..<count {
            guard let node = children.data[child]?.assumingMemoryBound(to: GumboNode.self) else {
                parts.append(.other)
                continue
            }
            if node.pointee.type == GUMBO_NODE_ELEMENT { elementChildren += 1 }
            let (name, below) = part(of: node, parent: frames[index].style, ancestors: ancestors, isFirstChild: elementChildren == 1, depth: 0)
            switch name {
            case "caption": parts.append(below ? .captionBelow : .captionAbove)
            case "thead": parts.append(.header)
            case "tfoot": parts.append(.footer)
            case "tbody", "tr", "td", "th": parts.append(.rows)
            default: parts.append(.other)
            }
        }
        let grouped: Set<Part> = [.rows, .header, .footer]
        var middle = (0..<count).filter { parts[$0] != .captionAbove && parts[$0] != .captionBelow }
        if let header = parts.firstIndex(of: .header), let first = middle.firstIndex(where: { grouped.contains(parts[$0]) }), middle[first] != header {
            middle.removeAll { $0 == header }
            middle.insert(header, at: first)
        }
        if let footer = parts.firstIndex(of: .footer), let last = middle.lastIndex(where: { grouped.contains(parts[$0]) }), middle[last] != footer {
            middle.removeAll { $0 == footer }
            middle.insert(footer, at: middle.lastIndex(where: { grouped.contains(parts[$0]) }).map { $0 + 1 } ?? middle.count)
        }
        let order = (0..<count).filter { parts[$0] == .captionAbove } + middle + (0..<count).filter { parts[$0] == .captionBelow }
        guard order != Array(0..<count) else { return }
        let pointers = order.map { children.data[$0] }
        for (position, pointer) in pointers.enumerated() { children.data[position] = pointer }
    }

    /// `text`: the element's text style, for the spacer a table of empty cells holds.
    private mutating func endTablePart(_ role: TableRole, text: TextStyle? = nil) {
        switch role {
        case .column:
            break
        case .columnGroup:
            guard var open = openTable.take() else { return }
            if let group = open.columnGroup, open.nextColumnElement == group.start {
                // No `<col>` inside: the group is `span` columns of its width and background.
                for column in group.start..<min(group.start + group.span, TextTable.maximumColumns) {
                    while open.table.columnWidths.count <= column {
                        open.table.columnWidths.append(nil)
                        open.table.columnWidthFractions.append(nil)
                        open.table.columnBackgrounds.append(nil)
                    }
                    open.table.columnWidths[column] = group.width
                    open.table.columnWidthFractions[column] = group.width == nil ? group.widthFraction : nil
                    open.table.columnBackgrounds[column] = open.columnGroupBackground
                }
                open.nextColumnElement = group.start + group.span
            }
            open.columnGroup = nil
            open.columnGroupBackground = nil
            openTable = open
        case .nestedTable:
            nestedTableDepth -= 1
        case .caption:
            guard var open = openTable.take() else { return }
            if let start = open.captionStart, start < builder.paragraphCount {
                open.caption.paragraphs = start..<builder.paragraphCount
                open.table.captions.append(open.caption)
                // A caption drawn above is set before the cells (`arrangeTableChildren`).
                if !open.caption.bottom && !open.firstCell { open.broken = true }
            }
            open.captionStart = nil
            openTable = open
            builder.discardPendingMargins()
        case .rowGroup:
            if openTable?.anonymousRow == true { endTablePart(.row) }
            openTable?.inHeader = false
            openTable?.groupBackground = nil
        case .cell:
            guard var open = openTable.take() else { return }
            guard let start = open.cellStart else {
                openTable = open
                return
            }
            open.cell.paragraphs = start..<builder.paragraphCount
            if open.cellHidesWhenEmpty && open.cell.paragraphs.isEmpty { open.cell.style.hidden = true }
            open.row?.append(open.cell)
            open.cellStart = nil
            openTable = open
            builder.discardPendingMargins()
        case .row:
            guard var open = openTable.take() else { return }
            guard var cells = open.row.take() else {
                openTable = open
                return
            }
            // HTML's table-forming algorithm: each cell takes the first columns not covered by
            // a rowspan from above.
            var column = 0
            for index in cells.indices {
                while column < open.spans.count && open.spans[column] > 0 { column += 1 }
                let span = cells[index].columnSpan
                guard column + span <= TextTable.maximumColumns else {
                    open.broken = true
                    break
                }
                if open.spans.count < column + span { open.spans += Array(repeating: 0, count: column + span - open.spans.count) }
                cells[index].column = column
                for covered in column..<(column + span) { open.spans[covered] = cells[index].rowSpan }
                column += span
            }
            for index in open.spans.indices where open.spans[index] > 0 { open.spans[index] -= 1 }
            // Kept at its size: grown by appending, a row of 10 cells had room for 16.
            var exact: [TextTable.Cell] = []
            exact.reserveCapacity(cells.count)
            exact.append(contentsOf: cells)
            open.table.rows.append(TextTable.Row(cells: exact))
            if open.inHeader { open.table.headerRowCount = open.table.rows.count }
            open.row = nil
            open.anonymousRow = false
            openTable = open
        case .table:
            if openTable?.anonymousRow == true { endTablePart(.row) }
            guard var open = openTable else { return }
            // The table it is nested in, if any, is built on from here.
            openTable = enclosingTables.popLast()
            // Taken out of `open`, so that the rows are changed in place, not copied.
            var table = open.table
            open.table = TextTable(paragraphs: 0..<0, rows: [])
            if let text, !open.firstCell, !open.broken, table.paragraphs.lowerBound == builder.paragraphCount {
                // Cells with no text at all: the first holds an empty spacer, so that the
                // table has a paragraph where the framesetter meets it and its boxes are drawn.
                let first = table.paragraphs.lowerBound
                builder.appendSpacer(style: text)
                builder.breakParagraph()
                var seen = false
                for rowIndex in table.rows.indices {
                    for cellIndex in table.rows[rowIndex].cells.indices {
                        table.rows[rowIndex].cells[cellIndex].paragraphs = seen ? (first + 1)..<(first + 1) : first..<(first + 1)
                        seen = true
                    }
                }
            }
            let end = builder.paragraphCount
            if !open.firstCell { table.paragraphs = table.paragraphs.lowerBound..<end }
            // The captions drawn above start the table's text.
            if !open.firstCell, let caption = table.captions.first(where: { !$0.bottom }), caption.paragraphs.lowerBound < table.paragraphs.lowerBound {
                table.paragraphs = caption.paragraphs.lowerBound..<end
            }
            for rowIndex in table.rows.indices {
                for cellIndex in table.rows[rowIndex].cells.indices {
                    let span = table.rows[rowIndex].cells[cellIndex].rowSpan
                    if span > table.rows.count - rowIndex { table.rows[rowIndex].cells[cellIndex].rowSpan = table.rows.count - rowIndex }
                    let cell = table.rows[rowIndex].cells[cellIndex]
                    table.columnCount = max(table.columnCount, cell.column + cell.columnSpan)
                }
            }
            // Every paragraph of the table must be in a cell, in order; otherwise (text that
            // was not in a cell) the table stays paragraphs.
            var next = table.paragraphs.lowerBound
            for run in table.textRuns {
                if run.lowerBound != next { open.broken = true }
                next = run.upperBound
            }
            if next != table.paragraphs.upperBound { open.broken = true }
            if table.paragraphs.isEmpty || open.broken {
                // Set as paragraphs (a caption, text outside cells): they keep the margin above.
                builder.restoreMargin(table.style.spaceBefore, paragraph: open.firstParagraph)
            } else if table.paragraphs.lowerBound > open.firstParagraph {
                // Text before the first cell, set above the table: the table's margin goes
                // above it.
                builder.restoreMargin(table.style.spaceBefore, paragraph: open.firstParagraph)
                table.style.spaceBefore = 0
            }
            guard !table.paragraphs.isEmpty else { return }
            if open.broken {
                flattenedTables += 1
                // The grids nested in it stay grids, now in the cell (or the text) it is in.
                adopt(table.nested)
                return
            }
            adopt([table])
        }
    }

    /// Adds finished tables to the open table they are nested in, or to the article's tables.
    private mutating func adopt(_ tables: [TextTable]) {
        if openTable != nil {
            openTable?.table.nested += tables
        } else {
            let parent = currentNode
            for table in tables {
                builder.boxTree.boxes[parent].children.append(.table(builder.tables.count))
                builder.tables.append(table)
            }
        }
    }

    /// The colour of borders that HTML's `border` attribute asks for (browsers draw them in
    /// greys, `outset` and `inset`).
    private static let attributeBorderColor = RGBColor(r: 128, g: 128, b: 128)

    /// Whether an `<object>` or `<embed>` holds a picture: by its `type`, else by the extension
    /// of its address.
    static func isPicture(source: String, type: String?) -> Bool {
        if let type = type?.lowercased().trimmingASCIIWhitespace(), !type.isEmpty { return type.hasPrefix("image/") }
        let path = source.split(whereSeparator: { $0 == "?" || $0 == "#" }).first.map(String.init) ?? source
        let fileExtension = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        return path.contains(".") && ["svg", "png", "jpg", "jpeg", "gif", "webp", "avif", "bmp", "tif", "tiff"].contains(fileExtension)
    }

    private mutating func appendImage(_ element: GumboElement, style: ComputedStyle, parent: Frame, source given: String? = nil,
                                      alternative: String? = nil) {
        var source = given ?? attribute(element, "src") ?? ""
        // Lazy-loading pages put a placeholder in `src` and the picture in `data-src`.
        if source.isEmpty || source.hasPrefix("data:"), let lazy = attribute(element, "data-src"), !lazy.isEmpty {
            source = lazy
        }
        var width = style.width ?? Self.htmlLength(attribute(element, "width"))
        let height = style.height ?? Self.htmlLength(attribute(element, "height"))
        // A percentage is of the block around the picture's line, known only when the line is
        // set (`ParagraphAnalyzer.attachmentBox`); the height then follows the aspect ratio.
        let widthFraction = width == nil ? style.box.widthFraction ?? Self.htmlPercentage(attribute(element, "width")) : nil
        if widthFraction != nil && style.height == nil { width = nil }
        // A floated picture leaves the flow: it breaks no paragraph, whatever its display.
        let isBlock = style.isBlockLevel && style.float == nil
        if isBlock {
            builder.breakParagraph()
            builder.addMargin(style.marginTop)
            builder.paragraphStyle = style.paragraphStyle(base: base)
        }
        let alternativeText = alternative ?? attribute(element, "alt") ?? ""
        let shownText = alternativeText.trimmingASCIIWhitespace()
        if width == nil && height == nil && !shownText.isEmpty && unavailablePictures.contains(source) {
            builder.append(shownText.unicodeScalars, style: style.text)
        } else {
            builder.appendAttachment(source: source, width: width, height: widthFraction == nil ? height : nil, widthFraction: widthFraction,
                                     alternative: alternativeText, style: style.text, float: style.float)
        }
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
        builder.setListMarker(marker, style: markerStyle, width: ems * markerStyle.size, hangsOutside: style.inTableCell)
    }

    /// The marker of a list item: a bullet or a number, then a no-break space; nil for `none`.
    private static func markerText(_ kind: ComputedStyle.ListMarker, _ ordinal: Int) -> String? {
        switch kind {
        case .none: return nil
        case .disc, .circle, .square: return GeneratedContent.label(ordinal, kind) + "\u{A0}"
        default: return GeneratedContent.label(ordinal, kind) + ".\u{A0}"
        }
    }

    static func alphabetic(_ number: Int) -> String? {
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

    static func roman(_ number: Int) -> String? {
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
        if ["table", "tr", "td", "th"].contains(name) {
            if let color = attribute(element, "bgcolor") { hints.append(CSSDeclaration(property: "background-color", value: color)) }
            if name != "table", let valign = attribute(element, "valign")?.lowercased() {
                hints.append(CSSDeclaration(property: "vertical-align", value: valign == "center" ? "middle" : valign))
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
    private static func fontSizeKeyword(_ text: String) -> String? {
        let value = text.trimmingASCIIWhitespace()
        guard let parsed = Int(value.hasPrefix("+") ? String(value.dropFirst()) : value) else { return nil }
        let number = min(max(parsed, -10), 10)
        let size = value.hasPrefix("+") || value.hasPrefix("-") ? 3 + number : number
        let keywords = ["x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large"]
        return keywords[min(max(size, 1), 7) - 1]
    }

    /// An HTML `width`/`height` attribute (CSS pixels) in points; nil for percentages and junk.
    /// An HTML `width` attribute given as a percentage (`width="50%"`), as a fraction of 1.
    private static func htmlPercentage(_ text: String?) -> Double? {
        guard let value = text?.trimmingASCIIWhitespace(), value.hasSuffix("%"),
              let percent = Double(value.dropLast()), percent.isFinite, percent > 0 else { return nil }
        return min(percent, 100) / 100
    }

    private static func htmlLength(_ text: String?) -> Double? {
        guard let text else { return nil }
        let value = text.trimmingASCIIWhitespace()
        guard !value.contains("%") else { return nil }
        let digits = value.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard let number = Double(digits), number.isFinite, number >= 0 else { return nil }
        return number * CSSLength.pointsPerPixel
    }

    private func resolvedLink(_ href: String) -> String {
        let trimmed = href.trimmingASCIIWhitespace()
        // A fragment alone points into the article itself (`AttributedText.anchors`).
        guard !trimmed.hasPrefix("#"), let baseURL, let url = URL(string: trimmed, relativeTo: baseURL) else { return trimmed }
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

    /// Characters of text (not white space) inside an element, scripts and style sheets aside.
    private func visibleCharacters(inside element: GumboElement) -> Int { visibleCharacters(in: element.children) }

    private func visibleCharacters(in nodes: GumboVector) -> Int {
        var count = 0
        var pending = [nodes]
        while let children = pending.popLast() {
            for index in 0..<Int(children.length) {
                guard let child = children.data[index]?.assumingMemoryBound(to: GumboNode.self) else { continue }
                switch child.pointee.type {
                case GUMBO_NODE_TEXT, GUMBO_NODE_CDATA:
                    guard let text = child.pointee.v.text.text else { continue }
                    count += Self.visibleCharacters(UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self),
                                                                        count: strlen(text)))
                case GUMBO_NODE_ELEMENT:
                    let tag = child.pointee.v.element.tag
                    if tag != GUMBO_TAG_SCRIPT && tag != GUMBO_TAG_STYLE { pending.append(child.pointee.v.element.children) }
                default:
                    break
                }
            }
        }
        return count
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
