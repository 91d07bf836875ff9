import Foundation
import GalleyDiff
import GalleyPipeline
import GalleyTestSupport
import Testing

/// Pages moved by pages inserted or removed before them, as the summaries and the review page show them.
@Suite struct DiffShiftTests {
    typealias Runs = RunDiffTests.Runs

    static func shapes(_ seed: Int) -> String { RunDiffTests.shapes(seed) }

    /// A page removed from a long document shifts every page after it; an edit in another
    /// document must still be counted, listed and shown first, whatever the number of
    /// pages the shift moved (more than the summaries' page lines).
    @Test func pagesShiftedByARemovedPageAreNotChangesAndHideNoRealChange() throws {
        let runs = try Runs()
        let long = (1...66).map(Self.shapes)
        let base = try runs.run("base", pdfs: ["a-long.pdf": long, "b-edited.pdf": [Self.shapes(70), Self.shapes(71)]])
        var removed = long
        removed.remove(at: 4)
        let new = try runs.run("new", pdfs: ["a-long.pdf": removed, "b-edited.pdf": [Self.shapes(70), Self.shapes(72)]])
        let report = try runs.diff(base, new)
        let longReport = try #require(report.documents.first { $0.source == "a-long.pdf" })
        // Page 5 removed; the 61 pages after it are the base's 6–66, not changes.
        #expect(longReport.pages.changed == 0 && longReport.pages.removed == 1 && longReport.pages.added == 0)
        #expect(longReport.pages.unchanged == 4)
        #expect(longReport.changes.filter { $0.status == .removed }.map(\.number) == [5])
        #expect(report.totals.pages.changed == 1, "only the edited page: \(report.totals.pages)")
        let text = DiffSummary.text(report)
        #expect(text.contains("b-edited.pdf: page 2 changed"), "\(text)")
        #expect(text.contains("a-long.pdf: page 5 removed"), "\(text)")
        #expect(text.contains("1 page removed after page 4: 61 pages after it are the base's shifted by 1"), "\(text)")
        #expect(!text.contains("more changed pages") && !text.contains("a-long.pdf: page 6 changed"), "\(text)")
        #expect(DiffSummary.headline(report).contains("pages: 1 changed, 0 added, 1 removed, 61 shifted"))
        let markdown = DiffSummary.markdown(report)
        #expect(markdown.contains("- page 2 changed") && !markdown.contains("more changed pages"), "\(markdown)")
        #expect(markdown.components(separatedBy: "\n").filter { $0.hasPrefix("- page") }.count == 2, "\(markdown)")
        // The review page opens with the two real changes, not 62 "changed" pages.
        let html = try String(contentsOf: runs.folder.path("diff/index.html"), encoding: .utf8)
        #expect(html.contains("<h2>Changed pages (2)</h2>"), "\(html.prefix(3000))")
        #expect(try ManifestSchema.violations(of: runs.folder.path("diff/diff.json"), schema: "diff") == [])
    }
}

/// Runs drawn at different resolutions, compared.
@Suite struct DiffResolutionTests {
    typealias Runs = RunDiffTests.Runs

    /// With a thumbnail size in both runs, the pages are compared by it: unchanged pages are
    /// unchanged, and the resolution is said once instead of every page being "resized".
    @Test func runsAtAnotherDpiAreComparedByTheirThumbnailsAndSaidOnce() throws {
        let runs = try Runs()
        let pages = (1...4).map(RunDiffTests.shapes)
        let base = try runs.run("base", pdfs: ["doc.pdf": pages], dpi: 72, thumbnails: [64])
        let new = try runs.run("new", pdfs: ["doc.pdf": pages], dpi: 100, thumbnails: [64])
        let report = try runs.diff(base, new)
        let text = DiffSummary.text(report)
        #expect(!text.contains("resized"), "\(text)")
        #expect(text.components(separatedBy: "drawn at 72 dpi before, 100 now").count == 2, "said once: \(text)")
        #expect(report.outcome == .unchanged && report.totals.pages.unchanged == 4, "\(text)")
        #expect(try ManifestSchema.violations(of: runs.folder.path("diff/diff.json"), schema: "diff") == [])
    }

    /// Without one, the pages cannot be compared: one line says so, not a line per page.
    @Test func runsAtAnotherDpiWithoutThumbnailsSayOnceThatPagesWereNotCompared() throws {
        let runs = try Runs()
        let pages = (1...4).map(RunDiffTests.shapes)
        let base = try runs.run("base", pdfs: ["doc.pdf": pages], dpi: 72)
        let new = try runs.run("new", pdfs: ["doc.pdf": pages], dpi: 100)
        let report = try runs.diff(base, new)
        let text = DiffSummary.text(report)
        #expect(!text.contains("resized:"), "\(text)")
        #expect(text.contains("drawn at 72 dpi before, 100 now: 4 pages of the same size not compared pixel by pixel"), "\(text)")
        let markdown = DiffSummary.markdown(report)
        #expect(!markdown.contains("resized:") && markdown.contains("Drawn at 72 dpi before, 100 now"), "\(markdown)")
    }
}
