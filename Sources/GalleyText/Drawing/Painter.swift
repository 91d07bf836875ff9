import GalleyRaster

extension TypesetPage {
    /// Draws the part of the page inside `rect` (pixels at `scale`) into `bitmap`: background,
    /// rules and boxes, then pictures resampled to their frames, then glyphs rasterized by
    /// FreeType (through the shared glyph cache) and blended in their colour. Pictures come
    /// before glyphs so text that overhangs a picture (an italic, a negative margin) stays
    /// readable, and after rects (rules, underlines, placeholders), which never lie under a
    /// picture's frame but must not cover it if a style pushes them there.
    ///
    /// Glyph x positions are kept to a quarter pixel and baselines snapped to whole pixels, so
    /// the same page description gives the page image and every thumbnail.
    public func draw(into bitmap: Bitmap, rect: PixelRect, scale: Double, cancellation: Cancellation) throws {
        precondition(bitmap.width == rect.width && bitmap.height == rect.height, "bitmap and rectangle differ in size")
        guard !cancellation.isCancelled else { throw TypesetError(.cancelled, "drawing was cancelled") }
        bitmap.fill(r: background.r, g: background.g, b: background.b)
        let canvas = Canvas(bitmap: bitmap, originX: rect.x, originY: rect.y)
        // Per bitmap row, the first column from which the row still shows only the background.
        // Glyphs of a line come left to right, so most glyph rows start past everything drawn
        // before them and are copied from the glyph's stamp without reading the page.
        // Rows that rules, boxes and pictures reach count as drawn all the way across.
        var untouched = [Int](repeating: 0, count: bitmap.height)
        for layer in layers {
            for filled in rects[layer.rects] {
                if let tile = filled.tile {
                    // Each copy resampled like a picture, cut to the box (and its clip).
                    let area = filled.clip.map { filled.rect.intersection($0) } ?? filled.rect
                    for copy in tile.copies(over: filled.rect) {
                        let (x0, y0, x1, y1) = Self.snapped(copy, scale: scale)
                        canvas.clipped(to: area, scale: scale).draw(tile.image, x0: x0, y0: y0, x1: x1, y1: y1)
                    }
                    canvas.markDrawn(y0: filled.rect.y * scale, y1: filled.rect.maxY * scale, in: &untouched)
                    continue
                }
                let (x0, y0, x1, y1) = filled.snapsToPixels ? Self.snapped(filled.rect, scale: scale)
                    : (filled.rect.x * scale, filled.rect.y * scale, filled.rect.maxX * scale, filled.rect.maxY * scale)
                canvas.clipped(to: filled.clip, scale: scale).fill(x0: x0, y0: y0, x1: x1, y1: y1, color: filled.color)
                canvas.markDrawn(y0: filled.rect.y * scale, y1: filled.rect.maxY * scale, in: &untouched)
            }
            for placed in images[layer.images] {
                guard !cancellation.isCancelled else { throw TypesetError(.cancelled, "drawing was cancelled") }
                // To whole pixels, as a browser places a picture, where it is a pixel or more each way.
                let (x0, y0, x1, y1) = Self.snapped(placed.rect, scale: scale)
                canvas.clipped(to: placed.clip, scale: scale).draw(placed.image, x0: x0, y0: y0, x1: x1, y1: y1)
                canvas.markDrawn(y0: placed.rect.y * scale, y1: placed.rect.maxY * scale, in: &untouched)
            }
            try untouched.withUnsafeMutableBufferPointer { untouched in
                try drawGlyphs(glyphRuns[layer.runs], on: canvas, height: bitmap.height, rect: rect, scale: scale, untouched: untouched,
                               cancellation: cancellation)
            }
        }
    }

    /// `rect` in pixels at `scale`, its edges rounded to whole pixels along each side that is
    /// a pixel or more long (less than one by a rounding error counts: 0.75 pt at 96 dpi); a
    /// thinner side keeps its partial coverage, and so its weight.
    static func snapped(_ rect: Rect, scale: Double) -> (x0: Double, y0: Double, x1: Double, y1: Double) {
        var (x0, y0, x1, y1) = (rect.x * scale, rect.y * scale, rect.maxX * scale, rect.maxY * scale)
        if x1 - x0 > 0.999 { (x0, x1) = (x0.rounded(), x1.rounded()) }
        if y1 - y0 > 0.999 { (y0, y1) = (y0.rounded(), y1.rounded()) }
        return (x0, y0, x1, y1)
    }

    /// Blends every glyph run in its colour, in order (see `draw(into:rect:scale:cancellation:)`).
    private func drawGlyphs(_ glyphRuns: ArraySlice<GlyphRun>, on canvas: Canvas, height: Int, rect: PixelRect, scale: Double,
                            untouched: UnsafeMutableBufferPointer<Int>, cancellation: Cancellation) throws {
        let steps = Double(GlyphCache.subpixelSteps)
        // An ink (a 256-entry table) and its memo of glyphs are made once per colour, however
        // often runs switch between colours (link, text, link), and handed to the next drawing.
        var memos = glyphCache.takeMemos()
        var used: [GlyphCache.InkKey: GlyphCache.Memo] = [:]
        func memo(_ color: RGBColor) -> GlyphCache.Memo {
            let key = GlyphCache.InkKey(color: color, background: background)
            return used.removeValue(forKey: key) ?? memos.byInk.removeValue(forKey: key) ?? GlyphCache.Memo(ink: Ink(color: color, background: background))
        }
        var glyphs = memo(glyphRuns.first?.color ?? .black)
        defer {
            used[GlyphCache.InkKey(color: glyphs.ink.color, background: background)] = glyphs
            // Only the inks this drawing used go on (`GlyphCache.keep`).
            memos.byInk = used
            glyphCache.keep(memos)
        }
        for run in glyphRuns {
            guard !cancellation.isCancelled else { throw TypesetError(.cancelled, "drawing was cancelled") }
            if run.color != glyphs.ink.color {
                used[GlyphCache.InkKey(color: glyphs.ink.color, background: background)] = glyphs
                glyphs = memo(run.color)
            }
            let pixelsPerEm = run.size * scale
            let size64 = GlyphCache.size64(pixelsPerEm: pixelsPerEm)
            // No glyph reaches further from its baseline than a few ems.
            let reach = Int(pixelsPerEm * 3) + 2
            let sideways = run.orientation == .sideways
            let ink = glyphs.ink
            let canvas = canvas.clipped(to: run.clip, scale: scale)
            ink.withBlender { blender in
                for (glyph, position) in zip(run.glyphs, run.positions) {
                    // Across the line whole pixels, along it quarter pixels: a sideways glyph's
                    // line runs down the page.
                    let (along, across) = sideways ? (position.y * scale - Double(rect.y), position.x * scale - Double(rect.x))
                                                   : (position.x * scale - Double(rect.x), position.y * scale - Double(rect.y))
                    let fixed = Int(across.rounded())
                    let whole = along.rounded(.down)
                    let (x, y) = sideways ? (fixed, Int(whole)) : (Int(whole), fixed)
                    guard y + reach >= 0, y - reach < height else { continue }
                    let subpixel = min(GlyphCache.subpixelSteps - 1, Int(((along - whole) * steps).rounded(.down)))
                    let sprite = glyphs.sprite(face: run.face, glyph: glyph, size64: size64, subpixel: subpixel, sideways: sideways,
                                               in: glyphCache)
                    canvas.blend(sprite, x: x + sprite.left, y: y - sprite.top, blender: blender, untouched: untouched)
                }
            }
        }
    }
}

/// A bitmap seen from page pixel space: drawing operations clip to it, and to `bounds`.
struct Canvas {
    let bitmap: Bitmap
    let originX: Int
    let originY: Int
    /// The part of the bitmap drawn on (bitmap pixels, ends excluded): all of it unless cut
    /// (`clipped(to:scale:)`).
    var bounds: (x0: Int, y0: Int, x1: Int, y1: Int)

    init(bitmap: Bitmap, originX: Int, originY: Int) {
        self.bitmap = bitmap
        self.originX = originX
        self.originY = originY
        bounds = (0, 0, bitmap.width, bitmap.height)
    }

    /// The canvas cut to `clip` (page points at `scale`), rounded out to whole pixels; itself
    /// when `clip` is nil.
    func clipped(to clip: Rect?, scale: Double) -> Canvas {
        guard let clip else { return self }
        var canvas = self
        canvas.bounds = (max(bounds.x0, Int((clip.x * scale).rounded()) - originX), max(bounds.y0, Int((clip.y * scale).rounded()) - originY),
                         min(bounds.x1, Int((clip.maxX * scale).rounded()) - originX), min(bounds.y1, Int((clip.maxY * scale).rounded()) - originY))
        canvas.bounds.x1 = max(canvas.bounds.x0, canvas.bounds.x1)
        canvas.bounds.y1 = max(canvas.bounds.y0, canvas.bounds.y1)
        return canvas
    }

    /// Blends a glyph with `blender`'s ink (the one its sprite's stamp is in), top-left
    /// corner at (x, y) in bitmap pixels, clipped to the bitmap.
    /// `untouched[row]`: the first column from which the row shows only the background (see
    /// `TypesetPage.draw`); kept up to date.
    ///
    /// Each row's extent is copied from the stamp where the row is untouched, and blended onto
    /// what is drawn before that column (all of it without a stamp); zero coverage leaves a
    /// pixel as it is, so the whole extent may be blended.
    func blend(_ sprite: GlyphSprite, x: Int, y: Int, blender: Ink.Blender, untouched: UnsafeMutableBufferPointer<Int>) {
        let width = bounds.x1, height = bounds.y1
        guard let coverage = sprite.coverage, x < width, y < height, y + Int(sprite.rows.last?.row ?? 0) >= 0,
              let base = bitmap.pixels.baseAddress?.assumingMemoryBound(to: UInt8.self),
              let untouched = untouched.baseAddress else { return }
        let rowBytes = bitmap.rowBytes
        for extent in sprite.rows {
            let row = y &+ Int(extent.row)
            guard row >= bounds.y0, row < height else { continue }
            let left = x &+ Int(extent.start)
            let start = max(left, bounds.x0), end = min(x &+ Int(extent.end), width)
            guard start < end else { continue }
            // Column c of the row is pixel `source + c` of `coverage`, 3 × that of the stamp.
            let source = Int(extent.offset) &- left
            let target = base + row &* rowBytes
            let u = untouched[row]
            guard let stamp = sprite.stamp else {
                // No stamp in this ink: blended all the way, which gives the stamp's bytes.
                blender.blend(coverage: coverage + (source &+ start), into: target + start &* 3, count: end &- start)
                untouched[row] = max(u, end)
                continue
            }
            if start >= u {
                Self.copy(stamp + (source &+ start) &* 3, to: target + start &* 3, count: (end &- start) &* 3)
                untouched[row] = end
                continue
            }
            let split = min(u, end)
            blender.blend(coverage: coverage + (source &+ start), into: target + start &* 3, count: split &- start)
            if split < end { Self.copy(stamp + (source &+ split) &* 3, to: target + split &* 3, count: (end &- split) &* 3) }
            untouched[row] = max(u, end)
        }
    }

    /// Copies `count` bytes between buffers that do not overlap. A glyph row is a few dozen
    /// bytes, where a call to `memcpy` costs more than the copy: this copies in 16-, 8- or
    /// 4-byte pieces, the last piece overlapping the one before it.
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(target)
        if count >= 16 {
            var offset = 0
            while offset &+ 16 <= count {
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self), toByteOffset: offset, as: SIMD16<UInt8>.self)
                offset &+= 16
            }
            if offset < count {
                let last = count &- 16
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: last, as: SIMD16<UInt8>.self), toByteOffset: last, as: SIMD16<UInt8>.self)
            }
        } else if count >= 8 {
            to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self), toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 {
            to.storeBytes(of: from.loadUnaligned(as: UInt32.self), as: UInt32.self)
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self), toByteOffset: count &- 4, as: UInt32.self)
        } else {
            for i in 0..<count { target[i] = source[i] }
        }
    }

    /// Records that rows from `y0` to `y1` (page pixels) may be drawn on all the way across.
    func markDrawn(y0: Double, y1: Double, in untouched: inout [Int]) {
        // One row more on each side than any drawing operation reaches.
        let first = max(0, Int((y0 - Double(originY)).rounded(.down)) - 1)
        let last = min(bitmap.height, Int((y1 - Double(originY)).rounded(.up)) + 1)
        guard first < last else { return }
        for row in first..<last { untouched[row] = bitmap.width }
    }

    /// Fills a rectangle given in page pixels, with partial coverage at its edges so thin
    /// rules keep their weight at any scale.
    func fill(x0: Double, y0: Double, x1: Double, y1: Double, color: RGBColor) {
        let left = x0 - Double(originX), right = x1 - Double(originX)
        let top = y0 - Double(originY), bottom = y1 - Double(originY)
        guard right > left, bottom > top else { return }
        let columnStart = max(bounds.x0, Int(left.rounded(.down))), columnEnd = min(bounds.x1, Int(right.rounded(.up)))
        let rowStart = max(bounds.y0, Int(top.rounded(.down))), rowEnd = min(bounds.y1, Int(bottom.rounded(.up)))
        guard columnStart < columnEnd, rowStart < rowEnd else { return }
        let pixels = bitmap.pixels.bindMemory(to: UInt8.self)
        let columnCoverages = (columnStart..<columnEnd).map { column in min(right, Double(column + 1)) - max(left, Double(column)) }
        for row in rowStart..<rowEnd {
            let rowCoverage = min(bottom, Double(row + 1)) - max(top, Double(row))
            for column in columnStart..<columnEnd {
                let columnCoverage = columnCoverages[column - columnStart]
                let a = UInt32((max(0, min(1, rowCoverage * columnCoverage)) * 255).rounded())
                guard a > 0 else { continue }
                let offset = row * bitmap.rowBytes + column * 3
                if a == 255 { pixels[offset] = color.r; pixels[offset + 1] = color.g; pixels[offset + 2] = color.b; continue }
                pixels[offset] = Ink.sourceOver(pixels[offset], color.r, a)
                pixels[offset + 1] = Ink.sourceOver(pixels[offset + 1], color.g, a)
                pixels[offset + 2] = Ink.sourceOver(pixels[offset + 2], color.b, a)
            }
        }
    }
}
