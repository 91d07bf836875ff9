import GalleyRaster
import GalleyText

/// Draws a page the way a run does (in bands, then a thumbnail at its own scale), bounded so
/// one input with an enormous page costs the fuzzer neither its memory nor its time.
enum PageDrawing {
    /// The largest part of a page drawn, from its top-left corner: every drawing path runs
    /// in it, and a page beyond it repeats them.
    static let window = 2048
    /// Pixels per band, as a run bands a page of more than `Pipeline.bandPixelLimit` pixels.
    static let bandPixels = 1 << 20
    /// The thumbnail box: a second, smaller scale.
    static let thumbnailBox = 48

    /// Draws `page` at `dpi` and as a thumbnail.
    static func draw(_ page: any PageSource, dpi: Double) throws {
        let cancellation = Cancellation()
        // A run's `Configuration.pageScale`; the fuzzer has no configuration.
        let scale = dpi / 72
        let bounds = page.pixelBounds(scale: scale)
        let width = min(bounds.width, window)
        let height = min(bounds.height, window)
        let bandHeight = max(1, bandPixels / width)
        var y = 0
        while y < height {
            let rows = min(bandHeight, height - y)
            let band = try Bitmap(width: width, height: rows)
            try page.draw(into: band, rect: PixelRect(x: bounds.x, y: bounds.y + y, width: width, height: rows),
                          scale: scale, cancellation: cancellation)
            y += rows
        }
        _ = try page.render(scale: page.thumbnailScale(box: thumbnailBox), cancellation: cancellation)
    }
}

extension PageDrawing {
    /// Typesets `parsed` in `layout` (in the markup's writing mode, as a run does) and draws
    /// each page at `dpi`, at most `pageLimit` pages: a short input may ask for a huge font
    /// and so for thousands of pages, each like the first. With `document`, the first
    /// `documentPages` of them are also written in that format, as `documents:` in a run writes
    /// them: the file's bytes and its page count are returned (nil when typesetting or writing
    /// failed, which `outcome` records).
    @discardableResult
    static func typeset(_ parsed: ParsedArticle, layout: ArticleLayout, fonts: FontLibrary, dpi: Double, pageLimit: Int,
                        document: (any DocumentFormat)? = nil, documentPages: Int = .max,
                        into outcome: inout FuzzOutcome) -> (bytes: [UInt8], pages: Int)? {
        var layout = layout
        if let mode = parsed.writingMode { layout.writingMode = mode }
        do {
            let typesetter = try ArticleTypesetter(text: parsed.text, layout: layout, fonts: fonts)
            let metadata = DocumentMetadata(title: parsed.title, author: parsed.author, language: parsed.language)
            let writer = document?.makeWriter(text: parsed.text, layout: layout, metadata: metadata)
            var made = 0
            while made < pageLimit, let page = try typesetter.nextPage() {
                try draw(page, dpi: dpi)
                if made < documentPages { try writer?.add(page) }
                made += 1
                outcome.pagesDrawn += 1
            }
            guard let writer else { return nil }
            return (try writer.finish(), min(made, documentPages))
        } catch {
            outcome.errors.append("\(error)")
            return nil
        }
    }
}
