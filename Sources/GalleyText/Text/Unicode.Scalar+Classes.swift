// The character classes the parser and the typesetter test, in one place so that each set is
// defined once. Most text is ASCII, so tests that need a Unicode property answer ASCII (or
// everything below the first character that could match) before looking it up.

extension Unicode.Scalar {
    // MARK: Typesetting

    /// The wide characters of Chinese and Japanese text, justified between characters: CJK and
    /// Kangxi radicals (U+2E80–2FDF); CJK symbols and punctuation, kana, Bopomofo, Hangul
    /// compatibility jamo, kanbun and CJK strokes (U+3000–31FF); Han ideographs (extension A,
    /// the unified block, compatibility ideographs, planes 2 and 3); CJK compatibility forms
    /// (U+FE30–FE4F); and fullwidth forms (U+FF00–FF60, not the halfwidth ones after them).
    var isWideCJK: Bool {
        switch value {
        case 0x2E80...0x2FDF, 0x3000...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
             0xFE30...0xFE4F, 0xFF00...0xFF60, 0x20000...0x3FFFF: true
        default: false
        }
    }

    /// Hangul syllables (U+AC00–D7AF) and conjoining jamo (U+1100–11FF); the compatibility
    /// jamo are in `isWideCJK`.
    var isHangul: Bool {
        (0xAC00...0xD7AF).contains(value) || (0x1100...0x11FF).contains(value)
    }

    /// Hiragana, katakana and their extensions, and halfwidth katakana: text holding them is
    /// Japanese.
    var isKana: Bool {
        (0x3041...0x30FF).contains(value) || (0x31F0...0x31FF).contains(value) || (0xFF66...0xFF9F).contains(value)
    }

    /// Han ideographs: extension A, the unified block, compatibility ideographs, planes 2 and 3.
    var isHanIdeograph: Bool {
        switch value {
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF: true
        default: false
        }
    }

    /// A combining mark, which belongs with the character before it (no mark is below U+0300,
    /// so most text is answered without a property lookup).
    var isMark: Bool {
        guard value >= 0x300 else { return false }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    /// Characters that take a justified line's slack (CSS's word separators).
    var isWordSeparator: Bool {
        self == " " || self == "\u{00A0}"
    }

    /// A visible character of an alphabet written with separate letters, which letter spacing
    /// may pull apart without breaking a joined or stacked form: Latin, Greek, Cyrillic,
    /// Armenian and Georgian with their marks, ASCII and Latin-1 digits and punctuation,
    /// general punctuation, super- and subscripts, currency and letterlike symbols, and the
    /// Latin presentation forms (ﬁ). Not spaces, controls, soft hyphens or other invisible
    /// format characters.
    var isSeparateLetterScript: Bool {
        switch value {
        case 0x21...0x7E, 0xA1...0xAC, 0xAE...0x58F, 0x10A0...0x10FF, 0x1C80...0x1C8F, 0x1D00...0x1FFF,
             0x2010...0x2027, 0x2030...0x205E, 0x2070...0x214F, 0x2C60...0x2C7F, 0x2DE0...0x2DFF,
             0xA640...0xA69F, 0xA720...0xA7FF, 0xAB30...0xAB6F, 0xFB00...0xFB17:
            true
        default:
            false
        }
    }

    /// Whether libunibreak (1.1), started afresh at this character, is in the state that the
    /// text before brings it to here: true unless it is a space (class SP) or a character it
    /// may class as a combining mark (CM), which carry the class of the character before
    /// them. CM is marks, controls other than line ends, joiners, format characters and
    /// variation selectors; controls and format characters are left out whatever their class.
    var restartsLineBreaking: Bool {
        if value < 0x7F { return value > 0x20 }
        if value <= 0x9F || isMark { return false }
        let properties = properties
        switch properties.generalCategory {
        case .format, .control: return false
        default: return !properties.isVariationSelector
        }
    }

    // MARK: Finding words to hyphenate

    /// Unicode white space, or the object replacement character an attachment stands on:
    /// what separates the tokens searched for words.
    var isWhitespaceOrObjectReplacement: Bool {
        if isASCII { return self == " " || (0x09...0x0D).contains(value) }
        return properties.isWhitespace || self == AttributedText.objectReplacement
    }

    /// A digit, or any character with a numeric value (fractions, numerals of other scripts).
    var isNumeric: Bool {
        isASCII ? ("0"..."9").contains(self) : properties.numericType != nil
    }

    /// Letters of words that hyphenate, with their marks: not ideographs, kana or Hangul,
    /// which break between characters without hyphens.
    var isHyphenatableLetter: Bool {
        if isASCII { return ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
        if isWideCJK || isHangul { return false }
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    // MARK: HTML and CSS

    /// HTML's and CSS's white space: space, tab, line feed, carriage return and form feed.
    /// ASCII only: U+00A0 is part of a class name or a word.
    var isHTMLWhitespace: Bool {
        self == " " || self == "\t" || self == "\n" || self == "\r" || self == "\u{0C}"
    }

    /// A CSS name code point, of which type, class and id names are made: ASCII letters and
    /// digits, `-`, `_` and anything beyond ASCII.
    var isCSSNameCodePoint: Bool {
        value >= 0x80 || ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
            || self == "-" || self == "_"
    }
}

/// The byte forms of the classes that markup is scanned for as bytes (its delimiters are ASCII).
extension UInt8 {
    /// `Unicode.Scalar.isHTMLWhitespace` for a byte of ASCII-compatible text.
    var isHTMLWhitespace: Bool {
        self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D || self == 0x0C
    }

    /// A–Z or a–z.
    var isASCIILetter: Bool {
        (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}

extension Unicode.Scalar {
    /// Unicode's punctuation (general category P*); ASCII without a property lookup, since
    /// letters, digits and spaces are most of a text.
    var isPunctuation: Bool {
        if isASCII {
            let v = value
            return (0x21...0x2F).contains(v) && v != 0x24 && v != 0x2B || (0x3A...0x40).contains(v) && v != 0x3C && v != 0x3D && v != 0x3E
                || (0x5B...0x60).contains(v) && v != 0x5E && v != 0x60 || v == 0x7B || v == 0x7D
        }
        switch properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
             .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }
}
