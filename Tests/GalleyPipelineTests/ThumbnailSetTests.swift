import Foundation
#if canImport(Glibc)
import GalleyManifest
import Glibc
#endif
import GalleyPDF
import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import Logging
import Testing

/// A page's thumbnails come from one drawing: the largest box is drawn, the smaller boxes are
/// that drawing reduced by area averaging, whichever of them a run makes.
@Suite struct ThumbnailSetTests {
    func run(_ folder: ScratchFolder, thumbnails: [Int], pageImages: Bool, workers: Int = 2) throws -> RunSummary {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = "out"
        configuration.dpi = 72
        configuration.pageImages = pageImages
        configuration.thumbnailBoxes = thumbnails
        configuration.workers = Configuration.Workers(all: workers)
        return try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
    }

    func thumbnail(_ summary: RunSummary, _ page: Manifest.Page, box: Int) throws -> Bitmap {
        let thumbnail = try #require(page.thumbnails.first { $0.box == box })
        let bytes = [UInt8](try Data(contentsOf: summary.outputFolder.appendingPathComponent(thumbnail.path)))
        return try IndependentImageDecoder.decode(bytes, format: .png).bitmap
    }

    @Test(arguments: [true, false])
    func smallerThumbnailsAreTheLargestReduced(pageImages: Bool) throws {
        let folder = try ScratchFolder()
        _ = try folder.copy(["article.pdf", "photo.pdf", "rotated.pdf"].map(Fixtures.pdf), into: "in")
        let summary = try run(folder, thumbnails: [48, 200, 100], pageImages: pageImages)
        let pages = try #require(summary.manifest?.documents).flatMap(\.pages)
        #expect(pages.count >= 3)
        for page in pages {
            let largest = try thumbnail(summary, page, box: 200)
            for box in [48, 100] {
                let small = try thumbnail(summary, page, box: box)
                #expect(max(small.width, small.height) <= box)
                let reduced = try largest.areaAveraged(width: small.width, height: small.height)
                #expect(Array(reduced.pixels) == Array(small.pixels), "page \(page.number), box \(box)")
            }
        }
    }

    func pageImage(_ summary: RunSummary, _ page: Manifest.Page) throws -> Bitmap {
        let image = try #require(page.image)
        let bytes = [UInt8](try Data(contentsOf: summary.outputFolder.appendingPathComponent(image.path)))
        return try IndependentImageDecoder.decode(bytes, format: .png).bitmap
    }

    /// With page images, a page is drawn once for all its outputs: each picture is decoded once
    /// a page, not once for the page image and again for the thumbnails, and the largest
    /// thumbnail is the page image reduced by area averaging; with one worker or two, the same
    /// bytes.
    @Test func withPageImagesAPageIsDrawnOnceForAllItsOutputs() throws {
        // A size no other test draws: the counter counts this picture's decodes alone.
        let (width, height) = (397, 389)
        func folder() throws -> ScratchFolder {
            let folder = try ScratchFolder()
            try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
            try TestPDF.writeImagePage(width: width, height: height, stream: .flate, pages: 3, pixel: { x, y in
                (UInt8(truncatingIfNeeded: x &* 7 ^ y &* 13), UInt8(truncatingIfNeeded: y &* 3), UInt8(truncatingIfNeeded: (x >> 2) &+ y))
            }, to: folder.path("in/scan.pdf"))
            return folder
        }
        MuPDFEngine.countImageDecodes(width: width, height: height)
        let first = try folder()  // kept until the outputs are read
        let summary = try run(first, thumbnails: [48, 96], pageImages: true)
        let pages = try #require(summary.manifest?.documents.first?.pages)
        #expect(pages.count == 3 && pages.allSatisfy { $0.image != nil && $0.thumbnails.count == 2 })
        #expect(MuPDFEngine.countedImageDecodes == 3, "one decoding a page for the page image and both thumbnails")
        for page in pages {
            let largest = try thumbnail(summary, page, box: 96)
            let reduced = try pageImage(summary, page).areaAveraged(width: largest.width, height: largest.height)
            #expect(Array(reduced.pixels) == Array(largest.pixels), "page \(page.number)")
        }
        let second = try folder()
        let alone = try run(second, thumbnails: [48, 96], pageImages: true, workers: 1)
        let outputs = { (summary: RunSummary) in summary.manifest?.documents.first?.pages.map { [$0.image?.sha256 ?? ""] + $0.thumbnails.map(\.sha256) } }
        #expect(outputs(alone) == outputs(summary))
    }

    /// `galley thumbs` (page images kept, none drawn) makes the thumbnails `galley run` makes:
    /// reduced from the page drawn at the page images' dpi, whichever outputs are already there.
    @Test func aThumbnailsOnlyRunMakesWhatAFullRunMakes() throws {
        let folder = try ScratchFolder()
        _ = try folder.copy(["photo.pdf", "article.pdf"].map(Fixtures.pdf), into: "in")
        let full = try run(folder, thumbnails: [48, 96], pageImages: true)
        let thumbnails = { (summary: RunSummary) in summary.manifest?.documents.flatMap(\.pages).map { $0.thumbnails.map(\.sha256) } }
        let out = full.outputFolder
        for document in ["photo", "article"] { try FileManager.default.removeItem(at: out.appendingPathComponent("\(document)/thumbs")) }
        try FileManager.default.removeItem(at: out.appendingPathComponent(".galley/thumbnail-cache"))
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = "out"
        configuration.dpi = 72
        configuration.thumbnailBoxes = [48, 96]
        let again = try Pipeline(configuration: configuration, logger: Logger(label: "test")).run(RunOptions(thumbnailsOnly: true))
        #expect(again.drawnOutputs > 0)
        #expect(thumbnails(again) == thumbnails(full))
    }

    /// A box added to a finished folder gets the thumbnail a fresh run makes, and the boxes it
    /// no longer is the largest of are made again from it.
    @Test func aLargerBoxAddedLaterGivesWhatAFreshRunGives() throws {
        let folder = try ScratchFolder()
        _ = try folder.copy([Fixtures.pdf("photo.pdf")], into: "in")
        _ = try run(folder, thumbnails: [64], pageImages: false)
        let later = try run(folder, thumbnails: [64, 160], pageImages: false)
        let fresh = try ScratchFolder()
        _ = try fresh.copy([Fixtures.pdf("photo.pdf")], into: "in")
        let once = try run(fresh, thumbnails: [64, 160], pageImages: false, workers: 1)
        let (a, b) = (try #require(later.manifest?.documents.first?.pages.first), try #require(once.manifest?.documents.first?.pages.first))
        #expect(a.thumbnails.map(\.sha256) == b.thumbnails.map(\.sha256))
    }

    /// With the thumbnail cache on, a thumbnail and its cache entry are one file with two
    /// names (one written a thumbnail, not two), and a thumbnail served from the cache is that
    /// file again; a drawing that replaces an output leaves the cache's bytes as they were.
    @Test func aThumbnailAndItsCacheEntryAreOneFile() throws {
        let folder = try ScratchFolder()
        _ = try folder.copy([Fixtures.pdf("photo.pdf"), Fixtures.pdf("article.pdf")], into: "in")
        func links(_ summary: RunSummary) throws -> [Int] {
            try summary.manifest!.documents.flatMap(\.pages).flatMap(\.thumbnails).map { thumbnail in
                var info = stat()
                #expect(lstat(summary.outputFolder.appendingPathComponent(thumbnail.path).path, &info) == 0)
                return Int(info.st_nlink)
            }
        }
        let first = try run(folder, thumbnails: [64, 128], pageImages: false)
        let counts = try links(first)
        #expect(!counts.isEmpty && counts.allSatisfy { $0 == 2 }, "\(counts)")
        let cache = first.outputFolder.appendingPathComponent(".galley/thumbnail-cache")
        let cached = try FileManager.default.contentsOfDirectory(atPath: cache.path).sorted()
        #expect(cached.count == counts.count)
        let before = try cached.map { try Data(contentsOf: cache.appendingPathComponent($0)) }
        // A document's outputs deleted: the next run takes them from the cache, as the same
        // files; the entries keep their bytes.
        try FileManager.default.removeItem(at: first.outputFolder.appendingPathComponent("photo"))
        let again = try run(folder, thumbnails: [64, 128], pageImages: false)
        #expect(again.drawnOutputs == 0)
        let countsAgain = try links(again)
        #expect(countsAgain.allSatisfy { $0 == 2 }, "\(countsAgain)")
        #expect(try cached.map { try Data(contentsOf: cache.appendingPathComponent($0)) } == before)
    }
}
