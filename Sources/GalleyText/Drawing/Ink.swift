/// An opaque text colour made ready to blend glyph coverage onto a page of a known
/// background colour.
///
/// Blending is source-over of coverage `a` in the colour: `(page × (255 − a) + colour × a) / 255`,
/// rounded, per channel. Nearly every pixel a glyph touches still shows the background (glyphs
/// rarely overlap), and there the result depends on `a` alone: a 256-entry table answers it
/// with one load instead of three multiply-and-divide chains. Other pixels (where glyphs or
/// rules overlap, over pictures) take the formula. The table is filled with the same formula,
/// so both paths give the same bytes.
package struct Ink {
    package let color: RGBColor
    package let background: RGBColor
    /// The colour at each coverage over the background, packed `r | g << 8 | b << 16`.
    private let table: [UInt32]

    package init(color: RGBColor, background: RGBColor) {
        self.color = color
        self.background = background
        table = (0...255).map { a in
            let a = UInt32(a)
            return UInt32(Self.sourceOver(background.r, color.r, a)) | UInt32(Self.sourceOver(background.g, color.g, a)) << 8
                | UInt32(Self.sourceOver(background.b, color.b, a)) << 16
        }
    }

    /// Blends `count` coverage bytes onto `count` packed RGB pixels.
    package func blend(coverage: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, count: Int) {
        withBlender { $0.blend(coverage: coverage, into: target, count: count) }
    }

    /// Blends `count` coverage bytes onto `count` packed RGB pixels that all still show the
    /// background, which the caller knows without reading them: the table alone gives each
    /// pixel, so nothing waits for the page's memory to be read.
    package func blendOntoBackground(coverage: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, count: Int) {
        withBlender { $0.blendOntoBackground(coverage: coverage, into: target, count: count) }
    }

    /// Calls `body` with the ink's table at hand: a glyph's spans are blended with one look
    /// at the table's storage, not one per span.
    @inline(__always)
    func withBlender<R>(_ body: (Blender) -> R) -> R {
        table.withUnsafeBufferPointer { table in
            // 256 entries, so every UInt8 coverage indexes it.
            body(Blender(table: table.baseAddress.unsafelyUnwrapped, color: color, background: background))
        }
    }

    /// The ink's blending, valid inside `withBlender`.
    struct Blender {
        let table: UnsafePointer<UInt32>
        let color: RGBColor
        let background: RGBColor

        /// See `Ink.blend(coverage:into:count:)`.
        @inline(__always)
        func blend(coverage: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, count: Int) {
            let br = background.r, bg = background.g, bb = background.b
            let r = UInt32(color.r), g = UInt32(color.g), b = UInt32(color.b)
            var to = target
            for i in 0..<count {
                let a = coverage[i]
                if to[0] == br && to[1] == bg && to[2] == bb {
                    let packed = table[Int(a)]
                    to[0] = UInt8(truncatingIfNeeded: packed)
                    to[1] = UInt8(truncatingIfNeeded: packed >> 8)
                    to[2] = UInt8(truncatingIfNeeded: packed >> 16)
                } else {
                    let a = UInt32(a), inverse = 255 &- a
                    to[0] = Ink.divide255(UInt32(to[0]) &* inverse &+ r &* a)
                    to[1] = Ink.divide255(UInt32(to[1]) &* inverse &+ g &* a)
                    to[2] = Ink.divide255(UInt32(to[2]) &* inverse &+ b &* a)
                }
                to += 3
            }
        }

        /// See `Ink.blendOntoBackground(coverage:into:count:)`.
        @inline(__always)
        func blendOntoBackground(coverage: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>, count: Int) {
            var to = target
            for i in 0..<count {
                let packed = table[Int(coverage[i])]
                to[0] = UInt8(truncatingIfNeeded: packed)
                to[1] = UInt8(truncatingIfNeeded: packed >> 8)
                to[2] = UInt8(truncatingIfNeeded: packed >> 16)
                to += 3
            }
        }
    }

    /// One channel of `colour` at coverage `a` over `page`.
    @inline(__always)
    static func sourceOver(_ page: UInt8, _ colour: UInt8, _ a: UInt32) -> UInt8 {
        divide255(UInt32(page) &* (255 &- a) &+ UInt32(colour) &* a)
    }

    /// `value / 255` rounded to nearest, for value ≤ 255 × 255, without a division.
    @inline(__always)
    static func divide255(_ value: UInt32) -> UInt8 {
        let v = value &+ 128
        return UInt8(truncatingIfNeeded: (v &+ (v >> 8)) >> 8)
    }
}
