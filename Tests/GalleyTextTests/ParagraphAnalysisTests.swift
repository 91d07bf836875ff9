@testable import GalleyText
import Testing

// A window of a long paragraph starts at a restart point and carries over what the text
// before it decided; up to its `exactEnd` it must say what the analysis of the whole paragraph
// says, stage by stage: items, glyphs (and HarfBuzz's flags), break opportunities, hyphens,
// cluster boundaries, hanging spaces and the running sums, to the bit. Checked from restart
// points spread over every long paragraph of the samples, not only where lines happen to start.

/// What an analysis says about the characters of a global range.
private struct AnalysisView: Equatable {
    /// Per character: opportunity, cluster start, hanging.
    var characters: [String] = []
    /// Per character: the running sums after it.
    var sums: [[Double]] = []
    /// The items over the range, cut to it: range, kind, level, script, orientation, style.
    var items: [String] = []
    /// Glyphs by cluster: id, unsafe to break, advance, offsets.
    var glyphs: [Int: [[Double]]] = [:]
    var hyphens: [Int: [Double]] = [:]

    init(_ analysis: ParagraphAnalysis, _ range: Range<Int>) {
        let base = analysis.range.lowerBound
        let prefix = analysis.stretchPrefix
        for offset in range {
            let local = offset - base
            characters.append("\(analysis.breaks[local]) \(analysis.clusterStart[local]) \(analysis.hangs[local])")
            sums.append([analysis.widthPrefix[local + 1], Double(prefix.separators[local + 1]), prefix.separatorWidth[local + 1],
                         Double(prefix.clusters[local + 1]), Double(prefix.ideographs[local + 1])])
            if let hyphen = analysis.hyphens[local] {
                hyphens[offset] = [Double(hyphen.glyph), hyphen.advance, hyphen.xOffset, hyphen.yOffset]
            }
        }
        for shaped in analysis.items where shaped.item.range.overlaps(range) {
            let item = shaped.item
            let kind: String
            switch item.kind {
            case .text(let face): kind = "text \(ObjectIdentifier(face))"
            case .attachment(let index): kind = "attachment \(index) \(shaped.boxWidth)x\(shaped.boxHeight)"
            case .separator(let face): kind = "separator \(ObjectIdentifier(face))"
            }
            let cut = max(item.range.lowerBound, range.lowerBound)..<min(item.range.upperBound, range.upperBound)
            items.append("\(cut) \(kind) \(item.level) \(item.script.rawValue) \(item.upright) \(item.style.hashValue)")
            for glyph in shaped.glyphs where range.contains(glyph.cluster) {
                glyphs[glyph.cluster, default: []].append([Double(glyph.id), glyph.unsafeToBreak ? 1 : 0, glyph.advance, glyph.xOffset, glyph.yOffset])
            }
        }
    }
}

@Test(arguments: LongParagraphSample.all)
func aWindowFromAnyRestartPointAnalysesAsTheWholeParagraph(sample: LongParagraphSample) throws {
    let layout = sample.layout
    let window = 300
    func analyzer(window: Int) -> ParagraphAnalyzer {
        ParagraphAnalyzer(text: sample.text, fonts: sharedFonts, maximumBox: (layout.columnWidth, layout.columnHeight),
                          typography: layout.typography, vertical: layout.writingMode.isVertical, window: window)
    }
    var wholeAnalyzer = analyzer(window: .max), windowAnalyzer = analyzer(window: window)
    var checked = 0, known = 0
    for index in sample.text.paragraphs.indices where sample.text.paragraphs[index].range.count > 2_000 {
        let whole = try wholeAnalyzer.analyze(paragraph: index)
        #expect(whole.range == whole.paragraph && whole.reachesParagraphEnd)
        let points = (whole.range.lowerBound + 1..<whole.range.upperBound).filter(whole.isRestartPoint)
        #expect(points.count > 100, "restart points are common: \(points.count) in \(whole.range.count) characters")
        // About 150 of them, spread over the paragraph, each to a window of 300 characters.
        for point in stride(from: 0, to: points.count, by: max(1, points.count / 150)).map({ points[$0] }) {
            let part = try windowAnalyzer.analyze(paragraph: index, from: whole.resumption(at: point), length: window)
            #expect(part.range.lowerBound == point && part.exactEnd <= part.range.upperBound)
            #expect(part.baseLevel == whole.baseLevel)
            let exact = point..<part.exactEnd
            let same = AnalysisView(part, exact) == AnalysisView(whole, exact)
            #expect(same, "a window from \(point) analyses \(exact) otherwise than the whole paragraph")
            if !same { return }
            checked += 1
            known += exact.count
        }
    }
    #expect(checked > 100)
    #expect(known > checked * 50, "windows know most of what they analyse: \(known) characters in \(checked) windows")
}
