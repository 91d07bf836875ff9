import CFontconfig
import Foundation

/// The font families of SVG text as librsvg should read them, for the PDF.
///
/// librsvg hands an element's `font-family` list to pango, which asks fontconfig for the whole
/// list at once; fontconfig ranks the generic family's preferences (DejaVu Serif for `serif`)
/// above the metric-compatible fonts it substitutes for a named family it lacks (Liberation
/// Serif or Nimbus Roman for Times), so graphviz's `font-family="Times,serif"` came out in
/// DejaVu Serif, wider than Times, and the labels ran past their boxes. CSS takes the first
/// family of the list that is available; so here, when fontconfig has a list's first named
/// family, or a font with its metrics, that font's own family is put at the head of the list
/// (`Liberation Serif,Times,serif`), which fontconfig then picks. Lists whose named families
/// fontconfig has no such font for are left as they are, to the generic family.
struct SVGFontFamilies {
    /// Fonts with the same advance widths, as fontconfig's `30-metric-aliases.conf` pairs them.
    static let metricTwins: [Set<String>] = [
        ["times", "times new roman", "nimbus roman", "nimbus roman no9 l", "liberation serif", "tinos", "tex gyre termes"],
        ["helvetica", "arial", "nimbus sans", "nimbus sans l", "liberation sans", "arimo", "tex gyre heros"],
        ["courier", "courier new", "nimbus mono ps", "nimbus mono l", "liberation mono", "cousine", "tex gyre cursor"],
    ]

    static let generic: Set<String> = [
        "serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "ui-serif", "ui-sans-serif", "ui-monospace",
        "ui-rounded", "math", "emoji", "fangsong", "inherit", "initial",
    ]

    /// The family fontconfig sets a named family in, by the name asked for (lowercased).
    private var resolved: [String: String?] = [:]
    private let resolve: (String) -> String?

    /// - Parameter resolve: the family of the font fontconfig picks for a family name alone;
    ///   by default fontconfig's current configuration's, which is the one pango uses.
    init(resolve: @escaping (String) -> String? = SVGFontFamilies.fontconfigFamily) {
        self.resolve = resolve
    }

    /// `svg` with each `font-family` list (attribute or CSS declaration) headed by the family
    /// fontconfig has for its first available named family, when that is not already its head.
    mutating func rewritten(_ svg: [UInt8]) -> [UInt8] {
        let key = Array("font-family".utf8)
        var result: [UInt8] = []
        var copied = 0
        var index = 0
        while let found = CairoPDFLayout.firstIndex(of: key, in: svg, from: index) {
            index = found + key.count
            var at = Self.skipSpace(svg, index)
            guard at < svg.count, svg[at] == UInt8(ascii: "=") || svg[at] == UInt8(ascii: ":") else { continue }
            let isAttribute = svg[at] == UInt8(ascii: "=")
            at = Self.skipSpace(svg, at + 1)
            let start: Int, end: Int
            if isAttribute {
                guard at < svg.count, svg[at] == UInt8(ascii: "\"") || svg[at] == UInt8(ascii: "'") else { continue }
                start = at + 1
                end = svg[start...].firstIndex(of: svg[at]) ?? svg.count
            } else {
                start = at
                end = svg[start...].firstIndex { Array(";}<>\"\n".utf8).contains($0) } ?? svg.count
            }
            index = end
            let value = String(decoding: svg[start..<end], as: UTF8.self)
            guard let head = head(for: value) else { continue }
            result += svg[copied..<start]
            result += Array((head + ",").utf8)
            copied = start
        }
        guard copied > 0 else { return svg }
        return result + svg[copied...]
    }

    /// The family to put before `list`, or nil to leave it.
    private mutating func head(for list: String) -> String? {
        let families = list.split(separator: ",").map { family in
            family.trimmingASCIIWhitespace().trimmingCharacters(in: ["\"", "'"]).trimmingASCIIWhitespace()
        }
        for (position, family) in families.enumerated() where !family.isEmpty && !Self.generic.contains(family.lowercased()) {
            let name = family.lowercased()
            if resolved[name] == nil { resolved[name] = .some(resolve(family)) }
            guard let found = resolved[name] ?? nil else { continue }
            let lower = found.lowercased()
            guard lower == name || Self.metricTwins.contains(where: { $0.contains(name) && $0.contains(lower) }) else { continue }
            return position == 0 && lower == name ? nil : found
        }
        return nil
    }

    /// The family of the font fontconfig's current configuration matches `family` alone with.
    static func fontconfigFamily(_ family: String) -> String? {
        guard let pattern = FcPatternCreate() else { return nil }
        defer { FcPatternDestroy(pattern) }
        FcPatternAddString(pattern, FC_FAMILY, family)
        FcConfigSubstitute(nil, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let font = FcFontMatch(nil, pattern, &result) else { return nil }
        defer { FcPatternDestroy(font) }
        var name: UnsafeMutablePointer<FcChar8>?
        guard FcPatternGetString(font, FC_FAMILY, 0, &name) == FcResultMatch, let name else { return nil }
        return String(cString: name)
    }

    private static func skipSpace(_ bytes: [UInt8], _ index: Int) -> Int {
        var at = index
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x09 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
        return at
    }
}
