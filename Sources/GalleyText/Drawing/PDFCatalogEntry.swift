/// Edits in place of a PDF that cairo wrote: an entry added to the document catalog, or
/// ranges of bytes replaced, with the cross-reference table kept pointing at every object.
///
/// cairo (1.16, Debian 12's; 1.18 too) has no way to set the catalog's `/Lang`, which screen
/// readers and text extraction use to pick a language, nor a link to a destination in another
/// file (`RemoteLink`). Written by hand because each edit is a few bytes in a file of a known
/// layout (`CairoPDFLayout`), where a PDF library (libqpdf, MuPDF's writer) would parse and
/// write the whole file cairo made again: the bytes are changed in place and the table's
/// offsets after them moved by what they added or took away, so the file stays one revision
/// with a valid table.
enum PDFCatalogEntry {
    /// `bytes` with `key value` added at the start of the catalog dictionary; nil when the
    /// file is not laid out as cairo writes it, or the catalog already has the key.
    static func adding(_ key: String, _ value: String, to bytes: [UInt8]) -> [UInt8]? {
        guard let layout = CairoPDFLayout(bytes),
              let root = layout.trailerReference("/Root", in: bytes),
              let catalogOffset = layout.offset(ofObject: root, in: bytes),
              let dictionary = CairoPDFLayout.firstIndex(of: Array("<<".utf8), in: bytes, from: catalogOffset),
              let objectEnd = CairoPDFLayout.firstIndex(of: Array("endobj".utf8), in: bytes, from: catalogOffset),
              dictionary < objectEnd,
              CairoPDFLayout.firstIndex(of: Array((key + " ").utf8), in: Array(bytes[dictionary..<objectEnd]), from: 0) == nil
        else { return nil }
        return replacing([(dictionary + 2..<dictionary + 2, Array(" \(key) \(value)".utf8))], in: bytes)
    }

    /// `bytes` with each range replaced by its bytes (ranges in order, apart, all before the
    /// cross-reference table), and the table's offsets of the objects after each moved by what
    /// it added or took away; nil when the file is not laid out as cairo writes it.
    static func replacing(_ edits: [(range: Range<Int>, bytes: [UInt8])], in bytes: [UInt8]) -> [UInt8]? {
        guard let layout = CairoPDFLayout(bytes), edits.allSatisfy({ $0.range.upperBound <= layout.xrefOffset }),
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
        for at in layout.entries.map(\.at) {
            let at = moved(at)
            guard let offset = Int(String(decoding: result[at..<at + 10], as: UTF8.self)), result[at + 17] == UInt8(ascii: "n") else { continue }
            result.replaceSubrange(at..<at + 10, with: Array(padded(moved(offset), to: 10).utf8))
        }
        // `startxref`'s number: where the table moved.
        let number = layout.startxrefNumber
        result.replaceSubrange(moved(number.start)..<moved(number.end), with: Array(String(moved(layout.xrefOffset)).utf8))
        return result
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
}
