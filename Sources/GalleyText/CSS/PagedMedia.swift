/// CSS Paged Media for typeset articles: the article's `@page` rules and the strings its
/// elements set for running heads (`string-set`).
///
/// The rules without a page selector give every page its size and margins (they replace the
/// layout's page size and inset); a named page's rules (`@page chapter`, `@page chapter:first`)
/// give its pages, those of the elements with `page: chapter`, their own size and margins; the
/// other rules, `:first`, `:left`, `:right` and `:blank`, give margins that move the text area
/// without resizing it; and all give the margin boxes (`@top-center`, `@bottom-right`, …), whose `content` holds strings,
/// `counter(page)`, `counter(pages)` and `string(name)`. The typesetter sets the margin boxes
/// as lines on each page (`PageMarginBoxes.swift`).
public struct PagedMedia: Sendable, Hashable {
    /// `@page` rules, in source order.
    var rules: [PageRule] = []
    /// Values of `string-set`, in text order.
    var strings: [NamedString] = []
    /// Elements' resets of the page counter (`counter-reset: page 1` on a chapter), in text
    /// order.
    var pageCounterResets: [PageCounterReset] = []
    /// What in the `@page` rules Galley does not support, for the article's warnings.
    var unsupported: [String] = []

    public init() {}

    /// Whether the article gives no page rule (then pages are as the layout makes them).
    public var hasRules: Bool { !rules.isEmpty }
}

/// A value of a named string (`string-set: chapter content()`), set where an element begins.
struct NamedString: Sendable, Hashable {
    /// Text offset of the element's first character.
    var offset: Int
    var name: String
    var value: String
}

/// An element's `counter-reset` of the `page` counter: from the element's first character
/// on, the page counter holds `value` (the page the element begins shows `value` when the
/// element begins it; else the next page shows `value + 1`).
struct PageCounterReset: Sendable, Hashable {
    var offset: Int
    var value: Int
}

/// The side a forced break makes the next page start on (`break-before: left | right`).
public enum PageSide: String, Sendable, Hashable {
    case left, right

    init?(css value: String) {
        switch value {
        case "left", "verso": self = .left
        case "right", "recto": self = .right
        default: return nil
        }
    }

    /// The side of the page numbered `number` (1-based): the first page is a right page in a
    /// book whose pages turn to the left (horizontal text), a left page in one whose pages turn
    /// to the right (`vertical-rl`), as CSS Paged Media says.
    static func of(page number: Int, in mode: WritingMode = .horizontalTB) -> PageSide {
        (number % 2 == 1) != (mode == .verticalRL) ? .right : .left
    }
}

/// A page pseudo-class of an `@page` rule.
enum PageSelector: String, Sendable, Hashable {
    case first, left, right, blank
}

/// The 16 margin boxes of CSS Paged Media 3 (§5.3), by their at-rule names.
public enum MarginBoxPosition: String, Sendable, Hashable, CaseIterable, Comparable {
    case topLeftCorner = "top-left-corner", topLeft = "top-left", topCenter = "top-center", topRight = "top-right"
    case topRightCorner = "top-right-corner"
    case rightTop = "right-top", rightMiddle = "right-middle", rightBottom = "right-bottom"
    case bottomRightCorner = "bottom-right-corner", bottomRight = "bottom-right", bottomCenter = "bottom-center"
    case bottomLeft = "bottom-left", bottomLeftCorner = "bottom-left-corner"
    case leftBottom = "left-bottom", leftMiddle = "left-middle", leftTop = "left-top"

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// A box of the top row (corners included), read before the page's text.
    var isAbove: Bool {
        switch self {
        case .topLeftCorner, .topLeft, .topCenter, .topRight, .topRightCorner: true
        default: false
        }
    }

    /// The box's rectangle on a page of `size` with `margins`, and how its text is aligned
    /// in it by default (`text-align`, and across: -1 top, 0 middle, 1 bottom).
    func placement(width: Double, height: Double, margins m: ArticleLayout.Insets) -> (rect: Rect, align: TextAlignment, across: Int) {
        let (innerWidth, innerHeight) = (max(0, width - m.left - m.right), max(0, height - m.top - m.bottom))
        let third = innerHeight / 3
        switch self {
        case .topLeftCorner: return (Rect(x: 0, y: 0, width: m.left, height: m.top), .right, 0)
        case .topLeft: return (Rect(x: m.left, y: 0, width: innerWidth, height: m.top), .left, 0)
        case .topCenter: return (Rect(x: m.left, y: 0, width: innerWidth, height: m.top), .center, 0)
        case .topRight: return (Rect(x: m.left, y: 0, width: innerWidth, height: m.top), .right, 0)
        case .topRightCorner: return (Rect(x: width - m.right, y: 0, width: m.right, height: m.top), .left, 0)
        case .bottomLeftCorner: return (Rect(x: 0, y: height - m.bottom, width: m.left, height: m.bottom), .right, 0)
        case .bottomLeft: return (Rect(x: m.left, y: height - m.bottom, width: innerWidth, height: m.bottom), .left, 0)
        case .bottomCenter: return (Rect(x: m.left, y: height - m.bottom, width: innerWidth, height: m.bottom), .center, 0)
        case .bottomRight: return (Rect(x: m.left, y: height - m.bottom, width: innerWidth, height: m.bottom), .right, 0)
        case .bottomRightCorner: return (Rect(x: width - m.right, y: height - m.bottom, width: m.right, height: m.bottom), .left, 0)
        case .leftTop: return (Rect(x: 0, y: m.top, width: m.left, height: third), .center, -1)
        case .leftMiddle: return (Rect(x: 0, y: m.top + third, width: m.left, height: third), .center, 0)
        case .leftBottom: return (Rect(x: 0, y: m.top + 2 * third, width: m.left, height: third), .center, 1)
        case .rightTop: return (Rect(x: width - m.right, y: m.top, width: m.right, height: third), .center, -1)
        case .rightMiddle: return (Rect(x: width - m.right, y: m.top + third, width: m.right, height: third), .center, 0)
        case .rightBottom: return (Rect(x: width - m.right, y: m.top + 2 * third, width: m.right, height: third), .center, 1)
        }
    }
}

/// One `@page` rule.
struct PageRule: Sendable, Hashable {
    /// The page name it selects (`@page chapter`); nil: pages of any name.
    var name: String?
    /// Pseudo-classes the page must have; empty: every page.
    var selectors: [PageSelector] = []
    /// `size`, in points.
    var size: (width: Double, height: Double)? {
        get { sizeValue.map { ($0[0], $0[1]) } }
        set { sizeValue = newValue.map { [$0.width, $0.height] } }
    }
    private var sizeValue: [Double]?
    /// `margin-top`… by side ("top", "right", "bottom", "left").
    var margins: [String: CSSLength] = [:]
    /// Declarations other than size and margins (fonts, colour), inherited by the boxes.
    var declarations: [CSSDeclaration] = []
    /// Margin boxes' declarations.
    var boxes: [MarginBoxPosition: [CSSDeclaration]] = [:]
    /// The page counter's `counter-reset` (`@page chapter:first { counter-reset: page }`) and
    /// `counter-increment` in the page context; nil where the rule gives none.
    var pageCounterReset: Int?
    var pageCounterIncrement: Int?

    /// CSS Paged Media specificity: a page name weighs more than `:first` and `:blank`,
    /// which weigh more than `:left`, `:right`.
    var specificity: Int {
        selectors.reduce(name == nil ? 0 : 100) { $0 + ($1 == .first || $1 == .blank ? 10 : 1) }
    }

    /// Whether the rule applies to `page`. `:first` is the document's first page in a rule
    /// without a name, and the first page of each run of pages of its name in a named one
    /// (`@page chapter:first`: each chapter's opening page, as `:nth(1 of chapter)` of CSS
    /// Generated Content for Paged Media says it).
    func matches(_ page: PageContext) -> Bool {
        guard name == nil || name == page.name else { return false }
        return selectors.allSatisfy { selector in
            switch selector {
            case .first: name == nil ? page.number == 1 : page.startsName
            case .blank: page.isBlank
            case .left: page.side == .left
            case .right: page.side == .right
            }
        }
    }
}

/// What `@page` selectors see of a page.
struct PageContext: Hashable {
    /// 1-based, blank pages counted.
    var number: Int
    var side: PageSide
    var isBlank: Bool
    /// Its page name (that of the text it begins with; a blank page's, that of the page after
    /// it), nil for unnamed pages.
    var name: String?
    /// Whether it is the first page of a run of pages of its name (never a blank page).
    var startsName: Bool
}

// MARK: - Parsing

extension PagedMedia {
    /// Named page sizes of CSS Paged Media 3 (§7.1.1), portrait, in points.
    static let pageSizes: [String: (Double, Double)] = {
        let mm = 72 / 25.4
        var sizes: [String: (Double, Double)] = [
            "a5": (148 * mm, 210 * mm), "a4": (210 * mm, 297 * mm), "a3": (297 * mm, 420 * mm),
            "b5": (176 * mm, 250 * mm), "b4": (250 * mm, 353 * mm),
            "jis-b5": (182 * mm, 257 * mm), "jis-b4": (257 * mm, 364 * mm),
            "letter": (612, 792), "legal": (612, 1008), "ledger": (792, 1224),
        ]
        sizes["a6"] = (105 * mm, 148 * mm)
        return sizes
    }()

    /// Adds an `@page` rule: `prelude` is the at-rule's prelude, lowercased (`@page :first`),
    /// `body` what is between its braces (declarations and margin-box at-rules).
    mutating func addPageRule(prelude: String, body: String) {
        var rule = PageRule()
        let selectorText = prelude.dropFirst("@page".count).trimmingASCIIWhitespace()
        for part in selectorText.split(separator: ":", omittingEmptySubsequences: false).enumerated() {
            let name = part.element.trimmingASCIIWhitespace()
            if part.offset == 0 {
                guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    unsupported.append("@page \(selectorText) (one page name, then pseudo-classes)")
                    return
                }
                rule.name = name.isEmpty ? nil : name
                continue
            }
            guard let selector = PageSelector(rawValue: name) else {
                unsupported.append("@page :\(name)")
                return
            }
            rule.selectors.append(selector)
        }
        // The body: declarations, with margin boxes' at-rules among them.
        let bytes = Array(body.utf8)
        var plain: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "@") else {
                plain.append(bytes[i])
                i += 1
                continue
            }
            guard let open = bytes[i...].firstIndex(of: UInt8(ascii: "{")) else { break }
            let name = String(decoding: bytes[(i + 1)..<open], as: UTF8.self).trimmingASCIIWhitespace().lowercased()
            let close = bytes[open...].firstIndex(of: UInt8(ascii: "}")) ?? bytes.count
            let inner = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
            if let position = MarginBoxPosition(rawValue: name) {
                rule.boxes[position, default: []] += StyleSheet.declarations(in: inner)
            } else {
                unsupported.append("@\(name) in @page")
            }
            plain.append(UInt8(ascii: ";"))
            i = close + 1
        }
        for declaration in StyleSheet.declarations(in: String(decoding: plain, as: UTF8.self)) {
            let value = declaration.value.lowercased()
            switch declaration.property {
            case "size":
                if let size = Self.pageSize(value) { rule.size = size } else { unsupported.append("@page size: \(value)") }
            case "margin-top", "margin-right", "margin-bottom", "margin-left":
                guard let length = CSSLength(value) else {
                    unsupported.append("@page \(declaration.property): \(value)")
                    continue
                }
                rule.margins[String(declaration.property.dropFirst("margin-".count))] = length
            case "counter-reset":
                if let reset = Self.pageCounterValue(value, implied: 0) { rule.pageCounterReset = reset }
            case "counter-increment":
                if let increment = Self.pageCounterValue(value, implied: 1) { rule.pageCounterIncrement = increment }
            default:
                rule.declarations.append(declaration)
            }
        }
        if rule.name == nil && !rule.selectors.isEmpty && rule.size != nil {
            unsupported.append("size in @page :\(rule.selectors.map(\.rawValue).joined(separator: ":")) (only @page without a selector, or of a page name, sets it)")
        }
        rules.append(rule)
    }

    /// The `page` counter's value in a `counter-reset` or `counter-increment` value (`page`,
    /// `page 3`, `chapter page -1`): its integer, else `implied` (0 for a reset, 1 for an
    /// increment); nil when the value does not name the page counter.
    static func pageCounterValue(_ value: String, implied: Int) -> Int? {
        let words = value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map { $0.lowercased() }
        guard let at = words.firstIndex(of: "page") else { return nil }
        return at + 1 < words.count ? Int(words[at + 1]) ?? implied : implied
    }

    /// A `size` value: `auto`, a page size name, `portrait`/`landscape`, or one or two lengths.
    static func pageSize(_ value: String) -> (width: Double, height: Double)? {
        let words = value.split(separator: " ").map(String.init)
        guard !words.isEmpty, words.count <= 3 else { return nil }
        var size: (width: Double, height: Double)?
        var landscape: Bool?
        var lengths: [Double] = []
        for word in words {
            if let named = pageSizes[word] {
                size = named
            } else if word == "landscape" || word == "portrait" {
                landscape = word == "landscape"
            } else if word == "auto" {
                size = pageSizes["a4"]
            } else if case .points(let points)? = CSSLength(word), points >= 36, points <= 14_400 {
                lengths.append(points)
            } else {
                return nil
            }
        }
        if !lengths.isEmpty {
            guard size == nil, landscape == nil, lengths.count <= 2 else { return nil }
            return (lengths[0], lengths.count > 1 ? lengths[1] : lengths[0])
        }
        guard var result = size ?? (landscape != nil ? pageSizes["a4"] : nil) else { return nil }
        if let landscape, landscape != (result.width > result.height) { result = (result.height, result.width) }
        return result
    }

    /// Assignments of a `string-set` value (`chapter content()`, `title "Part " content()`,
    /// a comma-separated list) for an element whose text is `content`; none for `none`.
    static func assignments(_ value: String, content: String, offset: Int) -> [NamedString] {
        var result: [NamedString] = []
        for item in StyleSheet.split(value, on: UInt8(ascii: ",")) {
            let tokens = ContentToken.tokens(of: String(item))
            guard case .identifier(let name)? = tokens.first, name.lowercased() != "none" else { continue }
            var text = ""
            for token in tokens.dropFirst() {
                switch token {
                case .string(let string): text += string
                case .function(let function, _) where function == "content": text += content
                default: break
                }
            }
            result.append(NamedString(offset: offset, name: name, value: text))
        }
        return result
    }
}

/// A token of a `content` or `string-set` value.
enum ContentToken: Equatable {
    case string(String)
    case identifier(String)
    /// A function with its arguments, split at commas and trimmed (`counter(page, lower-roman)`).
    case function(String, [String])

    static func tokens(of value: String) -> [ContentToken] {
        var tokens: [ContentToken] = []
        let characters = Array(value)
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if c == "\"" || c == "'" {
                var text = ""
                i += 1
                while i < characters.count, characters[i] != c {
                    if characters[i] == "\\", i + 1 < characters.count {
                        i += 1
                        // `\A` is a line feed; other escapes stand for the character.
                        text.append(characters[i] == "A" || characters[i] == "a" ? " " : characters[i])
                    } else {
                        text.append(characters[i])
                    }
                    i += 1
                }
                tokens.append(.string(text))
                i += 1
            } else if c.isLetter || c == "-" || c == "_" {
                var name = ""
                while i < characters.count, characters[i].isLetter || characters[i].isNumber || characters[i] == "-" || characters[i] == "_" {
                    name.append(characters[i])
                    i += 1
                }
                if i < characters.count, characters[i] == "(" {
                    let close = characters[i...].firstIndex(of: ")") ?? characters.count
                    let arguments = String(characters[(i + 1)..<close]).split(separator: ",").map { $0.trimmingASCIIWhitespace() }
                    tokens.append(.function(name.lowercased(), arguments))
                    i = close + 1
                } else {
                    tokens.append(.identifier(name))
                }
            } else {
                i += 1
            }
        }
        return tokens
    }
}
