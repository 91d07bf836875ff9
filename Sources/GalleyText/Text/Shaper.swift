import GalleyRaster
import CHarfBuzz

/// A glyph as HarfBuzz placed it, in points, along the line: `advance` and `xOffset` in the
/// direction the line runs, `yOffset` across it, up (away from the next line) positive as in
/// HarfBuzz.
///
/// For a glyph shaped top to bottom (upright in vertical text) HarfBuzz's axes are turned
/// into the line's: its downward y advance and offset become `advance` and `xOffset`, and its
/// x offset, which places the glyph's horizontal origin left of the central baseline,
/// becomes `yOffset` (right, away from the next line of vertical-rl text, is up).
struct ShapedGlyph {
    var id: UInt32
    /// HarfBuzz's `HB_GLYPH_FLAG_UNSAFE_TO_BREAK`: text cut at the start of this glyph's cluster
    /// and shaped in two parts (with context) might not give these glyphs. Where it is false,
    /// a window of a long paragraph may begin (`ParagraphAnalysis.isRestartPoint`).
    var unsafeToBreak = false
    /// Global offset of the first character of the glyph's cluster.
    var cluster: Int
    var advance: Double
    var xOffset: Double
    var yOffset: Double
}

/// Shapes items with HarfBuzz, keeping clusters so every glyph maps back to its text.
///
/// Owns one HarfBuzz buffer, reused for every item; used by one typesetter, on one thread at
/// a time.
final class Shaper {
    private let buffer: OpaquePointer
    /// Cancelled, an item cut in pieces (`markRunLimit`) is left unfinished: the caller checks
    /// it after shaping and throws.
    var cancellationSlot = CancellationSlot()
    private var cancellation: Cancellation? { cancellationSlot.current }

    init() {
        guard let buffer = hb_buffer_create() else { preconditionFailure("HarfBuzz cannot allocate a buffer") }
        self.buffer = buffer
    }

    deinit {
        hb_buffer_destroy(buffer)
    }

    /// The last language tag asked for and HarfBuzz's language for it: items of a paragraph,
    /// and the words of an item, nearly always share one, and turning a tag into a language
    /// parses and looks it up.
    private var lastLanguage: (tag: String, language: hb_language_t?)?

    private func hbLanguage(_ tag: String) -> hb_language_t? {
        if let lastLanguage, lastLanguage.tag == tag { return lastLanguage.language }
        let language = hb_language_from_string(tag, -1)
        lastLanguage = (tag, language)
        return language
    }

    /// Glyphs of `item`, in HarfBuzz's output order (visual: reversed for right-to-left).
    /// `paragraph` is the paragraph's text (or the window of it being analysed, with a few
    /// characters on either side) and `paragraphStart` its global offset, so HarfBuzz sees the
    /// context around the item (Arabic joining across style changes).
    ///
    /// Positions are in points (`scale` nil: the item's size over the face's units per em) or,
    /// with `scale` 1, in font units: HarfBuzz's output does not depend on the size (the
    /// font's scale is its units per em), so glyphs shaped once in units serve every size,
    /// times `Shaper.scale(item, face)`, with the same result to the bit.
    func shape(_ item: TextItem, face: FontFace, paragraph: [UInt32], paragraphStart: Int, scale: Double? = nil) -> [ShapedGlyph] {
        let pieces = Self.pieces(of: item.range, in: paragraph, paragraphStart: paragraphStart)
        guard pieces.count > 1 else { return shapeInRuns(item.range, of: item, face: face, paragraph: paragraph, paragraphStart: paragraphStart, scale: scale) }
        // Output is visual: right-to-left pieces come last first.
        let ordered = !item.upright && item.level & 1 == 1 ? pieces.reversed() : pieces
        var glyphs: [ShapedGlyph] = []
        for piece in ordered where cancellation?.isCancelled != true {
            glyphs += shapeInRuns(piece, of: item, face: face, paragraph: paragraph, paragraphStart: paragraphStart, scale: scale)
        }
        return glyphs
    }

    /// Most characters given to HarfBuzz in one call. A longer piece of an item (a paragraph of
    /// Arabic, Hindi or Chinese, which are shaped whole, or a word of a million letters) is
    /// shaped in runs of at most this many, each cut where HarfBuzz says a cut changes no
    /// glyph, so the glyphs are those of one call, and cancellation (`page_timeout`, Ctrl-C)
    /// is checked between runs: no call's time grows with the text. Tests make it small.
    var runLimit = 4096
    /// A run is cut at least this many characters before its end: glyphs near its end may
    /// still change with the text after it (a lookup looking ahead), as at the end of a window
    /// of a long paragraph (`ParagraphAnalyzer.contextMargin`).
    static let cutMargin = 64
    /// The most characters given to HarfBuzz in one call so far (for tests).
    private(set) var longestCall = 0

    /// Glyphs of the characters `range` (global) of `item`, in runs of at most `runLimit`: each
    /// run is shaped and its glyphs kept up to the last cluster in its second half (before
    /// `cutMargin`) that HarfBuzz did not mark unsafe to break; the next run starts there,
    /// with the text before as context. With no such cluster (a run of one joined script
    /// without a safe cut, which real text does not have) the run ends at its last cluster,
    /// where the glyphs may differ from one call's; inside one cluster longer than a run, at
    /// the run's end.
    private func shapeInRuns(_ range: Range<Int>, of item: TextItem, face: FontFace, paragraph: [UInt32], paragraphStart: Int,
                             scale: Double?) -> [ShapedGlyph] {
        guard range.count > runLimit else { return shape(range, of: item, face: face, paragraph: paragraph, paragraphStart: paragraphStart, scale: scale) }
        var runs: [[ShapedGlyph]] = []
        var from = range.lowerBound
        while from < range.upperBound && cancellation?.isCancelled != true {
            let to = min(range.upperBound, from + runLimit)
            var glyphs = shape(from..<to, of: item, face: face, paragraph: paragraph, paragraphStart: paragraphStart, scale: scale)
            var next = to
            if to < range.upperBound {
                next = Self.lastCut(in: glyphs, after: from + (to - from) / 2, before: to - Self.cutMargin, safeOnly: true)
                    ?? Self.lastCut(in: glyphs, after: from, before: to, safeOnly: false) ?? to
                if next < to { glyphs.removeAll { $0.cluster >= next } }
            }
            runs.append(glyphs)
            from = next
        }
        // Output is visual: right to left, later runs come first.
        return Array((!item.upright && item.level & 1 == 1 ? runs.reversed() : runs).joined())
    }

    /// The last cluster start among `glyphs` strictly between `after` and `before` (global
    /// offsets): one where no glyph of the cluster is unsafe to break (`safeOnly`), or any.
    private static func lastCut(in glyphs: [ShapedGlyph], after: Int, before: Int, safeOnly: Bool) -> Int? {
        let unsafe = safeOnly ? Set(glyphs.lazy.filter(\.unsafeToBreak).map(\.cluster)) : []
        return glyphs.lazy.map(\.cluster).filter { $0 > after && $0 < before && !unsafe.contains($0) }.max()
    }

    /// Most combining marks in a row given to HarfBuzz in one call: Unicode's limit for
    /// stream-safe text (UAX #15: 30 non-starters). HarfBuzz's time grows with the square of a
    /// cluster's marks (it sorts them), so `a` and 100,000 accents took 33 s in one call; cut
    /// every 30 marks, with the text around as context (and no dotted circle, since the buffer
    /// is not the text's beginning), they take milliseconds. Real text never has that many.
    static let markRunLimit = 30

    /// `range` (global) cut before every `markRunLimit + 1`th combining mark in a row; one
    /// piece for any real text.
    static func pieces(of range: Range<Int>, in paragraph: [UInt32], paragraphStart: Int) -> [Range<Int>] {
        var pieces: [Range<Int>] = []
        var start = range.lowerBound, marks = 0
        for offset in range {
            let code = paragraph[offset - paragraphStart]
            // Below U+0300, in the CJK blocks after the kana (U+3100-U+9FFF) and in the Hangul
            // syllables no character is a combining mark: common text skips the property lookups.
            guard code >= 0x300, !(0x3100...0x9FFF).contains(code), !(0xAC00...0xD7A3).contains(code), let scalar = Unicode.Scalar(code), scalar.properties.canonicalCombiningClass.rawValue > 0
                    || [.nonspacingMark, .enclosingMark, .spacingMark].contains(scalar.properties.generalCategory) else {
                marks = 0
                continue
            }
            marks += 1
            if marks > markRunLimit {
                pieces.append(start..<offset)
                (start, marks) = (offset, 1)
            }
        }
        pieces.append(start..<range.upperBound)
        return pieces
    }

    /// Glyphs of the characters `range` (global) of `item`.
    private func shape(_ range: Range<Int>, of item: TextItem, face: FontFace, paragraph: [UInt32], paragraphStart: Int,
                       scale: Double?) -> [ShapedGlyph] {
        hb_buffer_clear_contents(buffer)
        longestCall = max(longestCall, range.count)
        let start = range.lowerBound - paragraphStart
        paragraph.withUnsafeBufferPointer { text in
            hb_buffer_add_utf32(buffer, text.baseAddress, Int32(text.count), UInt32(start), Int32(range.count))
        }
        // Top to bottom turns on the font's vertical metrics (vmtx, VORG) and its `vert` forms.
        hb_buffer_set_direction(buffer, item.upright ? HB_DIRECTION_TTB : item.level & 1 == 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_script(buffer, item.script)
        if let language = item.style.language {
            hb_buffer_set_language(buffer, hbLanguage(language))
        }
        if item.style.letterSpacing != 0 {
            Self.withoutLigatures.withUnsafeBufferPointer { hb_shape(face.hbFont, buffer, $0.baseAddress, UInt32($0.count)) }
        } else {
            hb_shape(face.hbFont, buffer, nil, 0)
        }
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
              let positions = hb_buffer_get_glyph_positions(buffer, &count) else { return [] }
        let scale = scale ?? Self.scale(item, face)
        var glyphs: [ShapedGlyph] = []
        glyphs.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            let position = positions[i]
            let cluster = paragraphStart + Int(infos[i].cluster)
            let unsafe = infos[i].mask & HB_GLYPH_FLAG_UNSAFE_TO_BREAK.rawValue != 0
            if item.upright {
                glyphs.append(ShapedGlyph(id: infos[i].codepoint, unsafeToBreak: unsafe, cluster: cluster, advance: -Double(position.y_advance) * scale,
                                          xOffset: -Double(position.y_offset) * scale, yOffset: Double(position.x_offset) * scale))
            } else {
                glyphs.append(ShapedGlyph(id: infos[i].codepoint, unsafeToBreak: unsafe, cluster: cluster, advance: Double(position.x_advance) * scale,
                                          xOffset: Double(position.x_offset) * scale, yOffset: Double(position.y_offset) * scale))
            }
        }
        return glyphs
    }

    /// Points per font unit for an item in a face.
    static func scale(_ item: TextItem, _ face: FontFace) -> Double {
        item.style.size / face.unitsPerEm
    }

    /// The optional ligatures turned off over the whole buffer: text with letter spacing is
    /// set without them (CSS Text 3 §8.2), so `fi` stays two letters spaced apart. Required
    /// ligatures (`rlig`) and contextual forms stay.
    private static let withoutLigatures: [hb_feature_t] = ["liga", "clig", "dlig", "hlig"].map { name in
        let tag = name.utf8.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return hb_feature_t(tag: tag, value: 0, start: 0, end: UInt32.max)
    }

    /// Scripts whose letters join (Arabic and its kin): letter spacing would break them apart,
    /// so CSS leaves it out there.
    private static let joiningScripts: Set<UInt32> = [
        HB_SCRIPT_ARABIC.rawValue, HB_SCRIPT_SYRIAC.rawValue, HB_SCRIPT_NKO.rawValue, HB_SCRIPT_MONGOLIAN.rawValue,
        HB_SCRIPT_MANDAIC.rawValue, HB_SCRIPT_PHAGS_PA.rawValue,
    ]

    /// CSS `letter-spacing` and `word-spacing` of `item` added to the advance of each cluster's
    /// last glyph in HarfBuzz's order (`glyphs` as `shape` gave them): the letter spacing
    /// after every cluster (none in joining scripts), the word spacing after each word
    /// separator. Pen positions along the line then carry the spacing, and a line's width
    /// counts it. `paragraph` and `paragraphStart` as for `shape`.
    static func addSpacing(to glyphs: inout [ShapedGlyph], of item: TextItem, paragraph: [UInt32], paragraphStart: Int) {
        let word = item.style.wordSpacing
        let letter = joiningScripts.contains(item.script.rawValue) ? 0 : item.style.letterSpacing
        guard letter != 0 || word != 0 else { return }
        for i in glyphs.indices where i == glyphs.count - 1 || glyphs[i + 1].cluster != glyphs[i].cluster {
            glyphs[i].advance += letter
            if word != 0, let scalar = Unicode.Scalar(paragraph[glyphs[i].cluster - paragraphStart]), scalar.isWordSeparator {
                glyphs[i].advance += word
            }
        }
    }
}

/// Where a framesetter keeps the cancellation its typesetting answers to, shared by reference
/// with what it sets through (its analyzer and shaper, copies of it, the framesetters of its
/// tables' cells and floated blocks), so that setting it once per page reaches all of them.
/// Used on one thread at a time, like the framesetter.
final class CancellationSlot {
    var current: Cancellation?
}
