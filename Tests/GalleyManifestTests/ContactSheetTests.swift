import Foundation
@testable import GalleyManifest
@testable import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import Logging
import Testing

/// `index.html`, the contact sheet people open from a CI artifact.
@Suite struct ContactSheetTests {
    /// A run over colourful PDFs, an article, and a file that fails.
    func run(workers: Int = 2, output: String = "out", in folder: ScratchFolder) throws -> RunSummary {
        if !FileManager.default.fileExists(atPath: folder.path("in").path) {
            _ = try folder.copy([Fixtures.pdf("vector-art.pdf"), Fixtures.pdf("photo.pdf"), Fixtures.pdf("mixed.pdf"),
                                 Fixtures.brokenFolder.appendingPathComponent("garbage.pdf"),
                                 Fixtures.articlesFolder.appendingPathComponent("ja-vertical.html")], into: "in")
            _ = try folder.copy([Fixtures.articlesFolder.appendingPathComponent("images/figure.png")], into: "in/images")
        }
        return try pipeline(input: "in", workers: workers, output: output, in: folder)
    }

    /// A run over `input` at 40 dpi with thumbnail boxes 96 and 256.
    func pipeline(input: String, workers: Int, output: String, in folder: ScratchFolder) throws -> RunSummary {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = [input]
        configuration.output = output
        configuration.dpi = 40
        configuration.thumbnailBoxes = [96, 256]
        configuration.workers = Configuration.Workers(all: workers)
        return try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
    }

    @Test func everyThumbnailOpensItsPageInTheViewerAndFailuresComeFirst() throws {
        let folder = try ScratchFolder("contact-sheet")
        let summary = try run(in: folder)
        let manifest = try #require(summary.manifest)
        let html = try String(contentsOf: summary.outputFolder.appendingPathComponent("index.html"), encoding: .utf8)
        // Self-contained: nothing to run, nothing fetched.
        #expect(!html.contains("<script") && !html.contains("http://") && !html.contains("https://") && !html.contains("url("))
        let pages = manifest.documents.flatMap(\.pages)
        let cells = figures(in: html)
        #expect(cells.count == pages.count, "one thumbnail per page")
        for path in attributes("src", in: html) + attributes("href", in: html).filter({ !$0.hasPrefix("#") }) {
            #expect(FileManager.default.fileExists(atPath: summary.outputFolder.appendingPathComponent(path).path), "\(path) is missing")
        }
        // The 256 box is nearest the 200 px the sheet shows; each opens its own page image in
        // the viewer.
        let viewers = self.viewers(in: html)
        for (cell, page) in zip(cells, pages) {
            let thumbnail = try #require(attributes("src", in: cell).first)
            #expect(thumbnail.contains("/thumbs/256/"))
            let target = try #require(attributes("href", in: cell).first)
            let viewer = try #require(viewers[String(target.dropFirst())], "\(target) opens no viewer")
            #expect(attributes("src", in: viewer) == [try #require(page.image).path])
        }
        let failure = try #require(html.range(of: "class=\"failures\""))
        let firstDocument = try #require(html.range(of: "class=\"document "))
        #expect(failure.lowerBound < firstDocument.lowerBound)
        #expect(html.contains("<strong>garbage.pdf</strong></a>: <code>not-pdf</code>"))
        #expect(html.contains("\(manifest.totals.documents) documents: \(manifest.totals.ok) ok, 1 failed"))
        // Articles show one grid per layout.
        #expect(html.contains("<h3>a4 "))
    }

    /// Both the small run's sheet and the large library's (folds, viewers, filter, source
    /// links) are the same bytes with one worker or three.
    @Test func theSheetIsTheSameWhateverTheWorkerCount() throws {
        let folder = try ScratchFolder("contact-sheet")
        for make in [run, library] {
            let one = try make(1, "one", folder), three = try make(3, "three", folder)
            let a = try Data(contentsOf: one.outputFolder.appendingPathComponent("index.html"))
            let b = try Data(contentsOf: three.outputFolder.appendingPathComponent("index.html"))
            #expect(a == b && a.count > 5_000)
            try FileManager.default.removeItem(at: one.outputFolder)
            try FileManager.default.removeItem(at: three.outputFolder)
        }
    }

    /// A library as a big sheet shows it: fourteen short PDFs of green shapes, a 30-page manual
    /// with a title and an author (magenta), a damaged PDF with warnings whose name needs
    /// percent-encoding, a file that is not a PDF, and a last PDF (blue).
    func library(workers: Int = 2, output: String = "out", in folder: ScratchFolder) throws -> RunSummary {
        let input = folder.path("library")
        if !FileManager.default.fileExists(atPath: input.path) {
            try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
            // Enough documents that the last one starts over 8,000 px down: past the distance
            // at which Chromium starts loading a lazy picture on any connection it may assume
            // (1,250 px on 4G, 8,000 px offline).
            for index in 1...24 {
                try TestPDF.write(pages: (1...3).map { "0.1 0.7 0.2 rg \(40 + $0 * 20) 100 \(400 + index) 600 re f" },
                                  to: input.appendingPathComponent(String(format: "doc-%02d.pdf", index)))
            }
            try TestPDF.write(pages: (1...30).map { "1 0 1 rg 60 \(60 + $0 * 10) 480 400 re f" }, width: 595, height: 842,
                              title: "A long manual", author: "Ada & <Co>", to: input.appendingPathComponent("long.pdf"))
            try FileManager.default.copyItem(at: Fixtures.brokenFolder.appendingPathComponent("garbage.pdf"),
                                             to: input.appendingPathComponent("m-broken.pdf"))
            try FileManager.default.copyItem(at: Fixtures.pdf("damaged-content.pdf"), to: input.appendingPathComponent("n damaged #2.pdf"))
            try TestPDF.write(pages: ["0 0 1 rg 60 60 480 680 re f", "0 0 1 rg 60 60 480 680 re f"], width: 792, height: 612,
                              to: input.appendingPathComponent("zz-last.pdf"))
        }
        return try pipeline(input: "library", workers: workers, output: output, in: folder)
    }

    /// What a person browsing a large library relies on: every picture loads lazily and has its
    /// size, each document says what it is (title, author, pages, page size, file size) and
    /// links to its source, every warning is spelled out, a long document shows its first
    /// pages with the others one click away (<details>, no script), the filter knows which
    /// documents failed or warned, and the viewer's previous and next links walk every page.
    @Test func aLargeLibrarysSheetDescribesEachDocumentAndFoldsLongOnes() throws {
        let folder = try ScratchFolder("contact-sheet")
        let summary = try library(in: folder)
        let manifest = try #require(summary.manifest)
        let html = try String(contentsOf: summary.outputFolder.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!html.contains("<script"))
        let images = tags("img", in: html)
        #expect(images.count == 2 * manifest.totals.pages, "a thumbnail and a viewer picture per page")
        for image in images {
            #expect(image.contains(" loading=\"lazy\"") && image.contains(" width=\"") && image.contains(" height=\""), "\(image)")
        }

        // The manual: described, and folded after its first pages, the others inside <details>.
        let long = try section("long", in: html)
        #expect(long.contains("<cite>A long manual</cite> by Ada &amp; &lt;Co&gt;"))
        #expect(long.contains("30 pages") && long.contains("A4, 595 × 842 pt"))
        let longBytes = try #require(manifest.documents.first { $0.name == "long" }?.bytes)
        let sourceSize = try FileManager.default.attributesOfItem(atPath: folder.path("library/long.pdf").path)[.size] as? Int
        #expect(longBytes == sourceSize && long.contains(ContactSheet.fileSize(longBytes)))
        let details = try #require(long.range(of: "<details class=\"more\">"))
        let shown = figures(in: String(long[..<details.lowerBound])), folded = figures(in: String(long[details.lowerBound...]))
        #expect(shown.count == 6 && folded.count == 24)
        #expect((shown + folded).map(caption) == (1...30).map(String.init), "every page once, in order")
        #expect(long.contains("<summary>Show all 30 pages (24 more)</summary>"))
        // Short documents are not folded; a landscape Letter page is named so.
        let last = try section("zz-last", in: html)
        #expect(!last.contains("<details") && figures(in: last).count == 2 && last.contains("Letter landscape, 792 × 612 pt"))

        // Each warning's text, under its document, which the filter counts as warned.
        let damaged = try #require(manifest.documents.first { $0.source == "n damaged #2.pdf" })
        #expect(!damaged.warnings.isEmpty)
        let damagedSection = try section(damaged.name, in: html)
        for warning in damaged.warnings { #expect(damagedSection.contains("<li>\(ContactSheet.escape(warning))</li>")) }
        #expect(html.contains("<section class=\"document ok warned\" id=\"doc-\(damaged.name)\">"))
        #expect(html.contains("<section class=\"document failed\" id=\"doc-m-broken\">"))
        #expect(html.contains("<label for=\"filter-failed\">failed (1)</label>") && html.contains("<label for=\"filter-warned\">with warnings (1)</label>"))

        // Source links lead to the very files that were read, from the output folder.
        let sources = attributes("href", in: html, class: "source")
        #expect(sources.count == manifest.documents.count)
        for (link, document) in zip(sources, manifest.documents) {
            let resolved = URL(fileURLWithPath: link, relativeTo: summary.outputFolder).standardizedFileURL.resolvingSymlinksInPath()
            #expect(resolved.path == folder.path("library/\(document.source)").resolvingSymlinksInPath().path)
        }
        #expect(html.contains("href=\"../library/n%20damaged%20%232.pdf\""))

        // The viewer: next from page 1 visits every page of the manual in order, previous
        // walks back; the ends have no link.
        let viewers = self.viewers(in: html)
        var visited: [String] = []
        var id: String? = "view-long-p1"
        while let current = id {
            let viewer = try #require(viewers[current])
            visited.append(current)
            id = attributes("href", in: viewer, class: "next").first.map { String($0.dropFirst()) }
            if let id { #expect(attributes("href", in: try #require(viewers[id]), class: "previous") == ["#\(current)"]) }
        }
        #expect(visited == (1...30).map { "view-long-p\($0)" })
        #expect(try #require(viewers["view-long-p1"]).contains("<span class=\"previous off\">"))
    }

    /// The sources' places a run keeps for the sheet (and galley merge) read back as written,
    /// names with capitals and slashes included, and give links relative to the output folder.
    @Test func theSourcesKeptForTheSheetReadBackAsWritten() throws {
        let folder = try ScratchFolder("contact-sheet")
        let store = OutputStore(root: folder.path("out"))
        try store.prepare()
        let sources = SourceFiles(paths: ["Reports/Q1_2024": folder.path("in/Reports/Q1 2024.pdf").path, "photoAlbum": "/elsewhere/photoAlbum.pdf"])
        try sources.write(to: store)
        #expect(SourceFiles.read(outputFolder: store.root) == sources)
        #expect(SourceFiles.read(outputFolder: folder.path("nothing-here")) == SourceFiles())
        let links = sources.links(from: store.root)
        #expect(links["Reports/Q1_2024"] == "../in/Reports/Q1 2024.pdf")
        let up = Array(repeating: "..", count: store.root.resolvingSymlinksInPath().pathComponents.count - 1)
        #expect(links["photoAlbum"] == (up + ["elsewhere", "photoAlbum.pdf"]).joined(separator: "/"))
    }

    @Test func pageSizesAreNamedWithinAPointAndFileSizesInSIUnits() {
        #expect(ContactSheet.pageSize(width: 595.276, height: 841.89) == "A4, 595 × 842 pt")
        #expect(ContactSheet.pageSize(width: 596, height: 842.5) == "A4, 596 × 843 pt")
        #expect(ContactSheet.pageSize(width: 597.5, height: 841.89) == "598 × 842 pt")
        #expect(ContactSheet.pageSize(width: 792, height: 612) == "Letter landscape, 792 × 612 pt")
        #expect(ContactSheet.pageSize(width: 500, height: 300) == "500 × 300 pt")
        #expect(ContactSheet.fileSize(999) == "999 bytes" && ContactSheet.fileSize(1) == "1 byte")
        #expect(ContactSheet.fileSize(12_345) == "12.3 kB" && ContactSheet.fileSize(4_560_000) == "4.6 MB")
    }

    /// Headless Chromium (Debian's, from the install script) draws the sheet as a person would
    /// see it: the failure box at the top, and the thumbnails' pictures, whose colours only the
    /// loaded PNGs can put on the screen.
    @Test(.disabled(if: BrowserRuns.skipped, "Chromium runs in the plain test step")) func chromiumShowsTheThumbnails() throws {
        let folder = try ScratchFolder("contact-sheet")
        let summary = try run(in: folder)
        let sheet = summary.outputFolder.appendingPathComponent("index.html").path
        func screenshot(_ name: String) throws -> Bitmap {
            let shot = folder.path(name)
            try BrowserRuns.screenshotScript([sheet, shot.path, "1000", "1400"])
            let bitmap = try Bitmap(pngData: Array(try Data(contentsOf: shot)))
            #expect(bitmap.width == 1000 && bitmap.height == 1400)
            return bitmap
        }
        /// Pixels of the failure box's tint near the top, and strongly coloured green-dominant
        /// pixels: vector-art.pdf's fills and photo.pdf's picture have them, the sheet's own
        /// text, greys, pale red and blue links do not.
        func count(_ bitmap: Bitmap) -> (failureTint: Int, green: Int) {
            var failureTint = 0, green = 0
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let p = bitmap.pixel(x: x, y: y)
                    if p == (255, 241, 240) && y < 400 { failureTint += 1 }
                    let high = max(p.r, p.g, p.b), low = min(p.r, p.g, p.b)
                    if Int(high) - Int(low) > 80 && p.g > p.r && p.g > p.b { green += 1 }
                }
            }
            return (failureTint, green)
        }
        // Repeated while the pictures are missing, which a browser that drew too early gives
        // too (BrowserRuns); the sheet without thumbnails below is judged from one run.
        let shown = try BrowserRuns.repeated(until: { count($0).green > 1500 }) { try screenshot("shot.png") }
        let counted = count(shown)
        #expect(counted.failureTint > 5000, "no failure box near the top (\(counted.failureTint) pixels)")
        #expect(ImageProperties.blackRows(shown) == 0)
        // The same sheet with its thumbnails gone loses that colour: it came from the pictures.
        for document in try FileManager.default.contentsOfDirectory(atPath: summary.outputFolder.path) {
            try? FileManager.default.removeItem(at: summary.outputFolder.appendingPathComponent(document).appendingPathComponent("thumbs"))
        }
        let broken = count(try screenshot("broken.png"))
        #expect(counted.green > 1500 && broken.green * 3 < counted.green,
                "\(counted.green) green pixels with the thumbnails, \(broken.green) without: the thumbnails did not load")
    }

    /// The large library's sheet in headless Chromium, with lazy loading on as in a person's
    /// browser (headless Chromium turns it off unless asked).
    ///
    /// Whether a picture was loaded cannot be seen in a screenshot of the top of the page (a
    /// picture below the window is not in it either way), and headless screenshots of a
    /// scrolled page are not reliable, so the loading is read from the browser itself: a copy
    /// of the sheet with a probe script added (the sheet itself has none) is opened with
    /// `--dump-dom`, and once every picture in the window has loaded (`complete` with a natural
    /// width; at least 1 s and at most 9 s of virtual time) the probe writes into the page which
    /// pictures have loaded, the scroll offset, which documents are displayed (computed style)
    /// and whether the window's pictures had all loaded (`settled`). On a loaded machine
    /// headless Chromium sometimes runs out of virtual time with the window's pictures still in
    /// flight: such a run proves nothing either way and is repeated (up to five times; see
    /// `BrowserRuns`), while a run that settled is judged as it is. Scrolling is a fragment: `#doc-zz-last` opens the sheet at
    /// the last document, as a link or a scroll there would. The filter is also checked by
    /// pixels: screenshots of `#filter-failed` must show the failed document's red edge and
    /// none of the other documents' coloured pictures, which the unfiltered top shows.
    @Test(.disabled(if: BrowserRuns.skipped, "Chromium runs in the plain test step")) func chromiumLoadsPicturesLazilyFiltersAndViewsPages() throws {
        let folder = try ScratchFolder("contact-sheet")
        let summary = try library(in: folder)
        let manifest = try #require(summary.manifest)
        let output = summary.outputFolder
        let probeScript = """
            <script>
            function report() { const p = document.createElement('pre'); p.id = 'probe';
              p.textContent = JSON.stringify({ y: Math.round(scrollY),
                loaded: Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).map(i => i.getAttribute('src')),
                shown: Array.from(document.querySelectorAll('section.document')).filter(s => getComputedStyle(s).display != 'none').map(s => s.id),
                settled: onScreenLoaded() });
              document.body.appendChild(p); }
            // In the window and rendered: a folded page's picture (in a closed <details>, whose
            // content Chromium skips with content-visibility) has a box but is not shown.
            function onScreenLoaded() { return Array.from(document.images).filter(i => { const r = i.getBoundingClientRect();
              return i.checkVisibility() && r.width > 0 && r.bottom > 0 && r.top < innerHeight; }).every(i => i.complete && i.naturalWidth > 0); }
            let waited = 0;
            function tick() { if ((waited >= 1000 && onScreenLoaded()) || waited >= 9000) { report(); } else { waited += 100; setTimeout(tick, 100); } }
            setTimeout(tick, 100);
            </script>
            """
        let sheet = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
        try sheet.replacingOccurrences(of: "</body>", with: probeScript + "\n</body>")
            .write(to: output.appendingPathComponent("probe.html"), atomically: true, encoding: .utf8)
        struct Probe: Decodable { var y: Int; var loaded: [String]; var shown: [String]; var settled: Bool }
        /// The probe of a run that settled and shows what `expected` asks, or of the last run.
        /// A browser starved of time may write the document before the probe ran, or before
        /// it reached the fragment (still at the top): such runs are repeated too, so a run
        /// fails the test only when no attempt shows what is asked.
        func probe(_ fragment: String?, expected: @escaping (Probe) -> Bool = { _ in true }) throws -> Probe {
            let dom = folder.path("dom-\(fragment ?? "top").html")
            let probed: Probe? = try BrowserRuns.repeated(until: { $0.map { $0.settled && expected($0) } ?? false }) {
                try BrowserRuns.screenshotScript(["--dump-dom"] + (fragment.map { ["--fragment", $0] } ?? [])
                                                 + [output.appendingPathComponent("probe.html").path, dom.path, "1000", "800"])
                let text = try String(contentsOf: dom, encoding: .utf8)
                guard let start = text.range(of: "<pre id=\"probe\">"),
                      let end = text[start.upperBound...].range(of: "</pre>") else { return nil }
                let json = text[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&lt;", with: "<")
                    .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
                return try JSONDecoder().decode(Probe.self, from: Data(json.utf8))
            }
            return try #require(probed, "the probe did not run (\(fragment ?? "top"))")
        }
        func thumbnails(_ name: String, pages: ClosedRange<Int>? = nil) throws -> Set<String> {
            let document = try #require(manifest.documents.first { $0.name == name })
            return Set(document.pages.filter { pages?.contains($0.number) ?? true }.flatMap(\.thumbnails).filter { $0.box == 256 }.map(\.path))
        }
        let pageImages = Set(manifest.documents.flatMap(\.pages).compactMap(\.image?.path))

        // At the top: the first document's pictures, not the last one's, and no page image.
        let firstThumbnails = try thumbnails("doc-01")
        let top = try probe(nil) { $0.y == 0 && firstThumbnails.isSubset(of: $0.loaded) }
        #expect(top.y == 0 && top.shown.count == manifest.documents.count)
        #expect(firstThumbnails.isSubset(of: top.loaded), "the first document's thumbnails load")
        #expect(try thumbnails("zz-last").isDisjoint(with: top.loaded), "the last document's thumbnails wait: \(top.loaded.count) loaded")
        #expect(pageImages.isDisjoint(with: top.loaded), "the viewer's page images load only when a page is opened")
        // At the manual: its first pages, not those folded away. (Whether the pictures at the
        // top load too depends on whether Chromium drew the top before it reached the fragment
        // while parsing, so that is not asserted.)
        let firstPages = try thumbnails("long", pages: 1...6)
        let atLong = try probe("doc-long") { $0.y > 2000 && firstPages.isSubset(of: $0.loaded) }
        #expect(atLong.y > 2000)
        #expect(firstPages.isSubset(of: atLong.loaded))
        #expect(try thumbnails("long", pages: 7...30).isDisjoint(with: atLong.loaded), "folded pages load when shown")
        // Scrolled to the end: the last document's pictures load.
        let lastThumbnails = try thumbnails("zz-last")
        let atEnd = try probe("doc-zz-last") { $0.y > atLong.y && lastThumbnails.isSubset(of: $0.loaded) }
        #expect(atEnd.y > atLong.y)
        #expect(lastThumbnails.isSubset(of: atEnd.loaded))
        // The filter from the address: only the failed document, or only the warned one.
        #expect(try probe("filter-failed") { $0.shown == ["doc-m-broken"] }.shown == ["doc-m-broken"])
        let warned = manifest.documents.filter { !$0.warnings.isEmpty }.map { "doc-" + $0.name }
        #expect(try probe("filter-warned") { $0.shown == warned }.shown == warned && warned.count == 1)
        // The viewer: the page's image loads, in the window.
        let viewed = try probe("view-long-p7") { $0.loaded.contains("long/page-0007.png") && $0.y == 0 }
        #expect(viewed.loaded.contains("long/page-0007.png") && viewed.y == 0)

        func screenshot(_ name: String, _ options: [String]) throws -> Bitmap {
            let shot = folder.path(name)
            try BrowserRuns.screenshotScript(options + [output.appendingPathComponent("index.html").path, shot.path, "1000", "800"])
            return try Bitmap(pngData: Array(try Data(contentsOf: shot)))
        }
        /// Pixels of the documents' pictures (green shapes, the manual's magenta, the last
        /// document's blue), of a failed document's red edge (#c0392b), and of the viewer's
        /// backdrop (#121214).
        func count(_ bitmap: Bitmap) -> (pictures: Int, failedEdge: Int, backdrop: Int) {
            var pictures = 0, failedEdge = 0, backdrop = 0
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let p = bitmap.pixel(x: x, y: y)
                    let (r, g, b) = (Int(p.r), Int(p.g), Int(p.b))
                    if g - max(r, b) > 80 || (r > 200 && b > 200 && g < 80) || (b > 200 && r < 60 && g < 60) { pictures += 1 }
                    if abs(r - 192) < 6 && abs(g - 57) < 6 && abs(b - 43) < 6 { failedEdge += 1 }
                    if (r, g, b) == (18, 18, 20) { backdrop += 1 }
                }
            }
            return (pictures, failedEdge, backdrop)
        }
        // Screenshots are repeated while they do not show what is asked, as a browser that
        // drew too early or before reaching the fragment would (BrowserRuns).
        let light = try BrowserRuns.repeated(until: { count($0).pictures > 5000 }) { try screenshot("top.png", []) }
        let all = count(light)
        #expect(all.pictures > 5000, "the first documents' pictures show: \(all.pictures) pixels")
        let failedOnly = count(try BrowserRuns.repeated(until: { count($0).failedEdge > 200 && count($0).pictures == 0 }) { try screenshot("failed.png", ["--fragment", "filter-failed"]) })
        #expect(failedOnly.failedEdge > 200 && failedOnly.pictures == 0,
                "filtered: \(failedOnly.failedEdge) pixels of the failed document's edge, \(failedOnly.pictures) of other documents' pictures")
        // The dark scheme: a dark page, the same pictures on it.
        func darkBackground(_ bitmap: Bitmap) -> Bool {
            let p = bitmap.pixel(x: 5, y: 790)
            return Int(p.r) + Int(p.g) + Int(p.b) < 120
        }
        let dark = try BrowserRuns.repeated(until: { count($0).pictures > all.pictures * 9 / 10 && darkBackground($0) }) { try screenshot("dark.png", ["--dark"]) }
        let background = dark.pixel(x: 5, y: 790), lightBackground = light.pixel(x: 5, y: 790)
        #expect(Int(background.r) + Int(background.g) + Int(background.b) < 120 && Int(lightBackground.r) + Int(lightBackground.g) + Int(lightBackground.b) > 600)
        #expect(count(dark).pictures > all.pictures * 9 / 10)
        // The viewer covers the sheet with the page: its backdrop, the manual's magenta, no
        // other document's picture.
        let viewer = count(try BrowserRuns.repeated(until: { count($0).pictures > 20_000 && count($0).backdrop > 1000 * 800 / 3 }) { try screenshot("viewer.png", ["--fragment", "view-long-p7"]) })
        #expect(viewer.backdrop > 1000 * 800 / 3 && viewer.pictures > 20_000, "backdrop \(viewer.backdrop), page \(viewer.pictures)")
    }

    /// Values of an attribute, in order (of elements of class `class` only, when given),
    /// HTML entities of `&` and percent-encoding undone.
    private func attributes(_ name: String, in html: String, class: String? = nil) -> [String] {
        var values: [String] = []
        var rest = html[...]
        while let start = rest.range(of: " \(name)=\"") {
            let tagStart = rest[..<start.lowerBound].lastIndex(of: "<") ?? rest.startIndex
            rest = rest[start.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { break }
            let tagEnd = rest.firstIndex(of: ">") ?? rest.endIndex
            if let `class`, !rest.base[tagStart..<tagEnd].contains("class=\"\(`class`)\"") && !rest.base[tagStart..<tagEnd].contains("class=\"\(`class`) ") {
                rest = rest[end...]
                continue
            }
            values.append(String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&").removingPercentEncoding ?? "")
            rest = rest[end...]
        }
        return values
    }

    /// The opening tags of elements `name`.
    private func tags(_ name: String, in html: String) -> [String] {
        html.components(separatedBy: "<\(name) ").dropFirst().map { "<\(name) " + ($0.split(separator: ">", maxSplits: 1).first ?? "") + ">" }
    }

    /// The page cells (`<figure>` … `</figure>`), in order.
    private func figures(in html: String) -> [String] {
        html.components(separatedBy: "<figure").dropFirst().map { "<figure" + ($0.components(separatedBy: "</figure>").first ?? "") }
    }

    /// A cell's page number.
    private func caption(_ figure: String) -> String {
        let text = figure.components(separatedBy: "<figcaption>").last ?? ""
        return String(text.prefix { $0 != "<" && $0 != " " })
    }

    /// The section of the document named `name`.
    private func section(_ name: String, in html: String) throws -> String {
        let start = try #require(html.range(of: "id=\"\(ContactSheet.anchor(name))\">"), "no section for \(name)")
        let end = try #require(html[start.upperBound...].range(of: "</section>"))
        return String(html[start.lowerBound..<end.lowerBound])
    }

    /// The viewers by id.
    private func viewers(in html: String) -> [String: String] {
        var found: [String: String] = [:]
        for part in html.components(separatedBy: "<div class=\"viewer\" id=\"").dropFirst() {
            let id = String(part.prefix { $0 != "\"" })
            found[id] = part.components(separatedBy: "</div>").first ?? ""
        }
        return found
    }
}
