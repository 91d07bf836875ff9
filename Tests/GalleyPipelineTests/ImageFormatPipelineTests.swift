import Foundation
import GalleyBase
import GalleyDiff
import GalleyManifest
import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import Logging
import Testing

/// Runs in WebP, JPEG and AVIF: what a user of the output folder notices (names, manifest,
/// pixels read back by independent decoders, what a settings change redraws), and pages too
/// large for a format failing alone.
@Suite struct ImageFormatPipelineTests {
    func configuration(_ folder: ScratchFolder, configure: (inout Configuration) -> Void = { _ in }) -> Configuration {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = "out"
        configuration.dpi = 50
        configuration.thumbnailBoxes = [64]
        configuration.workers = Configuration.Workers(all: 2)
        configuration.thumbnailCacheMiB = 0
        configure(&configuration)
        return configuration
    }

    func run(_ configuration: Configuration) throws -> RunSummary {
        try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
    }

    /// Every output file under a folder (Galley's state left out), by relative path, with its inode.
    static func outputs(in folder: URL) -> [String: UInt64] {
        var result: [String: UInt64] = [:]
        for case let path as String in FileManager.default.enumerator(atPath: folder.path) ?? .init()
        where path.contains("page-") && !path.hasPrefix(".galley/") {
            var info = stat()
            if stat(folder.appendingPathComponent(path).path, &info) == 0 { result[path] = UInt64(info.st_ino) }
        }
        return result
    }

    @Test(arguments: [(ImageFormat.jpeg, ImageFormat.webp), (.webp, .avif), (.avif, .jpeg)])
    func pagesAndThumbnailsAreWrittenInTheirFormatsAndReadBackAsDrawn(format: ImageFormat, thumbnails: ImageFormat) throws {
        let folder = try ScratchFolder("galley-formats")
        _ = try folder.copy(["photo.pdf", "vector-art.pdf"].map(Fixtures.pdf), into: "in")
        let png = try run(configuration(folder) { $0.output = "png" })
        let summary = try run(configuration(folder) {
            $0.format = format
            $0.thumbnailFormat = thumbnails
        })
        #expect(summary.outcome == .succeeded)
        let manifest = try #require(summary.manifest)
        #expect(manifest.settings.format == format.rawValue && manifest.settings.thumbnailFormat == thumbnails.rawValue)
        #expect(manifest.settings.quality == ImageEncoding.defaultQuality(format))
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")).isEmpty)
        let sheet = try String(contentsOf: summary.outputFolder.appendingPathComponent("index.html"), encoding: .utf8)
        let reference = try #require(png.manifest)
        for (document, pngDocument) in zip(manifest.documents, reference.documents) {
            #expect(document.pages.count == pngDocument.pages.count && !document.pages.isEmpty)
            for (page, pngPage) in zip(document.pages, pngDocument.pages) {
                let image = try #require(page.image)
                #expect(image.format == format.rawValue && image.path.hasSuffix("/page-\(String(format: "%04d", page.number)).\(format.fileExtension)"))
                let thumbnail = try #require(page.thumbnails.first)
                #expect(thumbnail.format == thumbnails.rawValue && thumbnail.path.hasSuffix(".\(thumbnails.fileExtension)"))
                #expect(sheet.contains("src=\"\(thumbnail.path)\""), "the contact sheet shows \(thumbnail.path)")
                // Lossy at the default quality, mean absolute difference from the drawn pixels:
                // page images within 3.5 levels of 255 (measured 0.6 to 2.6), 64-pixel thumbnails
                // within 6 (measured 0.9 to 4.8: every pixel of a small drawing of vector art is
                // near a coloured edge, where 4:2:0 chroma and DCT ringing cost most).
                for (entry, pngPath, entryFormat, tolerance) in [(image.path, try #require(pngPage.image).path, format, 3.5),
                                                                 (thumbnail.path, try #require(pngPage.thumbnails.first).path, thumbnails, 6.0)] {
                    let bytes = [UInt8](try Data(contentsOf: summary.outputFolder.appendingPathComponent(entry)))
                    let decoded = try IndependentImageDecoder.decode(bytes, format: entryFormat).bitmap
                    let drawn = try Bitmap(pngData: [UInt8](try Data(contentsOf: png.outputFolder.appendingPathComponent(pngPath))))
                    #expect(decoded.width == drawn.width && decoded.height == drawn.height)
                    let difference = ImageProperties.meanAbsoluteDifference(decoded, drawn)
                    #expect(difference < tolerance / 255, "\(entry): \(difference * 255) levels")
                }
            }
        }
    }

    /// The catalog's fingerprints carry each format's settings: a new quality for page images
    /// redraws them and keeps the PNG thumbnails; a new format leaves no file of the old one.
    @Test func aQualityChangeRedrawsOnlyTheImagesInThatFormat() throws {
        let folder = try ScratchFolder("galley-formats")
        _ = try folder.copy(["article.pdf", "photo.pdf"].map(Fixtures.pdf), into: "in")
        var settings = configuration(folder) {
            $0.format = .jpeg
            $0.thumbnailFormat = .png
            $0.quality = 85
        }
        let first = try run(settings)
        let pages = try #require(first.manifest?.totals.pages)
        let before = Self.outputs(in: first.outputFolder)
        #expect(before.count == 2 * pages)

        settings.quality = 60
        let second = try run(settings)
        #expect(second.drawnOutputs == pages, "the page images, and nothing else")
        let after = Self.outputs(in: second.outputFolder)
        #expect(Set(after.keys) == Set(before.keys))
        #expect(after.filter { $0.key.hasSuffix(".png") }.allSatisfy { before[$0.key] == $0.value }, "thumbnails kept")
        #expect(after.filter { $0.key.hasSuffix(".jpg") }.allSatisfy { before[$0.key] != $0.value }, "page images redrawn")

        settings.thumbnailFormat = .webp
        let third = try run(settings)
        #expect(third.drawnOutputs == pages, "the thumbnails, and nothing else")
        let last = Self.outputs(in: third.outputFolder)
        #expect(last.keys.filter { $0.hasSuffix(".png") }.isEmpty, "no PNG thumbnail is left")
        #expect(last.keys.filter { $0.hasSuffix(".webp") }.count == pages)
        #expect(third.removals.contains { $0.what == "thumbnails" })
    }

    /// Same input and settings, the same bytes with one worker or four.
    @Test func webPAndAVIFOutputsDoNotDependOnTheWorkerCount() throws {
        let folder = try ScratchFolder("galley-formats")
        _ = try folder.copy(["vector-art.pdf", "photo.pdf"].map(Fixtures.pdf), into: "in")
        func manifest(_ workers: Int, _ output: String) throws -> [Manifest.Page] {
            try #require(try run(configuration(folder) {
                $0.format = .avif
                $0.thumbnailFormat = .webp
                $0.workers = Configuration.Workers(all: workers)
                $0.output = output
            }).manifest).documents.flatMap(\.pages)
        }
        let one = try manifest(1, "one"), four = try manifest(4, "four")
        #expect(!one.isEmpty && one == four)
    }

    /// A page over the WebP pixel limit fails alone, before it is drawn: its document is
    /// failed with `too-large-for-format` and the page's number, and the other documents
    /// complete.
    @Test func aPageTooLargeForWebPFailsAloneWithItsCode() throws {
        let folder = try ScratchFolder("galley-formats")
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        // At 150 dpi a 3000 pt square page is 6250×6250 pixels: 39 megapixels.
        try TestPDF.write(pages: ["1 0 0 rg 10 10 2900 2900 re f"], width: 3000, height: 3000,
                          to: input.appendingPathComponent("poster.pdf"))
        try TestPDF.write(pages: ["0 0 1 rg 10 10 100 100 re f"], to: input.appendingPathComponent("small.pdf"))
        try TestPDF.write(pages: ["0 1 0 rg 10 10 100 100 re f"], to: input.appendingPathComponent("normal.pdf"))
        let summary = try run(configuration(folder) {
            $0.dpi = 150
            $0.format = .webp
        })
        #expect(summary.outcome == .someFailed)
        let manifest = try #require(summary.manifest)
        let poster = try #require(manifest.documents.first { $0.source == "poster.pdf" })
        #expect(poster.status == .failed)
        #expect(poster.error?.code == .tooLargeForFormat)
        #expect(poster.error?.page == 1)
        #expect(poster.error?.message.contains("\(wholeImagePixelLimit)") == true, "\(String(describing: poster.error))")
        #expect(manifest.documents.filter { $0.source != "poster.pdf" }.allSatisfy { $0.status == .ok && $0.pages.count == 1 })
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")).isEmpty)
    }

    /// A page over libpng's limit of 1,000,000 pixels on a side (a MediaBox of 1,000,000 pt is
    /// 2,083,334 pixels at 150 dpi) fails as `too-large-for-format` before it is drawn, and its
    /// thumbnails are drawn. Before, it failed as encode-failed: "libpng: Invalid IHDR data".
    @Test func aPageWiderThanLibpngTakesIsTooLargeForPNG() throws {
        let folder = try ScratchFolder("galley-formats")
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPDF.write(pages: ["1 0 0 rg 10 10 500000 500000 re f"], width: 1_000_000, height: 1_000_000,
                          to: input.appendingPathComponent("huge.pdf"))
        let summary = try run(configuration(folder) { $0.dpi = 150 })
        let huge = try #require(summary.manifest?.documents.first)
        #expect(huge.status == .failed)
        #expect(huge.error?.code == .tooLargeForFormat, "\(String(describing: huge.error))")
        #expect(huge.error?.message.contains("1000000 on a side") == true, "\(String(describing: huge.error))")
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")).isEmpty)
    }

    /// A page over the band limit is drawn and written as JPEG band by band: its full size, its
    /// resolution, sequential scans even when progressive ones are configured (they would need
    /// the whole image's coefficients in memory).
    @Test func hugePagesAreWrittenAsJPEGInBands() throws {
        let folder = try ScratchFolder("galley-formats")
        _ = try folder.copy([Fixtures.pdf("vector-art.pdf")], into: "in")
        // 500 dpi: 4134×5847 pixels.
        let summary = try run(configuration(folder) {
            $0.dpi = 500
            $0.thumbnailBoxes = []
            $0.format = .jpeg
            $0.progressive = true
        })
        let image = try #require(summary.manifest?.documents.first?.pages.first?.image)
        #expect(image.width * image.height > Pipeline.bandPixelLimit && image.format == "jpeg")
        let bytes = [UInt8](try Data(contentsOf: summary.outputFolder.appendingPathComponent(image.path)))
        let (decoded, facts) = try IndependentImageDecoder.decode(bytes, format: .jpeg)
        #expect(decoded.width == image.width && decoded.height == image.height)
        #expect(facts.jfifDensity == [500, 500] && !facts.progressive)
        #expect(ImageProperties.blackRows(decoded) == 0)
        // The CMYK black box near the top left, (60,700)-(260,780) pt in PDF space, is black.
        let p = decoded.pixel(x: 160 * 500 / 72, y: (842 - 740) * 500 / 72)
        #expect(p.r < 40 && p.g < 40 && p.b < 40)
    }

    /// `galley diff` reads pages in every format: a moved rectangle is found where it moved, and
    /// the review's copies of the pages keep their format.
    @Test(arguments: [ImageFormat.jpeg, .webp, .avif])
    func diffComparesPagesInEveryFormat(format: ImageFormat) throws {
        let folder = try ScratchFolder("galley-formats")
        func run(_ name: String, x: Int) throws -> RunOutputs {
            let input = folder.path("in-\(name)")
            try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
            try TestPDF.write(pages: ["0 0 1 rg \(x) 300 200 150 re f", "0 0 0 rg 100 100 50 50 re f"],
                              to: input.appendingPathComponent("moved.pdf"))
            let summary = try self.run(configuration(folder) {
                $0.inputs = ["in-\(name)"]
                $0.output = name
                $0.dpi = 72
                $0.thumbnailBoxes = []
                $0.format = format
            })
            return RunOutputs(folder: summary.outputFolder, manifest: try #require(summary.manifest))
        }
        let report = try RunDiff.diff(base: try run("base", x: 100), new: try run("new", x: 140), output: folder.path("diff"),
                                      options: DiffOptions(), labels: ("base", "new"))
        let document = try #require(report.documents.first)
        #expect(document.pages.changed == 1 && document.pages.unchanged == 1, "\(document)")
        let change = try #require(document.changes.first)
        #expect(change.number == 1 && change.status == .changed, "\(String(describing: change.error))")
        // What changed is where only one of the two rectangles is: 100 to 140 and 300 to 340 pt
        // from the left, 342 to 492 from the top (within 4 pt: lossy edges).
        let regions = try #require(change.regions)
        #expect(regions.contains { abs($0.x - 100) < 4 } && regions.contains { abs($0.x + $0.width - 340) < 4 }, "\(regions)")
        #expect(regions.allSatisfy { $0.y > 338 && $0.y + $0.height < 496 }, "\(regions)")
        #expect(change.images?.before?.hasSuffix(".\(format.fileExtension)") == true, "\(String(describing: change.images))")
    }

    /// freedesktop.org thumbnails are PNG as the standard asks, whatever format the run writes.
    @Test func freedesktopThumbnailsStayPNG() throws {
        let folder = try ScratchFolder("galley-formats")
        _ = try folder.copy([Fixtures.pdf("photo.pdf")], into: "in")
        let configuration = configuration(folder) {
            $0.format = .webp
            $0.thumbnailFormat = .jpeg
        }
        let thumbnails = FreedesktopThumbnails(folder: folder.path("thumbnails"), sizes: [.normal], configuration: configuration,
                                               logger: Logger(label: "test"))
        #expect(try thumbnails.run().written == 1)
        let file = thumbnails.file(uri: FreedesktopThumbnails.uri(path: folder.path("in/photo.pdf").standardizedFileURL.path), size: .normal)
        let bytes = [UInt8](try Data(contentsOf: file))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG signature")
        #expect(file.pathExtension == "png")
    }
}
