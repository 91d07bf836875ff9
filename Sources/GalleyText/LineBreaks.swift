import CUnibreak

/// Line break opportunities by UAX #14, from libunibreak.
enum LineBreaks {
    /// Whether a line may, must or must not end after each scalar.
    enum Opportunity: UInt8 {
        case mandatory, allowed, prohibited
        /// Allowed, and a line that ends here shows a hyphen: a soft hyphen, or a point of
        /// the hyphenation dictionary.
        case hyphen
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
        codes.withUnsafeBufferPointer { input in
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

    /// A language tag as libunibreak matches it: lowercase, hyphens. Tags usually come that
    /// way already, and this runs once per paragraph, so they are then used as they are.
    static func libunibreakLanguage(_ tag: String) -> String {
        guard tag.utf8.contains(where: { (0x41...0x5A).contains($0) || $0 == 0x5F }) else { return tag }
        return tag.lowercased().replacingOccurrences(of: "_", with: "-")
    }
}
