import Foundation

// The CSS part of the markup parser: declarations, the selectors it supports, style sheets
// and the computed style of an element.

/// One `property: value` declaration, with shorthands (`margin`, `padding`, `font`,
/// `list-style`) already expanded into the longhands the parser reads.
struct CSSDeclaration: Sendable, Hashable {
    var property: String
    var value: String
    var important = false
}

/// A compound selector of the kinds the parser supports: an optional type or `*`, then any
/// number of `.class` and `#id` parts (`p`, `.note`, `p.note`, `#lead`, `div#lead.note`).
///
/// Anything else (combinators, pseudo-classes, attribute selectors, escapes) makes `init` fail,
/// so that the rule is skipped rather than applied to the wrong elements.
struct CSSSelector: Sendable, Hashable {
    var tag: String?
    var ids: [String] = []
    var classes: [String] = []

    /// CSS specificity (ids, classes, types) folded into one comparable number.
    var specificity: Int { ids.count * 1_000_000 + classes.count * 1_000 + (tag == nil ? 0 : 1) }

    init?(_ text: some StringProtocol) {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.isEmpty else { return nil }
        var i = 0
        func name() -> String? {
            let start = i
            while i < scalars.count, Self.isNameScalar(scalars[i]) { i += 1 }
            return i > start ? String(String.UnicodeScalarView(scalars[start..<i])) : nil
        }
        if scalars[0] == "*" {
            i = 1
        } else if Self.isNameScalar(scalars[0]) {
            tag = name()?.lowercased()
        }
        while i < scalars.count {
            let marker = scalars[i]
            i += 1
            guard marker == "." || marker == "#", let part = name() else { return nil }
            if marker == "." { classes.append(part) } else { ids.append(part) }
        }
    }

    static func isNameScalar(_ s: Unicode.Scalar) -> Bool {
        s.value >= 0x80 || ("a"..."z").contains(s) || ("A"..."Z").contains(s) || ("0"..."9").contains(s)
            || s == "-" || s == "_"
    }

    func matches(tag elementTag: String, id: String?, classes elementClasses: [String]) -> Bool {
        if let tag, tag != elementTag { return false }
        for required in ids where required != id { return false }
        for required in classes where !elementClasses.contains(required) { return false }
        return true
    }
}

/// The author style sheet of one document: the rules of its `<style>` elements whose
/// selectors the parser supports, indexed by id, class and type for matching.
///
/// Parsing never fails: comments, `<!--`/`-->` wrappers, at-rules (`@media`, `@font-face`,
/// `@import`; skipped with the rules inside them), unbalanced braces and unsupported selectors
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
    /// At-rules skipped, with any rules inside them.
    private(set) var skippedAtRuleCount = 0

    init() {}

    var isEmpty: Bool { rules.isEmpty }

    /// Adds the rules of a style sheet, after those already added (later rules win ties).
    mutating func add(css: String) {
        // CSS delimiters are all ASCII, so the scan runs over UTF-8 bytes.
        let text = Self.removingComments(Array(css.utf8))
        var i = 0
        while i < text.count {
            let c = text[i]
            if Self.isWhitespace(c) || c == UInt8(ascii: "}") || c == UInt8(ascii: ";") {
                i += 1
            } else if Self.hasPrefix(text, at: i, "<!--") {
                i += 4
            } else if Self.hasPrefix(text, at: i, "-->") {
                i += 3
            } else if c == UInt8(ascii: "@") {
                skippedAtRuleCount += 1
                let end = Self.scan(text, from: i, untilEither: UInt8(ascii: "{"), UInt8(ascii: ";"))
                i = end < text.count && text[end] == UInt8(ascii: "{") ? Self.skipBlock(text, openBrace: end).end : end + 1
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
        guard !rules.isEmpty else { return [] }
        var candidates = universalRules
        if let id, let list = rulesByID[id] { candidates += list }
        var seenClasses = Set<String>()
        for className in classes where seenClasses.insert(className).inserted {
            if let list = rulesByClass[className] { candidates += list }
        }
        if let list = rulesByTag[tag] { candidates += list }
        // A rule's index is its source order.
        let matching = candidates
            .filter { rules[$0].selector.matches(tag: tag, id: id, classes: classes) }
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
        pieces(of: text) { isWhitespace($0) }.filter { !$0.isEmpty }
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

    static func isWhitespace(_ s: Unicode.Scalar) -> Bool {
        s == " " || s == "\t" || s == "\n" || s == "\r" || s == "\u{0C}"
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
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

// MARK: - Values

extension String {
    /// The text without leading and trailing ASCII white space, the only white space HTML
    /// and CSS know (and much faster than Foundation's trimming).
    func trimmingASCIIWhitespace() -> String {
        self[...].trimmingASCIIWhitespace()
    }
}

extension Substring {
    /// The text without leading and trailing ASCII white space.
    func trimmingASCIIWhitespace() -> String {
        var scalars = unicodeScalars
        while let first = scalars.first, StyleSheet.isWhitespace(first) { scalars.removeFirst() }
        while let last = scalars.last, StyleSheet.isWhitespace(last) { scalars.removeLast() }
        return String(scalars)
    }
}

/// A CSS length or number, before it is resolved against a font size.
enum CSSLength: Sendable, Hashable {
    /// An absolute length, converted to points (`px` × 0.75, `in`, `cm`, `mm`, `pc`, `pt`).
    case points(Double)
    case em(Double)
    case rem(Double)
    case percent(Double)
    /// A number without a unit.
    case number(Double)

    /// Points per CSS px (1/96 in), also what an HTML attribute or a picture's pixel counts.
    static let pointsPerPixel = 0.75

    init?(_ text: String) {
        let value = text.trimmingASCIIWhitespace().lowercased()
        let bytes = Array(value.utf8)
        var end = 0
        if end < bytes.count, bytes[end] == UInt8(ascii: "+") || bytes[end] == UInt8(ascii: "-") { end += 1 }
        while end < bytes.count, (0x30...0x39).contains(bytes[end]) || bytes[end] == UInt8(ascii: ".") { end += 1 }
        guard end > 0, let number = Double(String(decoding: bytes[..<end], as: UTF8.self)), number.isFinite else {
            return nil
        }
        switch String(decoding: bytes[end...], as: UTF8.self) {
        case "": self = .number(number)
        case "px": self = .points(number * Self.pointsPerPixel)
        case "pt": self = .points(number)
        case "pc": self = .points(number * 12)
        case "in": self = .points(number * 72)
        case "cm": self = .points(number * 72 / 2.54)
        case "mm": self = .points(number * 72 / 25.4)
        case "q": self = .points(number * 72 / 101.6)
        case "em": self = .em(number)
        case "rem": self = .rem(number)
        case "ex", "ch": self = .em(number / 2)
        case "%": self = .percent(number)
        default: return nil
        }
    }

    /// Points, with `em` of `fontSize` and `rem` of `rootSize`; nil for percentages and for
    /// numbers other than 0.
    func points(fontSize: Double, rootSize: Double) -> Double? {
        switch self {
        case .points(let points): return points
        case .em(let count): return count * fontSize
        case .rem(let count): return count * rootSize
        case .percent: return nil
        case .number(let number): return number == 0 ? 0 : nil
        }
    }
}

extension RGBColor {
    /// A CSS colour: `#rgb`, `#rrggbb`, `#rgba`, `#rrggbbaa`, `rgb()`/`rgba()` with commas or
    /// spaces, `hsl()`/`hsla()` and the named colours of `RGBColor`; alpha is ignored. Nil
    /// for `transparent`, `currentColor` or anything unknown. Used for markup and for the
    /// colours in `pipeline.yml`.
    public init?(css text: String) {
        guard let color = Self.parsingCSS(text) else { return nil }
        self = color
    }

    private static func parsingCSS(_ text: String) -> RGBColor? {
        let value = text.trimmingASCIIWhitespace().lowercased()
        if value.hasPrefix("#") {
            var digits = Array(value.utf8.dropFirst())
            switch digits.count {
            case 3, 4: digits = digits.prefix(3).flatMap { [$0, $0] }
            case 6, 8: digits = Array(digits.prefix(6))
            default: return nil
            }
            guard let number = UInt32(String(decoding: digits, as: UTF8.self), radix: 16) else { return nil }
            return RGBColor(r: UInt8(number >> 16 & 0xFF), g: UInt8(number >> 8 & 0xFF), b: UInt8(number & 0xFF))
        }
        if let open = value.firstIndex(of: "("), value.hasSuffix(")") {
            let function = value[..<open]
            let arguments = value[value.index(after: open)..<value.index(before: value.endIndex)]
                .split(whereSeparator: { $0 == "," || $0 == " " || $0 == "/" || $0 == "\t" })
                .map(String.init)
            guard arguments.count >= 3 else { return nil }
            if function == "rgb" || function == "rgba" {
                var channels: [UInt8] = []
                for argument in arguments.prefix(3) {
                    let isPercent = argument.hasSuffix("%")
                    guard let number = Double(isPercent ? String(argument.dropLast()) : argument), number.isFinite else {
                        return nil
                    }
                    channels.append(UInt8(max(0, min(255, (isPercent ? number * 2.55 : number).rounded()))))
                }
                return RGBColor(r: channels[0], g: channels[1], b: channels[2])
            }
            if function == "hsl" || function == "hsla" {
                return hsl(arguments)
            }
            return nil
        }
        return named[value]
    }

    private static func hsl(_ arguments: [String]) -> RGBColor? {
        let hueText = arguments[0].hasSuffix("deg") ? String(arguments[0].dropLast(3)) : arguments[0]
        guard let hue = Double(hueText),
              let saturation = Double(arguments[1].replacingOccurrences(of: "%", with: "")),
              let lightness = Double(arguments[2].replacingOccurrences(of: "%", with: "")),
              hue.isFinite, saturation.isFinite, lightness.isFinite else { return nil }
        let h = (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 360
        let s = max(0, min(1, saturation / 100)), l = max(0, min(1, lightness / 100))
        let q = l < 0.5 ? l * (1 + s) : l + s - l * s
        let p = 2 * l - q
        func channel(_ offset: Double) -> UInt8 {
            var t = h + offset
            if t < 0 { t += 1 }
            if t > 1 { t -= 1 }
            let v: Double
            if t < 1.0 / 6 { v = p + (q - p) * 6 * t }
            else if t < 0.5 { v = q }
            else if t < 2.0 / 3 { v = p + (q - p) * (2.0 / 3 - t) * 6 }
            else { v = p }
            return UInt8(max(0, min(255, (v * 255).rounded())))
        }
        return RGBColor(r: channel(1.0 / 3), g: channel(0), b: channel(-1.0 / 3))
    }
}

// MARK: - Computed style

/// The supported CSS properties of one element after the cascade, with what the text and
/// paragraph attributes need.
///
/// Inherited as in CSS: font, colour, `line-height`, `text-align`, `text-indent`,
/// `white-space`, `direction`, `list-style-type`, language and link. Text decorations and
/// baseline shifts carry on into descendants (as they are drawn over them in CSS), and the
/// horizontal margins and paddings of block ancestors add up into the start and end indents.
struct ComputedStyle: Sendable {
    enum Display: Sendable { case inline, block, listItem }

    /// `line-height`: numbers are inherited as numbers, lengths as points.
    enum LineHeight: Sendable, Hashable {
        case normal
        /// A multiple of the element's font size.
        case multiple(Double)
        case points(Double)
    }

    enum ListMarker: Sendable, Hashable {
        case disc, circle, square, decimal, lowerAlpha, upperAlpha, lowerRoman, upperRoman, none

        init?(_ keyword: String) {
            switch keyword {
            case "disc": self = .disc
            case "circle": self = .circle
            case "square": self = .square
            case "decimal", "decimal-leading-zero": self = .decimal
            case "lower-alpha", "lower-latin": self = .lowerAlpha
            case "upper-alpha", "upper-latin": self = .upperAlpha
            case "lower-roman": self = .lowerRoman
            case "upper-roman": self = .upperRoman
            case "none": self = .none
            default: return nil
            }
        }
    }

    /// The typical natural line height of a font (ascender + descender + line gap) as a
    /// multiple of its size, used to turn CSS line heights, which are multiples of the font
    /// size, into `ParagraphStyle.lineHeight`, a multiple of the natural line height. Real
    /// fonts range from about 1.1 to 1.3 (DejaVu Serif: 1.16).
    static let naturalLineHeight = 1.17

    var text: TextStyle
    var lineHeight = LineHeight.normal
    var alignment = TextAlignment.start
    var direction = WritingDirection.auto
    var textIndent = 0.0
    var whiteSpace = WhiteSpaceMode.collapse
    /// nil: by the kind of list and its depth.
    var listMarker: ListMarker?
    var startIndent = 0.0
    var endIndent = 0.0
    /// The font size of the root element, for `rem`.
    var rootSize: Double
    // Not inherited:
    var display = Display.inline
    var marginTop = 0.0
    var marginBottom = 0.0
    /// `width` and `height` in points, for images.
    var width: Double?
    var height: Double?
    /// The `writing-mode` this element declares (raw, lowercased), if any. Galley sets one
    /// writing mode per article, so this is not inherited: the walker picks the article's.
    var declaredWritingMode: String?

    /// The style of the root: the base style's font, size, colour and language.
    init(base: BaseStyle) {
        var text = TextStyle(font: FontRequest(families: [base.fontFamily]), size: base.fontSize, color: base.color)
        text.language = base.language
        text.hyphens = base.hyphens
        self.text = text
        rootSize = base.fontSize
    }

    /// The style a child starts from: inherited properties kept, the others reset.
    func child() -> ComputedStyle {
        var style = self
        style.display = .inline
        style.marginTop = 0
        style.marginBottom = 0
        style.width = nil
        style.height = nil
        style.declaredWritingMode = nil
        return style
    }

    /// The paragraph attributes of text in a block with this style.
    func paragraphStyle(base: BaseStyle) -> ParagraphStyle {
        var paragraph = ParagraphStyle()
        paragraph.alignment = alignment
        paragraph.direction = direction
        paragraph.firstLineIndent = Self.clamped(textIndent, -Self.maximumLength)
        paragraph.startIndent = Self.clamped(startIndent, 0)
        paragraph.endIndent = Self.clamped(endIndent, 0)
        let multiple: Double
        switch lineHeight {
        case .normal: multiple = base.lineHeight
        case .multiple(let factor): multiple = factor / Self.naturalLineHeight
        case .points(let points): multiple = points / (Self.naturalLineHeight * text.size)
        }
        paragraph.lineHeight = multiple.isFinite && multiple > 0 ? min(multiple, 100) : base.lineHeight
        return paragraph
    }

    /// The writing mode a `writing-mode` value asks for (CSS and the older SVG/IE names);
    /// nil for modes Galley does not set (`vertical-lr`, `sideways-*`).
    static func writingMode(_ value: String) -> WritingMode? {
        switch value {
        case "horizontal-tb", "lr", "lr-tb", "rl", "rl-tb": .horizontalTB
        case "vertical-rl", "tb", "tb-rl": .verticalRL
        default: nil
        }
    }

    /// Lengths beyond this many points are absurd input (say, margins that add up over 200
    /// nesting levels); they are clamped so that no infinity reaches the typesetter.
    static let maximumLength = 100_000.0

    static func clamped(_ value: Double, _ minimum: Double) -> Double {
        value.isNaN ? 0 : min(max(value, minimum), maximumLength)
    }

    /// Applies declarations in cascade order (`!important` ones after the rest); a later valid
    /// declaration wins. Unknown properties and invalid values are ignored, as in CSS.
    mutating func apply(_ declarations: [CSSDeclaration], parent: ComputedStyle, base: BaseStyle) {
        guard !declarations.isEmpty else { return }
        let ordered = declarations.contains(where: \.important)
            ? declarations.filter { !$0.important } + declarations.filter(\.important)
            : declarations
        // First what the others depend on: `em` needs the font size, horizontal margins
        // need the display and the direction.
        for declaration in ordered {
            let value = declaration.value.lowercased()
            switch declaration.property {
            case "font-size":
                if let size = Self.fontSize(value, parent: parent.text.size, base: base.fontSize, root: rootSize) {
                    text.size = size
                }
            case "direction":
                switch value {
                case "ltr": direction = .ltr
                case "rtl": direction = .rtl
                case "auto": direction = .auto
                default: break
                }
            case "display":
                switch value {
                case "none": break  // Hidden text is kept: the parser never drops body text.
                case "list-item": display = .listItem
                case "contents": display = .inline
                case "inherit", "initial", "unset", "revert": break
                default: display = value.hasPrefix("inline") || value == "ruby" ? .inline : .block
                }
            default:
                break
            }
        }
        // Horizontal margins and paddings add up into the indents, and text decorations
        // combine with the parent's, so only the last of each counts. Logical sides become
        // physical ones, so that a later `margin-left` overrides an earlier
        // `margin-inline-start` and the other way round.
        let rtl = direction == .rtl
        // Points by side, each parsed once; summed in a fixed order below, so the indents do
        // not depend on a dictionary's order.
        var sides: [String: Double] = [:]
        var decoration: String?
        for declaration in ordered {
            switch declaration.property {
            case "font-size", "direction", "display":
                break
            case "margin-left", "margin-right", "padding-left", "padding-right":
                if let points = length(declaration.value, rootSize: rootSize) { sides[declaration.property] = points }
            case "margin-inline-start", "margin-inline-end", "padding-inline-start", "padding-inline-end":
                guard let points = length(declaration.value, rootSize: rootSize) else { break }
                let box = declaration.property.hasPrefix("margin") ? "margin" : "padding"
                let left = declaration.property.hasSuffix("start") != rtl
                sides[box + (left ? "-left" : "-right")] = points
            case "text-decoration":
                decoration = declaration.value.lowercased()
            default:
                apply(property: declaration.property, value: declaration.value, parent: parent, base: base)
            }
        }
        if display != .inline {
            for side in ["margin-left", "padding-left", "margin-right", "padding-right"] {
                guard let points = sides[side] else { continue }
                if side.hasSuffix("left") != rtl {
                    startIndent += points
                } else {
                    endIndent += points
                }
            }
        }
        if let decoration {
            let words = decoration.split(separator: " ")
            if words.contains("none") {
                // CSS cannot take a parent's line away; articles that say `none` mean it.
                text.underline = false
                text.strikethrough = false
            } else {
                if words.contains("underline") { text.underline = true }
                if words.contains("line-through") { text.strikethrough = true }
            }
        }
    }

    private mutating func apply(property: String, value rawValue: String, parent: ComputedStyle, base: BaseStyle) {
        let value = rawValue.lowercased()
        if value == "inherit" || value == "initial" || value == "unset" || value == "revert" { return }
        switch property {
        case "writing-mode", "-webkit-writing-mode", "-epub-writing-mode":
            declaredWritingMode = value
        case "font-family":
            if let families = Self.fontFamilies(rawValue, base: base) { text.font.families = families }
        case "font-weight":
            if let weight = Self.fontWeight(value, parent: parent.text.font.weight) { text.font.weight = weight }
        case "font-style":
            if value == "normal" {
                text.font.italic = false
            } else if value == "italic" || value.hasPrefix("oblique") {
                text.font.italic = true
            }
        case "color":
            if let color = RGBColor(css: value) { text.color = color }
        case "line-height":
            if value == "normal" {
                lineHeight = .normal
            } else if let length = CSSLength(value) {
                switch length {
                case .number(let factor) where factor > 0: lineHeight = .multiple(factor)
                case .percent(let percent) where percent > 0: lineHeight = .points(percent / 100 * text.size)
                default:
                    if let points = length.points(fontSize: text.size, rootSize: rootSize), points > 0 {
                        lineHeight = .points(points)
                    }
                }
            }
        case "text-align":
            switch value {
            case "left", "-webkit-left", "-moz-left": alignment = .left
            case "right", "-webkit-right", "-moz-right": alignment = .right
            case "center", "-webkit-center", "-moz-center": alignment = .center
            case "justify", "justify-all": alignment = .justify
            case "start": alignment = .start
            case "end": alignment = direction == .rtl ? .left : .right
            default: break
            }
        case "hyphens", "-webkit-hyphens", "-moz-hyphens", "-ms-hyphens":
            if let hyphens = Hyphens(rawValue: value) { text.hyphens = hyphens }
        case "text-indent":
            if let points = length(value, rootSize: rootSize) { textIndent = points }
        case "margin-top":
            if value == "auto" { marginTop = 0 } else if let points = length(value, rootSize: rootSize) { marginTop = points }
        case "margin-bottom":
            if value == "auto" { marginBottom = 0 } else if let points = length(value, rootSize: rootSize) { marginBottom = points }
        case "white-space":
            switch value {
            case "normal", "nowrap": whiteSpace = .collapse
            case "pre", "pre-wrap", "break-spaces": whiteSpace = .preserve
            case "pre-line": whiteSpace = .preserveLineBreaks
            default: break
            }
        case "vertical-align":
            switch value {
            case "sub": text.baselineShift = parent.text.baselineShift - 0.25 * parent.text.size
            case "super": text.baselineShift = parent.text.baselineShift + 0.35 * parent.text.size
            case "baseline": text.baselineShift = parent.text.baselineShift
            default:
                if let points = length(value, rootSize: rootSize) { text.baselineShift = parent.text.baselineShift + points }
            }
            text.baselineShift = Self.clamped(text.baselineShift, -Self.maximumLength)
        case "list-style-type":
            if let marker = ListMarker(value) { listMarker = marker }
        case "width":
            width = length(value, rootSize: rootSize).map { max(0, $0) }
        case "height":
            height = length(value, rootSize: rootSize).map { max(0, $0) }
        default:
            break
        }
    }

    /// A length in points, `em` relative to this element's font size; nil for percentages,
    /// `auto` and anything invalid.
    private func length(_ value: String, rootSize: Double) -> Double? {
        guard let length = CSSLength(value) else { return nil }
        if case .number(let number) = length, number != 0 {
            return number * CSSLength.pointsPerPixel  // Legacy pages write pixels without the unit; browsers accept it.
        }
        return length.points(fontSize: text.size, rootSize: rootSize).flatMap { $0.isFinite ? $0 : nil }
    }

    /// Factors of the base size for `<font size=1…7>` and the CSS size keywords, as browsers
    /// use them with a 16 px default (10, 13, 16, 18, 24, 32, 48 px).
    static let sizeKeywords: [String: Double] = [
        "xx-small": 0.5625, "x-small": 0.625, "small": 0.8125, "medium": 1, "large": 1.125,
        "x-large": 1.5, "xx-large": 2, "xxx-large": 3,
    ]

    /// A `font-size` in points: keywords relative to the base size, `em` and `%` to the
    /// parent's, `rem` to the root element's; clamped to 1…1000 pt.
    static func fontSize(_ text: String, parent: Double, base: Double, root: Double) -> Double? {
        let value = text.trimmingASCIIWhitespace().lowercased()
        let size: Double
        if let factor = sizeKeywords[value] {
            size = factor * base
        } else if value == "smaller" {
            size = parent / 1.2
        } else if value == "larger" {
            size = parent * 1.2
        } else if let length = CSSLength(value) {
            switch length {
            case .points(let points): size = points
            case .em(let count): size = count * parent
            case .rem(let count): size = count * root
            case .percent(let percent): size = percent / 100 * parent
            case .number(let number): size = number * CSSLength.pointsPerPixel
            }
        } else {
            return nil
        }
        guard size.isFinite, size > 0 else { return nil }
        return min(max(size, 1), 1000)
    }

    /// The family list of `font-family`, quotes stripped and generic names lower-cased, with
    /// the base family appended as the last resort. `-galley-monospace` is the user-agent
    /// style sheet's code font.
    private static let genericFamilies: Set<String> = ["serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui",
                                                       "ui-serif", "ui-sans-serif", "ui-monospace", "math", "emoji"]

    static func fontFamilies(_ value: String, base: BaseStyle) -> [String]? {
        if value.trimmingASCIIWhitespace() == "-galley-monospace" {
            return ["DejaVu Sans Mono", "monospace"]
        }
        var families: [String] = []
        for item in StyleSheet.split(value, on: UInt8(ascii: ",")) {
            var name = item.trimmingASCIIWhitespace()
            if let first = name.first, first == "\"" || first == "'" {
                name = String(name.dropFirst())
                if name.last == first { name = String(name.dropLast()) }
            } else {
                name = name.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).joined(separator: " ")
                if genericFamilies.contains(name.lowercased()) { name = name.lowercased() }
            }
            if !name.isEmpty && !families.contains(name) { families.append(name) }
        }
        guard !families.isEmpty else { return nil }
        if !families.contains(base.fontFamily) { families.append(base.fontFamily) }
        return families
    }

    /// A CSS `font-weight`, `bolder` and `lighter` relative to the parent's as CSS defines them.
    static func fontWeight(_ value: String, parent: Int) -> Int? {
        switch value {
        case "normal": return 400
        case "bold": return 700
        case "bolder": return parent < 350 ? 400 : parent < 550 ? 700 : 900
        case "lighter": return parent < 550 ? 100 : parent < 750 ? 400 : 700
        default:
            guard let number = Double(value), number.isFinite, number >= 1, number <= 1000 else { return nil }
            return min(900, max(100, Int((number / 100).rounded()) * 100))
        }
    }
}
