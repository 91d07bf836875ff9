/// The author style sheet of one document: the rules of its `<style>` elements whose
/// selectors the parser supports, indexed by id, class and type for matching.
///
/// Parsing never fails: comments, `<!--`/`-->` and XHTML's `<![CDATA[`/`]]>` wrappers,
/// at-rules (`@media` for print or all
/// media is read, `@page` rules are kept for the pages, other `@media`, `@font-face` and the rest are skipped with the rules inside
/// them; `@import` is followed by the walker), unbalanced braces and unsupported selectors
/// are passed over. It is linear in the length of the text.
struct StyleSheet: Sendable {
    private struct Rule: Sendable {
        var selector: CSSSelector
        var declarations: [CSSDeclaration]
    }

    private var rules: [Rule] = []
    private var rulesByID: [String: [Int]] = [:]
    private var rulesByClass: [String: [Int]] = [:]
    private var rulesByTag: [String: [Int]] = [:]
    private var universalRules: [Int] = []
    /// Selectors skipped because they use something unsupported.
    private(set) var unsupportedSelectorCount = 0
    /// At-rules skipped, with any rules inside them, that could have changed the pages, by
    /// name (`@font-face`, `@page`); rules for other media, animations and the like are
    /// skipped without a word (`isPrintIrrelevant`).
    private(set) var skippedAtRules: [String: Int] = [:]
    var skippedAtRuleCount: Int { skippedAtRules.values.reduce(0, +) }
    /// Some rule looks at ancestors or at an element's position (descendant and child
    /// combinators, `:first-child`): an element's style then depends on more than its parent's.
    private(set) var hasStructuralSelectors = false
    /// Whether a rule styles a pseudo-element (`::before`, `::after`, `::first-letter`, `::first-line`).
    private(set) var hasPseudoElementRules = false
    /// The `@page` rules (`PagedMedia.swift`).
    private(set) var pagedMedia = PagedMedia()

    init() {}

    var isEmpty: Bool { rules.isEmpty }

    /// Adds the rules of a style sheet, after those already added (later rules win ties).
    mutating func add(css: String) {
        // CSS delimiters are all ASCII, so the scan runs over UTF-8 bytes.
        let text = Self.removingComments(Array(css.utf8))
        var i = 0
        while i < text.count {
            let c = text[i]
            if c.isHTMLWhitespace || c == UInt8(ascii: "}") || c == UInt8(ascii: ";") {
                i += 1
            } else if Self.hasPrefix(text, at: i, "<!--") {
                i += 4
            } else if Self.hasPrefix(text, at: i, "-->") {
                i += 3
            } else if Self.hasPrefix(text, at: i, "<![CDATA[") {
                // XHTML's wrapper of a style sheet (EPUB chapters, `.xht` pages), which an XML
                // parser removes and an HTML parser leaves in the text: skipped like `<!--`.
                i += 9
            } else if Self.hasPrefix(text, at: i, "]]>") {
                i += 3
            } else if c == UInt8(ascii: "@") {
                let end = Self.scan(text, from: i, untilEither: UInt8(ascii: "{"), UInt8(ascii: ";"))
                let prelude = String(decoding: text[i..<min(end, text.count)], as: UTF8.self).lowercased()
                guard end < text.count && text[end] == UInt8(ascii: "{") else {
                    noteSkipped(prelude)
                    i = end + 1
                    continue
                }
                let block = Self.skipBlock(text, openBrace: end)
                if Self.isPrintMedia(prelude) {
                    // Galley makes pages: the rules for print (and all media) apply.
                    add(css: String(decoding: text[(end + 1)..<block.bodyEnd], as: UTF8.self))
                } else if prelude.hasPrefix("@page") {
                    pagedMedia.addPageRule(prelude: prelude, body: String(decoding: text[(end + 1)..<block.bodyEnd], as: UTF8.self))
                } else {
                    noteSkipped(prelude)
                }
                i = block.end
            } else {
                let open = Self.scan(text, from: i, untilEither: UInt8(ascii: "{"), UInt8(ascii: "{"))
                guard open < text.count else { break }
                let block = Self.skipBlock(text, openBrace: open)
                let prelude = String(decoding: text[i..<open], as: UTF8.self)
                let body = String(decoding: text[(open + 1)..<block.bodyEnd], as: UTF8.self)
                i = block.end
                addRule(prelude: prelude, body: body)
            }
        }
    }

    /// Counts an at-rule passed over, unless it could not have changed printed pages.
    private mutating func noteSkipped(_ prelude: String) {
        let name = String(prelude.prefix { !$0.isWhitespace && $0 != "(" && $0 != "\"" && $0 != "'" })
        guard !Self.isPrintIrrelevant(name) else { return }
        skippedAtRules[name, default: 0] += 1
    }

    /// At-rules with nothing for printed pages: `@media` for other media (screen, speech),
    /// the encoding, `@import` (the walker follows it), namespaces, animations and viewports.
    static func isPrintIrrelevant(_ name: String) -> Bool {
        let unprefixed = name.hasPrefix("@-") ? "@" + (name.dropFirst(2).split(separator: "-", maxSplits: 1).last ?? "") : name
        return ["@media", "@charset", "@import", "@namespace", "@keyframes", "@viewport"].contains(unprefixed)
    }

    /// Whether an at-rule's prelude (lowercased) is `@media` for print or all media: a media
    /// query list naming `print` or `all` (or no type, as `@media (min-width: 0)`), not
    /// negated. `screen`-only rules do not apply to pages.
    static func isPrintMedia(_ prelude: String) -> Bool {
        guard prelude.hasPrefix("@media") else { return false }
        let queries = prelude.dropFirst(6).split(separator: ",").map { $0.trimmingASCIIWhitespace() }
        return queries.contains { query in
            let words = query.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
            guard words.first != "not" else { return false }
            let types = words.filter { $0.first?.isLetter == true && $0 != "and" && $0 != "only" }
            return types.isEmpty || types.contains("print") || types.contains("all")
        }
    }

    private mutating func addRule(prelude: String, body: String) {
        let declarations = Self.declarations(in: body)
        for selectorText in Self.split(prelude, on: UInt8(ascii: ",")) {
            let trimmed = selectorText.trimmingASCIIWhitespace()
            guard let selector = CSSSelector(trimmed) else {
                unsupportedSelectorCount += 1
                continue
            }
            guard !declarations.isEmpty else { continue }
            let index = rules.count
            rules.append(Rule(selector: selector, declarations: declarations))
            if selector.isStructural { hasStructuralSelectors = true }
            if selector.pseudoElement != nil { hasPseudoElementRules = true }
            if let id = selector.ids.first {
                rulesByID[id, default: []].append(index)
            } else if let className = selector.classes.first {
                rulesByClass[className, default: []].append(index)
            } else if let tag = selector.tag {
                rulesByTag[tag, default: []].append(index)
            } else {
                universalRules.append(index)
            }
        }
    }

    /// The declarations of the rules matching an element, least specific first, rules of equal
    /// specificity in source order.
    func declarations(tag: String, id: String?, classes: [String]) -> [CSSDeclaration] {
        declarations(for: CSSElement(tag: tag, id: id, classes: classes, attributes: [], isFirstChild: false), ancestors: [])
    }

    /// The declarations of the rules matching `element`, whose ancestors are `ancestors`
    /// (nearest last), least specific first, rules of equal specificity in source order; with
    /// `pseudoElement`, those of the rules for that box of the element instead.
    func declarations(for element: CSSElement, ancestors: [CSSElement],
                      pseudoElement: CSSSelector.PseudoElement? = nil) -> [CSSDeclaration] {
        guard !rules.isEmpty else { return [] }
        let (tag, id, classes) = (element.tag, element.id, element.classes)
        var candidates = universalRules
        if let id, let list = rulesByID[id] { candidates += list }
        var seenClasses = Set<String>()
        for className in classes where seenClasses.insert(className).inserted {
            if let list = rulesByClass[className] { candidates += list }
        }
        if let list = rulesByTag[tag] { candidates += list }
        // A rule's index is its source order.
        let matching = candidates
            .filter { rules[$0].selector.pseudoElement == pseudoElement && rules[$0].selector.matches(element, ancestors: ancestors) }
            .sorted { (rules[$0].selector.specificity, $0) < (rules[$1].selector.specificity, $1) }
        return matching.flatMap { rules[$0].declarations }
    }

    // MARK: - Declarations

    /// The declarations of a block or a `style` attribute, shorthands expanded, in order.
    static func declarations(in text: String) -> [CSSDeclaration] {
        var result: [CSSDeclaration] = []
        for item in split(text, on: UInt8(ascii: ";")) {
            guard let colon = item.firstIndex(of: ":") else { continue }
            let property = item[..<colon].trimmingASCIIWhitespace().lowercased()
            var value = item[item.index(after: colon)...].trimmingASCIIWhitespace()
            var important = false
            if let bang = value.lastIndex(of: "!"),
               value[value.index(after: bang)...].trimmingASCIIWhitespace().lowercased() == "important" {
                important = true
                value = value[..<bang].trimmingASCIIWhitespace()
            }
            guard !property.isEmpty, !value.isEmpty else { continue }
            for (longhand, longValue) in expand(property: property, value: value) {
                result.append(CSSDeclaration(property: longhand, value: longValue, important: important))
            }
        }
        return result
    }

    private static func expand(property: String, value: String) -> [(String, String)] {
        switch property {
        case "margin", "padding":
            let parts = tokens(value)
            guard (1...4).contains(parts.count) else { return [] }
            let top = parts[0]
            let right = parts.count > 1 ? parts[1] : top
            let bottom = parts.count > 2 ? parts[2] : top
            let left = parts.count > 3 ? parts[3] : right
            return [("\(property)-top", top), ("\(property)-right", right),
                    ("\(property)-bottom", bottom), ("\(property)-left", left)]
        case "margin-block", "margin-inline", "padding-inline":
            let parts = tokens(value)
            guard (1...2).contains(parts.count) else { return [] }
            let end = parts.count > 1 ? parts[1] : parts[0]
            if property == "margin-block" { return [("margin-top", parts[0]), ("margin-bottom", end)] }
            return [("\(property)-start", parts[0]), ("\(property)-end", end)]
        case "margin-block-start": return [("margin-top", value)]
        case "margin-block-end": return [("margin-bottom", value)]
        case "text-decoration-line": return [("text-decoration", value)]
        case "list-style":
            let keywords = tokens(value).map { $0.lowercased() }
            guard let type = keywords.first(where: { ComputedStyle.ListMarker($0) != nil }) else { return [] }
            return [("list-style-type", type)]
        case "font":
            return expandFont(value)
        default:
            return [(property, value)]
        }
    }

    /// `font: [style] [weight] size[/line-height] family, ...`; system fonts are ignored.
    private static func expandFont(_ value: String) -> [(String, String)] {
        let parts = tokens(value)
        var style = "normal", weight = "normal"
        var index = 0
        while index < parts.count {
            let word = parts[index].lowercased()
            if ["italic", "oblique"].contains(word) {
                style = word
            } else if ["bold", "bolder", "lighter"].contains(word) || (Int(word).map { (1...1000).contains($0) } ?? false) {
                weight = word
            } else if !["normal", "small-caps"].contains(word) && !word.hasSuffix("condensed") && !word.hasSuffix("expanded") {
                break
            }
            index += 1
        }
        guard index < parts.count else { return [] }
        var sizePart = parts[index]
        index += 1
        var lineHeight = "normal"
        if let slash = sizePart.firstIndex(of: "/") {
            let after = String(sizePart[sizePart.index(after: slash)...])
            sizePart = String(sizePart[..<slash])
            if !after.isEmpty {
                lineHeight = after
            } else if index < parts.count {
                lineHeight = parts[index]
                index += 1
            }
        } else if index < parts.count, parts[index].hasPrefix("/") {
            let after = String(parts[index].dropFirst())
            index += 1
            if !after.isEmpty {
                lineHeight = after
            } else if index < parts.count {
                lineHeight = parts[index]
                index += 1
            }
        }
        guard ComputedStyle.fontSize(sizePart, parent: 12, base: 12, root: 12) != nil, index < parts.count else { return [] }
        let family = parts[index...].joined(separator: " ")
        return [("font-style", style), ("font-weight", weight), ("font-size", sizePart),
                ("line-height", lineHeight), ("font-family", family)]
    }

    // MARK: - Scanning

    /// Splits on `separator` outside quotes and parentheses.
    static func split(_ text: String, on separator: UInt8) -> [String] {
        pieces(of: text) { $0 == separator }
    }

    /// Splits a value on white space outside quotes and parentheses, dropping empty pieces.
    static func tokens(_ text: String) -> [String] {
        pieces(of: text) { $0.isHTMLWhitespace }.filter { !$0.isEmpty }
    }

    private static func pieces(of text: String, splittingAt isSeparator: (UInt8) -> Bool) -> [String] {
        let bytes = Array(text.utf8)
        var parts: [String] = []
        var start = 0
        var quote: UInt8?
        var depth = 0
        for (index, byte) in bytes.enumerated() {
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "(") {
                depth += 1
            } else if byte == UInt8(ascii: ")") {
                depth = max(0, depth - 1)
            } else if depth == 0 && isSeparator(byte) {
                parts.append(String(decoding: bytes[start..<index], as: UTF8.self))
                start = index + 1
            }
        }
        parts.append(String(decoding: bytes[start...], as: UTF8.self))
        return parts
    }

    private static func hasPrefix(_ text: [UInt8], at index: Int, _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard index + count <= text.count else { return false }
        return prefix.withUTF8Buffer { text[index..<(index + count)].elementsEqual($0) }
    }

    private static func removingComments(_ text: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            if text[i] == UInt8(ascii: "/"), i + 1 < text.count, text[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i < text.count, !(text[i] == UInt8(ascii: "*") && i + 1 < text.count && text[i + 1] == UInt8(ascii: "/")) {
                    i += 1
                }
                i += 2
                out.append(0x20)
            } else {
                out.append(text[i])
                i += 1
            }
        }
        return out
    }

    /// The index of the first `stop` or `otherStop` at or after `start`, outside strings;
    /// `text.count` if none.
    private static func scan(_ text: [UInt8], from start: Int, untilEither stop: UInt8, _ otherStop: UInt8) -> Int {
        var i = start
        while i < text.count {
            let c = text[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                i = skipString(text, from: i)
            } else if c == stop || c == otherStop {
                return i
            } else {
                i += 1
            }
        }
        return text.count
    }

    private static func skipString(_ text: [UInt8], from start: Int) -> Int {
        let quote = text[start]
        var i = start + 1
        while i < text.count, text[i] != quote, text[i] != UInt8(ascii: "\n") {
            i += text[i] == UInt8(ascii: "\\") ? 2 : 1
        }
        return min(i + 1, text.count)
    }

    /// The end of the block opened at `openBrace` (after its `}`), and the end of its body.
    private static func skipBlock(_ text: [UInt8], openBrace: Int) -> (end: Int, bodyEnd: Int) {
        var depth = 0
        var i = openBrace
        while i < text.count {
            let c = text[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                i = skipString(text, from: i)
                continue
            }
            if c == UInt8(ascii: "{") {
                depth += 1
            } else if c == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return (i + 1, i) }
            }
            i += 1
        }
        return (text.count, text.count)
    }
}
