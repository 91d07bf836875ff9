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
            while i < scalars.count, scalars[i].isCSSNameCodePoint { i += 1 }
            return i > start ? String(String.UnicodeScalarView(scalars[start..<i])) : nil
        }
        if scalars[0] == "*" {
            i = 1
        } else if scalars[0].isCSSNameCodePoint {
            tag = name()?.lowercased()
        }
        while i < scalars.count {
            let marker = scalars[i]
            i += 1
            guard marker == "." || marker == "#", let part = name() else { return nil }
            if marker == "." { classes.append(part) } else { ids.append(part) }
        }
    }

    func matches(tag elementTag: String, id: String?, classes elementClasses: [String]) -> Bool {
        if let tag, tag != elementTag { return false }
        for required in ids where required != id { return false }
        for required in classes where !elementClasses.contains(required) { return false }
        return true
    }
}
