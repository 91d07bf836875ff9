import GalleyRaster
import GalleyText
import Testing

/// `background-image` on blocks (CSS 2.1 §14.2.1): the picture tiled from the padding box's
/// corner, as `background-repeat` says, over the background colour and cut to the box.
@Suite struct BackgroundImageTests {
    /// A 2 x 2 px picture: blue on the left column, green on the right.
    static let tile: RasterImage = {
        let blue: [UInt8] = [0, 0, 255, 255], green: [UInt8] = [0, 128, 0, 255]
        return RasterImage(width: 2, height: 2, pixels: blue + green + blue + green)
    }()

    /// The first page of `html`, its pictures given by source, drawn at 96 dpi (one CSS px a pixel).
    static func drawn(_ html: String, images: AttachmentImages) throws -> (AttributedText, Bitmap) {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        var layout = ArticleLayout(name: "backgrounds")
        (layout.pageWidth, layout.pageHeight) = (600, 450)
        layout.inset = .init(all: 0)
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts, images: images)
        let page = try #require(try typesetter.nextPage())
        return (article.text, try page.render(scale: 96.0 / 72, cancellation: Cancellation()))
    }

    @Test func aBackgroundPictureIsTiledOverTheBoxAndItsSourceIsLoadedWithThePictures() throws {
        let (text, bitmap) = try Self.drawn("<div style='width: 100px; height: 50px; background: red url(\"Tile.png\")'></div>",
                                            images: ["Tile.png": Self.tile])
        // The pipeline loads it like a picture (its case kept).
        #expect(text.pictures.map(\.source) == ["Tile.png"])
        let blue = SizedBoxTests.area(of: (0, 0, 255), in: bitmap), green = SizedBoxTests.area(of: (0, 128, 0), in: bitmap)
        #expect(blue.count == 50 * 50 && green.count == 50 * 50, "\(blue) \(green)")
        #expect(blue.box?.x == 0 && blue.box?.y == 0 && blue.box?.width == 99 && blue.box?.height == 50, "\(blue)")
        #expect(SizedBoxTests.area(of: (255, 0, 0), in: bitmap).count == 0, "the colour is under the picture")
    }

    @Test func noRepeatDrawsOneCopyOverTheColour() throws {
        let (_, bitmap) = try Self.drawn("<div style='width: 100px; height: 50px; background-color: red; background-image: url(t.png); "
                                         + "background-repeat: no-repeat'></div>", images: ["t.png": Self.tile])
        #expect(SizedBoxTests.area(of: (0, 0, 255), in: bitmap).count == 2)
        #expect(SizedBoxTests.area(of: (0, 128, 0), in: bitmap).count == 2)
        #expect(SizedBoxTests.area(of: (255, 0, 0), in: bitmap).count == 100 * 50 - 4)
    }

    @Test func aSmallPictureOverALargeBoxIsTiledWithoutSeams() throws {
        // 790 x 400 px of a 2 px picture: drawn from larger copies of it, which must line up
        // as the single copies would, every other column blue.
        let (_, bitmap) = try Self.drawn("<div style='width: 790px; height: 400px; background: url(t.png)'></div>",
                                         images: ["t.png": Self.tile])
        let blue = SizedBoxTests.area(of: (0, 0, 255), in: bitmap), green = SizedBoxTests.area(of: (0, 128, 0), in: bitmap)
        #expect(blue.count == 395 * 400 && green.count == 395 * 400, "\(blue) \(green)")
    }
}
