import GalleyRaster
import GalleyTestSupport
import GalleyText
import Testing

private let paragraphs = [
    "The painter draws glyph runs rasterized by FreeType, in their colour, on the page background.",
    "漢字とかなも同じように描かれる。",
    "Ελληνικά, Кириллица, and digits 0123456789.",
]

private func page(color: RGBColor = RGBColor(r: 200, g: 0, b: 0), background: RGBColor = .white, columns: Int = 2) throws -> TypesetPage {
    var layout = ArticleLayout(name: "paint")
    layout.columns = columns
    layout.background = background
    let text = testText(Array(repeating: paragraphs, count: 8).flatMap { $0 }, color: color)
    return try #require(try typesetAll(text, layout, fonts: sharedFonts).first)
}

@Test func textIsDrawnInItsColourOnTheBackground() throws {
    let red = RGBColor(r: 200, g: 0, b: 0)
    let cream = RGBColor(r: 250, g: 245, b: 230)
    let bitmap = try page(color: red, background: cream).render(scale: 150.0 / 72, cancellation: Cancellation())
    #expect(bitmap.pixel(x: 2, y: 2) == (250, 245, 230))
    var solid = 0
    for y in 0..<bitmap.height {
        for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y) == (200, 0, 0) { solid += 1 }
    }
    #expect(solid > 2000, "only \(solid) pixels in the text colour")
    #expect(ImageProperties.blackRows(bitmap) == 0)
}

@Test func inkStaysInsideTheColumns() throws {
    let page = try page()
    let scale = 100.0 / 72
    let bitmap = try page.render(scale: scale, cancellation: Cancellation())
    // Side bearings and antialiasing may reach a little past the advance box.
    let ink = ImageProperties.ink(bitmap, outside: page.columns.map { ($0.rect.x * scale, $0.rect.y * scale, $0.rect.maxX * scale, $0.rect.maxY * scale) },
                                  margin: 2)
    #expect(ink.inked > 5000, "only \(ink.inked) inked pixels")
    #expect(ink.outside == 0, "\(ink.outside) inked pixels outside the columns")
}

@Test func drawingInBandsEqualsDrawingTheWholePage() throws {
    let page = try page()
    let scale = 120.0 / 72
    let whole = try page.render(scale: scale, cancellation: Cancellation())
    let stitched = try page.renderInBands(scale: scale, rows: 97)
    #expect(whole.bytes == stitched.bytes)
}

@Test func pixelsDoNotDependOnWhatWasDrawnBefore() throws {
    let page = try GalleyTextTests.page()
    let first = try page.render(scale: 1.3, cancellation: Cancellation())
    // Fill the shared glyph cache, and the glyph memos drawings hand on to each other, with
    // other sizes, colours and backgrounds, then draw again; and draw with a library that has
    // never drawn anything.
    for scale in [0.2, 0.5, 2.0, 1.31] { _ = try page.render(scale: scale, cancellation: Cancellation()) }
    for color in [RGBColor.black, RGBColor(r: 0, g: 0, b: 200)] {
        _ = try GalleyTextTests.page(color: color, background: RGBColor(r: 250, g: 245, b: 230)).render(scale: 1.3, cancellation: Cancellation())
    }
    let again = try page.render(scale: 1.3, cancellation: Cancellation())
    let fresh = try FontLibrary()
    var layout = ArticleLayout(name: "paint")
    layout.columns = 2
    let text = testText(Array(repeating: paragraphs, count: 8).flatMap { $0 }, color: RGBColor(r: 200, g: 0, b: 0))
    let other = try #require(try typesetAll(text, layout, fonts: fresh).first).render(scale: 1.3, cancellation: Cancellation())
    #expect(first.bytes == again.bytes)
    #expect(first.bytes == other.bytes)
}

@Test func aThumbnailFitsItsBoxAndKeepsThePagesInk() throws {
    let page = try page(color: .black)
    let full = try page.render(scale: 150.0 / 72, cancellation: Cancellation())
    for box in [64, 128, 256] {
        let scale = page.thumbnailScale(box: box)
        let thumbnail = try page.render(scale: scale, cancellation: Cancellation())
        #expect(max(thumbnail.width, thumbnail.height) <= box)
        #expect(max(thumbnail.width, thumbnail.height) >= box - 1)
        // Text greys the thumbnail about as much as it darkens the full page (coverage is
        // area, whatever the scale).
        let ratio = meanDarkness(thumbnail) / meanDarkness(full)
        #expect(ratio > 0.7 && ratio < 1.4, "box \(box): ink ratio \(ratio)")
    }
}

@Test func pixelSizeFollowsPointsTimesDpi() throws {
    let page = try page()
    #expect(page.pixelBounds(scale: 150.0 / 72) == PixelRect(x: 0, y: 0, width: 1240, height: 1755))
    #expect(page.pixelBounds(scale: 72.0 / 72) == PixelRect(x: 0, y: 0, width: 595, height: 842))
}

/// Average of 255 − grey over all pixels.
private func meanDarkness(_ bitmap: Bitmap) -> Double {
    var total = 0
    for byte in bitmap.pixels { total += 255 - Int(byte) }
    return Double(total) / Double(bitmap.pixels.count)
}

/// A glyph row is copied from the glyph's ready-made stamp in its ink where the row still
/// shows the background, and blended onto what is there before that column. A library that
/// keeps no stamps blends every row; both must give the same bytes, on text whose glyphs
/// overlap (italics leaning into the next letter, tight pairs, a negative letter gap,
/// underlined links in another colour, marks stacked on letters), whole and in 5-row bands.
@Test func glyphRowsCopiedFromStampsEqualGlyphsBlended() throws {
    let base = BaseStyle(fontFamily: "DejaVu Serif", fontSize: 13, lineHeight: 1.1, color: .black, language: "en")
    let markup = """
        <p><i>fjord ffi fly Wolf AVATAR T.Y. «jiffy»</i> <b><i>Type Jaffa</i></b>
        <a href="x" style="color:#2050c0">linked <u>and underlined</u> text</a>
        <span style="letter-spacing:-2px">crowded letters overlap</span> ṩ ǘ ë́ q̃ a\u{0301}\u{0323}</p>
        <p style="color:#703000"><i>Vv Ww Yy AV AW LT Ta Te To P, F. r, y.</i> 漢字かな Ελληνικά Кириллица</p>
        """
    let article = MarkupParser(base: base).parse(html: Array(String(repeating: markup, count: 6).utf8), baseURL: nil)
    var layout = ArticleLayout(name: "overlap")
    layout.columns = 2
    let page = try #require(try typesetAll(article.text, layout, fonts: sharedFonts).first)
    let blending = try FontLibrary(glyphStamps: 0)
    let blended = try #require(try typesetAll(article.text, layout, fonts: blending).first)
    for scale in [150.0 / 72, 1.0, 0.37] {
        let whole = try page.render(scale: scale, cancellation: Cancellation())
        for (name, other) in [("in bands", try page.renderInBands(scale: scale, rows: 5)),
                              ("blended", try blended.render(scale: scale, cancellation: Cancellation())),
                              ("blended in bands", try blended.renderInBands(scale: scale, rows: 5))] {
            let differing = zip(whole.pixels, other.pixels).filter { $0 != $1 }.count
            #expect(whole.pixels.count == other.pixels.count && differing == 0, "scale \(scale), \(name): \(differing) bytes differ")
        }
        #expect(ImageProperties.ink(whole, outside: [], margin: 0).inked > 1000)
    }
}

/// Drawings hand their glyph memos on, but only those of a few inks: a page whose every word
/// has its own colour must not leave a memo per colour behind.
@Test func glyphMemosKeptBetweenDrawingsStayFew() throws {
    let fonts = try FontLibrary()
    let words = (0..<300).map { "<span style=\"color: rgb(\($0 % 250), \($0 / 2), 90)\">word\($0)</span>" }.joined(separator: " ")
    let article = MarkupParser(base: BaseStyle()).parse(html: Array("<p>\(words)</p>".utf8), baseURL: nil)
    let pages = try typesetAll(article.text, ArticleLayout(name: "rainbow"), fonts: fonts)
    for page in pages { _ = try page.render(scale: 1, cancellation: Cancellation()) }
    #expect(fonts.glyphCache.keptInkCount > 0)
    #expect(fonts.glyphCache.keptInkCount <= 8)
}
