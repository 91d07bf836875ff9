import Synchronization

/// Rendered glyph images shared by all drawing threads, keyed by everything that changes the
/// pixels: face, glyph, size in 1/64 pixel and subpixel offset.
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
    }

    /// Horizontal positions are rounded to this fraction of a pixel.
    static let subpixelSteps = 4

    private struct State {
        var images: [Key: GlyphImage] = [:]
        var bytes = 0
    }

    private let state = Mutex(State())
    private let byteLimit: Int

    init(byteLimit: Int) {
        self.byteLimit = byteLimit
    }

    func image(face: FontFace, glyph: UInt32, pixelsPerEm: Double, subpixel: Int) -> GlyphImage {
        let size64 = max(1, Int((pixelsPerEm * 64).rounded()))
        let key = Key(face: face.id, glyph: glyph, size64: size64, subpixel: UInt8(subpixel))
        if let image = state.withLock({ $0.images[key] }) { return image }
        let image = face.rasterize(glyph: glyph, pixelsPerEm: Double(size64) / 64,
                                   subpixelX: Double(subpixel) / Double(Self.subpixelSteps))
        state.withLock { state in
            if state.bytes > byteLimit {
                state.images.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            if state.images.updateValue(image, forKey: key) == nil { state.bytes += image.coverage.count + 64 }
        }
        return image
    }
}
