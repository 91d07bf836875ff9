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
