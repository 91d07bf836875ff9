/// The box of a block element (a `div`, `pre`, `blockquote`, `li`, …) that declares a border,
/// vertical padding or a background: drawn around a run of whole paragraphs of an
/// `AttributedText`.
///
/// Horizontal padding and borders are already in the paragraphs' indents (the lines are set
/// inside them); the box keeps what the typesetter needs to draw it and to make room above
/// and below its lines. A box split across columns or pages is drawn open at the split
/// (CSS `box-decoration-break: slice`, the default): no bottom border and padding before the
/// split, no top ones after it, and the background over each piece.
public struct TextBox: Sendable, Equatable {
    /// `border-style`s Galley draws; `groove`, `ridge`, `inset` and `outset` are drawn solid.
    public enum BorderStyle: String, Sendable, Equatable {
        case solid, dashed, dotted, double
    }

    /// A border side: width in points (0: none), colour and style.
    public struct Border: Sendable, Equatable {
        public var width = 0.0
        public var color = RGBColor.black
        public var style = BorderStyle.solid
        public init(width: Double = 0, color: RGBColor = .black, style: BorderStyle = .solid) {
            self.width = width
            self.color = color
            self.style = style
        }
    }

    /// Indices in `AttributedText.paragraphs` of the paragraphs inside the box (not empty).
    public var paragraphs: Range<Int>
    public var border = TextTable.Sides(Border())
    public var padding = TextTable.Sides(0.0)
    public var background: RGBColor?
    /// `background-image` (over the colour): the picture's source as written, tiled from the
    /// padding box's top left corner (CSS's initial `background-origin` and
    /// `background-position`) across and down as `background-repeat` says, cut to the
    /// border box.
    public var backgroundImage: BackgroundImage?

    public struct BackgroundImage: Sendable, Equatable {
        public var source: String
        public var repeatsAcross = true
        public var repeatsDown = true
        public init(source: String) { self.source = source }
    }
    /// The distances of the border box's start and end edges from the column's, in points:
    /// the ancestors' indents and the element's own margins.
    public var startIndent = 0.0
    public var endIndent = 0.0
    /// The element's own start and end margins, in those indents (`auto` ones as 0): the
    /// containing block's edges are that far out.
    public var marginStart = 0.0
    public var marginEnd = 0.0
    /// Its `width`, `height` and their limits (CSS 2.1 §10), applied by `BlockGeometry` and
    /// the framesetter; `padding.left` and `padding.right` count in a width that `box-sizing`
    /// or a percentage needs.
    public var size = BoxSize()
    /// Whether a box around nothing keeps a paragraph for its height (`HTMLWalker`): not for
    /// floats, table parts set as blocks and boxes taken out of the flow.
    var spacerAllowed = true
    /// `overflow` other than `visible`: what it holds is cut at its padding box, and a
    /// `height` smaller than that holds (CSS 2.1 §11.1).
    public var clipsOverflow = false
    /// Whether the start side is the right one (`direction: rtl`).
    public var rightToLeft = false
    /// Whether its containing block's start side is the right one: a box narrower than the
    /// room keeps to its containing block's start, whatever its own direction (CSS 2.1
    /// §10.3.3, the over-constrained case).
    public var containerRightToLeft = false
    /// The collapsed margin above the box, when it has a top border or padding (which keep
    /// the margins of what it holds inside it); nil when its margin collapsed with its first
    /// paragraph's, which then carries it.
    public var marginBefore: Double?
    /// The margin below the last paragraph, inside the box, when it has a bottom border or
    /// padding; else it collapses with what follows the box, outside it.
    public var spaceInsideAfter = 0.0
    /// `visibility: hidden`: the box takes its room and draws nothing.
    public var isHidden = false

    public init(paragraphs: Range<Int>) {
        self.paragraphs = paragraphs
    }

    /// What the box adds above its first line: its top border and padding.
    public var topEdge: Double { border.top.width + padding.top }
    /// What it adds below its last line.
    public var bottomEdge: Double { border.bottom.width + padding.bottom }
    /// Whether anything of it is drawn.
    public var isVisible: Bool {
        background != nil || [border.top, border.right, border.bottom, border.left].contains { $0.width > 0 }
    }
}
