import CGalleyHyphen
import CHyphen
import Foundation
import GalleyBase
import Glibc

/// Hyphenation points from libhyphen's pattern dictionaries (the ones LibreOffice uses,
/// Debian's `hyphen-*` packages), one dictionary per language, loaded on first use.
///
/// A dictionary is looked up by BCP 47 tag: `en-GB` tries `hyph_en_GB.dic`, then `hyph_en.dic`,
/// then the first `hyph_en_*.dic` in name order. Dictionaries in UTF-8 and in any single-byte
/// charset iconv knows (ISO 8859-x, KOI8-R…) are read; words a single-byte dictionary cannot
/// spell are left whole.
public final class Hyphenator: Sendable {
    /// Where Debian installs the dictionaries.
    public static let dictionaryFolder = "/usr/share/hyphen"

    /// One process-wide set, since dictionaries are immutable and large.
    public static let shared = Hyphenator(folder: dictionaryFolder)

    private let folder: String
    /// Dictionaries by tag, as asked for and lowercased with hyphens (each word of an article
    /// asks, so a tag seen before is found without normalising it again); nil when the
    /// language has none.
    private let dictionaries = Mutex<[String: Dictionary?]>([:])

    init(folder: String) {
        self.folder = folder
    }

    /// Whether words already joined by a hyphen are hyphenated further in `language`: customary
    /// in German, whose long compounds (`Paketverwaltungs-System`) would otherwise leave loose
    /// lines; in English, French and the rest a hyphenated word (`up-date-index`,
    /// `SQL-stan-dard`) reads as a misprint, so it breaks at its own hyphen only.
    public static func hyphenatesJoinedWords(_ language: String) -> Bool {
        ["de", "gsw"].contains(primarySubtag(language))
    }

    /// Whether `language` capitalises its nouns (German, Luxembourgish): a single word in
    /// lower case standing alone between quotation marks (`»preinst«`, `»orphaned«`) is then
    /// a name or a foreign word, not one of the language's nouns, and its patterns would cut
    /// it wrongly (`pr-einst`).
    public static func capitalisesNouns(_ language: String) -> Bool {
        ["de", "gsw", "lb"].contains(primarySubtag(language))
    }

    /// Languages written without hyphens (Chinese, Japanese, Korean, Thai, Lao, Khmer,
    /// Burmese, and Arabic, Persian, Urdu, Hebrew and Yiddish, whose words are not broken):
    /// a missing dictionary for them is no loss worth a warning.
    public static func writesWithoutHyphens(_ language: String) -> Bool {
        ["zh", "ja", "ko", "th", "lo", "km", "my", "ar", "fa", "ur", "he", "yi"].contains(primarySubtag(language))
    }

    /// `de` of `de-CH` or `de_CH`, lower-cased.
    private static func primarySubtag(_ language: String) -> String {
        language.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
    }

    /// Local offsets `i` (1 ≤ i < word.count) before which `word` may break with a hyphen,
    /// leaving at least `before` characters before and `after` after; nil when the language
    /// has no dictionary. `word` is letters only (the caller cuts words out of the text).
    func points(in word: ArraySlice<Unicode.Scalar>, language: String, before: Int, after: Int) -> [Int]? {
        guard let dictionary = dictionary(for: language) else { return nil }
        guard word.count >= before + after else { return [] }
        return dictionary.points(in: Array(word)).filter { $0 >= before && word.count - $0 >= after }
    }

    private func dictionary(for language: String) -> Dictionary? {
        if let known = dictionaries.withLock({ $0[language] }) { return known }
        let tag = language.lowercased().replacingOccurrences(of: "_", with: "-")
        if let known = dictionaries.withLock({ $0[tag] }) {
            dictionaries.withLock { $0[language] = .some(known) }
            return known
        }
        let loaded = candidates(for: tag).lazy.compactMap { Dictionary(path: $0) }.first
        return dictionaries.withLock { dictionaries in
            // Another thread may have loaded it meanwhile; keep one.
            let kept = dictionaries[tag] ?? loaded
            dictionaries[tag] = .some(kept)
            dictionaries[language] = .some(kept)
            return kept
        }
    }

    /// Dictionary files to try for a tag, most specific first.
    private func candidates(for tag: String) -> [String] {
        let parts = tag.split(separator: "-").map(String.init)
        guard let primary = parts.first, !primary.isEmpty, primary.allSatisfy({ $0.isLetter }) else { return [] }
        var names: [String] = []
        // A region subtag (two letters or three digits) after an optional script.
        if let region = parts.dropFirst().first(where: { $0.count == 2 || ($0.count == 3 && $0.allSatisfy(\.isNumber)) }) {
            names.append("hyph_\(primary)_\(region.uppercased()).dic")
        }
        names.append("hyph_\(primary).dic")
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasPrefix("hyph_\(primary)_") && $0.hasSuffix(".dic") }
            .sorted()
        return (names + others).map { folder + "/" + $0 }
    }

    /// A loaded libhyphen dictionary. libhyphen documents no thread safety, so every use goes
    /// through the mutex that owns the handle.
    private final class Dictionary: Sendable {
        private let handle: Mutex<Handle>
        private let isUTF8: Bool
        /// For a dictionary in a single-byte charset (ISO 8859-x, KOI8-R…): the byte of each
        /// character it can spell.
        private let bytes: [Unicode.Scalar: UInt8]

        private struct Handle: ~Copyable {
            let pointer: UnsafeMutablePointer<HyphenDict>
            deinit { hnj_hyphen_free(pointer) }
        }

        init?(path: String) {
            // Galley's loader (CGalleyHyphen), not hnj_hyphen_load: the same automaton, built
            // in linear time (libhyphen's took 7 s on Debian's German dictionary).
            guard FileManager.default.isReadableFile(atPath: path), let pointer = galley_hyphen_load(path) else { return nil }
            let charset = withUnsafeBytes(of: pointer.pointee.cset) { bytes in
                String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            isUTF8 = pointer.pointee.utf8 != 0
            if isUTF8 {
                bytes = [:]
            } else if let table = Self.singleByteTable(charset) {
                bytes = table
            } else {
                hnj_hyphen_free(pointer)
                return nil
            }
            handle = Mutex(Handle(pointer: pointer))
        }

        /// What each byte 0x20–0xFF means in `charset`, through iconv; nil when iconv does not
        /// know the charset.
        private static func singleByteTable(_ charset: String) -> [Unicode.Scalar: UInt8]? {
            guard let converter = CharsetConverter(from: charset, to: "UTF-32LE") else { return nil }
            var table: [Unicode.Scalar: UInt8] = [:]
            for byte in UInt8(0x20)...UInt8(0xFF) {
                // One UTF-32 character exactly: a byte iconv makes none or two of is left out.
                guard let output = converter.convertFromInitialState([byte], outputCapacity: 8), output.count == 4 else { continue }
                let code = output.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }  // Little-endian.
                if let scalar = Unicode.Scalar(code) { table[scalar] = byte }
            }
            return table
        }

        /// Offsets before which the dictionary allows a hyphen (standard hyphenation only: the
        /// replacements some dictionaries give for old spellings are not applied).
        func points(in word: [Unicode.Scalar]) -> [Int] {
            // Dictionaries hold lowercase patterns; a letter whose lowercase is not one
            // character (rare) leaves the word whole, so offsets stay one per character.
            var bytes: [CChar] = []
            var lastByte: [Int] = []
            bytes.reserveCapacity(word.count * 2)
            lastByte.reserveCapacity(word.count)
            for scalar in word {
                let letter: Unicode.Scalar
                if scalar.isASCII {
                    letter = ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
                } else {
                    let lower = scalar.properties.lowercaseMapping.unicodeScalars
                    guard lower.count == 1, let first = lower.first else { return [] }
                    letter = first
                }
                if isUTF8 {
                    UTF8.encode(letter) { bytes.append(CChar(bitPattern: $0)) }
                } else {
                    guard let byte = self.bytes[letter] else { return [] }
                    bytes.append(CChar(bitPattern: byte))
                }
                lastByte.append(bytes.count - 1)
            }
            let lastBytes = lastByte
            let length = bytes.count
            // libhyphen looks for patterns in the word with strstr, so it reads up to a NUL.
            let word = bytes + [0]
            return handle.withLock { handle -> [Int] in
                var hyphens = [CChar](repeating: 0, count: length + 5)
                var rep: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
                var pos: UnsafeMutablePointer<Int32>?
                var cut: UnsafeMutablePointer<Int32>?
                let status = hnj_hyphen_hyphenate2(handle.pointer, word, Int32(length), &hyphens, nil, &rep, &pos, &cut)
                defer {
                    if let rep {
                        for i in 0..<length { free(rep[i]) }
                        free(rep)
                    }
                    free(pos)
                    free(cut)
                }
                guard status == 0 else { return [] }
                var points: [Int] = []
                for (index, byte) in lastBytes.enumerated().dropLast() where hyphens[byte] & 1 == 1 {
                    // A point with a replacement (German "ck" → "k-k" and the like) is skipped.
                    if let rep, rep[byte] != nil { continue }
                    points.append(index + 1)
                }
                return points
            }
        }
    }
}
