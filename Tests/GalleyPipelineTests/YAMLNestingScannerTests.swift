import GalleyTestSupport
@testable import GalleyPipeline
import Testing
import Yams

/// The scanner must never count fewer levels than Yams builds. Random YAML (block and flow
/// collections, quoted, plain and block scalars with brackets, quotes and comments inside), half
/// of it broken a little, is scanned and composed; for every tree Yams builds, the scanner's
/// count is exactly the levels on its deepest path (`ExpectedLevels`), so the tree is at most
/// 2 × levels + 1 deep. The texts are shallow enough for Yams' own recursion.
@Suite struct YAMLNestingScannerTests {
    /// Pieces inserted into generated texts to make near-misses of valid YAML.
    static let pieces = [
        "[", "]", "{", "}", ", ", "- ", "? ", ": ", ":", "a", "'", "\"", "''", "\\", "#", " #", "|", ">", "|2\n", "\n", "\n  ",
        " ", "\t", "---\n", "...\n", "\r\n", "x[", "k: [", "- - ",
    ]

    /// A random YAML node `depth` levels deep at most: inside brackets (`flow`) flow
    /// collections and quoted or plain scalars; else also block maps and lists indented from
    /// `indent`, and block scalars and plain ones with brackets and comments in them. A block
    /// node ends with a line break.
    static func node(depth: Int, indent: Int, flow: Bool, using generator: inout SplitMix) -> String {
        let pad = String(repeating: " ", count: indent)
        var scalars = ["a", "b c", "'[[ ]'", "\"]] \\\" [\"", "'it''s'"]
        if flow { scalars += ["a # ] [\n\(pad) "] }
        if !flow { scalars += ["x[0]", "a # [[", "|\n\(pad)  [[[ '\n\(pad)  - - x\n", ">-\n\(pad)   ]] \"\n"] }
        let kind = depth > 0 ? Int.random(in: flow ? 3..<5 : 0..<5, using: &generator) : 5
        let count = Int.random(in: 1...3, using: &generator)
        func child() -> String { node(depth: depth - 1, indent: indent + 2, flow: kind >= 3, using: &generator) }
        /// `indicator` (a key and colon, or a dash) and a child: a block collection on the lines
        /// below it, anything else on its line.
        func entry(_ indicator: String, sameIndentation: Bool = false) -> String {
            let value = sameIndentation ? node(depth: depth - 1, indent: indent, flow: false, using: &generator) : child()
            return value.hasSuffix("\n") && !value.hasPrefix("|") && !value.hasPrefix(">")
                ? "\(pad)\(indicator)\n" + value : "\(pad)\(indicator) " + value + (value.hasSuffix("\n") ? "" : "\n")
        }
        switch kind {
        case 0, 1:
            // A block map; what is below a key may sit at the key's indentation (a list is then
            // the key's value, anything else the map's next key).
            return (0..<count).map { i in entry("k\(i):", sameIndentation: Int.random(in: 0..<4, using: &generator) == 0) }.joined()
        case 2:
            return (0..<count).map { _ in entry("-") }.joined()
        case 3:
            return "[" + (0..<count).map { _ in child() }.joined(separator: ", ") + "]"
        case 4:
            return "{" + (0..<count).map { i in "k\(i): " + child() }.joined(separator: ", ") + "}"
        default:
            return scalars.randomElement(using: &generator) ?? "a"
        }
    }

    func depth(_ node: Node) -> Int {
        switch node {
        case .scalar: 1
        case .sequence(let sequence): 1 + (sequence.map(depth).max() ?? 0)
        case .mapping(let mapping): 1 + (mapping.map { max(depth($0.key), depth($0.value)) }.max() ?? 0)
        }
    }

    /// The levels the scanner should count on the deepest path of a tree Yams built from
    /// `text`: one per collection, but none for the lists and maps libyaml makes without
    /// opening a level: a map of one pair written inside brackets without braces (`[a: b]`)
    /// and a list under a key at the key's own indentation. (Yams does not keep a collection's
    /// style, so it is read from the text at the collection's start.)
    struct ExpectedLevels {
        let text: [Unicode.Scalar]
        var lineStarts = [0]

        init(_ text: String) {
            self.text = Array(text.unicodeScalars)
            var i = 0
            while i < self.text.count {
                let c = self.text[i]
                i += c == "\r" && i + 1 < self.text.count && self.text[i + 1] == "\n" ? 2 : 1
                if ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains(c) { lineStarts.append(i) }
            }
        }

        func character(at mark: Mark?) -> Unicode.Scalar? {
            guard let mark, mark.line - 1 < lineStarts.count else { return nil }
            let offset = lineStarts[mark.line - 1] + mark.column - 1
            return offset < text.count ? text[offset] : nil
        }

        func levels(_ node: Node, inFlow: Bool, parentBlockMapping: Mark?) -> Int {
            switch node {
            case .scalar:
                return 0
            case .sequence(let sequence):
                let flow = inFlow || character(at: sequence.mark) == "["
                let indentless = !flow && parentBlockMapping?.column == sequence.mark?.column
                return (indentless ? 0 : 1) + (sequence.map { levels($0, inFlow: flow, parentBlockMapping: nil) }.max() ?? 0)
            case .mapping(let mapping):
                let flow = inFlow || character(at: mapping.mark) == "{"
                let firstKey = mapping.first?.key.mark
                let implicitPair = inFlow && mapping.count == 1 && firstKey?.line == mapping.mark?.line && firstKey?.column == mapping.mark?.column
                let inner = mapping.map { pair in
                    max(levels(pair.key, inFlow: flow, parentBlockMapping: nil),
                        levels(pair.value, inFlow: flow, parentBlockMapping: flow ? nil : mapping.mark))
                }.max() ?? 0
                return (implicitPair ? 0 : 1) + inner
            }
        }
    }

    @Test func countsTheLevelsYamsBuilds() throws {
        var generator = SplitMix(seed: 15)
        var composed = 0, nested = 0
        for _ in 0..<1500 {
            var scalars = Array(Self.node(depth: Int.random(in: 1...6, using: &generator), indent: 0, flow: false, using: &generator).unicodeScalars)
            // Half the texts get a few pieces inserted or characters removed: near misses.
            if Bool.random(using: &generator) {
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let at = Int.random(in: 0...scalars.count, using: &generator)
                    if Bool.random(using: &generator) {
                        scalars.insert(contentsOf: (Self.pieces.randomElement(using: &generator) ?? "").unicodeScalars, at: at)
                    } else {
                        scalars.removeSubrange(at..<min(scalars.count, at + Int.random(in: 1...3, using: &generator)))
                    }
                }
            }
            let text = String(String.UnicodeScalarView(scalars))
            let levels = try YAMLNestingScanner.deepestLevel(in: text, limit: .max)
            guard let root = try? Yams.compose(yaml: text, .basic) else { continue }
            composed += 1
            let built = depth(root)
            if built >= 4 { nested += 1 }
            #expect(built <= 2 * levels + 1, "\(text.debugDescription): \(levels) levels counted, \(built) built")
            let expected = ExpectedLevels(text).levels(root, inFlow: false, parentBlockMapping: nil)
            #expect(levels == expected, "\(text.debugDescription): \(levels) levels counted, \(expected) expected")
        }
        // The texts must exercise the property: many parse, and many of those nest.
        #expect(composed > 700, "\(composed) texts parsed")
        #expect(nested > 400, "\(nested) parsed texts nest 4 or more deep")
    }

    @Test(arguments: [
        ("a: 1\n", 1),
        ("a: [1, [2, [3]]]\n", 4),
        ("a:\n  b:\n    - c\n", 3),
        ("a: '[[[['\nb: \"{{{\"\n", 1),
        ("a: |\n  [[[[\n  - - - -\nb: x[[[[ # [[[[\n", 1),
        ("- - - x\n", 3),
        ("[a: [b: c]]\n", 2),
    ])
    func countsWhatOpensALevel(text: String, levels: Int) throws {
        #expect(try YAMLNestingScanner.deepestLevel(in: text) == levels)
        let root = try #require(try Yams.compose(yaml: text, .basic))
        #expect(depth(root) <= 2 * levels + 1)
    }
}
