import GalleyRaster

/// A rectangle in points, top-left origin, y down (page coordinates).
public struct Rect: Hashable, Sendable, Codable {
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
    public var maxX: Double { x + width }
    public var maxY: Double { y + height }
}

/// A line as laid out: its text range, box and baseline, in page coordinates.
public struct LineBox: Hashable, Sendable {
    /// Global text offsets, trailing spaces and separators included, so lines tile the text.
    public var range: Range<Int>
    /// The line's box: along the line it covers the visible glyphs, across it the line
    /// height.
    public var rect: Rect
    /// The baseline: a y in horizontal text, the x of the central baseline in vertical text.
    public var baseline: Double
    /// The largest font size of the line's text (points): lines whose baselines are much
    /// closer than this print over one another.
    public var textSize = 0.0
    /// Punctuation set in another face than the letters of its style run on both sides (a
    /// bold comma after bold text), counted when `Typography.countsPunctuationFaces` asks.
    public var punctuationInAnotherFace = 0
    /// Spread to the measure (flush at both edges).
    public var isJustified = false
    /// Ends in a hyphen (soft or automatic).
    public var isHyphenated = false
    /// Should have been justified but its spaces would have stretched too far, so left ragged.
    public var isLoose = false
    /// Preformatted text going on from a line wrapped at the measure (indented to show it).
    public var isWrappedPreformatted = false
    /// For a line justified at its spaces: how much each space grew (positive) or shrank
    /// (negative), as a fraction of the line's average space (0.5: spaces 1.5 times as wide).
    public var spaceRatio: Double?
    /// For a line justified between its characters (ideographs): points added at each gap.
    public var clusterGap: Double?
    /// For a justified line whose spaces were at their limit: points added between letters
    /// (`Typography.maximumLetterSpacing`).
    public var letterGap: Double?
    /// How far its spaces stretch, or would have to stretch to make it flush: 0 flush, 100 at
    /// the stretch limit, at most 10,000; 0 for the last line of a paragraph and for lines not
    /// meant to be flush (code, headings, start-aligned lines short of the threshold).
    public var badness = 0.0
}

/// One column of a page (Core Text's `CTFrame`) and the text that filled it.
public struct ColumnFrame: Hashable, Sendable {
    public var rect: Rect
    /// Global offsets of the text placed in this column (`CTFrameGetVisibleStringRange`).
    public var range: Range<Int>
    public var lines: [LineBox]
    /// Pieces of tables set in the column, with their cells.
    public var tables: [TableFrame] = []
    /// Pieces of blocks' boxes drawn in the column, in the order they are painted: those of the
    /// flow, enclosing boxes first, then those of floated blocks (CSS 2.1 Appendix E).
    public var boxes: [BoxFrame] = []
    /// Blocks floated to a side of the column, in text order.
    public var floats: [FloatFrame] = []
    /// For a column of a multi-column element (CSS `columns` on a block, not the page's), the
    /// element's number among the article's multi-column elements (0-based, document order).
    public var multicol: Int?
}

/// A floated block (`FloatedBlock`) placed in a column: for the manifest and tests.
public struct FloatFrame: Hashable, Sendable {
    /// The block's index among the article's floated blocks (`AttributedText.floats`).
    public var block: Int
    public var side: FloatSide
    /// Its rectangle on the page (margin box, without the gap kept around floats).
    public var rect: Rect
    /// Global offsets of its text, all set here.
    public var range: Range<Int>
}

/// A piece of a block's box (`TextBox`) in a column: for the manifest and tests.
public struct BoxFrame: Hashable, Sendable {
    /// The box's index among the article's boxes (`AttributedText.boxes`).
    public var box: Int
    /// The piece's border box, on the page.
    public var rect: Rect
    /// Whether the box begins here, and ends here; a piece that does not is open on that
    /// side (no border there): the box goes on from the column before, or into the next.
    public var startsHere: Bool
    public var endsHere: Bool
}

/// Where an attachment's box landed.
public struct AttachmentFrame: Hashable, Sendable {
    /// Index of the column on the page.
    public var column: Int
    public var rect: Rect
    /// Offset of the attachment's U+FFFC in the text.
    public var offset: Int
    public var source: String
    /// The side of the column a floated picture is set at; nil for a picture in its line.
    public var float: FloatSide?
}

/// How a glyph stands on the page.
public enum GlyphOrientation: Sendable, Hashable {
    /// In a horizontal line.
    case horizontal
    /// Upright in a vertical line, placed by vertical metrics.
    case upright
    /// In a vertical line, turned a quarter turn clockwise with its run (Latin, digits).
    case sideways
}

/// Glyphs of one face, size, colour and orientation, at page positions (points; the
/// glyph's horizontal origin: x at the pen, y at the baseline in horizontal text).
struct GlyphRun: Sendable {
    var face: FontFace
    var size: Double
    var color: RGBColor
    var orientation: GlyphOrientation = .horizontal
    var glyphs: [UInt32]
    var positions: [(x: Double, y: Double)]
    /// Each glyph's cluster: the global offset of the first character it shows, or
    /// `insertedHyphen`; empty for glyphs that show no text of the article (a continuation
    /// marker). What the PDF writer maps glyphs to text with.
    var clusters: [Int] = []
    /// The global offsets of the text the glyphs show (its clusters' characters).
    var text: Range<Int> = 0..<0
    /// The target of the link (`<a href>`) the run is in.
    var link: String?
    /// The text `clusters` and `text` index when it is not the article's: a margin box's
    /// (a folio, a running head), set from a text of its own.
    var ownText: [Unicode.Scalar]?
    /// What it is cut to (`overflow: hidden`), and its layer (`TypesetPage.layers`).
    var clip: Rect?
    var layer = 0

    /// The cluster of a hyphen added where a line breaks inside a word: it shows a "-".
    static let insertedHyphen = -1
}

/// A filled rectangle: underline, strikethrough, rule, attachment placeholder.
struct FilledRect: Sendable {
    var rect: Rect
    var color: RGBColor
    /// Painted to whole pixels, as a browser paints boxes: table cells' backgrounds, so two
    /// cells sharing an edge leave no seam of what lies below (partial coverage on both sides
    /// of a shared pixel lets the table's colour through), and blocks' backgrounds and borders.
    /// Along a side thinner than a pixel at the scale drawn (a hairline border in a thumbnail)
    /// it keeps its partial coverage, which keeps a thin line's weight, as rules and
    /// underlines always do.
    var snapsToPixels = false
    /// What it is cut to (`overflow: hidden`), and its layer (`TypesetPage.layers`).
    var clip: Rect?
    var layer = 0
    /// A picture tiled over the rectangle instead of the colour (a box's `background-image`).
    var tile: Tile?

    /// A picture repeated from the rectangle's top left corner, each copy `width` x `height`
    /// points, across and down as far as the rectangle goes, or once each way.
    struct Tile: Sendable {
        var image: RasterImage
        var width: Double
        var height: Double
        var repeatsAcross: Bool
        var repeatsDown: Bool

        /// Where the copies go over `rect`.
        func copies(over rect: Rect) -> [Rect] {
            guard width > 0, height > 0 else { return [] }
            var copies: [Rect] = []
            var y = rect.y
            repeat {
                var x = rect.x
                repeat {
                    copies.append(Rect(x: x, y: y, width: width, height: height))
                    x += width
                } while repeatsAcross && x < rect.maxX
                y += height
            } while repeatsDown && y < rect.maxY
            return copies
        }
    }

    /// The same fill over `rect`.
    func moved(to rect: Rect) -> FilledRect {
        var moved = self
        moved.rect = rect
        return moved
    }
}

/// A typeset page: glyph runs and boxes in points, drawable at any scale.
///
/// Immutable once made, so any number of threads may draw it at once (faces and the glyph
/// cache they share are thread-safe).
public struct TypesetPage: PageSource {
    public let size: PageSize
    /// 1-based number within its layout.
    public let number: Int
    public let background: RGBColor
    /// How lines run: vertical pages have bands for columns.
    public let writingMode: WritingMode
    public let columns: [ColumnFrame]
    public let attachments: [AttachmentFrame]
    let glyphRuns: [GlyphRun]
    let rects: [FilledRect]
    /// Pictures of the attachments that have one, in text order.
    let images: [PlacedImage]
    /// The drawing lists cut into layers, drawn one after the other (each its rects, pictures,
    /// then glyphs): the flow, then positioned boxes (CSS 2.1 Appendix E).
    let layers: [Layer]
    struct Layer: Sendable {
        var runs: Range<Int>
        var rects: Range<Int>
        var images: Range<Int>
    }
    let glyphCache: GlyphCache
    /// Times a break rule (widows, orphans, `break-after: avoid`, `break-inside: avoid`)
    /// yielded on this page because keeping it would have left a column empty.
    public let breakExceptionCount: Int
    /// The margin boxes set on the page (`@page` margin boxes, the layout's folio and running
    /// head), their lines drawn with the page's other lines.
    public internal(set) var marginBoxes: [MarginBoxFrame] = []
    /// The page's number as printed (`counter(page)`), when the article or the layout dresses
    /// its pages (`PagedMedia`); nil otherwise.
    public internal(set) var label: String?
    /// A page left blank so that the next starts on the side `break-before: left | right`
    /// asks for.
    public internal(set) var isBlank = false

    init(size: PageSize, number: Int, background: RGBColor, writingMode: WritingMode, columns: [ColumnFrame], attachments: [AttachmentFrame],
         glyphRuns: [GlyphRun], rects: [FilledRect], images: [PlacedImage], glyphCache: GlyphCache, breakExceptionCount: Int = 0) {
        self.size = size
        self.number = number
        self.background = background
        self.writingMode = writingMode
        self.columns = columns
        self.attachments = attachments
        // Layers in order, each list's items kept in their order within a layer: under the
        // flow (-1), the flow (0), over it (1, 2, … as positioned blocks nest); one layer when
        // nothing is positioned.
        // (Every page is built here: the common page, with nothing positioned, is told by one
        // pass over its lists, without building the set of layers.)
        let layered = glyphRuns.contains { $0.layer != 0 } || rects.contains { $0.layer != 0 } || images.contains { $0.layer != 0 }
        let levels = !layered ? [0] : Array(Set([0] + glyphRuns.map(\.layer) + rects.map(\.layer) + images.map(\.layer))).sorted()
        let (runs, runLayers) = Self.layered(glyphRuns, \.layer, levels)
        let (filled, rectLayers) = Self.layered(rects, \.layer, levels)
        let (pictures, imageLayers) = Self.layered(images, \.layer, levels)
        self.glyphRuns = runs
        self.rects = filled
        self.images = pictures
        layers = levels.indices.map { Layer(runs: runLayers[$0], rects: rectLayers[$0], images: imageLayers[$0]) }
        self.glyphCache = glyphCache
        self.breakExceptionCount = breakExceptionCount
    }

    /// `items` ordered by layer (stable), with the range of each of `levels` (ascending);
    /// nothing is copied when there is one level.
    private static func layered<Item>(_ items: [Item], _ layer: KeyPath<Item, Int>, _ levels: [Int]) -> ([Item], [Range<Int>]) {
        guard levels.count > 1 else { return (items, [items.indices]) }
        var sorted: [Item] = []
        var ranges: [Range<Int>] = []
        for level in levels {
            let start = sorted.count
            sorted += items.filter { $0[keyPath: layer] == level }
            ranges.append(start..<sorted.count)
        }
        return (sorted, ranges)
    }

    /// Text offsets placed on this page.
    public var range: Range<Int> {
        (columns.first?.range.lowerBound ?? 0)..<(columns.last?.range.upperBound ?? 0)
    }

    public var lineCount: Int { columns.reduce(0) { $0 + $1.lines.count } }
    public var justifiedLineCount: Int { columns.reduce(0) { $0 + $1.lines.count(where: \.isJustified) } }
    public var hyphenatedLineCount: Int { columns.reduce(0) { $0 + $1.lines.count(where: \.isHyphenated) } }
    public var totalBadness: Double { columns.reduce(0) { $0 + $1.lines.reduce(0) { $0 + $1.badness } } }
    public var looseLineCount: Int { columns.reduce(0) { $0 + $1.lines.count(where: \.isLoose) } }
    public var wrappedPreformattedLineCount: Int { columns.reduce(0) { $0 + $1.lines.count(where: \.isWrappedPreformatted) } }

    /// Every glyph with its face, size, orientation and page position (its horizontal
    /// origin), for tests and inspection.
    public var placedGlyphs: [(face: FontFace, size: Double, glyph: UInt32, x: Double, y: Double, orientation: GlyphOrientation)] {
        glyphRuns.flatMap { run in
            zip(run.glyphs, run.positions).map { (run.face, run.size, $0, $1.x, $1.y, run.orientation) }
        }
    }

    public func pixelBounds(scale: Double) -> PixelRect {
        // The rounding MuPDF applies to page bounds, so a typeset page and a PDF page of the
        // same size in points get the same pixel size.
        let width = max(1, Int((size.width * scale - 0.001).rounded(.up)))
        let height = max(1, Int((size.height * scale - 0.001).rounded(.up)))
        return PixelRect(x: 0, y: 0, width: width, height: height)
    }
}
