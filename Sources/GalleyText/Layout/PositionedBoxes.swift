/// Positioned boxes (CSS 2.1 §9.3, §9.4.3, §10.3.7, §10.6.4) and `overflow` clipping (§11.1),
/// applied to what a filled rectangle holds once the flow is laid out:
///
/// - `position: relative` moves a block and everything in it by its offsets; the space it
///   takes in the flow stays where it was.
/// - `position: absolute` (and `fixed`, absolute to the page in paged media) takes a block out
///   of the flow: the framesetter sets it whole, like a floated block, at its static position
///   (where it would have started in the flow) and leaves the flow as it was
///   (`Frame.positioned`); here it moves to its offsets from its containing block, the
///   padding box of the nearest positioned block around it or else the page's text area.
/// - Positioned content is drawn after the flow (a layer over it, one more for each positioned
///   block around it), as CSS paints positioned descendants after in-flow ones. A `z-index`
///   on the outermost positioned block around it with one sets its stacking level (CSS 2.1
///   Appendix E): negative ones are drawn before the flow (under it), the most negative
///   first; positive ones after the blocks with `auto` or 0 (which keep the order of the
///   text between them), the lowest first.
/// - `overflow` other than `visible` cuts what a block holds at its padding box.
///
/// Horizontal writing only: a vertical page keeps its positioned blocks in the flow, unmoved.

/// CSS `position`.
public enum Positioning: String, Sendable, Hashable {
    case `static`, relative, absolute, fixed

    /// Whether the box is a containing block for absolutely positioned boxes inside it.
    public var isPositioned: Bool { self != .static }
}

/// `top`, `right`, `bottom` and `left`: lengths (negative ones too), fractions of the
/// containing block's width (left, right) or height (top, bottom), or `auto`.
public struct BoxOffsets: Sendable, Hashable {
    public var top = BoxLength.auto
    public var right = BoxLength.auto
    public var bottom = BoxLength.auto
    public var left = BoxLength.auto

    public init() {}

    /// How far a relatively positioned inline box moves, right and down, in points: `left`
    /// (else minus `right`) and `top` (else minus `bottom`); percentages, whose containing
    /// block the inline layer does not know, move it not.
    var relativeShift: (x: Double, y: Double) {
        func points(_ length: BoxLength) -> Double? { if case .points(let points) = length { points } else { nil } }
        return (points(left) ?? points(right).map { -$0 } ?? 0, points(top) ?? points(bottom).map { -$0 } ?? 0)
    }

    static func side(_ property: String) -> WritableKeyPath<BoxOffsets, BoxLength> {
        switch property {
        case "top": \.top
        case "right": \.right
        case "bottom": \.bottom
        default: \.left
        }
    }

    /// A relatively positioned box's move (CSS 2.1 §9.4.3): `left` wins over `right`, `top`
    /// over `bottom`; percentages of a height are of a containing block whose height is not
    /// known in a flow of pages, so count as 0.
    func relativeShift(containingWidth: Double) -> (dx: Double, dy: Double) {
        let dx = left.resolved(against: containingWidth) ?? right.resolved(against: containingWidth).map { -$0 } ?? 0
        let dy = top.resolved(against: nil) ?? bottom.resolved(against: nil).map { -$0 } ?? 0
        return (dx, dy)
    }
}

/// An absolutely positioned block (`FloatedBlock.positioning`): its offsets and its containing
/// block.
public struct PositionedBlock: Sendable, Equatable {
    public var offsets: BoxOffsets
    /// The `TextBox` (index in `AttributedText.boxes`) of the nearest positioned block around
    /// it, whose padding box is its containing block; nil: the page's text area.
    public var containingBox: Int?
    /// `z-index` (nil: `auto`): a negative one is drawn under the flow (after the page's
    /// background, before the blocks in the flow, as CSS 2.1 Appendix E paints negative
    /// stacking levels), others over it, a higher one over a lower one.
    public var zIndex: Int?

    public init(offsets: BoxOffsets, containingBox: Int?, zIndex: Int? = nil) {
        self.offsets = offsets
        self.containingBox = containingBox
        self.zIndex = zIndex
    }
}

/// The positioned and clipped content of one filled rectangle (horizontal text, page
/// coordinates): what moves where, what is cut where, and what is drawn in the second layer.
struct FramePositions {
    private struct Entry {
        /// Global text offsets, and `TextBox` indices, of what the block holds.
        var range: Range<Int>
        var boxes: Set<Int>
        var clip: Rect?
        var positioned: Bool
        /// A positioned block's `z-index` (nil: `auto`).
        var zIndex: Int?
    }
    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    /// Sets `frame`'s absolutely positioned blocks against their containing blocks and
    /// moves relatively positioned ones (both into `frame`'s lines, boxes and floats), and
    /// notes what is clipped and layered. `pageArea`: the initial containing block.
    init(frame: inout Framesetter.Frame, text: AttributedText, pageArea: Rect, vertical: Bool) {
        let tree = text.boxTree
        guard !vertical, tree.boxes.contains(where: { $0.style.position.isPositioned || $0.style.clipsOverflow }) || !frame.positioned.isEmpty else { return }
        func textRange(_ paragraphs: Range<Int>) -> Range<Int> {
            guard !paragraphs.isEmpty else { return 0..<0 }
            return text.paragraphs[paragraphs.lowerBound].range.lowerBound..<text.paragraphs[paragraphs.upperBound - 1].range.upperBound
        }
        func boxes(inside node: Int) -> Set<Int> {
            Set(([node] + tree.descendants(of: node)).compactMap { tree.boxes[$0].textBox })
        }
        /// The padding box of `TextBox` `index` in this frame, if a piece of it is here.
        func paddingBox(_ index: Int) -> Rect? {
            guard let piece = frame.boxes.first(where: { $0.box == index }) else { return nil }
            let box = text.boxes[index]
            let top = piece.opensHere ? box.border.top.width : 0, bottom = piece.closesHere ? box.border.bottom.width : 0
            return Rect(x: piece.rect.x + box.border.left.width, y: piece.rect.y + top,
                        width: max(0, piece.rect.width - box.border.left.width - box.border.right.width),
                        height: max(0, piece.rect.height - top - bottom))
        }
        var nodeOfFloat: [Int: Int] = [:]
        for box in tree.boxes {
            for case .float(let block, let index) in box.children { nodeOfFloat[index] = block }
        }
        // Absolutely positioned blocks, against their containing blocks as laid out.
        for placed in frame.positioned {
            guard let index = placed.float.block, let positioning = text.floats[index].positioning else { continue }
            let container = positioning.containingBox.flatMap(paddingBox) ?? pageArea
            let rect = placed.float.rect
            let offsets = positioning.offsets
            var x = rect.x, y = rect.y
            if let left = offsets.left.resolved(against: container.width) {
                x = container.x + left
            } else if let right = offsets.right.resolved(against: container.width) {
                x = container.maxX - right - rect.width
            }
            if let top = offsets.top.resolved(against: container.height) {
                y = container.y + top
            } else if let bottom = offsets.bottom.resolved(against: container.height) {
                y = container.maxY - bottom - rect.height
            }
            Self.move(placed, by: (x - rect.x, y - rect.y), into: &frame)
            let node = nodeOfFloat[index]
            entries.append(Entry(range: placed.float.range, boxes: node.map(boxes(inside:)) ?? [], clip: nil, positioned: true,
                                 zIndex: positioning.zIndex))
        }
        frame.positioned = []
        // Relatively positioned blocks, outermost first, move with what they hold.
        for (node, box) in tree.boxes.enumerated() where box.style.position == .relative {
            let range = textRange(box.paragraphs)
            guard !range.isEmpty, range.overlaps(frame.range) else { continue }
            let inside = boxes(inside: node)
            let width = box.textBox.flatMap { index in frame.boxes.first { $0.box == index }?.rect.width } ?? pageArea.width
            let shift = box.style.offsets.relativeShift(containingWidth: width)
            if shift != (0, 0) { Self.shift(&frame, range: range, boxes: inside, by: shift) }
            entries.append(Entry(range: range, boxes: inside, clip: nil, positioned: true, zIndex: box.style.zIndex))
        }
        // Clipping blocks: their content is cut at their padding box (once everything moved).
        for (node, box) in tree.boxes.enumerated() where box.style.clipsOverflow {
            guard let own = box.textBox, let clip = paddingBox(own) else { continue }
            let range = textRange(box.paragraphs)
            var inside = boxes(inside: node)
            inside.remove(own)
            entries.append(Entry(range: range, boxes: inside, clip: clip, positioned: false))
        }
    }

    /// Moves a positioned block's lines, boxes and pictures by `shift` into the frame.
    private static func move(_ placed: Framesetter.PlacedBlock, by shift: (dx: Double, dy: Double), into frame: inout Framesetter.Frame) {
        let lines = placed.lines.map { moved($0, by: shift) }
        let at = frame.lines.firstIndex { $0.line.range.lowerBound >= placed.float.range.lowerBound } ?? frame.lines.endIndex
        frame.lines.insert(contentsOf: lines, at: at)
        frame.boxes = (frame.boxes + placed.boxes.map { piece in
            var piece = piece
            piece.rect = piece.rect.moved(by: shift)
            return piece
        }).enumerated().sorted { ($0.element.box, $0.offset) < ($1.element.box, $1.offset) }.map(\.element)
        frame.floats += placed.pictures.map { picture in
            var picture = picture
            picture.rect = picture.rect.moved(by: shift)
            return picture
        }
        frame.rules += placed.rules.map { $0 + shift.dy }
        frame.tables += placed.tables.map { $0.moved(by: shift) }
        frame.tableRects += placed.tableRects.map { $0.moved(to: $0.rect.moved(by: shift)) }
    }

    private static func moved(_ placed: Framesetter.PlacedLine, by shift: (dx: Double, dy: Double)) -> Framesetter.PlacedLine {
        var placed = placed
        placed.origin += shift.dx
        placed.top += shift.dy
        placed.baseline += shift.dy
        return placed
    }

    /// Moves what the frame holds of text `range` and of boxes `boxes` by `shift`.
    private static func shift(_ frame: inout Framesetter.Frame, range: Range<Int>, boxes: Set<Int>, by shift: (dx: Double, dy: Double)) {
        for index in frame.lines.indices where range.contains(frame.lines[index].line.range.lowerBound) {
            frame.lines[index] = moved(frame.lines[index], by: shift)
        }
        for index in frame.boxes.indices where boxes.contains(frame.boxes[index].box) {
            frame.boxes[index].rect = frame.boxes[index].rect.moved(by: shift)
        }
        for index in frame.floats.indices where range.contains(frame.floats[index].offset) {
            frame.floats[index].rect = frame.floats[index].rect.moved(by: shift)
        }
        for index in frame.tables.indices {
            let table = frame.tables[index].rect
            let lines = frame.lines.contains { range.contains($0.line.range.lowerBound) && table.contains(y: $0.top) }
            guard lines else { continue }
            frame.tableRects = frame.tableRects.map { filled in
                table.contains(y: filled.rect.y) ? filled.moved(to: filled.rect.moved(by: shift)) : filled
            }
            frame.tables[index].rect = table.moved(by: shift)
            for cell in frame.tables[index].cells.indices {
                frame.tables[index].cells[cell].rect = frame.tables[index].cells[cell].rect.moved(by: shift)
            }
        }
    }

    /// Layers a stacking level holds (positioned blocks nested in one another), and the
    /// `z-index` values told apart (beyond them, as the largest).
    static let levelSpan = 1024
    static let levels = 1 << 20

    /// Index marks into a page's drawing lists, before the pieces of one line or box went in.
    struct Mark {
        var runs: Int
        var rects: Int
        var images: Int
    }

    /// Cuts and layers what went into the lists since `mark`: the pieces of a line or picture
    /// at text `offset`, or of `TextBox` `box`.
    func decorate(runs: inout [GlyphRun], rects: inout [FilledRect], images: inout [PlacedImage], since mark: Mark,
                  offset: Int? = nil, box: Int? = nil) {
        guard !entries.isEmpty else { return }
        var clip: Rect?
        // The layer: how many positioned blocks hold it (a positioned block is painted after
        // the in-flow content of a positioned block around it, CSS 2.1 Appendix E), within the
        // stacking level of the outermost of them with a `z-index` (the one holding the most
        // text): levels apart by more than any depth, negative ones under the flow (layer 0).
        var depth = 0
        var stacking: (level: Int, extent: Int)?
        for entry in entries {
            let holds = offset.map { entry.range.contains($0) } ?? box.map { entry.boxes.contains($0) } ?? false
            guard holds else { continue }
            if entry.positioned {
                depth += 1
                if let level = entry.zIndex, entry.range.count > stacking?.extent ?? -1 { stacking = (level, entry.range.count) }
            }
            if let bounds = entry.clip { clip = clip.map { $0.intersection(bounds) } ?? bounds }
        }
        let level = min(max(stacking?.level ?? 0, -Self.levels), Self.levels)
        let layer = level * Self.levelSpan + min(depth, Self.levelSpan - 1)
        guard clip != nil || layer != 0 else { return }
        for index in mark.runs..<runs.count { runs[index].clip = clip; runs[index].layer = layer }
        for index in mark.rects..<rects.count { rects[index].clip = clip; rects[index].layer = layer }
        for index in mark.images..<images.count { images[index].clip = clip; images[index].layer = layer }
    }
}

extension Rect {
    func moved(by shift: (dx: Double, dy: Double)) -> Rect { Rect(x: x + shift.dx, y: y + shift.dy, width: width, height: height) }

    func contains(y value: Double) -> Bool { value >= y - 0.01 && value <= maxY + 0.01 }

    /// The part shared with `other` (empty, at `other`'s corner, when they do not meet).
    func intersection(_ other: Rect) -> Rect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        return Rect(x: x0, y: y0, width: max(0, min(maxX, other.maxX) - x0), height: max(0, min(maxY, other.maxY) - y0))
    }
}
