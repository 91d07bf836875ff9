/// How deeply the lists and maps of a YAML text nest, found before Yams composes it.
///
/// Yams builds its `Node` tree recursively, a few stack frames per level, so a file nested a
/// few thousand levels deep (`x: [[[[…]]]]`) overflows the stack and kills the process; the
/// tree's release is recursive too. This scanner follows libyaml's (the copy inside Yams,
/// `Sources/CYaml/src/scanner.c`) over the text without building anything and counts
/// what opens a level: a flow bracket (`[`, `{`), and a block indentation level (libyaml's
/// `roll_indent`: a `- `, `? ` or `key:` further right than the enclosing block). The parser
/// makes at most two nodes of each (a flow pair `[a: b]` is a map inside the list; a list
/// may sit unindented under a key), so `maximumLevels` levels mean at most
/// 2 × `maximumLevels` + 1 nested nodes.
///
/// Following libyaml token by token matters: where a quoted, plain or block scalar ends
/// decides which brackets and indentation are structure, and a scan that guessed could count
/// fewer levels than the parser builds. Where libyaml reports an error the scan stops, since
/// the parser stops there too and Yams reports it. Anchors, aliases, tags and directives
/// (`&`, `*`, `!`, `%`) are refused: an alias nests a whole earlier node wherever it is used,
/// so a short text could still make a deep tree, and `pipeline.yml` has no use for them.
struct YAMLNestingScanner {
    /// Lists and maps a text may open inside each other.
    static let maximumLevels = 32

    /// Why a text is refused, with its line (1-based).
    enum Problem: Error, Equatable {
        case tooDeep(line: Int)
        case unsupported(indicator: Character, line: Int)
    }

    /// The most levels open at once in `text` (up to where libyaml would stop with an error);
    /// throws at the first level past `limit` or the first anchor, alias, tag or directive.
    @discardableResult
    static func deepestLevel(in text: String, limit: Int = maximumLevels) throws(Problem) -> Int {
        var scanner = YAMLNestingScanner(Array(text.unicodeScalars), limit: limit)
        try scanner.scan()
        return scanner.deepest
    }

    private let text: [Unicode.Scalar]
    private let limit: Int
    private var deepest = 0
    private var position = 0
    private var line = 0
    private var column = 0
    /// libyaml's `flow_level`, `indent` and `indents`.
    private var flowLevel = 0
    private var indent = -1
    private var indents: [Int] = []
    private var simpleKeyAllowed = true
    /// A possible simple key per flow level (libyaml's `simple_keys`): where a scalar or a
    /// flow collection began that a `:` may turn into a key, rolling the indentation at its
    /// column.
    private var simpleKeys = [SimpleKey()]

    private struct SimpleKey {
        var possible = false
        var line = 0
        var column = 0
        var position = 0
    }

    /// The end of a token libyaml would reject: the scan ends there as libyaml's does.
    private struct Stop: Error {}

    private init(_ text: [Unicode.Scalar], limit: Int) {
        self.text = text
        self.limit = limit
    }

    private mutating func scan() throws(Problem) {
        do {
            while try fetchNextToken() {}
        } catch let problem as Problem {
            throw problem
        } catch {
            return  // Stop: libyaml reports an error here, Yams passes it on.
        }
    }

    /// One token, as `yaml_parser_fetch_next_token`; false at the end of the text.
    private mutating func fetchNextToken() throws -> Bool {
        scanToNextToken()
        for level in simpleKeys.indices where simpleKeys[level].possible
            && (simpleKeys[level].line < line || simpleKeys[level].position + 1024 < position) {
            simpleKeys[level].possible = false
        }
        unrollIndent(to: column)
        let c = character(0)
        if c == "\0" { return false }
        if column == 0 && c == "%" { throw Problem.unsupported(indicator: "%", line: line + 1) }
        if column == 0 && isDocumentIndicator() {
            unrollIndent(to: -1)
            removeSimpleKey()
            simpleKeyAllowed = false
            skip(3)
            return true
        }
        switch c {
        case "[", "{":
            saveSimpleKey()
            flowLevel += 1
            simpleKeys.append(SimpleKey())
            try checkDepth()
            simpleKeyAllowed = true
            skip()
        case "]", "}":
            removeSimpleKey()
            if flowLevel > 0 {
                flowLevel -= 1
                simpleKeys.removeLast()
            }
            simpleKeyAllowed = false
            skip()
        case ",":
            removeSimpleKey()
            simpleKeyAllowed = true
            skip()
        case "-" where isBlankOrBreakOrEnd(character(1)):
            if flowLevel == 0 {
                guard simpleKeyAllowed else { throw Stop() }
                try rollIndent(to: column)
            }
            removeSimpleKey()
            simpleKeyAllowed = true
            skip()
        case "?" where flowLevel > 0 || isBlankOrBreakOrEnd(character(1)):
            if flowLevel == 0 {
                guard simpleKeyAllowed else { throw Stop() }
                try rollIndent(to: column)
            }
            removeSimpleKey()
            simpleKeyAllowed = flowLevel == 0
            skip()
        case ":" where flowLevel > 0 || isBlankOrBreakOrEnd(character(1)):
            if simpleKeys[simpleKeys.count - 1].possible {
                try rollIndent(to: simpleKeys[simpleKeys.count - 1].column)
                simpleKeys[simpleKeys.count - 1].possible = false
                simpleKeyAllowed = false
            } else {
                if flowLevel == 0 {
                    guard simpleKeyAllowed else { throw Stop() }
                    try rollIndent(to: column)
                }
                simpleKeyAllowed = flowLevel == 0
            }
            skip()
        case "*", "&", "!":
            throw Problem.unsupported(indicator: Character(c), line: line + 1)
        case "|" where flowLevel == 0, ">" where flowLevel == 0:
            removeSimpleKey()
            simpleKeyAllowed = true
            try scanBlockScalar()
        case "'", "\"":
            saveSimpleKey()
            simpleKeyAllowed = false
            try scanQuotedScalar(single: c == "'")
        default:
            guard startsPlainScalar() else { throw Stop() }
            saveSimpleKey()
            simpleKeyAllowed = false
            try scanPlainScalar()
        }
        return true
    }

    // MARK: Indentation and keys

    private mutating func rollIndent(to column: Int) throws(Problem) {
        guard flowLevel == 0, indent < column else { return }
        indents.append(indent)
        indent = column
        try checkDepth()
    }

    private mutating func unrollIndent(to column: Int) {
        guard flowLevel == 0 else { return }
        while indent > column, let outer = indents.popLast() { indent = outer }
    }

    private mutating func checkDepth() throws(Problem) {
        deepest = max(deepest, indents.count + flowLevel)
        if deepest > limit { throw .tooDeep(line: line + 1) }
    }

    private mutating func saveSimpleKey() {
        guard simpleKeyAllowed else { return }
        simpleKeys[simpleKeys.count - 1] = SimpleKey(possible: true, line: line, column: column, position: position)
    }

    private mutating func removeSimpleKey() {
        simpleKeys[simpleKeys.count - 1].possible = false
    }

    // MARK: Between tokens

    /// Spaces, comments and line breaks, as `yaml_parser_scan_to_next_token`.
    private mutating func scanToNextToken() {
        while true {
            if column == 0 && character(0) == "\u{FEFF}" { skip() }
            while character(0) == " " || ((flowLevel > 0 || !simpleKeyAllowed) && character(0) == "\t") { skip() }
            if character(0) == "#" {
                while !isBreakOrEnd(character(0)) { skip() }
            }
            guard isBreak(character(0)) else { return }
            skipLine()
            if flowLevel == 0 { simpleKeyAllowed = true }
        }
    }

    // MARK: Scalars

    /// `yaml_parser_scan_plain_scalar`: up to `: `, ` #`, a flow indicator inside brackets,
    /// a document marker, or (outside brackets) a line indented no more than the block.
    private mutating func scanPlainScalar() throws {
        let minimumIndent = indent + 1
        var leadingBlanks = false
        while true {
            if column == 0 && isDocumentIndicator() { break }
            if character(0) == "#" { break }
            while !isBlankOrBreakOrEnd(character(0)) {
                let c = character(0), next = character(1)
                if flowLevel > 0 && c == ":" && [",", "?", "[", "]", "{", "}"].contains(next) { throw Stop() }
                if (c == ":" && isBlankOrBreakOrEnd(next)) || (flowLevel > 0 && [",", "[", "]", "{", "}"].contains(c)) { break }
                leadingBlanks = false
                skip()
            }
            guard isBlank(character(0)) || isBreak(character(0)) else { break }
            while isBlank(character(0)) || isBreak(character(0)) {
                if isBlank(character(0)) {
                    if leadingBlanks && column < minimumIndent && character(0) == "\t" { throw Stop() }
                    skip()
                } else {
                    skipLine()
                    leadingBlanks = true
                }
            }
            if flowLevel == 0 && column < minimumIndent { break }
        }
        if leadingBlanks { simpleKeyAllowed = true }
    }

    /// `yaml_parser_scan_flow_scalar`: to the closing quote; `''` in single quotes and
    /// backslash escapes in double quotes do not close it.
    private mutating func scanQuotedScalar(single: Bool) throws {
        let quote: Unicode.Scalar = single ? "'" : "\""
        skip()
        while true {
            if column == 0 && isDocumentIndicator() { throw Stop() }
            if character(0) == "\0" { throw Stop() }
            while !isBlankOrBreakOrEnd(character(0)) {
                let c = character(0)
                if single && c == "'" && character(1) == "'" {
                    skip(2)
                } else if c == quote {
                    break
                } else if !single && c == "\\" && isBreak(character(1)) {
                    skip()
                    skipLine()
                    break
                } else if !single && c == "\\" {
                    try skipEscape()
                } else {
                    skip()
                }
            }
            if character(0) == quote { break }
            while isBlank(character(0)) || isBreak(character(0)) {
                if isBlank(character(0)) { skip() } else { skipLine() }
            }
        }
        skip()
    }

    /// A backslash escape of a double-quoted scalar; libyaml rejects unknown ones.
    private mutating func skipEscape() throws {
        let length: Int
        switch character(1) {
        case "0", "a", "b", "t", "\t", "n", "v", "f", "r", "e", " ", "\"", "/", "\\", "N", "_", "L", "P": length = 0
        case "x": length = 2
        case "u": length = 4
        case "U": length = 8
        default: throw Stop()
        }
        skip(2)
        guard length > 0 else { return }
        var value: UInt32 = 0
        for k in 0..<length {
            guard let digit = hexValue(character(k)) else { throw Stop() }
            value = value << 4 + digit
        }
        if (0xD800...0xDFFF).contains(value) || value > 0x10FFFF { throw Stop() }
        skip(length)
    }

    private func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": c.value - 0x30
        case "a"..."f": c.value - 0x61 + 10
        case "A"..."F": c.value - 0x41 + 10
        default: nil
        }
    }

    /// `yaml_parser_scan_block_scalar`: the header, then every line indented at least as
    /// much as the first (or as the indentation indicator says), blank lines included.
    private mutating func scanBlockScalar() throws {
        skip()
        var increment = 0
        if character(0) == "+" || character(0) == "-" {
            skip()
            if let digit = digitValue(character(0)) {
                guard digit > 0 else { throw Stop() }
                increment = digit
                skip()
            }
        } else if let digit = digitValue(character(0)) {
            guard digit > 0 else { throw Stop() }
            increment = digit
            skip()
            if character(0) == "+" || character(0) == "-" { skip() }
        }
        while isBlank(character(0)) { skip() }
        if character(0) == "#" {
            while !isBreakOrEnd(character(0)) { skip() }
        }
        guard isBreakOrEnd(character(0)) else { throw Stop() }
        if isBreak(character(0)) { skipLine() }
        var blockIndent = increment > 0 ? (indent >= 0 ? indent + increment : increment) : 0
        try scanBlockScalarBreaks(&blockIndent)
        while column == blockIndent && character(0) != "\0" {
            while !isBreakOrEnd(character(0)) { skip() }
            if isBreak(character(0)) { skipLine() }
            try scanBlockScalarBreaks(&blockIndent)
        }
    }

    /// `yaml_parser_scan_block_scalar_breaks`: blank lines, and the indentation of the first
    /// line with text when no indicator gave it.
    private mutating func scanBlockScalarBreaks(_ blockIndent: inout Int) throws {
        var maximumIndent = 0
        while true {
            while (blockIndent == 0 || column < blockIndent) && character(0) == " " { skip() }
            maximumIndent = max(maximumIndent, column)
            if (blockIndent == 0 || column < blockIndent) && character(0) == "\t" { throw Stop() }
            guard isBreak(character(0)) else { break }
            skipLine()
        }
        if blockIndent == 0 {
            blockIndent = max(maximumIndent, indent + 1, 1)
        }
    }

    // MARK: Characters

    /// The character `offset` ahead; NUL past the end (libyaml's reader ends the text with
    /// one, and refuses NUL inside it).
    private func character(_ offset: Int) -> Unicode.Scalar {
        position + offset < text.count ? text[position + offset] : "\0"
    }

    private mutating func skip(_ count: Int = 1) {
        position += count
        column += count
    }

    /// Past a line break, CR LF as one.
    private mutating func skipLine() {
        position += character(0) == "\r" && character(1) == "\n" ? 2 : 1
        line += 1
        column = 0
    }

    private func isDocumentIndicator() -> Bool {
        let c = character(0)
        return (c == "-" || c == ".") && character(1) == c && character(2) == c && isBlankOrBreakOrEnd(character(3))
    }

    private static let indicators: Set<Unicode.Scalar> = ["-", "?", ":", ",", "[", "]", "{", "}", "#", "&", "*", "!", "|", ">", "'", "\"", "%", "@", "`"]

    /// Where libyaml lets a plain scalar begin (`yaml_parser_fetch_next_token`'s last test).
    private func startsPlainScalar() -> Bool {
        let c = character(0), next = character(1)
        if !(isBlankOrBreakOrEnd(c) || Self.indicators.contains(c)) { return true }
        if c == "-" && !isBlank(next) { return true }
        return flowLevel == 0 && (c == "?" || c == ":") && !isBlankOrBreakOrEnd(next)
    }

    private func digitValue(_ c: Unicode.Scalar) -> Int? {
        ("0"..."9").contains(c) ? Int(c.value - 0x30) : nil
    }

    private func isBlank(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" }

    private func isBreak(_ c: Unicode.Scalar) -> Bool {
        c == "\n" || c == "\r" || c == "\u{85}" || c == "\u{2028}" || c == "\u{2029}"
    }

    private func isBreakOrEnd(_ c: Unicode.Scalar) -> Bool { isBreak(c) || c == "\0" }

    private func isBlankOrBreakOrEnd(_ c: Unicode.Scalar) -> Bool { isBlank(c) || isBreakOrEnd(c) }
}
