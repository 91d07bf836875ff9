import Foundation
import GalleyRaster

/// Two page images of the same pixel size compared pixel by pixel, in the manner of pixelmatch
/// (mapbox/pixelmatch `index.js`): a perceptual colour distance in YIQ space against a
/// threshold, and an anti-aliasing test that leaves out a differing pixel lying on an
/// anti-aliased edge in either image; plus a test of Galley's own for edges moved by less than
/// a pixel (`isSubpixelShift`), which pixelmatch's test misses on thin strokes.
///
/// Written here by hand: there is no Swift package for it among Galley's dependencies, and the
/// algorithm is small. The constants are pixelmatch's (YIQ weights from Kotsarenko and Ramos,
/// "Measuring perceived color difference using YIQ NTSC transmission color space in mobile
/// applications", 2010); the pixels are Galley's opaque RGB, so pixelmatch's blending of
/// alpha onto white has no counterpart.
public struct PixelDiff: Sendable {
    /// What one pixel became.
    public enum Mark: UInt8, Sendable {
        case same = 0
        /// Counted, and darker in the new image (ink added).
        case darker = 1
        /// Counted, and lighter in the new image (ink removed).
        case lighter = 2
        /// Differs past the threshold, but on an anti-aliased edge: not counted.
        case antiAliased = 3
        /// Differs, but by less than the threshold: not counted.
        case belowThreshold = 4
    }

    public let width: Int
    public let height: Int
    /// One `Mark` per pixel, rows top first.
    public let marks: [UInt8]
    /// Pixels counted as changed.
    public let changedPixels: Int
    /// Pixels that differ past the threshold but lie on an anti-aliased edge.
    public let antiAliasedPixels: Int
    /// The rows holding counted pixels, top first: what `regions` reads.
    let changedRows: [Int]
    /// Per row, whether its pixels differ at all (only such rows hold marks): what the diff
    /// image reads to skip the others.
    let differingRows: [Bool]

    /// The largest squared YIQ distance there is (black against white), pixelmatch's 35215.
    static let maximumDelta = 35215.0

    /// Compares `base` and `new`, which must have the same size.
    ///
    /// `threshold` (0...1) is pixelmatch's: the smallest colour distance that counts, as a
    /// fraction of the largest (0.1 by default). At 0 the comparison is exact: every pixel
    /// whose bytes differ counts, anti-aliased or not.
    public init(base: Bitmap, new: Bitmap, threshold: Double) {
        precondition(base.width == new.width && base.height == new.height, "compared images differ in size")
        width = base.width
        height = base.height
        let exact = threshold <= 0
        let maxDelta = Self.maximumDelta * threshold * threshold
        // The threshold's share of a channel's range: 26 of 255 at the default 0.1.
        let shiftTolerance = Int((threshold * 255).rounded())
        var marks = [UInt8](repeating: Mark.same.rawValue, count: width * height)
        var changed = 0, antiAliased = 0
        var changedRows: [Int] = []
        var differingRows = [Bool](repeating: false, count: height)
        let rowBytes = base.rowBytes
        let width = width, height = height
        let a = UnsafeRawBufferPointer(base.pixels), b = UnsafeRawBufferPointer(new.pixels)
        marks.withUnsafeMutableBufferPointer { marks in
            for y in 0..<height {
                let row = y * rowBytes
                // Most rows of a changed page are equal: one memcmp skips them.
                if memcmp(a.baseAddress! + row, b.baseAddress! + row, rowBytes) == 0 { continue }
                differingRows[y] = true
                let countedBefore = changed
                for x in 0..<width {
                    let offset = row + x * 3
                    if a[offset] == b[offset] && a[offset + 1] == b[offset + 1] && a[offset + 2] == b[offset + 2] { continue }
                    let delta = Self.colorDelta(a, offset, b, offset)
                    let index = y * width + x
                    if exact {
                        changed += 1
                        marks[index] = delta < 0 ? Mark.darker.rawValue : Mark.lighter.rawValue
                    } else if abs(delta) <= maxDelta {
                        marks[index] = Mark.belowThreshold.rawValue
                    } else if Self.isAntiAliased(a, x: x, y: y, width: width, height: height, other: b)
                                || Self.isAntiAliased(b, x: x, y: y, width: width, height: height, other: a)
                                || Self.isSubpixelShift(a, b, x: x, y: y, width: width, height: height, tolerance: shiftTolerance) {
                        antiAliased += 1
                        marks[index] = Mark.antiAliased.rawValue
                    } else {
                        changed += 1
                        marks[index] = delta < 0 ? Mark.darker.rawValue : Mark.lighter.rawValue
                    }
                }
                if changed > countedBefore { changedRows.append(y) }
            }
        }
        self.changedRows = changedRows
        self.differingRows = differingRows
        self.marks = marks
        changedPixels = changed
        antiAliasedPixels = antiAliased
    }

    /// Whether pixel `index` counts as changed.
    @inline(__always) func isChanged(_ index: Int) -> Bool {
        marks[index] == Mark.darker.rawValue || marks[index] == Mark.lighter.rawValue
    }

    // MARK: pixelmatch's colour arithmetic

    @inline(__always) static func luma(_ p: UnsafeRawBufferPointer, _ o: Int) -> Double {
        Double(p[o]) * 0.29889531 + Double(p[o + 1]) * 0.58662247 + Double(p[o + 2]) * 0.11448223
    }

    @inline(__always) static func inPhase(_ p: UnsafeRawBufferPointer, _ o: Int) -> Double {
        Double(p[o]) * 0.59597799 - Double(p[o + 1]) * 0.27417610 - Double(p[o + 2]) * 0.32180189
    }

    @inline(__always) static func quadrature(_ p: UnsafeRawBufferPointer, _ o: Int) -> Double {
        Double(p[o]) * 0.21147017 - Double(p[o + 1]) * 0.52261711 + Double(p[o + 2]) * 0.31114694
    }

    /// The squared YIQ distance between pixel `i` of `p` and pixel `j` of `q`, negative when the
    /// second is darker (pixelmatch's `colorDelta`).
    @inline(__always) static func colorDelta(_ p: UnsafeRawBufferPointer, _ i: Int, _ q: UnsafeRawBufferPointer, _ j: Int) -> Double {
        let y = luma(p, i) - luma(q, j)
        let iq = inPhase(p, i) - inPhase(q, j)
        let qq = quadrature(p, i) - quadrature(q, j)
        let delta = 0.5053 * y * y + 0.299 * iq * iq + 0.1957 * qq * qq
        return y > 0 ? -delta : delta
    }

    /// pixelmatch's `antialiased`: whether the pixel at (x, y) of `image` lies on an
    /// anti-aliased edge. Of its eight neighbours, at most two may be equal to it, some must be
    /// brighter and some darker, and the darkest or the brightest must sit inside a flat area
    /// (three or more equal neighbours) in both images: the pixel is then a blend between two
    /// flat colours, which moving an edge by a fraction of a pixel changes.
    static func isAntiAliased(_ image: UnsafeRawBufferPointer, x x1: Int, y y1: Int, width: Int, height: Int,
                              other: UnsafeRawBufferPointer) -> Bool {
        let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0), x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
        let center = (y1 * width + x1) * 3
        var zeroes = (x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2) ? 1 : 0
        var minimum = 0.0, maximum = 0.0
        var minX = 0, minY = 0, maxX = 0, maxY = 0
        for x in x0...x2 {
            for y in y0...y2 where x != x1 || y != y1 {
                let delta = luma(image, center) - luma(image, (y * width + x) * 3)
                if delta == 0 {
                    zeroes += 1
                    if zeroes > 2 { return false }
                } else if delta < minimum {
                    minimum = delta; minX = x; minY = y
                } else if delta > maximum {
                    maximum = delta; maxX = x; maxY = y
                }
            }
        }
        if minimum == 0 || maximum == 0 { return false }
        return (hasManySiblings(image, x: minX, y: minY, width: width, height: height)
                && hasManySiblings(other, x: minX, y: minY, width: width, height: height))
            || (hasManySiblings(image, x: maxX, y: maxY, width: width, height: height)
                && hasManySiblings(other, x: maxX, y: maxY, width: width, height: height))
    }

    /// Galley's second anti-aliasing test, beside pixelmatch's: whether the 3×3 window around
    /// (x, y) of `new` is `base` moved by less than a pixel in one of the eight directions, that
    /// is, every new pixel of the window lies (per channel, within `tolerance`) inside the range
    /// of the base pixel and its neighbours towards that direction, as box-filtered edges moved
    /// by a fraction of a pixel do.
    ///
    /// Why: pixelmatch's test needs a flat area beside the edge, which the strokes of small
    /// text (one or two pixels wide at 100 dpi) do not have, so text moved by a fraction of a
    /// pixel (or hinted otherwise) counted thousands of pixels a page. Measured on a page of 12
    /// and 10 pt text moved by (0.25, 0.2) pt, and on the same page with two words edited: at
    /// 150 dpi the move counted 2,930 pixels with pixelmatch's test alone and 89 with this one
    /// too (tolerance 26, the default threshold's), while the edit counted 861 and 804: a real
    /// change keeps nearly all its pixels, because new ink where the base had none fits no
    /// direction.
    static func isSubpixelShift(_ base: UnsafeRawBufferPointer, _ new: UnsafeRawBufferPointer, x: Int, y: Int, width: Int, height: Int,
                                tolerance: Int) -> Bool {
        let x0 = max(x - 1, 0), y0 = max(y - 1, 0), x2 = min(x + 1, width - 1), y2 = min(y + 1, height - 1)
        for sy in -1...1 {
            directions: for sx in -1...1 where sx != 0 || sy != 0 {
                for qy in y0...y2 {
                    for qx in x0...x2 {
                        let o = (qy * width + qx) * 3
                        let ox = (qy * width + min(max(qx + sx, 0), width - 1)) * 3
                        let oy = (min(max(qy + sy, 0), height - 1) * width + qx) * 3
                        let oxy = (min(max(qy + sy, 0), height - 1) * width + min(max(qx + sx, 0), width - 1)) * 3
                        for c in 0..<3 {
                            let v = Int(new[o + c])
                            let a = Int(base[o + c]), b = Int(base[ox + c]), d = Int(base[oy + c]), e = Int(base[oxy + c])
                            if v < min(a, b, d, e) - tolerance || v > max(a, b, d, e) + tolerance { continue directions }
                        }
                    }
                }
                return true
            }
        }
        return false
    }

    /// pixelmatch's `hasManySiblings`: whether three or more of the pixel's neighbours (the
    /// image's edge counting as one) have exactly its colour.
    static func hasManySiblings(_ image: UnsafeRawBufferPointer, x x1: Int, y y1: Int, width: Int, height: Int) -> Bool {
        let x0 = max(x1 - 1, 0), y0 = max(y1 - 1, 0), x2 = min(x1 + 1, width - 1), y2 = min(y1 + 1, height - 1)
        let center = (y1 * width + x1) * 3
        var zeroes = (x1 == x0 || x1 == x2 || y1 == y0 || y1 == y2) ? 1 : 0
        for x in x0...x2 {
            for y in y0...y2 where x != x1 || y != y1 {
                let o = (y * width + x) * 3
                if image[center] == image[o] && image[center + 1] == image[o + 1] && image[center + 2] == image[o + 2] {
                    zeroes += 1
                    if zeroes > 2 { return true }
                }
            }
        }
        return false
    }
}
