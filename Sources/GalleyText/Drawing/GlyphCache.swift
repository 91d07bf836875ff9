import GalleyBase

/// Rendered glyph images shared by all drawing threads, keyed by everything that changes the
/// pixels: face, glyph, size in 1/64 pixel, subpixel offset and whether it is turned sideways.
///
/// A glyph image is a pure function of its key, so what the cache holds never changes a
/// pixel; it only saves FreeType work. Past the byte limit the cache starts over, which keeps
/// memory bounded on long runs with many sizes (thumbnails of every box).
package final class GlyphCache: Sendable {
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
    /// Inks a glyph image keeps stamps for (`GlyphImage.stamp(for:limit:)`); past it, glyphs
    /// in more colours are blended instead, which gives the same pixels.
    let stampsPerImage: Int

    /// Stamps a glyph image keeps unless told otherwise: a page's text, links and notes.
    static let defaultStampsPerImage = 8

    init(byteLimit: Int, stampsPerImage: Int = defaultStampsPerImage) {
        self.byteLimit = byteLimit
        self.stampsPerImage = stampsPerImage
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
        // never held while waiting for a face, so the two locks cannot deadlock). What starting
        // over drops is freed after both locks are let go.
        var dropped = Dropped()
        let image = face.rasterize(glyph: glyph, pixelsPerEm: Double(size64) / 64,
                                   subpixel: Double(subpixel) / Double(Self.subpixelSteps),
                                   sideways: sideways, unlessCached: lookUp) { image in
            dropped = state.withLock { state in
                let dropped = Self.account(image.byteCount, in: &state, limit: byteLimit)
                if state.images.updateValue(image, forKey: key) != nil { state.bytes -= image.byteCount }
                return dropped
            }
        }
        _ = consume dropped
        return image
    }

    /// What starting over takes out of the cache, to be freed outside its lock.
    private struct Dropped {
        var images: [Key: GlyphImage] = [:]
        var memos: [Memos] = []
    }

    /// Adds `bytes` to the cache's count, starting over first when it is past its limit: the
    /// images and the memos kept for later drawings go (drawings in progress keep what they
    /// hold; their memos are not taken back, `keep`).
    private static func account(_ bytes: Int, in state: inout State, limit: Int) -> Dropped {
        var dropped = Dropped()
        if state.bytes > limit {
            swap(&dropped.images, &state.images)
            swap(&dropped.memos, &state.spareMemos)
            state.bytes = 0
            state.generation += 1
        }
        state.bytes += bytes
        return dropped
    }

    /// `image`'s stamp in `ink` (`GlyphImage.stamp(for:limit:)`); a stamp made now counts
    /// toward the cache's budget. Nil for an image without ink, or one with stamps for as many
    /// inks as it keeps (the glyph is then blended).
    func stamp(_ image: GlyphImage, ink: Ink) -> UnsafePointer<UInt8>? {
        let (stamp, made) = image.stamp(for: ink, limit: stampsPerImage)
        if made > 0 {
            let dropped = state.withLock { Self.account(made, in: &$0, limit: byteLimit) }
            _ = consume dropped
        }
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

    /// Hands a drawing's memos back for a later drawing: those of at most `inkLimit` inks, each
    /// of at most `memoLimit` glyphs, so that what is kept stays small however many colours and
    /// sizes are drawn. Memos made before the cache last started over are dropped: they may
    /// hold images the cache no longer counts.
    func keep(_ memos: Memos) {
        var memos = memos
        if memos.byInk.count > Self.inkLimit || memos.byInk.values.contains(where: { $0.imageCount > Self.memoLimit }) {
            let kept = memos.byInk.filter { $0.value.imageCount <= Self.memoLimit }.prefix(Self.inkLimit)
            memos.byInk = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
        }
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
    /// Inks whose memos a drawing hands on.
    static let inkLimit = 8

    /// The most inks any memos kept for later drawings hold (for tests).
    package var keptInkCount: Int {
        state.withLock { $0.spareMemos.map(\.byInk.count).max() ?? 0 }
    }

    /// A drawing's own view of the cache for one ink: a page asks for the same few hundred
    /// glyphs thousands of times, so each is looked up in the shared cache (a lock and a hash),
    /// with its stamp in the ink (`GlyphImage.stamp(for:)`), once per drawing and then found in
    /// an open-addressing table with a multiplicative hash.
    struct Memo: Sendable {
        /// The ink the stamps are in.
        let ink: Ink
        private var keys: [UInt64]
        /// The images the memo holds, which keep its sprites valid.
        private var images: [GlyphImage?]
        private var sprites: [GlyphSprite]
        /// Glyph images the memo holds.
        private(set) var imageCount = 0
        private var mask: Int

        init(ink: Ink) {
            precondition(GlyphCache.subpixelSteps <= 4, "Memo keys hold the subpixel step in 2 bits")
            self.ink = ink
            keys = [UInt64](repeating: 0, count: 512)
            images = [GlyphImage?](repeating: nil, count: 512)
            sprites = [GlyphSprite](repeating: .empty, count: 512)
            mask = 511
        }

        /// A glyph's image from `cache` as drawing uses it, with its stamp in the memo's ink,
        /// valid while the memo lives.
        mutating func sprite(face: FontFace, glyph: UInt32, size64: Int, subpixel: Int, sideways: Bool = false,
                             in cache: GlyphCache) -> GlyphSprite {
            // Face, size, glyph, orientation and subpixel packed into 64 bits; a key of 0 marks an
            // empty slot, so the packed value is offset by one. Sizes stay below 2^22: at most
            // 1000 pt (StyleSheet) at 2400 dpi is 33,333 px, 2,133,333 in 1/64 px; OpenType glyph
            // ids are 16-bit; a library opens far fewer than 32,768 faces.
            precondition(face.id < 1 << 15 && size64 < 1 << 22 && glyph < 1 << 23, "glyph key out of range")
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
            imageCount += 1
            if imageCount * 2 > mask { grow() }
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
///
/// Sendable because its pointers only reach memory an image writes once, when it is made (its
/// rows and coverage, and a stamp before handing it out), and never changes after; the memo
/// that holds a sprite holds its image too, wherever the memo goes.
struct GlyphSprite: @unchecked Sendable {
    var left: Int
    var top: Int
    var rows: UnsafeBufferPointer<GlyphImage.Row>
    /// Nil for an image without ink.
    var coverage: UnsafePointer<UInt8>?
    /// The rows' extents in the memo's ink (`GlyphImage.stamp(for:limit:)`); nil without ink,
    /// or when the image keeps no more stamps (the glyph is then blended).
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
