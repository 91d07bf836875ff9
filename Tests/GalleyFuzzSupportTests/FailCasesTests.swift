import Foundation
import GalleyFuzzSupport
import GalleyText
import GalleyTestSupport
import Testing

/// Every input a fuzzer ever broke Galley with, kept in `FuzzTesting/FailCases/<target>/`,
/// replayed through the target's own code (without libFuzzer): each must now finish, and give
/// the same outcome twice. A regression traps, which fails the test run.
struct FailCasesTests {
    static let folder = Fixtures.repositoryRoot.appendingPathComponent("FuzzTesting/FailCases")
    static let targetNames = [MarkupFuzzTarget.name, ConfigurationFuzzTarget.name, PDFFuzzTarget.name, ImageFuzzTarget.name]

    /// A kept input: its target's folder and its file name.
    struct FailCase: CustomTestStringConvertible, Sendable {
        var target: String
        var file: String
        var testDescription: String { "\(target)/\(file)" }
    }

    static var failCases: [FailCase] {
        targetNames.flatMap { target in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(target).path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { FailCase(target: target, file: $0) }
        }
    }

    static func makeTarget(_ name: String) throws -> any FuzzTarget {
        switch name {
        case MarkupFuzzTarget.name: try MarkupFuzzTarget()
        case ConfigurationFuzzTarget.name: try ConfigurationFuzzTarget()
        case PDFFuzzTarget.name: try PDFFuzzTarget()
        case ImageFuzzTarget.name: try ImageFuzzTarget()
        default: preconditionFailure("no fuzz target \(name)")
        }
    }

    @Test func everyFolderIsATarget() throws {
        // A folder misspelt, or left behind by a renamed target, would never be replayed.
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { !$0.hasPrefix(".") }
        #expect(Set(folders).isSubset(of: Self.targetNames), "FailCases folders: \(folders.sorted())")
        #expect(!folders.isEmpty)
    }

    @Test(arguments: failCases)
    func failCaseFinishes(_ failCase: FailCase) throws {
        let bytes = try [UInt8](Data(contentsOf: Self.folder.appendingPathComponent(failCase.target).appendingPathComponent(failCase.file)))
        let target = try Self.makeTarget(failCase.target)
        let first = target.run(bytes)
        #expect(target.run(bytes) == first)
    }
}

/// The image target draws what a run would draw and refuses what a run would refuse, so a
/// fuzzing pass exercises both the SVG renderer and the raster decoders.
@Test func imageTargetRendersSVGAndDecodesRastersAndRefusesTheRest() throws {
    let target = try ImageFuzzTarget()
    let svg = Array("<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'><rect width='40' height='20' fill='red'/></svg>".utf8)
    #expect(target.run(svg).pagesDrawn == 1)
    let png = try [UInt8](Data(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("fixtures/articles/images/figure.png")))
    #expect(target.run(png).pagesDrawn == 1)
    let cut = target.run(Array(png.prefix(60)))
    #expect(cut.pagesDrawn == 0 && !cut.errors.isEmpty)
    // Past the target's pixel limit: rendered smaller, never refused for size.
    let huge = Array("<svg xmlns='http://www.w3.org/2000/svg' width='100000' height='100000'><circle r='5'/></svg>".utf8)
    #expect(target.run(huge).pagesDrawn == 1)
    let text = target.run(Array("just some words".utf8))
    #expect(text.pagesDrawn == 0 && !text.errors.isEmpty)
}

/// MuPDF 1.21 loops forever on polygon points it cannot read (a letter, a plus sign) and on a
/// plus sign in path data: such a picture fails at once with the character named; negative and
/// exponent numbers still draw.
@Test func svgPolygonPointsMuPDFWouldLoopOnFailTheImageAlone() throws {
    let target = try ImageFuzzTarget()
    func svg(_ points: String, element: String = "polygon") -> [UInt8] {
        Array("<svg xmlns='http://www.w3.org/2000/svg' width='40' height='40'><g><\(element) points='\(points)' stroke='red'/></g></svg>".utf8)
    }
    #expect(target.run(svg("0,0 40,0 20,4e1 -1.5e+0,.5")).pagesDrawn == 1)
    #expect(target.run(svg("0,0 40 40", element: "polyline")).pagesDrawn == 1)
    for points in ["09,90 50M-60 90,90", "0,0 40,0 20,40 x", "0,0 +5,5"] {
        let outcome = target.run(svg(points))
        #expect(outcome.pagesDrawn == 0)
        #expect(outcome.errors.contains { $0.contains("points MuPDF cannot read") }, "\(points): \(outcome.errors)")
    }
    func path(_ data: String) -> [UInt8] {
        Array("<svg xmlns='http://www.w3.org/2000/svg' width='40' height='40'><path d='\(data)' fill='red'/></svg>".utf8)
    }
    #expect(target.run(path("M10 10 L30 10 L2e+1 3E+1 Z")).pagesDrawn == 1)
    // A PNG inside an SVG whose header claims 282 x 16,777,216 pixels: MuPDF would allocate
    // 2.2 GB before decoding (the fuzzer's malloc limit caught it); the allocation is refused,
    // MuPDF leaves the inner image out and draws the rest.
    let huge = try [UInt8](Data(contentsOf: FailCasesTests.folder.appendingPathComponent("FuzzImage/oom-737da7039f00aabd108cb56a1608de8546ef91f1")))
    #expect(target.run(huge).pagesDrawn == 1)
    let plus = target.run(path("M10 50 90 +90 Z"))
    #expect(plus.pagesDrawn == 0 && plus.errors.contains { $0.contains("path data MuPDF cannot read") }, "\(plus.errors)")
}

/// The PDF target reads every page's text as `galley diff --text` does, besides drawing page 1,
/// so a fuzzing pass reaches MuPDF's text extraction through the shim; a file that does not
/// open gives its error and no text.
@Test func pdfTargetExtractsEachPagesText() throws {
    let target = try PDFFuzzTarget()
    let article = try [UInt8](Data(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("fixtures/pdf/article.pdf")))
    let outcome = target.run(article)
    #expect(outcome.pagesDrawn == 1 && outcome.pagesOfText == 4, "\(outcome)")
    #expect(outcome.errors.isEmpty, "\(outcome.errors)")
    let garbage = target.run(Array("%PDF-1.7 not really".utf8))
    #expect(garbage.pagesOfText == 0 && !garbage.errors.isEmpty)
}

/// The markup target writes each article's pages as PDF, as `documents: [pdf]` does, and
/// traps when MuPDF cannot read that PDF back with as many pages: a run of it finishes on an
/// article with links, anchors and headings, and the read-back check names a PDF cut short or
/// missing a page.
@Test func markupTargetReadsBackThePDFItWrites() throws {
    let target = try MarkupFuzzTarget()
    let html = "<h1 id=top>Title</h1><p>A <a href='#top'>link</a> and <a href='https://example.org/a(b'>one</a> out.</p>"
        + String(repeating: "<p>More words to fill the small pages of the fuzzer's layout.</p>", count: 30)
    // An input whose length makes the target write the PDF.
    var input = [UInt8(0)] + Array(html.utf8)
    while input.count % MarkupFuzzTarget.pdfEvery != 0 { input.append(UInt8(ascii: " ")) }
    let outcome = target.run(input)
    #expect(outcome.pagesDrawn > 2 && outcome.errors.isEmpty, "\(outcome)")

    let fonts = try FontLibrary()
    let parsed = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil)
    let typesetter = try ArticleTypesetter(text: parsed.text, layout: ArticleLayout(name: "a4"), fonts: fonts)
    let writer = PDFDocumentFormat().makeWriter(text: parsed.text, layout: ArticleLayout(name: "a4"))
    var pages = 0
    while let page = try typesetter.nextPage() {
        try writer.add(page)
        pages += 1
    }
    let pdf = try writer.finish()
    #expect(target.readBackFailure(pdf, pages: pages) == nil)
    #expect(target.readBackFailure(pdf, pages: pages + 1)?.contains("pages, not") == true)
    #expect(target.readBackFailure(Array(pdf.prefix(pdf.count / 3)), pages: pages) != nil)
}
