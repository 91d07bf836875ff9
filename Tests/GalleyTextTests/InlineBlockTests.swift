import Foundation
import GalleyRaster
import GalleyText
import Testing

/// Inline-blocks (CSS 2.1 §9.2.4, §10.3.9, §10.8.1): an element with `display: inline-block`
/// is laid out as a block of its own, shrunk to fit its content or at its `width`, with its
/// padding, border and background, and set in its line like a picture, on its baseline or
/// where `vertical-align` says, never split. Drawn on a 600 x 450 pt page at 96 dpi (one CSS px
/// a pixel), as `SizedBoxTests` draws.
@Suite struct InlineBlockTests {
    typealias Box = (x: Int, y: Int, width: Int, height: Int)

    /// The pages of `html` on a 600 x 450 pt page without inset.
    static func pages(_ html: String, pageHeight: Double = 450) throws -> [TypesetPage] {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        #expect(article.text.validate().isEmpty, "\(article.text.validate())")
        var layout = ArticleLayout(name: "inline-blocks")
        (layout.pageWidth, layout.pageHeight) = (600, pageHeight)
        layout.inset = .init(all: 0)
        return try typesetAll(article.text, layout, fonts: sharedFonts)
    }

    static func drawn(_ page: TypesetPage) throws -> Bitmap { try page.render(scale: 96.0 / 72, cancellation: Cancellation()) }

    static func area(_ rgb: (UInt8, UInt8, UInt8), _ bitmap: Bitmap) -> (count: Int, box: Box?) {
        SizedBoxTests.area(of: rgb, in: bitmap)
    }

    static let blue = SizedBoxTests.blue
    static let green = SizedBoxTests.green
    static let red: (UInt8, UInt8, UInt8) = (255, 0, 0)

    /// Columns of `bitmap` in `rows` holding ink that is not white nor one of `colours`.
    static func inkColumns(_ bitmap: Bitmap, rows: Range<Int>, ignoring colours: [(UInt8, UInt8, UInt8)] = []) -> [Int] {
        (0..<bitmap.width).filter { x in
            rows.contains { y in
                let p = bitmap.pixel(x: x, y: y)
                return p != (255, 255, 255) && !colours.contains { $0 == p }
            }
        }
    }

    @Test func anInlineBlockSitsInItsLineBesideTheTextWithItsPaddingBorderAndBackground() throws {
        let html = "<p style='margin: 0'>Before <span style='display: inline-block; padding: 6px; border: 3px solid green; "
            + "background: blue; color: white'>badge</span> after.</p>"
        let page = try #require(try Self.pages(html).first)
        #expect(page.lineCount == 1, "one line: the text, the box, the text")
        let bitmap = try Self.drawn(page)
        let border = try #require(Self.area(Self.green, bitmap).box)
        let background = try #require(Self.area(Self.blue, bitmap).box)
        // The border frames the padding box: 3 px on every side of the blue.
        #expect(background.x == border.x + 3 && background.y == border.y + 3)
        #expect(background.width == border.width - 6 && background.height == border.height - 6)
        // Padding around the word: the blue is taller than a line of its text (6 px above and below).
        #expect(background.height >= 12 + 14, "\(background)")
        // Text on both sides of the box, on the same line.
        let rows = border.y..<(border.y + border.height)
        let ink = Self.inkColumns(bitmap, rows: rows, ignoring: [Self.green, Self.blue])
        #expect(ink.contains { $0 < border.x } && ink.contains { $0 >= border.x + border.width }, "text before and after the box")
        // The word inside is drawn in white over the blue: the padding box is not all blue.
        #expect(Self.area(Self.blue, bitmap).count < background.width * background.height)
    }

    @Test func anAutoWidthShrinksToFitItsContent() throws {
        // Short content: as wide as its words, far less than the line.
        let short = try Self.drawn(try #require(try Self.pages("<div><span style='display: inline-block; background: blue'>Short</span></div>").first))
        let shortBox = try #require(Self.area(Self.blue, short).box)
        #expect(shortBox.width > 20 && shortBox.width < 80, "\(shortBox)")
        // Long content: as wide as the line (800 px), its words wrapping inside one solid box.
        let words = String(repeating: "many words that wrap ", count: 30)
        let long = try Self.drawn(try #require(try Self.pages("<div>x <span style='display: inline-block; background: blue'>\(words)</span></div>").first))
        let longArea = Self.area(Self.blue, long)
        let longBox = try #require(longArea.box)
        #expect(longBox.x == 0 && longBox.width == 800, "the whole line: \(longBox)")
        #expect(longBox.height > 60, "several lines inside: \(longBox)")
        // One rectangle of background, the text inside it: between its lines no white gaps.
        let column = (longBox.x + 795)
        #expect((longBox.y..<(longBox.y + longBox.height)).allSatisfy { long.pixel(x: column, y: $0) == Self.blue }, "solid to its right edge")
    }

    @Test func aGivenWidthAndHeightAreTheBoxSizeEvenWithNothingInside() throws {
        let html = "<p style='margin: 0'>A <span style='display: inline-block; width: 200px; height: 50px; background: blue'></span> "
            + "<span style='display: inline-block; width: 150px; padding: 5px; border: 5px solid green; background: blue'>Text set in 150 px</span></p>"
        let bitmap = try Self.drawn(try #require(try Self.pages(html).first))
        let green = try #require(Self.area(Self.green, bitmap).box)
        // Boxes stand where the text puts them, not on whole pixels: an edge pixel may be mixed.
        #expect(abs(green.width - (150 + 10 + 10)) <= 1, "content 150 + padding 10 + border 10: \(green)")
        // The empty box is 200 x 50 of blue, left of the other box.
        var empty: (count: Int, x0: Int, x1: Int, y0: Int, y1: Int) = (0, .max, -1, .max, -1)
        for y in 0..<bitmap.height {
            for x in 0..<(green.x - 1) where bitmap.pixel(x: x, y: y) == Self.blue {
                empty = (empty.count + 1, min(empty.x0, x), max(empty.x1, x), min(empty.y0, y), max(empty.y1, y))
            }
        }
        #expect(abs(empty.x1 - empty.x0 + 1 - 200) <= 1 && abs(empty.y1 - empty.y0 + 1 - 50) <= 1, "\(empty)")
        #expect(empty.count >= 199 * 49, "\(empty)")
    }

    /// The blue boxes' bounding boxes, left to right (split where a column has no blue).
    static func blueBoxes(_ bitmap: Bitmap) -> [Box] {
        var boxes: [Box] = []
        var current: (x0: Int, x1: Int, y0: Int, y1: Int)?
        for x in 0..<bitmap.width {
            let ys = (0..<bitmap.height).filter { bitmap.pixel(x: x, y: $0) == Self.blue }
            if let first = ys.first, let last = ys.last {
                current = current.map { ($0.x0, x, min($0.y0, first), max($0.y1, last)) } ?? (x, x, first, last)
            } else if let box = current {
                boxes.append((box.x0, box.y0, box.x1 - box.x0 + 1, box.y1 - box.y0 + 1))
                current = nil
            }
        }
        if let box = current { boxes.append((box.x0, box.y0, box.x1 - box.x0 + 1, box.y1 - box.y0 + 1)) }
        return boxes
    }

    @Test func verticalAlignPutsTheBoxAtTheLineTopMiddleBottomOrBaseline() throws {
        func boxes(_ align: String) throws -> (tall: Box, small: Box) {
            let html = "<p style='margin: 0; font-size: 20px'>x<span style='display: inline-block; width: 40px; height: 120px; background: green'></span>"
                + "<span style='display: inline-block; width: 30px; height: 20px; background: blue; vertical-align: \(align)'></span>x</p>"
            let bitmap = try Self.drawn(try #require(try Self.pages(html).first))
            return (try #require(Self.area(Self.green, bitmap).box), try #require(Self.area(Self.blue, bitmap).box))
        }
        let baseline = try boxes("baseline"), top = try boxes("top"), bottom = try boxes("bottom"), middle = try boxes("middle")
        // Both on the baseline: bottoms level.
        #expect(baseline.small.y + baseline.small.height == baseline.tall.y + baseline.tall.height, "\(baseline)")
        // `top`: at the top of the line, which the tall box fills.
        #expect(top.small.y == top.tall.y, "\(top)")
        // `bottom`: at the foot of the line, below the baseline by the text's descent.
        #expect(bottom.small.y + bottom.small.height > bottom.tall.y + bottom.tall.height, "\(bottom)")
        // `middle`: its centre a little above the baseline, well inside the tall box's height.
        let centre = middle.small.y + middle.small.height / 2, foot = middle.tall.y + middle.tall.height
        #expect(centre < foot && centre > foot - 15, "\(middle)")
    }

    @Test func anInlineBlockIsNeverSplitAcrossLinesOrPages() throws {
        // Lines fill most of a short page; the box of five lines comes after them.
        let filler = String(repeating: "Filler text for the page. ", count: 60)
        let box = "<span style='display: inline-block; width: 300px; background: blue'>" + String(repeating: "inside the box ", count: 20) + "</span>"
        let pages = try Self.pages("<p style='margin: 0'>\(filler) \(box) end.</p>", pageHeight: 300)
        #expect(pages.count >= 2)
        var pieces: [Int] = []
        for page in pages {
            let blue = Self.area(Self.blue, try Self.drawn(page))
            if blue.count > 0, let box = blue.box {
                pieces.append(box.height)
                #expect(abs(box.width - 300) <= 1 && blue.count > box.width * box.height / 2, "\(box)")
            }
        }
        #expect(pieces.count == 1, "the box is whole on one page: \(pieces)")
        #expect((pieces.first ?? 0) > 60, "its lines inside: \(pieces)")
    }

    @Test func anInlineBlockBylineStartsAParagraphThatWrapsAfterIt() throws {
        let byline = "<span class='byline' style='display: inline-block; border-bottom: 2px solid green; padding: 0 4px; margin-right: 8px; "
            + "font-weight: bold'>By Ada Printer</span>"
        let body = String(repeating: "The story goes on beside the byline and under it. ", count: 12)
        let page = try #require(try Self.pages("<p style='margin: 0'>\(byline)\(body)</p>").first)
        #expect(page.lineCount > 2)
        let bitmap = try Self.drawn(page)
        let rule = try #require(Self.area(Self.green, bitmap).box)
        #expect(rule.x == 0 && (1...3).contains(rule.height) && rule.width > 60, "the byline's bottom border: \(rule)")
        // The byline's words are in the first line, above its border, and the story follows
        // beside it, past its right margin.
        let firstLine = page.columns[0].lines[0]
        let lineBottom = Int(firstLine.rect.maxY * 96 / 72)
        #expect(rule.y < lineBottom + 3, "the border in the first line: \(rule), line to \(lineBottom)")
        let ink = Self.inkColumns(bitmap, rows: max(0, rule.y - 12)..<rule.y, ignoring: [Self.green])
        #expect(ink.contains { $0 < rule.width }, "the byline's text above its border")
        #expect(ink.contains { $0 > rule.width + 10 }, "the story beside it")
        // A box as high as a line of the story and its 2 px border: the line grows by the
        // border, not by the line's leading a second time.
        let lines = page.columns[0].lines
        #expect(lines[0].rect.height <= lines[1].rect.height + 2, "\(lines[0].rect) against \(lines[1].rect)")
        // Its glyphs are drawn with the page's: the words count in the page's glyphs.
        let glyphs = page.placedGlyphs.filter { Int($0.x * 96 / 72) < rule.width && abs($0.y - firstLine.baseline) < 1 }
        #expect(glyphs.count >= "ByAdaPrinter".count)
    }
}

extension InlineBlockTests {
    @Test func centredContentShrinksToItsWordsNotToTheLine() throws {
        let html = "<p style='margin: 0'>A <span style='display: inline-block; text-align: center; padding: 8px; background: blue'>Centred</span> badge.</p>"
        let bitmap = try Self.drawn(try #require(try Self.pages(html).first))
        let box = try #require(Self.area(Self.blue, bitmap).box)
        // Its word and 8 px of padding around it, not a line's width.
        #expect(box.width < 100 + 16 && box.height >= 14 + 16, "as wide as its word: \(box)")
    }
}

extension InlineBlockTests {
    @Test func itsOwnUnderlineIsDrawnButNotTheOneOfTheTextAroundIt() throws {
        // An underline declared on the inline-block underlines its words (css21's
        // text-decoration-applies-to-005); the paragraph's does not reach inside.
        func underlined(_ html: String) throws -> Int {
            let bitmap = try Self.drawn(try #require(try Self.pages(html).first))
            // Rows with a long run of ink: an underline, not letters.
            return (0..<bitmap.height).count { y in
                var run = 0, longest = 0
                for x in 0..<bitmap.width {
                    run = bitmap.pixel(x: x, y: y) == (255, 255, 255) ? 0 : run + 1
                    longest = max(longest, run)
                }
                return longest > 60
            }
        }
        #expect(try underlined("<div><span style='display: inline-block; text-decoration: underline; padding: 4px'>Filler Text</span></div>") > 0)
        #expect(try underlined("<div style='text-decoration: underline'>x <span style='display: inline-block; padding: 4px'>Filler Text</span></div>") == 0)
    }

    /// Percentage margins and paddings are of the containing block's width, on every side
    /// (CSS 2.1 §8.3, §8.4): a card grid of `width: 30%; margin: 1.5%` sets three cards to a
    /// row, each 30% wide and 3% from the next but for the space between them, as a browser.
    @Test func percentageMarginsAndPaddingsAreOfTheContainingBlocksWidth() throws {
        let card = "<span style='display: inline-block; width: 30%; height: 100px; margin: 1.5%; background: blue'></span>"
        let html = "<div>" + Array(repeating: card, count: 6).joined() + "</div>"
        let bitmap = try Self.drawn(try #require(try Self.pages(html).first))
        // 800 px wide: each card 240 px, its margin 12 px; the second row below the first's margins.
        let row = (0..<bitmap.width).filter { bitmap.pixel(x: $0, y: 50) == Self.blue }
        let runs = row.reduce(into: [[Int]]()) { runs, x in
            if let last = runs.last?.last, last == x - 1 { runs[runs.count - 1].append(x) } else { runs.append([x]) }
        }
        #expect(runs.count == 3, "three cards on the first row: \(runs.map { ($0.first!, $0.count) })")
        for (index, run) in runs.enumerated() {
            #expect(run.count == 240, "card \(index) is 30% of 800 px: \(run.count)")
            #expect(abs(run.first! - (12 + index * 264)) <= 1, "card \(index) starts after 1.5% margins: \(run.first!)")
        }
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.y == 12, "the top margin is 1.5% of the width too: \(blue.y)")
        // Padding in percent: a box of no size with `padding: 5%` is 10% of the width wide and high.
        let padded = try Self.drawn(try #require(try Self.pages("<div><span style='display: inline-block; width: 0; height: 0; padding: 5%; background: blue'></span></div>").first))
        let box = try #require(Self.area(Self.blue, padded).box)
        #expect(box.width == 80 && box.height == 80, "5% of 800 px on every side: \(box)")
    }
}
