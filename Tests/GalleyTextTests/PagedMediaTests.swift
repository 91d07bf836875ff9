import Foundation
import GalleyRaster
import GalleyText
import Testing

/// CSS Paged Media in typeset articles: `@page` size and margins, margin boxes with page
/// counters and running heads (`string-set`), `:first` and `:blank` pages, `break-before:
/// right`, and the layout's `folio` and `running_head` without CSS.
@Suite struct PagedMediaTests {
    static let pointsPerMillimetre = 72 / 25.4
    /// A paragraph of a few lines.
    static let paragraph = "<p>" + String(repeating: "The quick brown fox jumps over the lazy dog while the typesetter fills the page. ", count: 4) + "</p>"

    func typeset(_ html: String, layout: ArticleLayout = ArticleLayout(name: "paged")) throws -> [TypesetPage] {
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        let typesetter = try ArticleTypesetter(text: article.text, layout: layout, fonts: sharedFonts)
        var pages: [TypesetPage] = []
        while let page = try typesetter.nextPage(), pages.count < 50 { pages.append(page) }
        return pages
    }

    func article(style: String, body: String) -> String {
        "<html><head><style>\(style)</style></head><body>\(body)</body></html>"
    }

    /// Dark pixels of `page` drawn at 2 pixels a point inside `rect` (points).
    func ink(_ page: TypesetPage, in rect: GalleyText.Rect) throws -> Int {
        let scale = 2.0
        let bitmap = try page.render(scale: scale, cancellation: Cancellation())
        var count = 0
        for y in max(0, Int(rect.y * scale))..<min(bitmap.height, Int(rect.maxY * scale)) {
            for x in max(0, Int(rect.x * scale))..<min(bitmap.width, Int(rect.maxX * scale)) {
                let p = bitmap.pixel(x: x, y: y)
                if Int(p.r) + Int(p.g) + Int(p.b) < 300 { count += 1 }
            }
        }
        return count
    }

    /// The bottom margin of a page whose margins are `margin` points.
    func bottomMargin(_ page: TypesetPage, _ margin: Double) -> GalleyText.Rect {
        Rect(x: 0, y: page.size.height - margin, width: page.size.width, height: margin)
    }

    @Test func pageRuleSetsThePageSizeAndKeepsTheTextInsideItsMargins() throws {
        let pages = try typeset(article(style: "@page { size: 148mm 210mm; margin: 20mm }",
                                        body: String(repeating: Self.paragraph, count: 12)))
        let margin = 20 * Self.pointsPerMillimetre
        #expect(pages.count > 1)
        for page in pages {
            #expect(abs(page.size.width - 148 * Self.pointsPerMillimetre) < 0.01 && abs(page.size.height - 210 * Self.pointsPerMillimetre) < 0.01)
            for line in page.columns.flatMap(\.lines) {
                #expect(line.rect.x >= margin - 0.01 && line.rect.maxX <= page.size.width - margin + 0.01, "\(line.rect)")
                #expect(line.rect.y >= margin - 0.01 && line.rect.maxY <= page.size.height - margin + 0.01, "\(line.rect)")
            }
            // Nothing is drawn in the margins: no margin box was asked for.
            #expect(page.marginBoxes.isEmpty)
            #expect(try ink(page, in: bottomMargin(page, margin - 1)) == 0)
        }
    }

    /// A book's mirrored margins: the text area moves to the inner side of left and right pages,
    /// with the margin boxes; margins that would change its size are not applied.
    @Test func leftAndRightPageMarginsMoveTheTextAreaAndTheirBoxes() throws {
        let style = "@page { size: A5; margin: 20mm; @bottom-right { content: counter(page) } } "
            + "@page :left { margin-left: 30mm; margin-right: 10mm } @page :right { margin-left: 10mm; margin-right: 30mm } "
            + "@page :first { margin-top: 60mm }"
        let pages = try typeset(article(style: style, body: String(repeating: Self.paragraph, count: 24)))
        #expect(pages.count >= 3)
        let mm = Self.pointsPerMillimetre
        for page in pages {
            let lines = page.columns.flatMap(\.lines)
            let (inner, outer) = page.number % 2 == 1 ? (10 * mm, 30 * mm) : (30 * mm, 10 * mm)
            #expect(abs(try #require(lines.map(\.rect.x).min()) - inner) < 0.01, "page \(page.number)")
            #expect(lines.allSatisfy { $0.rect.maxX <= page.size.width - outer + 0.01 })
            // The first page's taller top margin would shorten its text area: not applied. Its
            // first paragraph keeps its 1em margin there; later pages' first lines, after a
            // break, are at the top.
            let margin = page.number == 1 ? BaseStyle().fontSize : 0
            #expect(abs(try #require(lines.first).rect.y - 20 * mm - margin) < 0.01, "page \(page.number)")
            let folio = try #require(page.marginBoxes.first?.lines.first)
            #expect(abs(folio.rect.maxX - (page.size.width - outer)) < 1)
        }
    }

    /// A long running head in the top centre and a folio at the top right share the row: the
    /// head wraps in the middle, the folio keeps its place, and no two lines overlap.
    @Test func boxesOfARowShareItsWidth() throws {
        let title = String(repeating: "A very long chapter title that runs on ", count: 3)
        let style = "@page { margin: 30mm; @top-center { content: \"\(title)\" } @top-right { content: \"Page \" counter(page) } "
            + "@top-left { content: \"Galley\" } } @page :first { @top-left { content: none } @top-center { content: none } }"
        let pages = try typeset(article(style: style, body: String(repeating: Self.paragraph, count: 20)))
        #expect(pages.count >= 2)
        for page in pages {
            let boxes = page.marginBoxes
            #expect(boxes.map(\.position) == (page.number == 1 ? [.topRight] : [.topLeft, .topCenter, .topRight]))
            let lines = boxes.flatMap(\.lines)
            for (i, a) in lines.enumerated() {
                for b in lines[(i + 1)...] {
                    let apart = a.rect.maxX <= b.rect.x || b.rect.maxX <= a.rect.x || a.rect.maxY <= b.rect.y || b.rect.maxY <= a.rect.y
                    #expect(apart, "page \(page.number): \(a.rect) and \(b.rect)")
                }
            }
            let folio = try #require(boxes.last?.lines)
            #expect(folio.count == 1 && abs(folio[0].rect.maxX - (page.size.width - 30 * Self.pointsPerMillimetre)) < 1)
            if page.number > 1 { #expect(try #require(boxes.first { $0.position == .topCenter }).lines.count > 1) }
        }
    }

    @Test func bottomCenterShowsThePageNumberOfTheTotalInTheBottomMargin() throws {
        let style = "@page { margin: 20mm; @bottom-center { content: counter(page) \" / \" counter(pages) } }"
        let pages = try typeset(article(style: style, body: String(repeating: Self.paragraph, count: 30)))
        #expect(pages.count >= 3)
        let margin = 20 * Self.pointsPerMillimetre
        for page in pages {
            let box = try #require(page.marginBoxes.first)
            #expect(page.marginBoxes.count == 1 && box.position == .bottomCenter)
            #expect(box.text == "\(page.number) / \(pages.count)")
            #expect(page.label == "\(page.number)")
            // Its line is centred in the bottom margin, and drawn there.
            let line = try #require(box.lines.first)
            #expect(line.rect.y >= page.size.height - margin && line.rect.maxY <= page.size.height)
            #expect(abs((line.rect.x + line.rect.maxX) / 2 - page.size.width / 2) < 1)
            #expect(try ink(page, in: line.rect) > 20)
            #expect(try ink(page, in: bottomMargin(page, margin)) == (try ink(page, in: line.rect)))
        }
    }

    @Test func firstPageRuleTakesTheFolioOffTheFirstPage() throws {
        let style = "@page { margin: 20mm; @bottom-right { content: \"Page \" counter(page) } } @page :first { @bottom-right { content: none } }"
        let pages = try typeset(article(style: style, body: String(repeating: Self.paragraph, count: 30)))
        #expect(pages.count >= 2)
        let margin = 20 * Self.pointsPerMillimetre
        #expect(pages[0].marginBoxes.isEmpty)
        #expect(try ink(pages[0], in: bottomMargin(pages[0], margin)) == 0)
        for page in pages.dropFirst() {
            #expect(page.marginBoxes.map(\.text) == ["Page \(page.number)"])
            // Set at the right of the text area.
            let line = try #require(page.marginBoxes.first?.lines.first)
            #expect(abs(line.rect.maxX - (page.size.width - margin)) < 1)
            #expect(try ink(page, in: bottomMargin(page, margin)) > 20)
        }
    }

    /// `number` (1 to 39) in lower-case roman numerals.
    static func lowerRoman(_ number: Int) -> String {
        String(repeating: "x", count: number / 10) + ["", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"][number % 10]
    }

    /// The folio of each page, as printed.
    func folios(_ pages: [TypesetPage]) -> [String] {
        pages.map { page in page.marginBoxes.first { $0.position == .bottomCenter }?.text ?? "" }
    }

    /// `@page chapter:first { counter-reset: page }` restarts the page numbers on each
    /// chapter's opening page, and the numbers go on from there on its other pages and on the
    /// unnamed pages after it. (Before, the reset was ignored and every folio was the page's
    /// place in the article.)
    @Test func namedPageCounterResetRestartsTheFolioOnEachChapter() throws {
        let style = "@page { margin: 20mm; @bottom-center { content: counter(page) } } @page chapter:first { counter-reset: page }"
            + " section { page: chapter }"
        let body = "<p>Title page.</p><section>" + String(repeating: Self.paragraph, count: 12) + "</section><section>"
            + String(repeating: Self.paragraph, count: 12) + "</section><p>Colophon.</p>"
        let pages = try typeset(article(style: style, body: body))
        // The sections share one run of pages of their name (no break between them), so the
        // counter is reset once: on the first page of the run.
        #expect(pages.count >= 4)
        #expect(folios(pages) == ["1"] + (1..<pages.count).map(String.init), "\(folios(pages))")
        #expect(pages.map(\.label) == folios(pages))
    }

    /// An element's `counter-reset: page 1` makes the page it begins show 1, and a reset in the
    /// middle of a page shows on the next page, counted on from the reset value (as Prince
    /// numbers a book's front matter and body). Before, both were ignored.
    @Test func elementCounterResetSetsThePageNumber() throws {
        let style = "@page { margin: 20mm; @bottom-center { content: counter(page, lower-roman) } }"
            + " .main { break-before: page; counter-reset: page 1 } .late { counter-reset: page 10 }"
        let body = String(repeating: Self.paragraph, count: 14) + "<div class=main><p>Main begins.</p>" + String(repeating: Self.paragraph, count: 14)
            + "<p class=late>Late reset.</p>" + String(repeating: Self.paragraph, count: 14) + "</div>"
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(article(style: style, body: body).utf8), baseURL: nil)
        let typesetter = try ArticleTypesetter(text: article.text, layout: ArticleLayout(name: "paged"), fonts: sharedFonts)
        var pages: [TypesetPage] = []
        while let page = try typesetter.nextPage(), pages.count < 50 { pages.append(page) }
        let text = String(String.UnicodeScalarView(article.text.scalars))
        func page(holding marker: String) throws -> Int {
            let offset = text.unicodeScalars.distance(from: text.unicodeScalars.startIndex, to: try #require(text.range(of: marker)).lowerBound)
            return try #require(pages.firstIndex { $0.columns.flatMap(\.lines).contains { $0.range.contains(offset) } })
        }
        let (main, late) = (try page(holding: "Main begins."), try page(holding: "Late reset."))
        #expect(main >= 1 && late > main && late + 1 < pages.count, "main on \(main), late on \(late) of \(pages.count)")
        let expected = (0..<pages.count).map { index in
            index < main ? index + 1 : index <= late ? index - main + 1 : 10 + index - late
        }
        #expect(folios(pages) == expected.map(Self.lowerRoman), "\(folios(pages))")
        #expect(pages.map(\.label) == folios(pages))
    }

    /// `@page { counter-increment: page 2 }` counts the pages in twos.
    @Test func pageCounterIncrementInThePageContext() throws {
        let style = "@page { margin: 20mm; counter-increment: page 2; @bottom-center { content: counter(page) } }"
        let pages = try typeset(article(style: style, body: String(repeating: Self.paragraph, count: 30)))
        #expect(pages.count >= 3)
        #expect(folios(pages) == pages.indices.map { String(2 * ($0 + 1)) })
    }

    @Test func stringSetRunningHeadShowsTheHeadingCurrentOnEachPage() throws {
        let chapters = ["Rivers of the North", "Mountains and Passes", "The Southern Coast"]
        let style = "@page { margin: 20mm; @top-center { content: string(chapter) } } h1 { string-set: chapter content() }"
        // A documentation page's heading: its hidden permalink mark is not part of the head.
        let body = chapters.map { "<h1>\($0)<a href='#x' style='visibility: hidden'>¶</a></h1>" + String(repeating: Self.paragraph, count: 14) }.joined()
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(self.article(style: style, body: body).utf8), baseURL: nil)
        let pages = try typeset(self.article(style: style, body: body))
        #expect(pages.count >= 4)
        // Where each heading begins in the text.
        let starts = chapters.map { chapter in
            article.text.paragraphs.first { String(String.UnicodeScalarView(article.text.scalars[$0.range])).hasPrefix(chapter) }!.range.lowerBound
        }
        var seenOnAnotherPage = false
        for page in pages {
            let range = page.range
            let expected = zip(chapters, starts).first { range.contains($0.1) }?.0 ?? Array(zip(chapters, starts)).last { $0.1 < range.lowerBound }?.0
            #expect(page.marginBoxes.map(\.text) == [expected].compactMap { $0 }, "page \(page.number)")
            if !zip(chapters, starts).contains(where: { range.contains($0.1) }) { seenOnAnotherPage = true }
            let line = try #require(page.marginBoxes.first?.lines.first)
            #expect(line.rect.maxY <= 20 * Self.pointsPerMillimetre)
            #expect(try ink(page, in: line.rect) > 50)
        }
        // Some page carries a heading begun on a page before it.
        #expect(seenOnAnotherPage)
        #expect(Set(pages.flatMap(\.marginBoxes).map(\.text)) == Set(chapters))
    }

    @Test func breakBeforeRightLeavesABlankPageThatBlankRulesStyle() throws {
        let style = "@page { margin: 20mm; @bottom-center { content: counter(page) } } "
            + "@page :blank { @top-center { content: \"This page is blank\" } } h1 { break-before: right }"
        let body = "<h1>One</h1>" + Self.paragraph + "<h1>Two</h1>" + Self.paragraph + "<h1>Three</h1>" + Self.paragraph
        let pages = try typeset(article(style: style, body: body))
        // One: page 1 (right); Two would fall on page 2, a left page: page 2 is blank, Two on 3.
        #expect(pages.count == 5)
        #expect(pages.map(\.isBlank) == [false, true, false, true, false])
        #expect(pages.map(\.lineCount).enumerated().allSatisfy { $0.offset % 2 == 1 ? $0.element == 0 : $0.element > 0 })
        for page in pages where page.isBlank {
            #expect(page.marginBoxes.map(\.text).sorted() == ["This page is blank", "\(page.number)"].sorted())
        }
        for page in pages where !page.isBlank {
            #expect(page.number % 2 == 1)
            #expect(page.marginBoxes.map(\.text) == ["\(page.number)"])
        }
        // `break-after: right` on what ends each chapter does the same.
        let after = try typeset(article(style: style + " h1 { break-before: auto } p { break-after: right }", body: body))
        #expect(after.map(\.isBlank) == [false, true, false, true, false])
        // `break-before: page` leaves none.
        let plain = try typeset(article(style: "h1 { break-before: page }", body: body))
        #expect(plain.count == 3 && plain.allSatisfy { !$0.isBlank && $0.lineCount > 0 })
    }

    /// Vertical text's pages turn to the right: its first page is a left page.
    @Test func verticalTextStartsOnALeftPage() throws {
        let body = "<h1>一</h1><p>縦書きの文章です。</p><h1>二</h1><p>縦書きの文章です。</p>"
        var vertical = ArticleLayout(name: "vertical")
        vertical.writingMode = .verticalRL
        let html = article(style: "h1 { break-before: left }", body: body)
        #expect(try typeset(html, layout: vertical).map(\.isBlank) == [false, true, false])
        #expect(try typeset(html).map(\.isBlank) == [true, false, true, false])
    }

    @Test func layoutFolioAndRunningHeadNeedNoCSS() throws {
        var layout = ArticleLayout(name: "book")
        layout.folio = .bottomCenter
        layout.runningHead = "h1"
        let chapters = ["Harbours", "Lighthouses"]
        let body = chapters.map { "<h1>\($0)</h1>" + String(repeating: Self.paragraph, count: 20) }.joined()
        let html = "<html><body>\(body)</body></html>"
        let pages = try typeset(html, layout: layout)
        #expect(pages.count >= 3)
        let text = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil).text
        let starts = chapters.map { chapter in
            text.paragraphs.first { String(String.UnicodeScalarView(text.scalars[$0.range])).hasPrefix(chapter) }!.range.lowerBound
        }
        for page in pages {
            let folio = try #require(page.marginBoxes.first { $0.position == .bottomCenter })
            #expect(folio.text == "\(page.number)" && page.label == "\(page.number)")
            #expect(try ink(page, in: try #require(folio.lines.first).rect) > 10)
            let running = try #require(page.marginBoxes.first { $0.position == .topCenter })
            // The last heading begun on or before the page.
            #expect(running.text == Array(zip(chapters, starts)).last { $0.1 < page.range.upperBound }?.0, "page \(page.number)")
            #expect(try #require(running.lines.first).rect.maxY <= layout.inset.top)
        }
        #expect(Set(pages.flatMap(\.marginBoxes).map(\.text)).isSuperset(of: chapters))
        // Without them, the same article has no margin boxes and no labels.
        let bare = try typeset("<html><body>\(body)</body></html>")
        #expect(bare.allSatisfy { $0.marginBoxes.isEmpty && $0.label == nil })
    }
}

/// Named pages (CSS Paged Media 3 §4): `page: wide` puts an element on pages of its own, which
/// take the `@page wide` rules' size, margins and margin boxes.
@Suite struct NamedPageTests {
    static let style = """
        @page { size: A5; margin: 20mm; @bottom-center { content: "body " counter(page) } }
        @page wide { size: A5 landscape; margin: 10mm; @bottom-center { content: "wide " counter(page) } }
        @page wide:first { @top-center { content: "Tables" } }
        section { page: wide }
        """

    func typeset(_ body: String, style: String = NamedPageTests.style) throws -> (pages: [TypesetPage], warnings: [String]) {
        let html = "<html><head><style>\(style)</style></head><body>\(body)</body></html>"
        let article = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
        let typesetter = try ArticleTypesetter(text: article.text, layout: ArticleLayout(name: "paged"), fonts: sharedFonts)
        var pages: [TypesetPage] = []
        while let page = try typesetter.nextPage(), pages.count < 50 { pages.append(page) }
        return (pages, article.warnings)
    }

    @Test func aNamedElementGetsPagesOfThatNameWithTheirSizeMarginsAndBoxes() throws {
        let body = "<p id=intro>Before the tables.</p><section>" + String(repeating: PagedMediaTests.paragraph, count: 10)
            + "</section><p>After the tables.</p>"
        let (pages, warnings) = try typeset(body)
        #expect(!warnings.contains { $0.contains("named pages") || $0.contains("@page wide") }, "\(warnings)")
        let mm = PagedMediaTests.pointsPerMillimetre
        let (a5Width, a5Height) = (148 * mm, 210 * mm)
        // Page 1 holds the intro alone (the section starts a page though there is room), the
        // section's pages are landscape, and the text after it goes back to portrait.
        let wide = pages.map { $0.size.width > $0.size.height }
        #expect(pages.count >= 4 && wide.first == false && wide.last == false && wide.dropFirst().dropLast().allSatisfy { $0 }, "\(wide)")
        #expect(pages[0].lineCount == 1)
        for page in pages {
            let (width, height, margin) = wide[page.number - 1] ? (a5Height, a5Width, 10 * mm) : (a5Width, a5Height, 20 * mm)
            #expect(abs(page.size.width - width) < 0.01 && abs(page.size.height - height) < 0.01, "page \(page.number): \(page.size)")
            let lines = page.columns.flatMap(\.lines)
            #expect(abs(try #require(lines.map(\.rect.x).min()) - margin) < 0.01, "page \(page.number)")
            #expect(lines.allSatisfy { $0.rect.maxX <= width - margin + 0.01 && $0.rect.maxY <= height - margin + 0.01 }, "page \(page.number)")
            // Each page's folio is its name's, centred in its own bottom margin; the section's
            // first page alone has the head of `@page wide:first`.
            let folio = try #require(page.marginBoxes.first { $0.position == .bottomCenter })
            #expect(folio.text == (wide[page.number - 1] ? "wide \(page.number)" : "body \(page.number)"))
            #expect(abs(folio.rect.maxY - height) < 0.01 && abs(folio.rect.height - margin) < 0.01)
            #expect(page.marginBoxes.contains { $0.text == "Tables" } == (page.number == 2), "page \(page.number)")
        }
        // The wide pages' lines use their wider text area.
        let widest = pages[1].columns.flatMap(\.lines).map(\.rect.width).max() ?? 0
        #expect(widest > a5Width - 40 * mm + 1, "\(widest)")
    }

    /// `page` in a table cell or on a float names no page: only boxes at the flow's class A
    /// break points do (CSS Paged Media 3 §4.4.2), so the article stays on one body page.
    /// Before, the cell's and the float's paragraphs broke the page and put the table and the
    /// text after them on a page of that name.
    @Test func aNamedElementInACellOrAFloatNamesNoPage() throws {
        for body in ["<p>Before.</p><table><tr><td><section>In a cell.</section></td><td>Other cell.</td></tr></table><p>After.</p>",
                     "<p>Before.</p><section style='float: left; width: 40%'>Floated.</section><p>After.</p>",
                     "<p>Before.</p><div style='float: left; width: 40%'><section>In a float.</section></div><p>After.</p>"] {
            let (pages, _) = try typeset(body)
            #expect(pages.count == 1 && pages[0].size.width < pages[0].size.height, "\(body): \(pages.map(\.size))")
            #expect(pages.map { page in page.marginBoxes.map(\.text) } == [["body 1"]], "\(body)")
        }
        // A table in the flow names its pages.
        let (pages, _) = try typeset("<p>Before.</p><table style='page: wide'><tr><td>A cell.</td></tr></table><p>After.</p>")
        #expect(pages.map { $0.size.width > $0.size.height } == [false, true, false])
    }

    /// A blank page left before a named element's right-hand page is a page of that name (its
    /// size), though not the first of the run, which `:first` of the name keeps for the page
    /// its text begins on.
    @Test func aBlankPageBeforeANamedElementTakesItsName() throws {
        let (pages, _) = try typeset("<p>Before.</p><section><p>Wide.</p></section>", style: Self.style + " section { break-before: right }")
        #expect(pages.map(\.isBlank) == [false, true, false])
        #expect(pages.map { $0.size.width > $0.size.height } == [false, true, true])
        #expect(pages.map { page in page.marginBoxes.contains { $0.text == "Tables" } } == [false, false, true])
    }

    /// Pages of one name in a row are one run: `:first` of the name is its first page only, and
    /// two sections of the same name in a row share their pages (no break between them);
    /// selector lists are still reported.
    @Test func consecutiveElementsOfOneNameShareTheirPages() throws {
        let body = "<section><p>One.</p></section><section><p>Two.</p></section>"
        let (pages, warnings) = try typeset(body, style: Self.style + " @page wide, narrow { margin: 5mm }")
        #expect(pages.count == 1 && pages[0].lineCount == 2 && pages[0].size.width > pages[0].size.height)
        #expect(pages[0].marginBoxes.contains { $0.text == "Tables" })
        #expect(warnings.contains { $0.contains("@page wide, narrow") }, "\(warnings)")
    }
}
