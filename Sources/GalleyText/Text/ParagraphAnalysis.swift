import GalleyRaster
/// One paragraph itemized, shaped and broken into opportunities: everything the line filler
/// needs, computed once per paragraph and layout, or, for a paragraph longer than
/// `ParagraphAnalyzer.window`, for one window of it at a time.
///
/// A window starts at a *restart point* (`isRestartPoint`), where analysing the text afresh
/// gives what the whole paragraph's analysis gives from there on, and it carries over what
/// the text before it decided (`Resumption`: the running sums, the face and script before
/// it). Its last characters are context: only those before `exactEnd`, the last restart point
/// at least `ParagraphAnalyzer.contextMargin` before the window's end, are used for lines, so
/// every line comes out as the whole paragraph's analysis would set it.
struct ParagraphAnalysis {
    /// Global text offsets analysed: the paragraph, or a window of it. Local offsets count
    /// from its start.
    let range: Range<Int>
    /// Global text offsets of the paragraph, its final U+000A included.
    let paragraph: Range<Int>
    /// Characters before this global offset are analysed exactly as in a whole-paragraph
    /// analysis; the paragraph's end when `range` reaches it.
    fileprivate(set) var exactEnd: Int
    /// What the analysis started from: the paragraph's start, or a restart point.
    let start: Resumption
    /// The characters of `range`, indexed by global offset.
    let scalars: ArraySlice<Unicode.Scalar>
    let style: ParagraphStyle
    /// 0 for a left-to-right paragraph, 1 for right-to-left.
    let baseLevel: UInt8
    /// Lines run top to bottom (widths are then lengths down the line).
    let vertical: Bool
    let items: [ShapedItem]
    /// Line break opportunity after each character (local offsets).
    private(set) var breaks: [LineBreaks.Opportunity]
    /// The last token `emergencyHyphen` judged, shared by the copies of this analysis: a word
    /// too wide for its line is asked about at every character of every line it fills, and
    /// judging its whole token each time made 1 MB of letters without a space take 182 s.
    private let emergencyToken = TokenVerdict()
    /// `widthPrefix[i]` = advance of the paragraph's characters before local offset `i`, in
    /// points: a line's natural width is a difference of two entries. Sums run from the
    /// paragraph's start in every window, so that they are the same numbers, to the bit.
    let widthPrefix: [Double]
    /// Whether a line may end before each character when no opportunity fits (a cluster
    /// boundary: never inside a ligature or between a letter and its marks).
    let clusterStart: [Bool]
    /// Whether each character is white space that hangs at a line's end.
    let hangs: [Bool]
    /// The hyphen a line shows when it ends after a local offset whose opportunity is
    /// `.hyphen`.
    private(set) var hyphens: [Int: HyphenGlyph]
    /// Counts over the paragraph's characters before each local offset, so that what a line
    /// may stretch is a difference of two entries: word separators, their advance, cluster
    /// starts, ideographs.
    let stretchPrefix: StretchPrefix
    /// Some of the paragraph's text is hyphenated automatically (`hyphens: auto`).
    let hyphenatesAutomatically: Bool
    /// `text-autospace`: the space added after a local character, where an ideograph or kana
    /// meets a Latin letter or digit (in `widthPrefix` already).
    var autospace: [Int: Double] = [:]
    /// Its lines may be justified (a justified paragraph, or a start-aligned one under a
    /// `justify_threshold`), so their spaces may also shrink (`shrink(_:_:)`).
    var spacesShrink = false
    /// The layout's `preformatted_marker`: also shown at the end of a line that cuts code
    /// (`codeContinuationMark`).
    var continuationMarker: Unicode.Scalar?

    /// Whether the analysis reaches the paragraph's end.
    var reachesParagraphEnd: Bool { exactEnd == paragraph.upperBound }

    /// Local offset of `exactEnd`: lines end at or before it.
    var exactCount: Int { exactEnd - range.lowerBound }

    struct StretchPrefix {
        var separators: [Int]
        var separatorWidth: [Double]
        var clusters: [Int]
        /// Cluster starts that take slack in a line of ideographs (`takesClusterGap`).
        var clusterGaps: [Int]
        var ideographs: [Int]
        /// Whether each local character is a cluster start between two letters that may be
        /// spaced apart (`takesLetterGap`). A flag, not a running sum: letter spacing is asked
        /// for once per loose line, and long paragraphs are analysed in long windows.
        var letterGap: [Bool]
    }

    /// Where a line's visible content ends: before its trailing hanging space.
    func visibleEnd(_ a: Int, _ b: Int) -> Int {
        var end = b
        while end > a && hangs[end - 1] { end -= 1 }
        return end
    }

    /// Natural width of local characters `a..<b`, trailing hanging space excluded, and the
    /// `text-autospace` after its last character (it separates that one from the next line's).
    func width(_ a: Int, _ b: Int) -> Double {
        let end = visibleEnd(a, b)
        let trailing = autospace.isEmpty || end == a ? 0 : autospace[end - 1] ?? 0
        return widthPrefix[end] - widthPrefix[a] - trailing
    }

    /// Where a line of local characters `a..<b` may take slack, and how much it may take
    /// before it counts as too loose: between its clusters when it holds ideographs (a quarter
    /// of their average advance per gap), else at its word separators (`maximumSpaceStretch`
    /// times their natural width).
    func stretch(_ a: Int, _ b: Int) -> Stretch {
        let end = visibleEnd(a, b)
        let prefix = stretchPrefix
        if prefix.ideographs[end] > prefix.ideographs[a] {
            let clusters = prefix.clusters[end] - prefix.clusters[a]
            // Gaps before each cluster but the line's first, where one side is CJK or a space.
            let gaps = end > a ? prefix.clusterGaps[end] - prefix.clusterGaps[a + 1] : 0
            return Stretch(betweenClusters: true, opportunities: gaps,
                           limit: width(a, end) / Double(max(1, clusters)) * 0.25 * Double(gaps))
        }
        let separators = prefix.separators[end] - prefix.separators[a]
        return Stretch(betweenClusters: false, opportunities: separators,
                       limit: (prefix.separatorWidth[end] - prefix.separatorWidth[a]) * Framesetter.maximumSpaceStretch)
    }

    /// The gaps between letters of a line of local characters `a..<b` that may take letter
    /// spacing (after its first character, before its trailing space), and the sum of the
    /// font sizes there (points), to which the layout's limit (a fraction of the em) applies.
    func letterGaps(_ a: Int, _ b: Int) -> (count: Int, room: Double) {
        let end = visibleEnd(a, b)
        guard end > a + 1 else { return (0, 0) }
        var count = 0, room = 0.0
        let start = range.lowerBound
        var index = items.firstIndex(endingAfter: start + a + 1)
        while index < items.count, items[index].item.range.lowerBound < start + end {
            let item = items[index].item
            let lower = max(item.range.lowerBound, start + a + 1) - start, upper = min(item.range.upperBound, start + end) - start
            if lower < upper {
                let gaps = stretchPrefix.letterGap[lower..<upper].count(where: { $0 })
                count += gaps
                room += Double(gaps) * item.style.size
            }
            index += 1
        }
        return (count, room)
    }

    /// Whether a justified line takes letter spacing before local cluster start `local`.
    func takesLetterGap(before local: Int) -> Bool {
        local > 0 && stretchPrefix.letterGap[local]
    }

    /// How much narrower than its natural width a line of local characters `a..<b` may be set
    /// when justified: its word separators down to `Framesetter.minimumSpace` of their width
    /// (TeX's and Core Text's interword shrink), so a line can take one more word instead of
    /// stretching. 0 in paragraphs whose lines are not justified and in lines of ideographs,
    /// which are spread between their characters.
    func shrink(_ a: Int, _ b: Int) -> Double {
        guard spacesShrink else { return 0 }
        let end = visibleEnd(a, b)
        let prefix = stretchPrefix
        guard prefix.ideographs[end] == prefix.ideographs[a] else { return 0 }
        return (prefix.separatorWidth[end] - prefix.separatorWidth[a]) * (1 - Framesetter.minimumSpace)
    }

    /// What a line may stretch: see `stretch(_:_:)`.
    struct Stretch {
        /// Slack goes between clusters (ideographs) rather than to word separators.
        var betweenClusters: Bool
        /// Places that take slack: gaps between clusters, or word separators.
        var opportunities: Int
        /// Slack the line may take before it is too loose (points).
        var limit: Double
    }

    /// Whether a justified line of ideographs takes slack at the boundary between these two
    /// characters: when either is CJK (ideographs, kana, Hangul, their punctuation) or a space,
    /// never between the letters of a Latin word or the digits of a number set among them.
    static func takesClusterGap(after previous: Unicode.Scalar, before next: Unicode.Scalar) -> Bool {
        previous.isWideCJK || next.isWideCJK || previous.isWordSeparator || next.isWordSeparator
    }

    /// Whether a justified line whose spaces are at their limit may take letter spacing
    /// between these two characters, the last of one cluster and the first of the next: both
    /// visible characters of the alphabets written with separate letters (Latin, Greek,
    /// Cyrillic, Armenian, Georgian, their marks, digits and punctuation), so never in a
    /// script whose letters join or stack (Arabic, Indic, CJK), nor next to a space, a soft
    /// hyphen or another invisible character.
    static func takesLetterGap(after previous: Unicode.Scalar, before next: Unicode.Scalar) -> Bool {
        previous.isSeparateLetterScript && next.isSeparateLetterScript
    }

    /// Whether `text-autospace` puts space between these two characters: an ideograph or kana
    /// next to a Latin letter or a digit (either way round).
    static func isAutospaceBoundary(_ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
        func ideographic(_ s: Unicode.Scalar) -> Bool { s.isHanIdeograph || s.isKana }
        func latin(_ s: Unicode.Scalar) -> Bool {
            s.value < 0x2E80 && (s.properties.isAlphabetic || s.properties.numericType != nil) && !s.isHangul
        }
        return (ideographic(a) && latin(b)) || (latin(a) && ideographic(b))
    }

    /// The character at global offset `offset`.
    func scalar(at offset: Int) -> Unicode.Scalar { scalars[offset] }

    /// How many punctuation characters in `line` (global offsets) are set in another face than
    /// the nearest letters of their own style run on both sides where it has them: a comma
    /// after `<b>bold</b>` set bold, a bracket after `<code>` set in the code's font.
    /// Ideographs, kana and hangul are not counted as neighbours (their fallback font's
    /// punctuation is theirs; a Latin quote beside them keeps the text's font). For reports
    /// (`galley typeset --lines`, `scripts/check-typesetting.py`).
    func punctuationInAnotherFace(_ line: Range<Int>) -> Int {
        var count = 0
        for offset in line {
            let scalar = scalars[offset]
            guard scalar.isPunctuation else { continue }
            let item = items[items.firstIndex(endingAfter: offset)].item
            guard case .text(let face) = item.kind else { continue }
            func neighbour(_ step: Int) -> FontFace?? {
                var other = offset + step
                while line.contains(other) {
                    let near = scalars[other]
                    // Ideographs, kana and hangul come from a fallback font whose punctuation a
                    // Latin quote beside them need not share: not the neighbours that count.
                    if near.isWideCJK || (0xAC00...0xD7AF).contains(near.value) { return .some(nil) }
                    if near.properties.isAlphabetic || near.properties.numericType != nil {
                        let nearItem = items[items.firstIndex(endingAfter: other)].item
                        guard nearItem.style == item.style, case .text(let nearFace) = nearItem.kind else { return .some(nil) }
                        return .some(nearFace)
                    }
                    other += step
                }
                return nil
            }
            // nil: no letter that side; .some(nil): the nearest is in another style run.
            // A mark the neighbours' face does not have (an ideographic comma before a Latin
            // word) could be set in no other face.
            let sides = [neighbour(-1), neighbour(1)].compactMap { $0 }.compactMap { $0 }
            if !sides.isEmpty && sides.allSatisfy({ $0 !== face && $0.glyph(for: scalar) != nil }) { count += 1 }
        }
        return count
    }

    /// Whether global `offset` is in the list marker the paragraph starts with, whose space
    /// never takes a justified line's slack (`ParagraphStyle.markerLength`).
    func isInMarker(_ offset: Int) -> Bool { offset < paragraph.lowerBound + style.markerLength }

    /// Natural width of a line of local characters `a..<b`, with the hyphen it shows when it
    /// ends at a hyphen opportunity.
    func lineWidth(_ a: Int, _ b: Int) -> Double {
        width(a, b) + (b > a && breaks[b - 1] == .hyphen ? hyphens[b - 1]?.advance ?? 0 : 0)
    }
}

extension ParagraphAnalysis {
    /// What a window starting at a restart point carries over from the text before it.
    struct Resumption {
        /// The global offset the window starts at.
        var offset: Int
        /// The running sums of `widthPrefix` and `stretchPrefix` there.
        var width = 0.0
        var separators = 0
        var separatorWidth = 0.0
        var clusters = 0
        var clusterGaps = 0
        var ideographs = 0
        /// What the itemizer decided for the characters before; nil at the paragraph's start.
        var itemizer: Itemizer.Context?
    }

    /// Whether a window may start at global offset `offset` (strictly inside `range`): text
    /// analysed afresh from there gives what the analysis of the whole paragraph gives, for
    /// each stage:
    ///
    /// - line breaks: libunibreak (1.1) carries from one character to the next the class of
    ///   the last one that was not a space, and skips combining marks. After any character of
    ///   another class it is in the state it starts in at that character, so the character
    ///   here must not be a space or a combining mark (`restartsLineBreaking`).
    /// - shaping: the character starts an item, or starts a cluster whose glyphs HarfBuzz did
    ///   not mark unsafe to break (no ligature, kerning or contextual form reaches across:
    ///   shaped in two parts, with context, the glyphs are the same). Words shaped apart
    ///   (`ShapingCache`) start clusters HarfBuzz never marks.
    /// - hyphenation: not between two letters of a word that may be hyphenated automatically;
    ///   a token cut by the window (addresses and numbers are not hyphenated) is judged whole.
    /// - itemizing and bidi levels carry no condition: `Resumption` and `ParagraphBidi`.
    func isRestartPoint(_ offset: Int) -> Bool {
        let scalar = scalars[offset]
        guard scalar.restartsLineBreaking else { return false }
        if hyphenatesAutomatically && scalar.isHyphenatableLetter && scalars[offset - 1].isHyphenatableLetter { return false }
        let shaped = items[items.firstIndex(endingAfter: offset)]
        guard shaped.item.range.lowerBound != offset else { return true }
        let glyphs = shaped.glyphIndices(covering: offset..<(offset + 1))
        return !glyphs.isEmpty && !shaped.glyphs[glyphs].contains { $0.unsafeToBreak }
    }

    /// The hyphen a line cut between local characters `local - 1` and `local` would show when no
    /// opportunity fits: when both are letters of a word set as text, with at least `before`
    /// letters of the word before the cut and `after` after it; nil for code (whose lines wrap
    /// without one), text with `hyphens: none`, and addresses and numbers (never hyphenated).
    func emergencyHyphen(before local: Int, fragments: (before: Int, after: Int)) -> HyphenGlyph? {
        guard local > 0, local < range.count else { return nil }
        let offset = range.lowerBound + local
        guard scalars[offset - 1].isHyphenatableLetter, scalars[offset].isHyphenatableLetter else { return nil }
        let shaped = items[items.firstIndex(endingAfter: offset)]
        guard !shaped.item.style.verbatim, shaped.item.style.hyphens != .none else { return nil }
        var wordStart = offset, wordEnd = offset
        while wordStart > range.lowerBound, offset - wordStart <= fragments.before, scalars[wordStart - 1].isHyphenatableLetter { wordStart -= 1 }
        while wordEnd < range.upperBound, wordEnd - offset <= fragments.after, scalars[wordEnd].isHyphenatableLetter { wordEnd += 1 }
        guard offset - wordStart >= fragments.before, wordEnd - offset >= fragments.after else { return nil }
        if emergencyToken.range?.contains(offset) != true {
            var tokenStart = offset, tokenEnd = offset
            while tokenStart > range.lowerBound, !scalars[tokenStart - 1].isWhitespaceOrObjectReplacement { tokenStart -= 1 }
            while tokenEnd < range.upperBound, !scalars[tokenEnd].isWhitespaceOrObjectReplacement { tokenEnd += 1 }
            emergencyToken.range = tokenStart..<tokenEnd
            emergencyToken.looksLikeAddressOrNumber = ParagraphAnalyzer.looksLikeAddressOrNumber(scalars[tokenStart..<tokenEnd])
        }
        guard !emergencyToken.looksLikeAddressOrNumber else { return nil }
        return ParagraphAnalyzer.hyphenGlyph(for: shaped.item)
    }

    /// The mark a line cut between local characters `local - 1` and `local` shows when both are
    /// code (`verbatim`) outside a preformatted block and the layout has a `preformatted_marker`:
    /// code is not hyphenated, but a reader must see that `pd_pagesize_versio` goes on. Lines
    /// of a preformatted block show the marker at the start of their continuation instead.
    func codeContinuationMark(before local: Int) -> HyphenGlyph? {
        guard let continuationMarker, style.continuationIndent == 0, local > 0, local < range.count else { return nil }
        let offset = range.lowerBound + local
        guard !scalars[offset - 1].isWhitespaceOrObjectReplacement, !scalars[offset].isWhitespaceOrObjectReplacement else { return nil }
        let shaped = items[items.firstIndex(endingAfter: offset)]
        guard shaped.item.style.verbatim else { return nil }
        return ParagraphAnalyzer.hyphenGlyph(for: shaped.item, scalars: [continuationMarker])
    }

    /// A line ends after local `local` with a hyphen (`emergencyHyphen`): the opportunity a
    /// word too wide for its line is given as the last resort.
    mutating func markHyphen(after local: Int, _ hyphen: HyphenGlyph) {
        breaks[local] = .hyphen
        hyphens[local] = hyphen
    }

    /// The last restart point at or before global offset `offset`, no later than `exactEnd`;
    /// the analysis's own start when there is none after it.
    func restartPoint(atOrBefore offset: Int) -> Int {
        var point = min(offset, exactEnd, range.upperBound - 1)
        while point > range.lowerBound && !isRestartPoint(point) { point -= 1 }
        return max(point, range.lowerBound)
    }

    /// What a window starting at `offset`, a restart point of this analysis (or its start),
    /// carries over.
    func resumption(at offset: Int) -> Resumption {
        guard offset > range.lowerBound else { return start }
        let local = offset - range.lowerBound
        let prefix = stretchPrefix
        // The script and orientation of the character before, and the face of the last text
        // character before: each item has one of each.
        let holding = items.firstIndex(endingAfter: offset - 1)
        var face = start.itemizer?.face
        for index in stride(from: holding, through: 0, by: -1) {
            if case .text(let itemFace) = items[index].item.kind {
                face = itemFace
                break
            }
        }
        let item = items[holding].item
        return Resumption(offset: offset, width: widthPrefix[local], separators: prefix.separators[local],
                          separatorWidth: prefix.separatorWidth[local], clusters: prefix.clusters[local],
                          clusterGaps: prefix.clusterGaps[local], ideographs: prefix.ideographs[local],
                          itemizer: Itemizer.Context(face: face, script: item.script, upright: item.upright))
    }
}

/// The hyphen shown at a line's end: U+2010 from the font of the character before the break
/// when it has one, else U+002D. It is drawn in the run of that character's item, so in its
/// face and style.
struct HyphenGlyph {
    var glyph: UInt32
    /// Points.
    var advance: Double
    /// Where the glyph is drawn from the pen, along and across the line (as
    /// `ShapedGlyph.xOffset` and `yOffset`): zero but in upright vertical text.
    var xOffset = 0.0
    var yOffset = 0.0
}

/// An item with its glyphs, or its box for an attachment.
struct ShapedItem {
    var item: TextItem
    var glyphs: [ShapedGlyph]
    /// An attachment's box in points (zero for text).
    var boxWidth: Double = 0
    var boxHeight: Double = 0
    /// An inline-block's: how far it reaches below the baseline, or the line edge it is
    /// aligned to instead (`InlineBlock.drop`).
    var boxDrop: Double = 0
    var boxAlignment: InlineBlock.Alignment?
}

extension ShapedItem {
    /// The glyphs whose clusters can lie in `clusters` (global offsets): a contiguous block,
    /// because HarfBuzz keeps clusters monotone in its output, ascending left to right and
    /// descending right to left. Found by binary search, so a line does not pass over every
    /// glyph of a paragraph-long item.
    func glyphIndices(covering clusters: Range<Int>) -> Range<Int> {
        let descending = item.level & 1 == 1
        // The first glyph at or after the block's start, then the first past its end.
        let start = partition { descending ? $0 < clusters.upperBound : $0 >= clusters.lowerBound }
        let end = partition { descending ? $0 < clusters.lowerBound : $0 >= clusters.upperBound }
        return start..<max(start, end)
    }

    /// The first glyph index whose cluster satisfies `isAfter`, which is false then true
    /// along the glyphs.
    private func partition(_ isAfter: (Int) -> Bool) -> Int {
        var low = 0, high = glyphs.count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(glyphs[middle].cluster) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension [ShapedItem] {
    /// The index of the first item that ends after `offset` (global): items tile their
    /// paragraph in order, so a binary search finds where a line or a character is without a
    /// pass over the paragraph's items.
    func firstIndex(endingAfter offset: Int) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle].item.range.upperBound > offset { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// Analyses paragraphs of one text for one layout: whole, or in windows when they are longer
/// than `window` characters, so that a paragraph of any length costs one window's analysis.
struct ParagraphAnalyzer {
    private var itemizer: Itemizer
    private let shaper = ShapingCache()
    let text: AttributedText
    /// Largest box an attachment may take: the column's width and height on the page.
    let maximumBox: (width: Double, height: Double)
    /// Lines run top to bottom: an attachment's height lies along the line.
    let vertical: Bool
    /// The content width of the block around the paragraph being set (its column less its
    /// indents and the sized boxes around it), when the framesetter knows it: pictures fit it,
    /// and a picture's percentage width is of it. Nil: `maximumBox`'s width.
    var pictureMeasure: Double?

    let typography: ArticleLayout.Typography
    private let hyphenator: Hyphenator
    /// Languages of words that `hyphens: auto` asked to hyphenate but no dictionary covers
    /// ("" for text with no language at all).
    private(set) var unhyphenatedLanguages: Set<String> = []
    /// Each word's hyphenation points, shared by the copies a framesetter makes of its analyzer
    /// (column balancing sets the same paragraphs in several trial copies, which each asked
    /// libhyphen again).
    private let hyphenationPoints = HyphenationMemo()

    /// Paragraphs longer than this many characters are analysed in windows this long (a
    /// window of 64 K characters takes about 6 MB). Tests make it small to check that windows
    /// set the same lines as whole paragraphs.
    let window: Int
    static let defaultWindow = Framesetter.defaultAnalysisWindow
    /// The last characters of a window that are context only: what lies in them can depend on
    /// text after the window (the next character, for libunibreak; glyphs that HarfBuzz would
    /// form or kern with the text beyond; a word cut in two).
    static let contextMargin = 64
    /// Characters on either side of a window that HarfBuzz is shown as context (it keeps 5).
    static let shapingContext = 8

    /// The bidi levels of the paragraph analysed in windows.
    private var bidi: ParagraphBidi?
    /// What a picture in the last paragraph asked about shares its line with (`textBeside`).
    private var paragraphTextBeside: (paragraph: Int, value: TextBeside?)?
    /// Whether the last paragraph asked about is hyphenated automatically somewhere.
    private var automaticHyphenation: (paragraph: Int, value: Bool)?
    /// Characters no font covers are counted up to here in this paragraph, so that windows
    /// that overlap count each once.
    private var countedThrough = (paragraph: -1, offset: 0)
    /// The last token a window cut in two, judged whole by `looksLikeAddressOrNumber`.
    private var cutToken: (range: Range<Int>, looksLikeAddressOrNumber: Bool)?

    /// Hyphenation points by word: nil where no dictionary covers the word's language. A
    /// class, so that the analyzer's copies share what any of them found; an analyzer and its
    /// copies are used on one thread, the typesetter's.
    private final class HyphenationMemo {
        var points: [WordKey: [Int]?] = [:]
    }

    fileprivate struct WordKey: Hashable {
        var language: String
        /// A slice of the text itself (compared and hashed by its characters), so looking a
        /// word up copies nothing.
        var word: ArraySlice<Unicode.Scalar>
    }

    init(text: AttributedText, fonts: FontLibrary, maximumBox: (width: Double, height: Double),
         typography: ArticleLayout.Typography = .init(), vertical: Bool = false, hyphenator: Hyphenator = .shared,
         window: Int = defaultWindow) {
        precondition(window > 0, "an analysis window holds characters")
        self.window = window
        self.text = text
        self.itemizer = Itemizer(text: text, fonts: fonts, vertical: vertical)
        self.maximumBox = maximumBox
        self.vertical = vertical
        self.typography = typography
        self.hyphenator = hyphenator
    }

    /// Checked between items (and by the shaper between pieces of one): a cancelled analysis
    /// throws `cancelled`.
    var cancellation: Cancellation? { shaper.cancellationSlot.current }
    /// Where the cancellation is kept: the framesetter's (`Framesetter.cancellation`).
    var cancellationSlot: CancellationSlot {
        get { shaper.cancellationSlot }
        set { shaper.cancellationSlot = newValue }
    }

    /// Characters no installed font covers, with their counts.
    var uncoveredCharacters: [Unicode.Scalar: Int] { itemizer.uncovered }

    /// What a picture in a line of text must leave room for (`attachmentBox`): the paragraph's
    /// line height (a factor) and, in horizontal text, the most the text reaches below the
    /// baseline, descent and line gap (vertical text is centred on the line, as the picture is).
    struct TextBeside {
        var lineHeight: Double
        var below: Double
    }

    /// The text a picture in paragraph `index` may share a line with; nil when the paragraph
    /// holds nothing but pictures and white space (a line of pictures alone is as thick as
    /// they are). Judged from the whole paragraph, every style run of it (a larger run may
    /// share the picture's line), so windows of a paragraph size its pictures alike; found once
    /// per paragraph.
    private mutating func textBeside(paragraph index: Int) throws(TypesetError) -> TextBeside? {
        if let known = paragraphTextBeside, known.paragraph == index { return known.value }
        let range = text.paragraphs[index].range
        var beside: TextBeside?
        if text.scalars[range].contains(where: { $0 != AttributedText.objectReplacement && !$0.properties.isWhitespace }) {
            var below = 0.0
            if !vertical {
                var run = text.styleRunIndex(at: range.lowerBound)
                while run < text.styleRuns.count && text.styleRuns[run].range.lowerBound < range.upperBound {
                    let style = text.styleRuns[run].value
                    let face = try itemizer.fonts.fallback(for: style.font, language: style.language).primary()
                    below = max(below, max(0, face.descender * style.size - style.baselineShift) + face.lineGap * style.size)
                    run += 1
                }
            }
            beside = TextBeside(lineHeight: max(1, text.paragraphs[index].value.lineHeight), below: below + LineFiller.tolerance)
        }
        paragraphTextBeside = (index, beside)
        return beside
    }

    /// A box for an attachment with no size: 4:3, a third of the measure wide.
    static let defaultBox = (width: 120.0, height: 90.0)

    /// Analyses paragraph `index` from `resumption` (from its start when nil): all of what is
    /// left of it when that is at most `length` characters (`window` unless told), else a
    /// window of `length` characters.
    mutating func analyze(paragraph index: Int, from resumption: ParagraphAnalysis.Resumption? = nil,
                          length: Int? = nil) throws(TypesetError) -> ParagraphAnalysis {
        let paragraph = text.paragraphs[index]
        let whole = paragraph.range
        let start = resumption ?? ParagraphAnalysis.Resumption(offset: whole.lowerBound)
        let length = length ?? window
        let range = start.offset..<(whole.upperBound - start.offset <= length ? whole.upperBound : start.offset + length)
        let levels: [UInt8], baseLevel: UInt8
        if range == whole {
            (levels, baseLevel) = Itemizer.bidiLevels(text.scalars[whole], direction: paragraph.value.direction)
        } else {
            var bidi = self.bidi.flatMap { $0.paragraph == whole ? $0 : nil }
                ?? ParagraphBidi(text: text, paragraph: whole, direction: paragraph.value.direction, spacing: window)
            self.bidi = nil
            levels = bidi.levels(of: range)
            baseLevel = bidi.baseLevel
            self.bidi = bidi
        }
        let countingFrom = countedThrough.paragraph == index ? max(countedThrough.offset, range.lowerBound) : range.lowerBound
        let items = try itemizer.items(of: range, levels: levels, after: start.itemizer, paragraphEnd: whole.upperBound,
                                       countingFrom: countingFrom)
        countedThrough = (index, max(countingFrom, range.upperBound))
        // HarfBuzz sees a few characters around a window, as it sees them around an item
        // inside the whole paragraph.
        let context = max(whole.lowerBound, range.lowerBound - Self.shapingContext)..<min(whole.upperBound, range.upperBound + Self.shapingContext)
        let codes = text.scalars[context].map { $0.value }
        let count = range.count
        var shaped: [ShapedItem] = []
        shaped.reserveCapacity(items.count)
        var advances = [Double](repeating: 0, count: count)
        var clusterStart = [Bool](repeating: false, count: count)
        for item in items {
            if cancellation?.isCancelled == true { throw TypesetError(.cancelled, "typesetting was stopped") }
            switch item.kind {
            case .text(let face):
                var glyphs = shaper.shape(item, face: face, paragraph: codes, paragraphStart: context.lowerBound)
                Shaper.addSpacing(to: &glyphs, of: item, paragraph: codes, paragraphStart: context.lowerBound)
                if cancellation?.isCancelled == true { throw TypesetError(.cancelled, "typesetting was stopped") }
                advances.withUnsafeMutableBufferPointer { advances in
                    clusterStart.withUnsafeMutableBufferPointer { clusterStart in
                        for glyph in glyphs {
                            // Clusters are offsets of the item's characters, inside the paragraph.
                            let local = glyph.cluster - range.lowerBound
                            precondition(local >= 0 && local < count, "a glyph's cluster lies outside its paragraph")
                            advances[local] += glyph.advance
                            clusterStart[local] = true
                        }
                    }
                }
                shaped.append(ShapedItem(item: item, glyphs: glyphs))
            case .attachment(let attachmentIndex):
                // A picture stands upright in any text: in a vertical line its height runs
                // along the line and its width across.
                // A floated picture takes no room in its line: the framesetter sets it at the
                // column's edge.
                let attachment = text.attachments[attachmentIndex]
                let box = attachment.float == nil
                    ? attachmentBox(attachment, besideText: try textBeside(paragraph: index))
                    : (width: 0, height: 0)
                let (along, across) = vertical ? (box.height, box.width) : (box.width, box.height)
                advances[item.range.lowerBound - range.lowerBound] = along
                clusterStart[item.range.lowerBound - range.lowerBound] = true
                var shapedBox = ShapedItem(item: item, glyphs: [], boxWidth: along, boxHeight: across)
                if let block = attachment.inlineBlock { (shapedBox.boxDrop, shapedBox.boxAlignment) = block.drop(height: across, fontSize: item.style.size) }
                shaped.append(shapedBox)
            case .separator:
                for offset in item.range { clusterStart[offset - range.lowerBound] = true }
                shaped.append(ShapedItem(item: item, glyphs: []))
            }
        }
        // A character a mark attaches to keeps its marks: a cluster start must not be a mark.
        for (i, scalar) in text.scalars[range].enumerated() where clusterStart[i] && scalar.isMark {
            clusterStart[i] = false
        }
        // `text-autospace`: a quarter em after a character that meets a character of the other
        // kind (decided on the text, so every window adds the same).
        var autospace: [Int: Double] = [:]
        if typography.textAutospace {
            for i in 0..<count where range.lowerBound + i + 1 < whole.upperBound {
                let offset = range.lowerBound + i
                guard ParagraphAnalysis.isAutospaceBoundary(text.scalars[offset], text.scalars[offset + 1]) else { continue }
                let extra = 0.25 * text.styleRuns[text.styleRunIndex(at: offset)].value.size
                autospace[i] = extra
                advances[i] += extra
            }
        }
        // Sums run from the paragraph's start, through the windows before this one.
        var prefix = [Double](repeating: start.width, count: count + 1)
        for i in 0..<count { prefix[i + 1] = prefix[i] + advances[i] }
        let language = text.styleRuns[text.styleRunIndex(at: whole.lowerBound)].value.language
        let hangs = text.scalars[range].map { scalar in
            scalar == " " || scalar == "\t" || scalar == "\u{3000}" || scalar == AttributedText.paragraphSeparator
                || scalar == AttributedText.lineSeparator
        }
        // libunibreak starts afresh at the window's start: a restart point, where that gives
        // what it gives inside the whole paragraph.
        let windowCodes = context == range ? codes : Array(codes[(range.lowerBound - context.lowerBound)..<(range.upperBound - context.lowerBound)])
        var breaks = LineBreaks.opportunities(windowCodes, language: language)
        LineBreaks.tailor(&breaks, codes: windowCodes[...], level: paragraph.value.lineBreak, language: language, clusterStart: clusterStart)
        let hyphens = hyphenation(of: range, paragraph: whole, items: shaped, breaks: &breaks, clusterStart: clusterStart)
        // Spaces of code (`TextStyle.verbatim`) are not word separators that take slack.
        var verbatim = [Bool](repeating: false, count: count)
        var run = text.styleRunIndex(at: range.lowerBound)
        while run < text.styleRuns.count, text.styleRuns[run].range.lowerBound < range.upperBound {
            let styleRun = text.styleRuns[run]
            for offset in max(styleRun.range.lowerBound, range.lowerBound)..<min(styleRun.range.upperBound, range.upperBound) {
                verbatim[offset - range.lowerBound] = styleRun.value.verbatim
            }
            run += 1
        }
        // Preformatted text wraps at the last of them that fits, as at a space.
        Self.markCodeBreaks(in: text.scalars, range: range, verbatim: verbatim, clusterStart: clusterStart,
                            as: paragraph.value.continuationIndent > 0 ? .allowed : .code, breaks: &breaks)
        var separators = [Int](repeating: start.separators, count: count + 1), clusters = [Int](repeating: start.clusters, count: count + 1)
        var ideographs = [Int](repeating: start.ideographs, count: count + 1)
        var clusterGaps = [Int](repeating: start.clusterGaps, count: count + 1)
        var letterGap = [Bool](repeating: false, count: count)
        var previous: Unicode.Scalar = range.lowerBound > 0 ? text.scalars[range.lowerBound - 1] : " "
        // A list marker keeps its spacing: no gap inside it or after it (`isInMarker`).
        let markerEnd = range.lowerBound > paragraph.range.lowerBound ? 0 : paragraph.value.markerLength
        for (i, scalar) in text.scalars[range].enumerated() {
            let inMarker = i > 0 && i <= markerEnd
            clusterGaps[i + 1] = clusterGaps[i] + (clusterStart[i] && !inMarker && ParagraphAnalysis.takesClusterGap(after: previous, before: scalar) ? 1 : 0)
            // Code keeps its letters where they are, on both sides of the gap.
            letterGap[i] = i > 0 && clusterStart[i] && !verbatim[i] && !verbatim[i - 1]
                && ParagraphAnalysis.takesLetterGap(after: previous, before: scalar)
            previous = scalar
        }
        var separatorWidth = [Double](repeating: start.separatorWidth, count: count + 1)
        separators.withUnsafeMutableBufferPointer { separators in
            separatorWidth.withUnsafeMutableBufferPointer { separatorWidth in
                clusters.withUnsafeMutableBufferPointer { clusters in
                    ideographs.withUnsafeMutableBufferPointer { ideographs in
                        // A list marker's space stays as it is (`isInMarker`).
                        for (i, scalar) in text.scalars[range].enumerated() {
                            let separator = scalar.isWordSeparator && !verbatim[i] && !(i < markerEnd)
                            separators[i + 1] = separators[i] + (separator ? 1 : 0)
                            separatorWidth[i + 1] = separatorWidth[i] + (separator ? advances[i] : 0)
                            clusters[i + 1] = clusters[i] + (clusterStart[i] ? 1 : 0)
                            ideographs[i + 1] = ideographs[i] + (scalar.isWideCJK ? 1 : 0)
                        }
                    }
                }
            }
        }
        let stretch = ParagraphAnalysis.StretchPrefix(separators: separators, separatorWidth: separatorWidth, clusters: clusters,
                                                      clusterGaps: clusterGaps,
                                                      ideographs: ideographs, letterGap: letterGap)
        var analysis = ParagraphAnalysis(range: range, paragraph: whole, exactEnd: range.upperBound, start: start,
                                         scalars: text.scalars[range], style: paragraph.value, baseLevel: baseLevel,
                                         vertical: vertical, items: shaped, breaks: breaks, widthPrefix: prefix,
                                         clusterStart: clusterStart, hangs: hangs, hyphens: hyphens, stretchPrefix: stretch,
                                         hyphenatesAutomatically: hyphenatesAutomatically(paragraph: index))
        analysis.autospace = autospace
        analysis.continuationMarker = typography.continuationMarker
        let style = paragraph.value
        analysis.spacesShrink = style.justifiable
            && (style.alignment == .justify || ((style.alignment == .start || style.alignment == .left) && typography.justifyThreshold < 1))
        if range.upperBound < whole.upperBound {
            let last = range.upperBound - Self.contextMargin
            analysis.exactEnd = last > range.lowerBound ? analysis.restartPoint(atOrBefore: last) : range.lowerBound
        }
        return analysis
    }

    /// Whether any of paragraph `index` has `hyphens: auto`.
    private mutating func hyphenatesAutomatically(paragraph index: Int) -> Bool {
        if let automaticHyphenation, automaticHyphenation.paragraph == index { return automaticHyphenation.value }
        let range = text.paragraphs[index].range
        var run = text.styleRunIndex(at: range.lowerBound)
        var value = false
        while run < text.styleRuns.count && text.styleRuns[run].range.lowerBound < range.upperBound {
            if text.styleRuns[run].value.hyphens == .auto { value = true; break }
            run += 1
        }
        automaticHyphenation = (index, value)
        return value
    }

    /// Marks soft hyphens and, where the style says `hyphens: auto`, dictionary points as
    /// `.hyphen` opportunities, and finds the hyphen each would show.
    ///
    /// A soft hyphen breaks unless the style says `hyphens: none`. Automatic points are only
    /// inside runs of letters (so never after punctuation or a slash), never in a word with a
    /// digit or in something that looks like an address (`/`, `@`, `_`, `.` between letters…),
    /// never inside a cluster (a ligature, a letter and its marks), and leave at least the
    /// layout's minimum of characters on each side.
    ///
    /// `range` is the paragraph `paragraph` or a window of it.
    private mutating func hyphenation(of range: Range<Int>, paragraph: Range<Int>, items: [ShapedItem],
                                      breaks: inout [LineBreaks.Opportunity], clusterStart: [Bool]) -> [Int: HyphenGlyph] {
        let scalars = text.scalars[range]
        let start = range.lowerBound
        var runIndex = text.styleRunIndex(at: start)
        func style(at local: Int) -> TextStyle {
            while text.styleRuns[runIndex].range.upperBound <= start + local { runIndex += 1 }
            return text.styleRuns[runIndex].value
        }
        var candidates: [Int] = []
        for (local, scalar) in scalars.enumerated() where scalar == "\u{00AD}" && breaks[local] == .allowed {
            if style(at: local).hyphens == .none {
                breaks[local] = .prohibited
            } else {
                candidates.append(local)
            }
        }
        runIndex = text.styleRunIndex(at: start)
        // Most text is not hyphenated automatically: then there are no words to look for.
        var wantsAutomatic = false
        var probe = runIndex
        while probe < text.styleRuns.count && text.styleRuns[probe].range.lowerBound < range.upperBound {
            if text.styleRuns[probe].value.hyphens == .auto { wantsAutomatic = true; break }
            probe += 1
        }
        var local = wantsAutomatic ? 0 : scalars.count
        while local < scalars.count {
            // A token: a stretch without white space.
            guard !scalars[start + local].isWhitespaceOrObjectReplacement else { local += 1; continue }
            let tokenStart = local
            while local < scalars.count && !scalars[start + local].isWhitespaceOrObjectReplacement { local += 1 }
            guard !looksLikeAddressOrNumber(token: (start + tokenStart)..<(start + local), in: paragraph) else { continue }
            // A word already joined by a hyphen (`SQL-standard`, `update-index`) breaks at that
            // hyphen only, except in languages that hyphenate compounds (`Paketverwaltungs-System`).
            let joinedByHyphen = (tokenStart + 1..<max(tokenStart + 1, local - 1)).contains { index in
                Self.isHyphen(scalars[start + index]) && scalars[start + index - 1].isHyphenatableLetter
                    && scalars[start + index + 1].isHyphenatableLetter
            }
            let quotedName = Self.isQuotedLowercaseWord(scalars[(start + tokenStart)..<(start + local)])
            var i = tokenStart
            while i < local {
                guard scalars[start + i].isHyphenatableLetter else { i += 1; continue }
                let wordStart = i
                while i < local && scalars[start + i].isHyphenatableLetter { i += 1 }
                let wordStyle = style(at: wordStart)
                guard wordStyle.hyphens == .auto, style(at: i - 1).hyphens == .auto else { continue }
                guard let language = wordStyle.language else {
                    unhyphenatedLanguages.insert("")
                    continue
                }
                guard !joinedByHyphen || Hyphenator.hyphenatesJoinedWords(language) else { continue }
                guard !quotedName || !Hyphenator.capitalisesNouns(language) else { continue }
                let word = scalars[(start + wordStart)..<(start + i)]
                let key = WordKey(language: language, word: word)
                let found: [Int]?
                if let known = hyphenationPoints.points[key] {
                    found = known
                } else {
                    found = hyphenator.points(in: word, language: language,
                                              before: typography.hyphenateBefore, after: typography.hyphenateAfter)
                    // Words repeat: an article asks for a few thousand distinct ones.
                    if hyphenationPoints.points.count > 100_000 { hyphenationPoints.points.removeAll(keepingCapacity: true) }
                    hyphenationPoints.points[key] = .some(found)
                }
                if found == nil, !unhyphenatedLanguages.contains(language), !Hyphenator.writesWithoutHyphens(language) {
                    unhyphenatedLanguages.insert(language)
                }
                for point in found ?? [] {
                    let after = wordStart + point - 1
                    guard breaks[after] == .prohibited, clusterStart[after + 1] else { continue }
                    candidates.append(after)
                }
            }
        }
        var hyphens: [Int: HyphenGlyph] = [:]
        // The hyphen comes from the font of the character it follows: one per item.
        var itemHyphens: [Int: HyphenGlyph?] = [:]
        for local in candidates {
            let index = items.firstIndex(endingAfter: start + local)
            let hyphen: HyphenGlyph?
            if let known = itemHyphens[index] {
                hyphen = known
            } else {
                hyphen = index < items.count ? Self.hyphenGlyph(for: items[index].item) : nil
                itemHyphens[index] = hyphen
            }
            guard let hyphen else { continue }
            hyphens[local] = hyphen
            breaks[local] = .hyphen
        }
        return hyphens
    }

    /// Whether `token` is one word in lower case letters between quotation marks, with
    /// punctuation after the closing one at most (`»preinst«,`): a name or foreign word in a
    /// language that capitalises nouns (`Hyphenator.capitalisesNouns`).
    static func isQuotedLowercaseWord(_ token: ArraySlice<Unicode.Scalar>) -> Bool {
        var end = token.endIndex
        while end > token.startIndex, ".,;:!?)".unicodeScalars.contains(token[end - 1]) { end -= 1 }
        guard end - token.startIndex >= 3 else { return false }
        let quotes = "»«„“”\"‚‘’'›‹".unicodeScalars
        guard quotes.contains(token[token.startIndex]), quotes.contains(token[end - 1]) else { return false }
        return token[(token.startIndex + 1)..<(end - 1)].allSatisfy { $0.properties.isLowercase }
    }

    /// The hyphen a line ending in `item` shows: U+2010 from its face, else U+002D, placed
    /// by vertical metrics in upright vertical text; nil for an item without a face or hyphen.
    /// `scalars`: the characters to try in order (another mark than a hyphen).
    static func hyphenGlyph(for item: TextItem, scalars: [Unicode.Scalar] = ["\u{2010}", "-"]) -> HyphenGlyph? {
        guard case .text(let face) = item.kind, let glyph = scalars.lazy.compactMap({ face.glyph(for: $0) }).first else { return nil }
        let size = item.style.size
        var hyphen = HyphenGlyph(glyph: glyph, advance: face.advance(of: glyph) * size)
        if item.upright {
            let shift = face.verticalOriginShift(of: glyph)
            (hyphen.advance, hyphen.xOffset, hyphen.yOffset) = (face.verticalAdvance(of: glyph) * size, shift.down * size, shift.up * size)
        }
        return hyphen
    }

    /// `looksLikeAddressOrNumber` for the token of which `piece` is a part: all of it when a
    /// window's edge cuts it, as the whole paragraph's analysis sees it.
    /// A hyphen written in the text: hyphen-minus, U+2010 or the non-breaking U+2011.
    static func isHyphen(_ scalar: Unicode.Scalar) -> Bool { scalar == "-" || scalar == "\u{2010}" || scalar == "\u{2011}" }

    private mutating func looksLikeAddressOrNumber(token piece: Range<Int>, in paragraph: Range<Int>) -> Bool {
        if let cutToken, cutToken.range.contains(piece.lowerBound) { return cutToken.looksLikeAddressOrNumber }
        let scalars = text.scalars
        var token = piece
        while token.lowerBound > paragraph.lowerBound && !scalars[token.lowerBound - 1].isWhitespaceOrObjectReplacement {
            token = (token.lowerBound - 1)..<token.upperBound
        }
        while token.upperBound < paragraph.upperBound && !scalars[token.upperBound].isWhitespaceOrObjectReplacement {
            token = token.lowerBound..<(token.upperBound + 1)
        }
        let verdict = Self.looksLikeAddressOrNumber(scalars[token])
        if token != piece { cutToken = (token, verdict) }
        return verdict
    }

    /// Words with digits, and anything with the marks of an address, a path or code inside
    /// it (punctuation that ends a sentence or clause does not count).
    static func looksLikeAddressOrNumber(_ token: ArraySlice<Unicode.Scalar>) -> Bool {
        var body = token
        while let last = body.last, !last.isHyphenatableLetter, !last.isNumeric { body.removeLast() }
        var previous: Unicode.Scalar?
        for scalar in body {
            if scalar.isNumeric { return true }
            switch scalar {
            case "/", "\\", "@", "_", "=", "&", "?", "#", "~", "<", ">", "{", "}", "[", "]", "|", ":", "%", "+": return true
            default:
                if previous == ".", scalar.isHyphenatableLetter { return true }
            }
            previous = scalar
        }
        return false
    }

    /// Marks `.code` opportunities inside code (`verbatim`) set in running text: before a `.`
    /// that joins two names (`re` | `.compile`), after an opening bracket, a comma, a slash, an
    /// underscore, a colon or an equals sign, with at least two characters of the token on
    /// each side and never before a closing bracket or punctuation. The line breakers take one
    /// only where the line would otherwise be left loose: long identifiers in a narrow column
    /// are the commonest cause of loose lines in documentation, and no hyphen may be added to
    /// code. (Typeset documentation does the same: Sphinx's LaTeX output breaks inline
    /// literals at these characters, Chicago's rule for URLs breaks before a period.)
    ///
    /// In preformatted paragraphs (`continuationIndent`) they are marked `opportunity`
    /// `.allowed`: a wrapped line of code then ends at the last space or punctuation that
    /// fits (`sorted(list(` | `first))`), and between characters only where neither does.
    static func markCodeBreaks(in scalars: [Unicode.Scalar], range: Range<Int>, verbatim: [Bool], clusterStart: [Bool],
                               as opportunity: LineBreaks.Opportunity, breaks: inout [LineBreaks.Opportunity]) {
        guard verbatim.contains(true) else { return }
        func isTokenCharacter(_ offset: Int) -> Bool {
            offset >= 0 && offset < scalars.count && !scalars[offset].isWhitespaceOrObjectReplacement
        }
        func isCode(_ local: Int) -> Bool { local >= 0 && local < verbatim.count && verbatim[local] }
        for local in 0..<max(0, range.count - 2) where breaks[local] == .prohibited && isCode(local) && isCode(local + 1) {
            let offset = range.lowerBound + local
            // Two characters of the token on each side of the break (after `local`).
            guard isTokenCharacter(offset - 1), isTokenCharacter(offset), isTokenCharacter(offset + 1), isTokenCharacter(offset + 2),
                  clusterStart[local + 1] else { continue }
            let this = scalars[offset], next = scalars[offset + 1]
            let breaksAfter: Bool
            switch this {
            case "(", "[", "{", ",", "/", ":", "=": breaksAfter = true
            // Inside a name (`follow_` | `symlinks`), never after leading underscores (`__`).
            case "_": breaksAfter = scalars[offset - 1].properties.isAlphabetic || scalars[offset - 1].properties.numericType != nil
            default: breaksAfter = false
            }
            let beforeDot = next == "." && (this.properties.isAlphabetic || this == "_" || this == ")" || this == "]")
                && (scalars[offset + 2].properties.isAlphabetic || scalars[offset + 2] == "_")
            guard breaksAfter || beforeDot else { continue }
            // Never leave a closing bracket or punctuation to start the next line alone.
            switch next {
            case ")", "]", "}", ",", ";", ":", "_", "=": continue
            default: breaks[local] = opportunity
            }
        }
    }

    /// An attachment's box in points (page width and height), its size or the default,
    /// scaled down to fit the column; with `besideText`, to fit it in a line of that text.
    func attachmentBox(_ attachment: Attachment, besideText: TextBeside? = nil) -> (width: Double, height: Double) {
        guard !attachment.isSpacer else { return (0, min(attachment.height ?? 0, maximumBox.height)) }
        // An inline-block keeps the size its content gave it: never scaled, at most the column.
        if attachment.inlineBlock != nil { return (min(attachment.width ?? 0, maximumBox.width), min(attachment.height ?? 0, maximumBox.height)) }
        var size = attachment.filled(intrinsic: Self.defaultBox)
        var limit = maximumBox
        if !vertical, let pictureMeasure { limit.width = max(1, min(limit.width, pictureMeasure)) }
        if let fraction = attachment.widthFraction, !vertical, size.width > 0 {
            size = (fraction * limit.width, size.height * fraction * limit.width / size.width)
        }
        var w = max(1, size.width), h = max(1, size.height)
        // A line that holds text is `lineHeight` times as thick as its content: in horizontal
        // text the picture, standing on the baseline, and the text's descent and gap below it;
        // in vertical text the picture's width, centred on the line as the text is.
        if let besideText {
            func room(_ side: Double) -> Double { min(side, max(1, side / besideText.lineHeight - besideText.below)) }
            if vertical { limit.width = room(limit.width) } else { limit.height = room(limit.height) }
        }
        // Scaled down, aspect ratio kept, to fit the column.
        let factor = min(1, limit.width / w, limit.height / h)
        w *= factor
        h *= factor
        return (w, h)
    }
}

/// A token's range and whether it looks like an address or a number: `ParagraphAnalysis`'s
/// memo for `emergencyHyphen`. A class so that the analysis's copies share it; an analysis
/// is used by one typesetter, on one thread at a time.
final class TokenVerdict {
    var range: Range<Int>?
    var looksLikeAddressOrNumber = false
}
