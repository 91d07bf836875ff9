import Foundation
import GalleyCatalog
import GalleyManifest
import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import Logging
import Testing

@Suite struct PipelineTests {
    /// Runs the pipeline over copies of `files` with the given widths.
    func run(_ files: [URL], in folder: ScratchFolder, output: String = "out", workers: Int = 2, pagesInFlight: Int = 8,
             thumbnails: [Int] = [64, 128], cancellation: Cancellation = Cancellation(),
             configure: (inout Configuration) -> Void = { _ in },
             onEvent: @escaping @Sendable (PipelineEvent) -> Void = { _ in }) throws -> RunSummary {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        if !FileManager.default.fileExists(atPath: folder.path("in").path) {
            _ = try folder.copy(files, into: "in")
        }
        configuration.inputs = ["in"]
        configuration.output = output
        configuration.dpi = 72
        configuration.thumbnailBoxes = thumbnails
        configuration.workers = Configuration.Workers(all: workers)
        configuration.maxPagesInFlight = pagesInFlight
        configuration.passwords = [.init(pattern: Fixtures.encryptedPDF, password: Fixtures.encryptedPassword)]
        configure(&configuration)
        return try Pipeline(configuration: configuration, logger: Logger(label: "test")).run(cancellation: cancellation, onEvent: onEvent)
    }

    static var allFixtures: [URL] {
        (Fixtures.goodPDFs + [Fixtures.encryptedPDF, "damaged-content.pdf"]).map(Fixtures.pdf)
            + Fixtures.brokenPDFs.map { Fixtures.brokenFolder.appendingPathComponent($0) }
    }

    /// A password whose environment variable is unset fails only the encrypted document, with
    /// `password-required` naming the variable; the others are drawn.
    @Test func anUnsetPasswordVariableFailsOnlyTheDocumentThatNeedsIt() throws {
        let folder = try ScratchFolder()
        let files = [Fixtures.encryptedPDF, Fixtures.goodPDFs[0]].map(Fixtures.pdf)
        let summary = try run(files, in: folder) { configuration in
            configuration.passwords = [.init(pattern: "*.pdf", password: "", unsetVariable: "GALLEY_MISSING_SECRET")]
        }
        let manifest = try #require(summary.manifest)
        #expect(summary.outcome == .someFailed)
        let encrypted = try #require(manifest.documents.first { $0.source == Fixtures.encryptedPDF })
        #expect(encrypted.status == .failed)
        #expect(encrypted.error?.code == .passwordRequired)
        #expect(encrypted.error?.message.contains("GALLEY_MISSING_SECRET") == true, "\(String(describing: encrypted.error))")
        #expect(manifest.documents.first { $0.source != Fixtures.encryptedPDF }?.status == .ok)
    }

    @Test func everyGoodPageIsWrittenAndEveryBrokenFileReported() throws {
        let folder = try ScratchFolder()
        let summary = try run(Self.allFixtures, in: folder)
        let manifest = try #require(summary.manifest)
        #expect(summary.outcome == .someFailed)
        #expect(manifest.totals.documents == Self.allFixtures.count)
        #expect(manifest.totals.failed == Fixtures.brokenPDFs.count)
        let codes = Dictionary(uniqueKeysWithValues: manifest.documents.compactMap { d in d.error.map { (d.source, $0.code.rawValue) } })
        #expect(codes == ["truncated.pdf": "truncated", "garbage.pdf": "not-pdf", "empty.pdf": "not-pdf", "no-pages.pdf": "no-pages"])
        // Messages are for people; the MuPDF call that failed is kept apart, as detail.
        for document in manifest.documents {
            guard let error = document.error else { continue }
            #expect(!error.message.contains("fz_") && !error.message.contains("pdf_"), "\(error.message)")
            #expect(error.detail?.hasPrefix("fz_") == true || error.detail?.hasPrefix("pdf_") == true, "\(document.source): \(error)")
        }
        #expect(manifest.documents.first { $0.source == "encrypted.pdf" }?.status == .ok)
        let damaged = try #require(manifest.documents.first { $0.source == "damaged-content.pdf" })
        #expect(damaged.status == .ok)
        #expect(damaged.warnings.contains { $0.hasPrefix("page 1: MuPDF skipped") })
        #expect(manifest.documents.filter { $0.source != "damaged-content.pdf" }.allSatisfy { $0.warnings.isEmpty })

        for document in manifest.documents where document.status == .ok {
            #expect(document.pages.count == document.pageCount, "\(document.source)")
            for page in document.pages {
                let entry = try #require(page.image)
                let png = Array(try Data(contentsOf: summary.outputFolder.appendingPathComponent(entry.path)))
                let image = try Bitmap(pngData: png)
                #expect(image.width == entry.width && image.height == entry.height)
                #expect(abs(Double(image.width) - page.widthPt) <= 1 && abs(Double(image.height) - page.heightPt) <= 1,
                        "72 dpi: one pixel per point")
                #expect(ImageProperties.inkCoverage(image) > 0.001)
                #expect(entry.path == String(format: "%@/page-%04d.png", document.name, page.number))
                #expect(page.thumbnails.map(\.box) == [64, 128])
                for thumbnail in page.thumbnails {
                    let thumb = try Bitmap(pngData: Array(try Data(contentsOf: summary.outputFolder.appendingPathComponent(thumbnail.path))))
                    #expect(thumb.width <= thumbnail.box && thumb.height <= thumbnail.box)
                    #expect(max(thumb.width, thumb.height) >= thumbnail.box - 1)
                    // Aspect ratio kept within a pixel's rounding.
                    let aspect = Double(image.width) / Double(image.height)
                    #expect(abs(Double(thumb.width) / Double(thumb.height) - aspect) < 2.0 / Double(min(thumb.width, thumb.height)))
                }
            }
        }
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")) == [])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: summary.outputFolder.appendingPathComponent(".galley").path)
        #expect(leftovers.filter { !$0.hasPrefix("catalog.sqlite") && !["thumbnail-cache", "lock", "sources.json"].contains($0) } == [],
                "no temporary files remain, only the catalog, the thumbnail cache, the sources' places and the (released) lock file")
    }

    @Test func hashesInTheManifestMatchTheFiles() throws {
        let folder = try ScratchFolder()
        let summary = try run([Fixtures.pdf("photo.pdf"), Fixtures.pdf("rotated.pdf")], in: folder)
        let manifest = try #require(summary.manifest)
        for page in manifest.documents.flatMap(\.pages) {
            let image = try #require(page.image)
            let bytes = try Data(contentsOf: summary.outputFolder.appendingPathComponent(image.path))
            #expect(bytes.count == image.bytes)
            #expect(try PeerTools.sha256sum(summary.outputFolder.appendingPathComponent(image.path)) == image.sha256)
        }
        let rotated = try #require(manifest.documents.first { $0.source == "rotated.pdf" }?.pages.first)
        #expect(rotated.rotation == 90 && rotated.widthPt == 792 && rotated.heightPt == 612)
    }

    /// A PDF's /Title and /Author and an article's <title> and author reach the manifest (and
    /// so the contact sheet); a document without them has no such keys, so its entry keeps the
    /// bytes it had.
    @Test func titleAndAuthorAreInTheManifestWhenTheDocumentHasThem() throws {
        let folder = try ScratchFolder()
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPDF.write(pages: ["0 0 1 rg 100 100 200 200 re f"], title: "Annual\\n  report   2024", author: "Ada Lovelace",
                          to: input.appendingPathComponent("described.pdf"))
        try TestPDF.write(pages: ["0 0 1 rg 100 100 200 200 re f"], title: "   ", to: input.appendingPathComponent("blank-title.pdf"))
        try TestPDF.write(pages: ["0 0 1 rg 100 100 200 200 re f"], to: input.appendingPathComponent("plain.pdf"))
        try """
            <html><head><title>On
              Margins</title><meta name="author" content="Jan Tschichold"></head><body><p>Some text to set.</p></body></html>
            """.write(to: input.appendingPathComponent("essay.html"), atomically: true, encoding: .utf8)
        let summary = try run([], in: folder)
        let manifest = try #require(summary.manifest)
        func document(_ source: String) throws -> Manifest.Document { try #require(manifest.documents.first { $0.source == source }) }
        #expect(try document("described.pdf").title == "Annual report 2024" && document("described.pdf").author == "Ada Lovelace")
        #expect(try document("essay.html").title == "On Margins" && document("essay.html").author == "Jan Tschichold")
        #expect(try document("blank-title.pdf").title == nil && document("plain.pdf").title == nil && document("plain.pdf").author == nil)
        let json = try String(contentsOf: summary.outputFolder.appendingPathComponent("manifest.json"), encoding: .utf8)
        #expect(json.components(separatedBy: "\"title\"").count - 1 == 2, "only the two documents with a title have the key")
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")) == [])
    }

    @Test func outputIsIdenticalWhateverTheWorkerCount() throws {
        let files = (Fixtures.goodPDFs + [Fixtures.encryptedPDF]).map(Fixtures.pdf)
            + ["truncated.pdf", "cut-short.pdf"].map { Fixtures.brokenFolder.appendingPathComponent($0) }
        let folder = try ScratchFolder()
        let serial = try run(files, in: folder, output: "serial", workers: 1, pagesInFlight: 1)
        let parallel = try run(files, in: folder, output: "parallel", workers: 4, pagesInFlight: 3)
        var a = try #require(serial.manifest), b = try #require(parallel.manifest)
        #expect(a.run.workers.render == 1 && b.run.workers.render == 4)
        a.run = b.run
        #expect(a == b)
        let fileA = try Data(contentsOf: serial.outputFolder.appendingPathComponent("manifest.json"))
        let fileB = try Data(contentsOf: parallel.outputFolder.appendingPathComponent("manifest.json"))
        #expect(Self.withoutRunBlock(fileA) == Self.withoutRunBlock(fileB))
        for page in a.documents.flatMap(\.pages) {
            for path in [page.image?.path].compactMap({ $0 }) + page.thumbnails.map(\.path) {
                let x = try Data(contentsOf: serial.outputFolder.appendingPathComponent(path))
                let y = try Data(contentsOf: parallel.outputFolder.appendingPathComponent(path))
                #expect(x == y, "\(path)")
            }
        }
    }

    /// A PDF is drawn in page lanes, one per render worker, each with its own MuPDF engine and
    /// its own copy of the document: three lanes share a selection of five pages of
    /// shared-image.pdf between them, each page drawn once, listed in order, with the bytes one lane
    /// gives; a document with fewer pages than lanes uses only as many lanes as it has pages.
    @Test func pageLanesShareASelectionAndDrawWhatOneLaneDraws() throws {
        let files = ["shared-image.pdf", "rotated.pdf"].map(Fixtures.pdf)
        let folder = try ScratchFolder()
        let selection = try PageSelection(parsing: "1,3-5,N")
        let one = try run(files, in: folder, output: "one", workers: 1) { $0.pageSelection = selection }
        let three = try run(files, in: folder, output: "three", workers: 3) { $0.pageSelection = selection }
        let a = try #require(one.manifest), b = try #require(three.manifest)
        #expect(b.run.workers.render == 3)
        for (x, y) in zip(a.documents, b.documents) {
            #expect(x.status == .ok && y.status == .ok)
            let count = try #require(y.pageCount)
            let expected = selection.indices(pageCount: count, limit: nil).map { $0 + 1 }
            #expect(y.pages.map(\.number) == expected, "\(y.source)")
            #expect(x.pages == y.pages, "\(y.source)")
        }
        #expect(b.documents.first { $0.source == "shared-image.pdf" }?.pages.count == 5, "enough pages for every lane")
        for page in b.documents.flatMap(\.pages) {
            for path in [page.image?.path].compactMap({ $0 }) + page.thumbnails.map(\.path) {
                let x = try Data(contentsOf: one.outputFolder.appendingPathComponent(path))
                let y = try Data(contentsOf: three.outputFolder.appendingPathComponent(path))
                #expect(x == y, "\(path)")
            }
        }
    }

    /// The manifest text with the `run` object removed.
    static func withoutRunBlock(_ data: Data) -> String {
        let text = String(decoding: data, as: UTF8.self)
        guard let start = text.range(of: "\"run\" : {") else { return text }
        guard let end = text.range(of: "\n  }", range: start.upperBound..<text.endIndex) else { return text }
        return String(text[..<start.lowerBound]) + String(text[end.upperBound...])
    }

    @Test func thumbnailsOnlyWritesNoPageImages() throws {
        let folder = try ScratchFolder()
        let summary = try run([Fixtures.pdf("article.pdf")], in: folder, thumbnails: [96]) { $0.pageImages = false }
        let document = try #require(summary.manifest?.documents.first)
        #expect(document.pages.count == 4)
        #expect(document.pages.allSatisfy { $0.image == nil && $0.thumbnails.count == 1 })
        #expect(!FileManager.default.fileExists(atPath: summary.outputFolder.appendingPathComponent("article/page-0001.png").path))
        #expect(FileManager.default.fileExists(atPath: summary.outputFolder.appendingPathComponent("article/thumbs/96/page-0004.png").path))
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")) == [])
    }

    /// Without page images a PDF's pages are drawn straight from the document, not recorded
    /// first (`LoadedPDFPage`): what reading a page met is only known once it is drawn, and is
    /// still reported, as a run with page images reports it; the thumbnails are the same size.
    @Test func aThumbnailsOnlyRunWarnsOfADamagedPageAsAFullRunDoes() throws {
        let files = [Fixtures.pdf("damaged-content.pdf"), Fixtures.pdf("rotated.pdf")]
        let full = try run(files, in: try ScratchFolder(), thumbnails: [96])
        let only = try run(files, in: try ScratchFolder(), thumbnails: [96]) { $0.pageImages = false }
        let documents = { (summary: RunSummary) in (summary.manifest?.documents ?? []).sorted { $0.source < $1.source } }
        #expect(documents(only).map(\.source) == ["damaged-content.pdf", "rotated.pdf"])
        #expect(documents(only).map(\.warnings) == documents(full).map(\.warnings))
        #expect(documents(only).first?.warnings.contains { $0.hasPrefix("page 1: MuPDF skipped") } == true)
        let sizes = { (summary: RunSummary) in documents(summary).flatMap(\.pages).flatMap(\.thumbnails).map { [$0.width, $0.height] } }
        #expect(sizes(only) == sizes(full))
    }

    @Test func rerunRemovesPagesTheDocumentNoLongerHas() throws {
        let folder = try ScratchFolder()
        _ = try run([Fixtures.pdf("article.pdf")], in: folder)
        let output = folder.path("out")
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("article/page-0004.png").path))
        // Replace the 4-page article with a 1-page document of the same name.
        try FileManager.default.removeItem(at: folder.path("in/article.pdf"))
        try FileManager.default.copyItem(at: Fixtures.pdf("photo.pdf"), to: folder.path("in/article.pdf"))
        let summary = try run([], in: folder, thumbnails: [64])
        #expect(summary.manifest?.totals.pages == 1)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("article/page-0002.png").path))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("article/thumbs/128/page-0001.png").path))
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("article/thumbs/64/page-0001.png").path))

        // A document that now fails keeps its earlier images.
        try Data("not a pdf any more".utf8).write(to: folder.path("in/article.pdf"))
        let failed = try run([], in: folder, thumbnails: [64])
        #expect(failed.outcome == .someFailed)
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("article/page-0001.png").path))
    }

    @Test func cancelledRunLeavesNoPartialFilesAndNoManifest() throws {
        let folder = try ScratchFolder()
        let cancellation = Cancellation()
        _ = try folder.copy([Fixtures.pdf("article.pdf")], into: "in")
        for i in 1...12 {
            try FileManager.default.copyItem(at: Fixtures.pdf("vector-art.pdf"), to: folder.path("in/v\(i).pdf"))
        }
        // Cancel as soon as the first document is finished: mid-run, whatever the machine's speed.
        let summary = try run([], in: folder, workers: 1, pagesInFlight: 1, cancellation: cancellation, onEvent: { event in
            if case .documentFinished = event { cancellation.cancel() }
        })
        #expect(summary.outcome == .interrupted)
        #expect(summary.manifest == nil)
        let output = folder.path("out")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("manifest.json").path))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(".galley/tmp").path))
        let written = (FileManager.default.enumerator(atPath: output.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".png") }
        #expect(written.count < 16 * 3, "16 pages of 3 outputs each: the run stopped before the end")
        #expect(written.count >= 3, "the first document's page was finished before the cancel")
        for path in written {
            #expect(throws: Never.self) { try Bitmap(pngData: Array(try Data(contentsOf: output.appendingPathComponent(path)))) }
        }
        // Interrupting is not crashing: no document is left marked in progress, so none is
        // counted against at the next run.
        let catalog = try Catalog(path: Pipeline.catalogURL(output: output).path)
        #expect(try catalog.inProgress().isEmpty)
        #expect(try catalog.countCrashes().crashes.isEmpty)
    }

    /// A file cut short is drawn as far as MuPDF can rebuild it, page for page as `mutool draw`
    /// draws it; only a file with no page to rebuild fails.
    @Test func filesCutShortAreDrawnAsFarAsMutoolDrawsThem() throws {
        let folder = try ScratchFolder("cut")
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        var cuts: [String] = []
        for name in ["article.pdf", "mixed.pdf", "shared-image.pdf", "vector-art.pdf"] {
            let bytes = try Data(contentsOf: Fixtures.pdf(name))
            for (label, length) in [("quarter", bytes.count / 4), ("half", bytes.count / 2), ("1k-short", bytes.count - 1024), ("tiny", 300)] {
                let cut = "\(label)-\(name)"
                try bytes.prefix(length).write(to: input.appendingPathComponent(cut))
                cuts.append(cut)
            }
        }
        let summary = try run([], in: folder, thumbnails: []) { $0.dpi = 9 }
        let documents = try #require(summary.manifest?.documents)
        #expect(documents.count == cuts.count)
        var rebuilt = 0
        for cut in cuts {
            let drawn = folder.path("mutool-\(cut)")
            try FileManager.default.createDirectory(at: drawn, withIntermediateDirectories: true)
            _ = try PeerTools.run("mutool", ["draw", "-q", "-r", "9", "-o", drawn.appendingPathComponent("p%d.png").path,
                                             input.appendingPathComponent(cut).path])
            let mutoolPages = try FileManager.default.contentsOfDirectory(atPath: drawn.path).count
            let document = try #require(documents.first { $0.source == cut })
            #expect(document.pages.count == mutoolPages, "\(cut): galley \(document.pages.count) pages, mutool draw \(mutoolPages)")
            if mutoolPages == 0 {
                #expect(document.status == .failed && ["truncated", "not-pdf", "corrupt"].contains(document.error?.code.rawValue ?? ""), "\(cut)")
            } else if document.status == .ok {
                rebuilt += 1
                #expect(document.warnings.contains { $0.hasPrefix("truncated: the end-of-file marker is missing") }, "\(cut)")
            }
        }
        #expect(rebuilt >= 8, "the cuts should leave rebuildable files")
    }

    /// A job previewing a pull request must not publish the runner's files: a document linked
    /// from outside the inputs fails, unread, and nothing of it reaches the output folder.
    @Test func aDocumentLinkedFromOutsideTheInputsIsRefused() throws {
        let folder = try ScratchFolder("outside")
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.pdf("article.pdf"), to: input.appendingPathComponent("article.pdf"))
        try "root:x:0:0:root:/root:/bin/bash\n".write(to: folder.path("passwd"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: input.appendingPathComponent("notes.txt").path,
                                                   withDestinationPath: folder.path("passwd").path)
        let summary = try run([], in: folder, thumbnails: [64])
        let documents = try #require(summary.manifest?.documents)
        let notes = try #require(documents.first { $0.source == "notes.txt" })
        #expect(notes.status == .failed && notes.error?.code.rawValue == "outside-input" && notes.pages.isEmpty)
        #expect(notes.sha256 == nil, "the file was not even read")
        #expect(documents.first { $0.source == "article.pdf" }?.status == .ok)
        #expect(!FileManager.default.fileExists(atPath: summary.outputFolder.appendingPathComponent("notes").path))
        // Allowed by follow_symlinks: typeset like any article.
        let allowed = try run([], in: folder, output: "allowed", thumbnails: [64]) { $0.followSymlinks = true }
        #expect(allowed.manifest?.documents.first { $0.source == "notes.txt" }?.status == .ok)
    }

    /// A page over `page_timeout` fails its document as `timed-out`, naming the page; the
    /// document's other pages and the other documents are drawn. (That the limit stops MuPDF
    /// part-way through the page, rather than failing it once drawn, is
    /// `PageWatchdogTests.thePageTimeLimitStopsMuPDFPartWayThroughThePage`.)
    @Test func aPageOverItsTimeLimitFailsItsDocumentOnly() throws {
        let folder = try ScratchFolder()
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try TestPDF.write(pages: ["0 0 1 rg 10 10 100 100 re f", TestPDF.heavyContent(curves: 12_000)],
                          to: input.appendingPathComponent("slow.pdf"))
        // As light as slow.pdf's first page: a fixture's page at 300 dpi can take more than the
        // 0.25 s limit on a busy machine or under a sanitizer, and this test is about the slow one.
        try TestPDF.write(pages: ["0 0 1 rg 10 10 100 100 re f"], to: input.appendingPathComponent("quick.pdf"))
        let summary = try run([], in: folder, thumbnails: [64]) {
            $0.dpi = 300
            $0.pageTimeout = 0.25
        }
        let documents = try #require(summary.manifest?.documents)
        let slow = try #require(documents.first { $0.source == "slow.pdf" })
        #expect(slow.status == .failed)
        #expect(slow.error?.code.rawValue == "timed-out")
        #expect(slow.error?.page == 2)
        #expect(slow.error?.message.contains("page_timeout") == true)
        #expect(slow.pages.map(\.number) == [1], "the quick first page is still written")
        #expect(documents.first { $0.source == "quick.pdf" }?.status == .ok)
    }

    /// page_timeout covers typesetting too: an article whose page takes longer to set fails as
    /// timed-out naming the page, stopped between lines or between pieces of shaping. `a` and
    /// 100,000 combining accents (33 s inside one HarfBuzz call before shaping was cut in
    /// pieces of 30 marks) is set in well under a second with the default limit.
    @Test func anArticleOverThePageTimeLimitFailsAsTimedOut() throws {
        let folder = try ScratchFolder()
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        try ("a" + String(repeating: "\u{301}", count: 100_000) + " and some words after it.\n")
            .write(to: input.appendingPathComponent("accents.txt"), atomically: true, encoding: .utf8)
        let limited = try run([], in: folder, output: "limited", thumbnails: []) { $0.pageTimeout = 0.001 }
        let failed = try #require(limited.manifest?.documents.first)
        #expect(failed.status == .failed)
        #expect(failed.error?.code.rawValue == "timed-out", "\(String(describing: failed.error))")
        #expect(failed.error?.message.contains("to typeset (layout a4)") == true, "\(String(describing: failed.error))")
        #expect(failed.error?.page == 1)

        let whole = try run([], in: folder, output: "whole", thumbnails: [])
        let set = try #require(whole.manifest?.documents.first)
        #expect(set.status == .ok, "\(String(describing: set.error))")
        #expect(set.pages.count == 1)
    }

    /// The limit reaches text set inside a floated block, which has a framesetter of its own
    /// (before it shared the page's limit, such an article finished with any limit), and a
    /// table's cells: an article that is only a floated block holding `a` and 100,000 accents
    /// fails as timed-out, and so does one that is only a table whose cell holds them; the
    /// batch goes on to the next article.
    @Test func textInATableCellOrAFloatedBlockIsUnderThePageTimeLimit() throws {
        let folder = try ScratchFolder()
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let accents = "a" + String(repeating: "\u{301}", count: 100_000) + " and some words after it."
        try "<table><tr><td>\(accents)</td><td>b</td></tr></table>".write(to: input.appendingPathComponent("cell.html"), atomically: true, encoding: .utf8)
        try "<div style=\"float: left; width: 50%\"><p>\(accents)</p></div>".write(to: input.appendingPathComponent("float.html"), atomically: true, encoding: .utf8)
        try "Plain words.\n".write(to: input.appendingPathComponent("plain.txt"), atomically: true, encoding: .utf8)
        let limited = try run([], in: folder, output: "limited", thumbnails: []) { $0.pageTimeout = 0.001 }
        let documents = try #require(limited.manifest?.documents)
        for name in ["cell.html", "float.html"] {
            let document = try #require(documents.first { $0.source == name })
            #expect(document.status == .failed && document.error?.code.rawValue == "timed-out", "\(name): \(String(describing: document.error))")
        }
        #expect(documents.first { $0.source == "plain.txt" } != nil)
    }

    @Test func hugePagesAreDrawnInBandsWithTheirFullSize() throws {
        let folder = try ScratchFolder()
        // 720 dpi: 5950×8420 px, above the band limit.
        let summary = try run([Fixtures.pdf("vector-art.pdf")], in: folder, thumbnails: []) { $0.dpi = 720 }
        let page = try #require(summary.manifest?.documents.first?.pages.first?.image)
        #expect(page.width == 5950 && page.height == 8420)
        #expect(page.width * page.height > Pipeline.bandPixelLimit)
        let image = try Bitmap(pngData: Array(try Data(contentsOf: summary.outputFolder.appendingPathComponent(page.path))))
        #expect(ImageProperties.blackRows(image) == 0)
        // Written by libpng in bands: RGB, with the resolution (720 dpi is 28346 pixels a metre).
        let bytes = try [UInt8](Data(contentsOf: summary.outputFolder.appendingPathComponent(page.path)))
        #expect(bytes[25] == 2)
        #expect(Self.pixelsPerMetre(bytes) == 28346)
        // The CMYK black box near the top left (60,700)-(260,780) pt in PDF space is black here.
        let p = image.pixel(x: 160 * 10, y: (842 - 740) * 10)
        #expect(p.r < 40 && p.g < 40 && p.b < 40)
    }

    /// The horizontal pixels per metre of a PNG's pHYs chunk, or nil when it has none.
    static func pixelsPerMetre(_ png: [UInt8]) -> Int? {
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if png[offset + 4..<offset + 8].elementsEqual("pHYs".utf8), png[offset + 16] == 1 {
                return png[offset + 8..<offset + 12].reduce(0) { $0 << 8 | Int($1) }
            }
            offset += 12 + length
        }
        return nil
    }

    @Test func pageImagesAreStoredInTheSmallestFormAndCarryTheirResolution() throws {
        let folder = try ScratchFolder()
        let summary = try run([Fixtures.pdf("article.pdf"), Fixtures.pdf("photo.pdf")], in: folder, thumbnails: [128]) {
            $0.dpi = 150
        }
        let documents = try #require(summary.manifest?.documents)
        #expect(documents.count == 2)
        for document in documents {
            for page in document.pages {
                let image = try #require(page.image)
                let png = try [UInt8](Data(contentsOf: summary.outputFolder.appendingPathComponent(image.path)))
                #expect(Self.pixelsPerMetre(png) == 5906, "150 dpi, as mutool draw -r 150 writes it")
                // Text pages are grey (or a palette); the photo needs RGB.
                if document.source == "article.pdf" {
                    #expect(png[25] == 0 || png[25] == 3, "\(image.path): colour type \(png[25])")
                } else {
                    #expect(png[25] == 2)
                }
                let thumbnail = try #require(page.thumbnails.first)
                let small = try [UInt8](Data(contentsOf: summary.outputFolder.appendingPathComponent(thumbnail.path)))
                #expect(Self.pixelsPerMetre(small) == nil, "thumbnails carry no resolution")
            }
        }
    }
}
