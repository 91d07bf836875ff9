import Foundation
import GalleyBase
import GalleyManifest
import GalleyPDF
import GalleyRaster
import GalleyText

/// What typesetting one article in each configured layout costs: pages, lines, and seconds
/// spent typesetting and (optionally) drawing the page images, without PNG encoding or
/// writing. Used by `galley typeset` and the typesetter benchmark.
public struct TypesetMeasurement: Codable, Sendable {
    public var source: String
    public var textLength: Int
    public var layouts: [Layout]
    /// What the parser said of the article (as the manifest's warnings say it), when any.
    public var warnings: [String]?

    public struct Layout: Codable, Sendable {
        public var name: String
        public var pages: Int
        public var lines: Int
        public var justifiedLines: Int
        public var hyphenatedLines: Int
        public var looseLines: Int
        /// Sum of the lines' badness (`LineBox.badness`): lower is more even spacing.
        public var badness: Double
        /// Time spent parsing and typesetting (one thread does it all).
        public var typesetSeconds: Double
        /// Time spent drawing every page at the configured dpi, summed over the drawing
        /// threads; 0 when not asked for.
        public var renderSeconds: Double
        /// Wall time for the layout from parsing to the last page drawn.
        public var wallSeconds: Double
        /// Every line, when asked for (`galley typeset --lines`).
        public var lineDetails: [Line]?
        /// Pieces of tables, page by page, each with its page; absent when the article has none.
        public var tables: [Manifest.TableFrame]?
        /// Pieces of blocks' boxes, page by page, each with its page; absent when the article
        /// has none.
        public var boxes: [Manifest.BoxFrame]?
        /// Floated pictures, page by page, each with its page; absent when the article has
        /// none.
        public var floats: [Manifest.AttachmentFrame]?
        /// Floated blocks, page by page, each with its page; absent when the article has none.
        public var floatedBlocks: [Manifest.FloatedBlockFrame]?
        /// The columns of multi-column elements, page by page, each with its page; absent
        /// when the article has none.
        public var multicolColumns: [Manifest.Column]?
        /// Seconds spent drawing the pages into the PDF and writing it (`--pdf`); nil without.
        public var pdfSeconds: Double?
        /// The margin boxes set on the pages (`@page` margin boxes, the layout's folio and
        /// running head), with `--lines`; absent when none.
        public var marginBoxes: [MarginBox]?
    }

    /// One line as set: where it is, what it holds and how it was spread.
    /// A margin box set on a page, with `--lines`.
    public struct MarginBox: Codable, Sendable {
        /// The page (1-based) and its number as printed.
        public var page: Int
        public var label: String?
        /// `top-center`, `bottom-right`, … (CSS Paged Media's margin boxes).
        public var position: String
        public var text: String
        /// The box's first line and its baseline, on the page.
        public var rect: Manifest.Rect
        public var baseline: Double
    }

    public struct Line: Codable, Sendable {
        /// 1-based page, 0-based column.
        public var page: Int
        public var column: Int
        /// `[start, end)` in Unicode scalars of the article's text.
        public var textRange: [Int]
        /// The block element its paragraph is in, as `tag.class` (`p`, `h2`, `pre.literal-block`).
        public var element: String
        public var justified: Bool
        public var hyphenated: Bool
        public var loose: Bool
        public var wrappedPreformatted: Bool
        /// Points along the line, justification included.
        public var width: Double
        /// The line's box on the page (along the line its glyphs, across it its height), its
        /// baseline (a y; the x of the central baseline in vertical text) and the largest font
        /// size on it: lines of one column whose baselines are closer than about their text's
        /// size print over one another.
        public var rect: Manifest.Rect
        public var baseline: Double
        public var size: Double
        /// Punctuation set in another face than the letters of its own style run on both
        /// sides (`<b>bold</b>,` with a bold comma).
        public var punctuationInAnotherFace: Int
        /// Justified at its spaces: each space's growth (positive) or shrink (negative) as a
        /// fraction of the line's average space.
        public var spaceRatio: Double?
        /// Justified between ideographs: points added at each gap.
        public var clusterGap: Double?
        /// Justified with its spaces at their limit: points added between letters.
        public var letterGap: Double?
        /// How far its spaces stretch, or would have had to stretch to make it flush (loose
        /// lines): 0 flush, 100 at the stretch limit, at most 10,000; 0 for a last line and for
        /// lines not meant to be flush (code, headings, start-aligned lines short of the threshold).
        public var badness: Double
        public var text: String
    }

    /// Typesets `file` in every layout of `configuration`, page by page, drawing each page at
    /// `configuration.dpi` when `render` is true.
    ///
    /// With `jobs` 1 everything happens on the calling thread, one page after the other. With
    /// more, the calling thread typesets while `jobs` threads draw the pages it has finished,
    /// as `galley run` does; at most `2 × jobs` pages wait to be drawn.
    ///
    /// `frames` false leaves out the pieces of tables, boxes and floats (for figures alone: a
    /// table of 100,000 rows lists a million cells).
    public static func measure(file: URL, configuration: Configuration, fonts: FontLibrary, render: Bool,
                               jobs: Int = 1, lines listLines: Bool = false, frames: Bool = true,
                               pdf pdfPath: ((_ layout: String) -> String)? = nil,
                               document given: SourceDocument? = nil) throws -> TypesetMeasurement {
        let document = given ?? SourceDocument(url: file, input: file.path, relativePath: file.lastPathComponent, kind: .markup, name: "")
        var result = TypesetMeasurement(source: file.path, textLength: 0, layouts: [])
        // Pictures decoded once, from the article's folder, as a run with that folder as input does.
        let engine = try MuPDFEngine()
        let clock = ContinuousClock()
        // The article is read, checked and parsed for the first layout as `galley run` does;
        // that parse (reused by layouts of the same base style) counts as the first layout's.
        let parseStarted = clock.now
        let article = try OpenedArticle(document: document, configuration: configuration, engine: engine)
        var parseSeconds = seconds(clock.now - parseStarted)
        result.textLength = article.first.text.count
        if !article.warnings.isEmpty { result.warnings = article.warnings }
        let drawer = PageDrawer(scale: configuration.pageScale, jobs: render ? max(1, jobs) : 0)
        for configured in configuration.layouts {
            var typesetSeconds = parseSeconds
            var pages = 0, lines = 0, justified = 0, hyphenated = 0, loose = 0, badness = 0.0
            var details: [Line] = []
            var tables: [Manifest.TableFrame] = []
            var boxes: [Manifest.BoxFrame] = []
            var floats: [Manifest.AttachmentFrame] = []
            var floatedBlocks: [Manifest.FloatedBlockFrame] = []
            var multicolColumns: [Manifest.Column] = []
            var marginBoxes: [MarginBox] = []
            let layoutStarted = clock.now - .seconds(parseSeconds)
            var started = clock.now
            var (parsed, layout) = article.prepared(for: configured)
            layout.typography.countsPunctuationFaces = listLines
            parseSeconds = 0
            let typesetter = try ArticleTypesetter(text: parsed.text, layout: layout, fonts: fonts, images: article.images)
            typesetSeconds += seconds(clock.now - started)
            // The PDF is written as the pages come, as a run's document writers are fed.
            var metadata = DocumentMetadata(article: parsed, sourcePath: file.path)
            // No other article: links to other files are URIs relative to this one.
            metadata.links = DocumentLinks(source: file, name: "", articles: [:])
            let pdf = pdfPath.map { _ in PDFDocumentFormat().makeWriter(text: parsed.text, layout: layout, metadata: metadata) }
            var pdfSeconds = 0.0
            func collectFrames(of page: TypesetPage) {
                tables += Manifest.tables(of: page, cells: true).map { table in
                    var table = table
                    table.page = page.number
                    return table
                }
                boxes += Manifest.boxes(of: page).map { box in
                    var box = box
                    box.page = page.number
                    return box
                }
                floats += page.attachments.filter { $0.float != nil }.map { float in
                    let r = float.rect
                    return Manifest.AttachmentFrame(page: page.number, column: float.column,
                                                    rect: Manifest.Rect(x: manifestPoints(r.x), y: manifestPoints(r.y),
                                                                        width: manifestPoints(r.width), height: manifestPoints(r.height)),
                                                    offset: float.offset, source: float.source, float: float.float?.rawValue)
                }
                floatedBlocks += Manifest.floatedBlocks(of: page).map { block in
                    var block = block
                    block.page = page.number
                    return block
                }
                multicolColumns += page.columns.compactMap { column in
                    column.multicol.map { element in
                        let r = column.rect
                        return Manifest.Column(page: page.number, rect: Manifest.Rect(x: manifestPoints(r.x), y: manifestPoints(r.y),
                                                                                      width: manifestPoints(r.width), height: manifestPoints(r.height)),
                                               textRange: [column.range.lowerBound, column.range.upperBound], lineCount: column.lines.count,
                                               multicol: element)
                    }
                }
            }
            while true {
                started = clock.now
                guard let page = try typesetter.nextPage() else { break }
                typesetSeconds += seconds(clock.now - started)
                pages += 1
                lines += page.lineCount
                justified += page.justifiedLineCount
                hyphenated += page.hyphenatedLineCount
                loose += page.looseLineCount
                badness += page.totalBadness
                if listLines {
                    details += Self.lines(of: page, text: parsed.text, vertical: layout.writingMode.isVertical)
                    marginBoxes += page.marginBoxes.compactMap { box in
                        box.lines.first.map { line in
                            MarginBox(page: page.number, label: page.label, position: box.position.rawValue, text: box.text,
                                      rect: Manifest.Rect(x: manifestPoints(line.rect.x), y: manifestPoints(line.rect.y),
                                                          width: manifestPoints(line.rect.width), height: manifestPoints(line.rect.height)),
                                      baseline: manifestPoints(line.baseline))
                        }
                    }
                }
                if frames { collectFrames(of: page) }
                try drawer.draw(page)
                if let pdf {
                    started = clock.now
                    try pdf.add(page)
                    pdfSeconds += seconds(clock.now - started)
                }
            }
            let renderSeconds = try drawer.finish()
            if let pdf, let path = pdfPath?(layout.name) {
                started = clock.now
                let bytes = try pdf.finish()
                try AtomicFile.write(bytes, to: path, through: path + ".galley-tmp")
                pdfSeconds += seconds(clock.now - started)
            }
            result.layouts.append(Layout(name: layout.name, pages: pages, lines: lines, justifiedLines: justified,
                                         hyphenatedLines: hyphenated, looseLines: loose, badness: badness, typesetSeconds: typesetSeconds,
                                         renderSeconds: renderSeconds, wallSeconds: seconds(clock.now - layoutStarted),
                                         lineDetails: listLines ? details : nil, tables: tables.isEmpty ? nil : tables,
                                         boxes: boxes.isEmpty ? nil : boxes, floats: floats.isEmpty ? nil : floats,
                                         floatedBlocks: floatedBlocks.isEmpty ? nil : floatedBlocks,
                                         multicolColumns: multicolColumns.isEmpty ? nil : multicolColumns,
                                         pdfSeconds: pdfPath == nil ? nil : pdfSeconds,
                                         marginBoxes: marginBoxes.isEmpty ? nil : marginBoxes))
        }
        return result
    }

    /// The lines of a page, for `--lines`.
    static func lines(of page: TypesetPage, text: AttributedText, vertical: Bool) -> [Line] {
        page.columns.enumerated().flatMap { index, column in
            column.lines.map { line in
                let paragraph = text.paragraphs[text.paragraphIndex(at: line.range.lowerBound)].value
                var characters = String.UnicodeScalarView()
                characters.append(contentsOf: text.scalars[line.range])
                return Line(page: page.number, column: index, textRange: [line.range.lowerBound, line.range.upperBound],
                            element: paragraph.element, justified: line.isJustified, hyphenated: line.isHyphenated, loose: line.isLoose,
                            wrappedPreformatted: line.isWrappedPreformatted,
                            width: manifestPoints(vertical ? line.rect.height : line.rect.width),
                            rect: Manifest.Rect(x: manifestPoints(line.rect.x), y: manifestPoints(line.rect.y),
                                                width: manifestPoints(line.rect.width), height: manifestPoints(line.rect.height)),
                            baseline: manifestPoints(line.baseline), size: manifestPoints(line.textSize),
                            punctuationInAnotherFace: line.punctuationInAnotherFace,
                            spaceRatio: line.spaceRatio.map { ($0 * 1000).rounded() / 1000 }, clusterGap: line.clusterGap.map(manifestPoints),
                            letterGap: line.letterGap.map { ($0 * 1000).rounded() / 1000 }, badness: (line.badness * 10).rounded() / 10, text: String(characters))
            }
        }
    }

    fileprivate static func seconds(_ duration: Duration) -> Double {
        duration.seconds
    }
}

/// Draws typeset pages into reused bitmaps, on the calling thread (`jobs` 1) or on a queue of
/// `jobs` threads, and adds up the time spent. `jobs` 0 draws nothing.
private final class PageDrawer: Sendable {
    private let scale: Double
    private let jobs: Int
    private let queue: OperationQueue?
    /// Pages waiting or being drawn; the producer waits when there are `2 × jobs`.
    private let slots: DispatchSemaphore
    private struct State {
        /// Bitmaps not in use, so pages of the same size reuse memory as a streaming renderer would.
        var spare: [Bitmap] = []
        var seconds = 0.0
        var error: (any Error)?
    }
    private let state = Mutex(State())

    init(scale: Double, jobs: Int) {
        self.scale = scale
        self.jobs = jobs
        slots = DispatchSemaphore(value: max(1, 2 * jobs))
        if jobs > 1 {
            let queue = OperationQueue()
            queue.name = "galley.typeset.draw"
            queue.maxConcurrentOperationCount = jobs
            self.queue = queue
        } else {
            queue = nil
        }
    }

    func draw(_ page: TypesetPage) throws {
        guard jobs > 0 else { return }
        guard let queue else { return try drawNow(page) }
        if let error = state.withLock({ $0.error }) { throw error }
        slots.wait()
        queue.addOperation { [self] in
            defer { slots.signal() }
            do {
                try drawNow(page)
            } catch {
                state.withLock { if $0.error == nil { $0.error = error } }
            }
        }
    }

    /// Waits for the pages handed over so far; returns the drawing time since the last call.
    func finish() throws -> Double {
        queue?.waitUntilAllOperationsAreFinished()
        return try state.withLock { state in
            if let error = state.error { throw error }
            defer { state.seconds = 0 }
            return state.seconds
        }
    }

    private func drawNow(_ page: TypesetPage) throws {
        let clock = ContinuousClock()
        let started = clock.now
        let rect = page.pixelBounds(scale: scale)
        let spare = state.withLock { state -> Bitmap? in
            guard let index = state.spare.firstIndex(where: { $0.width == rect.width && $0.height == rect.height }) else { return nil }
            return state.spare.remove(at: index)
        }
        let bitmap = try spare ?? Bitmap(width: rect.width, height: rect.height)
        try page.draw(into: bitmap, rect: rect, scale: scale, cancellation: Cancellation())
        let elapsed = TypesetMeasurement.seconds(clock.now - started)
        state.withLock { state in
            state.seconds += elapsed
            state.spare.append(bitmap)
        }
    }
}
