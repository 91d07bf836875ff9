/// Adds an entry to the document catalog of a PDF that cairo wrote.
///
/// cairo (1.16, Debian 12's; 1.18 too) has no way to set the catalog's `/Lang`, which screen
/// readers and text extraction use to pick a language. Written by hand because the edit is a
/// few bytes in a file of a known layout (`CairoPDFLayout`), where a PDF library (libqpdf,
/// MuPDF's writer) would parse and write the whole file cairo made again: the entry is
/// inserted into the catalog's dictionary in place and the cross-reference table's offsets
/// after it are moved by its length, so the file stays one revision with a valid table.
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
        let inserted = Array(" \(key) \(value)".utf8)
        var result = Array(bytes[..<(dictionary + 2)]) + inserted + Array(bytes[(dictionary + 2)...])
        let delta = inserted.count
        for entry in layout.entries {
            let at = entry.at > dictionary ? entry.at + delta : entry.at
            guard let offset = Int(String(decoding: result[at..<at + 10], as: UTF8.self)), offset > dictionary,
                  result[at + 17] == UInt8(ascii: "n") else { continue }
            result.replaceSubrange(at..<at + 10, with: Array(padded(offset + delta, to: 10).utf8))
        }
        // `startxref`'s number: the table moved by `delta`.
        let number = layout.startxrefNumber
        result.replaceSubrange((number.start + delta)..<(number.end + delta), with: Array(String(layout.xrefOffset + delta).utf8))
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
