import CFreeType
import CHarfBuzz
import GalleyBase

/// One font face (a file and an index in it): HarfBuzz for shaping and metrics, FreeType for
/// rasterizing glyphs.
///
/// Shaping and metrics go through an immutable `hb_font_t`, which HarfBuzz documents as safe
/// to use from many threads at once. FreeType faces are not: the rasterizer's `FT_Face` lives
/// inside a mutex and is only touched with it held (glyph images are cached, so the lock is
/// taken once per glyph, size and subpixel offset, not once per drawing).
public final class FontFace: @unchecked Sendable {
    /// A stable number for cache keys, assigned by the font library in order of first use.
    public let id: Int
    public let path: String
    public let index: Int
    /// The family name fontconfig reports (for warnings and inspection).
    public let family: String
    /// Font design units per em.
    public let unitsPerEm: Double
    /// Typographic metrics as fractions of the em: ascender (up, positive), descender (down,
    /// positive) and line gap.
    public let ascender: Double
    public let descender: Double
    public let lineGap: Double
    public let underlinePosition: Double
    public let underlineThickness: Double
    public let strikeoutPosition: Double

    /// Immutable after `init`; HarfBuzz fonts are thread-safe once immutable.
    let hbFont: OpaquePointer
    private let rasterizer = Mutex(RasterizerSlot())

    /// The FreeType face, opened on first use; a face FreeType cannot open is not tried
    /// again for every glyph (its glyphs draw empty).
    private struct RasterizerSlot: ~Copyable {
        var rasterizer: Rasterizer?
        var openFailed = false
    }

    init(id: Int, path: String, index: Int, family: String) throws(TypesetError) {
        let blob = hb_blob_create_from_file_or_fail(path)
        guard let blob else { throw TypesetError(.fontMissing, "cannot read the font file \(path)") }
        defer { hb_blob_destroy(blob) }
        let face = hb_face_create(blob, UInt32(index))
        defer { hb_face_destroy(face) }
        let upem = Double(hb_face_get_upem(face))
        guard upem > 0, hb_face_get_glyph_count(face) > 0, let font = hb_font_create(face) else {
            throw TypesetError(.fontMissing, "the font \(path) (index \(index)) has no glyphs")
        }
        hb_font_set_scale(font, Int32(upem), Int32(upem))
        hb_font_make_immutable(font)
        self.hbFont = font
        self.id = id
        self.path = path
        self.index = index
        self.family = family
        self.unitsPerEm = upem

        var extents = hb_font_extents_t()
        if hb_font_get_h_extents(font, &extents) != 0, extents.ascender - extents.descender > 0 {
            ascender = Double(extents.ascender) / upem
            descender = Double(-extents.descender) / upem
            lineGap = Double(max(0, extents.line_gap)) / upem
        } else {
            ascender = 0.8
            descender = 0.2
            lineGap = 0
        }
        func metric(_ tag: hb_ot_metrics_tag_t, _ fallback: Double) -> Double {
            var value: hb_position_t = 0
            return hb_ot_metrics_get_position(font, tag, &value) != 0 ? Double(value) / upem : fallback
        }
        underlinePosition = -metric(HB_OT_METRICS_TAG_UNDERLINE_OFFSET, -0.1)
        underlineThickness = max(0.02, metric(HB_OT_METRICS_TAG_UNDERLINE_SIZE, 0.05))
        strikeoutPosition = metric(HB_OT_METRICS_TAG_STRIKEOUT_OFFSET, 0.3)
    }

    deinit {
        hb_font_destroy(hbFont)
    }

    /// The glyph for a character, when the face has one.
    public func glyph(for scalar: Unicode.Scalar) -> UInt32? {
        var glyph: hb_codepoint_t = 0
        return hb_font_get_nominal_glyph(hbFont, scalar.value, &glyph) != 0 ? glyph : nil
    }

    /// Horizontal advance of a glyph in ems.
    public func advance(of glyph: UInt32) -> Double {
        Double(hb_font_get_glyph_h_advance(hbFont, glyph)) / unitsPerEm
    }

    /// Vertical advance of a glyph in ems (down positive), from the font's vertical metrics.
    public func verticalAdvance(of glyph: UInt32) -> Double {
        -Double(hb_font_get_glyph_v_advance(hbFont, glyph)) / unitsPerEm
    }

    /// Where a glyph's horizontal origin lies from its vertical origin (the top centre of its
    /// vertical em box), in ems along a vertical line: `down` positive, `up` positive to the
    /// right. HarfBuzz applies the same shift to glyphs it shapes top to bottom.
    public func verticalOriginShift(of glyph: UInt32) -> (down: Double, up: Double) {
        var x: hb_position_t = 0, y: hb_position_t = 0
        _ = hb_font_get_glyph_v_origin(hbFont, glyph, &x, &y)
        return (Double(y) / unitsPerEm, -Double(x) / unitsPerEm)
    }

    /// Rasterizes a glyph at `pixelsPerEm`, shifted by `subpixel` pixels (0 ≤ x < 1) along
    /// its line: right, or for a glyph turned `sideways` (a quarter turn clockwise), down.
    ///
    /// `cached` is asked first and a new image handed to `store` before the face is let go:
    /// a thread that waited for the face while another drew the same glyph takes that image
    /// instead of drawing it again.
    func rasterize(glyph: UInt32, pixelsPerEm: Double, subpixel: Double, sideways: Bool = false,
                   unlessCached cached: () -> GlyphImage? = { nil }, store: (GlyphImage) -> Void = { _ in }) -> GlyphImage {
        rasterizer.withLock { slot -> GlyphImage in
            if let image = cached() { return image }
            if slot.rasterizer == nil, !slot.openFailed {
                slot.rasterizer = Rasterizer(path: path, index: index)
                slot.openFailed = slot.rasterizer == nil
            }
            let image = slot.rasterizer?.render(glyph: glyph, pixelsPerEm: pixelsPerEm, subpixel: subpixel, sideways: sideways) ?? .empty
            store(image)
            return image
        }
    }
}

/// A rendered glyph: 8-bit coverage, placed relative to the pen position (y down).
///
/// Each row keeps only its inked extent, from its first to its last non-zero pixel, packed
/// one after another, so drawing skips the empty parts of the box (most of it, for thin
/// letters and punctuation) and reads the pixels it blends in order. The extents in an ink's
/// colours over a background (`stamp(for:)`) are made once per ink: a row that lands on
/// untouched background is then one copy. Immutable but for those stamps, which are made
/// under a lock and never change once made, so threads share it freely.
final class GlyphImage: Sendable {
    let left: Int
    let top: Int
    let width: Int
    let height: Int
    /// Rows with ink, top to bottom, then the coverage of every row's extent in row order, in
    /// one block freed with the image: drawing holds plain pointers into it (`GlyphSprite`)
    /// while something keeps the image alive. Written only in `init`.
    nonisolated(unsafe) private let storage: UnsafeMutableRawPointer?
    private let rowCount: Int
    private let coverageCount: Int
    private let stamps = Mutex<[Stamp]>([])

    /// A row's inked extent: columns `start..<end` of row `row`.
    struct Row: Sendable {
        var row: Int32
        var start: Int32
        var end: Int32
        /// Where the extent's first pixel is in `coverage` (and, times 3, in a stamp).
        var offset: Int32
    }

    /// `coverage` in an ink's colours over its background, 3 bytes a pixel.
    private struct Stamp {
        var color: RGBColor
        var background: RGBColor
        var bytes: UnsafeMutablePointer<UInt8>
    }

    /// `row(r)` gives the `width` coverage bytes of row `r` (top to bottom).
    init(left: Int, top: Int, width: Int, height: Int, row: (Int) -> UnsafePointer<UInt8>) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        var rows: [Row] = []
        var coverage: [UInt8] = []
        for r in 0..<height {
            let pixels = row(r)
            var start = 0, end = width
            while start < width && pixels[start] == 0 { start += 1 }
            guard start < width else { continue }
            while pixels[end - 1] == 0 { end -= 1 }
            rows.append(Row(row: Int32(r), start: Int32(start), end: Int32(end), offset: Int32(coverage.count)))
            coverage.append(contentsOf: UnsafeBufferPointer(start: pixels + Int(start), count: Int(end - start)))
        }
        rowCount = rows.count
        coverageCount = coverage.count
        guard !rows.isEmpty else {
            storage = nil
            return
        }
        let rowBytes = rows.count * MemoryLayout<Row>.stride
        let storage = UnsafeMutableRawPointer.allocate(byteCount: rowBytes + coverage.count, alignment: MemoryLayout<Row>.alignment)
        // Bound to their types as they are written, so the accessors may read them as such.
        _ = UnsafeMutableBufferPointer(start: storage.bindMemory(to: Row.self, capacity: rows.count), count: rows.count)
            .initialize(from: rows)
        _ = UnsafeMutableBufferPointer(start: (storage + rowBytes).bindMemory(to: UInt8.self, capacity: coverage.count),
                                       count: coverage.count).initialize(from: coverage)
        self.storage = storage
    }

    deinit {
        stamps.withLock { $0.forEach { $0.bytes.deallocate() } }
        storage?.deallocate()
    }

    /// Rows with ink, top to bottom; valid while the image lives.
    var rows: UnsafeBufferPointer<Row> {
        UnsafeBufferPointer(start: storage?.assumingMemoryBound(to: Row.self), count: rowCount)
    }

    /// Coverage of every row's extent, in row order; nil for an image without ink. Valid
    /// while the image lives.
    var coverage: UnsafePointer<UInt8>? {
        storage.map { UnsafePointer(($0 + rowCount * MemoryLayout<Row>.stride).assumingMemoryBound(to: UInt8.self)) }
    }

    /// The row extents in `ink`'s colours over its background, made on first use for at most
    /// `limit` inks, and how many bytes were allocated for it now (0 when it was made before).
    /// Nil for an image without ink, or in an ink past the limit (drawing then blends, with
    /// the same result).
    func stamp(for ink: Ink, limit: Int) -> (stamp: UnsafePointer<UInt8>?, made: Int) {
        guard rowCount > 0 else { return (nil, 0) }
        return stamps.withLock { stamps in
            if let made = stamps.first(where: { $0.color == ink.color && $0.background == ink.background }) {
                return (UnsafePointer(made.bytes), 0)
            }
            guard stamps.count < limit else { return (nil, 0) }
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: coverageCount * 3)
            ink.blendOntoBackground(coverage: coverage.unsafelyUnwrapped, into: bytes, count: coverageCount)
            stamps.append(Stamp(color: ink.color, background: ink.background, bytes: bytes))
            return (UnsafePointer(bytes), coverageCount * 3)
        }
    }

    /// Bytes held, for the cache's budget, stamps not included (`GlyphCache.stamp` counts
    /// them as they are made).
    var byteCount: Int { coverageCount + rowCount * MemoryLayout<Row>.stride + 64 }

    static let empty = GlyphImage(left: 0, top: 0, width: 0, height: 0) { _ in fatalError("an empty glyph has no rows") }
}

/// A FreeType library and face, used only under `FontFace`'s mutex.
///
/// A glyph is drawn at up to `GlyphCache.subpixelSteps` horizontal offsets; loading and
/// hinting its outline costs several times as much as rendering it, so the hinted outline is
/// kept per glyph and size, and each offset renders a translated copy of it
/// (`FT_Glyph_To_Bitmap` runs the same renderer as `FT_Render_Glyph` on a slot).
private struct Rasterizer: ~Copyable {
    private let library: FT_Library
    private let face: FT_Face
    private var currentSize: Int = -1
    private var outlines: [OutlineKey: FT_Glyph] = [:]

    private struct OutlineKey: Hashable {
        var glyph: UInt32
        var size: Int
    }

    /// Outlines kept at most; past this the set starts over (many sizes: thumbnails).
    private static let outlineLimit = 4096

    init?(path: String, index: Int) {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { return nil }
        var face: FT_Face?
        guard FT_New_Face(library, path, index, &face) == 0, let face else {
            FT_Done_FreeType(library)
            return nil
        }
        self.library = library
        self.face = face
    }

    deinit {
        for outline in outlines.values { FT_Done_Glyph(outline) }
        FT_Done_Face(face)
        FT_Done_FreeType(library)
    }

    mutating func render(glyph: UInt32, pixelsPerEm: Double, subpixel: Double, sideways: Bool) -> GlyphImage {
        let size = max(1, Int((pixelsPerEm * 64).rounded()))
        guard let outline = hintedOutline(glyph: glyph, size: size, pixelsPerEm: pixelsPerEm) else { return .empty }
        var copy: FT_Glyph?
        guard FT_Glyph_Copy(outline, &copy) == 0, copy != nil else { return .empty }
        defer { FT_Done_Glyph(copy) }
        if copy?.pointee.format == FT_GLYPH_FORMAT_OUTLINE {
            let shift = FT_Pos((subpixel * 64).rounded())
            if sideways {
                // A quarter turn clockwise (FreeType's y points up): x' = y, y' = −x, then the
                // subpixel shift down the line. Light hinting snapped the glyph's own y, which
                // is now across the line, where positions are whole pixels.
                var turn = FT_Matrix(xx: 0, xy: 0x10000, yx: -0x10000, yy: 0)
                var delta = FT_Vector(x: 0, y: -shift)
                FT_Glyph_Transform(copy, &turn, &delta)
            } else {
                var delta = FT_Vector(x: shift, y: 0)
                FT_Glyph_Transform(copy, nil, &delta)
            }
        }
        // Replaces `copy` with a bitmap glyph (and frees the outline copy).
        guard FT_Glyph_To_Bitmap(&copy, FT_RENDER_MODE_NORMAL, nil, 1) == 0, let rendered = copy,
              rendered.pointee.format == FT_GLYPH_FORMAT_BITMAP else { return .empty }
        let bitmapGlyph = UnsafeMutableRawPointer(rendered).assumingMemoryBound(to: FT_BitmapGlyphRec.self)
        let bitmap = bitmapGlyph.pointee.bitmap
        let width = Int(bitmap.width), height = Int(bitmap.rows)
        guard width > 0, height > 0, let buffer = bitmap.buffer,
              bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_GRAY.rawValue) else { return .empty }
        // Spans are read straight from FreeType's buffer (rows upward when the pitch is negative).
        let pitch = Int(bitmap.pitch)
        return GlyphImage(left: Int(bitmapGlyph.pointee.left), top: Int(bitmapGlyph.pointee.top), width: width, height: height) { row in
            UnsafePointer(pitch >= 0 ? buffer + row * pitch : buffer + (height - 1 - row) * (-pitch))
        }
    }

    /// The glyph's outline loaded and hinted at `size` (1/64 pixel per em), loaded once.
    private mutating func hintedOutline(glyph: UInt32, size: Int, pixelsPerEm: Double) -> FT_Glyph? {
        let key = OutlineKey(glyph: glyph, size: size)
        if let known = outlines[key] { return known }
        if size != currentSize {
            guard FT_Set_Char_Size(face, 0, FT_F26Dot6(size), 72, 72) == 0 else { return nil }
            currentSize = size
        }
        // Light hinting snaps vertical stems only, so advances (from HarfBuzz, unhinted) and
        // subpixel positions stay exact while horizontal strokes stay crisp. Below 8 pixels per
        // em (small thumbnails) hinting would fatten every stem to a whole pixel and darken
        // the page, so outlines are drawn as they are.
        let hinting = pixelsPerEm >= 8 ? Int32(FT_LOAD_TARGET_LIGHT_VALUE) : Int32(FT_LOAD_NO_HINTING)
        let flags = Int32(FT_LOAD_NO_BITMAP) | hinting
        var outline: FT_Glyph?
        guard FT_Load_Glyph(face, glyph, flags) == 0, let slot = face.pointee.glyph,
              FT_Get_Glyph(slot, &outline) == 0, let outline else { return nil }
        if outlines.count >= Self.outlineLimit {
            for old in outlines.values { FT_Done_Glyph(old) }
            outlines.removeAll(keepingCapacity: true)
        }
        outlines[key] = outline
        return outline
    }
}

/// FreeType's `FT_LOAD_TARGET_LIGHT` is a macro Swift cannot import.
private let FT_LOAD_TARGET_LIGHT_VALUE = (Int32(FT_RENDER_MODE_LIGHT.rawValue) & 15) << 16
