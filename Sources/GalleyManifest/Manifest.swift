import Foundation
import GalleyBase
import GalleyRaster

/// `manifest.json`: what a run produced, described by `schemas/manifest.schema.json`.
///
/// Keys are written sorted and in snake case; documents and pages are in scan order. Two runs
/// over the same input and settings give the same bytes everywhere except in `run`.
public struct Manifest: Codable, Sendable, Equatable {
    public var schemaVersion = 1
    public var settings: Settings
    public var totals: Totals
    public var documents: [Document]
    /// Present when the run processed one shard of its documents (`--shard K/N`): what
    /// `galley merge` needs to put the shards back together.
    public var shard: ShardInfo?
    /// Facts about this run (timings, versions, workers): the only part that differs between
    /// two runs of the same input.
    public var run: Run

    public struct Settings: Codable, Sendable, Equatable {
        public var dpi: Double
        public var pageImages: Bool
        public var thumbnails: [Int]
        public var png: String
        /// The format of page images, and of thumbnails (`thumbnail_format`, else the same).
        public var format: String?
        public var thumbnailFormat: String?
        /// The quality of the lossy formats configured; absent when both are PNG.
        public var quality: Int?
        /// The page selection (`PageSelection.description`); nil when every page is drawn.
        public var pages: String?
        public var maxPages: Int?

        public init(dpi: Double, pageImages: Bool, thumbnails: [Int], png: String, format: String? = nil,
                    thumbnailFormat: String? = nil, quality: Int? = nil, pages: String? = nil, maxPages: Int? = nil) {
            self.dpi = dpi
            self.pageImages = pageImages
            self.thumbnails = thumbnails
            self.png = png
            self.format = format
            self.thumbnailFormat = thumbnailFormat
            self.quality = quality
            self.pages = pages
            self.maxPages = maxPages
        }
    }

    public struct ShardInfo: Codable, Sendable, Equatable {
        /// 1-based.
        public var index: Int
        public var count: Int
        /// The configured inputs, in order: documents are ordered by input, then path.
        public var inputs: [String]
        /// For a shard of a plan (`galley run --plan`): the plan file's SHA-256, so shards of
        /// different plans are not merged.
        public var plan: String?
        /// Where this shard saw each input's root, and where the plan was made: the merged
        /// catalog names files as the planning machine sees them.
        public var roots: [String]?
        public var planRoots: [String]?
        /// How many documents the plan left to the library it was made against (`galley merge
        /// --into LIBRARY` keeps them); absent when none.
        public var library: Int?

        public init(index: Int, count: Int, inputs: [String], plan: String? = nil, roots: [String]? = nil, planRoots: [String]? = nil,
                    library: Int? = nil) {
            self.library = library
            self.index = index
            self.count = count
            self.inputs = inputs
            self.plan = plan
            self.roots = roots
            self.planRoots = planRoots
        }
    }

    public struct Totals: Codable, Sendable, Equatable {
        public var documents: Int
        public var ok: Int
        public var failed: Int
        public var unchanged: Int
        public var pages: Int

        public init(documents: Int, ok: Int, failed: Int, unchanged: Int, pages: Int) {
            self.documents = documents
            self.ok = ok
            self.failed = failed
            self.unchanged = unchanged
            self.pages = pages
        }
    }

    public struct Run: Codable, Sendable, Equatable {
        public var galleyVersion: String
        public var mupdfVersion: String
        public var startedAt: String
        public var durationSeconds: Double
        public var workers: Workers
        public var maxPagesInFlight: Int
        /// The folder the documents' `input` paths are relative to (the configuration file's,
        /// or the current folder for inputs given on the command line), relative to the output
        /// folder: `..` for a pipeline.yml beside the output folder, `../docs` for
        /// `docs/pipeline.yml` and an output folder at the repository's root. `galley diff
        /// --text` finds PDF sources through it. Absent from manifests of earlier versions.
        public var inputsFolder: String?

        public init(galleyVersion: String, mupdfVersion: String, startedAt: String, durationSeconds: Double, workers: Workers,
                    maxPagesInFlight: Int, inputsFolder: String? = nil) {
            self.galleyVersion = galleyVersion
            self.mupdfVersion = mupdfVersion
            self.startedAt = startedAt
            self.durationSeconds = durationSeconds
            self.workers = workers
            self.maxPagesInFlight = maxPagesInFlight
            self.inputsFolder = inputsFolder
        }
    }

    public struct Workers: Codable, Sendable, Equatable {
        public var open: Int
        public var render: Int
        public var thumbnails: Int
        public var encode: Int

        public init(open: Int, render: Int, thumbnails: Int, encode: Int) {
            self.open = open
            self.render = render
            self.thumbnails = thumbnails
            self.encode = encode
        }
    }

    public enum Status: String, Codable, Sendable {
        case ok, failed, unchanged
    }

    public struct Document: Codable, Sendable, Equatable {
        /// What kind of input a document is (`SourceDocument.Kind` in the pipeline).
        public enum Kind: String, Sendable, Codable {
            case pdf
            /// An HTML-like article or plain text, typeset once per layout.
            case markup
        }

        /// The document's folder under the output folder.
        public var name: String
        /// The input entry it was found through, as configured.
        public var input: String
        /// Its path relative to that input.
        public var source: String
        public var kind: Kind
        /// The document's title: a PDF's `info:Title`, an article's `<title>`, white space
        /// collapsed; absent when it has none (so documents without one keep the bytes they had).
        public var title: String?
        /// Its author: a PDF's `info:Author`, an article's `<meta name="author">`; absent when
        /// it has none.
        public var author: String?
        /// SHA-256 of the source file; absent when it could not be read.
        public var sha256: String?
        public var bytes: Int?
        public var status: Status
        public var error: Failure?
        public var warnings: [String]
        /// Pages in the document, when it could be opened.
        public var pageCount: Int?
        /// Articles: length of the text in Unicode scalars; the column ranges of each layout
        /// tile `0..<text_length`.
        public var textLength: Int?
        /// Articles: characters of text (not white space) read from the source, and those set
        /// on the pages (list markers included); a large difference is text lost.
        public var sourceCharacters: Int?
        public var setCharacters: Int?
        /// Articles: pages per layout, in configuration order.
        public var layouts: [LayoutPages]?
        /// Pages whose image and thumbnails were all written.
        public var pages: [Page]

        public init(name: String, input: String, source: String, kind: Kind, title: String? = nil, author: String? = nil,
                    sha256: String? = nil, bytes: Int? = nil, status: Status, error: Failure? = nil, warnings: [String],
                    pageCount: Int? = nil, textLength: Int? = nil, sourceCharacters: Int? = nil, setCharacters: Int? = nil,
                    layouts: [LayoutPages]? = nil, pages: [Page]) {
            self.name = name
            self.input = input
            self.source = source
            self.kind = kind
            self.title = title
            self.author = author
            self.sha256 = sha256
            self.bytes = bytes
            self.status = status
            self.error = error
            self.warnings = warnings
            self.pageCount = pageCount
            self.textLength = textLength
            self.sourceCharacters = sourceCharacters
            self.setCharacters = setCharacters
            self.layouts = layouts
            self.pages = pages
        }
    }

    public struct LayoutPages: Codable, Sendable, Equatable {
        public var name: String
        public var pageCount: Int
        /// The layout's document files (`documents:` in pipeline.yml), in configuration order;
        /// absent when none is configured.
        public var files: [DocumentFile]?

        public init(name: String, pageCount: Int, files: [DocumentFile]? = nil) {
            self.name = name
            self.pageCount = pageCount
            self.files = files
        }
    }

    /// A whole-document file written by a `DocumentWriter`.
    public struct DocumentFile: Codable, Sendable, Equatable {
        /// The format's name in pipeline.yml (`text`).
        public var format: String
        public var path: String
        public var sha256: String
        public var bytes: Int

        public init(format: String, path: String, sha256: String, bytes: Int) {
            self.format = format
            self.path = path
            self.sha256 = sha256
            self.bytes = bytes
        }
    }

    public struct Page: Codable, Sendable, Equatable {
        /// 1-based; for articles, within the page's layout.
        public var number: Int
        /// Articles whose pages are dressed (`@page` rules, `folio`, `running_head`,
        /// `break-before: left | right`): the page's number as printed (`counter(page)`, in the
        /// counter style the folio uses); absent otherwise.
        public var label: String? = nil
        public var widthPt: Double
        public var heightPt: Double
        public var rotation: Int
        /// The full-size image; absent when `page_images` is false.
        public var image: Image?
        public var thumbnails: [Thumbnail]
        /// Articles: the layout this page belongs to.
        public var layout: String?
        /// Articles: how lines run on the page, `horizontal-tb` or `vertical-rl` (the layout's
        /// `vertical`, or the markup's `writing-mode`).
        public var writingMode: String?
        /// Articles: the columns in filling order, with the text that filled each.
        public var columns: [Column]?
        /// Articles: lines on the page.
        public var lineCount: Int?
        /// Articles: lines spread flush to both edges of their column.
        public var justifiedLineCount: Int?
        /// Articles: lines ending in a hyphen (soft or automatic).
        public var hyphenatedLineCount: Int?
        /// Articles: lines that should have been justified but were left ragged because their
        /// spaces would have had to stretch too far.
        public var looseLineCount: Int?
        /// Articles: lines of preformatted text (`<pre>`) going on from a line wrapped at the
        /// measure, each indented to show it.
        public var wrappedPreformattedLineCount: Int?
        /// Articles: times a break rule (widows, orphans, a heading kept with its text,
        /// `break-inside: avoid`) yielded because keeping it would have left a column empty.
        public var breakExceptionCount: Int?
        /// Articles: inline images placed on the page.
        public var attachments: [AttachmentFrame]?
        /// Articles: pieces of tables set on the page, with their cells; absent when none.
        public var tables: [TableFrame]? = nil
        /// Articles: pieces of blocks' boxes (borders, backgrounds) drawn on the page; absent
        /// when none.
        public var boxes: [BoxFrame]? = nil
        /// Articles: blocks floated to a side of their column (`float` on a `div`, `aside`,
        /// `figure`); absent when none.
        public var floatedBlocks: [FloatedBlockFrame]? = nil

        public init(number: Int, label: String? = nil, widthPt: Double, heightPt: Double, rotation: Int, image: Image? = nil,
                    thumbnails: [Thumbnail], layout: String? = nil, writingMode: String? = nil, columns: [Column]? = nil,
                    lineCount: Int? = nil, justifiedLineCount: Int? = nil, hyphenatedLineCount: Int? = nil,
                    looseLineCount: Int? = nil, wrappedPreformattedLineCount: Int? = nil, breakExceptionCount: Int? = nil,
                    attachments: [AttachmentFrame]? = nil, tables: [TableFrame]? = nil, boxes: [BoxFrame]? = nil,
                    floatedBlocks: [FloatedBlockFrame]? = nil) {
            self.number = number
            self.label = label
            self.widthPt = widthPt
            self.heightPt = heightPt
            self.rotation = rotation
            self.image = image
            self.thumbnails = thumbnails
            self.layout = layout
            self.writingMode = writingMode
            self.columns = columns
            self.lineCount = lineCount
            self.justifiedLineCount = justifiedLineCount
            self.hyphenatedLineCount = hyphenatedLineCount
            self.looseLineCount = looseLineCount
            self.wrappedPreformattedLineCount = wrappedPreformattedLineCount
            self.breakExceptionCount = breakExceptionCount
            self.attachments = attachments
            self.tables = tables
            self.boxes = boxes
            self.floatedBlocks = floatedBlocks
        }
    }

    /// A rectangle in points, top-left origin of the page, y down.
    public struct Rect: Codable, Sendable, Equatable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double

        public init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    public struct Column: Codable, Sendable, Equatable {
        /// The page (1-based): in `galley typeset --json`, which lists a layout's columns of
        /// multi-column elements together; absent in the manifest, where the page holds them.
        public var page: Int? = nil
        public var rect: Rect
        /// `[start, end)` in Unicode scalars of the article's text.
        public var textRange: [Int]
        public var lineCount: Int
        /// For a column of a multi-column element (CSS `columns` on a block), the element's
        /// number among the article's (from 0, in document order); absent for the page's own.
        public var multicol: Int? = nil

        public init(page: Int? = nil, rect: Rect, textRange: [Int], lineCount: Int, multicol: Int? = nil) {
            self.page = page
            self.rect = rect
            self.textRange = textRange
            self.lineCount = lineCount
            self.multicol = multicol
        }
    }

    /// A piece of a table in one column: its box, its rows and its cells.
    public struct TableFrame: Codable, Sendable, Equatable {
        /// The page (1-based): in `galley typeset --json`, which lists a layout's tables
        /// together; absent in the manifest, where the page holds them.
        public var page: Int?
        /// Index of the column on the page (0-based).
        public var column: Int
        /// The table's number among all of the article's tables (0-based, document order,
        /// nested tables included: a table comes before the tables nested in its cells).
        public var table: Int
        /// For a table nested in another's cell, that table's number; absent at top level.
        public var parent: Int? = nil
        public var rect: Rect
        /// `[first, end)`: the rows whose text is set here (repeated header rows aside).
        public var rows: [Int]
        public var rowCount: Int
        public var columnCount: Int
        /// Font size as a fraction of the markup's (below 1 when set smaller to fit).
        public var scale: Double
        /// The cells set here: listed by `galley typeset --json`, absent in the manifest. A
        /// manifest holding them grew with a table's cells, not its pages: 530 MB of JSON, and
        /// 176 MB in the catalog, for a table of 100,000 rows, and each rerun read it back.
        public var cells: [Cell]? = nil

        public struct Cell: Codable, Sendable, Equatable {
            public var row: Int
            public var column: Int
            public var rowSpan: Int
            public var columnSpan: Int
            public var rect: Rect
            /// `[start, end)` in Unicode scalars: the text set in the cell here.
            public var textRange: [Int]
            /// A header row drawn again after a break; its text is counted where it was first set.
            public var repeatedHeader: Bool

            public init(row: Int, column: Int, rowSpan: Int, columnSpan: Int, rect: Rect, textRange: [Int], repeatedHeader: Bool) {
                self.row = row
                self.column = column
                self.rowSpan = rowSpan
                self.columnSpan = columnSpan
                self.rect = rect
                self.textRange = textRange
                self.repeatedHeader = repeatedHeader
            }
        }

        public init(page: Int? = nil, column: Int, table: Int, parent: Int? = nil, rect: Rect, rows: [Int], rowCount: Int,
                    columnCount: Int, scale: Double, cells: [Cell]? = nil) {
            self.page = page
            self.column = column
            self.table = table
            self.parent = parent
            self.rect = rect
            self.rows = rows
            self.rowCount = rowCount
            self.columnCount = columnCount
            self.scale = scale
            self.cells = cells
        }
    }

    /// A block floated to a side of its column, set whole there.
    public struct FloatedBlockFrame: Codable, Sendable, Equatable {
        /// The page (1-based): in `galley typeset --json`, which lists a layout's floated
        /// blocks together; absent in the manifest, where the page holds them.
        public var page: Int?
        /// Index of the column on the page (0-based).
        public var column: Int
        /// The block's index among the article's floated blocks (0-based, document order).
        public var block: Int
        /// `left` or `right`.
        public var float: String
        /// Its margin box (the space kept around floats not included).
        public var rect: Rect
        /// `[start, end)` in Unicode scalars: its text, all set here.
        public var textRange: [Int]

        public init(page: Int? = nil, column: Int, block: Int, float: String, rect: Rect, textRange: [Int]) {
            self.page = page
            self.column = column
            self.block = block
            self.float = float
            self.rect = rect
            self.textRange = textRange
        }
    }

    /// A piece of a block's box in one column.
    public struct BoxFrame: Codable, Sendable, Equatable {
        /// The page (1-based): in `galley typeset --json`, which lists a layout's boxes
        /// together; absent in the manifest, where the page holds them.
        public var page: Int?
        /// Index of the column on the page (0-based).
        public var column: Int
        /// The box's index among the article's boxes (0-based, document order, an enclosing
        /// box before the boxes inside it).
        public var box: Int
        /// The piece's border box.
        public var rect: Rect
        /// Whether the box begins, and ends, on this piece; where it does not, it goes on from
        /// the column before, or into the next, and is drawn open on that side.
        public var starts: Bool
        public var ends: Bool

        public init(page: Int? = nil, column: Int, box: Int, rect: Rect, starts: Bool, ends: Bool) {
            self.page = page
            self.column = column
            self.box = box
            self.rect = rect
            self.starts = starts
            self.ends = ends
        }
    }

    public struct AttachmentFrame: Codable, Sendable, Equatable {
        /// The page (1-based): in `galley typeset --json`, which lists a layout's floated
        /// pictures together; absent in the manifest, where the page holds them.
        public var page: Int?
        /// Index of the column on the page (0-based).
        public var column: Int
        public var rect: Rect
        /// Offset of the attachment in the text.
        public var offset: Int
        /// `src` as written in the markup.
        public var source: String
        /// `left` or `right` for a floated picture; absent for a picture in its line.
        public var float: String?

        public init(page: Int? = nil, column: Int, rect: Rect, offset: Int, source: String, float: String? = nil) {
            self.page = page
            self.column = column
            self.rect = rect
            self.offset = offset
            self.source = source
            self.float = float
        }
    }

    public struct Image: Codable, Sendable, Equatable {
        /// Relative to the output folder.
        public var path: String
        public var width: Int
        public var height: Int
        public var sha256: String
        public var bytes: Int
        /// The image format (`png`, `webp`, `jpeg`, `avif`).
        public var format: String

        public init(path: String, width: Int, height: Int, sha256: String, bytes: Int) {
            (self.path, self.width, self.height, self.sha256, self.bytes) = (path, width, height, sha256, bytes)
            format = Manifest.format(ofPath: path)
        }

        /// Reads an entry; one written before formats were recorded gets its path's.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            self.init(path: try values.decode(String.self, forKey: .path), width: try values.decode(Int.self, forKey: .width),
                      height: try values.decode(Int.self, forKey: .height), sha256: try values.decode(String.self, forKey: .sha256),
                      bytes: try values.decode(Int.self, forKey: .bytes))
            format = try values.decodeIfPresent(String.self, forKey: .format) ?? format
        }
    }

    public struct Thumbnail: Codable, Sendable, Equatable {
        public var box: Int
        public var path: String
        public var width: Int
        public var height: Int
        public var sha256: String
        public var bytes: Int
        /// The image format (`png`, `webp`, `jpeg`, `avif`).
        public var format: String

        public init(box: Int, path: String, width: Int, height: Int, sha256: String, bytes: Int) {
            (self.box, self.path, self.width, self.height, self.sha256, self.bytes) = (box, path, width, height, sha256, bytes)
            format = Manifest.format(ofPath: path)
        }

        /// Reads an entry; one written before formats were recorded gets its path's.
        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: CodingKeys.self)
            self.init(box: try values.decode(Int.self, forKey: .box), path: try values.decode(String.self, forKey: .path),
                      width: try values.decode(Int.self, forKey: .width), height: try values.decode(Int.self, forKey: .height),
                      sha256: try values.decode(String.self, forKey: .sha256), bytes: try values.decode(Int.self, forKey: .bytes))
            format = try values.decodeIfPresent(String.self, forKey: .format) ?? format
        }
    }

    /// The format of an output, from its file's extension (`jpg` → `jpeg`).
    static func format(ofPath path: String) -> String {
        let fileExtension = path.split(separator: ".").last.map(String.init) ?? ""
        return ImageFormat(fileExtension: fileExtension)?.rawValue ?? fileExtension
    }

    /// The manifest as JSON: sorted keys, snake case, two-space indentation, trailing newline.
    public func encoded() throws -> [UInt8] {
        Array(try Self.encoder(pretty: true).encode(self)) + [0x0A]
    }

    /// Reads a manifest written by `encoded()`.
    public static func decode(_ data: Data) throws -> Manifest {
        try decoder().decode(Manifest.self, from: data)
    }

    /// Galley's JSON, for the manifest and every other JSON it writes (the catalog's entries,
    /// `galley inspect --json`, `galley typeset --json`): sorted keys and snake case, indented
    /// when `pretty`, slashes of paths as they are.
    public static func encoder(pretty: Bool) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return encoder
    }

    /// Reads what `encoder(pretty:)` writes.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    public init(settings: Settings, totals: Totals, documents: [Document], shard: ShardInfo? = nil, run: Run) {
        self.settings = settings
        self.totals = totals
        self.documents = documents
        self.shard = shard
        self.run = run
    }
}

extension Manifest.Page {
    /// The files of the page: its image (when written) and its thumbnails, relative to the
    /// output folder.
    package var outputPaths: [String] {
        (image.map { [$0.path] } ?? []) + thumbnails.map(\.path)
    }
}

extension Manifest.Document {
    /// Every file the document's entry lists: its pages' images and thumbnails and its layouts'
    /// document files, relative to the output folder.
    package var outputPaths: [String] {
        pages.flatMap(\.outputPaths) + (layouts ?? []).flatMap { ($0.files ?? []).map(\.path) }
    }
}
