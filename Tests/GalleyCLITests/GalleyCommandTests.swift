import Foundation
import GalleyRaster
import GalleyTestSupport
import Testing

/// The `galley` binary as CI jobs use it: exit statuses, messages, interruption.
@Suite struct GalleyCommandTests {
    /// The built `galley` next to the test bundle.
    static let binary: URL = {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return directory.appendingPathComponent("galley")
    }()

    /// Runs galley to completion in `directory`.
    func galley(_ arguments: [String], in directory: URL) throws -> PeerTools.Outcome {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build galley first: \(Self.binary.path)")
        return try PeerTools.run(Self.binary.path, arguments, in: directory)
    }

    func folderWithConfig(_ yaml: String, files: [URL]) throws -> ScratchFolder {
        let folder = try ScratchFolder("galley-cli")
        _ = try folder.copy(files, into: "docs")
        try yaml.write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        return folder
    }

    /// Warnings are not printed as they happen; the summary counts them.
    @Test func theSummaryCountsWarnings() throws {
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: []\n", files: [Fixtures.pdf("damaged-content.pdf"), Fixtures.pdf("rotated.pdf")])
        let outcome = try galley(["run"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("galley: 2 warnings in 1 document"), "\(outcome.stdout)")
    }

    /// galley plan, galley run --plan for each shard (one with an empty list: two documents
    /// for three shards), galley merge, and a run into the merged folder that finds it done.
    @Test func aPlanItsShardsAndTheMergeFromTheCommandLine() throws {
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: [64]\n",
                                          files: [Fixtures.pdf("article.pdf"), Fixtures.pdf("rotated.pdf")])
        let plan = try galley(["plan", "--shards", "3", "--output", "plan.json"], in: folder.url)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("planned 2 documents in 3 shards"), "\(plan.stdout)")
        for k in 1...3 {
            let shard = try galley(["run", "--plan", "plan.json", "--shard", "\(k)/3", "--output", "shard-\(k)"], in: folder.url)
            #expect(shard.status == 0, "shard \(k): \(shard.stderr)")
        }
        let merge = try galley(["merge", "merged", "shard-1", "shard-2", "shard-3"], in: folder.url)
        #expect(merge.status == 0 && merge.stdout.contains("merged 3 shards: 2 documents"), "\(merge.stdout)\(merge.stderr)")
        let rerun = try galley(["run", "--output", "merged"], in: folder.url)
        #expect(rerun.stdout.contains("2 documents: 0 ok, 0 failed, 2 unchanged"), "\(rerun.stdout)")
    }

    @Test func successExitsZeroAndSaysWhereOutputsAre() throws {
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 50\nthumbnails: [64]\n",
                                          files: [Fixtures.pdf("article.pdf"), Fixtures.pdf("rotated.pdf")])
        let outcome = try galley(["run"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("2 documents: 2 ok, 0 failed"))
        #expect(outcome.stdout.contains(folder.path("out").path))
        #expect(FileManager.default.fileExists(atPath: folder.path("out/article/page-0004.png").path))
        #expect(FileManager.default.fileExists(atPath: folder.path("out/rotated/thumbs/64/page-0001.png").path))
    }

    /// Inputs that hold no document are a misconfigured job: exit 2 naming the inputs and what
    /// was passed over, unless --allow-empty; skipped files are counted in the summary and
    /// listed with --verbose.
    @Test func inputsWithoutDocumentsExitTwoUnlessAllowed() throws {
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: []\n", files: [])
        try FileManager.default.createDirectory(at: folder.path("docs/.cache"), withIntermediateDirectories: true)
        try Data("not a document".utf8).write(to: folder.path("docs/notes.docx"))
        try Data("p { color: red }".utf8).write(to: folder.path("docs/style.css"))  // an article's: not counted
        try Data("%PDF-1.4".utf8).write(to: folder.path("docs/.cache/hidden.pdf"))
        let empty = try galley(["run"], in: folder.url)
        #expect(empty.status == 2, "\(empty.stdout)\(empty.stderr)")
        #expect(empty.stderr.contains("no documents"), "\(empty.stderr)")
        #expect(empty.stderr.contains(folder.path("docs").path) && empty.stderr.contains("--allow-empty"), "\(empty.stderr)")
        #expect(empty.stderr.contains("1 of an unsupported type, 1 hidden"), "\(empty.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/manifest.json").path))

        let allowed = try galley(["run", "--allow-empty", "--verbose"], in: folder.url)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("0 documents"), "\(allowed.stdout)")
        #expect(allowed.stdout.contains("passed over 1 of an unsupported type, 1 hidden file(s)"), "\(allowed.stdout)")
        #expect(allowed.stderr.contains("skipped, unsupported type: \(folder.path("docs/notes.docx").path)"), "\(allowed.stderr)")
        #expect(allowed.stderr.contains("skipped, hidden: \(folder.path("docs/.cache").path)"), "\(allowed.stderr)")

        // A document beside them: the run goes on, and still says what it passed over.
        _ = try folder.copy([Fixtures.pdf("article.pdf")], into: "docs")
        let one = try galley(["run"], in: folder.url)
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.stdout.contains("1 document: 1 ok") && one.stdout.contains("passed over 1 of an unsupported type, 1 hidden"), "\(one.stdout)")
    }

    @Test func aFailedDocumentExitsOneAndTheOthersComplete() throws {
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: []\n",
                                          files: [Fixtures.pdf("photo.pdf"), Fixtures.brokenFolder.appendingPathComponent("garbage.pdf"),
                                                  Fixtures.pdf(Fixtures.encryptedPDF)])
        let outcome = try galley(["run"], in: folder.url)
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("garbage.pdf: not-pdf"))
        #expect(outcome.stdout.contains("encrypted.pdf: password-required"))
        #expect(FileManager.default.fileExists(atPath: folder.path("out/photo/page-0001.png").path))
        #expect(try ManifestSchema.violations(of: folder.path("out/manifest.json")) == [])
    }

    @Test func optionsOverrideTheFile() throws {
        let folder = try folderWithConfig("inputs: [nowhere]\ndpi: 300\n", files: [Fixtures.pdf("landscape.pdf")])
        let outcome = try galley(["run", "--input", "docs", "--output", "elsewhere", "--dpi", "36", "--jobs", "1"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let page = try Bitmap(pngData: Array(try Data(contentsOf: folder.path("elsewhere/landscape/page-0001.png"))))
        #expect(page.width == 421 && page.height == 298)
    }

    @Test(arguments: [
        (["run"], "inputs: [docs]\nthumbnail: [64]\n", "pipeline.yml:2: thumbnail: unknown key"),
        (["run"], "inputs: [docs]\ndpi: huge\n", "dpi: expected a number"),
        (["run"], "inputs: [docs]\ndpi: 72\ndpi: 96\n", "pipeline.yml:3: dpi: written twice in the same map, on lines 2 and 3"),
        (["run"], "inputs: [docs]\ndpi: 0x48\n", "pipeline.yml:2: dpi: expected a number from 1 to 2400 in decimal notation"),
        (["run"], "inputs: [docs]\nx: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n", "pipeline.yml:2: lists and maps nest more than 32 levels deep"),
        (["run"], "\u{0}PNG\u{1}\u{2}", "pipeline.yml: not a text file"),
        (["run"], "inputs: [missing-folder]\n", "missing-folder"),
        (["run", "--dpi", "0"], "inputs: [docs]\n", "--dpi"),
        (["run", "--frobnicate"], "inputs: [docs]\n", "frobnicate"),
        (["run", "--config", "other.yml"], "inputs: [docs]\n", "other.yml"),
        (["run", "--output", "/proc/galley-cannot-write-here"], "inputs: [docs]\n", "choose a folder you can write to"),
        (["typeset", "--render", "--jobs", "0", "docs/landscape.pdf"], "inputs: [docs]\n", "--jobs must be at least 1"),
        (["inspect", "--config", "other.yml", "docs"], "inputs: [docs]\n", "other.yml: no such configuration file"),
        (["run", "--shard", "4/3"], "inputs: [docs]\n", "--shard: shard 4 of 3 does not exist"),
        (["run"], "inputs: [docs/landscape.pdf]\ninbox: drop\n", "pipeline.yml: inbox: drop: the first input (docs/landscape.pdf) must be a folder"),
        (["thumbs", "--freedesktop", "/proc/galley-cannot-write-here"], "inputs: [docs]\n", "--freedesktop: /proc/galley-cannot-write-here"),
        (["merge", "merged", "docs"], "inputs: [docs]\n", "no manifest.json"),
        (["run", "--pages", "3-1"], "inputs: [docs]\n", "--pages 3-1: '3-1' runs backwards; write 1-3"),
        (["run", "--max-pages", "0"], "inputs: [docs]\n", "--max-pages 0"),
        (["run", "--thumbnails", "64,2"], "inputs: [docs]\n", "--thumbnails 64,2: boxes are numbers of pixels from 8 to 4096"),
        (["run", "--thumbnails", "none", "--no-page-images"], "inputs: [docs]\n", "leaves nothing to write"),
        (["run"], "inputs: [docs]\npages: first-\n", "pipeline.yml:2: pages:"),
    ])
    func usageAndConfigurationErrorsExitTwo(arguments: [String], yaml: String, message: String) throws {
        let folder = try folderWithConfig(yaml, files: [Fixtures.pdf("landscape.pdf")])
        let outcome = try galley(arguments, in: folder.url)
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains(message), "\(outcome.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/manifest.json").path))
    }

    /// A layout in millimetres draws pages of that size: 100 × 50 mm at 96 dpi is
    /// 377.95 × 188.98 pixels, drawn as 378 × 189 (a part pixel is a pixel).
    @Test func aLayoutInMillimetresDrawsPagesOfThatSize() throws {
        let folder = try folderWithConfig("""
            inputs: [docs]
            dpi: 96
            thumbnails: []
            layouts:
              - name: card
                page: [100mm, 50mm]
                inset: {top: 5mm, right: 0.5cm, bottom: 5mm, left: 14.17pt}
                column_gap: 4.5mm
                columns: 2
                font_size: 9pt
            """, files: [])
        try FileManager.default.createDirectory(at: folder.path("docs"), withIntermediateDirectories: true)
        try Data("<p>\(String(repeating: "A card set in millimetres. ", count: 40))</p>".utf8).write(to: folder.path("docs/card.html"))
        let outcome = try galley(["run"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stdout)\(outcome.stderr)")
        let bytes = [UInt8](try Data(contentsOf: folder.path("out/card/card/page-0001.png")))
        let page = try IndependentImageDecoder.decode(bytes, format: .png).bitmap
        let (width, height) = ((100 / 25.4 * 96).rounded(.up), (50 / 25.4 * 96).rounded(.up))
        #expect(page.width == Int(width) && page.height == Int(height), "\(page.width) × \(page.height)")
    }

    /// Drawing on several threads while one typesets changes the timing, never the pages.
    @Test func typesetReportsTheSamePagesWhateverTheDrawingThreads() throws {
        let article = Fixtures.articlesFolder.appendingPathComponent("magazine.html")
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 72\nlayouts:\n  - name: two\n    columns: 2\n", files: [article])
        func report(jobs: Int) throws -> [[String: Any]] {
            let outcome = try galley(["typeset", "--render", "--json", "--jobs", "\(jobs)", "docs/magazine.html"], in: folder.url)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
            let documents = try #require(json["documents"] as? [[String: Any]])
            return try #require(documents.first?["layouts"] as? [[String: Any]])
        }
        let one = try report(jobs: 1), three = try report(jobs: 3)
        #expect(one.count == 1 && three.count == 1)
        for key in ["name", "pages", "lines"] {
            #expect("\(one[0][key] ?? "none")" == "\(three[0][key] ?? "none")", "\(key)")
        }
        #expect((three[0]["pages"] as? Int ?? 0) > 0)
        #expect((three[0]["render_seconds"] as? Double ?? 0) > 0)
    }

    /// Several documents typeset side by side report what one after the other does, in the
    /// order of the files (a missing one reported and the others kept).
    @Test func typesetOfSeveralDocumentsAtOnceReportsThemInOrder() throws {
        let names = ["magazine.html", "feature.html", "long-essay.html", "dispatch.html"]
        let files = names.map { Fixtures.articlesFolder.appendingPathComponent($0) }.filter { FileManager.default.fileExists(atPath: $0.path) }
        #expect(files.count >= 3)
        let folder = try folderWithConfig("inputs: [docs]\nlayouts:\n  - name: two\n    columns: 2\n", files: files)
        let arguments = files.map { "docs/" + $0.lastPathComponent }
        func report(documents: Int) throws -> (sources: [String], lines: [String]) {
            let outcome = try galley(["typeset", "--json", "--lines", "--documents", "\(documents)"] + arguments + ["docs/none.html"], in: folder.url)
            #expect(outcome.status == 1, "the missing file fails the command: \(outcome.stderr)")
            #expect(outcome.stderr.contains("none.html"))
            let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
            let documents = try #require(json["documents"] as? [[String: Any]])
            let lines = documents.flatMap { ($0["layouts"] as? [[String: Any]] ?? []).flatMap { $0["line_details"] as? [[String: Any]] ?? [] } }
            return (documents.compactMap { $0["source"] as? String }, lines.compactMap { $0["text"] as? String })
        }
        let alone = try report(documents: 1), together = try report(documents: 4)
        #expect(alone.sources.map { URL(fileURLWithPath: $0).lastPathComponent } == files.map(\.lastPathComponent))
        #expect(together.sources == alone.sources)
        #expect(together.lines == alone.lines && !alone.lines.isEmpty)
    }

    /// The feature article's magazine layout as data: its floated pictures with their sides,
    /// its boxed sidebar and its table, page by page.
    @Test func typesetReportsFloatsBoxesAndTables() throws {
        let folder = try folderWithConfig("inputs: [docs]\nlayouts:\n  - name: two\n    columns: 2\n",
                                          files: [Fixtures.articlesFolder.appendingPathComponent("feature.html")])
        try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent("images"), to: folder.path("docs/images"))
        let outcome = try galley(["typeset", "--json", "docs/feature.html"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let layout = try #require((json["documents"] as? [[String: Any]])?.first?["layouts"] as? [[String: Any]]).first
        let floats = try #require(layout?["floats"] as? [[String: Any]])
        #expect(floats.compactMap { $0["float"] as? String } == ["right", "left"])
        #expect(floats.allSatisfy { ($0["page"] as? Int ?? 0) >= 1 && $0["rect"] != nil && ($0["source"] as? String)?.hasPrefix("images/") == true })
        #expect((layout?["boxes"] as? [[String: Any]])?.isEmpty == false, "the sidebar's box")
        // The sidebar floats right, whole, in the column its text is counted in.
        let blocks = try #require(layout?["floated_blocks"] as? [[String: Any]])
        #expect(blocks.count == 1 && blocks.first?["float"] as? String == "right" && blocks.first?["block"] as? Int == 0)
        let range = try #require(blocks.first?["text_range"] as? [Int])
        #expect(range.count == 2 && range[0] < range[1])
        #expect((layout?["tables"] as? [[String: Any]])?.isEmpty == false)
    }

    /// `typeset --json --lines` lists every line: they tile the text, and say what a reader
    /// of the page would see (code and headings never spread, spaces stretched or shrunk).
    @Test func typesetListsEveryLineAsData() throws {
        let folder = try folderWithConfig("""
            inputs: [docs]
            layouts:
              - name: magazine
                columns: 2
                justify_threshold: 0.8
                hyphenation: true
                language: en
            """, files: [Fixtures.articlesFolder.appendingPathComponent("long-essay.html")])
        let outcome = try galley(["typeset", "--json", "--lines", "docs/long-essay.html"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let document = try #require((json["documents"] as? [[String: Any]])?.first)
        let layout = try #require((document["layouts"] as? [[String: Any]])?.first)
        let lines = try #require(layout["line_details"] as? [[String: Any]])
        #expect(lines.count == layout["lines"] as? Int)
        var next = 0
        for line in lines {
            let range = try #require(line["text_range"] as? [Int])
            #expect(range[0] == next)
            next = range[1]
        }
        #expect(next == document["text_length"] as? Int, "the lines tile the text")
        let code = lines.filter { ($0["element"] as? String)?.hasPrefix("pre") == true }
        let headings = lines.filter { ($0["element"] as? String)?.first == "h" }
        #expect(!code.isEmpty && !headings.isEmpty)
        #expect((code + headings).allSatisfy { $0["justified"] as? Bool == false && $0["hyphenated"] as? Bool == false })
        #expect(code.contains { $0["wrapped_preformatted"] as? Bool == true })
        let ratios = lines.compactMap { $0["space_ratio"] as? Double }
        #expect(ratios.contains { $0 > 0 } && ratios.contains { $0 < 0 }, "spaces stretch and shrink")
        #expect(ratios.allSatisfy { $0 >= -0.2 - 1e-6 && $0 <= 2 + 1e-6 }, "within the limits: 0.8 to 3 times a space")
        // Letter spacing only once spaces are at their limit, within the default 0.04 em (of
        // at most 13 pt, the essay's largest justified text).
        let letterSpaced = lines.filter { $0["letter_gap"] != nil }
        #expect(!letterSpaced.isEmpty)
        #expect(letterSpaced.allSatisfy { ($0["space_ratio"] as? Double ?? 2) > 2 - 1e-3 && ($0["letter_gap"] as? Double ?? 1) <= 0.04 * 13 + 1e-3 })
        #expect(lines.allSatisfy { ($0["badness"] as? Double).map { $0 >= 0 && $0 <= 10_000 } == true })
        #expect(lines.filter { $0["loose"] as? Bool == true }.allSatisfy { ($0["badness"] as? Double ?? 0) > 100 }, "loose: past the limit")
    }

    @Test func helpDocumentsTheExitStatuses() throws {
        let folder = try ScratchFolder()
        let outcome = try galley(["--help"], in: folder.url)
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        for (status, word) in [("0", "every"), ("1", "one"), ("2", "bad"), ("130", "interrupted")] {
            #expect(lines.contains { $0.count > 1 && $0[0] == status && $0[1] == word }, "exit status \(status) is explained")
        }
    }

    @Test func interruptStopsCleanlyWithStatus130() throws {
        let folder = try ScratchFolder("galley-cli")
        let docs = folder.path("docs")
        try FileManager.default.createDirectory(at: docs, withIntermediateDirectories: true)
        for i in 0..<40 {
            try FileManager.default.copyItem(at: Fixtures.pdf("photo.pdf"), to: docs.appendingPathComponent("photo-\(i).pdf"))
        }
        try "inputs: [docs]\ndpi: 400\nworkers: 1\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)

        let (process, output) = try GalleyChild.start(["run"], in: folder.url)
        // Interrupt once the first document is done, well before the last.
        #expect(output.wait(for: "[1/40]"))
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        let out = folder.path("out")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(".galley/tmp").path))
        let written = (FileManager.default.enumerator(atPath: out.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".png") }
        #expect(written.count < 40 * 3, "stopped before the end")
        #expect(written.count >= 3, "the finished first document's image and thumbnails are there")
        for path in written {
            #expect(throws: Never.self) { try Bitmap(pngData: Array(try Data(contentsOf: out.appendingPathComponent(path)))) }
        }
    }

    /// SIGTERM reaches an article being typeset: the typesetter stops between lines and
    /// between pieces of shaping, and the run ends on its own, not by the exit forced when
    /// work goes on past the grace after the signal (`in-flight work did not stop`). `a` and
    /// 4,000,000 combining accents take about 24 s of CPU in a debug build, 1.2 s of it before
    /// the typesetting starts (a run with `page_timeout: 0.001` fails it there); the signal
    /// comes once the process has used 4 s of CPU, inside the typesetting however loaded the
    /// machine. The grace is made 5 s (`GALLEY_TEST_EXIT_GRACE`), room to stop and clean up.
    @Test func sigtermStopsAnArticleInTheMiddleOfTypesetting() throws {
        let folder = try ScratchFolder("galley-sigterm")
        try FileManager.default.createDirectory(at: folder.path("docs"), withIntermediateDirectories: true)
        try ("a" + String(repeating: "\u{301}", count: 4_000_000) + "\n")
            .write(to: folder.path("docs/accents.txt"), atomically: true, encoding: .utf8)
        try "inputs: [docs]\ndpi: 36\nthumbnails: []\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let (process, output) = try GalleyChild.start(["run", "--progress", "json"], in: folder.url,
                                                      environment: ["GALLEY_TEST_EXIT_GRACE": "5"])
        #expect(output.wait(for: "document_started"))
        #expect(process.waitForCPU(4), "the run ended before it was signalled: \(output.current.suffix(500))")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(output.current.suffix(500))")
        #expect(output.current.contains("stopping in-flight work"), "\(output.current.suffix(500))")
        #expect(!output.current.contains("did not stop within"), "the typesetting went on after SIGTERM: \(output.current.suffix(500))")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/manifest.json").path))
    }

    /// SIGTERM ends a run even when its in-flight work does not stop when cancelled (a C call
    /// that runs on, here a test hook that sleeps an hour while opening the document): the
    /// run exits with 130 shortly after the signal instead of when the work ends.
    @Test func sigtermEndsARunWhoseWorkDoesNotStop() throws {
        let folder = try ScratchFolder("galley-sigterm-stuck")
        try FileManager.default.createDirectory(at: folder.path("docs"), withIntermediateDirectories: true)
        try "Some words.\n".write(to: folder.path("docs/stuck.txt"), atomically: true, encoding: .utf8)
        try "inputs: [docs]\ndpi: 36\nthumbnails: []\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let (process, output) = try GalleyChild.start(["run", "--progress", "json"], in: folder.url,
                                                      environment: ["GALLEY_TEST_HANG_ON": "stuck.txt"])
        #expect(output.wait(for: "document_started"))
        Thread.sleep(forTimeInterval: 0.5)  // inside the hook's sleep
        kill(process.processIdentifier, SIGTERM)
        // The forced exit says so before it exits; the hook sleeps an hour, so the wait's minute
        // only keeps a broken exit from hanging the suite.
        let forced = output.wait(for: "did not stop within")
        if !forced { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        #expect(forced, "no exit forced after SIGTERM: \(output.current.suffix(500))")
        #expect(process.terminationReason == .exit && process.terminationStatus == 130, "\(output.current.suffix(500))")
    }

    @Test func inspectDescribesDocumentsForPeopleAndMachinesAndExitsOneForAnUnreadableOne() throws {
        let folder = try folderWithConfig("inputs: [docs]\n", files: [Fixtures.pdf("mixed.pdf"), Fixtures.brokenFolder.appendingPathComponent("garbage.pdf")])
        _ = try folder.copy([Fixtures.articlesFolder.appendingPathComponent("ja-vertical.html")], into: "docs")
        let text = try galley(["inspect", "docs"], in: folder.url)
        #expect(text.status == 1, "\(text.stderr)")
        #expect(text.stdout.contains("docs/mixed.pdf\n  kind: PDF"))
        #expect(text.stdout.contains("page 2: 792 × 612 pt, rotated 270°"))
        #expect(text.stdout.contains("error: not-pdf"))
        #expect(text.stdout.contains("layout a4: ") && text.stdout.contains("1 band, vertical"))
        let json = try galley(["inspect", "--json", "docs/mixed.pdf", "docs/ja-vertical.html"], in: folder.url)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let documents = try #require(object?["documents"] as? [[String: Any]])
        #expect(documents.map { $0["path"] as? String } == ["docs/mixed.pdf", "docs/ja-vertical.html"])
        #expect(documents[0]["page_count"] as? Int == 4 && documents[0]["kind"] as? String == "pdf")
        let layouts = try #require(documents[1]["layouts"] as? [[String: Any]])
        #expect(layouts.first?["writing_mode"] as? String == "vertical-rl" && (layouts.first?["page_count"] as? Int ?? 0) > 1)
        let usage = try galley(["inspect", "nothing-here"], in: folder.url)
        #expect(usage.status == 2 && usage.stderr.contains("nothing-here"))
    }

    /// `inspect --json` is data to program against: a schema version, booleans as booleans,
    /// every key present (null where it does not apply), valid against its published schema.
    /// `--version` names what a bug report needs: Galley's version and build, and the
    /// versions of MuPDF and HarfBuzz as their own tools report them, and FreeType's.
    @Test func versionNamesTheBuildAndTheLibraries() throws {
        let folder = try ScratchFolder("galley-version")
        let outcome = try galley(["--version"], in: folder.url)
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("galley 0.1.0 (") == true, "\(outcome.stdout)")
        let mutool = try PeerTools.run("mutool", ["-v"])
        let mupdf = try #require((mutool.stdout + mutool.stderr).split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let harfBuzz = try PeerTools.run("pkg-config", ["--modversion", "harfbuzz"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(lines.count == 2 && lines[1].hasPrefix("MuPDF \(mupdf), HarfBuzz \(harfBuzz), FreeType 2."), "\(outcome.stdout)")
    }

    @Test func inspectJSONFollowsItsSchema() throws {
        let folder = try folderWithConfig("inputs: [docs]\n", files: [Fixtures.pdf("mixed.pdf"), Fixtures.pdf(Fixtures.encryptedPDF),
                                                                       Fixtures.brokenFolder.appendingPathComponent("garbage.pdf")])
        _ = try folder.copy([Fixtures.articlesFolder.appendingPathComponent("malformed.html")], into: "docs")
        let json = try galley(["inspect", "--json", "docs"], in: folder.url)
        #expect(json.status == 1, "an unreadable document: \(json.stderr)")
        try json.stdout.write(to: folder.path("inspect.json"), atomically: true, encoding: .utf8)
        #expect(try ManifestSchema.violations(of: folder.path("inspect.json"), schema: "inspect") == [])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["schema_version"] as? Int == 1)
        let documents = try #require(object["documents"] as? [[String: Any]])
        let byPath = Dictionary(uniqueKeysWithValues: documents.map { ($0["path"] as? String ?? "", $0) })
        #expect(Set(documents.map { Set($0.keys) }).count == 1, "every document has every key")
        let plain = try #require(byPath["docs/mixed.pdf"])
        #expect(plain["encrypted"] as? Bool == false && plain["encryption"] is NSNull)
        let locked = try #require(byPath["docs/\(Fixtures.encryptedPDF)"])
        #expect(locked["encrypted"] is NSNull && (locked["error"] as? [String: Any])?["code"] as? String == "password-required")
        let article = try #require(byPath["docs/malformed.html"])
        #expect(article["encrypted"] is NSNull && article["pages"] is NSNull && article["error"] is NSNull)
    }

    @Test func jsonProgressReportsEveryEventAndTheTotals() throws {
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 40\nthumbnails: [64]\n",
                                          files: [Fixtures.pdf("article.pdf"), Fixtures.pdf("mixed.pdf"),
                                                  Fixtures.brokenFolder.appendingPathComponent("garbage.pdf")])
        let outcome = try galley(["run", "--progress", "json"], in: folder.url)
        #expect(outcome.status == 1)
        let events = try outcome.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
        }
        func named(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }
        // Every line follows the published schema, with the time of its event, in order.
        try outcome.stdout.write(to: folder.path("events.jsonl"), atomically: true, encoding: .utf8)
        #expect(try ManifestSchema.violations(of: folder.path("events.jsonl"), schema: "progress-event") == [])
        let times = events.compactMap { $0["time"] as? String }
        #expect(times.count == events.count && times == times.sorted(), "\(times)")
        #expect(named("document_started").count == 3)
        #expect(named("page_done").count == 8, "article.pdf has 4 pages, mixed.pdf 4")
        #expect(named("page_done").last?["pages_done"] as? Int == 8)
        #expect(named("document_finished").count == 2)
        let failed = try #require(named("document_failed").first)
        #expect(failed["source"] as? String == "garbage.pdf" && (failed["error"] as? [String: Any])?["code"] as? String == "not-pdf")
        let finished = try #require(events.last)
        #expect(finished["event"] as? String == "run_finished")
        #expect(finished["pages"] as? Int == 8 && finished["failed"] as? Int == 1 && finished["exit_status"] as? Int == 1)
        // The human summary goes to standard error, so standard output is JSON only.
        #expect(outcome.stderr.contains("3 documents: 2 ok, 1 failed"))
    }

    @Test func withoutATerminalProgressIsPlainLines() throws {
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 100\nthumbnails: [64, 256]\n",
                                          files: Fixtures.goodPDFs.map(Fixtures.pdf))
        let outcome = try PeerTools.run("env", ["CI=true", Self.binary.path, "run", "--jobs", "1", "--progress-interval", "0.05"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stderr.contains("[1/\(Fixtures.goodPDFs.count)] "))
        #expect(outcome.stderr.contains("galley: progress: "), "no periodic status line in: \(outcome.stderr)")
        #expect(!outcome.stderr.contains("\u{1B}["), "no terminal escapes in a pipe")
        #expect(outcome.stdout.contains("\(Fixtures.goodPDFs.count) documents: \(Fixtures.goodPDFs.count) ok"))
    }

    @Test func aTerminalGetsOneLineRedrawnInPlaceAndClearedAtTheEnd() throws {
        let folder = try folderWithConfig("inputs: [docs]\ndpi: 60\nthumbnails: [64]\n",
                                          files: [Fixtures.pdf("article.pdf"), Fixtures.pdf("photo.pdf")])
        // `script` runs galley on a pseudo-terminal, as a person at a terminal (or tmux) would.
        let command = "\(Self.binary.path) run"
        let outcome = try PeerTools.run("env", ["-u", "CI", "script", "-qec", command, "/dev/null"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stdout)")
        let output = outcome.stdout
        #expect(output.contains("\r\u{1B}[2Kgalley 0/2 documents") || output.contains("\r\u{1B}[2Kgalley 1/2 documents"))
        #expect(!output.contains("[1/2]"), "a terminal gets the bar, not a line per document")
        // The bar is cleared before the summary.
        #expect(output.contains("\r\u{1B}[2Kgalley: 2 documents: 2 ok"))
    }
}
