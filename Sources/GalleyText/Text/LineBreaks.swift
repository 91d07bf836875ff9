import CUnibreak

/// Line break opportunities by UAX #14, from libunibreak.
enum LineBreaks {
    /// Whether a line may, must or must not end after each scalar.
    enum Opportunity: UInt8 {
        case mandatory, allowed, prohibited
        /// Allowed, and a line that ends here shows a hyphen: a soft hyphen, or a point of
        /// the hyphenation dictionary.
        case hyphen
        /// Allowed only to spare a line from being left loose: a point inside code in running
        /// text (before a `.` between names, after `(`, `,`, `/`, `_`…), where the line ends
        /// without a hyphen and the code's characters are unchanged
        /// (`ParagraphAnalysis.markCodeBreaks`).
        case code
    }

    private static let initialized: Bool = {
        init_linebreak()
        return true
    }()

    /// Opportunities after each character of `codes` (one paragraph, as UTF-32), for
    /// `language` (libunibreak tailors a few languages: Chinese and Japanese quotation marks,
    /// for example).
    static func opportunities(_ codes: [UInt32], language: String?) -> [Opportunity] {
        precondition(initialized)
        guard !codes.isEmpty else { return [] }
        var breaks = [CChar](repeating: 0, count: codes.count)
        let languageCode = language.map(libunibreakLanguage)
        libunibreakInput(codes).withUnsafeBufferPointer { input in
            breaks.withUnsafeMutableBufferPointer { output in
                if let languageCode {
                    languageCode.withCString { set_linebreaks_utf32(input.baseAddress, input.count, $0, output.baseAddress) }
                } else {
                    set_linebreaks_utf32(input.baseAddress, input.count, nil, output.baseAddress)
                }
            }
        }
        return breaks.map { value in
            switch Int32(value) {
            case LINEBREAK_MUSTBREAK: .mandatory
            case LINEBREAK_ALLOWBREAK: .allowed
            default: .prohibited
            }
        }
    }

    /// Applies CSS `line-break` to libunibreak's opportunities (after each of `codes`), which
    /// are UAX #14's with class CJ (small kana, the prolonged sound mark) taken as ID, so lines
    /// may start with them (`normal`). `clusterStart[i]` says whether scalar `i` starts a
    /// cluster (`anywhere` never breaks inside one). `language` decides the Chinese and
    /// Japanese tailorings of `normal` and `loose`.
    ///
    /// Written here because libunibreak has no `line-break` levels: the classes come from
    /// Unicode's LineBreak.txt (CJ) and the lists from CSS Text 3.
    static func tailor(_ breaks: inout [Opportunity], codes: ArraySlice<UInt32>, level: LineBreakStrictness, language: String?,
                       clusterStart: [Bool]) {
        guard breaks.count > 1 else { return }
        let start = codes.startIndex
        let chineseOrJapanese = language.map { ["ja", "zh"].contains($0.lowercased().prefix(2)) } ?? false
        for i in 0..<(breaks.count - 1) where breaks[i] != .mandatory {
            let next = codes[start + i + 1]
            switch level {
            case .auto, .strict:
                if breaks[i] == .allowed && isConditionalJapaneseStarter(next) { breaks[i] = .prohibited }
            case .normal, .loose:
                guard chineseOrJapanese, breaks[i] == .prohibited, clusterStart[i + 1], isIdeographic(codes[start + i]) else { continue }
                if [0x301C, 0x30A0, 0x2013].contains(next) || (level == .loose && isLooseStarter(next)) { breaks[i] = .allowed }
            case .anywhere:
                if breaks[i] == .prohibited && clusterStart[i + 1] { breaks[i] = .allowed }
            }
        }
    }

    /// Line breaking class CJ (LineBreak.txt, Unicode 15): small hiragana and katakana, their
    /// halfwidth forms and the prolonged sound mark.
    static func isConditionalJapaneseStarter(_ code: UInt32) -> Bool {
        switch code {
        case 0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3063, 0x3083, 0x3085, 0x3087, 0x308E, 0x3095, 0x3096,
             0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30C3, 0x30E3, 0x30E5, 0x30E7, 0x30EE, 0x30F5, 0x30F6, 0x30FC,
             0x31F0...0x31FF, 0xFF67...0xFF70, 0x1B132, 0x1B155, 0x1B164...0x1B167:
            true
        default:
            false
        }
    }

    /// What `loose` lets start a line in Chinese and Japanese: iteration marks, centred
    /// punctuation and ellipses.
    private static func isLooseStarter(_ code: UInt32) -> Bool {
        [0x3005, 0x303B, 0x309D, 0x309E, 0x30FD, 0x30FE, 0x30FB, 0xFF1A, 0xFF1B, 0xFF65, 0x203C, 0x2047, 0x2048, 0x2049,
         0xFF01, 0xFF1F, 0x2025, 0x2026].contains(code)
    }

    /// Kana and ideographs: what a Chinese or Japanese tailoring may break after.
    private static func isIdeographic(_ code: UInt32) -> Bool {
        (0x3040...0x30FF).contains(code) || (0x3400...0x4DBF).contains(code) || (0x4E00...0x9FFF).contains(code)
            || (0xF900...0xFAFF).contains(code) || (0x20000...0x3FFFF).contains(code)
    }

    /// `codes` as libunibreak 1.1 (Debian 12's) can take them: its `set_linebreaks` aborts the
    /// process (an `assert`, compiled in) on two kinds of valid text, so those characters are
    /// given to it as U+FFFE, a noncharacter it classes XX and, like every XX, breaks as AL.
    ///
    /// - U+FFFF: its end-of-string marker is `EOS = 0xFFFF` (`linebreakdef.h`), so the
    ///   noncharacter ends the loop one character early and `posLast == posCur - 1 &&
    ///   posCur <= len` fails (linebreak.c:693). U+FFFF is XX as well: its breaks are unchanged.
    ///   Upstream moved `EOS` to 0xFFFFFFFF in 3.0 (commit 6dc4b2a).
    /// - Regional indicators (U+1F1E6...U+1F1FF, the letters of flags): their class RI has a
    ///   row in the pair table but fails `assert(lbcNew <= LBP_JT)` (linebreak.c:663; upstream
    ///   8e278bd, after 1.1, extends it to RI). As AL, a flag still never breaks inside (AL × AL
    ///   as RI × RI); one written against letters, digits or an opening bracket, with no space
    ///   between, then stays with them, where RI would allow a break.
    static func libunibreakInput(_ codes: [UInt32]) -> [UInt32] {
        guard codes.contains(where: isRejectedByLibunibreak) else { return codes }
        return codes.map { isRejectedByLibunibreak($0) ? 0xFFFE : $0 }
    }

    private static func isRejectedByLibunibreak(_ code: UInt32) -> Bool {
        code == 0xFFFF || (0x1F1E6...0x1F1FF).contains(code)
    }

    /// A language tag as libunibreak matches it: lowercase, hyphens. Tags usually come that
    /// way already, and this runs once per paragraph, so they are then used as they are.
    static func libunibreakLanguage(_ tag: String) -> String {
        guard tag.utf8.contains(where: { (0x41...0x5A).contains($0) || $0 == 0x5F }) else { return tag }
        return tag.lowercased().replacingOccurrences(of: "_", with: "-")
    }
}
