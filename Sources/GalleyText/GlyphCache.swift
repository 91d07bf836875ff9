import Synchronization

/// Rendered glyph images shared by all drawing threads, keyed by everything that changes the
/// pixels: face, glyph, size in 1/64 pixel, subpixel offset and whether it is turned sideways.
///
/// A glyph image is a pure function of its key, so what the cache holds never changes a
/// pixel; it only saves FreeType work. Past the byte limit the cache starts over, which keeps
/// memory bounded on long runs with many sizes (thumbnails of every box).
final class GlyphCache: Sendable {
    struct Key: Hashable {
        var face: Int
        var glyph: UInt32
        var size64: Int
        var subpixel: UInt8
        var sideways: Bool
    }

    /// Positions along a line (x, or y for glyphs turned sideways) are rounded to this
    /// fraction of a pixel. `Memo` packs the step into 2 bits of its keys, next to the
    /// sideways bit: more steps need a wider field there.
    static let subpixelSteps = 4

    private struct State {
        var images: [Key: GlyphImage] = [:]
        var bytes = 0
        /// How often the cache has started over; memos from before are not taken back.
        var generation = 0
        /// Memos handed back by finished drawings, for the next drawings to start from.
        var spareMemos: [Memos] = []
    }

    private let state = Mutex(State())
    private let byteLimit: Int

    init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    /// The size of glyphs drawn `pixelsPerEm` pixels to the em, in 1/64 pixel, as the cache
    /// keys and renders them.
    static func size64(pixelsPerEm: Double) -> Int {
        max(1, Int((pixelsPerEm * 64).rounded()))
    }

    /// A glyph's image at `size64` (see `size64(pixelsPerEm:)`).
    func image(face: FontFace, glyph: UInt32, size64: Int, subpixel: Int, sideways: Bool = false) -> GlyphImage {
        let key = Key(face: face.id, glyph: glyph, size64: size64, subpixel: UInt8(subpixel), sideways: sideways)
        let lookUp = { self.state.withLock { $0.images[key] } }
        if let image = lookUp() { return image }
        // Looked up again, and stored, with the face held (face, then cache: the cache's lock is
        // never held while waiting for a face, so the two locks cannot deadlock).
        return face.rasterize(glyph: glyph, pixelsPerEm: Double(size64) / 64, subpixel: Double(subpixel) / Double(Self.subpixelSteps),
                              sideways: sideways, unlessCached: lookUp) { image in
            // Images dropped by starting over are freed after the cache's lock is let go.
            let dropped = state.withLock { state -> [Key: GlyphImage] in
                var dropped: [Key: GlyphImage] = [:]
                if state.bytes > byteLimit {
                    swap(&dropped, &state.images)
                    state.bytes = 0
                    state.generation += 1
                    state.spareMemos.removeAll()
                }
                if state.images.updateValue(image, forKey: key) == nil { state.bytes += image.byteCount }
                return dropped
            }
            _ = consume dropped
        }
    }

    /// `image`'s stamp in `ink` (`GlyphImage.stamp(for:)`); a stamp made now counts toward the
    /// cache's budget. Nil for an image without ink.
    func stamp(_ image: GlyphImage, ink: Ink) -> UnsafePointer<UInt8>? {
        guard let (stamp, made) = image.stamp(for: ink) else { return nil }
        if made > 0 { state.withLock { $0.bytes += made } }
        return stamp
    }

    /// The memos (one per ink) a drawing works with: a page asks for mostly the glyphs the
    /// page before it asked for, so memos are handed from drawing to drawing instead of being
    /// built again for every page (`takeMemos`, `keep`).
    struct Memos: Sendable {
        fileprivate let generation: Int
        var byInk: [InkKey: Memo] = [:]
    }

    /// The colours an ink is made for.
    struct InkKey: Hashable {
        var color: RGBColor
        var background: RGBColor
    }

    /// Memos a finished drawing handed back, or new ones.
    func takeMemos() -> Memos {
        state.withLock { state in state.spareMemos.popLast() ?? Memos(generation: state.generation) }
    }

    /// Hands memos back for a later drawing. Memos made before the cache last started over are
    /// dropped, and so are memos grown past `memoLimit` glyphs, so that memos never hold on
    /// to more images than the cache itself would.
    func keep(_ memos: Memos) {
        var memos = memos
        memos.byInk = memos.byInk.filter { $0.value.imageCount <= Self.memoLimit }
        // Dropped memos are freed after the lock is let go.
        let dropped = state.withLock { state -> Memos? in
            guard memos.generation == state.generation else { return memos }
            state.spareMemos.append(memos)
            return nil
        }
        _ = consume dropped
    }

    /// Glyphs a memo kept between drawings may hold.
    static let memoLimit = 4096

    /// A drawing's own view of the cache for one ink: a page asks for the same few hundred
    /// glyphs thousands of times, so each is looked up in the shared cache (a lock and a hash),
    /// with its stamp in the ink (`GlyphImage.stamp(for:)`), once per drawing and then found in
    /// an open-addressing table with a multiplicative hash.
    ///
    /// Sendable because memos move between drawing threads only through the cache's lock
    /// (`keep`, then `takeMemos`), used by one thread at a time; their sprites point into
    /// images the memo itself holds, which never change once made (`GlyphImage`).
    struct Memo: @unchecked Sendable {
        private let cache: GlyphCache
        /// The ink the stamps are in.
        let ink: Ink
        private var keys: [UInt64]
        /// The images the memo holds, which keep its sprites valid.
        private var images: [GlyphImage?]
        private var sprites: [GlyphSprite]
        /// Images asked for with keys the table cannot hold, kept alive for their sprites.
        private var heldAside: [GlyphImage] = []

        /// Glyph images the memo holds.
        var imageCount: Int { count + heldAside.count }
        /// Glyphs in the table.
        private var count = 0
        private var mask: Int

        init(cache: GlyphCache, ink: Ink) {
            precondition(GlyphCache.subpixelSteps <= 4, "Memo keys hold the subpixel step in 2 bits")
            self.cache = cache
            self.ink = ink
            keys = [UInt64](repeating: 0, count: 512)
            images = [GlyphImage?](repeating: nil, count: 512)
            sprites = [GlyphSprite](repeating: .empty, count: 512)
            mask = 511
        }

        /// A glyph's image as drawing uses it, with its stamp in the memo's ink, valid while
        /// the memo lives.
        mutating func sprite(face: FontFace, glyph: UInt32, size64: Int, subpixel: Int, sideways: Bool = false) -> GlyphSprite {
            // Face, size, glyph, orientation and subpixel packed into 64 bits; a key of 0 marks an
            // empty slot, so the packed value is offset by one. Values out of range skip the table.
            guard face.id < 1 << 15, size64 < 1 << 22, glyph < 1 << 23 else {
                let image = cache.image(face: face, glyph: glyph, size64: size64, subpixel: subpixel, sideways: sideways)
                heldAside.append(image)
                return GlyphSprite(image, stamp: cache.stamp(image, ink: ink))
            }
            let key = (UInt64(face.id) << 48 | UInt64(size64) << 26 | UInt64(glyph) << 3 | (sideways ? 4 : 0) | UInt64(subpixel)) &+ 1
            var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
            while keys[slot] != 0 {
                if keys[slot] == key { return sprites[slot] }
                slot = (slot + 1) & mask
            }
            let image = cache.image(face: face, glyph: glyph, size64: size64, subpixel: subpixel, sideways: sideways)
            let sprite = GlyphSprite(image, stamp: cache.stamp(image, ink: ink))
            keys[slot] = key
            images[slot] = image
            sprites[slot] = sprite
            count += 1
            if count * 2 > mask { grow() }
            return sprite
        }

        private mutating func grow() {
            let oldKeys = keys, oldImages = images, oldSprites = sprites
            mask = mask * 2 + 1
            keys = [UInt64](repeating: 0, count: mask + 1)
            images = [GlyphImage?](repeating: nil, count: mask + 1)
            sprites = [GlyphSprite](repeating: .empty, count: mask + 1)
            for slot in oldKeys.indices where oldKeys[slot] != 0 {
                var target = Int(truncatingIfNeeded: (oldKeys[slot] &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
                while keys[target] != 0 { target = (target + 1) & mask }
                keys[target] = oldKeys[slot]
                images[target] = oldImages[slot]
                sprites[target] = oldSprites[slot]
            }
        }
    }
}

/// What drawing needs of a glyph image, as plain values and pointers, so that drawing a glyph
/// retains and releases nothing: valid while the image lives (a `GlyphCache.Memo` holds it).
struct GlyphSprite {
    var left: Int
    var top: Int
    var rows: UnsafeBufferPointer<GlyphImage.Row>
    /// Nil for an image without ink.
    var coverage: UnsafePointer<UInt8>?
    /// The rows' extents in the memo's ink (`GlyphImage.stamp(for:)`); nil without ink.
    var stamp: UnsafePointer<UInt8>?

    init(_ image: GlyphImage, stamp: UnsafePointer<UInt8>?) {
        left = image.left
        top = image.top
        rows = image.rows
        coverage = image.coverage
        self.stamp = stamp
    }

    private init() {
        left = 0
        top = 0
        rows = UnsafeBufferPointer(start: nil, count: 0)
    }

    /// Nothing to draw.
    static var empty: GlyphSprite { GlyphSprite() }
}
