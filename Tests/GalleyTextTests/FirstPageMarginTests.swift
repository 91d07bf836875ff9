import GalleyRaster
import GalleyText
import Testing

/// The top margin of the first block on the first page is kept (no break is there), and
/// margins go at the top of a later page the text goes on to (an unforced break, css-break-3
/// §5.5), drawn on a 600 x 450 pt page at 96 dpi (one CSS px a pixel), without inset.
@Suite struct FirstPageMarginTests {
    static let area = SizedBoxTests.area
    static let blue = SizedBoxTests.blue

    /// Every page of `html`, drawn.
    static func pages(_ html: String) throws -> [Bitmap] {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        var layout = ArticleLayout(name: "margins")
        (layout.pageWidth, layout.pageHeight) = (600, 450)
        layout.inset = .init(all: 0)
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts)
        var pages: [Bitmap] = []
        while let page = try typesetter.nextPage(), pages.count < 5 { pages.append(try page.render(scale: 96.0 / 72, cancellation: Cancellation())) }
        return pages
    }

    @Test func aSizedBlockAtTheTopOfTheFirstPageKeepsItsTopMargin() throws {
        let bitmap = try #require(try Self.pages("<div style='margin-top: 40px; width: 100px; height: 50px; background: blue'></div>").first)
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.y == 40 && blue.height == 50, "\(blue)")
    }

    @Test func marginsOfNestedBlocksAtTheTopCollapseIntoOne() throws {
        // The parent's 20 px and the child's 40 px adjoin: 40 px above both (CSS 2.1 §8.3.1).
        let html = "<div style='margin-top: 20px'><div style='margin-top: 40px; height: 30px; background: blue'></div></div>"
        let bitmap = try #require(try Self.pages(html).first)
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.y == 40 && blue.height == 30, "\(blue)")
    }

    @Test func aParagraphsTopMarginMovesItsFirstLineDown() throws {
        func top(_ margin: Int) throws -> Int {
            let bitmap = try #require(try Self.pages("<p style='margin: \(margin)px 0 0; color: blue'>Some text at the top.</p>").first)
            return try #require(Self.area(Self.blue, bitmap).box).y
        }
        #expect(try top(30) - top(0) == 30)
    }

    @Test func aBorderedBoxAtTheTopKeepsItsMarginAboveItsBorder() throws {
        let html = "<div style='margin-top: 25px; border-top: 10px solid blue; height: 20px'></div>"
        let bitmap = try #require(try Self.pages(html).first)
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.y == 25 && blue.height == 10, "\(blue)")
    }

    @Test func aMultiColumnElementAtTheTopKeepsItsMargin() throws {
        let html = "<div style='columns: 2; margin-top: 30px; color: blue'>Some words in two columns, enough for a few lines of them.</div>"
        let bitmap = try #require(try Self.pages(html).first)
        let blue = try #require(Self.area(Self.blue, bitmap).box)
        #expect(blue.y >= 30 && blue.y < 40, "\(blue)")
    }

    @Test func theMarginOfABlockStartingTheNextPageGoes() throws {
        // The first block fills the 600 px of the first page: the blue one begins the second,
        // where an unforced break took its margin.
        let html = "<div style='height: 600px'></div><div style='margin-top: 40px; height: 50px; width: 50px; background: blue'></div>"
        let pages = try Self.pages(html)
        try #require(pages.count == 2)
        #expect(Self.area(Self.blue, pages[0]).count == 0)
        let blue = try #require(Self.area(Self.blue, pages[1]).box)
        #expect(blue.y == 0 && blue.height == 50, "\(blue)")
    }
}
