import CFriBidi
import CHarfBuzz

/// A maximal stretch of a paragraph that is shaped in one go: one face, script, bidi level and
/// style run (Pango's `PangoItem`).
struct TextItem {
    enum Kind {
        /// Text shaped with a face.
        case text(FontFace)
        /// An inline image; its box comes from the attachment.
        case attachment(Int)
        /// A paragraph or line separator: no glyph, no width; the face gives an otherwise
        /// empty line its height.
        case separator(FontFace)
    }

    /// Global text offsets.
    var range: Range<Int>
    var kind: Kind
    var style: TextStyle
    /// Bidi embedding level: even left-to-right, odd right-to-left.
    var level: UInt8
    var script: hb_script_t
    /// In vertical text: shaped top to bottom and drawn upright (ideographs, kana), rather
    /// than shaped as a horizontal run turned sideways (Latin, digits). False in horizontal
    /// text.
    var upright = false
}

/// Splits a paragraph into items by style run, font (per-character fallback by coverage),
/// script, bidi level and, in vertical text, orientation.
struct Itemizer {
    let text: AttributedText
    let fonts: FontLibrary
    /// Whether lines are vertical, where characters stand upright or lie sideways.
    let vertical: Bool

    /// Characters no installed font covers, found while itemizing (drawn with the primary
    /// face's missing-glyph box).
    private(set) var uncovered: [Unicode.Scalar: Int] = [:]
    private var coverage = CoverageMemo()
    /// The last answer of `firstScript(in:)`: the range searched from `start` to `end`, and
    /// where the script was found.
    private var firstScriptFound: (start: Int, end: Int, found: Int?, script: hb_script_t?)?

    init(text: AttributedText, fonts: FontLibrary, vertical: Bool = false) {
        self.text = text
        self.fonts = fonts
        self.vertical = vertical
    }

    /// What the characters before a window of a paragraph decided, which the window's items
    /// depend on: a window that starts with it itemizes its characters as a whole-paragraph
    /// pass would (`ParagraphAnalysis.Resumption`).
    struct Context {
        /// The face of the last text character before the window (the face a mark or a
        /// shared character after it keeps); nil when there is none.
        var face: FontFace?
        /// The script the character just before the window was resolved to.
        var script: hb_script_t
        /// Whether the character just before the window stands upright (vertical text).
        var upright: Bool
    }

    /// Items of the paragraph `range`, in logical order, and its base level.
    mutating func items(of range: Range<Int>, direction: WritingDirection) throws(TypesetError) -> (items: [TextItem], baseLevel: UInt8) {
        let (levels, baseLevel) = Self.bidiLevels(text.scalars[range], direction: direction)
        return (try items(of: range, levels: levels, after: nil, paragraphEnd: range.upperBound, countingFrom: range.lowerBound), baseLevel)
    }

    /// Items of `range`, a whole paragraph or a window of one ending at `paragraphEnd`, whose
    /// characters have bidi levels `levels`. `context` is what the text before the window
    /// decided (nil at the paragraph's start). Characters no font covers are counted from
    /// `countingFrom` on, so that windows that overlap count each once.
    mutating func items(of range: Range<Int>, levels: [UInt8], after context: Context?, paragraphEnd: Int,
                        countingFrom: Int) throws(TypesetError) -> [TextItem] {
        let functions = hb_unicode_funcs_get_default()
        let ownScripts = text.scalars[range].map { hb_unicode_script(functions, $0.value) }
        let scripts = Self.resolved(ownScripts, after: context?.script) { firstScript(in: range.upperBound..<paragraphEnd) }
        let upright = vertical ? Self.uprightFlags(text.scalars[range], after: context?.upright) : []
        // Attachments are in text order: those of this paragraph are found by binary search,
        // not by a pass over every attachment of the article.
        var attachmentIndex = [Int: Int]()
        var i = firstAttachment(atOrAfter: range.lowerBound)
        while i < text.attachments.count && text.attachments[i].offset < range.upperBound {
            attachmentIndex[text.attachments[i].offset] = i
            i += 1
        }

        var items: [TextItem] = []
        var runIndex = text.styleRunIndex(at: range.lowerBound)
        var runEnd = text.styleRuns[runIndex].range.upperBound
        var fallback = try fallbackFor(text.styleRuns[runIndex].value)
        var primary = try fallback.primary()
        var previousFace = context?.face
        // The style run `previousFace` was chosen in: punctuation and spaces follow the face
        // before them only within one style run, so `<b>bold</b>, x` gets a regular comma.
        var previousRun = context == nil ? nil : Optional(runIndex)
        // The open item: extended while run, face, script and level stay the same. Only a
        // text item is ever extended (`itemFace` is its face), so a separator or an
        // attachment is an item of its own.
        var itemStart = range.lowerBound
        var itemRun = runIndex
        var itemKind: TextItem.Kind?
        var itemFace: FontFace?
        func close(at end: Int) {
            guard let kind = itemKind else { return }
            let local = itemStart - range.lowerBound
            items.append(TextItem(range: itemStart..<end, kind: kind, style: text.styleRuns[itemRun].value,
                                  level: levels[local], script: scripts[local], upright: vertical && upright[local]))
        }
        /// Whether a character in the open item's face (a text item's) may join it: same style
        /// run, bidi level, script and orientation.
        func continuesItem(_ local: Int) -> Bool {
            let startLocal = itemStart - range.lowerBound
            return itemRun == runIndex && levels[startLocal] == levels[local] && scripts[startLocal] == scripts[local]
                && (!vertical || upright[startLocal] == upright[local])
        }
        let scalars = text.scalars
        for offset in range {
            if offset >= runEnd {
                while text.styleRuns[runIndex].range.upperBound <= offset { runIndex += 1 }
                runEnd = text.styleRuns[runIndex].range.upperBound
                fallback = try fallbackFor(text.styleRuns[runIndex].value)
                primary = try fallback.primary()
            }
            let scalar = scalars[offset]
            let local = offset - range.lowerBound
            if scalar == AttributedText.paragraphSeparator || scalar == AttributedText.lineSeparator {
                close(at: offset)
                (itemStart, itemRun, itemKind, itemFace) = (offset, runIndex, .separator(primary), nil)
                continue
            }
            if scalar == AttributedText.objectReplacement, let attachment = attachmentIndex[offset] {
                close(at: offset)
                (itemStart, itemRun, itemKind, itemFace) = (offset, runIndex, .attachment(attachment), nil)
                continue
            }
            // The common case: the open item and the character before are in the style's primary
            // face, which covers this character (below U+0300, so not a mark or a format
            // control). `chooseFace` would answer the primary face, so the item may go on.
            if scalar.value < 0x300, itemFace === primary, previousFace === primary, coverage.covers(primary, scalar),
               continuesItem(local) {
                continue
            }
            let shared = ownScripts[local] == HB_SCRIPT_COMMON || ownScripts[local] == HB_SCRIPT_INHERITED
            // An opening quote or bracket belongs to what follows it: before a word the primary
            // face covers (`の "Debian`), it is that word's, not the ideographs' before it.
            let opensPrimaryText = shared && offset + 1 < range.upperBound && offset + 1 < runEnd
                && Self.opens(scalar) && !scalars[offset + 1].isWideCJK && !scalars[offset + 1].properties.isWhitespace
                && coverage.covers(primary, scalars[offset + 1])
            let face = chooseFace(for: scalar, shared: shared, fallback: fallback, primary: primary, previous: previousFace,
                                  previousInRun: previousRun == runIndex && !opensPrimaryText, counting: offset >= countingFrom)
            if face !== previousFace { previousFace = face }
            previousRun = runIndex
            if itemFace === face, continuesItem(local) { continue }
            close(at: offset)
            (itemStart, itemRun, itemKind, itemFace) = (offset, runIndex, .text(face), face)
        }
        close(at: range.upperBound)
        return items
    }

    /// The script of the first character of `range` whose own script is not Common, Inherited
    /// or Unknown: what neutral characters at a paragraph's start take when a window holds
    /// nothing else. Remembered for the last paragraph asked about, whose leading neutral
    /// characters may span several windows.
    private mutating func firstScript(in range: Range<Int>) -> hb_script_t? {
        if let firstScriptFound, firstScriptFound.end == range.upperBound, firstScriptFound.start <= range.lowerBound,
           firstScriptFound.found.map({ $0 >= range.lowerBound }) ?? true {
            return firstScriptFound.script
        }
        let functions = hb_unicode_funcs_get_default()
        var found: Int?
        var script: hb_script_t?
        for offset in range {
            let own = hb_unicode_script(functions, text.scalars[offset].value)
            if !Self.isNeutral(own) {
                (found, script) = (offset, own)
                break
            }
        }
        firstScriptFound = (range.lowerBound, range.upperBound, found, script)
        return script
    }

    private func fallbackFor(_ style: TextStyle) throws(TypesetError) -> FontFallback {
        try fonts.fallback(for: style.font, language: style.language)
    }

    private func firstAttachment(atOrAfter offset: Int) -> Int {
        var low = 0, high = text.attachments.count
        while low < high {
            let mid = (low + high) / 2
            if text.attachments[mid].offset < offset { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The face for one character: marks and joiners stay with the face before them; other
    /// characters take the first face in fallback order that covers them, preferring the face
    /// before them for spaces and punctuation shared by all scripts, so a run of Chinese with
    /// a comma is not split three ways; but only a face chosen in the same style run: after
    /// `<b>bold</b>` or `<code>code</code>` a comma, a space or a bracket is the surrounding
    /// text's, as browsers set it.
    /// `shared`: the character's own script is Common or Inherited.
    private mutating func chooseFace(for scalar: Unicode.Scalar, shared: Bool, fallback: FontFallback, primary: FontFace,
                                     previous: FontFace?, previousInRun: Bool, counting: Bool) -> FontFace {
        if let previous, scalar.isMark || (scalar.value >= 0x300 && scalar.properties.generalCategory == .format) {
            return previous
        }
        if let previous, shared, previousInRun, previous !== primary, coverage.covers(previous, scalar) { return previous }
        if coverage.covers(primary, scalar) { return primary }
        if let face = fallback.face(covering: scalar) { return face }
        let properties = scalar.properties
        if counting && !properties.isWhitespace && !properties.isDefaultIgnorableCodePoint {
            uncovered[scalar, default: 0] += 1
        }
        return previous ?? primary
    }

    /// Opening punctuation: Unicode's open and initial quotes and brackets, and the ASCII
    /// quotes, which open as often as they close.
    static func opens(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\"" || scalar == "'" { return true }
        switch scalar.properties.generalCategory {
        case .openPunctuation, .initialPunctuation: return true
        default: return false
        }
    }

    /// Whether each character stands upright in vertical text (UAX #50); marks, joiners and
    /// variation selectors go with the character before them (`previous` for the first).
    static func uprightFlags(_ scalars: ArraySlice<Unicode.Scalar>, after previous: Bool? = nil) -> [Bool] {
        var flags: [Bool] = []
        flags.reserveCapacity(scalars.count)
        for scalar in scalars {
            if let last = flags.last ?? previous, scalar.isMark || (scalar.value >= 0x200B && scalar.properties.isDefaultIgnorableCodePoint) {
                flags.append(last)
            } else {
                flags.append(VerticalOrientation(scalar).isUpright)
            }
        }
        return flags
    }

    /// Scripts for shaping, from each character's own: Common and Inherited characters take
    /// the script before them (or after them at the start), as HarfBuzz expects whole runs of
    /// one script. In a window of a paragraph, `previous` is the script the character before
    /// it was resolved to, and `following` finds the first script after the window, for
    /// neutral characters at the start of a paragraph that has nothing else in the window.
    static func resolved(_ own: [hb_script_t], after previous: hb_script_t? = nil,
                         following: () -> hb_script_t? = { nil }) -> [hb_script_t] {
        var scripts = own
        var last = previous.flatMap { isNeutral($0) ? nil : $0 }
        for i in scripts.indices {
            if isNeutral(scripts[i]) {
                if let last { scripts[i] = last }
            } else {
                last = scripts[i]
            }
        }
        if previous.map(isNeutral) ?? true, let first = scripts.first(where: { !isNeutral($0) }) ?? following() {
            for i in scripts.indices {
                guard isNeutral(scripts[i]) else { break }
                scripts[i] = first
            }
        }
        return scripts
    }

    private static func isNeutral(_ script: hb_script_t) -> Bool {
        script == HB_SCRIPT_COMMON || script == HB_SCRIPT_INHERITED || script == HB_SCRIPT_UNKNOWN
    }

    /// Bidi embedding levels by UAX #9, through FriBidi. Text with nothing right-to-left in
    /// it and no right-to-left request has every level 0 without asking FriBidi, unless
    /// `skippingLeftToRight` is false (a piece of a paragraph that has right-to-left text
    /// elsewhere: see `ParagraphBidi`).
    static func bidiLevels(_ scalars: ArraySlice<Unicode.Scalar>, direction: WritingDirection,
                           skippingLeftToRight: Bool = true) -> ([UInt8], UInt8) {
        let count = scalars.count
        let requested: FriBidiParType
        switch direction {
        case .ltr: requested = Self.parLTR
        case .rtl: requested = Self.parRTL
        case .auto: requested = Self.parON
        }
        let fallbackLevel: UInt8 = direction == .rtl ? 1 : 0
        // Nothing right-to-left and no RTL request: every level is 0 (the common case, skipped).
        if skippingLeftToRight, direction != .rtl, !scalars.contains(where: Self.mayBeRightToLeft) {
            return ([UInt8](repeating: 0, count: count), 0)
        }
        let characters = scalars.map { FriBidiChar($0.value) }
        var types = [FriBidiCharType](repeating: FriBidiCharType(rawValue: 0), count: count)
        var brackets = [FriBidiBracketType](repeating: 0, count: count)
        var levels = [FriBidiLevel](repeating: 0, count: count)
        var base = requested
        let ok = characters.withUnsafeBufferPointer { chars -> Bool in
            fribidi_get_bidi_types(chars.baseAddress, FriBidiStrIndex(count), &types)
            fribidi_get_bracket_types(chars.baseAddress, FriBidiStrIndex(count), types, &brackets)
            return fribidi_get_par_embedding_levels_ex(types, brackets, FriBidiStrIndex(count), &base, &levels) != 0
        }
        guard ok else { return ([UInt8](repeating: fallbackLevel, count: count), fallbackLevel) }
        return (levels.map { UInt8(bitPattern: $0) }, base.rawValue & 1 == 1 ? 1 : 0)
    }

    // FriBidi's paragraph types are macros built from other macros, which Swift cannot import.
    private static let parLTR: FriBidiParType = FriBidiParType(rawValue: 0x0000_0110)
    private static let parRTL: FriBidiParType = FriBidiParType(rawValue: 0x0000_0111)
    private static let parON: FriBidiParType = FriBidiParType(rawValue: 0x0000_0040)

    /// Right-to-left scripts and explicit directional controls.
    static func mayBeRightToLeft(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF,
             0x200F, 0x202B, 0x202E, 0x2067: true
        default: false
        }
    }
}
