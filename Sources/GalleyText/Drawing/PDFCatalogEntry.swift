/// Adds an entry to the document catalog of a PDF that cairo wrote.
///
/// cairo (1.16, Debian 12's; 1.18 too) has no way to set the catalog's `/Lang`, which screen
/// readers and text extraction use to pick a language. Written by hand because no library on
/// the machine edits a PDF's objects short of MuPDF's PDF writer, which would rewrite the
/// whole file cairo made: the entry is inserted into the catalog's dictionary in place and the
/// cross-reference table's offsets after it are moved by its length, so the file stays one
/// revision with a valid table (no incremental update section). cairo writes a classic
/// table (`xref`, 20-byte entries, `trailer`, `startxref`); anything else is left alone (nil).
enum PDFCatalogEntry {
    /// `bytes` with `key value` added at the start of the catalog dictionary; nil when the
    /// file is not laid out as cairo writes it, or the catalog already has the key.
    static func adding(_ key: String, _ value: String, to bytes: [UInt8]) -> [UInt8]? {
        guard let table = CrossReferences(bytes),
              let rootAt = firstIndex(of: Array("/Root".utf8), in: bytes, from: table.trailer),
              let root = number(in: bytes, from: rootAt + 5)?.value,
              let catalogOffset = table.offset(of: root, in: bytes),
              let dictionary = firstIndex(of: Array("<<".utf8), in: bytes, from: catalogOffset),
              let objectEnd = firstIndex(of: Array("endobj".utf8), in: bytes, from: catalogOffset),
              dictionary < objectEnd,
              firstIndex(of: Array((key + " ").utf8), in: Array(bytes[dictionary..<objectEnd]), from: 0) == nil
        else { return nil }
        return replacing([(dictionary + 2..<dictionary + 2, Array(" \(key) \(value)".utf8))], in: bytes)
    }

    /// `bytes` with each range replaced by its bytes (ranges in order, apart, all before the
    /// cross-reference table), and the table's offsets of the objects after each moved by what
    /// it added or took away; nil when the file is not laid out as cairo writes it.
    static func replacing(_ edits: [(range: Range<Int>, bytes: [UInt8])], in bytes: [UInt8]) -> [UInt8]? {
        guard let table = CrossReferences(bytes), edits.allSatisfy({ $0.range.upperBound <= table.start }),
              zip(edits, edits.dropFirst()).allSatisfy({ $0.range.upperBound <= $1.range.lowerBound }) else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        for edit in edits {
            result += bytes[copied..<edit.range.lowerBound]
            result += edit.bytes
            copied = edit.range.upperBound
        }
        result += bytes[copied...]
        /// How far an offset in `bytes` moved: by every edit before it.
        func moved(_ offset: Int) -> Int {
            offset + edits.reduce(0) { $0 + ($1.range.lowerBound < offset ? $1.bytes.count - $1.range.count : 0) }
        }
        for at in table.entries.map(\.at) {
            let at = moved(at)
            guard let offset = Int(String(decoding: result[at..<at + 10], as: UTF8.self)), result[at + 17] == UInt8(ascii: "n") else { continue }
            result.replaceSubrange(at..<at + 10, with: Array(padded(moved(offset), to: 10).utf8))
        }
        // `startxref`'s number: where the table moved.
        guard let number = number(in: result, from: moved(table.startxref) + 9) else { return nil }
        result.replaceSubrange(number.start..<number.end, with: Array(String(moved(table.start)).utf8))
        return result
    }

    /// The classic cross-reference table cairo writes (`xref`, subsections of 20-byte
    /// entries, `trailer`, `startxref`).
    private struct CrossReferences {
        /// Where `startxref`, the table and its trailer begin.
        var startxref: Int
        var start: Int
        var trailer: Int
        /// Each entry's object and where its ten offset digits are.
        var entries: [(object: Int, at: Int)] = []

        init?(_ bytes: [UInt8]) {
            guard let startxrefAt = PDFCatalogEntry.lastIndex(of: Array("startxref".utf8), in: bytes),
                  let xrefOffset = PDFCatalogEntry.number(in: bytes, from: startxrefAt + 9)?.value,
                  xrefOffset < bytes.count, bytes[xrefOffset...].starts(with: Array("xref".utf8)) else { return nil }
            (startxref, start) = (startxrefAt, xrefOffset)
            var position = xrefOffset + 4
            while let first = PDFCatalogEntry.number(in: bytes, from: position), let count = PDFCatalogEntry.number(in: bytes, from: first.end) {
                var at = count.end
                while at < bytes.count, bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x20 { at += 1 }
                guard at + count.value * 20 <= bytes.count else { return nil }
                for index in 0..<count.value { entries.append((first.value + index, at + index * 20)) }
                position = at + count.value * 20
            }
            guard bytes[position...].starts(with: Array("trailer".utf8)) else { return nil }
            trailer = position
        }

        /// Where object `object` begins.
        func offset(of object: Int, in bytes: [UInt8]) -> Int? {
            guard let entry = entries.first(where: { $0.object == object }) else { return nil }
            return Int(String(decoding: bytes[entry.at..<entry.at + 10], as: UTF8.self))
        }
    }

    /// A PDF literal string for a language tag (BCP 47: letters, digits, hyphens); nil for a
    /// value that is not one.
    static func string(_ language: String) -> String? {
        let valid = !language.isEmpty && language.count <= 35
            && language.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
        return valid ? "(\(language))" : nil
    }

    static func adding(_ key: String, _ value: String?, to bytes: [UInt8]) -> [UInt8]? {
        value.flatMap { adding(key, $0, to: bytes) }
    }

    private static func padded(_ value: Int, to width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
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

    static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index] == needle[0] && bytes[index..<index + needle.count].elementsEqual(needle) {
            return index
        }
        return nil
    }

    static func lastIndex(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        for index in stride(from: bytes.count - needle.count, through: 0, by: -1) where bytes[index..<index + needle.count].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
