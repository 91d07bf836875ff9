/// A box dimension as CSS gives it: `auto` (or `none` for a maximum), a length in points, or
/// a percentage of the containing block's width (a fraction here).
public enum BoxLength: Sendable, Hashable {
    case auto
    case points(Double)
    case fraction(Double)

    /// Points against a containing block `containing` points wide; nil for `auto`, and for a
    /// percentage where the containing block's size is not known (a height in a block of
    /// `auto` height, CSS 2.1 §10.5).
    func resolved(against containing: Double?) -> Double? {
        switch self {
        case .auto: nil
        case .points(let points): points
        case .fraction(let fraction): containing.map { fraction * $0 }
        }
    }

    var isAuto: Bool { self == .auto }
}

/// What a block declares of its size (CSS 2.1 §10): `width`, `height`, their minimums and
/// maximums, `box-sizing`, and which horizontal margins are `auto`. Logical sides: `start`
/// is the left one in left-to-right text.
public struct BoxSize: Sendable, Hashable {
    public var width = BoxLength.auto
    public var height = BoxLength.auto
    public var minWidth = BoxLength.auto
    public var maxWidth = BoxLength.auto
    public var minHeight = BoxLength.auto
    public var maxHeight = BoxLength.auto
    /// `box-sizing: border-box`: the lengths above include the padding and the border.
    public var borderBox = false
    public var marginStartAuto = false
    public var marginEndAuto = false

    public init() {}

    /// Whether anything here changes the box's width.
    public var constrainsWidth: Bool { !width.isAuto || !minWidth.isAuto || !maxWidth.isAuto }
    /// Whether anything here changes the box's height.
    public var constrainsHeight: Bool { !height.isAuto || !minHeight.isAuto || !maxHeight.isAuto }
    /// Whether the block needs a box of its own for its size (`TextBox`), drawn or not.
    public var isSized: Bool { constrainsWidth || constrainsHeight }

    /// `height`, `min-height` and `max-height` percentages made lengths against a containing
    /// block whose content box is `containing` points high (CSS 2.1 §10.5, §10.7): one with a
    /// height of its own. Where that is not known (nil) they stay percentages, counted as
    /// `auto` (`usedContentHeight`).
    mutating func resolveHeightPercentages(against containing: Double?) {
        guard let containing else { return }
        for path in [\BoxSize.height, \.minHeight, \.maxHeight] {
            if case .fraction(let fraction) = self[keyPath: path] { self[keyPath: path] = .points(max(0, fraction * containing)) }
        }
    }

    /// The used width of the border box (CSS 2.1 §10.3.3 and §10.4), given the containing
    /// block's width, the room between the box's margins (`available`, with `auto` margins
    /// counted as 0) and the horizontal paddings and borders (`edges`): `width` (or all the
    /// room when `auto`), held between `min-width` and `max-width`.
    func usedBorderBoxWidth(containing: Double, available: Double, edges: Double) -> Double {
        // Lengths for the content box, or for the border box with `box-sizing: border-box`.
        func content(_ length: BoxLength) -> Double? {
            length.resolved(against: containing).map { max(0, borderBox ? $0 - edges : $0) }
        }
        var used = content(width) ?? max(0, available - edges)
        if let maximum = content(maxWidth) { used = min(used, maximum) }
        if let minimum = content(minWidth) { used = max(used, minimum) }
        return used + edges
    }

    /// The used height of the content box (CSS 2.1 §10.6.3 and §10.7) of a block whose content
    /// is `content` points high, `edges` being its vertical paddings and borders: `height`
    /// (or the content's when `auto`), held between `min-height` and `max-height`. Percentages
    /// count as `auto`: the containing block's height is not known in a flow of pages.
    func usedContentHeight(content: Double, edges: Double) -> Double {
        func resolved(_ length: BoxLength) -> Double? {
            guard case .points(let points) = length else { return nil }
            return max(0, borderBox ? points - edges : points)
        }
        var used = resolved(height) ?? content
        if let maximum = resolved(maxHeight) { used = min(used, maximum) }
        if let minimum = resolved(minHeight) { used = max(used, minimum) }
        return used
    }
}

/// The block layer's horizontal geometry of sized boxes (`TextBox.size`) in a column of a
/// given width: how far each sized box, and the lines inside it, move in from the start and
/// end edges that the flat paragraph indents give (margins, paddings and borders of the
/// ancestors). Nested sized boxes add up: a box's containing block is its parent's content
/// box once the parent is sized.
struct BlockGeometry {
    /// Indices in `boxes` of the boxes that constrain their width, in text order.
    private let sized: [Int]
    /// Each of `sized` by its index in `boxes`.
    private let positions: [Int: Int]
    /// For each of `sized`, the index in `sized` of the sized box around it, if any.
    private let parents: [Int?]
    /// Per paragraph, the index in `sized` of the innermost sized box holding it (-1: none).
    private let innermost: [Int]
    /// For each box that does not size itself, the index in `sized` of the innermost sized box
    /// around it, if any: its border box moves in with that box's content, as its lines do.
    private let around: [Int: Int]
    private let boxes: [TextBox]
    /// The shifts for the width of the last query.
    private var width = -1.0
    private var shifts: [(start: Double, end: Double)] = []

    /// `vertical`: the lines run down the page. Sizes are not applied there yet: CSS sizes an
    /// element of another writing mode than its container's (an orthogonal flow) in ways the
    /// one writing mode of a Galley article does not follow, and the writing-mode reftests
    /// drew worse with either reading of `width` and `height`.
    init(boxes: [TextBox], paragraphCount: Int, vertical: Bool = false) {
        self.boxes = boxes
        sized = vertical ? [] : boxes.indices.filter { boxes[$0].size.constrainsWidth && !boxes[$0].paragraphs.isEmpty }
        positions = Dictionary(uniqueKeysWithValues: sized.enumerated().map { ($0.element, $0.offset) })
        var parents: [Int?] = []
        var innermost = sized.isEmpty ? [] : Array(repeating: -1, count: paragraphCount)
        var open: [Int] = []  // Indices in `sized`, outermost first.
        for (position, index) in sized.enumerated() {
            let paragraphs = boxes[index].paragraphs
            while let last = open.last, boxes[sized[last]].paragraphs.upperBound <= paragraphs.lowerBound { open.removeLast() }
            parents.append(open.last)
            open.append(position)
            // Inner boxes come later and overwrite their part.
            for paragraph in paragraphs where paragraph < innermost.count { innermost[paragraph] = position }
        }
        self.parents = parents
        self.innermost = innermost
        var around: [Int: Int] = [:]
        if !sized.isEmpty {
            open = []
            for index in boxes.indices {
                let paragraphs = boxes[index].paragraphs
                while let last = open.last, boxes[sized[last]].paragraphs.upperBound <= paragraphs.lowerBound { open.removeLast() }
                if let position = positions[index] {
                    open.append(position)
                } else if let last = open.last {
                    around[index] = last
                }
            }
        }
        self.around = around
    }

    var isEmpty: Bool { sized.isEmpty }

    /// How far the border box of box `index` moves in from its start and end indents: by its
    /// own size and those of the sized boxes around it, or, for a box that does not size
    /// itself, as far as the content of the innermost sized box around it.
    mutating func shift(box index: Int, width: Double) -> (start: Double, end: Double) {
        guard let position = positions[index] ?? around[index] else { return (0, 0) }
        return shift(sized: position, width: width)
    }

    /// The innermost sized box (index in `boxes`) holding paragraph `index`, if any.
    func innermostBox(ofParagraph index: Int) -> Int? {
        index < innermost.count && innermost[index] >= 0 ? sized[innermost[index]] : nil
    }

    /// How far the lines of paragraph `index` move in from their indents.
    mutating func shift(paragraph index: Int, width: Double) -> (start: Double, end: Double) {
        guard index < innermost.count, innermost[index] >= 0 else { return (0, 0) }
        return shift(sized: innermost[index], width: width)
    }

    private mutating func shift(sized position: Int, width: Double) -> (start: Double, end: Double) {
        if width != self.width {
            self.width = width
            shifts = []
            for (i, index) in sized.enumerated() {
                let outer = parents[i].map { shifts[$0] } ?? (0, 0)
                shifts.append(Self.shift(of: boxes[index], width: width, outer: outer))
            }
        }
        return shifts[position]
    }

    /// The shift of `box` (its own and its sized ancestors', `outer`) in a column `width` wide.
    static func shift(of box: TextBox, width: Double, outer: (start: Double, end: Double)) -> (start: Double, end: Double) {
        let start = max(0, box.startIndent) + outer.start, end = max(0, box.endIndent) + outer.end
        let containing = max(0, width - (start - box.marginStart) - (end - box.marginEnd))
        let available = width - start - end
        let edges = box.padding.left + box.padding.right + box.border.left.width + box.border.right.width
        let used = box.size.usedBorderBoxWidth(containing: containing, available: available, edges: edges)
        let slack = available - used
        guard slack != 0 else { return outer }
        // Auto margins share the room left; with neither auto, the margin at the containing
        // block's end takes it (the over-constrained case of CSS 2.1 §10.3.3): the box's own
        // start margin when the two directions differ.
        var own = box.rightToLeft == box.containerRightToLeft ? (start: 0.0, end: slack) : (start: slack, end: 0.0)
        if slack > 0 && box.size.marginStartAuto {
            own = box.size.marginEndAuto ? (slack / 2, slack / 2) : (slack, 0)
        }
        return (outer.start + own.start, outer.end + own.end)
    }
}
