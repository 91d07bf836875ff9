import Foundation
import GalleyPDF
import GalleyRaster
import GalleyTestSupport
import Synchronization
import Testing

/// Pages drawn by Galley must match `mutool draw` in size and, within 1% mean absolute
/// difference, in pixels.
@Suite struct PDFPageTests {
    let engine: MuPDFEngine

    init() throws {
        engine = try MuPDFEngine()
    }

    static let pages: [(String, Int)] = Fixtures.goodPDFs.flatMap { name -> [(String, Int)] in
        let count = ["article.pdf": 4, "mixed.pdf": 4, "shared-image.pdf": 6][name] ?? 1
        return (1...count).map { (name, $0) }
    }

    @Test(arguments: pages)
    func matchesMutoolDrawAt150Dpi(name: String, page: Int) throws {
        let document = try PDFDocument(path: Fixtures.pdf(name).path, password: nil, engine: engine)
        let ours = try document.recordPage(page - 1).render(scale: 150.0 / 72, cancellation: Cancellation())
        let theirs = try PeerTools.mutoolDraw(Fixtures.pdf(name), page: page, options: ["-r", "150"])
        #expect(ours.width == theirs.width && ours.height == theirs.height, "\(name) p\(page): \(ours.width)×\(ours.height) vs \(theirs.width)×\(theirs.height)")
        guard ours.width == theirs.width, ours.height == theirs.height else { return }
        #expect(ImageProperties.meanAbsoluteDifference(ours, theirs) < 0.01)
        #expect(ImageProperties.inkCoverage(ours) > 0.001, "page should not be blank")
        #expect(ImageProperties.blackRows(ours) == 0)
    }

    @Test func fractionalCropBoxRoundsLikeMutool() throws {
        // Page 4 of mixed.pdf has a CropBox with fractional edges and /Rotate 180.
        let document = try PDFDocument(path: Fixtures.pdf("mixed.pdf").path, password: nil, engine: engine)
        let page = try document.recordPage(3)
        for dpi in [37.0, 72, 96, 150, 301] {
            let bounds = page.pixelBounds(scale: dpi / 72)
            let theirs = try PeerTools.mutoolDraw(Fixtures.pdf("mixed.pdf"), page: 4, options: ["-r", String(Int(dpi))])
            #expect(bounds.width == theirs.width && bounds.height == theirs.height, "dpi \(dpi)")
        }
    }

    @Test func bandedDrawingEqualsWholeDrawing() throws {
        let page = try PDFDocument(path: Fixtures.pdf("vector-art.pdf").path, password: nil, engine: engine).recordPage(0)
        let scale = 100.0 / 72
        let whole = try page.render(scale: scale, cancellation: Cancellation())
        let bounds = page.pixelBounds(scale: scale)
        let encoder = try PNGEncoder(width: bounds.width, height: bounds.height, compression: .fast)
        var y = 0
        while y < bounds.height {
            let rows = min(97, bounds.height - y)
            let band = try Bitmap(width: bounds.width, height: rows)
            try page.draw(into: band, rect: PixelRect(x: bounds.x, y: bounds.y + y, width: bounds.width, height: rows),
                          scale: scale, cancellation: Cancellation())
            try encoder.write(band)
            y += rows
        }
        let banded = try Bitmap(pngData: try encoder.finish())
        #expect(ImageProperties.meanAbsoluteDifference(whole, banded) < 0.001)
    }

    /// A scan too large to decode for every band (over 64 MB decoded), drawn at its own
    /// resolution in bands: each band decodes only its rows, and the pixels are those of the
    /// whole page drawn at once, row for row (a band's rows taken from the wrong part of the
    /// image, or cut short, would differ).
    @Test func aHugeScanDrawnInBandsEqualsTheWholeDrawing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("galley-scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("scan.pdf")
        let side = 4800  // 69 MB of RGB samples.
        try TestPDF.writeImagePage(width: side, height: side, pixel: { x, y in
            (UInt8(truncatingIfNeeded: x &* 7 ^ y &* 13), UInt8(truncatingIfNeeded: y), UInt8(truncatingIfNeeded: (x >> 3) &+ (y >> 5)))
        }, to: url)
        let page = try PDFDocument(path: url.path, password: nil, engine: engine).recordPage(0)
        let whole = try page.render(scale: 1, cancellation: Cancellation())
        let bounds = page.pixelBounds(scale: 1)
        #expect(bounds.width == side && bounds.height == side)
        var y = 0
        while y < bounds.height {
            let rows = min(1000, bounds.height - y)
            let band = try Bitmap(width: bounds.width, height: rows)
            try page.draw(into: band, rect: PixelRect(x: bounds.x, y: bounds.y + y, width: bounds.width, height: rows),
                          scale: 1, cancellation: Cancellation())
            let bytes = band.rowBytes * rows
            #expect(memcmp(band.pixels.baseAddress!, whole.pixels.baseAddress! + y * whole.rowBytes, bytes) == 0, "band at row \(y)")
            y += rows
        }
        // The image's own pixels, not merely the same mistake twice.
        for (x, row) in [(0, 0), (1234, 2345), (side - 1, side - 1)] {
            let pixel = whole.pixel(x: x, y: row)
            #expect([pixel.r, pixel.g, pixel.b] == [UInt8(truncatingIfNeeded: x &* 7 ^ row &* 13), UInt8(truncatingIfNeeded: row),
                                                    UInt8(truncatingIfNeeded: (x >> 3) &+ (row >> 5))])
        }
    }

    /// MuPDF caches decoded images and reuses finer decodes for smaller drawings; if that leaked
    /// into output, a thumbnail would depend on which page image a worker happened to draw
    /// first, and runs with different worker counts would differ.
    @Test func pixelsDoNotDependOnWhatWasDrawnBefore() throws {
        let path = Fixtures.pdf("shared-image.pdf").path
        func thumbnail(_ engine: MuPDFEngine, page: Int, after warmUp: (PDFDocument) throws -> Void) throws -> [UInt8] {
            let document = try PDFDocument(path: path, password: nil, engine: engine)
            try warmUp(document)
            let source = try document.recordPage(page)
            return try source.render(scale: source.thumbnailScale(box: 96), cancellation: Cancellation()).pngData()
        }
        for page in [0, 5] {
            let alone = try thumbnail(MuPDFEngine(), page: page) { _ in }
            let afterOwnPageImage = try thumbnail(MuPDFEngine(), page: page) { document in
                _ = try document.recordPage(page).render(scale: 150.0 / 72, cancellation: Cancellation())
            }
            let afterOtherPages = try thumbnail(MuPDFEngine(), page: page) { document in
                for other in 0..<document.pageCount {
                    _ = try document.recordPage(other).render(scale: 300.0 / 72, cancellation: Cancellation())
                }
            }
            #expect(alone == afterOwnPageImage, "page \(page + 1)")
            #expect(alone == afterOtherPages, "page \(page + 1)")
        }
    }

    @Test func cancelledDrawStops() throws {
        let page = try PDFDocument(path: Fixtures.pdf("article.pdf").path, password: nil, engine: engine).recordPage(0)
        let cancellation = Cancellation()
        cancellation.cancel()
        let error = #expect(throws: PDFError.self) { try page.render(scale: 2, cancellation: cancellation) }
        #expect(error?.code == .cancelled)
    }

    @Test func thumbnailsFitEveryBoxAndFillIt() throws {
        for (name, page) in Self.pages {
            let source = try PDFDocument(path: Fixtures.pdf(name).path, password: nil, engine: engine).recordPage(page - 1)
            for box in 8...600 {
                let bounds = source.pixelBounds(scale: source.thumbnailScale(box: box))
                #expect(bounds.width <= box && bounds.height <= box, "\(name) p\(page) box \(box)")
                #expect(max(bounds.width, bounds.height) >= box - 1, "\(name) p\(page) box \(box) should fill it")
            }
        }
    }

    @Test func thumbnailsMatchMutoolDrawFittingTheSameBox() throws {
        for name in ["article.pdf", "landscape.pdf", "cropped.pdf", "rotated.pdf", "photo.pdf"] {
            let page = try PDFDocument(path: Fixtures.pdf(name).path, password: nil, engine: engine).recordPage(0)
            for box in [64, 128, 256] {
                let thumb = try page.render(scale: page.thumbnailScale(box: box), cancellation: Cancellation())
                let theirs = try PeerTools.mutoolDraw(Fixtures.pdf(name), page: 1, options: ["-w", String(box), "-h", String(box)])
                // Same size, and the pixels within the 1% the README promises for pages (they
                // differ by at most 0.13% today; a thumbnail shifted by a few pixels gives 2%).
                #expect(thumb.width == theirs.width && thumb.height == theirs.height,
                        "\(name) \(box): \(thumb.width)×\(thumb.height) vs mutool \(theirs.width)×\(theirs.height)")
                let width = min(thumb.width, theirs.width), height = min(thumb.height, theirs.height)
                #expect(ImageProperties.meanAbsoluteDifference(thumb, theirs, width: width, height: height) < 0.01, "\(name) \(box)")
            }
        }
    }
}

/// Collects results from concurrent work.
final class ResultBox: Sendable {
    private let stored = Mutex<[[UInt8]?]>([])
    func append(_ value: [UInt8]?) { stored.withLock { $0.append(value) } }
    var values: [[UInt8]?] { stored.withLock { $0 } }
}

/// Every page of every fixture PDF, as a page image (150 dpi) and a thumbnail: the reduced PNG
/// decodes to the drawn pixels in every decoder.
@Test func reducedPNGsOfEveryFixturePageDecodeAsDrawn() throws {
    let engine = try MuPDFEngine()
    var pages: [(name: String, bitmap: Bitmap)] = []
    for name in Fixtures.goodPDFs {
        let document = try PDFDocument(path: Fixtures.pdf(name).path, password: nil, engine: engine)
        for index in 0..<document.pageCount {
            let page = try document.recordPage(index)
            for (label, scale) in [("page", 150.0 / 72), ("thumb", page.thumbnailScale(box: 128))] {
                pages.append(("\(name)-\(index + 1)-\(label)", try page.render(scale: scale, cancellation: Cancellation())))
            }
        }
    }
    let (problems, forms, reducedBytes, rgbBytes) = try ReducedPNGCheck.check(pages, dpi: 150)
    #expect(problems.isEmpty, "\(problems)")
    #expect(reducedBytes < rgbBytes * 9 / 10, "reduced \(reducedBytes) bytes, RGB \(rgbBytes)")
    // Not vacuous: the fixtures hold pages of every kind.
    #expect(forms["rgb", default: 0] > 0 && forms.keys.contains { $0.hasPrefix("palette") }, "\(forms)")
}

/// One recorded page drawn from several threads at once: a suite of its own, because it is the
/// one in this module that starts threads, so the thread sanitizer runs it
/// (`threaded_suites` in scripts/sanitize.sh) and not the single-threaded comparisons above.
@Suite struct ConcurrentPageDrawTests {
    @Test func concurrentDrawsOfOnePageAreIdentical() throws {
        let engine = try MuPDFEngine()
        let page = try PDFDocument(path: Fixtures.pdf("photo.pdf").path, password: nil, engine: engine).recordPage(0)
        let reference = try page.render(scale: 1, cancellation: Cancellation()).pngData(compression: .fast)
        let results = ResultBox()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let png = try? page.render(scale: 1, cancellation: Cancellation()).pngData(compression: .fast)
            results.append(png)
        }
        #expect(results.values.count == 8)
        #expect(results.values.allSatisfy { $0 == reference })
    }
}
