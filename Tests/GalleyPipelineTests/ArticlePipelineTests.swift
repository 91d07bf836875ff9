import Foundation
import GalleyBase
import GalleyManifest
import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import GalleyText
import Logging
import Testing

@Suite struct ArticlePipelineTests {
    /// Layouts in 1, 2 and 3 columns, portrait and landscape.
    static let layouts: [ArticleLayout] = {
        var one = ArticleLayout(name: "one")
        one.base.fontSize = 11
        var two = ArticleLayout(name: "two")
        two.columns = 2
        two.base.fontFamily = "DejaVu Sans"
        two.base.fontSize = 9
        // Justification and hyphenation together must not lose or repeat text.
        two.typography.justifyThreshold = 0.7
        two.base.hyphens = .auto
        two.base.language = "en"
        var three = ArticleLayout(name: "three")
        three.columns = 3
        (three.pageWidth, three.pageHeight) = (842, 595)
        three.inset = .init(top: 40, right: 36, bottom: 40, left: 36)
        three.base.fontSize = 8
        return [one, two, three]
    }()

    /// The whole article corpus (and the broken articles) in every layout, on three workers:
    /// made once, read by every test that only looks at what a full run makes.
    static let corpusRun = MadeOnce {
        let folder = try ScratchFolder("corpus").keepUntilExit()
        return (folder, try ArticlePipelineTests().run(in: folder, workers: 3))
    }

    func run(in folder: ScratchFolder, output: String = "out", workers: Int = 2, layouts: [ArticleLayout] = Self.layouts,
             thumbnails: [Int] = [96], fontFolders: [String] = []) throws -> RunSummary {
        if !FileManager.default.fileExists(atPath: folder.path("in").path) {
            try FileManager.default.copyItem(at: Fixtures.articlesFolder, to: folder.path("in"))
            for name in try FileManager.default.contentsOfDirectory(atPath: Fixtures.brokenArticlesFolder.path) {
                try FileManager.default.copyItem(at: Fixtures.brokenArticlesFolder.appendingPathComponent(name),
                                                 to: folder.path("in/broken-\(name)"))
            }
        }
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = output
        configuration.dpi = 50
        configuration.thumbnailBoxes = thumbnails
        configuration.workers = Configuration.Workers(all: workers)
        configuration.layouts = layouts
        configuration.fontFolders = fontFolders
        return try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
    }

    /// Text files in UTF-32 (either byte order) and UTF-16, each with its byte order mark, are
    /// read and set whole. Before, UTF-32BE failed as not-text (its NUL bytes) and UTF-32LE
    /// was read as UTF-16LE and set as garbage with status ok.
    @Test func unicodeTextFilesWithAByteOrderMarkAreSetWhole() throws {
        let folder = try ScratchFolder("encodings")
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        let text = "Text with a byte order mark: café, naïve, 日本語.\n\nA second paragraph.\n"
        let files: [String: [UInt8]] = [
            "utf32le.txt": [0xFF, 0xFE, 0x00, 0x00] + text.unicodeScalars.flatMap { s in (0..<4).map { UInt8(truncatingIfNeeded: s.value >> (8 * $0)) } },
            "utf32be.txt": [0x00, 0x00, 0xFE, 0xFF] + text.unicodeScalars.flatMap { s in (0..<4).reversed().map { UInt8(truncatingIfNeeded: s.value >> (8 * $0)) } },
            "utf16le.txt": [0xFF, 0xFE] + text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] },
        ]
        for (name, bytes) in files { try Data(bytes).write(to: folder.path("in/\(name)")) }
        let documents = try #require(try run(in: folder, layouts: [ArticleLayout(name: "one")], thumbnails: []).manifest?.documents)
        #expect(documents.count == 3)
        let visible = text.unicodeScalars.filter { !$0.properties.isWhitespace }.count
        for document in documents {
            #expect(document.status == .ok, "\(document.source): \(String(describing: document.error))")
            #expect(document.sourceCharacters == visible && document.setCharacters == visible, "\(document.source)")
            #expect(!document.warnings.contains { $0.contains("U+FFFD") || $0.contains("no installed font") }, "\(document.source): \(document.warnings)")
        }
    }

    /// A character no usable font has (private use, U+F8FF and U+10FFFD), met where fontconfig
    /// offers a font HarfBuzz cannot open (a Type 1 font claiming both), is a missing-glyph box
    /// and a warning, never a failed article; a `font_family` that is not installed, or whose
    /// font has no usable glyphs, is a warning naming the font used. Before, the article
    /// failed as font-missing ("the font ... has no glyphs") and an unknown family said nothing.
    /// The run's warnings say each substituted family once.
    @Test func characterAndFontProblemsAreWarningsNotFailures() throws {
        let folder = try ScratchFolder("characters")
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        try "<p>Apple \u{F8FF} logo and \u{10FFFD} in a sentence.</p>".write(to: folder.path("in/private-use.html"), atomically: true, encoding: .utf8)
        var unknown = ArticleLayout(name: "unknown")
        unknown.base.fontFamily = "NoSuchFont"
        var unusable = ArticleLayout(name: "unusable")
        unusable.base.fontFamily = Fixtures.noGlyphsFontFamily
        let known = ArticleLayout(name: "known")
        let summary = try run(in: folder, layouts: [unknown, unusable, known], thumbnails: [], fontFolders: [Fixtures.noGlyphsFontFolder.path])
        let document = try #require(summary.manifest?.documents.first)
        #expect(document.status == .ok, "\(String(describing: document.error))")
        #expect(Set(document.pages.compactMap(\.layout)) == ["unknown", "unusable", "known"])
        let warnings = document.warnings
        #expect(warnings.contains { $0.contains("U+10FFFD") && $0.contains("show as boxes") }, "\(warnings)")
        for (layout, family) in [("unknown", "NoSuchFont"), ("unusable", Fixtures.noGlyphsFontFamily)] {
            let said = warnings.first { $0.hasPrefix("layout \(layout): font_family \"\(family)\"") }
            let used = said?.firstMatch(of: /is set in (.+?);/)?.1
            #expect(used != nil && used.map(String.init) != family, "\(warnings)")
        }
        #expect(!warnings.contains { $0.hasPrefix("layout known:") }, "an installed family is not warned about")
        // The run says it once per layout too, for a log read without the manifest.
        #expect(summary.warnings.filter { $0.contains("font_family") }.map { $0.prefix { $0 != ":" } } == ["layout unknown", "layout unusable"],
                "\(summary.warnings)")
    }

    @Test func textWithoutADictionaryOrALanguageIsSetUnhyphenatedWithAWarningAndAGuessedLanguageIsSaid() throws {
        let folder = try ScratchFolder("hyphenation")
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        let words = String(repeating: "onafhankelijkheidsverklaring ", count: 40)
        // Too short for its language to be guessed from its letters (LanguageGuesser.minimumSample).
        let few = String(repeating: "onafhankelijkheidsverklaring ", count: 12)
        let german = String(repeating: "Die Silbentrennung ist ein wesentlicher Bestandteil des Schriftsatzes, besonders bei "
            + "schmalen Spalten und im Blocksatz, wo lange Wörter sonst große Lücken zwischen den Wörtern hinterlassen. ", count: 3)
        let articles = ["dutch.html": "<p lang=\"nl\">\(words)</p>", "unknown.html": "<p>\(few)</p>",
                        "japanese.html": "<p lang=\"ja\">日本語の文章です。\(words)</p>", "german.html": "<p>\(german)</p>"]
        for (name, markup) in articles {
            try markup.write(to: folder.path("in/\(name)"), atomically: true, encoding: .utf8)
        }
        // Two columns: every word fits its line (one wider than the column is cut with a
        // hyphen as the last resort, EmergencyBreakTests), so any hyphen is the dictionary's.
        var layout = ArticleLayout(name: "narrow")
        layout.columns = 2
        layout.base.hyphens = .auto
        let documents = try #require(try run(in: folder, layouts: [layout], thumbnails: []).manifest?.documents)
        func document(_ source: String) throws -> Manifest.Document { try #require(documents.first { $0.source == source }) }
        #expect(documents.allSatisfy { $0.status == .ok })
        #expect(try document("dutch.html").warnings.contains { $0.contains("no hyphenation dictionary for nl") })
        #expect(try document("unknown.html").warnings.contains { $0.contains("some text has no language") })
        #expect(try document("japanese.html").warnings.isEmpty, "Japanese is written without hyphens")
        for source in ["dutch.html", "unknown.html"] {
            #expect(try document(source).pages.reduce(0) { $0 + ($1.hyphenatedLineCount ?? 0) } == 0)
        }
        // Enough German prose without a lang: read as German, said so, and hyphenated.
        #expect(try document("german.html").warnings.contains { $0.contains("the text reads as de") })
        #expect(try document("german.html").pages.reduce(0) { $0 + ($1.hyphenatedLineCount ?? 0) } > 0)
    }

    @Test func everyArticleIsTypesetInEveryLayoutAndItsColumnsTileTheText() throws {
        let (_, summary) = try Self.corpusRun.get()
        let manifest = try #require(summary.manifest)
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")) == [])
        let articles = manifest.documents.filter { !$0.source.hasPrefix("broken-") }
        #expect(articles.count == Fixtures.articles.count)
        for document in articles {
            #expect(document.kind.rawValue == "markup")
            #expect(document.status == .ok, "\(document.source): \(document.error?.description ?? "")")
            let length = try #require(document.textLength)
            #expect(length > 0)
            #expect(document.layouts?.map(\.name) == Self.layouts.map(\.name))
            for layout in Self.layouts {
                let pages = document.pages.filter { $0.layout == layout.name }
                #expect(pages.count == document.layouts?.first { $0.name == layout.name }?.pageCount)
                #expect(pages.map(\.number) == Array(1...max(1, pages.count)))
                var next = 0
                // The vertical notes declare writing-mode in their markup, which wins over the layout.
                let mode = document.source == "ja-vertical.html" ? WritingMode.verticalRL : layout.writingMode
                for page in pages {
                    #expect(page.widthPt == layout.pageWidth && page.heightPt == layout.pageHeight)
                    #expect(page.writingMode == mode.rawValue, "\(document.source) \(layout.name) page \(page.number)")
                    let columns = try #require(page.columns)
                    // The layout's columns, and bands across the text area for blocks that span
                    // them (the feature's headline and pull quote), each inside the text area.
                    #expect(!columns.isEmpty)
                    #expect(columns.allSatisfy { $0.rect.width <= layout.pageWidth - layout.inset.left - layout.inset.right + 0.001 })
                    #expect(page.lineCount == columns.reduce(0) { $0 + $1.lineCount })
                    for column in columns {
                        #expect(column.textRange[0] == next, "\(document.source) \(layout.name) page \(page.number): gap or overlap at \(next)")
                        next = column.textRange[1]
                        #expect(column.rect.x >= 0 && column.rect.x + column.rect.width <= layout.pageWidth + 0.001)
                        #expect(column.rect.y >= 0 && column.rect.y + column.rect.height <= layout.pageHeight + 0.001)
                    }
                    let image = try #require(page.image)
                    #expect(image.path == String(format: "%@/%@/page-%04d.png", document.name, layout.name, page.number))
                    #expect(FileManager.default.fileExists(atPath: summary.outputFolder.appendingPathComponent(image.path).path))
                    #expect(page.thumbnails.first?.path == String(format: "%@/%@/thumbs/96/page-%04d.png", document.name, layout.name, page.number))
                }
                #expect(next == length, "\(document.source) \(layout.name): columns end at \(next) of \(length)")
            }
        }
    }

    @Test func articlesWithNoTextOrBinaryContentFailWithAReasonAndTheOthersComplete() throws {
        let folder = try ScratchFolder()
        let summary = try run(in: folder, layouts: [Self.layouts[0]])
        let manifest = try #require(summary.manifest)
        #expect(summary.outcome == .someFailed)
        let broken = manifest.documents.filter { $0.source.hasPrefix("broken-") }
        #expect(broken.count == 3)
        for document in broken {
            #expect(document.status == .failed)
            let expected = document.source == "broken-binary.html" ? "not-text" : "no-text"
            #expect(document.error?.code.rawValue == expected, "\(document.source): \(String(describing: document.error))")
        }
        #expect(manifest.totals.ok == Fixtures.articles.count)
    }

    /// A book with the characters that once aborted the whole run inside libunibreak (U+FFFF,
    /// flags), terminal escapes and invalid UTF-8 is typeset; beside it a binary file fails
    /// with its code, and the other articles complete.
    @Test func textThatAbortedTheLineBreakerNoLongerStopsTheBatch() throws {
        let folder = try ScratchFolder()
        let input = folder.path("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for name in ["malformed.html", "ja-sjis.html"] {
            try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent(name), to: input.appendingPathComponent(name))
        }
        var bytes = Array(try Data(contentsOf: Fixtures.articlesFolder.appendingPathComponent("plain-book.txt")).prefix(6000))
        let inserted: [[UInt8]] = [[0xEF, 0xBF, 0xBF], Array("\u{1B}[31m".utf8), [0xC3, 0x28], Array("🇩🇪🇫🇷".utf8), [0xED, 0xA0, 0x80], [0xC2, 0x9B]]
        for (i, piece) in inserted.enumerated().reversed() { bytes.insert(contentsOf: piece, at: 500 + i * 800) }
        try Data(bytes).write(to: input.appendingPathComponent("mutated-book.txt"))
        try Data(Array("binary\0\0\0data".utf8)).write(to: input.appendingPathComponent("binary.txt"))

        let summary = try run(in: folder, layouts: [Self.layouts[1]])
        #expect(summary.outcome == .someFailed)
        let manifest = try #require(summary.manifest)
        #expect(manifest.documents.count == 4)
        let documents = Dictionary(uniqueKeysWithValues: manifest.documents.map { ($0.source, $0) })
        let book = try #require(documents["mutated-book.txt"])
        #expect(book.status == .ok, "\(String(describing: book.error))")
        #expect(!book.pages.isEmpty)
        #expect(book.warnings.contains { $0.contains("U+FFFD") }, "\(book.warnings)")
        #expect(documents["binary.txt"]?.error?.code == .notText)
        #expect(documents["malformed.html"]?.status == .ok && documents["ja-sjis.html"]?.status == .ok)
    }

    @Test func outputIsIdenticalWhateverTheWorkerCount() throws {
        // One worker against the shared run's three, over the same inputs.
        let (folder, parallel) = try Self.corpusRun.get()
        let serial = try run(in: folder, output: "serial", workers: 1)
        var a = try #require(serial.manifest), b = try #require(parallel.manifest)
        a.run = b.run
        #expect(a == b)
        for page in a.documents.flatMap(\.pages) {
            for path in [page.image?.path].compactMap({ $0 }) + page.thumbnails.map(\.path) {
                let x = try Data(contentsOf: serial.outputFolder.appendingPathComponent(path))
                let y = try Data(contentsOf: parallel.outputFolder.appendingPathComponent(path))
                #expect(x == y, "\(path)")
            }
        }
    }

    @Test func aLayoutRemovedFromTheConfigurationLeavesNoPagesBehind() throws {
        // One article is enough to see a layout's pages go.
        let folder = try ScratchFolder()
        _ = try folder.copy([Fixtures.articlesFolder.appendingPathComponent("magazine.html")], into: "in")
        try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent("images"), to: folder.path("in/images"))
        _ = try run(in: folder, layouts: Array(Self.layouts.prefix(2)))
        let out = folder.path("out")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("magazine/two/page-0001.png").path))
        _ = try run(in: folder, layouts: [Self.layouts[0]])
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("magazine/one/page-0001.png").path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("magazine/two/page-0001.png").path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("magazine/two/thumbs/96/page-0001.png").path))
    }

    @Test func anArticleLeavesOtherDocumentsInItsFolderAlone() throws {
        let folder = try ScratchFolder("neighbours")
        try FileManager.default.createDirectory(at: folder.path("in/a"), withIntermediateDirectories: true)
        try "<p>An article named a.</p>".write(to: folder.path("in/a.html"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: Fixtures.pdf("cropped.pdf"), to: folder.path("in/a/b.pdf"))
        for _ in 0..<2 {
            let manifest = try #require(try run(in: folder, layouts: [Self.layouts[0]]).manifest)
            #expect(manifest.documents.map(\.name) == ["a", "a/b"])
            for page in manifest.documents.flatMap(\.pages) {
                for path in [page.image?.path].compactMap({ $0 }) + page.thumbnails.map(\.path) {
                    #expect(FileManager.default.fileExists(atPath: folder.path("out/\(path)").path), "\(path) was removed")
                }
            }
        }
    }

    @Test func pagesShowTextAndNoMissingGlyphBoxes() throws {
        let (_, summary) = try Self.corpusRun.get()
        let manifest = try #require(summary.manifest)
        #expect(manifest.documents.filter { $0.status == .ok }.count == Fixtures.articles.count)
        for document in manifest.documents where document.status == .ok {
            #expect(!document.warnings.contains { $0.contains("no installed font") }, "\(document.source): \(document.warnings)")
            let first = try #require(document.pages.first { $0.layout == Self.layouts[0].name }?.image)
            let bitmap = try Bitmap(pngData: Array(try Data(contentsOf: summary.outputFolder.appendingPathComponent(first.path))))
            #expect(ImageProperties.inkCoverage(bitmap) > 0.01, "\(document.source): page 1 looks blank")
            #expect(ImageProperties.blackRows(bitmap) == 0)
        }
    }
}

extension ArticlePipelineTests {
    @Test func aVerticalLayoutSetsArticlesInBandsUnlessTheirMarkupSaysOtherwise() throws {
        let folder = try ScratchFolder("vertical")
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        let japanese = String(repeating: "縦書きの文章は上から下へ、右から左へと進む。", count: 60)
        try "<p lang=ja>\(japanese)</p>".write(to: folder.path("in/tate.html"), atomically: true, encoding: .utf8)
        try "<body style='writing-mode: horizontal-tb'><p lang=ja>\(japanese)</p></body>"
            .write(to: folder.path("in/yoko.html"), atomically: true, encoding: .utf8)
        var layout = ArticleLayout(name: "bands")
        layout.writingMode = .verticalRL
        layout.columns = 2
        let summary = try run(in: folder, layouts: [layout], thumbnails: [])
        let documents = try #require(summary.manifest?.documents)
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")) == [])
        let tate = try #require(documents.first { $0.source == "tate.html" })
        let yoko = try #require(documents.first { $0.source == "yoko.html" })
        #expect(tate.pages.allSatisfy { $0.writingMode == "vertical-rl" })
        #expect(yoko.pages.allSatisfy { $0.writingMode == "horizontal-tb" })
        // Bands start at the text area's right edge (lines run right to left), as deep as
        // balancing the article's only page made them, and stack down the page; the horizontal
        // article has the same page in two side-by-side columns.
        let bands = try #require(tate.pages.first?.columns)
        #expect(bands.count == 2 && bands.allSatisfy { abs($0.rect.x + $0.rect.width - (595 - 54)) < 0.001 && $0.rect.width <= 595 - 108 + 0.001 })
        #expect(abs(bands[0].rect.width - bands[1].rect.width) < 0.001)
        #expect(bands[1].rect.y > bands[0].rect.y + bands[0].rect.height)
        let columns = try #require(yoko.pages.first?.columns)
        #expect(columns.count == 2 && columns[1].rect.x > columns[0].rect.x + columns[0].rect.width)
        for document in [tate, yoko] {
            let ranges = document.pages.flatMap { $0.columns ?? [] }.map(\.textRange)
            #expect(ranges.first?[0] == 0 && ranges.last?[1] == document.textLength)
            #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0[1] == $1[0] })
        }
    }

    @Test func aMissingFontFolderIsAConfigurationError() throws {
        let folder = try ScratchFolder()
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["."]
        configuration.fontFolders = ["no-such-fonts"]
        let error = #expect(throws: ConfigurationError.self) {
            try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
        }
        #expect(error?.key == "fonts")
        #expect(error?.message.contains("no-such-fonts") == true)
    }

    /// The manifest lists the pieces of tables on each page; `galley typeset --json` lists
    /// their cells too, each inside its piece, each cell's text inside its column's.
    @Test func theManifestReportsTablesAndTypesetTheirCellsAndTheirText() throws {
        let folder = try ScratchFolder("tables")
        try FileManager.default.copyItem(at: Fixtures.repositoryRoot.appendingPathComponent("fixtures/tables"), to: folder.path("in"))
        let layouts = Array(Self.layouts.dropFirst())
        let summary = try run(in: folder, layouts: layouts, thumbnails: [])
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")) == [])
        let documents = try #require(summary.manifest?.documents)
        var configuration = Configuration()
        configuration.layouts = layouts
        let fonts = try configuration.fontLibrary()
        for document in documents {
            #expect(document.status == .ok)
            let measured = try TypesetMeasurement.measure(file: folder.path("in").appendingPathComponent(document.source),
                                                          configuration: configuration, fonts: fonts, render: false)
            for layout in layouts {
                let pages = document.pages.filter { $0.layout == layout.name }
                let typesetTables = try #require(measured.layouts.first { $0.name == layout.name }).tables ?? []
                var next = 0
                var repeated = 0
                for page in pages {
                    let columns = try #require(page.columns)
                    for column in columns {
                        #expect(column.textRange[0] == next)
                        next = column.textRange[1]
                    }
                    let listed = typesetTables.filter { $0.page == page.number }
                    #expect(listed.map(\.rect) == (page.tables ?? []).map(\.rect), "the manifest's tables are the typesetter's")
                    for table in page.tables ?? [] { #expect(table.cells == nil, "cells are not in the manifest") }
                    for table in listed {
                        let column = columns[table.column]
                        // The piece inside its column, each cell inside the piece, each
                        // counted cell's text inside the column's.
                        #expect(table.rect.x >= column.rect.x - 0.01 && table.rect.x + table.rect.width <= column.rect.x + column.rect.width + 0.01)
                        #expect(table.rect.y >= column.rect.y - 0.01 && table.rect.y + table.rect.height <= column.rect.y + column.rect.height + 0.01)
                        for cell in try #require(table.cells) {
                            #expect(cell.rect.x >= table.rect.x - 0.01 && cell.rect.x + cell.rect.width <= table.rect.x + table.rect.width + 0.01)
                            if cell.repeatedHeader {
                                repeated += 1
                            } else if cell.textRange[0] < cell.textRange[1] {
                                #expect(cell.textRange[0] >= column.textRange[0] && cell.textRange[1] <= column.textRange[1])
                            }
                        }
                    }
                }
                #expect(next == document.textLength, "\(document.source) in \(layout.name): the columns tile the text")
                if document.source == "long-table.html" { #expect(repeated > 0, "the header row is repeated after breaks") }
            }
        }
        let long = try #require(documents.first { $0.source == "long-table.html" })
        // The table nested in a cell is a grid of its own, reported with its parent.
        #expect(!long.warnings.contains { $0.contains("set as paragraphs in their cells") }, "\(long.warnings)")
        let longTables = try TypesetMeasurement.measure(file: folder.path("in/long-table.html"), configuration: configuration, fonts: fonts,
                                                        render: false).layouts.flatMap { $0.tables ?? [] }
        #expect(longTables.contains { $0.parent == 0 && $0.cells?.count == 2 })
        #expect(long.warnings.contains { $0.contains("% of its font size") })
    }
    @Test func theManifestReportsBoxesByColumnOpenWhereTheyGoOn() throws {
        let folder = try ScratchFolder("boxes")
        let words = String(repeating: "Words in a box that goes on from one column into the next. ", count: 100)
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        try Data("<p>Before.</p><div style='border: 1px solid #c00; background-color: #eef'>\(words)</div><p>After.</p>".utf8)
            .write(to: folder.path("in/boxed.html"))
        let summary = try run(in: folder, layouts: [Self.layouts[1]], thumbnails: [])
        #expect(try ManifestSchema.violations(of: summary.outputFolder.appendingPathComponent("manifest.json")) == [])
        let pages = try #require(summary.manifest?.documents.first?.pages)
        let pieces = pages.flatMap { page in (page.boxes ?? []).map { (page, $0) } }
        #expect(pieces.count >= 2 && pieces.allSatisfy { $0.1.box == 0 })
        #expect(pieces.first?.1.starts == true && pieces.first?.1.ends == false)
        #expect(pieces.last?.1.starts == false && pieces.last?.1.ends == true)
        for (page, piece) in pieces {
            let column = try #require(page.columns?[piece.column])
            #expect(piece.rect.x >= column.rect.x - 0.01 && piece.rect.y >= column.rect.y - 0.01
                    && piece.rect.y + piece.rect.height <= column.rect.y + column.rect.height + 0.01)
        }
    }
}
