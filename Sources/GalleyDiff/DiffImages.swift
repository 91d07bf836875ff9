import GalleyRaster

/// The pictures `galley diff` writes for a changed page.
enum DiffImages {
    /// Colours of the diff image. Red where the new page is darker (ink added), blue where it is
    /// lighter (ink removed), amber for anti-aliased pixels that were not counted, magenta for
    /// region outlines: strong against the dimmed grey page and told apart without colour
    /// vision by lightness too.
    static let added: (UInt8, UInt8, UInt8) = (220, 20, 20)
    static let removed: (UInt8, UInt8, UInt8) = (20, 90, 230)
    static let antiAliased: (UInt8, UInt8, UInt8) = (250, 200, 60)
    static let outline: (UInt8, UInt8, UInt8) = (200, 0, 200)

    /// How much of the new page shows through in the diff image: its luma pulled towards white,
    /// so the page stays readable and the marks stand out (pixelmatch fades to 0.1; a review
    /// needs the text legible).
    static let pageOpacity = 0.3

    /// Diff images are made at most about this many pixels: a page above it is shrunk by a
    /// whole factor (150 dpi Letter and A4 by 2). Encoding the diff image at full size cost
    /// more than drawing the page did (`scripts/benchmark-diff.py`); a shrunk one keeps every
    /// change visible, since a block of pixels takes the colour of any change in it, and the
    /// before and after pictures beside it keep the full size.
    static let diffImagePixels = 1_500_000

    /// The factor a page of `width`×`height` pixels is shrunk by for its diff image.
    static func shrinkFactor(width: Int, height: Int) -> Int {
        max(1, Int((Double(width * height) / Double(diffImagePixels)).squareRoot().rounded(.up)))
    }

    /// The new page in faded grey, its changed pixels coloured, and each region outlined
    /// `outlineWidth` pixels thick (of the diff image), just outside the region; shrunk by
    /// `factor`: each block of `factor`×`factor` pixels becomes one, coloured as added ink when
    /// any of its pixels is, else as removed ink, else as anti-aliased, else the mean grey.
    static func diffImage(new: Bitmap, diff: PixelDiff, regions: [PixelRect], outlineWidth: Int, factor: Int = 1) throws(RasterError) -> Bitmap {
        let width = (new.width + factor - 1) / factor, height = (new.height + factor - 1) / factor
        let out = try Bitmap(width: width, height: height)
        // Integer arithmetic throughout: this runs over every pixel of every changed page.
        // Luma in thousandths (pixelmatch's weights rounded), faded towards white.
        let opacity = Int((pageOpacity * 1000).rounded())
        let source = UnsafeRawBufferPointer(new.pixels).bindMemory(to: UInt8.self)
        let target = out.pixels.bindMemory(to: UInt8.self)
        let sourceWidth = new.width, sourceHeight = new.height
        // The summed luma of each block of the current row of blocks.
        var lumas = [Int](repeating: 0, count: width)
        diff.marks.withUnsafeBufferPointer { marks in
            lumas.withUnsafeMutableBufferPointer { lumas in
                for ty in 0..<height {
                    let y0 = ty * factor, y1 = min(y0 + factor, sourceHeight)
                    lumas.update(repeating: 0)
                    for y in y0..<y1 {
                        var o = y &* sourceWidth &* 3, x = 0
                        for tx in 0..<width {
                            let end = min(x &+ factor, sourceWidth)
                            var luma = 0
                            while x < end {
                                luma &+= Int(source[o]) &* 299 &+ Int(source[o &+ 1]) &* 587 &+ Int(source[o &+ 2]) &* 114
                                o &+= 3
                                x &+= 1
                            }
                            lumas[tx] &+= luma
                        }
                    }
                    // Rows the images agree on hold no mark: their blocks are plain grey.
                    let marked = diff.differingRows[y0..<y1].contains(true)
                    for tx in 0..<width {
                        let x0 = tx * factor, x1 = min(x0 + factor, sourceWidth)
                        var darker = false, lighter = false, antiAliasedSeen = false
                        if marked {
                            for y in y0..<y1 {
                                for x in x0..<x1 {
                                    switch marks[y &* sourceWidth &+ x] {
                                    case PixelDiff.Mark.darker.rawValue: darker = true
                                    case PixelDiff.Mark.lighter.rawValue: lighter = true
                                    case PixelDiff.Mark.antiAliased.rawValue: antiAliasedSeen = true
                                    default: break
                                    }
                                }
                            }
                        }
                        let colour: (UInt8, UInt8, UInt8)
                        if darker {
                            colour = added
                        } else if lighter {
                            colour = removed
                        } else if antiAliasedSeen {
                            colour = antiAliased
                        } else {
                            let mean = lumas[tx] / ((y1 - y0) * (x1 - x0))
                            let grey = UInt8(255 - ((255_000 - mean) * opacity + 500_000) / 1_000_000)
                            colour = (grey, grey, grey)
                        }
                        let t = (ty * width + tx) * 3
                        target[t] = colour.0; target[t + 1] = colour.1; target[t + 2] = colour.2
                    }
                }
            }
        }
        for region in regions {
            let left = region.x / factor, top = region.y / factor
            let shrunk = PixelRect(x: left, y: top, width: (region.maxX + factor - 1) / factor - left,
                                   height: (region.maxY + factor - 1) / factor - top)
            outlineRect(shrunk, in: out, width: outlineWidth)
        }
        return out
    }

    /// Draws a frame `width` pixels thick around `rect` (outside it, clipped to the bitmap).
    static func outlineRect(_ rect: PixelRect, in bitmap: Bitmap, width: Int) {
        let left = rect.x - width, top = rect.y - width, right = rect.maxX + width, bottom = rect.maxY + width
        func fill(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) {
            let xs = max(0, x0)..<min(bitmap.width, x1), ys = max(0, y0)..<min(bitmap.height, y1)
            guard !xs.isEmpty else { return }
            for y in ys {
                for x in xs {
                    let o = y * bitmap.rowBytes + x * 3
                    bitmap.pixels[o] = outline.0; bitmap.pixels[o + 1] = outline.1; bitmap.pixels[o + 2] = outline.2
                }
            }
        }
        fill(left, top, right, rect.y)              // top
        fill(left, rect.maxY, right, bottom)        // bottom
        fill(left, rect.y, rect.x, rect.maxY)       // left
        fill(rect.maxX, rect.y, right, rect.maxY)   // right
    }

    /// Before and after side by side, each scaled to fit `box` pixels square, on a light grey
    /// ground with a gap between; either may be missing (a page added or removed), leaving its
    /// half empty.
    static func sideBySide(before: Bitmap?, after: Bitmap?, box: Int) throws(RasterError) -> Bitmap {
        let gap = max(4, box / 25), margin = gap
        let out = try Bitmap(width: 2 * box + gap + 2 * margin, height: box + 2 * margin)
        out.fill(r: 226, g: 226, b: 222)
        for (index, picture) in [before, after].enumerated() {
            guard let picture else { continue }
            let scale = min(Double(box) / Double(picture.width), Double(box) / Double(picture.height), 1)
            let w = max(1, Int((Double(picture.width) * scale).rounded())), h = max(1, Int((Double(picture.height) * scale).rounded()))
            let left = margin + index * (box + gap) + (box - w) / 2, top = margin + (box - h) / 2
            blitScaled(picture, into: out, x: left, y: top, width: w, height: h)
        }
        return out
    }

    /// Draws `source` scaled down to `width`×`height` at (x, y) of `target`, each target pixel
    /// the mean of the source pixels it covers (a box filter: written here as the pages are
    /// only ever shrunk, and GalleyRaster has no resampler of its own).
    static func blitScaled(_ source: Bitmap, into target: Bitmap, x: Int, y: Int, width: Int, height: Int) {
        let pixels = UnsafeRawBufferPointer(source.pixels)
        for ty in 0..<height {
            let sy0 = ty * source.height / height, sy1 = max(sy0 + 1, (ty + 1) * source.height / height)
            for tx in 0..<width {
                let sx0 = tx * source.width / width, sx1 = max(sx0 + 1, (tx + 1) * source.width / width)
                var r = 0, g = 0, b = 0
                for sy in sy0..<sy1 {
                    var o = sy * source.rowBytes + sx0 * 3
                    for _ in sx0..<sx1 {
                        r += Int(pixels[o]); g += Int(pixels[o + 1]); b += Int(pixels[o + 2])
                        o += 3
                    }
                }
                let n = (sy1 - sy0) * (sx1 - sx0)
                let t = (y + ty) * target.rowBytes + (x + tx) * 3
                target.pixels[t] = UInt8((r + n / 2) / n)
                target.pixels[t + 1] = UInt8((g + n / 2) / n)
                target.pixels[t + 2] = UInt8((b + n / 2) / n)
            }
        }
    }
}
