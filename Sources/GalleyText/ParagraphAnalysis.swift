/// One paragraph itemized, shaped and broken into opportunities: everything the line filler
/// needs, computed once per paragraph and layout.
struct ParagraphAnalysis {
    /// Global text offsets of the paragraph, its final U+000A included.
    let range: Range<Int>
    /// The paragraph's characters, indexed by global offset.
    let scalars: ArraySlice<Unicode.Scalar>
    let style: ParagraphStyle
    /// 0 for a left-to-right paragraph, 1 for right-to-left.
    let baseLevel: UInt8
    /// Lines run top to bottom (widths are then lengths down the line).
    let vertical: Bool
    let items: [ShapedItem]
    /// Line break opportunity after each character (local offsets).
    let breaks: [LineBreaks.Opportunity]
    /// `widthPrefix[i]` = advance of characters `0..<i` (local), in points: a line's natural width
    /// is a difference of two entries.
    let widthPrefix: [Double]
    /// Whether a line may end before each character when no opportunity fits (a cluster
    /// boundary: never inside a ligature or between a letter and its marks).
    let clusterStart: [Bool]
    /// Whether each character is white space that hangs at a line's end.
    let hangs: [Bool]
    /// The hyphen a line shows when it ends after a local offset whose opportunity is
    /// `.hyphen`.
    let hyphens: [Int: HyphenGlyph]
    /// Counts over local characters `0..<i`, so that what a line may stretch is a difference
    /// of two entries: word separators, their advance, cluster starts, ideographs.
    let stretchPrefix: StretchPrefix

    struct StretchPrefix {
        var separators: [Int]
        var separatorWidth: [Double]
        var clusters: [Int]
        var ideographs: [Int]
    }

    /// Where a line's visible content ends: before its trailing hanging space.
    func visibleEnd(_ a: Int, _ b: Int) -> Int {
        var end = b
        while end > a && hangs[end - 1] { end -= 1 }
        return end
    }

    /// Natural width of local characters `a..<b`, trailing hanging space excluded.
    func width(_ a: Int, _ b: Int) -> Double {
        widthPrefix[visibleEnd(a, b)] - widthPrefix[a]
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
            let gaps = max(0, clusters - 1)
            return Stretch(betweenClusters: true, opportunities: gaps,
                           limit: width(a, end) / Double(max(1, clusters)) * 0.25 * Double(gaps))
        }
        let separators = prefix.separators[end] - prefix.separators[a]
        return Stretch(betweenClusters: false, opportunities: separators,
                       limit: (prefix.separatorWidth[end] - prefix.separatorWidth[a]) * Framesetter.maximumSpaceStretch)
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

    /// The character at global offset `offset`.
    func scalar(at offset: Int) -> Unicode.Scalar { scalars[offset] }

    /// Natural width of a line of local characters `a..<b`, with the hyphen it shows when it
    /// ends at a hyphen opportunity.
    func lineWidth(_ a: Int, _ b: Int) -> Double {
        width(a, b) + (b > a && breaks[b - 1] == .hyphen ? hyphens[b - 1]?.advance ?? 0 : 0)
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

/// Analyses paragraphs of one text for one layout.
struct ParagraphAnalyzer {
    private var itemizer: Itemizer
    private let shaper = ShapingCache()
    let text: AttributedText
    /// Largest box an attachment may take: the column's width and height on the page.
    let maximumBox: (width: Double, height: Double)
    /// Lines run top to bottom: an attachment's height lies along the line.
    let vertical: Bool

    let typography: ArticleLayout.Typography
    private let hyphenator: Hyphenator
    /// Languages of words that `hyphens: auto` asked to hyphenate but no dictionary covers
    /// ("" for text with no language at all).
    private(set) var unhyphenatedLanguages: Set<String> = []
    private var hyphenationPoints: [WordKey: [Int]] = [:]

    private struct WordKey: Hashable {
        var language: String
        /// A slice of the text itself (compared and hashed by its characters), so looking a
        /// word up copies nothing.
        var word: ArraySlice<Unicode.Scalar>
    }

    init(text: AttributedText, fonts: FontLibrary, maximumBox: (width: Double, height: Double),
         typography: ArticleLayout.Typography = .init(), vertical: Bool = false, hyphenator: Hyphenator = .shared) {
        self.text = text
        self.itemizer = Itemizer(text: text, fonts: fonts, vertical: vertical)
        self.maximumBox = maximumBox
        self.vertical = vertical
        self.typography = typography
        self.hyphenator = hyphenator
    }

    /// Characters no installed font covers, with their counts.
    var uncoveredCharacters: [Unicode.Scalar: Int] { itemizer.uncovered }

    /// A box for an attachment with no size: 4:3, a third of the measure wide.
    static let defaultBox = (width: 120.0, height: 90.0)

    mutating func analyze(paragraph index: Int) throws(TypesetError) -> ParagraphAnalysis {
        let paragraph = text.paragraphs[index]
        let range = paragraph.range
        let (items, baseLevel) = try itemizer.items(of: range, direction: paragraph.value.direction)
        let codes = text.scalars[range].map { $0.value }
        let count = range.count
        var shaped: [ShapedItem] = []
        shaped.reserveCapacity(items.count)
        var advances = [Double](repeating: 0, count: count)
        var clusterStart = [Bool](repeating: false, count: count)
        for item in items {
            switch item.kind {
            case .text(let face):
                let glyphs = shaper.shape(item, face: face, paragraph: codes, paragraphStart: range.lowerBound)
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
                let box = attachmentBox(text.attachments[attachmentIndex])
                let (along, across) = vertical ? (box.height, box.width) : (box.width, box.height)
                advances[item.range.lowerBound - range.lowerBound] = along
                clusterStart[item.range.lowerBound - range.lowerBound] = true
                shaped.append(ShapedItem(item: item, glyphs: [], boxWidth: along, boxHeight: across))
            case .separator:
                for offset in item.range { clusterStart[offset - range.lowerBound] = true }
                shaped.append(ShapedItem(item: item, glyphs: []))
            }
        }
        // A character a mark attaches to keeps its marks: a cluster start must not be a mark.
        for (i, scalar) in text.scalars[range].enumerated() where clusterStart[i] && scalar.isMark {
            clusterStart[i] = false
        }
        var prefix = [Double](repeating: 0, count: count + 1)
        for i in 0..<count { prefix[i + 1] = prefix[i] + advances[i] }
        let language = text.styleRuns[text.styleRunIndex(at: range.lowerBound)].value.language
        let hangs = text.scalars[range].map { scalar in
            scalar == " " || scalar == "\t" || scalar == "\u{3000}" || scalar == AttributedText.paragraphSeparator
                || scalar == AttributedText.lineSeparator
        }
        var breaks = LineBreaks.opportunities(codes, language: language)
        let hyphens = hyphenation(of: range, items: shaped, breaks: &breaks, clusterStart: clusterStart)
        var separators = [Int](repeating: 0, count: count + 1), clusters = separators, ideographs = separators
        var separatorWidth = [Double](repeating: 0, count: count + 1)
        separators.withUnsafeMutableBufferPointer { separators in
            separatorWidth.withUnsafeMutableBufferPointer { separatorWidth in
                clusters.withUnsafeMutableBufferPointer { clusters in
                    ideographs.withUnsafeMutableBufferPointer { ideographs in
                        for (i, scalar) in text.scalars[range].enumerated() {
                            let separator = scalar.isWordSeparator
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
                                                      ideographs: ideographs)
        return ParagraphAnalysis(range: range, scalars: text.scalars[range], style: paragraph.value, baseLevel: baseLevel,
                                 vertical: vertical, items: shaped,
                                 breaks: breaks, widthPrefix: prefix, clusterStart: clusterStart, hangs: hangs,
                                 hyphens: hyphens, stretchPrefix: stretch)
    }

    /// Marks soft hyphens and, where the style says `hyphens: auto`, dictionary points as
    /// `.hyphen` opportunities, and finds the hyphen each would show.
    ///
    /// A soft hyphen breaks unless the style says `hyphens: none`. Automatic points are only
    /// inside runs of letters (so never after punctuation or a slash), never in a word with a
    /// digit or in something that looks like an address (`/`, `@`, `_`, `.` between letters…),
    /// never inside a cluster (a ligature, a letter and its marks), and leave at least the
    /// layout's minimum of characters on each side.
    private mutating func hyphenation(of range: Range<Int>, items: [ShapedItem], breaks: inout [LineBreaks.Opportunity],
                                      clusterStart: [Bool]) -> [Int: HyphenGlyph] {
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
            let token = scalars[(start + tokenStart)..<(start + local)]
            guard !Self.looksLikeAddressOrNumber(token) else { continue }
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
                let word = scalars[(start + wordStart)..<(start + i)]
                let key = WordKey(language: language, word: word)
                let points: [Int]
                if let known = hyphenationPoints[key] {
                    points = known
                } else {
                    let found = hyphenator.points(in: word, language: language,
                                                  before: typography.hyphenateBefore, after: typography.hyphenateAfter)
                    if found == nil, !unhyphenatedLanguages.contains(language), !Hyphenator.writesWithoutHyphens(language) {
                        unhyphenatedLanguages.insert(language)
                    }
                    points = found ?? []
                    // Words repeat: an article asks for a few thousand distinct ones.
                    if hyphenationPoints.count > 100_000 { hyphenationPoints.removeAll(keepingCapacity: true) }
                    hyphenationPoints[key] = points
                }
                for point in points {
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

    /// The hyphen a line ending in `item` shows: U+2010 from its face, else U+002D, placed
    /// by vertical metrics in upright vertical text; nil for an item without a face or hyphen.
    private static func hyphenGlyph(for item: TextItem) -> HyphenGlyph? {
        guard case .text(let face) = item.kind, let glyph = face.glyph(for: "\u{2010}") ?? face.glyph(for: "-") else { return nil }
        let size = item.style.size
        var hyphen = HyphenGlyph(glyph: glyph, advance: face.advance(of: glyph) * size)
        if item.upright {
            let shift = face.verticalOriginShift(of: glyph)
            (hyphen.advance, hyphen.xOffset, hyphen.yOffset) = (face.verticalAdvance(of: glyph) * size, shift.down * size, shift.up * size)
        }
        return hyphen
    }

    /// Words with digits, and anything with the marks of an address, a path or code inside
    /// it (punctuation that ends a sentence or clause does not count).
    private static func looksLikeAddressOrNumber(_ token: ArraySlice<Unicode.Scalar>) -> Bool {
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

    private func attachmentBox(_ attachment: Attachment) -> (width: Double, height: Double) {
        let size = attachment.filled(intrinsic: Self.defaultBox)
        var w = max(1, size.width), h = max(1, size.height)
        // Scaled down, aspect ratio kept, to fit the column.
        let factor = min(1, maximumBox.width / w, maximumBox.height / h)
        w *= factor
        h *= factor
        return (w, h)
    }
}
