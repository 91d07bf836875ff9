import GalleyRaster
import GalleyTestSupport
import GalleyText
import Testing

/// Pictures in typeset pages: sizing from the decoded image, placement, and resampling into
/// the page. The images are made here (the decoder is tested in GalleyPDFTests).

private let blue: (UInt8, UInt8, UInt8) = (30, 80, 200)
private let orange: (UInt8, UInt8, UInt8) = (230, 140, 20)

/// An opaque image of two flat halves, `left` and `right`.
private func halves(width: Int, height: Int, left: (UInt8, UInt8, UInt8) = blue, right: (UInt8, UInt8, UInt8) = orange) -> RasterImage {
    var pixels: [UInt8] = []
    for _ in 0..<height {
        for x in 0..<width {
            let c = x < width / 2 ? left : right
            pixels += [c.0, c.1, c.2, 255]
        }
    }
    return RasterImage(width: width, height: height, pixels: pixels)
}

/// `testText` with every attachment given this size and source.
private func text(_ paragraphs: [String], width: Double?, height: Double?, source: String = "picture.png",
                  style: ParagraphStyle = ParagraphStyle()) -> AttributedText {
    let base = testText(paragraphs, paragraphStyle: style)
    let attachments = base.attachments.map { attachment in
        var sized = attachment
        (sized.width, sized.height, sized.source) = (width, height, source)
        return sized
    }
    return AttributedText(scalars: base.scalars, styleRuns: base.styleRuns, paragraphs: base.paragraphs, attachments: attachments)
}

private func firstPage(_ text: AttributedText, images: AttachmentImages, background: RGBColor = .white) throws -> TypesetPage {
    var layout = ArticleLayout(name: "images")
    layout.background = background
    let typesetter = try ArticleTypesetter(text: text, layout: layout, fonts: sharedFonts, images: images)
    return try #require(try typesetter.nextPage())
}

private let sentence = "Some words before the picture \u{FFFC} and some after it, enough to fill the line."

@Test func anImageWithNoSizeTakesItsIntrinsicSizeAtThreeQuartersOfAPointPerPixel() throws {
    let page = try firstPage(text([sentence], width: nil, height: nil), images: ["picture.png": halves(width: 200, height: 100)])
    let frame = try #require(page.attachments.first)
    #expect(frame.rect.width == 150 && frame.rect.height == 75)
    // Without a picture the box keeps the default size.
    let placeholder = try firstPage(text([sentence], width: nil, height: nil), images: [:])
    #expect(placeholder.attachments.first?.rect.width == 120 && placeholder.attachments.first?.rect.height == 90)
}

@Test func oneGivenDimensionTakesTheOtherFromThePicturesAspectRatio() throws {
    let image = halves(width: 200, height: 100)
    let wide = try firstPage(text([sentence], width: 300, height: nil), images: ["picture.png": image])
    #expect(wide.attachments.first?.rect.height == 150)
    let tall = try firstPage(text([sentence], width: nil, height: 60), images: ["picture.png": image])
    #expect(tall.attachments.first?.rect.width == 120)
    // Too wide for the 487 pt column: scaled down, ratio kept.
    let huge = try firstPage(text([sentence], width: nil, height: nil), images: ["picture.png": halves(width: 1000, height: 200)])
    let frame = try #require(huge.attachments.first)
    #expect(abs(frame.rect.width - 487) < 0.001)
    #expect(abs(frame.rect.width / frame.rect.height - 5) < 0.001)
}

@Test func thePictureIsDrawnInItsFrameAtEveryScale() throws {
    let page = try firstPage(text([sentence], width: 160, height: 90), images: ["picture.png": halves(width: 64, height: 36)])
    let frame = try #require(page.attachments.first).rect
    // Shrinking (0.3) and enlarging (2.5): the halves' flat colours, away from the seam.
    for scale in [0.3, 150.0 / 72, 2.5] {
        let bitmap = try page.render(scale: scale, cancellation: Cancellation())
        let y = Int((frame.y + frame.height / 2) * scale)
        let left = bitmap.pixel(x: Int((frame.x + frame.width * 0.2) * scale), y: y)
        let right = bitmap.pixel(x: Int((frame.x + frame.width * 0.8) * scale), y: y)
        #expect(left == blue, "scale \(scale): \(left)")
        #expect(right == orange, "scale \(scale): \(right)")
        // Just outside the frame the page is untouched.
        #expect(bitmap.pixel(x: Int((frame.x + frame.width / 2) * scale), y: Int((frame.y - 2) * scale)) == (255, 255, 255))
    }
}

@Test func anAttachmentWithoutAPictureDrawsThePlaceholder() throws {
    let page = try firstPage(text([sentence], width: 160, height: 90, source: "elsewhere.png"), images: ["picture.png": halves(width: 64, height: 36)])
    let frame = try #require(page.attachments.first).rect
    let scale = 2.0
    let bitmap = try page.render(scale: scale, cancellation: Cancellation())
    #expect(bitmap.pixel(x: Int((frame.x + frame.width / 2) * scale), y: Int((frame.y + frame.height / 2) * scale)) == (238, 238, 238))
    // The 1 pt border, two pixels wide at this scale.
    #expect(bitmap.pixel(x: Int((frame.x + 0.5) * scale), y: Int((frame.y + frame.height / 2) * scale)) == (200, 200, 200))
}

@Test func shrinkingAveragesInsteadOfPickingPixels() throws {
    // A one-pixel checkerboard drawn four times smaller is an even grey, not black or white.
    var pixels: [UInt8] = []
    for y in 0..<64 {
        for x in 0..<64 { pixels += (x + y) % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] }
    }
    let page = try firstPage(text([sentence], width: 48, height: 48), images: ["picture.png": RasterImage(width: 64, height: 64, pixels: pixels)])
    let frame = try #require(page.attachments.first).rect
    let scale = 1.0 / 3
    let bitmap = try page.render(scale: scale, cancellation: Cancellation())
    let x0 = Int((frame.x * scale).rounded(.up)), x1 = Int((frame.maxX * scale).rounded(.down))
    let y0 = Int((frame.y * scale).rounded(.up)), y1 = Int((frame.maxY * scale).rounded(.down))
    #expect(x1 - x0 >= 12 && y1 - y0 >= 12)
    for y in y0..<y1 {
        for x in x0..<x1 {
            let grey = Int(bitmap.pixel(x: x, y: y).r)
            #expect(abs(grey - 128) <= 2, "(\(x), \(y)): \(grey)")
        }
    }
}

@Test func transparentPartsShowThePageBackground() throws {
    // Left half transparent, right half opaque green; one column of half-transparent green.
    var pixels: [UInt8] = []
    for _ in 0..<20 {
        for x in 0..<40 { pixels += x < 20 ? [0, 0, 0, 0] : x == 20 ? [23, 54, 23, 128] : [46, 107, 46, 255] }
    }
    let cream = RGBColor(r: 250, g: 245, b: 230)
    let page = try firstPage(text([sentence], width: 80, height: 40), images: ["picture.png": RasterImage(width: 40, height: 20, pixels: pixels)],
                             background: cream)
    let frame = try #require(page.attachments.first).rect
    let bitmap = try page.render(scale: 1, cancellation: Cancellation())
    let y = Int(frame.y + 20)
    #expect(bitmap.pixel(x: Int(frame.x + 10), y: y) == (250, 245, 230))
    #expect(bitmap.pixel(x: Int(frame.x + 70), y: y) == (46, 107, 46))
}

@Test func halfTransparentPixelsBlendWithThePage() throws {
    // Premultiplied green at alpha 128 over cream: each channel is the picture's value plus
    // the page's times (1 − 128/255).
    let pixels = Array([[UInt8]](repeating: [23, 54, 23, 128], count: 40 * 20).joined())
    let cream = RGBColor(r: 250, g: 245, b: 230)
    let page = try firstPage(text([sentence], width: 80, height: 40), images: ["picture.png": RasterImage(width: 40, height: 20, pixels: pixels)],
                             background: cream)
    let frame = try #require(page.attachments.first).rect
    let bitmap = try page.render(scale: 1, cancellation: Cancellation())
    let pixel = bitmap.pixel(x: Int(frame.x + 40), y: Int(frame.y + 20))
    let keep = 1 - 128.0 / 255
    for (value, (picture, background)) in zip([pixel.r, pixel.g, pixel.b], [(23.0, 250.0), (54, 245), (23, 230)]) {
        #expect(abs(Double(value) - (picture + background * keep)) <= 1, "\(pixel)")
    }
}

@Test func drawingInBandsEqualsDrawingTheWholePageWithPictures() throws {
    let paragraphs = Array(repeating: sentence, count: 6)
    let page = try firstPage(text(paragraphs, width: 150, height: nil), images: ["picture.png": halves(width: 97, height: 61)])
    #expect(page.attachments.count == 6)
    for scale in [0.37, 1.9] {
        let whole = try page.render(scale: scale, cancellation: Cancellation())
        let stitched = try page.renderInBands(scale: scale, rows: 7)
        #expect(whole.bytes == stitched.bytes, "scale \(scale)")
    }
}

@Test func anImageAloneInItsParagraphIsABlockAsTallAsThePicture() throws {
    var style = ParagraphStyle()
    style.alignment = .center
    style.lineHeight = 1.5
    let paragraphs = ["A paragraph of text before the picture, long enough to take more than one line in the column of the page.",
                      "\u{FFFC}", "And a paragraph after it."]
    let page = try firstPage(text(paragraphs, width: 200, height: 100, style: style), images: ["picture.png": halves(width: 20, height: 10)])
    let frame = try #require(page.attachments.first)
    let column = try #require(page.columns.first)
    // Inside its column, centred in it.
    #expect(frame.rect.x >= column.rect.x && frame.rect.maxX <= column.rect.maxX)
    #expect(frame.rect.y >= column.rect.y && frame.rect.maxY <= column.rect.maxY)
    #expect(abs((frame.rect.x + frame.rect.width / 2) - (column.rect.x + column.rect.width / 2)) < 0.001)
    // Its line is the picture's height, without the paragraph's 1.5 leading.
    let line = try #require(column.lines.first { $0.range.contains(frame.offset) })
    #expect(line.rect.height == frame.rect.height)
    #expect(line.rect.y == frame.rect.y)
    // No text line overlaps it.
    for other in column.lines where other != line {
        #expect(other.rect.maxY <= frame.rect.y + 0.001 || other.rect.y >= frame.rect.maxY - 0.001, "\(other)")
    }
}
