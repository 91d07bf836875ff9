import GalleyTestSupport
@testable import GalleyText
import Testing

// A long paragraph's bidi levels are resolved in pieces cut where UAX #9 cannot see across;
// any window of them must hold the levels FriBidi gives the whole paragraph. Pieces as short
// as the rules allow (a spacing of 1: a cut at every place that qualifies) put cuts next to
// every window's start and end.

@Test(arguments: [1, 7, 60])
func windowsOfAParagraphHaveTheLevelsOfTheWholeParagraph(spacing: Int) throws {
    var checked = 0
    for sample in LongParagraphSample.all {
        let text = sample.text
        for paragraph in text.paragraphs where paragraph.range.count > 2_000 {
            let direction = paragraph.value.direction
            let (levels, base) = Itemizer.bidiLevels(text.scalars[paragraph.range], direction: direction)
            var bidi = ParagraphBidi(text: text, paragraph: paragraph.range, direction: direction, spacing: spacing)
            #expect(bidi.baseLevel == base, "\(sample.name): base level")
            var generator = SplitMix(seed: UInt64(spacing))
            for _ in 0..<200 {
                let start = paragraph.range.lowerBound + Int.random(in: 0..<(paragraph.range.count - 1), using: &generator)
                let end = min(paragraph.range.upperBound, start + Int.random(in: 1...400, using: &generator))
                let local = (start - paragraph.range.lowerBound)..<(end - paragraph.range.lowerBound)
                let same = bidi.levels(of: start..<end) == Array(levels[local])
                #expect(same, "\(sample.name): levels of \(start..<end) differ from the whole paragraph's")
                if !same { return }
                checked += 1
            }
        }
    }
    #expect(checked > 1_000)
}

@Test func rightToLeftTextIsResolvedInManyPiecesAndExplicitControlsStopTheCuts() throws {
    // The windows above are only a test of the cuts if there are cuts: a paragraph of Hebrew
    // and Arabic words has one wherever two letters meet, and one that starts with an isolate
    // has none after it.
    let words = LongParagraphSample.paragraph(LongParagraphSample.rightToLeft, characters: 3_000, seed: 30)
    let text = testText([words, "\u{2067}" + words])
    let first = text.paragraphs[0].range, second = text.paragraphs[1].range
    let cut = ParagraphBidi(text: text, paragraph: first, direction: .auto, spacing: 50)
    let isolated = ParagraphBidi(text: text, paragraph: second, direction: .auto, spacing: 50)
    #expect(cut.pieceCount > 30)
    #expect(isolated.pieceCount == 1)
}
