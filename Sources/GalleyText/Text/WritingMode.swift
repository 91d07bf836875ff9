/// How lines run on a page (CSS `writing-mode`).
public enum WritingMode: String, Sendable, Hashable, CaseIterable {
    /// Lines run left to right (or right to left, by direction) and stack top to bottom;
    /// columns stand side by side.
    case horizontalTB = "horizontal-tb"
    /// Lines run top to bottom and stack right to left; columns become horizontal bands
    /// stacked top to bottom (Japanese 段組). Ideographs and kana stand upright with their
    /// vertical forms; Latin letters and digits are set sideways.
    case verticalRL = "vertical-rl"

    public var isVertical: Bool { self == .verticalRL }

    /// Whether a character stands upright in vertical text (its `Vertical_Orientation` is
    /// `U`, `Tu` or `Tr`) rather than lying sideways with its run (`R`).
    public static func standsUpright(_ scalar: Unicode.Scalar) -> Bool {
        VerticalOrientation(scalar).isUpright
    }
}

/// How a character stands in vertical text: the Unicode property `Vertical_Orientation`
/// (UAX #50), from the table that `scripts/make-vertical-orientation.py` generates.
enum VerticalOrientation: Sendable, Hashable {
    /// Upright, as in horizontal text: ideographs, kana, Hangul, most symbols (`U`).
    case upright
    /// Upright, or the font's vertical form when it has one: `、`, `。` (`Tu`).
    case transformedOrUpright
    /// The font's vertical form, or by UAX #50 turned sideways when it has none: brackets,
    /// long vowel mark (`Tr`). Galley shapes these upright, as `Tu`, taking the font's
    /// vertical form where it has one; a font without one shows the horizontal glyph upright.
    case transformedOrRotated
    /// Turned 90° clockwise with its run: Latin, digits, Greek, Cyrillic, Arabic (`R`).
    case rotated

    init(_ scalar: Unicode.Scalar) {
        let value = scalar.value
        // Most text is Latin: nothing below U+00A7 stands upright.
        guard value >= 0xA7 else { self = .rotated; return }
        let table = Self.table
        var low = 0, high = table.count
        while low < high {
            let mid = (low + high) / 2
            if table[mid].last < value { low = mid + 1 } else { high = mid }
        }
        self = low < table.count && table[low].first <= value ? table[low].orientation : .rotated
    }

    /// Shaped top to bottom with the font's vertical metrics and forms (HarfBuzz applies
    /// `vert` to a top-to-bottom buffer), rather than set sideways in a horizontal run.
    var isUpright: Bool { self != .rotated }
}

/// Turns the coordinates a column is filled in — x along the line (inline), y across the
/// lines (block) — into page coordinates.
///
/// Horizontal columns are filled in place. A vertical-rl column is filled as if turned a
/// quarter turn counter-clockwise: its inline axis runs down the page from the column's top
/// and its block axis runs left from its right edge, so everything the framesetter knows
/// (measures, line heights, justification, breaking) works unchanged.
struct FlowMapping {
    /// The column on the page.
    let column: Rect
    let mode: WritingMode

    /// The rectangle the framesetter fills.
    var flowRect: Rect {
        mode.isVertical ? Rect(x: 0, y: 0, width: column.height, height: column.width) : column
    }

    /// A point: inline `x`, block `y`.
    func point(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        mode.isVertical ? (column.maxX - y, column.y + x) : (x, y)
    }

    /// A rectangle: inline extent `x`, `width`; block extent `y`, `height`.
    func rect(_ r: Rect) -> Rect {
        mode.isVertical ? Rect(x: column.maxX - r.maxY, y: column.y + r.x, width: r.height, height: r.width) : r
    }
}
