// Why by hand: the reduction must give the same bytes on every machine and in every order
// (thumbnails are compared byte for byte across runs and worker counts), which rules out
// floating-point filters whose rounding depends on the compiler's vectorisation; MuPDF's
// scaler works on its own pixmaps inside a drawing, and libraries with a box filter
// (libvips, pixman) are not among the project's dependencies for one loop. The arithmetic
// here is exact integers.

extension Bitmap {
    /// The bitmap reduced to `width` × `height` by area averaging: each new pixel is the
    /// mean of the old pixels under it, each weighted by how much of it lies under the new
    /// one (exact rational weights, rounded once at the end). The proper filter for
    /// reduction by any factor: no pixel is skipped, as sampling would skip thin lines.
    /// The size must not grow in either direction.
    public func areaAveraged(width newWidth: Int, height newHeight: Int) throws(RasterError) -> Bitmap {
        guard newWidth <= width, newHeight <= height else {
            throw RasterError(.invalidSize, "area averaging reduces: \(width)×\(height) to \(newWidth)×\(newHeight) grows")
        }
        let out = try Bitmap(width: newWidth, height: newHeight)
        // Horizontally, in units of 1/newWidth of an old pixel: old pixel i spans
        // [i·newWidth, (i+1)·newWidth), new pixel j spans [j·width, (j+1)·width).
        // Each new pixel takes its old pixels from `first[j]` with `weights` (summing to width).
        var first = [Int](repeating: 0, count: newWidth)
        var spans = [Int](repeating: 0, count: newWidth + 1)
        var weights: [UInt32] = []
        for j in 0..<newWidth {
            let start = j * width, end = (j + 1) * width
            first[j] = start / newWidth
            spans[j] = weights.count
            var i = first[j]
            while i * newWidth < end {
                let overlap = min(end, (i + 1) * newWidth) - max(start, i * newWidth)
                weights.append(UInt32(overlap))
                i += 1
            }
        }
        spans[newWidth] = weights.count
        // Every sum is at most 255 · width · height (the weights of a new pixel add up to
        // width · height), and rounding adds half of that: 32-bit sums hold it for a bitmap of
        // up to 16.7 megapixels (a page image that is not drawn in bands, a thumbnail box),
        // 64-bit ones beyond. The same integers either way; the narrower are cheaper.
        if UInt64(width) * UInt64(height) * 256 <= UInt64(UInt32.max) {
            reduce(into: out, first: first, spans: spans, weights: weights, as: UInt32.self)
        } else {
            reduce(into: out, first: first, spans: spans, weights: weights, as: UInt64.self)
        }
        return out
    }

    /// The reduction's sums, `Sum` wide (large enough for 255 · width · height): horizontally
    /// a row at a time (`first`, `spans` and `weights` as `areaAveraged` builds them), then
    /// vertically into `out`'s rows.
    private func reduce<Sum: FixedWidthInteger & UnsignedInteger>(into out: Bitmap, first: [Int], spans: [Int], weights: [UInt32],
                                                                   as _: Sum.Type) {
        let newWidth = out.width, newHeight = out.height, channels = Bitmap.channels
        // Vertically the same, rows at a time: `sums` holds each new row's weighted sums
        // (denominator width · height) until its last old row has been added.
        let rowValues = newWidth * channels
        let row = UnsafeMutablePointer<Sum>.allocate(capacity: rowValues)
        let sums = UnsafeMutablePointer<Sum>.allocate(capacity: rowValues)
        row.initialize(repeating: 0, count: rowValues)
        sums.initialize(repeating: 0, count: rowValues)
        defer {
            row.deallocate()
            sums.deallocate()
        }
        let denominator = Sum(width) * Sum(height), half = denominator / 2
        let source = UnsafeRawPointer(pixels.baseAddress!).assumingMemoryBound(to: UInt8.self)
        let target = out.pixels.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var outRow = 0
        first.withUnsafeBufferPointer { first in
            spans.withUnsafeBufferPointer { spans in
                weights.withUnsafeBufferPointer { weights in
                    for y in 0..<height {
                        let base = source + y * rowBytes
                        for j in 0..<newWidth {
                            var r: Sum = 0, g: Sum = 0, b: Sum = 0
                            var pixel = base + first[j] * channels
                            for k in spans[j]..<spans[j + 1] {
                                let weight = Sum(weights[k])
                                r &+= weight &* Sum(pixel[0])
                                g &+= weight &* Sum(pixel[1])
                                b &+= weight &* Sum(pixel[2])
                                pixel += channels
                            }
                            row[j * channels] = r
                            row[j * channels + 1] = g
                            row[j * channels + 2] = b
                        }
                        // Old row y spans [y·newHeight, (y+1)·newHeight); new row k [k·height, (k+1)·height).
                        var top = y * newHeight
                        let bottom = (y + 1) * newHeight
                        while top < bottom {
                            let rowEnd = (outRow + 1) * height
                            let overlap = Sum(min(bottom, rowEnd) - top)
                            for v in 0..<rowValues { sums[v] &+= overlap &* row[v] }
                            top += Int(overlap)
                            if top == rowEnd {
                                let start = target + outRow * out.rowBytes
                                for v in 0..<rowValues {
                                    start[v] = UInt8(truncatingIfNeeded: (sums[v] &+ half) / denominator)
                                    sums[v] = 0
                                }
                                outRow += 1
                            }
                        }
                    }
                }
            }
        }
    }
}
