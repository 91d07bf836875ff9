import GalleyTestSupport
import GalleyText
import Testing

/// Source-over as a reader of the formula would write it, in floating point.
private func reference(page: UInt8, colour: UInt8, coverage: UInt8) -> Double {
    let a = Double(coverage) / 255
    return (Double(page) * (1 - a) + Double(colour) * a).rounded()
}

/// The table for pixels still showing the background and the formula for the others must
/// agree with each other and with exact source-over (within rounding), for any colour, any
/// background and any mix of background and other pixels under the glyph.
@Test func inkBlendsLikeExactSourceOverOnRandomSpans() {
    var generator = SplitMix(seed: 0x1A4B)
    func byte() -> UInt8 { UInt8.random(in: 0...255, using: &generator) }
    let fixed: [RGBColor] = [.black, .white, RGBColor(r: 128, g: 128, b: 128), RGBColor(r: 250, g: 245, b: 230)]
    var worst = 0.0
    var backgroundPixels = 0, otherPixels = 0
    for trial in 0..<400 {
        let colour = trial < 16 ? fixed[trial % 4] : RGBColor(r: byte(), g: byte(), b: byte())
        let background = trial < 16 ? fixed[trial / 4] : RGBColor(r: byte(), g: byte(), b: byte())
        let ink = Ink(color: colour, background: background)
        let count = Int.random(in: 1...40, using: &generator)
        // Coverage with the edge values well represented: empty, full and partial.
        let coverage: [UInt8] = (0..<count).map { _ in
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: 255
            case 1: 0
            default: byte()
            }
        }
        // Mostly background, some pixels already inked (overlapping glyphs, rules, pictures).
        var page: [UInt8] = []
        for _ in 0..<count {
            if Bool.random(using: &generator) {
                page += [background.r, background.g, background.b]
                backgroundPixels += 1
            } else {
                page += [byte(), byte(), byte()]
                otherPixels += 1
            }
        }
        let before = page
        coverage.withUnsafeBufferPointer { coverage in
            page.withUnsafeMutableBufferPointer { page in
                ink.blend(coverage: coverage.baseAddress!, into: page.baseAddress!, count: count)
            }
        }
        let channels = [colour.r, colour.g, colour.b]
        for i in 0..<count {
            for channel in 0..<3 {
                let expected = reference(page: before[i * 3 + channel], colour: channels[channel], coverage: coverage[i])
                worst = max(worst, abs(Double(page[i * 3 + channel]) - expected))
            }
        }
    }
    #expect(worst <= 1, "a blended channel is \(worst) away from exact source-over")
    #expect(backgroundPixels > 1000 && otherPixels > 1000)
}

/// A pixel that shows the background gives the same bytes through the table as a pixel of the
/// same colour that is not recognised as background would through the formula.
@Test func inkTableMatchesTheFormulaForEveryCoverage() {
    for (colour, background) in [(RGBColor.black, RGBColor.white), (RGBColor(r: 200, g: 0, b: 0), RGBColor(r: 250, g: 245, b: 230))] {
        let ink = Ink(color: colour, background: background)
        // An ink for another background takes the formula for these pixels.
        let other = Ink(color: colour, background: RGBColor(r: background.r ^ 1, g: background.g, b: background.b))
        var viaTable: [UInt8] = [], viaFormula: [UInt8] = []
        for a in 0...255 {
            let coverage = [UInt8(a)]
            var one = [background.r, background.g, background.b], two = one
            ink.blend(coverage: coverage, into: &one, count: 1)
            other.blend(coverage: coverage, into: &two, count: 1)
            viaTable += one
            viaFormula += two
        }
        #expect(viaTable == viaFormula)
    }
}

/// Where the painter knows a span still shows the background it writes the table's pixels
/// without reading the page: the same bytes as reading it and blending.
@Test func blendingOntoKnownBackgroundMatchesBlending() {
    var generator = SplitMix(seed: 0xB1A4)
    func byte() -> UInt8 { UInt8.random(in: 0...255, using: &generator) }
    for _ in 0..<200 {
        let colour = RGBColor(r: byte(), g: byte(), b: byte()), background = RGBColor(r: byte(), g: byte(), b: byte())
        let ink = Ink(color: colour, background: background)
        let count = Int.random(in: 1...40, using: &generator)
        let coverage = (0..<count).map { _ in byte() }
        var read = [UInt8](), known = [UInt8]()
        for _ in 0..<count { read += [background.r, background.g, background.b] }
        // Garbage where the page is not read: every byte must be written.
        for _ in 0..<count { known += [byte(), byte(), byte()] }
        ink.blend(coverage: coverage, into: &read, count: count)
        ink.blendOntoBackground(coverage: coverage, into: &known, count: count)
        #expect(read == known)
    }
}
