import Foundation

// Why by hand: encoding a whole manifest (or a document's catalog entry) at once holds it about
// four times over (Foundation's value tree, its output buffer, the `Data`, the copy): 6 MB at the
// end of a 3,000-page run, so a run's peak memory grew with its page count. Here an object is
// encoded without its long array, each element alone, and the pieces are spliced where the
// empty array is, re-indented as Foundation indents them. JSON strings hold no raw line break,
// so re-indenting line by line cannot touch a value. `ManifestPiecesTests` checks the bytes
// against Foundation's encoding of the whole.

extension Manifest {
    /// Writes exactly the bytes of `encoded()`, a page at a time.
    public func write(to sink: ([UInt8]) throws -> Void) throws {
        let encoder = Self.encoder(pretty: true)
        var shell = self
        shell.documents = []
        try JSONPieces.splice(Array(try encoder.encode(shell)), key: "documents", pretty: true, indent: 0, elements: documents,
                              sink: sink) { document, indent in
            var documentShell = document
            documentShell.pages = []
            try JSONPieces.splice(Array(try encoder.encode(documentShell)), key: "pages", pretty: true, indent: indent,
                                  elements: document.pages, sink: sink) { page, indent in
                try sink(JSONPieces.indented(Array(try encoder.encode(page)), by: indent))
            }
        }
        try sink([0x0A])
    }
}

extension Manifest.Document {
    /// One document's manifest entry as JSON, as the catalog keeps it: the bytes of
    /// `Manifest.encoder(pretty: false)`, encoded a page at a time.
    package func encodedEntry() throws -> [UInt8] {
        let encoder = Manifest.encoder(pretty: false)
        var shell = self
        shell.pages = []
        var bytes: [UInt8] = []
        try JSONPieces.splice(Array(try encoder.encode(shell)), key: "pages", pretty: false, indent: 0, elements: pages,
                              sink: { bytes += $0 }) { page, _ in bytes += Array(try encoder.encode(page)) }
        return bytes
    }
}

enum JSONPieces {
    /// Writes `shell` (an object encoded alone, to be placed `indent` spaces in when `pretty`)
    /// with the elements `write` writes in place of the empty array under its key `key`.
    static func splice<Element>(_ shell: [UInt8], key: String, pretty: Bool, indent: Int, elements: [Element],
                                sink: ([UInt8]) throws -> Void, write: (Element, Int) throws -> Void) throws {
        guard !elements.isEmpty, let empty = emptyArray(under: key, in: shell) else {
            try sink(indented(shell, by: indent))
            return
        }
        try sink(indented(Array(shell[...empty.lowerBound]), by: indent) + (pretty ? [0x0A] : []))
        for (index, element) in elements.enumerated() {
            if index > 0 { try sink(pretty ? [UInt8(ascii: ","), 0x0A] : [UInt8(ascii: ",")]) }
            try write(element, indent + 4)
        }
        try sink((pretty ? [0x0A] + [UInt8](repeating: 0x20, count: indent + 2) : []) + [UInt8(ascii: "]")])
        try sink(indented(Array(shell[empty.upperBound...]), by: indent, firstLine: false))
    }

    /// The range of the empty array (`[` to `]`, white space between) that is the value of key
    /// `key` of the outermost object of `json`; nil when there is none. Strings are skipped
    /// whole, so a value that spells the key does not count, nor does a key of a nested object.
    static func emptyArray(under key: String, in json: [UInt8]) -> Range<Int>? {
        let quoted = Array("\"\(key)\"".utf8)
        var depth = 0
        var index = 0
        while index < json.count {
            let byte = json[index]
            if byte == UInt8(ascii: "\"") {
                if depth == 1, json.count - index >= quoted.count, json[index..<(index + quoted.count)].elementsEqual(quoted) {
                    var cursor = index + quoted.count
                    cursor = skipSpace(json, from: cursor)
                    if cursor < json.count, json[cursor] == UInt8(ascii: ":") {
                        let open = skipSpace(json, from: cursor + 1)
                        if open < json.count, json[open] == UInt8(ascii: "[") {
                            let close = skipSpace(json, from: open + 1)
                            if close < json.count, json[close] == UInt8(ascii: "]") { return open..<(close + 1) }
                        }
                    }
                }
                index += 1
                while index < json.count, json[index] != UInt8(ascii: "\"") {
                    index += json[index] == UInt8(ascii: "\\") ? 2 : 1
                }
            } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
            }
            index += 1
        }
        return nil
    }

    private static func skipSpace(_ json: [UInt8], from start: Int) -> Int {
        var index = start
        while index < json.count, [0x20, 0x0A, 0x0D, 0x09].contains(json[index]) { index += 1 }
        return index
    }

    /// `text` with `count` spaces before each of its lines (but the first when `firstLine` is
    /// false: it continues a line already written); empty lines stay empty, as Foundation
    /// writes the inside of an empty array.
    static func indented(_ text: [UInt8], by count: Int, firstLine: Bool = true) -> [UInt8] {
        guard count > 0 else { return text }
        let spaces = [UInt8](repeating: 0x20, count: count)
        var out: [UInt8] = []
        out.reserveCapacity(text.count + text.count / 8)
        var atLineStart = firstLine
        for byte in text {
            if atLineStart && byte != 0x0A { out += spaces }
            out.append(byte)
            atLineStart = byte == 0x0A
        }
        return out
    }
}
