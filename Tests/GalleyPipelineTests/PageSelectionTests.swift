import Foundation
import GalleyPipeline
import GalleyText
import GalleyTestSupport
import Logging
import Testing

/// Page selection (`pages:`, `--pages`, `max_pages`): a first-page preview of a long manual, a
/// few pages of an article, and a change of selection that draws only the pages it adds.
@Suite struct PageSelectionTests {
    @Test func selectionsReadAsMutoolWritesThem() throws {
        let selection = try PageSelection(parsing: "7, 1-3 ,last,5-N,first")
        #expect(selection.description == "7,1-3,N,5-N,1")
        #expect(selection.indices(pageCount: 10) == [0, 1, 2, 4, 5, 6, 7, 8, 9])
        #expect(selection.indices(pageCount: 10, limit: 2) == [0, 1])
        #expect(selection.indices(pageCount: 2) == [0, 1], "numbers past the end select nothing")
        #expect(try PageSelection(parsing: "N").indices(pageCount: 4) == [3])
        // Without the page count (an article's pages as they are set): the last is unknown.
        let last = try PageSelection(parsing: "2,N")
        #expect(last.contains(2) == true && last.contains(1) == nil && last.contains(3) == nil)
        #expect(try PageSelection(parsing: "2-4").contains(5) == false)
        #expect(try PageSelection(parsing: "3-N").contains(7) == true)
        for bad in ["", "0", "3-1", "a", "1,,2", "N-2", "-3", "1-2-3"] {
            #expect(throws: SelectionError.self, "\(bad)") { try PageSelection(parsing: bad) }
        }
    }

    @Test func theConfigurationFileTakesPagesAndMaxPages() throws {
        let base = URL(fileURLWithPath: "/tmp")
        let configuration = try Configuration.load(yaml: "pages: 1-3,N\nmax_pages: 2\n", file: "pipeline.yml", baseDirectory: base)
        #expect(configuration.pageSelection?.description == "1-3,N" && configuration.maxPages == 2)
        #expect(try Configuration.load(yaml: "pages: 3\n", file: "pipeline.yml", baseDirectory: base).pageSelection?.description == "3")
        for (yaml, line) in [("dpi: 72\npages: 4-2\n", 2), ("max_pages: 0\n", 1)] {
            do {
                _ = try Configuration.load(yaml: yaml, file: "pipeline.yml", baseDirectory: base)
                Issue.record("\(yaml) must be refused")
            } catch {
                #expect(error.line == line, "\(error)")
            }
        }
    }

    func run(_ folder: ScratchFolder, pages: String?, maxPages: Int? = nil) throws -> RunSummary {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.dpi = 30
        configuration.thumbnailBoxes = [48]
        configuration.layouts = [ArticleLayout(name: "a4")]
        configuration.pageSelection = try pages.map { try PageSelection(parsing: $0) }
        configuration.maxPages = maxPages
        return try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
    }

    func pages(_ summary: RunSummary) throws -> [String: (count: Int?, drawn: [Int])] {
        let manifest = try #require(summary.manifest)
        return Dictionary(uniqueKeysWithValues: manifest.documents.map { ($0.source, ($0.pageCount, $0.pages.map(\.number))) })
    }

    @Test func onlySelectedPagesAreDrawnAndANewSelectionDrawsOnlyWhatItAdds() throws {
        let folder = try ScratchFolder("galley-pages")
        _ = try folder.copy([Fixtures.pdf("article.pdf"), Fixtures.articlesFolder.appendingPathComponent("plain-book.txt")], into: "in")
        let first = try run(folder, pages: "1-2")
        var drawn = try pages(first)
        #expect(drawn["article.pdf"]?.count == 4 && drawn["article.pdf"]?.drawn == [1, 2], "page_count stays the document's")
        let bookPages = try #require(drawn["plain-book.txt"]?.count)
        #expect(bookPages > 3 && drawn["plain-book.txt"]?.drawn == [1, 2])
        #expect(first.drawnOutputs == 8, "two pages of two documents, an image and a thumbnail each")
        #expect(first.manifest?.settings.pages == "1-2")
        #expect(!FileManager.default.fileExists(atPath: first.outputFolder.appendingPathComponent("article/page-0003.png").path))

        // One more page, and the last (which for the article is known only once it is set).
        let wider = try run(folder, pages: "1-3,N")
        drawn = try pages(wider)
        #expect(drawn["article.pdf"]?.drawn == [1, 2, 3, 4])
        #expect(drawn["plain-book.txt"]?.drawn == [1, 2, 3, bookPages])
        #expect(wider.drawnOutputs == 8 && wider.reusedOutputs == 8, "pages 3 and last drawn, 1 and 2 kept")

        // Fewer: the pages no longer selected are removed, and the run says so.
        let fewer = try run(folder, pages: "last", maxPages: 1)
        drawn = try pages(fewer)
        #expect(drawn["article.pdf"]?.drawn == [4] && drawn["plain-book.txt"]?.drawn == [bookPages])
        #expect(fewer.drawnOutputs == 0)
        #expect(fewer.removals.contains { $0.source == "article.pdf" && $0.what == "page images" && $0.count == 3 }, "\(fewer.removals)")

        // No selection: every page again, and a selection of nothing warns rather than fails.
        let none = try run(folder, pages: "40-50")
        let article = try #require(none.manifest?.documents.first { $0.source == "article.pdf" })
        #expect(article.status == .ok && article.pages.isEmpty)
        #expect(article.warnings.contains { $0.contains("selects none of its 4 page(s)") }, "\(article.warnings)")
        let all = try run(folder, pages: nil)
        #expect(try pages(all)["article.pdf"]?.drawn == [1, 2, 3, 4])
        #expect(all.manifest?.settings.pages == nil)
    }
}
