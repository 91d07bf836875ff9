/// One paragraph itemized, shaped and broken into opportunities: everything the line filler
/// needs, computed once per paragraph and layout.
struct ParagraphAnalysis {
    /// Global text offsets of the paragraph, its final U+000A included.
    let range: Range<Int>
    let style: ParagraphStyle
    /// 0 for a left-to-right paragraph, 1 for right-to-left.
    let baseLevel: UInt8
    let items: [ShapedItem]
    /// Line break opportunity after each character (local offsets).
    let breaks: [LineBreaks.Opportunity]
    /// `width[i]` = advance of characters `0..<i` (local), in points: a line's natural width
    /// is a difference of two entries.
    let widthPrefix: [Double]
    /// Whether a line may end before each character when no opportunity fits (a cluster
    /// boundary: never inside a ligature or between a letter and its marks).
    let clusterStart: [Bool]
    /// Whether each character is white space that hangs at a line's end.
    let hangs: [Bool]

    /// Natural width of local characters `a..<b`, trailing hanging space excluded.
    func width(_ a: Int, _ b: Int) -> Double {
        var end = b
        while end > a && hangs[end - 1] { end -= 1 }
        return widthPrefix[end] - widthPrefix[a]
    }
}

/// An item with its glyphs, or its box for an attachment.
struct ShapedItem {
    var item: TextItem
    var glyphs: [ShapedGlyph]
    /// An attachment's box in points (zero for text).
    var boxWidth: Double = 0
    var boxHeight: Double = 0
}

/// Analyses paragraphs of one text for one layout.
struct ParagraphAnalyzer {
    private var itemizer: Itemizer
    private let shaper = Shaper()
    let text: AttributedText
    /// Largest box an attachment may take: the column's measure and height.
    let maximumBox: (width: Double, height: Double)

    init(text: AttributedText, fonts: FontLibrary, maximumBox: (width: Double, height: Double)) {
        self.text = text
        self.itemizer = Itemizer(text: text, fonts: fonts)
        self.maximumBox = maximumBox
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
                for glyph in glyphs {
                    advances[glyph.cluster - range.lowerBound] += glyph.advance
                    clusterStart[glyph.cluster - range.lowerBound] = true
                }
                shaped.append(ShapedItem(item: item, glyphs: glyphs))
            case .attachment(let attachmentIndex):
                let box = attachmentBox(text.attachments[attachmentIndex])
                advances[item.range.lowerBound - range.lowerBound] = box.width
                clusterStart[item.range.lowerBound - range.lowerBound] = true
                shaped.append(ShapedItem(item: item, glyphs: [], boxWidth: box.width, boxHeight: box.height))
            case .separator:
                for offset in item.range { clusterStart[offset - range.lowerBound] = true }
                shaped.append(ShapedItem(item: item, glyphs: []))
            }
        }
        // A character a mark attaches to keeps its marks: a cluster start must not be a mark.
        for (i, scalar) in text.scalars[range].enumerated() where clusterStart[i] && scalar.value >= 0x300 {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: clusterStart[i] = false
            default: break
            }
        }
        var prefix = [Double](repeating: 0, count: count + 1)
        for i in 0..<count { prefix[i + 1] = prefix[i] + advances[i] }
        let language = text.styleRuns[text.styleRunIndex(at: range.lowerBound)].value.language
        let hangs = text.scalars[range].map { scalar in
            scalar == " " || scalar == "\t" || scalar == "\u{3000}" || scalar == AttributedText.paragraphSeparator
                || scalar == AttributedText.lineSeparator
        }
        return ParagraphAnalysis(range: range, style: paragraph.value, baseLevel: baseLevel, items: shaped,
                                 breaks: LineBreaks.opportunities(text.scalars[range], language: language),
                                 widthPrefix: prefix, clusterStart: clusterStart, hangs: hangs)
    }

    private func attachmentBox(_ attachment: Attachment) -> (width: Double, height: Double) {
        var width = attachment.width, height = attachment.height
        switch (width, height) {
        case (nil, nil): (width, height) = Self.defaultBox
        case (let w?, nil): height = w * Self.defaultBox.height / Self.defaultBox.width
        case (nil, let h?): width = h * Self.defaultBox.width / Self.defaultBox.height
        default: break
        }
        var w = max(1, width ?? 1), h = max(1, height ?? 1)
        // Scaled down, aspect ratio kept, to fit the column.
        let factor = min(1, maximumBox.width / w, maximumBox.height / h)
        w *= factor
        h *= factor
        return (w, h)
    }
}
