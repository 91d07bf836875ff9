/// Where a long HTML document can be cut so that gumbo parses it a piece at a time: the first
/// piece as a document, the others as fragments in `<body>`, each tree walked and freed before
/// the next is made.
///
/// Why: gumbo builds the whole tree before anything reads it, 256 bytes and more per element,
/// so an article of a million `<span>`s took over 400 MB. gumbo has no streaming interface, so
/// this scanner finds the places where parsing afresh gives what the whole parse gives, and is
/// written by hand because that question is about this use of gumbo, not about HTML in general.
///
/// A cut is made only where the answer is certain: after an end tag that closes the last
/// element opened since `<body>`, every element in between having been closed by its own end
/// tag, in the right order. Then the tree builder's stack of open elements is `html`, `body`
/// and nothing else, and its list of active formatting elements is empty (a formatting element
/// is only ever in that list while open), so what follows is parsed in body as a fragment in
/// `<body>` is. Anything the scanner does not follow exactly gives no cuts at all, and the
/// document is parsed whole: no `<!DOCTYPE html>` (quirks mode changes how `<table>` closes
/// `<p>`, and fragments are parsed in no-quirks mode); an end tag that does not close the
/// innermost open element (`<p>` closed by the next `<p>`, `<li>` without `</li>`); an unclosed
/// comment or raw-text element; `<script>` holding `<!--`; `<plaintext>`. Elements whose place
/// in the document matters beyond their position (`<style>`, `<link>`, `<meta>`, `<title>`,
/// `<base>`, a second `<body>` or `<html>`, `<head>`, `<frameset>`) are only allowed before the
/// first cut, since the walker reads them from the first piece, and so are `<svg>` and `<math>`,
/// which gumbo's fragment parser does not close at their end tags.
///
/// A long table at body level is cut between its rows too (issue #33: gumbo's tree of a table
/// of 100,000 rows took 300 MB), after a `</tr>` that leaves only the table and its row group
/// (`<tbody>`, written or implied) open. The pieces after such a cut hold rows and are parsed
/// as fragments in `<tbody>`, whose children the walker takes as the row group's next ones.
/// Once a table is cut, its level may hold only more rows, white space and comments, and a cut
/// back to `<body>` is made before its `</tbody>` or `</table>` (end tags that `<body>` ignores,
/// as the table is then closed); anything else there (a `<tfoot>`, text the tree builder would
/// move before the table) and the document is parsed whole.
enum HTMLPieces {
    /// Where a piece after the first starts, and whether it holds rows of a table (parsed in
    /// `<tbody>`) or content of the body.
    struct Cut: Equatable {
        var offset: Int
        var inTable: Bool
    }

    /// Where pieces after the first start, at least `pieceSize` bytes apart (a table's end is
    /// cut wherever it is); empty when the document must be parsed whole.
    static func cuts(_ html: UnsafeBufferPointer<UInt8>, pieceSize: Int) -> [Cut] {
        var scanner = Scanner(html: html)
        return scanner.cuts(pieceSize: pieceSize) ?? []
    }

    private static let voidElements: Set<[UInt8]> = Set(["area", "base", "br", "col", "embed", "hr", "img", "image", "input",
                                                          "keygen", "link", "meta", "param", "source", "track", "wbr", "basefont",
                                                          "bgsound", "frame", "menuitem"].map { Array($0.utf8) })
    /// Elements whose content is text up to their end tag (RAWTEXT and RCDATA).
    private static let rawTextElements: Set<[UInt8]> = Set(["script", "style", "textarea", "title", "xmp", "iframe", "noembed",
                                                            "noframes"].map { Array($0.utf8) })
    /// Elements that may not appear after the first cut: those the walker reads from the whole
    /// document, and foreign content (svg, math), which gumbo's fragment parser leaves open
    /// after its end tag.
    private static let documentLevelElements: Set<[UInt8]> = Set(["style", "link", "meta", "title", "base", "body", "html",
                                                                  "head", "frameset", "svg", "math"].map { Array($0.utf8) })

    private static func names(_ list: [String]) -> Set<[UInt8]> { Set(list.map { Array($0.utf8) }) }
    /// Start and end tags allowed before `<body>`: the head's elements, which leave nothing open.
    private static let headStartTags = names(["html", "head", "title", "meta", "link", "style", "script", "base", "basefont", "bgsound"])
    private static let headEndTags = names(["html", "head", "title", "style", "script"])
    private static let headings = names(["h1", "h2", "h3", "h4", "h5", "h6"])
    /// Start tags that close an open `<p>` ("close a p element" in the tree builder).
    private static let closesParagraph = names(["address", "article", "aside", "blockquote", "center", "details", "dialog", "dir",
                                                "div", "dl", "fieldset", "figcaption", "figure", "footer", "header", "hgroup",
                                                "main", "menu", "nav", "ol", "p", "search", "section", "summary", "ul", "h1", "h2",
                                                "h3", "h4", "h5", "h6", "pre", "listing", "form", "table", "hr", "xmp",
                                                "plaintext", "li", "dd", "dt"])
    /// Start tags that close an open element of one of the listed kinds.
    private static let closedBy: [[UInt8]: Set<[UInt8]>] = [
        Array("li".utf8): names(["li"]), Array("dd".utf8): names(["dd", "dt"]), Array("dt".utf8): names(["dd", "dt"]),
        Array("a".utf8): names(["a"]), Array("nobr".utf8): names(["nobr"]), Array("button".utf8): names(["button"]),
        Array("form".utf8): names(["form"]), Array("select".utf8): names(["select"]),
        Array("option".utf8): names(["option"]), Array("optgroup".utf8): names(["option", "optgroup"]),
        Array("input".utf8): names(["select"]), Array("keygen".utf8): names(["select"]), Array("textarea".utf8): names(["select"]),
        Array("rb".utf8): names(["rb", "rt", "rp", "rtc"]), Array("rt".utf8): names(["rb", "rt", "rp", "rtc"]),
        Array("rp".utf8): names(["rb", "rt", "rp", "rtc"]), Array("rtc".utf8): names(["rb", "rt", "rp", "rtc"]),
        Array("td".utf8): names(["td", "th"]), Array("th".utf8): names(["td", "th"]), Array("tr".utf8): names(["tr"]),
        Array("tbody".utf8): names(["tbody", "thead", "tfoot"]), Array("thead".utf8): names(["tbody", "thead", "tfoot"]),
        Array("tfoot".utf8): names(["tbody", "thead", "tfoot"]), Array("caption".utf8): names(["caption"]),
        Array("colgroup".utf8): names(["colgroup"]),
    ]
    /// HTML start tags that end foreign content (svg, math) and close what is open in it.
    private static let foreignBreakouts = names(["b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl",
                                                 "dt", "em", "embed", "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img",
                                                 "li", "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small",
                                                 "span", "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var", "font"])

    /// Whether an HTML start tag `name` would make the tree builder close an element on
    /// `stack` of its own accord (conservatively: anywhere on the stack, not only in scope),
    /// after which the scanner's stack would no longer be the tree builder's.
    private static func closesImplicitly(_ name: [UInt8], stack: [[UInt8]]) -> Bool {
        if closesParagraph.contains(name), stack.contains(Array("p".utf8)) { return true }
        if headings.contains(name), let top = stack.last, headings.contains(top) { return true }
        if let closed = closedBy[name], stack.contains(where: closed.contains) { return true }
        return false
    }

    private struct Scanner {
        let html: UnsafeBufferPointer<UInt8>
        var index = 0

        init(html: UnsafeBufferPointer<UInt8>) {
            self.html = html
        }

        /// Whether `stack` is a body-level table with its row group, where the tree builder's
        /// stack is `html`, `body`, `table`, `tbody` (implied when not written).
        private static func atTableLevel(_ stack: [[UInt8]]) -> Bool {
            stack.first == tableName && (stack.count == 1 || (stack.count == 2 && stack[1] == tbodyName))
        }
        private static let tableName = Array("table".utf8), tbodyName = Array("tbody".utf8), trName = Array("tr".utf8)

        /// Whether text here is outside the cells of a body-level table: in the table or a row.
        private func outsideCells(_ stack: [[UInt8]]) -> Bool {
            Self.atTableLevel(stack) || (stack.last == Self.trName && Self.atTableLevel(Array(stack.dropLast())))
        }

        /// nil: parse whole.
        mutating func cuts(pieceSize: Int) -> [Cut]? {
            guard startsWithHTMLDoctype() else { return nil }
            var cuts: [Cut] = []
            /// The open body-level table has been cut between rows, and cut back to the body
            /// before its end tags.
            var tableCut = false
            var tableEnded = false
            var inBody = false
            var bodyEnded = false
            var stack: [[UInt8]] = []
            /// Depth in `stack` where foreign content (svg, math) began.
            var foreignStart: Int?
            var lastCut = 0
            while index < html.count {
                guard html[index] == UInt8(ascii: "<"), index + 1 < html.count else {
                    // Text before `<body>` starts the body itself, with whatever is open.
                    if !inBody && !html[index].isHTMLWhitespace { return nil }
                    // Text outside the cells of a cut table goes before the table in the whole
                    // parse, somewhere else in a piece.
                    if tableCut && !html[index].isHTMLWhitespace && outsideCells(stack) { return nil }
                    index += 1
                    continue
                }
                let next = html[index + 1]
                if next == UInt8(ascii: "!") {
                    guard skipMarkupDeclaration(foreign: foreignStart != nil) else { return nil }
                } else if next == UInt8(ascii: "?") {
                    guard skip(past: UInt8(ascii: ">"), from: index + 2) else { return nil }
                } else if next == UInt8(ascii: "/") {
                    guard index + 2 < html.count else { return nil }
                    guard html[index + 2].isASCIILetter else {
                        // `</>` is dropped, `</3` is a bogus comment: neither is an element.
                        guard skip(past: UInt8(ascii: ">"), from: index + 2) else { return nil }
                        continue
                    }
                    let tagStart = index
                    guard let tag = readTag(from: index + 2) else { return nil }
                    index = tag.end
                    if tableCut, Self.atTableLevel(stack), tag.name == stack.last {
                        // The table's end: the rest is parsed in the body, which ignores
                        // `</tbody>` and `</table>`.
                        if !tableEnded {
                            if cuts.last?.offset == tagStart { cuts[cuts.count - 1].inTable = false } else { cuts.append(Cut(offset: tagStart, inTable: false)) }
                            lastCut = tagStart
                            tableEnded = true
                        }
                    } else if tableEnded, Self.atTableLevel(stack) {
                        return nil
                    }
                    guard inBody else {
                        guard headEndTags.contains(tag.name) else { return nil }
                        continue
                    }
                    if tag.name == Array("body".utf8) || tag.name == Array("html".utf8) {
                        guard stack.isEmpty else { return nil }
                        bodyEnded = true
                        continue
                    }
                    guard let open = stack.last, open == tag.name else { return nil }
                    stack.removeLast()
                    if let start = foreignStart, stack.count <= start { foreignStart = nil }
                    if stack.isEmpty {
                        (tableCut, tableEnded) = (false, false)
                        if !bodyEnded, index - lastCut >= pieceSize, index < html.count {
                            cuts.append(Cut(offset: index, inTable: false))
                            lastCut = index
                        }
                    } else if tag.name == Self.trName, Self.atTableLevel(stack), foreignStart == nil, !tableEnded,
                              index - lastCut >= pieceSize, index < html.count {
                        cuts.append(Cut(offset: index, inTable: true))
                        lastCut = index
                        tableCut = true
                    }
                } else if next.isASCIILetter {
                    guard let tag = readTag(from: index + 1) else { return nil }
                    index = tag.end
                    if !inBody {
                        // Only what belongs in the head may come before `<body>`: anything else
                        // opens the body there, and what it opens may still be open later.
                        if tag.name == Array("body".utf8) {
                            inBody = true
                        } else if !headStartTags.contains(tag.name) {
                            return nil
                        } else if rawTextElements.contains(tag.name) {
                            guard skipRawText(tag.name) else { return nil }
                        }
                        continue
                    }
                    if !cuts.isEmpty || bodyEnded, documentLevelElements.contains(tag.name) { return nil }
                    // A cut table's level holds only rows until its end.
                    if tableCut, Self.atTableLevel(stack), tableEnded || tag.name != Self.trName { return nil }
                    if tag.name == Array("plaintext".utf8) || tag.name == Array("frameset".utf8) { return nil }
                    if foreignStart != nil {
                        // These leave foreign content, closing what is open in it.
                        if foreignBreakouts.contains(tag.name) { return nil }
                        if !tag.selfClosing { stack.append(tag.name) }
                        continue
                    }
                    if rawTextElements.contains(tag.name) {
                        guard skipRawText(tag.name) else { return nil }
                        continue
                    }
                    if voidElements.contains(tag.name) {
                        if !stack.isEmpty, closesImplicitly(tag.name, stack: stack) { return nil }
                        continue
                    }
                    if !stack.isEmpty, closesImplicitly(tag.name, stack: stack) { return nil }
                    if tag.name == Array("svg".utf8) || tag.name == Array("math".utf8) {
                        if tag.selfClosing { continue }
                        foreignStart = stack.count
                    }
                    stack.append(tag.name)
                } else {
                    if tableCut && outsideCells(stack) { return nil }
                    index += 1  // A `<` that starts no tag is text.
                }
            }
            return cuts
        }

        /// `<!DOCTYPE html>` (any case, any white space), after white space and comments only.
        private mutating func startsWithHTMLDoctype() -> Bool {
            var i = 0
            if html.count >= 3, html[0] == 0xEF, html[1] == 0xBB, html[2] == 0xBF { i = 3 }
            while i < html.count {
                if html[i].isHTMLWhitespace {
                    i += 1
                } else if matches("<!--", at: i) {
                    index = i
                    guard skipComment() else { return false }
                    i = index
                } else {
                    break
                }
            }
            guard matchesLowercased("<!doctype", at: i) else { return false }
            i += 9
            guard i < html.count, html[i].isHTMLWhitespace else { return false }
            while i < html.count, html[i].isHTMLWhitespace { i += 1 }
            guard matchesLowercased("html", at: i) else { return false }
            i += 4
            while i < html.count, html[i].isHTMLWhitespace { i += 1 }
            guard i < html.count, html[i] == UInt8(ascii: ">") else { return false }
            index = i + 1
            return true
        }

        /// A start or end tag's lowercased name, whether it ends in `/>`, and the offset after
        /// its `>`; nil when the document ends inside it. `start` is the name's first letter.
        private func readTag(from start: Int) -> (name: [UInt8], selfClosing: Bool, end: Int)? {
            var i = start
            var name: [UInt8] = []
            while i < html.count {
                let c = html[i]
                if c.isHTMLWhitespace || c == UInt8(ascii: "/") || c == UInt8(ascii: ">") { break }
                name.append(c >= 0x41 && c <= 0x5A ? c + 0x20 : c)
                i += 1
            }
            // Attributes: a value is quoted when its first character after `=` (and white
            // space) is a quote; a quote anywhere else is an ordinary character.
            var afterEquals = false
            while i < html.count {
                let c = html[i]
                if c == UInt8(ascii: ">") {
                    let selfClosing = i > start && html[i - 1] == UInt8(ascii: "/")
                    return (name, selfClosing, i + 1)
                }
                if afterEquals && (c == UInt8(ascii: "\"") || c == UInt8(ascii: "'")) {
                    i += 1
                    while i < html.count, html[i] != c { i += 1 }
                    guard i < html.count else { return nil }
                    afterEquals = false
                } else if c == UInt8(ascii: "=") {
                    afterEquals = true
                } else if !c.isHTMLWhitespace {
                    afterEquals = false
                }
                i += 1
            }
            return nil
        }

        /// After `<!`: a comment, a doctype or a bogus comment, or CDATA in foreign content.
        private mutating func skipMarkupDeclaration(foreign: Bool) -> Bool {
            if matches("<!--", at: index) { return skipComment() }
            if matches("<![CDATA[", at: index) {
                // Outside foreign content it is a bogus comment up to `>`; inside, text up to `]]>`.
                guard foreign else { return skip(past: UInt8(ascii: ">"), from: index + 2) }
                var i = index + 9
                while i + 2 < html.count {
                    if html[i] == UInt8(ascii: "]") && html[i + 1] == UInt8(ascii: "]") && html[i + 2] == UInt8(ascii: ">") {
                        index = i + 3
                        return true
                    }
                    i += 1
                }
                return false
            }
            return skip(past: UInt8(ascii: ">"), from: index + 2)
        }

        /// A comment from its `<!--`: `<!-->` and `<!--->` are empty ones; it ends at `-->` or
        /// `--!>`. False when it runs to the end of the document.
        private mutating func skipComment() -> Bool {
            var i = index + 4
            if i < html.count, html[i] == UInt8(ascii: ">") { index = i + 1; return true }
            if matches("->", at: i) { index = i + 2; return true }
            while i < html.count {
                if matches("-->", at: i) { index = i + 3; return true }
                if matches("--!>", at: i) { index = i + 4; return true }
                i += 1
            }
            return false
        }

        /// The text of a raw-text element, up to its end tag (`</name` then white space, `/` or
        /// `>`), which is skipped too. False when there is none, or (in `<script>`) when `<!--`
        /// could hide the end tag.
        private mutating func skipRawText(_ name: [UInt8]) -> Bool {
            var i = index
            let isScript = name == Array("script".utf8)
            while i + 1 < html.count {
                if isScript && matches("<!--", at: i) { return false }
                if html[i] == UInt8(ascii: "<") && html[i + 1] == UInt8(ascii: "/") && i + 2 + name.count <= html.count {
                    var same = true
                    for (offset, letter) in name.enumerated() {
                        let c = html[i + 2 + offset]
                        if (c >= 0x41 && c <= 0x5A ? c + 0x20 : c) != letter { same = false; break }
                    }
                    let after = i + 2 + name.count
                    if same, after < html.count, html[after].isHTMLWhitespace || html[after] == UInt8(ascii: "/") || html[after] == UInt8(ascii: ">") {
                        index = i
                        return skip(past: UInt8(ascii: ">"), from: after)
                    }
                }
                i += 1
            }
            return false
        }

        /// Moves past the first `byte` at or after `start`; false when there is none.
        private mutating func skip(past byte: UInt8, from start: Int) -> Bool {
            var i = start
            while i < html.count, html[i] != byte { i += 1 }
            guard i < html.count else { return false }
            index = i + 1
            return true
        }

        private func matches(_ text: StaticString, at offset: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard offset + count <= html.count else { return false }
            return text.withUTF8Buffer { UnsafeBufferPointer(rebasing: html[offset..<(offset + count)]).elementsEqual($0) }
        }

        private func matchesLowercased(_ text: StaticString, at offset: Int) -> Bool {
            let count = text.utf8CodeUnitCount
            guard offset + count <= html.count else { return false }
            return text.withUTF8Buffer { expected in
                (0..<count).allSatisfy { i in
                    let c = html[offset + i]
                    return (c >= 0x41 && c <= 0x5A ? c + 0x20 : c) == expected[i]
                }
            }
        }
    }
}
