import Foundation
import GalleyRaster
import GalleyTestSupport
import GalleyText
import Testing

private let japanese = [
    "吾輩は猫である。名前はまだ無い。「どこで生れたか」とんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。吾輩はここで始めて人間というものを見た。",
    "Galley 2026 は HarfBuzz と FreeType で縦に組む。数字 123 と英語の typesetting は横に寝かせる。（括弧）と『二重かぎ』、句読点。",
]

/// A vertical-rl layout: an A5 page in `bands` bands, Noto Serif CJK.
private func vertical(bands: Int = 2, threshold: Double = 1, width: Double = 420, height: Double = 595) -> ArticleLayout {
    var layout = ArticleLayout(name: "tate")
    layout.writingMode = .verticalRL
    layout.pageWidth = width
    layout.pageHeight = height
    layout.inset = .init(all: 36)
    layout.columns = bands
    layout.typography.justifyThreshold = threshold
    return layout
}

private func verticalText(_ paragraphs: [String], hyphens: Hyphens = .manual, language: String = "ja",
                          paragraphStyle: ParagraphStyle = ParagraphStyle()) -> AttributedText {
    testText(paragraphs, size: 10, family: "Noto Serif CJK JP", language: language, hyphens: hyphens, paragraphStyle: paragraphStyle)
}

@Test func bandsStackTopToBottomAndLinesRunRightToLeft() throws {
    let layout = vertical(bands: 3)
    let bands = layout.columnRects
    #expect(bands.count == 3)
    for (band, next) in zip(bands, bands.dropFirst()) {
        #expect(band.x == 36 && band.width == 420 - 72, "a band spans the text area's width")
        #expect(abs(next.y - (band.maxY + layout.columnGap)) < 1e-9, "bands stack downwards, a gap apart")
    }
    let text = verticalText(Array(repeating: japanese, count: 10).flatMap { $0 })
    let pages = try typesetAll(text, layout, fonts: sharedFonts)
    #expect(pages.count >= 2)
    var next = 0
    let tolerance = 0.01
    for page in pages {
        #expect(page.writingMode == .verticalRL)
        for column in page.columns {
            #expect(column.range.lowerBound == next)
            next = column.range.upperBound
            #expect(column.lines.count > 1)
            for line in column.lines {
                #expect(line.rect.x >= column.rect.x - tolerance && line.rect.maxX <= column.rect.maxX + tolerance)
                #expect(line.rect.y >= column.rect.y - tolerance && line.rect.maxY <= column.rect.maxY + tolerance,
                        "line \(line.range) runs \(line.rect.y)...\(line.rect.maxY), band \(column.rect.y)...\(column.rect.maxY)")
                #expect(line.rect.height > line.rect.width || line.range.count < 4, "a vertical line is taller than it is thick")
            }
            // The first line is at the band's right edge; each next one to the left of the last.
            #expect(abs((column.lines.first?.rect.maxX ?? 0) - column.rect.maxX) < 1)
            for (line, following) in zip(column.lines, column.lines.dropFirst()) {
                #expect(following.rect.maxX <= line.rect.x + tolerance, "line \(following.range) is not left of line \(line.range)")
            }
        }
    }
    #expect(next == text.count, "bands tile the text")
}

@Test func ideographsStandUprightInVerticalFormsAndLatinLiesSideways() throws {
    let brackets = verticalText(["「縦」"])
    let verticalGlyphs = try #require(try typesetAll(brackets, vertical(), fonts: sharedFonts).first).placedGlyphs
    let horizontalGlyphs = try #require(try typesetAll(brackets, column(200), fonts: sharedFonts).first).placedGlyphs
    #expect(verticalGlyphs.count == 3 && horizontalGlyphs.count == 3)
    let face = try #require(verticalGlyphs.first?.face)
    let nominal = try #require(face.glyph(for: "「"))
    #expect(horizontalGlyphs.first?.glyph == nominal)
    #expect(verticalGlyphs.first?.glyph != nominal, "「 keeps its horizontal form: the vert feature was not applied")
    #expect(verticalGlyphs.allSatisfy { $0.orientation == .upright })
    // Upright glyphs follow each other down the page, one above the next, on one centre line.
    let ys = verticalGlyphs.map(\.y)
    #expect(ys == ys.sorted() && Set(ys).count == 3)

    let latin = verticalText(["typesetting 123"])
    let page = try #require(try typesetAll(latin, vertical(), fonts: sharedFonts).first)
    #expect(page.placedGlyphs.count >= 14 && page.placedGlyphs.allSatisfy { $0.orientation == .sideways })
    // Sideways, the word's ink is a tall thin stroke down the page.
    let bitmap = try page.render(scale: 150.0 / 72, cancellation: Cancellation())
    let ink = try #require(ImageProperties.inkBounds(bitmap))
    #expect(ink.height > 4 * ink.width, "ink \(ink.width)×\(ink.height) px: the Latin run is not turned sideways")
}

@Test func verticalInkStaysInsideItsBands() throws {
    let layout = vertical(bands: 2)
    let text = verticalText(Array(repeating: japanese, count: 6).flatMap { $0 })
    let page = try #require(try typesetAll(text, layout, fonts: sharedFonts).first)
    let scale = 100.0 / 72
    let bitmap = try page.render(scale: scale, cancellation: Cancellation())
    let ink = ImageProperties.ink(bitmap, outside: page.columns.map { ($0.rect.x * scale, $0.rect.y * scale, $0.rect.maxX * scale, $0.rect.maxY * scale) },
                                  margin: 2)
    #expect(ink.inked > 5000, "only \(ink.inked) inked pixels")
    #expect(ink.outside == 0, "\(ink.outside) inked pixels outside the bands")
    // Both bands hold text: ink in the top half and in the bottom half of the page.
    let half = bitmap.height / 2
    #expect(ImageProperties.inkBounds(bitmap, rows: 0..<half) != nil && ImageProperties.inkBounds(bitmap, rows: half..<bitmap.height) != nil)
}

@Test func justifiedVerticalLinesEndFlushAtTheFootOfTheirBand() throws {
    let dpi = 150.0
    let pages = try typesetAll(verticalText(japanese), vertical(bands: 2, threshold: 0.5), fonts: sharedFonts)
    var justified = 0
    for page in pages {
        for band in page.columns {
            for line in band.lines where line.isJustified {
                justified += 1
                #expect(abs(line.rect.y - band.rect.y) < 0.01)
                #expect(abs(line.rect.maxY - band.rect.maxY) <= 0.5 * 72 / dpi,
                        "justified line \(line.range) ends at \(line.rect.maxY), band at \(band.rect.maxY)")
            }
            // The last line of each paragraph stays ragged.
            if let last = band.lines.last, last.range.upperBound == band.range.upperBound,
               band.range.upperBound == pages.last?.range.upperBound {
                #expect(!last.isJustified)
            }
        }
    }
    #expect(justified >= 4, "only \(justified) justified lines")
}

@Test func sidewaysLatinIsHyphenatedAndFitsItsBand() throws {
    let text = verticalText([
        "Typographers hyphenate extraordinarily long words in narrow measures, and vertical pages set Latin sideways with the same dictionaries.",
    ], hyphens: .auto, language: "en")
    let layout = vertical(bands: 4, width: 300, height: 700)
    let pages = try typesetAll(text, layout, fonts: sharedFonts)
    let lines = pages.flatMap { $0.columns.flatMap(\.lines) }
    let hyphenated = lines.filter(\.isHyphenated)
    #expect(!hyphenated.isEmpty, "no line was hyphenated")
    for page in pages {
        for band in page.columns {
            for line in band.lines {
                #expect(line.rect.maxY <= band.rect.maxY + 0.01, "line \(line.range) overruns its band")
            }
        }
    }
    let face = try #require(pages.first?.placedGlyphs.first?.face)
    let hyphen = try #require(face.glyph(for: "\u{2010}") ?? face.glyph(for: "-"))
    let shown = pages.flatMap(\.placedGlyphs).filter { $0.glyph == hyphen }
    #expect(shown.count == hyphenated.count && shown.allSatisfy { $0.orientation == .sideways })
}

@Test func attachmentsInVerticalTextStandUprightInTheirBandClearOfText() throws {
    // testText gives every U+FFFC a 200 × 100 box.
    let text = verticalText(["前の文章です。\u{FFFC}後の文章です。", "次の段落。"])
    let layout = vertical(bands: 2)
    let page = try #require(try typesetAll(text, layout, fonts: sharedFonts).first)
    let frame = try #require(page.attachments.first)
    let band = page.columns[frame.column].rect
    #expect(abs(frame.rect.width / frame.rect.height - 2) < 0.01, "the picture keeps its aspect ratio, upright")
    #expect(frame.rect.x >= band.x - 0.01 && frame.rect.maxX <= band.maxX + 0.01)
    #expect(frame.rect.y >= band.y - 0.01 && frame.rect.maxY <= band.maxY + 0.01)
    // Nothing is drawn over the placeholder: inside its border it is one flat grey.
    let scale = 150.0 / 72
    let bitmap = try page.render(scale: scale, cancellation: Cancellation())
    let inner = (x: Int((frame.rect.x * scale).rounded(.up)) + 3, y: Int((frame.rect.y * scale).rounded(.up)) + 3,
                 maxX: Int((frame.rect.maxX * scale).rounded(.down)) - 3, maxY: Int((frame.rect.maxY * scale).rounded(.down)) - 3)
    var marked = 0
    for y in inner.y..<inner.maxY {
        for x in inner.x..<inner.maxX where bitmap.pixel(x: x, y: y) != (238, 238, 238) { marked += 1 }
    }
    #expect(marked == 0, "\(marked) pixels of text drawn over the picture's frame")
    // The text before and after it is on the same line, above and below it.
    let line = try #require(page.columns[frame.column].lines.first { $0.range.contains(frame.offset) })
    #expect(line.rect.y < frame.rect.y && line.rect.maxY > frame.rect.maxY)
}

@Test func writingModeTablesMatchTheUnicodeData() throws {
    let url = URL(fileURLWithPath: "/usr/share/unicode/VerticalOrientation.txt")
    let data = try String(contentsOf: url, encoding: .utf8)
    var checked = 0
    for line in data.split(separator: "\n") {
        let body = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces)
        guard !body.isEmpty else { continue }
        let fields = body.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        let bounds = fields[0].components(separatedBy: "..").compactMap { UInt32($0, radix: 16) }
        for value in (bounds[0]...(bounds.last ?? bounds[0])) {
            guard let scalar = Unicode.Scalar(value) else { continue }
            #expect(WritingMode.standsUpright(scalar) == (fields[1] != "R"),
                    "U+\(String(value, radix: 16, uppercase: true)) is \(fields[1])")
            checked += 1
        }
    }
    #expect(checked > 200_000)
}

@Test func aVerticalPageTooShortForItsBandsIsRefused() {
    #expect(throws: TypesetError.self) { try ArticleTypesetter(text: verticalText(["縦"]), layout: vertical(bands: 40), fonts: sharedFonts) }
}
