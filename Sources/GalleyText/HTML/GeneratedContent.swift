/// CSS 2.1 §12: what an element's `::before` and `::after` boxes show (`content`: strings,
/// `counter()`, `counters()`, `attr()`), and the counters (`counter-reset`,
/// `counter-increment`) in scope as the walker goes through the document.
///
/// A counter's instance is in scope for the element that made it, its following siblings and
/// their descendants (§12.4.1): it is kept with the index of its parent's frame, and ends when
/// that frame does (`leave`). A reset by a sibling of the element that made the instance
/// replaces its value; one by a descendant nests a new instance, which `counters()` shows
/// with the outer ones.
struct GeneratedContent {
    private struct Instance {
        var value: Int
        /// The index in the walker's frames of the element whose children it is in scope for.
        var scope: Int
    }

    /// Each counter's instances in scope, outermost first.
    private var counters: [String: [Instance]] = [:]

    /// Applies an element's `counter-reset`, then its `counter-increment`; `scope` is the
    /// index of its parent's frame (a `::before` or `::after` box: its element's).
    mutating func change(reset: String?, increment: String?, scope: Int) {
        for (name, value) in Self.counterChanges(reset, defaultValue: 0) {
            var instances = counters[name] ?? []
            if let last = instances.last, last.scope == scope {
                instances[instances.count - 1].value = value
            } else {
                instances.append(Instance(value: value, scope: scope))
            }
            counters[name] = instances
        }
        for (name, value) in Self.counterChanges(increment, defaultValue: 1) {
            // A counter incremented where none is in scope is made there, from 0.
            var instances = counters[name] ?? [Instance(value: 0, scope: scope)]
            let last = instances.count - 1
            let (sum, overflow) = instances[last].value.addingReportingOverflow(value)
            if !overflow { instances[last].value = sum }
            counters[name] = instances
        }
    }

    /// Ends the counters in scope inside the frame at `scope` and deeper (its element ended).
    mutating func leave(scope: Int) {
        guard !counters.isEmpty else { return }
        for name in Array(counters.keys) {
            counters[name]!.removeAll { $0.scope >= scope }
            if counters[name]!.isEmpty { counters[name] = nil }
        }
    }

    /// The text a `content` value generates, nil when it generates no box (`none`,
    /// `normal`, nothing valid); `attribute` reads the element's attributes for `attr()`.
    func text(of content: String?, attribute: (String) -> String?) -> String? {
        guard let content else { return nil }
        let tokens = ContentToken.tokens(of: content)
        var text = ""
        for token in tokens {
            switch token {
            case .string(let string):
                text += string
            case .identifier(let keyword):
                switch keyword.lowercased() {
                case "none", "normal": return nil
                case "open-quote": text += "\u{201C}"
                case "close-quote": text += "\u{201D}"
                default: break  // `no-open-quote`, `no-close-quote`.
                }
            case .function("counter", let arguments) where !arguments.isEmpty:
                text += Self.label(counters[arguments[0]]?.last?.value ?? 0, style: arguments.count > 1 ? arguments[1] : nil)
            case .function("counters", let arguments) where arguments.count >= 2:
                let separator = ContentToken.tokens(of: arguments[1]).compactMap { token -> String? in
                    if case .string(let string) = token { return string } else { return nil }
                }.joined()
                let values = counters[arguments[0]]?.map(\.value) ?? [0]
                let style = arguments.count > 2 ? arguments[2] : nil
                text += values.map { Self.label($0, style: style) }.joined(separator: separator)
            case .function("attr", let arguments) where !arguments.isEmpty:
                text += attribute(arguments[0].lowercased()) ?? ""
            case .function:
                return nil  // `url()`, `counter()` without a name: the declaration is invalid.
            }
        }
        return text
    }

    /// A counter's value in a list style (`decimal` when none is named or it is unknown).
    static func label(_ value: Int, style: String?) -> String {
        label(value, style.flatMap { ComputedStyle.ListMarker($0.lowercased()) } ?? .decimal)
    }

    /// A counter's value (a list item's number) in a list style, without a suffix.
    static func label(_ value: Int, _ kind: ComputedStyle.ListMarker) -> String {
        switch kind {
        case .none: return ""
        case .disc: return "\u{2022}"
        case .circle: return "\u{25E6}"
        case .square: return "\u{25AA}"
        case .decimal: return String(value)
        case .lowerAlpha: return HTMLWalker.alphabetic(value) ?? String(value)
        case .upperAlpha: return HTMLWalker.alphabetic(value)?.uppercased() ?? String(value)
        case .lowerRoman: return HTMLWalker.roman(value)?.lowercased() ?? String(value)
        case .upperRoman: return HTMLWalker.roman(value) ?? String(value)
        }
    }

    /// The names and integers of a `counter-reset` or `counter-increment` value (`a 2 b`),
    /// each without one taking `defaultValue`; none for `none` or an invalid value.
    static func counterChanges(_ value: String?, defaultValue: Int) -> [(String, Int)] {
        guard let value else { return [] }
        var changes: [(String, Int)] = []
        for word in StyleSheet.tokens(value) {
            if let number = Int(word) {
                guard !changes.isEmpty else { return [] }
                changes[changes.count - 1].1 = number
            } else {
                guard let first = word.unicodeScalars.first, first.properties.isAlphabetic || first == "_" || first == "-" else { return [] }
                if ["none", "inherit", "initial", "unset"].contains(word.lowercased()) { return [] }
                changes.append((word, defaultValue))
            }
        }
        return changes
    }
}
