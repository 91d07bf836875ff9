import Foundation
import GalleyBase
import GalleyPDF
import GalleyRaster
import GalleyTestSupport
import Testing

@Suite struct PDFDocumentTests {
    let engine: MuPDFEngine

    init() throws {
        engine = try MuPDFEngine()
    }

    /// A page tree's /Count is a claim: a document has the pages its tree holds. A count of a
    /// billion made a run allocate every page number and abort.
    @Test func aPageCountIsWhatThePageTreeHolds() throws {
        let folder = try ScratchFolder("page-count")
        let pages = ["0 0 1 rg 10 10 50 50 re f", "1 0 0 rg 10 10 50 50 re f", "0 1 0 rg 10 10 50 50 re f"]
        for (claim, holds) in [(3, 3), (4, 3), (1_000_000_000, 3), (2_147_483_647, 3)] {
            let url = folder.path("claims-\(claim).pdf")
            try TestPDF.write(pages: pages, claimedCount: claim, to: url)
            let document = try PDFDocument(path: url.path, password: nil, engine: engine)
            #expect(document.pageCount == holds && document.claimedPageCount == claim, "claims \(claim)")
            // The last page it holds is there to draw.
            #expect(try document.recordPage(holds - 1).render(scale: 0.1, cancellation: Cancellation()).width > 0)
        }
        // A tree that claims pages and holds none.
        let empty = folder.path("empty-tree.pdf")
        try TestPDF.write(pages: [], claimedCount: 1_000_000_000, to: empty)
        let error = #expect(throws: PDFError.self) { try PDFDocument(path: empty.path, password: nil, engine: self.engine) }
        #expect(error?.code == .impossiblePageTree, "\(String(describing: error))")
    }

    /// A document and its pages may be the last owners of their engine: the engine then lives
    /// until they are freed (freeing a document takes the engine's locks). A release build of
    /// `galley thumbnail` once freed the engine first and aborted in glibc; the address
    /// sanitizer (`scripts/sanitize.sh address`) reports the use after free if it comes back.
    @Test func aDocumentAndItsPagesKeepTheirEngineAlive() throws {
        weak var released: MuPDFEngine?
        var document: PDFDocument?
        var page: PDFPage?
        do {
            let own = try MuPDFEngine()
            released = own
            document = try PDFDocument(path: Fixtures.pdf("article.pdf").path, password: nil, engine: own)
            page = try document?.recordPage(0)
        }
        #expect(released != nil, "the document holds its engine")
        let bitmap = try #require(page).render(scale: 0.25, cancellation: Cancellation())
        #expect(bitmap.width > 0)
        document = nil
        #expect(released != nil, "the page still holds it")
        page = nil
        #expect(released == nil, "freed with its last document and page")
    }

    /// A page lane records every nth page of a long document, and every `cacheDropInterval`th
    /// page it records drops the document's parsed objects that nothing holds (memory of long
    /// documents). With drops every 32 pages, two lanes (even and odd pages) each pass that point
    /// twice and still draw every page as a document recording all pages in order does, text in
    /// the shared font included.
    @Test func pagesRecordedAfterCachedObjectsAreDroppedDrawTheSame() throws {
        let folder = try ScratchFolder("dropped-objects")
        let url = folder.path("long.pdf")
        let pages = (0..<140).map { "BT /F1 \(10 + $0 % 9) Tf 10 \(190 - 2 * ($0 % 50)) Td (Page \($0 + 1) of a long run.) Tj ET\n0 0 1 rg \($0 % 16 * 10) 20 40 40 re f" }
        try TestPDF.write(pages: pages, width: 200, height: 200, font: true, to: url)
        let inOrder = try PDFDocument(path: url.path, password: nil, engine: engine)
        let lanes = try (0..<2).map { _ in
            let lane = try PDFDocument(path: url.path, password: nil, engine: engine)
            lane.cacheDropInterval = 32
            return lane
        }
        for index in 0..<pages.count {
            let one = try inOrder.recordPage(index).render(scale: 1, cancellation: Cancellation())
            let lane = try lanes[index % 2].recordPage(index).render(scale: 1, cancellation: Cancellation())
            #expect(one.width == lane.width && one.height == lane.height)
            #expect(Array(one.pixels) == Array(lane.pixels), "page \(index + 1)")
            // The text sits above row 130 (baselines 190 to 92 pt up a 200 pt page), the blue
            // square below row 140: each must be there, dark in the red channel.
            let dark = { (rows: Range<Int>) in rows.reduce(0) { sum, y in
                sum + (0..<one.width).count { one.pixels[(y * one.width + $0) * 3] < 64 } } }
            #expect(dark(0..<130) > 50, "page \(index + 1) has its text")
            #expect(dark(140..<one.height) > 1000, "page \(index + 1) has its square")
        }
    }

    @Test func opensEveryGoodFixtureWithPages() throws {
        for name in Fixtures.goodPDFs {
            let document = try PDFDocument(path: Fixtures.pdf(name).path, password: nil, engine: engine)
            #expect(document.pageCount >= 1, "\(name)")
            #expect(!document.wasRepaired, "\(name) should not need repair")
        }
        #expect(try PDFDocument(path: Fixtures.pdf("article.pdf").path, password: nil, engine: engine).pageCount == 4)
    }

    /// MuPDF's text of a page, through the shim: the lines in reading order, each page its own.
    @Test func pageTextIsThePagesLines() throws {
        let folder = try ScratchFolder("page-text")
        let url = folder.path("text.pdf")
        try TestPDF.write(pages: ["BT /F1 12 Tf 72 700 Td (First line, page one.) Tj ET\nBT /F1 12 Tf 72 680 Td (Second line.) Tj ET",
                                  "BT /F1 12 Tf 72 700 Td (Page two.) Tj ET", ""],
                          font: true, to: url)
        let document = try PDFDocument(path: url.path, password: nil, engine: engine)
        #expect(try document.pageText(0).split(separator: "\n").map(String.init) == ["First line, page one.", "Second line."])
        #expect(try document.pageText(1).contains("Page two.") && !document.pageText(1).contains("First"))
        #expect(try document.pageText(2).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func rotatedAndCroppedPagesReportTheirShownSize() throws {
        let rotated = try PDFDocument(path: Fixtures.pdf("rotated.pdf").path, password: nil, engine: engine).recordPage(0)
        #expect(rotated.rotation == 90)
        #expect(rotated.size == PageSize(width: 792, height: 612))
        #expect(rotated.pixelBounds(scale: 150.0 / 72).width == 1650)
        #expect(rotated.pixelBounds(scale: 150.0 / 72).height == 1275)

        let cropped = try PDFDocument(path: Fixtures.pdf("cropped.pdf").path, password: nil, engine: engine).recordPage(0)
        #expect(cropped.size == PageSize(width: 468, height: 648))
    }

    @Test(arguments: [
        ("garbage.pdf", Failure.Code.notPDF),
        ("empty.pdf", Failure.Code.notPDF),
        ("no-pages.pdf", Failure.Code.noPages),
        ("truncated.pdf", Failure.Code.truncated),
    ])
    func brokenFilesFailWithTheirReason(name: String, code: Failure.Code) throws {
        let path = Fixtures.brokenFolder.appendingPathComponent(name).path
        let error = #expect(throws: PDFError.self) { try PDFDocument(path: path, password: nil, engine: self.engine) }
        #expect(error?.code == code)
        #expect(error?.message.isEmpty == false)
        // The same reason from the file's bytes in memory (what galley plan opens).
        let bytes = try FileBytes(path: path)
        let fromMemory = #expect(throws: PDFError.self) { try PDFDocument(bytes: bytes, path: path, password: nil, engine: self.engine) }
        #expect(fromMemory?.code == code, "\(fromMemory?.message ?? "")")
    }

    /// A PDF opened from its bytes, read once by the caller, is the document MuPDF opens from
    /// its file: the same pages, repairs, encryption and drawing.
    @Test func aDocumentOpenedFromItsBytesIsTheOneOpenedFromItsFile() throws {
        let paths = (Fixtures.goodPDFs + [Fixtures.encryptedPDF, "damaged-content.pdf"]).map { Fixtures.pdf($0).path }
            + ["cut-short.pdf"].map { Fixtures.brokenFolder.appendingPathComponent($0).path }
        for path in paths {
            let password = path.hasSuffix(Fixtures.encryptedPDF) ? Fixtures.encryptedPassword : nil
            let file = try PDFDocument(path: path, password: password, engine: engine)
            let memory = try PDFDocument(bytes: try FileBytes(path: path), path: path, password: password, engine: engine)
            #expect(memory.pageCount == file.pageCount && memory.wasRepaired == file.wasRepaired
                    && memory.isTruncated == file.isTruncated && memory.encryption == file.encryption, "\(path)")
            let drawn = try memory.recordPage(file.pageCount - 1).render(scale: 0.5, cancellation: Cancellation())
            let expected = try file.recordPage(file.pageCount - 1).render(scale: 0.5, cancellation: Cancellation())
            #expect(drawn.width == expected.width && Array(drawn.pixels) == Array(expected.pixels), "\(path)")
        }
        let missing = #expect(throws: PDFError.self) { try FileBytes(path: "/nonexistent/galley.pdf") }
        #expect(missing?.code == .unreadable)
    }

    @Test func damagedContentOpensRepairedAndCountsReadErrors() throws {
        let document = try PDFDocument(path: Fixtures.pdf("damaged-content.pdf").path, password: nil, engine: engine)
        #expect(document.wasRepaired)
        let page = try document.recordPage(0)
        #expect(page.readErrors > 0)
        let image = try page.render(scale: 1, cancellation: Cancellation())
        let p = image.pixel(x: 30, y: 170)  // the blue square drawn before the missing image
        #expect(p.b > 200 && p.r < 50)
        let clean = try PDFDocument(path: Fixtures.pdf("article.pdf").path, password: nil, engine: engine).recordPage(0)
        #expect(clean.readErrors == 0)
    }

    /// A page loaded and run straight into the drawing (a run without page images) draws what
    /// the recorded page draws, at thumbnail sizes, on every good fixture page; on the damaged
    /// one it says what reading it met, once drawn.
    @Test func aPageDrawnStraightFromItsDocumentIsTheRecordedPage() throws {
        for name in Fixtures.goodPDFs {
            let document = try PDFDocument(path: Fixtures.pdf(name).path, password: nil, engine: engine)
            for index in 0..<document.pageCount {
                let recorded = try document.recordPage(index)
                let loaded = try document.loadPage(index) { _ in }
                #expect(loaded.size == recorded.size && loaded.rotation == recorded.rotation, "\(name) page \(index + 1)")
                for box in [128, 256] {
                    let scale = recorded.thumbnailScale(box: box)
                    #expect(loaded.pixelBounds(scale: scale) == recorded.pixelBounds(scale: scale))
                    let straight = try loaded.render(scale: scale, cancellation: Cancellation())
                    let played = try recorded.render(scale: scale, cancellation: Cancellation())
                    #expect(Array(straight.pixels) == Array(played.pixels), "\(name) page \(index + 1) box \(box)")
                }
            }
        }
        let damaged = try PDFDocument(path: Fixtures.pdf("damaged-content.pdf").path, password: nil, engine: engine)
        let counted = Mutex<[Int]>([])
        let page = try damaged.loadPage(0) { errors in counted.withLock { $0.append(errors) } }
        #expect(counted.withLock { $0 }.isEmpty, "nothing is known before the page is drawn")
        let image = try page.render(scale: 1, cancellation: Cancellation())
        #expect(counted.withLock { $0 } == [try damaged.recordPage(0).readErrors] && counted.withLock { $0 } != [0])
        let p = image.pixel(x: 30, y: 170)  // the blue square drawn before the missing image
        #expect(p.b > 200 && p.r < 50)
    }

    @Test func missingFileIsUnreadable() throws {
        let error = #expect(throws: PDFError.self) {
            try PDFDocument(path: "/nonexistent/galley.pdf", password: nil, engine: self.engine)
        }
        #expect(error?.code == .unreadable)
    }

    @Test func encryptedDocumentNeedsTheRightPassword() throws {
        let path = Fixtures.pdf(Fixtures.encryptedPDF).path
        let missing = #expect(throws: PDFError.self) { try PDFDocument(path: path, password: nil, engine: self.engine) }
        #expect(missing?.code == .passwordRequired)
        let wrong = #expect(throws: PDFError.self) { try PDFDocument(path: path, password: "nope", engine: self.engine) }
        #expect(wrong?.code == .wrongPassword)
        let document = try PDFDocument(path: path, password: Fixtures.encryptedPassword, engine: engine)
        #expect(document.pageCount == 4)
        #expect(document.isEncrypted)
    }
}
