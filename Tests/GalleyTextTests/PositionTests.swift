import GalleyRaster
import GalleyText
import Testing

/// Positioned boxes (CSS 2.1 §9.4.3, §10.3.7, §10.6.4) and `overflow: hidden`, drawn as a
/// browser draws them on a 600 x 450 pt page at 96 dpi (one CSS px a pixel), without inset.
@Suite struct PositionTests {
    static let drawn = SizedBoxTests.drawn
    static let area = SizedBoxTests.area
    static let blue = SizedBoxTests.blue
    static let green = SizedBoxTests.green
    static let red: (UInt8, UInt8, UInt8) = (255, 0, 0)

    @Test func aRelativelyPositionedBoxIsDrawnShiftedAndTheNextStaysWhereItWas() throws {
        let bitmap = try Self.drawn("<div style='position: relative; top: 30px; left: 40px; width: 100px; height: 50px; background: blue'></div>"
                                    + "<div style='width: 100px; height: 50px; background: green'></div>")
        let blue = Self.area(Self.blue, bitmap), green = Self.area(Self.green, bitmap)
        #expect(blue.box?.x == 40 && blue.box?.y == 30 && blue.box?.width == 100 && blue.box?.height == 50, "\(String(describing: blue.box))")
        // The green box is where it would be without the offsets, under the moved blue one
        // where they overlap (positioned boxes are drawn after the flow).
        #expect(green.box?.x == 0 && green.box?.y == 50, "\(String(describing: green.box))")
        #expect(green.count == 100 * 50 - 60 * 30)
    }

    @Test func rightAndBottomMoveARelativeBoxBackAndItsTextGoesWithIt() throws {
        let space = "<div style='height: 100px'></div>"
        let plain = try Self.drawn(space + "<div style='margin-left: 100px; color: red'>Text</div>")
        let moved = try Self.drawn(space + "<div style='margin-left: 100px; color: red; position: relative; right: 20px; bottom: 30px'>Text</div>")
        let before = try #require(Self.area(Self.red, plain).box), after = try #require(Self.area(Self.red, moved).box)
        #expect(after.x == before.x - 20 && after.y == before.y - 30 && after.width == before.width)
    }

    /// `position: relative` on an inline element draws it moved and keeps its room in the line
    /// (CSS 2.1 §9.4.3): the text after it stays where it was; a picture moves the same way.
    @Test func aRelativelyPositionedInlineIsDrawnShiftedAndKeepsItsRoom() throws {
        func page(_ style: String) throws -> Bitmap {
            try Self.drawn("<p style='margin: 0'>ab<span style='color: red\(style)'>cd</span><span style='color: blue'>ef</span>"
                           + "<img src='missing.png' width=20 height=20 style='\(style)'></p>")
        }
        let plain = try page(""), moved = try page("; position: relative; left: 10px; top: 5px")
        let red = (before: try #require(Self.area(Self.red, plain).box), after: try #require(Self.area(Self.red, moved).box))
        #expect(red.after.x == red.before.x + 10 && red.after.y == red.before.y + 5 && red.after.width == red.before.width)
        #expect(Self.area(Self.blue, moved).box.map { "\($0)" } == Self.area(Self.blue, plain).box.map { "\($0)" }, "the text after stays")
        let grey: (UInt8, UInt8, UInt8) = (238, 238, 238)
        let picture = (before: try #require(Self.area(grey, plain).box), after: try #require(Self.area(grey, moved).box))
        #expect(picture.after.x == picture.before.x + 10 && picture.after.y == picture.before.y + 5)
    }

    @Test func anAbsoluteBoxSitsAtItsOffsetsInsideItsPositionedParentAndTakesNoSpace() throws {
        let html = "<div style='position: relative; margin-left: 50px; width: 300px; height: 200px; border: 10px solid green'>"
            + "<div style='position: absolute; top: 20px; left: 30px; width: 60px; height: 40px; background: blue'></div>"
            + "<div style='position: absolute; bottom: 0; right: 0; width: 20px; height: 10px; background: red'></div>"
            + "</div><div style='height: 20px; width: 20px; background: green'></div>"
        let bitmap = try Self.drawn(html)
        // The parent's padding box starts at (60, 10).
        let blue = Self.area(Self.blue, bitmap), red = Self.area(Self.red, bitmap)
        #expect(blue.count == 60 * 40)
        #expect(blue.box?.x == 90 && blue.box?.y == 30, "\(String(describing: blue.box))")
        // Against the padding box's bottom right corner (360, 210).
        #expect(red.box?.x == 340 && red.box?.y == 200 && red.count == 20 * 10, "\(String(describing: red.box))")
        // The parent is as high as its `height`: the absolute boxes took no room in it.
        let green = try #require(Self.area(Self.green, bitmap).box)
        #expect(green.y == 0 && green.y + green.height == 240, "\(green)")
    }

    /// A negative `z-index` puts an absolute box under the flow: the green block over it shows
    /// whole; without it the box is drawn over the block.
    @Test func aNegativeZIndexDrawsAnAbsoluteBoxUnderTheFlow() throws {
        func drawn(_ zIndex: String) throws -> (green: Int, red: Int) {
            let bitmap = try Self.drawn("<div style='position: relative'>"
                + "<div style='position: absolute; top: 0; left: 0; width: 100px; height: 100px; background: red; z-index: \(zIndex)'></div>"
                + "<div style='width: 100px; height: 100px; background: green'></div></div>")
            return (Self.area(Self.green, bitmap).count, Self.area(Self.red, bitmap).count)
        }
        let under = try drawn("-1"), over = try drawn("auto")
        #expect(under.green == 100 * 100 && under.red == 0, "\(under)")
        #expect(over.red > 100 * 95 && over.green < 100 * 5, "\(over)")
    }

    /// Overlapping absolute boxes are drawn in `z-index` order (CSS 2.1 Appendix E): a higher
    /// one over a lower one whatever their order in the text, a positive one over `auto` and
    /// 0 (which keep the text's order), and of two negative ones the less negative over the
    /// other, both under the flow.
    @Test func overlappingPositionedBoxesAreDrawnInZIndexOrder() throws {
        /// The colour seen where a red box (first in the text) and a green one overlap.
        func top(_ first: String, _ second: String) throws -> String {
            let bitmap = try Self.drawn("<div style='position: relative; height: 200px'>"
                + "<div style='position: absolute; top: 0; left: 0; width: 100px; height: 100px; background: red; z-index: \(first)'></div>"
                + "<div style='position: absolute; top: 50px; left: 50px; width: 100px; height: 100px; background: green; z-index: \(second)'></div>"
                + "</div>")
            let pixel = bitmap.pixel(x: 75, y: 75)
            return pixel.r == 255 && pixel.g == 0 ? "red" : pixel.g == 128 && pixel.r == 0 ? "green" : "\(pixel)"
        }
        #expect(try top("2", "1") == "red")
        #expect(try top("1", "2") == "green")
        #expect(try top("1", "auto") == "red")
        #expect(try top("auto", "0") == "green")
        #expect(try top("0", "auto") == "green")
        #expect(try top("-1", "-2") == "red")
        #expect(try top("10", "9") == "red")
    }

    /// A relatively positioned block with a `z-index` is drawn over a later absolute box with
    /// a lower one, its text too.
    @Test func aRelativeBlocksZIndexLiftsItOverALaterPositionedBox() throws {
        let bitmap = try Self.drawn("<div style='position: relative; z-index: 3; width: 100px; height: 100px; background: red'></div>"
            + "<div style='position: absolute; top: 50px; left: 50px; width: 100px; height: 100px; background: green; z-index: 2'></div>")
        let pixel = bitmap.pixel(x: 75, y: 75)
        #expect(pixel.r == 255 && pixel.g == 0, "\(pixel)")
        #expect(Self.area(Self.red, bitmap).count == 100 * 100)
    }

    @Test func anAbsoluteBoxWithoutAPositionedParentIsPlacedOnThePageAndTheTextDoesNotMove() throws {
        let text = "<p style='color: red; margin: 0'>The text of the page.</p>"
        let plain = try Self.drawn(text)
        let bitmap = try Self.drawn("<div style='position: absolute; left: 200px; top: 100px; width: 80px; height: 80px; background: blue'></div>" + text)
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.x == 200 && blue.y == 100 && blue.width == 80 && blue.height == 80, "\(blue)")
        let red = try #require(Self.area(Self.red, bitmap).box), before = try #require(Self.area(Self.red, plain).box)
        #expect(red.x == before.x && red.y == before.y)
    }

    @Test func anAbsoluteBoxWithAutoOffsetsStaysAtItsStaticPositionAndShrinksToItsText() throws {
        let html = "<div style='height: 60px; background: green'></div>"
            + "<div style='position: absolute; background: blue; color: blue'>Short</div>"
            + "<div style='height: 30px; width: 30px; background: green'></div>"
        let bitmap = try Self.drawn(html)
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.x == 0 && blue.y == 60, "\(blue)")
        #expect(blue.width < 100, "shrink-to-fit: \(blue)")
        // The next block starts right below the first: the absolute one took no room.
        let green = try #require(Self.area(Self.green, bitmap).box)
        #expect(green.y + green.height == 90)
    }

    @Test func overflowHiddenCutsALineAndABoxAtThePaddingEdge() throws {
        let html = "<div style='overflow: hidden; width: 100px; height: 40px; padding: 10px; background: green'>"
            + "<div style='width: 300px; height: 200px; background: blue'></div></div>"
            + "<div style='overflow: hidden; width: 50px; color: red; white-space: nowrap'>A long line that goes on past the box</div>"
        let bitmap = try Self.drawn(html)
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.x == 10 && blue.y == 10 && blue.width == 110 && blue.height == 50, "\(blue)")
        let red = try #require(Self.area(Self.red, bitmap).box)
        #expect(red.x + red.width <= 50, "\(red)")
    }

    @Test func aBlockInsideARelativelyPositionedInlineMovesWithIt() throws {
        let bitmap = try Self.drawn("<span style='position: relative; left: 100px; top: 10px'>"
                                    + "<span style='display: block; width: 50px; height: 20px; background: blue'></span></span>")
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.x == 100 && blue.y == 10 && blue.width == 50, "\(blue)")
    }

    // Margin collapsing (CSS 2.1 §8.3.1).

    @Test func aNegativeMarginPullsTheNextBlockUpAndCollapsesWithAPositiveOne() throws {
        let bitmap = try Self.drawn("<div style='height: 40px; background: blue'></div>"
                                    + "<div style='margin-top: -10px; height: 20px; width: 50px; background: green'></div>"
                                    + "<div style='margin-bottom: 30px; height: 20px; width: 50px; background: blue'></div>"
                                    + "<div style='margin-top: -10px; height: 20px; width: 50px; background: red'></div>")
        // Green over the blue's last 10 px, from y 30; the second blue at 50, the red 20 below it (30 - 10).
        let green = try #require(Self.area(Self.green, bitmap).box), red = try #require(Self.area(Self.red, bitmap).box)
        #expect(green.y == 30 && green.height == 20, "\(green)")
        #expect(red.y == 90, "\(red)")
    }

    @Test func aBlockThatCutsItsOverflowKeepsItsChildsMarginsInside() throws {
        // `overflow: hidden` makes a block formatting context: the child's margins stay in it.
        let bitmap = try Self.drawn("<div style='height: 10px'></div><div style='overflow: hidden; background: green'>"
                                    + "<div style='margin: 20px 0; height: 20px; background: blue'></div></div><p style='margin: 0; color: red'>x</p>")
        let green = try #require(Self.area(Self.green, bitmap).box), blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(green.y == 10 && green.height == 60, "\(green)")
        #expect(blue.y == 30 && blue.height == 20, "\(blue)")
    }
}
