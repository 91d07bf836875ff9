import Foundation

/// Turns article bytes into UTF-8, which is what gumbo reads.
package enum TextDecoding {
    struct Decoded {
        var utf8: [UInt8]
        var warnings: [String] = []
    }

    /// HTML: byte order mark, else the declared charset (unless the bytes are valid UTF-8
    /// with non-ASCII characters), else UTF-8.
    static func decode(html bytes: [UInt8]) -> Decoded {
        if let mark = byteOrderMark(bytes) {
            return convert(bytes[mark.length...], iconvNames: [mark.encoding], label: mark.encoding)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return utf8(bytes[3...]) }
        guard let label = declaredCharset(bytes) else { return utf8(bytes[...]) }
        if utf8Labels.contains(label) { return utf8(bytes[...]) }
        // Pages saved from a server that sent UTF-8 often keep a stale `<meta>`; text in a
        // legacy charset with non-ASCII bytes is practically never valid UTF-8.
        if bytes.contains(where: { $0 >= 0x80 }), String(validating: bytes, as: UTF8.self) != nil {
            return Decoded(utf8: bytes, warnings: ["charset \"\(label)\" declared but the bytes are UTF-8; read as UTF-8"])
        }
        let names = iconvNames[label] ?? [label.uppercased()]
        return convert(bytes[...], iconvNames: names, label: label)
    }

    /// Plain text: byte order mark, else UTF-8.
    static func decode(plainText bytes: [UInt8]) -> Decoded {
        if let mark = byteOrderMark(bytes) {
            return convert(bytes[mark.length...], iconvNames: [mark.encoding], label: mark.encoding)
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return utf8(bytes[3...]) }
        return utf8(bytes[...])
    }

    /// UTF-32 and UTF-16 byte order marks (UTF-8's is handled by the callers). UTF-32's come
    /// first: UTF-32LE's mark, FF FE 00 00, starts like UTF-16LE's.
    package static func byteOrderMark(_ bytes: some Collection<UInt8>) -> (length: Int, encoding: String)? {
        if bytes.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (4, "UTF-32LE") }
        if bytes.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (4, "UTF-32BE") }
        if bytes.starts(with: [0xFF, 0xFE]) { return (2, "UTF-16LE") }
        if bytes.starts(with: [0xFE, 0xFF]) { return (2, "UTF-16BE") }
        return nil
    }

    private static func utf8(_ bytes: ArraySlice<UInt8>) -> Decoded {
        if String(validating: bytes, as: UTF8.self) != nil {
            return Decoded(utf8: Array(bytes))
        }
        return Decoded(utf8: Array(String(decoding: bytes, as: UTF8.self).utf8),
                       warnings: ["invalid UTF-8 sequences replaced by U+FFFD"])
    }

    /// WHATWG labels that mean UTF-8, and the UTF-16 ones, which a `<meta>` readable as ASCII
    /// cannot truly mean (the HTML standard treats them as UTF-8).
    private static let utf8Labels: Set<String> = [
        "utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8",
        "utf-16", "utf-16le", "utf-16be", "unicode", "ucs-2", "unicodefffe",
    ]

    /// WHATWG encoding labels and the glibc iconv names that decode them (the first that
    /// opens is used); supersets where the web uses them (windows-1252 for Latin-1, CP932
    /// for Shift_JIS, GB18030 for GBK and GB2312, Big5-HKSCS for Big5, CP949 for EUC-KR).
    /// Other labels go to iconv as they are.
    private static let iconvNames: [String: [String]] = {
        var table: [String: [String]] = [:]
        func add(_ labels: String, _ names: [String]) {
            for label in labels.split(separator: " ") { table[String(label)] = names }
        }
        add("""
            ansi_x3.4-1968 ascii cp1252 cp819 csisolatin1 ibm819 iso-8859-1 iso-ir-100 iso8859-1 iso88591 \
            iso_8859-1 iso_8859-1:1987 l1 latin1 us-ascii windows-1252 x-cp1252 x-user-defined
            """, ["CP1252"])
        add("csshiftjis ms932 ms_kanji shift-jis shift_jis sjis windows-31j x-sjis", ["CP932", "SHIFT_JIS"])
        add("cseucpkdfmtjapanese euc-jp x-euc-jp", ["EUC-JP-MS", "EUC-JP"])
        add("csiso2022jp iso-2022-jp", ["ISO-2022-JP"])
        add("""
            chinese csgb2312 csiso58gb231280 gb2312 gb_2312 gb_2312-80 gbk iso-ir-58 x-gbk gb18030 \
            cp936 ms936 windows-936
            """, ["GB18030", "GBK"])
        add("big5 big5-hkscs cn-big5 csbig5 x-x-big5", ["BIG5-HKSCS", "BIG5"])
        add("""
            cseuckr csksc56011987 euc-kr iso-ir-149 korean ks_c_5601-1987 ks_c_5601-1989 ksc5601 ksc_5601 \
            windows-949
            """, ["CP949", "EUC-KR"])
        add("dos-874 iso-8859-11 iso8859-11 iso885911 tis-620 windows-874", ["CP874"])
        add("iso-8859-9 iso8859-9 iso88599 latin5 l5 windows-1254", ["CP1254"])
        add("x-mac-cyrillic x-mac-ukrainian", ["MAC-CYRILLIC"])
        add("macintosh mac csmacintosh x-mac-roman", ["MACINTOSH"])
        return table
    }()

    /// The charset named by an XML declaration or a `<meta>` in the first 4 KB, lower-cased.
    static func declaredCharset(_ bytes: [UInt8]) -> String? {
        let head = bytes.prefix(4096).map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }[...]
        if head.starts(with: Array("<?xml".utf8)), let end = find(Array("?>".utf8), in: head, from: 0),
           let label = value(after: Array("encoding".utf8), in: head[..<end]) {
            return label
        }
        var from = 0
        while let meta = find(Array("<meta".utf8), in: head, from: from) {
            let end = find([UInt8(ascii: ">")], in: head, from: meta) ?? head.count
            if let label = value(after: Array("charset".utf8), in: head[meta..<end]) { return label }
            from = end
        }
        return nil
    }

    /// The value of `name = value` (quotes optional) in `text`, trying each occurrence of `name`.
    private static func value(after name: [UInt8], in text: ArraySlice<UInt8>) -> String? {
        var from = text.startIndex
        while let found = find(name, in: text, from: from) {
            var i = found + name.count
            from = i
            while i < text.endIndex, text[i].isHTMLWhitespace { i += 1 }
            guard i < text.endIndex, text[i] == UInt8(ascii: "=") else { continue }
            i += 1
            while i < text.endIndex, text[i].isHTMLWhitespace || text[i] == UInt8(ascii: "\"") || text[i] == UInt8(ascii: "'") {
                i += 1
            }
            let start = i
            while i < text.endIndex, isLabelByte(text[i]) { i += 1 }
            if i > start { return String(decoding: text[start..<i], as: UTF8.self) }
        }
        return nil
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x5F
            || byte == 0x2E || byte == 0x3A
    }

    /// The index of the first `needle` in `haystack` at or after `start`.
    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>, from start: Int) -> Int? {
        guard !needle.isEmpty else { return nil }
        var i = max(haystack.startIndex, start)
        while i + needle.count <= haystack.endIndex {
            if haystack[i] == needle[0] && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }

    /// Converts with the first iconv name that opens; falls back to UTF-8 when none does.
    /// Each invalid byte becomes U+FFFD (the conversion resumes at the next byte), as does a
    /// truncated sequence at the end.
    private static func convert(_ bytes: ArraySlice<UInt8>, iconvNames names: [String], label: String) -> Decoded {
        for name in names {
            if let converter = CharsetConverter(from: name, to: "UTF-8") {
                let converted = converter.convert(bytes, replacingInvalidWith: Array("\u{FFFD}".utf8))
                var decoded = Decoded(utf8: converted.output)
                if converted.invalid > 0 {
                    decoded.warnings.append("\(converted.invalid) byte sequences invalid in \(label) replaced by U+FFFD")
                }
                return decoded
            }
        }
        var decoded = utf8(bytes)
        decoded.warnings.insert("charset \"\(label)\" not supported; read as UTF-8", at: 0)
        return decoded
    }
}
