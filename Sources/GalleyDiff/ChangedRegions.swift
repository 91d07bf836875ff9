import GalleyRaster

/// What merging changed regions asks of a rectangle of pixels.
extension PixelRect {
    var maxX: Int { x + width }
    var maxY: Int { y + height }

    /// Whether the two are at most `gap` pixels apart on both axes (overlapping ones are 0 apart).
    func isNear(_ other: PixelRect, gap: Int) -> Bool {
        x <= other.maxX + gap && other.x <= maxX + gap && y <= other.maxY + gap && other.y <= maxY + gap
    }

    func union(_ other: PixelRect) -> PixelRect {
        let left = min(x, other.x), top = min(y, other.y)
        return PixelRect(x: left, y: top, width: max(maxX, other.maxX) - left, height: max(maxY, other.maxY) - top)
    }
}

extension PixelDiff {
    /// The changed areas of the page: bounding boxes of the connected groups of changed
    /// pixels, where pixels up to about `gap` apart count as connected, and boxes then at most
    /// `gap` apart merged, so that a changed word is one region and not one per letter. Sorted
    /// top to bottom, then left to right.
    ///
    /// By hand, in two steps that keep the cost linear in the pixels: the page is cut into
    /// cells `gap` pixels square, each cell that holds changed pixels keeps their bounding box,
    /// and the 8-connected groups of such cells (a flood fill over the small grid) give the
    /// components; the few boxes left are then merged pairwise while any two are near.
    public func regions(gap: Int) -> [PixelRect] {
        let cell = max(1, gap)
        let columns = (width + cell - 1) / cell, rows = (height + cell - 1) / cell
        // Per cell: the bounding box of its changed pixels, or minX = Int32.max when it has none.
        var minX = [Int32](repeating: .max, count: columns * rows)
        var minY = [Int32](repeating: 0, count: columns * rows)
        var maxX = [Int32](repeating: 0, count: columns * rows)
        var maxY = [Int32](repeating: 0, count: columns * rows)
        for y in changedRows {
            let base = y * width
            for x in 0..<width where isChanged(base + x) {
                let c = (y / cell) * columns + x / cell
                if minX[c] == .max {
                    minX[c] = Int32(x); minY[c] = Int32(y); maxX[c] = Int32(x); maxY[c] = Int32(y)
                } else {
                    minX[c] = min(minX[c], Int32(x)); maxX[c] = max(maxX[c], Int32(x))
                    maxY[c] = Int32(y)  // rows come in order
                }
            }
        }
        var seen = [Bool](repeating: false, count: columns * rows)
        var boxes: [PixelRect] = []
        var stack: [Int] = []
        for start in 0..<(columns * rows) where minX[start] != .max && !seen[start] {
            seen[start] = true
            stack.append(start)
            var box = PixelRect(x: Int(minX[start]), y: Int(minY[start]), width: 0, height: 0)
            var right = box.x, bottom = box.y
            while let c = stack.popLast() {
                box.x = min(box.x, Int(minX[c])); box.y = min(box.y, Int(minY[c]))
                right = max(right, Int(maxX[c])); bottom = max(bottom, Int(maxY[c]))
                let cx = c % columns, cy = c / columns
                for ny in max(0, cy - 1)...min(rows - 1, cy + 1) {
                    for nx in max(0, cx - 1)...min(columns - 1, cx + 1) {
                        let n = ny * columns + nx
                        if minX[n] != .max && !seen[n] {
                            seen[n] = true
                            stack.append(n)
                        }
                    }
                }
            }
            box.width = right - box.x + 1
            box.height = bottom - box.y + 1
            boxes.append(box)
        }
        return Self.merged(boxes, gap: gap)
    }

    /// `boxes` with every two that are at most `gap` apart replaced by their union, until no
    /// two are; sorted top to bottom, then left to right.
    static func merged(_ boxes: [PixelRect], gap: Int) -> [PixelRect] {
        var boxes = boxes
        var merging = true
        while merging {
            merging = false
            var i = 0
            while i < boxes.count {
                var j = i + 1
                while j < boxes.count {
                    if boxes[i].isNear(boxes[j], gap: gap) {
                        boxes[i] = boxes[i].union(boxes[j])
                        boxes.remove(at: j)
                        merging = true
                    } else {
                        j += 1
                    }
                }
                i += 1
            }
        }
        return boxes.sorted { ($0.y, $0.x, $0.width, $0.height) < ($1.y, $1.x, $1.width, $1.height) }
    }
}
