import CFriBidi

/// Bidi embedding levels of a paragraph analysed in windows (`ParagraphAnalyzer.window`), for
/// one window at a time, equal to the levels FriBidi gives the paragraph whole.
///
/// UAX #9 resolves a character from text that can lie anywhere in its paragraph: the first
/// strong letter sets the base direction, an embedding or isolate opened anywhere before it
/// raises it, a bracket pair around it or the letters on either side of a run of numbers and
/// neutrals decide it. So FriBidi is given pieces of the paragraph cut only where none of that
/// reaches across: between two letters (types L, R or AL), where no bracket pair is open (BD16,
/// as FriBidi pairs them, with its limit of 63 open brackets) and before any explicit
/// embedding, override or isolate. Every search of rules W1–W7 and N0–N2 from either side of
/// such a cut stops at the letter beside it, every pair lies on one side, and nothing before
/// the cut changes the embedding state after it, so a piece resolves as it does inside the
/// whole. Pieces are at least `spacing` characters long; a paragraph without such cuts
/// (explicit controls early in it, or no letters) is one piece, resolved once and kept.
struct ParagraphBidi {
    let paragraph: Range<Int>
    /// The paragraph's base level (UAX #9 P2 and P3, as FriBidi applies them).
    let baseLevel: UInt8
    /// Nothing in the paragraph is right-to-left and no right-to-left base is asked for:
    /// every level is 0, as `Itemizer.bidiLevels` gives it.
    private let leftToRightOnly: Bool
    /// Where pieces start, ascending, the first at the paragraph's start; the last piece ends
    /// at the paragraph's end.
    private let cuts: [Int]
    /// The pieces resolved last, and their levels.
    private var resolved: (range: Range<Int>, levels: [UInt8])?
    private let text: AttributedText

    // FriBidi's character type bits (fribidi-bidi-types.h), which Swift cannot import.
    private static let rightToLeftMask: UInt32 = 0x1, neutralMask: UInt32 = 0x40, letterMask: UInt32 = 0x100
    private static let explicitMask: UInt32 = 0x1000, isolateMask: UInt32 = 0x8000
    private static let pdi: UInt32 = 0x40 | 0x20 | 0x8000
    /// FriBidi's `FRIBIDI_BIDI_MAX_NESTED_BRACKET_PAIRS`: past it, it pairs no more brackets.
    private static let maximumOpenBrackets = 63

    init(text: AttributedText, paragraph: Range<Int>, direction: WritingDirection, spacing: Int) {
        self.text = text
        self.paragraph = paragraph
        let scalars = text.scalars
        leftToRightOnly = direction != .rtl && !scalars[paragraph].contains(where: Itemizer.mayBeRightToLeft)
        var base: UInt8? = direction == .rtl ? 1 : direction == .ltr || leftToRightOnly ? 0 : nil
        var cuts = [paragraph.lowerBound]
        if !leftToRightOnly {
            var isolates = 0
            var canCut = true
            var open: [FriBidiBracketType] = []
            var previousIsLetter = false
            for offset in paragraph {
                let code = FriBidiChar(scalars[offset].value)
                let type = fribidi_get_bidi_type(code).rawValue
                let isLetter = type & Self.letterMask != 0
                if base == nil {
                    // P2, P3: the first letter outside isolates.
                    if type == Self.pdi {
                        isolates = max(0, isolates - 1)
                    } else if type & Self.isolateMask != 0 {
                        isolates += 1
                    } else if isolates == 0 && isLetter {
                        base = type & Self.rightToLeftMask != 0 ? 1 : 0
                    }
                }
                if type & (Self.explicitMask | Self.isolateMask) != 0 { canCut = false }
                if canCut && type == Self.neutralMask {
                    let bracket = fribidi_get_bracket(code)
                    let id = bracket & FriBidiBracketType(FRIBIDI_BRACKET_ID_MASK)
                    if id == 0 {
                        // Not a bracket.
                    } else if bracket & FriBidiBracketType(FRIBIDI_BRACKET_OPEN_MASK) != 0 {
                        if open.count == Self.maximumOpenBrackets { canCut = false } else { open.append(id) }
                    } else if let match = open.lastIndex(of: id) {
                        open.removeSubrange(match...)
                    }
                }
                if canCut, isLetter, previousIsLetter, open.isEmpty, let last = cuts.last, offset - last >= spacing {
                    cuts.append(offset)
                }
                previousIsLetter = isLetter
                if !canCut && base != nil { break }
            }
        }
        self.baseLevel = base ?? 0
        self.cuts = cuts
    }

    /// How many pieces FriBidi resolves the paragraph in.
    var pieceCount: Int { cuts.count }

    /// Levels of the characters of `window` (global offsets inside the paragraph).
    mutating func levels(of window: Range<Int>) -> [UInt8] {
        guard !leftToRightOnly else { return [UInt8](repeating: 0, count: window.count) }
        if resolved.map({ $0.range.lowerBound > window.lowerBound || $0.range.upperBound < window.upperBound }) ?? true {
            // The pieces that hold the window, resolved in one call: cuts bound every piece,
            // so any run of consecutive pieces resolves as it does in the whole paragraph.
            let first = (cuts.lastIndex { $0 <= window.lowerBound }) ?? 0
            let end = cuts.first { $0 >= window.upperBound } ?? paragraph.upperBound
            let range = cuts[first]..<end
            let (levels, _) = Itemizer.bidiLevels(text.scalars[range], direction: baseLevel == 1 ? .rtl : .ltr, skippingLeftToRight: false)
            resolved = (range, levels)
        }
        guard let resolved else { preconditionFailure("levels resolved above") }
        let start = window.lowerBound - resolved.range.lowerBound
        return Array(resolved.levels[start..<(start + window.count)])
    }
}
