/// A CSS selector of the kinds the parser supports: compound selectors (an optional type or
/// `*`, then `.class`, `#id`, `[attribute]`, `[attribute=value]`, `[attribute~=word]` and
/// `:first-child` parts) joined by descendant (white space), child (`>`), next-sibling (`+`)
/// and subsequent-sibling (`~`) combinators: `p`, `p.note`, `div#main .note`,
/// `ul > li:first-child`, `h1 + p`, `div ~ div`, `a[href]`, `input[type="text"]`, optionally
/// ending in the pseudo-element `::before`, `::after`, `::first-letter` or `::first-line`
/// (or their CSS 2 forms with one colon).
///
/// Anything else (other pseudo-classes and pseudo-elements, escapes) makes
/// `init` fail, so that the rule is skipped rather than applied to the wrong elements.
struct CSSSelector: Sendable, Hashable {
    /// One compound selector: what one element must be.
    struct Compound: Sendable, Hashable {
        var tag: String?
        var ids: [String] = []
        var classes: [String] = []
        /// Attribute name (lowercased) and the value it must have: nil for presence, a word of
        /// a space-separated list when `word` is true.
        var attributes: [Attribute] = []
        var firstChild = false

        struct Attribute: Sendable, Hashable {
            var name: String
            var value: String?
            var word = false
        }

        func matches(_ element: CSSElement) -> Bool {
            if let tag, tag != element.tag { return false }
            for required in ids where required != element.id { return false }
            for required in classes where !element.classes.contains(required) { return false }
            for attribute in attributes {
                guard let value = element.attribute(attribute.name) else { return false }
                guard let expected = attribute.value else { continue }
                if attribute.word {
                    if !value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).contains(Substring(expected)) { return false }
                } else if value != expected {
                    return false
                }
            }
            if firstChild && !element.isFirstChild { return false }
            return true
        }
    }

    enum Combinator: Sendable, Hashable { case descendant, child, nextSibling, subsequentSibling }

    /// The generated boxes a selector can style instead of the element (CSS 2.1 §12.1), and
    /// the parts of a block's text (§5.12.1, §5.12.2).
    enum PseudoElement: Sendable, Hashable { case before, after, firstLetter, firstLine }

    /// Left to right; the last is the element the rule styles.
    var compounds: [Compound]
    /// `combinators[i]` joins `compounds[i]` and `compounds[i + 1]`.
    var combinators: [Combinator]
    /// The element's `::before` or `::after` box, when the selector ends in one.
    var pseudoElement: PseudoElement?

    /// The element's own compound, for indexing rules by id, class and type.
    var subject: Compound { compounds[compounds.count - 1] }
    var tag: String? { subject.tag }
    var ids: [String] { subject.ids }
    var classes: [String] { subject.classes }
    /// Whether matching looks beyond the element itself (at its ancestors or its position).
    var isStructural: Bool { compounds.count > 1 || compounds.contains { $0.firstChild } }

    /// CSS specificity (ids; classes, attributes and pseudo-classes; types) folded into one
    /// comparable number.
    var specificity: Int {
        compounds.reduce(0) { total, compound in
            total + compound.ids.count * 1_000_000
                + (compound.classes.count + compound.attributes.count + (compound.firstChild ? 1 : 0)) * 1_000
                + (compound.tag == nil ? 0 : 1)
        } + (pseudoElement == nil ? 0 : 1)
    }

    init?(_ text: some StringProtocol) {
        let scalars = Array(text.unicodeScalars)
        var i = 0
        compounds = []
        combinators = []
        func skipSpace() -> Bool {
            let start = i
            while i < scalars.count, scalars[i] == " " || scalars[i] == "\t" || scalars[i] == "\n" || scalars[i] == "\r" { i += 1 }
            return i > start
        }
        func name() -> String? {
            let start = i
            while i < scalars.count, scalars[i].isCSSNameCodePoint { i += 1 }
            return i > start ? String(String.UnicodeScalarView(scalars[start..<i])) : nil
        }
        _ = skipSpace()
        while i < scalars.count {
            var compound = Compound()
            var parts = 0
            if scalars[i] == "*" {
                i += 1
                parts += 1
            } else if scalars[i].isCSSNameCodePoint {
                compound.tag = name()?.lowercased()
                parts += 1
            }
            compoundLoop: while i < scalars.count {
                let marker = scalars[i]
                // Nothing follows a pseudo-element in its compound.
                if pseudoElement != nil && (marker == "." || marker == "#" || marker == "[" || marker == ":") { return nil }
                switch marker {
                case ".", "#":
                    i += 1
                    guard let part = name() else { return nil }
                    if marker == "." { compound.classes.append(part) } else { compound.ids.append(part) }
                case "[":
                    i += 1
                    guard let attribute = Self.attribute(scalars, &i) else { return nil }
                    compound.attributes.append(attribute)
                case ":":
                    i += 1
                    let doubled = i < scalars.count && scalars[i] == ":"
                    if doubled { i += 1 }
                    switch name()?.lowercased() {
                    case "first-child" where !doubled: compound.firstChild = true
                    case "before": pseudoElement = .before
                    case "after": pseudoElement = .after
                    case "first-letter": pseudoElement = .firstLetter
                    case "first-line": pseudoElement = .firstLine
                    default: return nil
                    }
                default:
                    break compoundLoop
                }
                parts += 1
            }
            guard parts > 0 else { return nil }
            compounds.append(compound)
            let spaced = skipSpace()
            guard i < scalars.count else { break }
            // A pseudo-element ends the selector.
            if pseudoElement != nil { return nil }
            let explicit: [Unicode.Scalar: Combinator] = [">": .child, "+": .nextSibling, "~": .subsequentSibling]
            if let combinator = explicit[scalars[i]] {
                i += 1
                _ = skipSpace()
                combinators.append(combinator)
            } else if spaced {
                combinators.append(.descendant)
            } else {
                return nil  // A character no selector part starts with.
            }
            guard i < scalars.count else { return nil }
        }
        // Eight compounds are plenty for real style sheets, and keep matching against deep
        // documents cheap (each descendant combinator may try every ancestor).
        guard !compounds.isEmpty, compounds.count <= 8, combinators.count == compounds.count - 1 else { return nil }
    }

    /// `name]`, `name=value]`, `name="value"]` or `name~=value]` after a `[`.
    private static func attribute(_ scalars: [Unicode.Scalar], _ i: inout Int) -> Compound.Attribute? {
        let start = i
        while i < scalars.count, scalars[i].isCSSNameCodePoint { i += 1 }
        guard i > start else { return nil }
        var attribute = Compound.Attribute(name: String(String.UnicodeScalarView(scalars[start..<i])).lowercased())
        guard i < scalars.count else { return nil }
        if scalars[i] == "]" {
            i += 1
            return attribute
        }
        if scalars[i] == "~" {
            attribute.word = true
            i += 1
        }
        guard i < scalars.count, scalars[i] == "=" else { return nil }
        i += 1
        var value = String.UnicodeScalarView()
        if i < scalars.count, scalars[i] == "\"" || scalars[i] == "'" {
            let quote = scalars[i]
            i += 1
            while i < scalars.count, scalars[i] != quote {
                guard scalars[i] != "\\" else { return nil }
                value.append(scalars[i])
                i += 1
            }
            guard i < scalars.count else { return nil }
            i += 1
        } else {
            while i < scalars.count, scalars[i].isCSSNameCodePoint {
                value.append(scalars[i])
                i += 1
            }
        }
        guard i < scalars.count, scalars[i] == "]" else { return nil }
        i += 1
        attribute.value = String(value)
        return attribute
    }

    /// Whether the selector matches `element`, whose ancestors are `ancestors` (nearest last).
    func matches(_ element: CSSElement, ancestors: [CSSElement]) -> Bool {
        guard subject.matches(element) else { return false }
        return Self.matchesBefore(compounds.count - 1, compounds: compounds, combinators: combinators,
                                  element: element, ancestors: ancestors[...])
    }

    /// Whether `compounds[..<index]` match among `ancestors` (nearest last) and the siblings
    /// before `element`, `compounds[index]` having matched `element`, a child of the last of
    /// `ancestors`.
    private static func matchesBefore(_ index: Int, compounds: [Compound], combinators: [Combinator],
                                      element: CSSElement, ancestors: ArraySlice<CSSElement>) -> Bool {
        guard index > 0 else { return true }
        let compound = compounds[index - 1]
        func rest(from candidate: CSSElement, ancestors: ArraySlice<CSSElement>) -> Bool {
            matchesBefore(index - 1, compounds: compounds, combinators: combinators, element: candidate, ancestors: ancestors)
        }
        switch combinators[index - 1] {
        case .child:
            guard let parent = ancestors.last, compound.matches(parent) else { return false }
            return rest(from: parent, ancestors: ancestors.dropLast())
        case .descendant:
            var remaining = ancestors
            while let candidate = remaining.popLast() {
                if compound.matches(candidate), rest(from: candidate, ancestors: remaining) { return true }
            }
            return false
        case .nextSibling:
            guard let sibling = element.previous?.element, compound.matches(sibling) else { return false }
            return rest(from: sibling, ancestors: ancestors)
        case .subsequentSibling:
            var link = element.previous
            while let sibling = link?.element {
                if compound.matches(sibling), rest(from: sibling, ancestors: ancestors) { return true }
                link = link?.element.previous
            }
            return false
        }
    }
}

/// What selectors look at in an element.
struct CSSElement: Sendable {
    var tag: String
    var id: String?
    var classes: [String]
    /// Attribute names (lowercased) and values, in document order.
    var attributes: [(name: String, value: String)]
    /// No element sibling comes before it.
    var isFirstChild: Bool
    /// The element sibling just before it, for the sibling combinators (kept by the walker
    /// when the style sheets have selectors that look beyond the element).
    var previous: Sibling?

    /// An element sibling, which holds the one before it in turn, `depth` of them in all.
    final class Sibling: Sendable {
        let element: CSSElement
        let depth: Int
        /// The longest chain kept: `~` looks no further back (a chain is released link by
        /// link, recursively, so an unbounded one could exhaust a thread's stack).
        static let maximumDepth = 256

        /// The link after `previous` (nil: the first child): `element`, its `previous` set.
        static func after(_ previous: Sibling?, element: inout CSSElement) -> Sibling {
            if let previous, previous.depth >= maximumDepth {
                var nearest = previous.element
                nearest.previous = nil
                element.previous = Sibling(nearest, depth: 1)
            } else {
                element.previous = previous
            }
            return Sibling(element, depth: (element.previous?.depth ?? 0) + 1)
        }

        private init(_ element: CSSElement, depth: Int) {
            self.element = element
            self.depth = depth
        }
    }

    func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }
}
