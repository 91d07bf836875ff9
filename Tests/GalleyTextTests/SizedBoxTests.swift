import Foundation
import GalleyRaster
import GalleyText
import Testing

/// Sized blocks (CSS 2.1 §10): `width`, `height`, their minimums and maximums, percentages of
/// the containing block, `box-sizing` and `auto` margins, drawn as a browser draws them on a
/// page at 96 dpi (one CSS px a pixel).
@Suite struct SizedBoxTests {
    /// The first page of `html` on a 600 x 450 pt page without inset.
    static func firstPage(_ html: String) throws -> TypesetPage {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        #expect(article.text.validate().isEmpty, "\(article.text.validate())")
        var layout = ArticleLayout(name: "sized")
        (layout.pageWidth, layout.pageHeight) = (600, 450)
        layout.inset = .init(all: 0)
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts)
        return try #require(try typesetter.nextPage())
    }

    /// That page drawn at 96 dpi.
    static func drawn(_ html: String) throws -> Bitmap {
        try firstPage(html).render(scale: 96.0 / 72, cancellation: Cancellation())
    }

    /// The pixels of colour `rgb`: how many, and their bounding box (x, y, width, height).
    static func area(of rgb: (UInt8, UInt8, UInt8), in bitmap: Bitmap) -> (count: Int, box: (x: Int, y: Int, width: Int, height: Int)?) {
        var count = 0, minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                guard p.r == rgb.0 && p.g == rgb.1 && p.b == rgb.2 else { continue }
                count += 1
                (minX, minY, maxX, maxY) = (min(minX, x), min(minY, y), max(maxX, x), max(maxY, y))
            }
        }
        return (count, count == 0 ? nil : (minX, minY, maxX - minX + 1, maxY - minY + 1))
    }

    static let blue: (UInt8, UInt8, UInt8) = (0, 0, 255)
    static let green: (UInt8, UInt8, UInt8) = (0, 128, 0)

    @Test func aSizedEmptyBlockDrawsItsBackgroundAtItsSize() throws {
        let bitmap = try Self.drawn("<div style='width: 200px; height: 100px; background: blue'></div><p>After the box.</p>")
        let blue = Self.area(of: Self.blue, in: bitmap)
        #expect(blue.count == 200 * 100)
        #expect(blue.box?.x == 0 && blue.box?.y == 0 && blue.box?.width == 200 && blue.box?.height == 100)
    }

    @Test func autoMarginsCentreASizedBlock() throws {
        // The page is 800 px wide: a 100 px box centred starts at 350.
        let bitmap = try Self.drawn("<div style='width: 100px; height: 50px; margin: 0 auto; background: blue'></div>"
                                    + "<div style='width: 100px; height: 50px; margin-left: auto; background: green'></div>")
        let blue = Self.area(of: Self.blue, in: bitmap), green = Self.area(of: Self.green, in: bitmap)
        #expect(blue.box?.x == 350 && blue.box?.width == 100 && blue.box?.height == 50)
        #expect(green.box?.x == 700 && green.box?.y == 50 && green.count == 100 * 50)
    }

    @Test func aBlockWithoutAWidthFillsTheSizedBoxAroundIt() throws {
        // A figure of 60 % (a content box of 480 px of 800) with 10 px padding, centred: its
        // border box 500 px from x = 150. The picture box inside it, given a height only, is as
        // wide as the figure's content box, 480 px from x = 160, as its lines are; not the
        // column's width.
        let bitmap = try Self.drawn("<div style='width: 60%; margin: 0 auto; padding: 10px; background: green'>"
                                    + "<div style='height: 50px; background: blue'></div><p>A caption.</p></div>")
        let blue = try #require(Self.area(of: Self.blue, in: bitmap).box)
        #expect(blue.x == 160 && blue.width == 480 && blue.height == 50, "\(blue)")
        let green = try #require(Self.area(of: Self.green, in: bitmap).box)
        #expect(green.x == 150 && green.width == 500, "\(green)")
    }

    @Test func aPictureWidthInPercentIsOfTheBlockAroundItsLine() throws {
        // A 300 pt (400 px) block: its picture of 50% is 150 pt wide; in a float of 45% of the
        // 600 pt column (270 pt), a picture of 100% is 270 pt wide and the text beside it
        // wraps; `width="25%"` in the markup is a quarter of the column. Heights keep the
        // placeholder's aspect ratio. Before, percentages were dropped and every picture was
        // its natural size.
        let frames = try Self.firstPage(
            "<div style='width: 400px'><p><img src='a.png' style='width: 50%'></p></div>"
            + "<div style='float: left; width: 45%'><img src='b.png' style='width: 100%; display: block'></div>"
            + "<p>Text beside the floated picture.</p><p><img src='c.png' width='25%'></p>").attachments
        let widths = Dictionary(uniqueKeysWithValues: frames.map { ($0.source, $0.rect.width) })
        #expect(abs((widths["a.png"] ?? 0) - 150) < 0.01, "\(frames)")
        #expect(abs((widths["b.png"] ?? 0) - 270) < 0.01, "\(frames)")
        #expect(abs((widths["c.png"] ?? 0) - 150) < 0.01, "\(frames)")
        for frame in frames { #expect(abs(frame.rect.height / frame.rect.width - 0.75) < 0.01, "\(frame)") }
    }

    /// A sized box narrower than its containing block keeps to the containing block's start,
    /// whatever its own `direction` (CSS 2.1 §10.3.3): a right-to-left box in a left-to-right
    /// page stands at the left, a left-to-right one in a right-to-left block at the right.
    @Test func aNarrowBoxKeepsToItsContainingBlocksStartWhateverItsOwnDirection() throws {
        let bitmap = try Self.drawn("<div style='direction: rtl; width: 100px; height: 50px; background: blue'></div>"
                                    + "<div dir=rtl><div style='direction: ltr; width: 100px; height: 50px; background: green'></div></div>")
        let blue = Self.area(of: Self.blue, in: bitmap), green = Self.area(of: Self.green, in: bitmap)
        #expect(blue.box?.x == 0 && blue.box?.y == 0 && blue.box?.width == 100, "\(String(describing: blue.box))")
        #expect(green.box?.x == 700 && green.box?.y == 50 && green.box?.width == 100, "\(String(describing: green.box))")
    }

    /// A box whose edges fall between pixels is painted to whole pixels, as a browser paints
    /// it: full rows of its colour, none partly covered, so that it lines up with the text and
    /// boxes set beside it in CSS pixels.
    @Test func aBoxBetweenPixelsIsPaintedToWholePixels() throws {
        let bitmap = try Self.drawn("<div style='height: 10.4px'></div><div style='width: 100px; height: 20px; background: blue'></div>")
        let blue = Self.area(of: Self.blue, in: bitmap)
        #expect(blue.count == 100 * 20 && blue.box?.y == 10 && blue.box?.height == 20, "\(blue)")
        var partly = 0
        for y in 0..<60 {
            for x in 0..<100 {
                let p = bitmap.pixel(x: x, y: y)
                if p != (255, 255, 255) && p != (0, 0, 255) { partly += 1 }
            }
        }
        #expect(partly == 0)
    }

    @Test func aPercentageWidthIsOfTheContainingBlockAndTheLinesStayInside() throws {
        // Half of a 400 px wide containing block: 200 px, its text wrapped inside it.
        let html = "<div style='width: 400px'><div style='width: 50%; background: blue'>"
            + String(repeating: "words in a narrow box ", count: 12) + "</div></div>"
        let bitmap = try Self.drawn(html)
        let blue = try #require(Self.area(of: Self.blue, in: bitmap).box)
        #expect(blue.x == 0 && blue.width == 200)
        #expect(blue.height > 60, "several lines: \(blue)")
        // No ink right of the box.
        var inkOutside = 0
        for y in blue.y..<(blue.y + blue.height) {
            for x in 200..<bitmap.width where bitmap.pixel(x: x, y: y) != (255, 255, 255) { inkOutside += 1 }
        }
        #expect(inkOutside == 0)
    }

    @Test func minAndMaxAndBoxSizingHoldTheSize() throws {
        // content-box: 100 px plus 10 px padding each side and a 5 px border: 130 px; border-box: 100.
        let bitmap = try Self.drawn("<div style='width: 100px; padding: 10px; border: 5px solid green; min-height: 30px; background: blue'></div>"
                                    + "<div style='box-sizing: border-box; width: 100px; height: 80px; max-height: 60px; padding: 10px; background: blue'></div>"
                                    + "<div style='width: 500px; max-width: 50px; min-width: 20px; height: 10px; background: green'></div>")
        let green = Self.area(of: Self.green, in: bitmap)
        #expect(green.box?.width == 130 && green.box?.x == 0)
        // First box's border box: 130 x (30 + 20 + 10) = 60 px; its padding box 120 x 50 is blue.
        // Second: border-box 100 x 60 (max-height wins over height), all blue.
        #expect(Self.area(of: Self.blue, in: bitmap).count == 120 * 50 + 100 * 60)
        // Third: max-width 50 px.
        #expect(green.box.map { $0.y + $0.height } == 60 + 60 + 10)
        var third = 0
        for x in 0..<bitmap.width where bitmap.pixel(x: x, y: 125) == (0, 128, 0) { third += 1 }
        #expect(third == 50)
    }

    @Test func emptyFloatedBoxesWithAHeightAreDrawnAtTheirSides() throws {
        // A page of floated boxes only: one at each side, each 100 x 80 px.
        let bitmap = try Self.drawn("<div style='float: left; width: 100px; height: 80px; background: blue'></div>"
                                    + "<div style='float: right; width: 100px; height: 80px; background: green'></div>")
        let blue = Self.area(of: Self.blue, in: bitmap), green = Self.area(of: Self.green, in: bitmap)
        #expect(blue.count == 100 * 80 && blue.box?.x == 0 && blue.box?.y == 0)
        #expect(green.count == 100 * 80 && green.box?.x == 700 && green.box?.y == 0)
    }

    @Test func anInheritedBorderWidthIsTheParents() throws {
        // The inner box's left border is as wide as the outer's: 40 px of green, 30 px high.
        let bitmap = try Self.drawn("<div style='border-left: 40px solid blue'><div style='border-left-style: solid; "
                                    + "border-left-width: inherit; border-left-color: green; height: 30px'></div></div>")
        let green = Self.area(of: Self.green, in: bitmap)
        #expect(green.box?.width == 40 && green.box?.height == 30 && green.count == 40 * 30)
    }

    /// CSS 2.1 §10.5: a percentage height is of the containing block's height when that is
    /// given (containing-block-001: a green child 100% of a red 100 px square covers it); with
    /// an `auto` height around it, it counts as `auto`.
    @Test func aPercentageHeightIsOfTheParentsDeclaredHeight() throws {
        let bitmap = try Self.drawn("<div style='width: 100px; height: 100px; background: red'>"
                                    + "<div style='width: 100%; height: 100%; background: green'></div></div>"
                                    + "<div style='box-sizing: border-box; height: 120px; padding-top: 20px'>"
                                    + "<div style='width: 40px; height: 50%; min-height: 10%; background: blue'></div></div>"
                                    + "<div><div style='width: 40px; height: 50%; background: blue'>x</div></div>")
        #expect(Self.area(of: (255, 0, 0), in: bitmap).count == 0, "no red: the child covers its parent")
        #expect(Self.area(of: Self.green, in: bitmap).count == 100 * 100)
        // Half the border box's content (100 px), below the padding; the last one is its text's height.
        let blue = Self.area(of: Self.blue, in: bitmap)
        #expect(blue.box?.y == 120 && blue.box.map { $0.height > 50 } == true)
        #expect(blue.count > 40 * 50 && blue.count < 40 * 80, "\(blue)")
    }

    /// Colours written as functions with spaces in them, as style sheets write them (CSS 2.1's
    /// border-bottom-color-073: `background-color: rgb(40%, 0%, 0%)`): a block's background and
    /// a border shorthand read them whole, not cut at the spaces between their arguments.
    @Test func functionalColoursWithSpacesColourBackgroundsAndBorders() throws {
        let bitmap = try Self.drawn("<div style='width: 100px; height: 40px; background-color: rgb(0, 0, 255)'></div>"
                                    + "<div style='width: 60px; height: 30px; border-left: 20px solid rgb(0%, 50.2%, 0%)'></div>")
        let blue = Self.area(of: Self.blue, in: bitmap), green = Self.area(of: Self.green, in: bitmap)
        #expect(blue.count == 100 * 40, "\(blue)")
        #expect(green.count == 20 * 30, "\(green)")
    }
}
