import Foundation
import GalleyRaster
import GalleyText
import Yams

/// A configuration file that cannot be used: the key, the line and what is allowed.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var file: String
    public var line: Int?
    public var key: String?
    public var message: String

    public init(file: String, line: Int? = nil, key: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        var where_ = file
        if let line { where_ += ":\(line)" }
        if let key { return "\(where_): \(key): \(message)" }
        return "\(where_): \(message)"
    }
}

/// Loading `pipeline.yml`.
///
/// Keys (every one optional):
///
/// | key | type | default |
/// | --- | --- | --- |
/// | `inputs` | list of folders, files or globs (or one string) | `["."]` |
/// | `output` | folder | `out` |
/// | `dpi` | number, 1...2400 | 150 |
/// | `page_images` | boolean: write full-size page images (false: thumbnails only) | `true` |
/// | `thumbnails` | list of box sizes in pixels, 8...4096 (empty for none) | `[128, 256]` |
/// | `pages` | pages of each document to draw: numbers and ranges, `first`, `last` or `N` (`1-3,7`, `5-N`) | all |
/// | `max_pages` | at most this many pages of each document (of each layout for articles), 1...10000000 | no limit |
/// | `workers` | number for every stage, or a map of `open`, `render`, `thumbnails`, `encode` | cores |
/// | `max_pages_in_flight` | number, 1...4096 | 4 × cores |
/// | `page_timeout` | seconds a page may take to record, draw or typeset (an article's page: set, shaping included), 0.001...86400 | 300 |
/// | `png` | `fast`, `balanced` or `small` | `balanced` |
/// | `format` | format of page images and thumbnails: `png`, `webp`, `jpeg` or `avif` | `png` |
/// | `thumbnail_format` | format of thumbnails, the same names | `format` |
/// | `quality` | 0...100, WebP, JPEG and AVIF (lossless WebP: effort) | 90 (WebP, JPEG), 75 (AVIF) |
/// | `lossless` | boolean, WebP only | `false` |
/// | `progressive` | boolean, JPEG only | `false` |
/// | `chroma` | `4:4:4` or `4:2:0`, JPEG and AVIF | `4:2:0` (JPEG), `4:4:4` (AVIF) |
/// | `speed` | 0...10, AVIF only (0 slowest, smallest) | 6 |
/// | `documents` | list of whole-document files per article layout: `text` | none |
/// | `follow_symlinks` | boolean: enter links to folders, and read documents whose links lead outside every input folder | `false` |
/// | `passwords` | map of file name, relative path or glob → password, or `env:NAME` to read it from the environment | none |
/// | `fonts` | list of font folders searched before the system's fonts | none |
/// | `layouts` | list of article layouts (keys below) | one layout, `a4` |
/// | `thumbnail_cache_size` | MiB the thumbnail cache keeps on disk, 0...1048576 (0: off) | 256 |
/// | `watch_debounce` | seconds `galley watch` waits for changes to settle, 0...3600 | 2 |
/// | `inbox` | folder whose files are moved into the first input folder and processed | none |
///
/// Keys of a layout (only `name` is required):
///
/// | key | type | default |
/// | --- | --- | --- |
/// | `name` | letters, digits, `-`, `_`; unique | — |
/// | `page` | `a3`, `a4`, `a5`, `b5`, `letter`, `legal`, `tabloid`, or `[width, height]`, lengths 36...14400 pt | `a4` |
/// | `orientation` | `portrait` or `landscape` (swaps a named page's sides) | `portrait` |
/// | `columns` | 1...12 | 1 |
/// | `column_gap` | length, 0...500 pt | 18 |
/// | `column_fill` | `balance` or `auto` (the last page's columns) | `balance` |
/// | `inset` | length on every side, 0...5000 pt, or a map of `top`, `right`, `bottom`, `left` | 54 |
/// | `background` | CSS colour (`#fff`, `#f8f4e8`, `white`) | white |
/// | `color` | CSS colour of text | black |
/// | `font_family` | a fontconfig family or generic name (`serif`, `sans-serif`, `monospace`) | `DejaVu Serif` |
/// | `font_size` | length, 1...500 pt | 11 |
/// | `line_height` | multiple of the fonts' natural line height, 0.5...5 | 1.2 |
/// | `language` | BCP 47 tag for text whose markup gives none (`en`, `ja`, `zh-Hans`) | none |
/// | `justify_threshold` | 0...1: start-aligned lines at least this full are justified; 1 = off | 1 |
/// | `hyphenation` | hyphenate words automatically (CSS `hyphens: auto` for the whole text) | false |
/// | `hyphenate_before`, `hyphenate_after` | fewest characters before and after an automatic hyphen, 1...10 | 2, 3 |
/// | `max_hyphenated_lines` | most consecutive lines ending in a hyphen, 1...20 | 2 |
/// | `max_letter_spacing` | em added at most between letters of a justified line whose spaces are at their limit, 0...0.2 | 0.04 |
/// | `line_breaking` | `greedy` (each line takes what fits) or `optimal` (Knuth–Plass per paragraph) | `greedy` |
/// | `vertical` | lines top to bottom, right to left, `columns` as bands stacked down the page (markup's `writing-mode` wins) | false |
///
/// A length is points as a bare number, or a number with an absolute CSS unit (`15mm`); in
/// `inset` and `column_gap` also `em` and `rem`, the layout's `font_size` (see
/// `YAMLReader.length`).
///
/// Unknown keys, wrong types and impossible values are errors naming the key and line, and so
/// are a key written twice in one map, numbers not in plain decimal notation (see
/// `YAMLReader.isDecimal`), lists and maps nested more than `YAMLNestingScanner.maximumLevels`
/// deep, and anchors, aliases, tags and directives. The file is UTF-8 text (a byte order mark
/// is allowed) without control characters other than tab and line breaks.
extension Configuration {
    /// Loads a configuration file; relative paths in it are resolved against its folder.
    public static func load(file url: URL) throws(ConfigurationError) -> Configuration {
        let bytes: [UInt8]
        do {
            bytes = Array(try Data(contentsOf: url))
        } catch {
            throw ConfigurationError(file: url.path, message: "cannot read the configuration file (\(error.localizedDescription)); pass --config with an existing file")
        }
        let text = try utf8Text(bytes, file: url.path)
        return try load(yaml: text, file: url.path, baseDirectory: url.deletingLastPathComponent())
    }

    /// The file's bytes as text, or "not a text file" with the first byte that is not UTF-8
    /// and its line (a binary file, or text saved in UTF-16 or a legacy charset).
    private static func utf8Text(_ bytes: [UInt8], file: String) throws(ConfigurationError) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        if let mark = TextDecoding.byteOrderMark(bytes) {
            throw ConfigurationError(file: file, message: "not a text file Galley reads (it starts with a \(mark.encoding) byte order mark); save it as UTF-8")
        }
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while case .valid(let encoded) = parser.parseScalar(from: &iterator) { offset += encoded.count }
        let line = bytes[..<offset].count(where: { $0 == 0x0A }) + 1
        let byte = String(bytes[offset], radix: 16, uppercase: true)
        throw ConfigurationError(file: file, message: "not a text file (line \(line): byte 0x\(byte) is not UTF-8); a configuration file is UTF-8 text")
    }

    /// The first line (1-based) whose indentation holds a tab, and the tab's column, skipping
    /// blank and comment lines.
    static func tabIndentation(in text: String) -> (line: Int, column: Int)? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let indentation = line.prefix { $0 == " " || $0 == "\t" }
            let rest = line.dropFirst(indentation.count)
            guard let tab = indentation.firstIndex(of: "\t"), !rest.isEmpty, !rest.hasPrefix("#"), rest != "\r" else { continue }
            return (index + 1, indentation.distance(from: indentation.startIndex, to: tab) + 1)
        }
        return nil
    }

    /// An unknown key's message: the nearest known key when one is a likely misspelling
    /// (`dpii` → `did you mean dpi?`), else the known keys.
    static func unknownKey(_ key: String, known: [String], what: String) -> String {
        let scored = known.map { ($0, editDistance(key.lowercased(), $0)) }
        if let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, min(3, best.0.count / 3)) {
            return "unknown \(what); did you mean \(best.0)?"
        }
        return "unknown \(what); \(what)s are \(known.joined(separator: ", "))"
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                let cost = x[i - 1] == y[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }

    /// Parses configuration text. `file` names it in error messages.
    public static func load(yaml text: String, file: String, baseDirectory: URL,
                            environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) -> Configuration {
        // A byte order mark is no part of the text: libyaml would take it as the start of the
        // first key (and then fail on the next line), unless a comment swallowed it. Dropping
        // the one scalar keeps every line and column where it was.
        var text = text
        if text.unicodeScalars.first == "\u{FEFF}" { text = String(text.unicodeScalars.dropFirst()) }
        var configuration = Configuration()
        configuration.baseDirectory = baseDirectory
        configuration.file = file
        try checkCharacters(text, file: file)
        do {
            try YAMLNestingScanner.deepestLevel(in: text)
        } catch {
            switch error {
            case .tooDeep(let line):
                throw ConfigurationError(file: file, line: line, message: "lists and maps nest more than \(YAMLNestingScanner.maximumLevels) levels deep here")
            case .unsupported(let indicator, let line):
                throw ConfigurationError(file: file, line: line, message: "'\(indicator)': anchors, aliases, tags and directives (&, *, !, %) are not read in pipeline.yml; write the value itself")
            }
        }
        let root: Node?
        do {
            // Every value is read from its text (`YAMLReader`), so no tag resolution is needed;
            // the default resolver compiles seven regular expressions at first use.
            root = try Yams.compose(yaml: text, .basic)
        } catch {
            // libyaml's "found character that cannot start any token" for a tab in the
            // indentation names neither the tab nor the rule.
            if let (line, column) = tabIndentation(in: text) {
                throw ConfigurationError(file: file, line: line, message: "a tab in the indentation (column \(column)); YAML indents with spaces only, so replace the tab with spaces")
            }
            throw ConfigurationError(file: file, message: "not valid YAML: \(error)")
        }
        guard let root else { return configuration }  // an empty file: all defaults
        let reader = YAMLReader(file: file)
        try reader.checkDuplicateKeys(root, path: nil)
        guard let mapping = root.mapping else {
            throw reader.error(root, key: nil, "the file must be a map of settings, like `inputs: [docs]`")
        }
        // Where each format setting was written, for an error about one that applies to no
        // configured format.
        var formatNodes: [String: Node] = [:]
        for (keyNode, value) in mapping {
            guard let key = keyNode.string else { throw reader.error(keyNode, key: nil, "keys must be strings") }
            switch key {
            case "inputs":
                configuration.inputs = try reader.stringList(value, key: key)
                guard !configuration.inputs.isEmpty else { throw reader.error(value, key: key, "list at least one folder, file or glob") }
            case "output":
                configuration.output = try reader.string(value, key: key)
                guard !configuration.output.isEmpty else { throw reader.error(value, key: key, "must not be empty") }
            case "dpi":
                configuration.dpi = try reader.number(value, key: key, in: dpiRange)
            case "page_images":
                configuration.pageImages = try reader.boolean(value, key: key)
            case "thumbnails":
                var boxes: [Int] = []
                for item in try reader.list(value, key: key) { boxes.append(try reader.integer(item, key: key, in: thumbnailBoxRange)) }
                guard Set(boxes).count == boxes.count else { throw reader.error(value, key: key, "box sizes must be different") }
                configuration.thumbnailBoxes = boxes.sorted()
            case "pages":
                let text: String
                if let number = value.int { text = String(number) } else { text = try reader.string(value, key: key) }
                do {
                    configuration.pageSelection = try PageSelection(parsing: text)
                } catch {
                    throw reader.error(value, key: key, error.message)
                }
            case "max_pages":
                configuration.maxPages = try reader.integer(value, key: key, in: Configuration.maxPagesRange)
            case "workers":
                configuration.workers = try reader.workers(value, key: key)
            case "max_pages_in_flight":
                configuration.maxPagesInFlight = try reader.integer(value, key: key, in: pagesInFlightRange)
            case "page_timeout":
                configuration.pageTimeout = try reader.number(value, key: key, in: pageTimeoutRange)
            case "png":
                let name = try reader.string(value, key: key)
                guard let preset = PNGCompression(rawValue: name) else {
                    throw reader.error(value, key: key, "expected one of \(PNGCompression.allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'")
                }
                configuration.png = preset
            case "format", "thumbnail_format":
                let name = try reader.string(value, key: key)
                guard let format = ImageFormat(rawValue: name) else {
                    throw reader.error(value, key: key, "expected one of \(ImageFormat.allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'")
                }
                if key == "format" { configuration.format = format } else { configuration.thumbnailFormat = format }
            case "quality":
                configuration.quality = try reader.integer(value, key: key, in: ImageEncoding.qualityRange)
                formatNodes[key] = value
            case "lossless":
                configuration.lossless = try reader.boolean(value, key: key)
                formatNodes[key] = value
            case "progressive":
                configuration.progressive = try reader.boolean(value, key: key)
                formatNodes[key] = value
            case "chroma":
                let name = try reader.string(value, key: key)
                // Quoted: YAML 1.1 readers take a plain 4:2:0 for a base-60 number.
                guard let chroma = ChromaSubsampling(rawValue: name), value.scalar?.style != .plain else {
                    throw reader.error(value, key: key, "expected \(ChromaSubsampling.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")) in quotes, got \(reader.describe(value))")
                }
                configuration.chroma = chroma
                formatNodes[key] = value
            case "speed":
                configuration.speed = try reader.integer(value, key: key, in: ImageEncoding.speedRange)
                formatNodes[key] = value
            case "follow_symlinks":
                configuration.followSymlinks = try reader.boolean(value, key: key)
            case "pdf":
                configuration.pdf = try reader.boolean(value, key: key)
            case "documents":
                configuration.documents = []
                for name in try reader.stringList(value, key: key) {
                    guard let format = DocumentFormatName(rawValue: name) else {
                        throw reader.error(value, key: key, "expected a list of \(DocumentFormatName.allCases.map(\.rawValue).joined(separator: ", ")), got '\(name)'")
                    }
                    if !configuration.documents.contains(format) { configuration.documents.append(format) }
                }
            case "passwords":
                guard let map = value.mapping else { throw reader.error(value, key: key, "expected a map of file name or glob to password") }
                configuration.passwords = []
                for (pattern, passwordNode) in map {
                    let ruleKey = "\(key).\(pattern.string ?? "?")"
                    var password = try reader.string(passwordNode, key: ruleKey)
                    var unsetVariable: String?
                    // `env:NAME` keeps secrets out of the file (CI secrets arrive as variables).
                    // An unset variable fails only the documents that need the password.
                    if password.hasPrefix("env:") {
                        let name = String(password.dropFirst(4))
                        guard !name.isEmpty else {
                            throw reader.error(passwordNode, key: ruleKey, "env: names no variable; write env:NAME or the password itself")
                        }
                        if let value = environment[name] { password = value } else { (password, unsetVariable) = ("", name) }
                    }
                    configuration.passwords.append(PasswordRule(pattern: try reader.string(pattern, key: key), password: password,
                                                                unsetVariable: unsetVariable))
                }
            case "fonts":
                configuration.fontFolders = try reader.stringList(value, key: key)
            case "layouts":
                var layouts: [ArticleLayout] = []
                for item in try reader.list(value, key: key) {
                    let layout = try reader.layout(item, key: key)
                    if let pdf = item.mapping?["pdf"] { configuration.layoutPDF[layout.name] = try reader.boolean(pdf, key: "\(key).\(layout.name).pdf") }
                    if layouts.contains(where: { $0.name.lowercased() == layout.name.lowercased() }) {
                        throw reader.error(item, key: "\(key).\(layout.name)", "two layouts are named '\(layout.name)'; names must be unique")
                    }
                    layouts.append(layout)
                }
                guard !layouts.isEmpty else { throw reader.error(value, key: key, "list at least one layout, or leave the key out for the default") }
                configuration.layouts = layouts
            case "thumbnail_cache_size":
                configuration.thumbnailCacheMiB = try reader.integer(value, key: key, in: thumbnailCacheRange)
            case "watch_debounce":
                configuration.watchDebounce = try reader.number(value, key: key, in: watchDebounceRange)
            case "inbox":
                let inbox = try reader.string(value, key: key)
                guard !inbox.isEmpty else { throw reader.error(value, key: key, "must not be empty; leave the key out for no inbox") }
                configuration.inbox = inbox
            default:
                let known = ["inputs", "output", "dpi", "page_images", "thumbnails", "pages", "max_pages", "workers", "max_pages_in_flight", "page_timeout", "png", "format", "thumbnail_format", "quality", "lossless", "progressive", "chroma", "speed", "documents", "pdf", "follow_symlinks", "passwords", "fonts", "layouts",
                             "thumbnail_cache_size", "watch_debounce", "inbox"]
                throw reader.error(keyNode, key: key, Self.unknownKey(key, known: known, what: "key"))
            }
        }
        if let problem = configuration.formatSettingProblem() {
            guard let node = formatNodes[problem.key] else { throw ConfigurationError(file: file, key: problem.key, message: problem.message) }
            throw reader.error(node, key: problem.key, problem.message)
        }
        if !configuration.pageImages && configuration.thumbnailBoxes.isEmpty {
            throw ConfigurationError(file: file, key: "page_images",
                                     message: "with page_images: false, list at least one thumbnail box, or there is nothing to write")
        }
        return configuration
    }
}

extension Configuration {
    /// Refuses characters YAML does not allow in a file (C0 and C1 controls but tab, line
    /// breaks and NEL; DEL; U+FFFE and U+FFFF), naming the line: libyaml's own message gives
    /// only a byte offset. A NUL means the file is not text at all.
    fileprivate static func checkCharacters(_ text: String, file: String) throws(ConfigurationError) {
        var line = 1
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A: line += 1
            case 0x09, 0x0D, 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...: continue
            case 0: throw ConfigurationError(file: file, message: "not a text file (line \(line) holds a NUL byte); a configuration file is UTF-8 text")
            default:
                let code = String(scalar.value, radix: 16, uppercase: true)
                throw ConfigurationError(file: file, line: line, message: "the control character U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code) is not allowed in YAML; remove it")
            }
        }
    }
}

/// Typed reads of YAML nodes that fail with the node's line.
private struct YAMLReader {
    let file: String

    func error(_ node: Node, key: String?, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file, line: node.mark.map { $0.line }, key: key, message: message)
    }

    func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): "'\(scalar.string)'"
        case .mapping: "a map"
        case .sequence: "a list"
        }
    }

    func string(_ node: Node, key: String) throws(ConfigurationError) -> String {
        guard case .scalar(let scalar) = node else { throw error(node, key: key, "expected text, got \(describe(node))") }
        return scalar.string
    }

    func boolean(_ node: Node, key: String) throws(ConfigurationError) -> Bool {
        guard case .scalar(let scalar) = node, let value = Bool(scalar.string.lowercased()) else {
            throw error(node, key: key, "expected true or false, got \(describe(node))")
        }
        return value
    }

    func list(_ node: Node, key: String) throws(ConfigurationError) -> [Node] {
        guard case .sequence(let sequence) = node else { throw error(node, key: key, "expected a list, got \(describe(node))") }
        return Array(sequence)
    }

    func stringList(_ node: Node, key: String) throws(ConfigurationError) -> [String] {
        if case .scalar(let scalar) = node { return [scalar.string] }
        var strings: [String] = []
        for item in try list(node, key: key) { strings.append(try string(item, key: key)) }
        return strings
    }

    /// A key written twice in one map, at any depth, is an error naming both lines: Yams keeps
    /// both pairs, and the later would silently win. `path` names the map as errors do
    /// (`layouts.portrait.inset`).
    func checkDuplicateKeys(_ node: Node, path: String?) throws(ConfigurationError) {
        switch node {
        case .scalar:
            return
        case .sequence(let sequence):
            for item in sequence {
                // A layout is named by its name, as the errors about its keys name it.
                let name = item.mapping?.first(where: { $0.key.string == "name" })?.value.scalar?.string
                try checkDuplicateKeys(item, path: name.map { name in path.map { "\($0).\(name)" } ?? name } ?? path)
            }
        case .mapping(let mapping):
            var lines: [String: Int] = [:]
            for (keyNode, value) in mapping {
                guard let key = keyNode.scalar?.string else { continue }  // refused as a key later
                let keyPath = path.map { "\($0).\(key)" } ?? key
                let line = keyNode.mark?.line ?? 0
                if let first = lines[key] {
                    throw error(keyNode, key: keyPath, "written twice in the same map, on lines \(first) and \(line); keep one")
                }
                lines[key] = line
                try checkDuplicateKeys(value, path: keyPath)
            }
        }
    }

    /// Plain decimal notation: digits with an optional sign, no leading zero, and for a
    /// number (not a whole number) an optional fraction, `72.5`. YAML 1.1 reads `0x48`, `010`
    /// (octal), `1_000`, `1:30` (base 60) and `.inf` as numbers, YAML 1.2 reads `1e3` as one and
    /// YAML 1.1 as text, and `Double` takes hexadecimal and `inf`: none of them is accepted, so
    /// a value means the same to every reader of the file.
    static func isDecimal(_ text: String, fraction allowed: Bool) -> Bool {
        var bytes = text.utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        let integer = bytes.prefix(while: isDigit)
        guard !integer.isEmpty, integer.count == 1 || integer.first != UInt8(ascii: "0") else { return false }
        let rest = bytes.dropFirst(integer.count)
        guard let point = rest.first else { return true }
        let fraction = rest.dropFirst()
        return allowed && point == UInt8(ascii: ".") && !fraction.isEmpty && fraction.allSatisfy(isDigit)
    }

    /// A decimal number in `range`.
    func number(_ node: Node, key: String, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard case .scalar(let scalar) = node, Self.isDecimal(scalar.string, fraction: true), let value = Double(scalar.string) else {
            throw error(node, key: key, "expected a number from \(format(range.lowerBound)) to \(format(range.upperBound)) in decimal notation (like 150 or 72.5), got \(describe(node))")
        }
        guard range.contains(value) else {
            throw error(node, key: key, "\(scalar.string) is outside the allowed \(format(range.lowerBound))...\(format(range.upperBound))")
        }
        return value
    }

    /// The units a length may have; a bare number is points.
    static let lengthUnits = "mm, cm, in, pt, pc, px, q"

    /// A length in points within `range` (points): a decimal number of points, or one with an
    /// absolute CSS unit (`15mm`, `4.5mm`, `10.5pt`, `1in`, `2cm`, `3pc`, `96px` = 72 pt,
    /// `40q` = 10 mm), read by `CSSLength` as the article's CSS is. With `em` (the layout's
    /// font size: insets and the column gap), `em` and `rem` are that many of it; else they
    /// are refused, as is `%`: a page size or a font size has nothing to be relative to.
    func length(_ node: Node, key: String, in range: ClosedRange<Double>, em: Double? = nil) throws(ConfigurationError) -> Double {
        guard case .scalar(let scalar) = node, let points = Self.points(scalar.string, em: em) else {
            let units = em == nil ? Self.lengthUnits : "\(Self.lengthUnits), or em and rem (of the layout's font_size)"
            var message = "expected a length (a number in points, or with a unit: \(units)) "
                + "from \(format(range.lowerBound)) to \(format(range.upperBound)) pt, written in decimal like 72.5 or 15mm, got \(describe(node))"
            if case .scalar(let scalar) = node, let relative = CSSLength(scalar.string) {
                switch relative {
                case .em where em == nil, .rem where em == nil: message += "; em and rem are read only in inset and column_gap, as the layout's font_size"
                case .percent: message += "; % is not read in pipeline.yml, as there is nothing for it to be a percentage of"
                default: break
                }
            }
            throw error(node, key: key, message)
        }
        guard range.contains(points) else {
            let converted = Self.isDecimal(scalar.string, fraction: true) ? "" : " (\(format((points * 100).rounded() / 100)) pt)"
            throw error(node, key: key, "\(scalar.string)\(converted) is outside the allowed \(format(range.lowerBound))...\(format(range.upperBound)) pt")
        }
        return points
    }

    /// Points of a length's text: a plain decimal number (see `isDecimal`) is points; a number
    /// in the same notation followed by one of `lengthUnits`, or by `em` or `rem` when `em`
    /// gives their size, is converted; anything else is nil.
    static func points(_ text: String, em: Double? = nil) -> Double? {
        if isDecimal(text, fraction: true) { return Double(text) }
        let number = String(text.prefix { !$0.isLetter })
        guard isDecimal(number, fraction: true), let length = CSSLength(text) else { return nil }
        let points: Double
        switch length {
        case .points(let value): points = value
        // Only the units themselves: CSSLength also reads ex and ch, as half an em.
        case .em(let count), .rem(let count):
            guard let em, ["em", "rem"].contains(text.dropFirst(number.count).lowercased()) else { return nil }
            points = count * em
        case .percent, .number: return nil
        }
        return points.isFinite ? points : nil
    }

    func integer(_ node: Node, key: String, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard case .scalar(let scalar) = node, Self.isDecimal(scalar.string, fraction: false), let value = Int(scalar.string) else {
            throw error(node, key: key, "expected a whole number from \(range.lowerBound) to \(range.upperBound) in decimal digits (like 150), got \(describe(node))")
        }
        guard range.contains(value) else {
            throw error(node, key: key, "\(value) is outside the allowed \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    func workers(_ node: Node, key: String) throws(ConfigurationError) -> Configuration.Workers {
        let range = Configuration.workerRange
        if case .scalar = node { return Configuration.Workers(all: try integer(node, key: key, in: range)) }
        guard let map = node.mapping else {
            throw error(node, key: key, "expected a number or a map of open, render, thumbnails, encode")
        }
        var workers = Configuration.Workers()
        for (stageNode, value) in map {
            let stage = stageNode.string ?? ""
            let count = try integer(value, key: "\(key).\(stage)", in: range)
            switch stage {
            case "open": workers.open = count
            case "render": workers.render = count
            case "thumbnails": workers.thumbnails = count
            case "encode": workers.encode = count
            default: throw error(stageNode, key: "\(key).\(stage)", "unknown stage; stages are open, render, thumbnails, encode")
            }
        }
        return workers
    }

    /// Named page sizes in points, portrait.
    static let pageSizes: [String: (Double, Double)] = [
        "a3": (842, 1191), "a4": (595, 842), "a5": (420, 595), "b5": (499, 709),
        "letter": (612, 792), "legal": (612, 1008), "tabloid": (792, 1224),
    ]

    func layout(_ node: Node, key: String) throws(ConfigurationError) -> ArticleLayout {
        guard let map = node.mapping else { throw error(node, key: key, "each layout is a map with at least a name, like `- name: portrait`") }
        guard let nameNode = map["name"] else { throw error(node, key: key, "a layout needs a name (letters, digits, - and _)") }
        let name = try string(nameNode, key: "\(key).name")
        guard ArticleLayout.isUsableName(name) else {
            throw error(nameNode, key: "\(key).name", "'\(name)' is not a usable layout name: use letters, digits, - and _ (it names a folder), and not 'thumbs'")
        }
        var layout = ArticleLayout(name: name)
        let prefix = "\(key).\(name)"
        var orientation = "portrait"
        var named = true
        // em and rem in insets and the column gap are the layout's font size, wherever in the
        // map font_size is written.
        if let sizeNode = map["font_size"] { layout.base.fontSize = try length(sizeNode, key: "\(prefix).font_size", in: 1...500) }
        let em = layout.base.fontSize
        for (keyNode, value) in map {
            let field = keyNode.string ?? ""
            let fieldKey = "\(prefix).\(field)"
            switch field {
            case "name": break
            case "page":
                if case .sequence = value {
                    let sides = try list(value, key: fieldKey)
                    guard sides.count == 2 else { throw error(value, key: fieldKey, "expected [width, height], each a length in points or with a unit (\(Self.lengthUnits)), like [210mm, 297mm]") }
                    layout.pageWidth = try length(sides[0], key: fieldKey, in: 36...14_400)
                    layout.pageHeight = try length(sides[1], key: fieldKey, in: 36...14_400)
                    named = false
                } else {
                    let size = try string(value, key: fieldKey).lowercased()
                    guard let sides = Self.pageSizes[size] else {
                        throw error(value, key: fieldKey, "unknown page size '\(size)'; use one of \(Self.pageSizes.keys.sorted().joined(separator: ", ")) or [width, height], in points or with a unit (\(Self.lengthUnits)), like [210mm, 297mm]")
                    }
                    (layout.pageWidth, layout.pageHeight) = sides
                }
            case "orientation":
                orientation = try string(value, key: fieldKey)
                guard orientation == "portrait" || orientation == "landscape" else {
                    throw error(value, key: fieldKey, "expected portrait or landscape, got '\(orientation)'")
                }
            case "columns": layout.columns = try integer(value, key: fieldKey, in: 1...12)
            case "column_gap": layout.columnGap = try length(value, key: fieldKey, in: 0...500, em: em)
            case "inset":
                if let sides = value.mapping {
                    var inset = layout.inset
                    for (sideNode, sideValue) in sides {
                        let side = sideNode.string ?? ""
                        let amount = try length(sideValue, key: "\(fieldKey).\(side)", in: 0...5000, em: em)
                        switch side {
                        case "top": inset.top = amount
                        case "right": inset.right = amount
                        case "bottom": inset.bottom = amount
                        case "left": inset.left = amount
                        default: throw error(sideNode, key: "\(fieldKey).\(side)", "unknown side; sides are top, right, bottom, left")
                        }
                    }
                    layout.inset = inset
                } else {
                    layout.inset = ArticleLayout.Insets(all: try length(value, key: fieldKey, in: 0...5000, em: em))
                }
            case "background", "color", "link_color":
                let text = try string(value, key: fieldKey)
                if field == "link_color" && text == "inherit" {
                    layout.base.linkColor = nil
                    break
                }
                guard let color = RGBColor(css: text) else {
                    throw error(value, key: fieldKey, "'\(text)' is not a colour; use #rgb, #rrggbb, rgb(r, g, b) or a CSS name")
                }
                switch field {
                case "background": layout.background = color
                case "color": layout.base.color = color
                default: layout.base.linkColor = color
                }
            case "link_underline": layout.base.linkUnderline = try boolean(value, key: fieldKey)
            case "folio":
                let text = try string(value, key: fieldKey)
                guard text == "none" || MarginBoxPosition(rawValue: text) != nil else {
                    throw error(value, key: fieldKey, "expected a margin box (\(MarginBoxPosition.allCases.map(\.rawValue).joined(separator: ", "))) or none, got '\(text)'")
                }
                layout.folio = MarginBoxPosition(rawValue: text)
            case "running_head":
                let text = try string(value, key: fieldKey).lowercased()
                guard text == "none" || (!text.isEmpty && text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })) else {
                    throw error(value, key: fieldKey, "expected an element name such as h1 or h2, or none, got '\(text)'")
                }
                layout.runningHead = text == "none" ? nil : text
            case "font_family":
                layout.base.fontFamily = try string(value, key: fieldKey)
                guard !layout.base.fontFamily.isEmpty else { throw error(value, key: fieldKey, "must not be empty") }
            case "font_size": break  // read above
            case "line_height": layout.base.lineHeight = try number(value, key: fieldKey, in: 0.5...5)
            case "language":
                let language = try string(value, key: fieldKey)
                layout.base.language = language.isEmpty ? nil : language
            case "justify_threshold": layout.typography.justifyThreshold = try number(value, key: fieldKey, in: 0...1)
            case "hyphenation": layout.base.hyphens = try boolean(value, key: fieldKey) ? .auto : .manual
            case "hyphenate_before": layout.typography.hyphenateBefore = try integer(value, key: fieldKey, in: 1...10)
            case "hyphenate_after": layout.typography.hyphenateAfter = try integer(value, key: fieldKey, in: 1...10)
            case "max_hyphenated_lines": layout.typography.maximumConsecutiveHyphens = try integer(value, key: fieldKey, in: 1...20)
            case "vertical": layout.writingMode = try boolean(value, key: fieldKey) ? .verticalRL : .horizontalTB
            case "text_autospace": layout.typography.textAutospace = try boolean(value, key: fieldKey)
            case "max_letter_spacing": layout.typography.maximumLetterSpacing = try number(value, key: fieldKey, in: 0...0.2)
            case "preformatted_marker":
                let text = try string(value, key: fieldKey)
                let scalars = Array(text.unicodeScalars)
                guard scalars.count <= 1 else { throw error(value, key: fieldKey, "expected one character (such as ↪) or \"\", got '\(text)'") }
                if let marker = scalars.first {
                    guard !marker.properties.isWhitespace, marker.properties.generalCategory != .control,
                          marker.properties.generalCategory != .format, marker.properties.generalCategory != .unassigned else {
                        throw error(value, key: fieldKey, String(format: "U+%04X cannot be seen; use a visible character such as ↪", marker.value))
                    }
                }
                layout.typography.continuationMarker = scalars.first
            case "column_fill":
                let text = try string(value, key: fieldKey)
                guard let fill = ArticleLayout.ColumnFill(rawValue: text) else {
                    throw error(value, key: fieldKey, "expected balance or auto, got '\(text)'")
                }
                layout.columnFill = fill
            case "pdf": break  // the configuration's, read by the caller (`Configuration.layoutPDF`)
            case "line_breaking":
                let text = try string(value, key: fieldKey)
                guard let mode = ArticleLayout.Typography.LineBreaking(rawValue: text) else {
                    throw error(value, key: fieldKey, "expected greedy or optimal, got '\(text)'")
                }
                layout.typography.lineBreaking = mode
            default:
                let known = ["name", "page", "orientation", "columns", "column_gap", "column_fill", "inset", "background", "color", "link_color", "link_underline", "font_family", "font_size", "line_height", "language", "justify_threshold", "hyphenation", "hyphenate_before", "hyphenate_after", "max_hyphenated_lines", "max_letter_spacing", "line_breaking", "vertical", "text_autospace", "preformatted_marker", "folio", "running_head", "pdf"]
                throw error(keyNode, key: fieldKey, Configuration.unknownKey(field, known: known, what: "layout key"))
            }
        }
        if orientation == "landscape" && named && layout.pageWidth < layout.pageHeight {
            (layout.pageWidth, layout.pageHeight) = (layout.pageHeight, layout.pageWidth)
        }
        if let problem = layout.problem { throw error(node, key: prefix, problem) }
        return layout
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
