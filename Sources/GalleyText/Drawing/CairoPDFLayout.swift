/// Where things are in a PDF as cairo writes it: one revision, a classic cross-reference table
/// (`xref`, subsections of 20-byte entries, `trailer`, `startxref`). Read by hand for the two
/// edits Galley makes to cairo's files (`PDFCatalogEntry`, `PDFObjectStreams`); a file laid
/// out any other way gives nil, and the edit leaves it alone.
struct CairoPDFLayout {
    /// A table entry: its object number and where its 10 offset digits start.
    struct Entry {
        var object: Int
        var at: Int
    }

    /// Where `xref` starts, and where the number after `startxref` lies.
    var xrefOffset: Int
    var startxrefNumber: (start: Int, end: Int)
    var entries: [Entry]
    /// Where `trailer` starts.
    var trailerAt: Int
    /// The trailer's `/Size`.
    var size: Int

    init?(_ bytes: [UInt8]) {
        guard let startxrefAt = Self.lastIndex(of: Array("startxref".utf8), in: bytes, before: bytes.count),
              let xref = Self.number(in: bytes, from: startxrefAt + 9),
              xref.value < bytes.count, bytes[xref.value...].starts(with: Array("xref".utf8)) else { return nil }
        var position = xref.value + 4
        var entries: [Entry] = []
        while let first = Self.number(in: bytes, from: position), let count = Self.number(in: bytes, from: first.end) {
            var at = count.end
            while at < bytes.count, bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x20 { at += 1 }
            guard at + count.value * 20 <= bytes.count else { return nil }
            for index in 0..<count.value { entries.append(Entry(object: first.value + index, at: at + index * 20)) }
            position = at + count.value * 20
        }
        guard bytes[position...].starts(with: Array("trailer".utf8)),
              let sizeAt = Self.firstIndex(of: Array("/Size".utf8), in: bytes, from: position),
              sizeAt < startxrefAt, let size = Self.number(in: bytes, from: sizeAt + 5) else { return nil }
        self.xrefOffset = xref.value
        self.startxrefNumber = (xref.start, xref.end)
        self.entries = entries
        self.trailerAt = position
        self.size = size.value
    }

    /// The offset an entry in use (`n`) gives; nil for a free one.
    func inUseOffset(of entry: Entry, in bytes: [UInt8]) -> Int? {
        guard bytes[entry.at + 17] == UInt8(ascii: "n") else { return nil }
        return Int(String(decoding: bytes[entry.at..<entry.at + 10], as: UTF8.self))
    }

    /// An entry's generation number.
    func generation(of entry: Entry, in bytes: [UInt8]) -> Int? {
        Int(String(decoding: bytes[entry.at + 11..<entry.at + 16], as: UTF8.self))
    }

    /// The offset of object `number`, from the table.
    func offset(ofObject number: Int, in bytes: [UInt8]) -> Int? {
        entries.first { $0.object == number }.flatMap { inUseOffset(of: $0, in: bytes) }
    }

    /// The object number of trailer entry `key` (`/Root 61 0 R` gives 61).
    func trailerReference(_ key: String, in bytes: [UInt8]) -> Int? {
        guard let keyAt = Self.firstIndex(of: Array(key.utf8), in: bytes, from: trailerAt),
              keyAt < startxrefNumber.start else { return nil }
        return Self.number(in: bytes, from: keyAt + key.utf8.count)?.value
    }

    /// The trailer dictionary's entries as text, without `key` and its value (a number).
    func trailerEntries(in bytes: [UInt8], without key: String) -> String? {
        guard let open = Self.firstIndex(of: Array("<<".utf8), in: bytes, from: trailerAt),
              let close = Self.lastIndex(of: Array(">>".utf8), in: bytes, before: startxrefNumber.start),
              open < close else { return nil }
        var text = Array(bytes[(open + 2)..<close])
        if let keyAt = Self.firstIndex(of: Array(key.utf8), in: text, from: 0),
           let value = Self.number(in: text, from: keyAt + key.utf8.count) {
            text.removeSubrange(keyAt..<value.end)
        }
        return String(decoding: Self.trimmed(text[...]), as: UTF8.self)
    }

    /// Where the header `number 0 obj` at `offset` ends, or nil when it is not there.
    static func objectHeaderEnd(number: Int, in bytes: [UInt8], at offset: Int) -> Int? {
        let header = Array("\(number) 0 obj".utf8)
        guard offset + header.count <= bytes.count, bytes[offset..<offset + header.count].elementsEqual(header) else { return nil }
        return offset + header.count
    }

    /// The decimal number after white space from `index`: its value and where its digits lie.
    static func number(in bytes: [UInt8], from index: Int) -> (value: Int, start: Int, end: Int)? {
        var at = index
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D { at += 1 }
        let start = at
        var value = 0
        while at < bytes.count, (0x30...0x39).contains(bytes[at]), at - start < 12 {
            value = value * 10 + Int(bytes[at] - 0x30)
            at += 1
        }
        return at > start ? (value, start, at) : nil
    }

    /// `bytes` without white space at either end.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return [] }
        return bytes[first...last]
    }

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0] && bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// The last place `needle` starts that ends at or before `end`.
    static func lastIndex(of needle: [UInt8], in bytes: [UInt8], before end: Int) -> Int? {
        guard !needle.isEmpty, end >= needle.count else { return nil }
        var index = min(end, bytes.count) - needle.count
        while index >= 0 {
            if bytes[index] == needle[0] && bytes[index..<index + needle.count].elementsEqual(needle) { return index }
            index -= 1
        }
        return nil
    }
}
