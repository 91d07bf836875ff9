import GalleyRaster

/// Which source pixels make up each destination pixel along one axis, and how much of each
/// destination pixel the picture covers.
///
/// Shrinking averages every source pixel under the destination pixel, weighted by overlap (a
/// box filter: no aliasing however small the thumbnail); enlarging interpolates between the
/// two nearest source pixels (bilinear). A destination pixel's taps depend only on its own
/// position in page pixels, never on the band being drawn, so drawing a page in bands gives
/// the same pixels as drawing it whole.
struct ResamplingAxis {
    /// Destination pixels, in page pixels, clipped to the band.
    let pixels: Range<Int>
    /// Fraction of each destination pixel inside the picture (below 1 only at its edges).
    private(set) var coverage: [Float] = []
    /// Taps of destination pixel `i`: `taps[tapStart[i]..<tapStart[i + 1]]`.
    private(set) var tapStart: [Int] = [0]
    private(set) var taps: [(source: Int, weight: Float)] = []

    /// - Parameters:
    ///   - start, end: the picture's extent in page pixels (fractional).
    ///   - source: the picture's size in pixels along this axis.
    ///   - clip: the band's page pixels along this axis.
    init(start: Double, end: Double, source: Int, clip: Range<Int>) {
        let first = max(clip.lowerBound, Int(start.rounded(.down)))
        let last = min(clip.upperBound, Int(end.rounded(.up)))
        pixels = first..<max(first, last)
        let ratio = Double(source) / (end - start)
        for pixel in pixels {
            let low = max(Double(pixel), start), high = min(Double(pixel + 1), end)
            coverage.append(Float(max(0, high - low)))
            if ratio > 1 {
                // Box filter over the source interval this pixel's covered part maps to.
                let a = (low - start) * ratio, b = (high - start) * ratio
                let total = b - a
                var index = max(0, Int(a.rounded(.down)))
                while index < min(source, Int(b.rounded(.up))) {
                    let overlap = min(b, Double(index + 1)) - max(a, Double(index))
                    if overlap > 0 { taps.append((index, Float(overlap / total))) }
                    index += 1
                }
            } else {
                // Bilinear at the centre of the covered part, edges clamped.
                let centre = min(Double(source - 1), max(0, ((low + high) / 2 - start) * ratio - 0.5))
                let index = Int(centre.rounded(.down))
                let fraction = Float(centre - Double(index))
                taps.append((index, 1 - fraction))
                if fraction > 0 { taps.append((min(source - 1, index + 1), fraction)) }
            }
            tapStart.append(taps.count)
        }
    }

    /// The source pixels any destination pixel reads.
    var sourceRange: Range<Int> {
        guard let low = taps.map(\.source).min(), let high = taps.map(\.source).max() else { return 0..<0 }
        return low..<(high + 1)
    }
}

extension Canvas {
    /// Draws `image` resampled onto the rectangle (x0, y0)–(x1, y1) in page pixels, blended
    /// over what is there by its alpha and, at the rectangle's edges, by the part of each pixel
    /// it covers. Separable: each destination row first averages source rows into one row,
    /// then source columns into pixels, in a fixed order, so results are deterministic.
    func draw(_ image: RasterImage, x0: Double, y0: Double, x1: Double, y1: Double) {
        guard x1 > x0, y1 > y0 else { return }
        let columns = ResamplingAxis(start: x0, end: x1, source: image.width,
                                     clip: (originX + bounds.x0)..<(originX + bounds.x1))
        let rows = ResamplingAxis(start: y0, end: y1, source: image.height,
                                  clip: (originY + bounds.y0)..<(originY + bounds.y1))
        guard !columns.pixels.isEmpty, !rows.pixels.isEmpty else { return }
        let used = columns.sourceRange
        let channels = RasterImage.channels
        var row = [Float](repeating: 0, count: used.count * channels)
        let pixels = bitmap.pixels.bindMemory(to: UInt8.self)
        image.pixels.withUnsafeBufferPointer { source in
            for (i, pageRow) in rows.pixels.enumerated() {
                // Source rows averaged into one row of the columns in use.
                for k in row.indices { row[k] = 0 }
                for tap in rows.taps[rows.tapStart[i]..<rows.tapStart[i + 1]] {
                    var from = (tap.source * image.width + used.lowerBound) * channels
                    for k in row.indices {
                        row[k] += tap.weight * Float(source[from])
                        from += 1
                    }
                }
                let rowCoverage = rows.coverage[i]
                let target = (pageRow - originY) * bitmap.rowBytes
                for (j, pageColumn) in columns.pixels.enumerated() {
                    var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                    for tap in columns.taps[columns.tapStart[j]..<columns.tapStart[j + 1]] {
                        let k = (tap.source - used.lowerBound) * channels
                        r += tap.weight * row[k]
                        g += tap.weight * row[k + 1]
                        b += tap.weight * row[k + 2]
                        a += tap.weight * row[k + 3]
                    }
                    let coverage = rowCoverage * columns.coverage[j]
                    guard coverage > 0 else { continue }
                    // Premultiplied "over": picture × coverage + page × (1 − alpha × coverage).
                    let keep = 1 - a * coverage / 255
                    let offset = target + (pageColumn - originX) * 3
                    pixels[offset] = Self.channel(r * coverage + Float(pixels[offset]) * keep)
                    pixels[offset + 1] = Self.channel(g * coverage + Float(pixels[offset + 1]) * keep)
                    pixels[offset + 2] = Self.channel(b * coverage + Float(pixels[offset + 2]) * keep)
                }
            }
        }
    }

    @inline(__always)
    private static func channel(_ value: Float) -> UInt8 {
        UInt8(min(255, max(0, value.rounded())))
    }
}
