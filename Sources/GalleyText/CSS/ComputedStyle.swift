/// The supported CSS properties of one element after the cascade, with what the text and
/// paragraph attributes need.
///
/// Inherited as in CSS: font, colour, `line-height`, `text-align`, `text-indent`,
/// `white-space`, `direction`, `list-style-type`, language and link. Text decorations and
/// baseline shifts carry on into descendants (as they are drawn over them in CSS), and the
/// horizontal margins, borders and paddings of block ancestors add up into the start and end
/// indents.
struct ComputedStyle: Sendable {
    /// `inlineBlock`: an atomic inline whose content is a block of its own (`InlineBlock`);
    /// `inline-flex` and `inline-grid` are set as it, their content in normal flow.
    enum Display: Sendable { case inline, block, listItem, inlineBlock }

    /// `line-height`: numbers are inherited as numbers, lengths as points.
    enum LineHeight: Sendable, Hashable {
        case normal
        /// A multiple of the element's font size.
        case multiple(Double)
        case points(Double)
    }

    /// `text-transform`: `capitalize` puts the first letter of each word in upper case.
    enum TextTransform: String, Sendable, Hashable {
        case none, uppercase, lowercase, capitalize

        /// `text` in this case; `wordGoesOn`: the text before it ended inside a word, so a
        /// letter at its start does not start one (for `capitalize`).
        func applied(to text: String, wordGoesOn: Bool) -> String {
            switch self {
            case .none: return text
            case .uppercase: return text.uppercased()
            case .lowercase: return text.lowercased()
            case .capitalize:
                var result = ""
                var inWord = wordGoesOn
                for character in text {
                    let letter = character.isLetter || character.isNumber
                    result += letter && !inWord ? character.uppercased() : String(character)
                    inWord = letter || (inWord && (character == "'" || character == "\u{2019}"))
                }
                return result
            }
        }
    }

    enum ListMarker: Sendable, Hashable {
        case disc, circle, square, decimal, lowerAlpha, upperAlpha, lowerRoman, upperRoman, none

        init?(_ keyword: String) {
            switch keyword {
            case "disc": self = .disc
            case "circle": self = .circle
            case "square": self = .square
            case "decimal", "decimal-leading-zero": self = .decimal
            case "lower-alpha", "lower-latin": self = .lowerAlpha
            case "upper-alpha", "upper-latin": self = .upperAlpha
            case "lower-roman": self = .lowerRoman
            case "upper-roman": self = .upperRoman
            case "none": self = .none
            default: return nil
            }
        }
    }

    /// The typical natural line height of a font (ascender + descender + line gap) as a
    /// multiple of its size, used to turn CSS line heights, which are multiples of the font
    /// size, into an estimate of `ParagraphStyle.lineHeight`, a multiple of the natural line
    /// height, for what measures room before the lines are set (text beside floats); the lines
    /// themselves follow `ParagraphStyle.cssLineHeight`. Real fonts range from about 1.1 to
    /// 1.3 (DejaVu Serif: 1.16).
    static let naturalLineHeight = 1.17

    var text: TextStyle
    var lineHeight = LineHeight.normal
    /// Whether `line-height` was declared on this element (not inherited): a length inherited
    /// from an element with a smaller font (`body { line-height: 1.2em }` under an `h2`) is a
    /// floor for readability only, never a reason to print the lines over one another.
    var lineHeightDeclared = false
    var alignment = TextAlignment.start
    /// `text-align-last` (inherited): nil is `auto`, the start for justified text and
    /// `text-align` otherwise.
    var lastLineAlignment: TextAlignment?
    var direction = WritingDirection.auto
    var textIndent = 0.0
    /// `text-indent` in percent (a fraction of the block's width) and its `hanging` and
    /// `each-line` keywords.
    var textIndentFraction = 0.0
    var textIndentHangs = false
    var textIndentEachLine = false
    var whiteSpace = WhiteSpaceMode.collapse
    /// `text-transform` (inherited): the case the element's text is set in.
    var textTransform = TextTransform.none
    /// nil: by the kind of list and its depth.
    var listMarker: ListMarker?
    var startIndent = 0.0
    var endIndent = 0.0
    /// The font size of the root element, for `rem`.
    var rootSize: Double
    // Not inherited:
    var display = Display.inline
    /// A block box in the flow (`block` or `list-item`): not `inline`, nor an inline-block.
    var isBlockLevel: Bool { display == .block || display == .listItem }
    /// `vertical-align` of an inline-block: its keyword (`top`, `middle`, `bottom`), else the
    /// baseline (shifted by `text.baselineShift`). Not inherited.
    var inlineBlockAlignment = InlineBlock.Alignment.baseline
    var marginTop = 0.0
    var marginBottom = 0.0
    /// `display: none`: the element and what it holds are not set.
    var displayNone = false
    /// `visibility: hidden` (inherited): set, taking its room, but not drawn (`TextStyle.isHidden`).
    var visibilityHidden = false
    /// A `display: table…` value on an element that is not a table's (`div` as `table-cell`):
    /// set as a block, but given no size, since CSS sizes such boxes by table rules Galley
    /// does not apply to them.
    var tableDisplay = false
    /// `display: inline-table`: the table is set in its line, as an inline-block holding it.
    var inlineTable = false
    /// The table part a `display: table` (`inline-table`), `table-caption`,
    /// `table-row-group` (`-header-`, `-footer-group`), `table-row` or `table-cell` makes an
    /// element, as the HTML element of that part (`table`, `caption`, `tbody`, `thead`,
    /// `tfoot`, `tr`, `td`): it is built as that element is, a row group, row or cell in no
    /// table inside an anonymous one (CSS 2.1 §17.2.1). Nil for other values.
    var tablePart: String?
    /// `position: absolute` or `fixed`: the element is taken out of the flow and placed
    /// against its containing block (`PositionedBlock`).
    var outOfFlow = false
    /// `position` and its offsets `top`, `right`, `bottom`, `left` (not inherited).
    var position = Positioning.static
    var offsets = BoxOffsets()
    /// `z-index` of a positioned element (nil: `auto`); not inherited. Only its sign is
    /// used: below zero, an absolutely positioned block is drawn under the flow.
    var zIndex: Int?
    /// `overflow` other than `visible`: the block's content is cut at its padding box, and an
    /// inline-block's baseline is its bottom margin edge (CSS 2.1 §10.8.1). Not inherited.
    var clipsOverflow = false
    /// `break-before`, `break-after`, `break-inside` (not inherited).
    var breakBefore = BlockBreak.auto
    /// The side `break-before: left | right` starts the block's page on, and the side
    /// `break-after: left | right` the next block's (not inherited).
    var pageSide: PageSide?
    var pageSideAfter: PageSide?
    /// `string-set`, as written (not inherited).
    var stringSet: String?
    /// The used page name (CSS `page`): the element's own, else (`auto`) its parent's, so it
    /// is carried over as an inherited property is.
    var pageName: String?
    /// `content`, `counter-reset` and `counter-increment`, as written (not inherited): what a
    /// `::before` or `::after` shows, and the counters an element changes (`GeneratedContent`).
    var content: String?
    var counterReset: String?
    var counterIncrement: String?
    var breakAfter = BlockBreak.auto
    var avoidBreakInside = false
    /// `column-span: all` on the block or a block holding it: everything inside a spanning
    /// block spans with it (CSS puts its content in the spanner's own formatting context).
    var spansColumns = false
    /// `float` and `clear` (not inherited): read for pictures, and `clear` for blocks.
    var float: FloatSide?
    var clear: Set<FloatSide> = []
    /// Inherited.
    var lineBreak = LineBreakStrictness.auto
    /// `orphans` and `widows` (inherited).
    var orphans = 2
    var widows = 2
    /// Whether the block's lines may be justified (`-galley-justify: never` in the user-agent
    /// style sheet for headings; `text-align: justify` on the element itself allows it again).
    var justifiable = true
    /// Inside a table cell (inherited): its lines are justified only where `text-align:
    /// justify` says so, never by the layout's `justify_threshold`, which is for running
    /// text; a cell's narrow measure would leave most such lines loose.
    var inTableCell = false
    /// `columns`, `column-count`, `column-width`, `column-gap`, `column-rule` and `column-fill`
    /// declared on the element (not inherited): a block with a count or a width is a
    /// multi-column element (`BlockStyle.columns`, `MulticolLayouter`).
    var columns = ColumnStyle()
    var columnRule = Box.Side()
    /// `width` and `height` in points, for images.
    var width: Double?
    var height: Double?
    /// The `writing-mode` this element declares (raw, lowercased), if any. Galley sets one
    /// writing mode per article, so this is not inherited: the walker picks the article's.
    var declaredWritingMode: String?
    /// The box of a table, row group, row or cell, or of a block (`TextBox`); on inline
    /// elements only the background is read, into `text.background`. Not inherited.
    var box = Box()
    /// A block's border box's distances from the start and end edges of the column: its
    /// ancestors' indents and its own margins (its lines are further in by its border and
    /// padding).
    var boxIndents = (start: 0.0, end: 0.0)
    /// `border-collapse: collapse` and `border-spacing` (points), inherited as in CSS.
    var borderCollapse = false
    var borderSpacing: Double?
    var borderRowSpacing: Double?
    /// `caption-side: bottom` (inherited): a caption is drawn below its table.
    var captionSideBottom = false
    /// `empty-cells: hide` (inherited): a cell with no content draws no border or background
    /// (separated borders).
    var emptyCellsHide = false

    /// What a table element or a block declares of its box; nil where it declares nothing.
    struct Box: Sendable {
        struct Side: Sendable, Equatable {
            var width: Double?
            /// A `border-style` other than `none` and `hidden`: CSS draws no border without one.
            var visible = false
            var color: RGBColor?
            var style = TextBox.BorderStyle.solid

            /// Takes a `border-style` keyword (one of `ComputedStyle.borderStyles`).
            mutating func take(style keyword: String) {
                visible = keyword != "none" && keyword != "hidden"
                style = TextBox.BorderStyle(rawValue: keyword) ?? .solid
            }
        }
        var padding = TextTable.Sides<Double?>(nil)
        var border = TextTable.Sides(Side())
        var background: RGBColor?
        /// `background-image` (`url(...)`'s address as written) and `background-repeat`.
        var backgroundImage: TextBox.BackgroundImage?
        var verticalAlignment: TextTable.VerticalAlignment?
        /// `width` as a percentage of the containing block.
        var widthFraction: Double?
        /// A table's `table-layout: fixed`.
        var fixedLayout = false
        /// A block's `width`, `height`, their limits, `box-sizing` and `auto` side margins.
        var size = BoxSize()
        /// A block's own start and end margins, in points (in the indents too).
        var margins = (start: 0.0, end: 0.0)
        /// Margins and paddings given as percentages, as fractions of the containing block's
        /// width (CSS 2.1 §8.3, §8.4: vertical ones too), by physical side; read for
        /// inline-blocks, whose containing block's width the layouter knows
        /// (`InlineBlock.marginFraction`). A length on the side afterwards sets it back to 0.
        var marginFractions = TextTable.Sides(0.0)
        var paddingFractions = TextTable.Sides(0.0)

        /// Records a percentage margin or padding (`margin-left`, `padding-top`, …): its
        /// fraction for a percentage, 0 for anything else, which replaces it.
        mutating func takeFraction(property: String, value: String) {
            var fraction = 0.0
            if case .percent(let percent)? = CSSLength(value), percent.isFinite {
                fraction = max(property.hasPrefix("padding") ? 0 : -10, min(percent, 1000)) / 100
            }
            let margin = property.hasPrefix("margin")
            func set(_ sides: inout TextTable.Sides<Double>) {
                if property.hasSuffix("top") { sides.top = fraction }
                else if property.hasSuffix("right") { sides.right = fraction }
                else if property.hasSuffix("bottom") { sides.bottom = fraction }
                else { sides.left = fraction }
            }
            if margin { set(&marginFractions) } else { set(&paddingFractions) }
        }

        /// A side's border as drawn: CSS's `medium` (3 px) when a style is given without a width.
        func drawn(_ side: Side, color: RGBColor) -> TextTable.Border {
            guard side.visible else { return TextTable.Border() }
            return TextTable.Border(width: ComputedStyle.clamped(side.width ?? 3 * CSSLength.pointsPerPixel, 0), color: side.color ?? color)
        }

        /// The four paddings, `missing` where none is declared (a cell's default).
        func paddings(missing: Double = 0) -> TextTable.Sides<Double> {
            var sides = TextTable.Sides(missing)
            (sides.top, sides.right) = (padding.top ?? missing, padding.right ?? missing)
            (sides.bottom, sides.left) = (padding.bottom ?? missing, padding.left ?? missing)
            return sides
        }

        /// The four border sides as drawn (`drawn`), for a caption's or a cell's box.
        func drawnBorders(color: RGBColor) -> TextTable.Sides<TextTable.Border> {
            var sides = TextTable.Sides(TextTable.Border())
            (sides.top, sides.right) = (drawn(border.top, color: color), drawn(border.right, color: color))
            (sides.bottom, sides.left) = (drawn(border.bottom, color: color), drawn(border.left, color: color))
            return sides
        }

        /// A block's border side as drawn, with its style.
        func drawnBox(_ side: Side, color: RGBColor) -> TextBox.Border {
            let border = drawn(side, color: color)
            return TextBox.Border(width: border.width, color: border.color, style: side.style)
        }

        /// The height of a block's content box when it declares one in points (its `height`
        /// less its vertical paddings and borders with `box-sizing: border-box`): what its
        /// children's percentage heights are of; nil with an `auto` or percentage height.
        var definiteContentHeight: Double? {
            guard case .points(let height) = size.height else { return nil }
            guard size.borderBox else { return height }
            let borders = [border.top, border.bottom].map { drawn($0, color: .black).width }.reduce(0, +)
            return max(0, height - (padding.top ?? 0) - (padding.bottom ?? 0) - borders)
        }

        /// Whether a block draws a box: a visible border, vertical padding or a background
        /// (horizontal padding only indents its lines).
        var isDrawnOnBlock: Bool {
            background != nil || backgroundImage != nil || (padding.top ?? 0) > 0 || (padding.bottom ?? 0) > 0
                || [border.top, border.right, border.bottom, border.left].contains { $0.visible && ($0.width ?? 1) > 0 }
        }
    }

    /// The style of the root: the base style's font, size, colour and language.
    init(base: BaseStyle) {
        var text = TextStyle(font: FontRequest(families: [base.fontFamily]), size: base.fontSize, color: base.color)
        text.language = base.language
        text.hyphens = base.hyphens
        self.text = text
        rootSize = base.fontSize
    }

    /// The style a child starts from: inherited properties kept, the others reset.
    func child() -> ComputedStyle {
        var style = self
        style.lineHeightDeclared = false
        style.display = .inline
        style.inlineBlockAlignment = .baseline
        style.marginTop = 0
        style.marginBottom = 0
        style.width = nil
        style.height = nil
        style.declaredWritingMode = nil
        style.box = Box()
        style.columns = ColumnStyle()
        style.columnRule = Box.Side()
        style.boxIndents = (0, 0)
        style.justifiable = true
        style.displayNone = false
        style.tableDisplay = false
        style.inlineTable = false
        style.tablePart = nil
        style.outOfFlow = false
        style.position = .static
        style.offsets = BoxOffsets()
        style.zIndex = nil
        style.clipsOverflow = false
        style.breakBefore = .auto
        style.breakAfter = .auto
        style.pageSide = nil
        style.pageSideAfter = nil
        style.stringSet = nil
        style.content = nil
        style.counterReset = nil
        style.counterIncrement = nil
        style.avoidBreakInside = false
        style.float = nil
        style.clear = []
        return style
    }

    /// The paragraph attributes of text in a block with this style.
    func paragraphStyle(base: BaseStyle) -> ParagraphStyle {
        var paragraph = ParagraphStyle()
        paragraph.alignment = alignment
        paragraph.lastLineAlignment = lastLineAlignment
        paragraph.direction = direction
        // `hanging` indents every line but the first: the indent goes to all of them and the
        // first line takes it back.
        let indent = Self.clamped(textIndent, -Self.maximumLength)
        paragraph.firstLineIndent = textIndentHangs ? -indent : indent
        paragraph.textIndentFraction = min(max(textIndentFraction, -1), 1)
        paragraph.textIndentHangs = textIndentHangs
        paragraph.textIndentEachLine = textIndentEachLine
        paragraph.startIndent = Self.clamped(startIndent + (textIndentHangs ? indent : 0), 0)
        paragraph.endIndent = Self.clamped(endIndent, 0)
        let multiple: Double
        switch lineHeight {
        case .normal: multiple = base.lineHeight
        case .multiple(let factor): multiple = factor / Self.naturalLineHeight
        case .points(let points): multiple = points / (Self.naturalLineHeight * text.size)
        }
        paragraph.lineHeight = multiple.isFinite && multiple >= 0 ? min(multiple, 100) : base.lineHeight
        switch lineHeight {
        case .normal: break
        case .multiple(let factor) where factor.isFinite: paragraph.cssLineHeight = .fontSizes(min(factor, 100))
        case .points(let points) where points.isFinite: paragraph.cssLineHeight = .points(min(points, Self.maximumLength))
        default: break
        }
        if case .points = lineHeight, !lineHeightDeclared { paragraph.lineHeightAtLeastText = true }
        paragraph.justifiable = justifiable && whiteSpace != .preserve && (!inTableCell || alignment == .justify)
        paragraph.orphans = orphans
        paragraph.widows = widows
        paragraph.avoidBreakInside = avoidBreakInside
        paragraph.pageName = pageName
        paragraph.spansColumns = spansColumns
        paragraph.clear = clear
        paragraph.lineBreak = lineBreak
        if whiteSpace == .preserve { paragraph.continuationIndent = Self.clamped(2 * text.size, 0) }
        return paragraph
    }

    /// The writing mode a `writing-mode` value asks for (CSS and the older SVG/IE names);
    /// nil for modes Galley does not set (`vertical-lr`, `sideways-*`).
    static func writingMode(_ value: String) -> WritingMode? {
        switch value {
        case "horizontal-tb", "lr", "lr-tb", "rl", "rl-tb": .horizontalTB
        case "vertical-rl", "tb", "tb-rl": .verticalRL
        default: nil
        }
    }

    /// Lengths beyond this many points are absurd input (say, margins that add up over 200
    /// nesting levels); they are clamped so that no infinity reaches the typesetter.
    static let maximumLength = 100_000.0

    static func clamped(_ value: Double, _ minimum: Double) -> Double {
        value.isNaN ? 0 : min(max(value, minimum), maximumLength)
    }

    /// Applies declarations in cascade order (`!important` ones after the rest); a later valid
    /// declaration wins. Unknown properties and invalid values are ignored, as in CSS; the
    /// names of the properties not supported are returned, for a summary.
    /// `tableElement`: the element is part of a table (`table`, `tr`, `td`, ...), whose box
    /// properties (borders, paddings, background, `vertical-align`) are read.
    /// The HTML table element whose part a `display` value makes an element (`tablePart`).
    static func tablePart(ofDisplay value: String) -> String? {
        switch value {
        case "table", "inline-table": "table"
        case "table-caption": "caption"
        case "table-header-group": "thead"
        case "table-footer-group": "tfoot"
        case "table-row-group": "tbody"
        case "table-row": "tr"
        case "table-cell": "td"
        case "table-column": "col"
        case "table-column-group": "colgroup"
        default: nil
        }
    }

    @discardableResult
    mutating func apply(_ declarations: [CSSDeclaration], parent: ComputedStyle, base: BaseStyle, tableElement: Bool = false) -> [String] {
        guard !declarations.isEmpty else { return [] }
        var ignored: [String] = []
        let ordered = declarations.contains(where: \.important)
            ? declarations.filter { !$0.important } + declarations.filter(\.important)
            : declarations
        // First what the others depend on: `em` needs the font size, horizontal margins
        // need the display and the direction.
        for declaration in ordered {
            let value = declaration.value.lowercased()
            switch declaration.property {
            case "font-size":
                if let size = Self.fontSize(value, parent: parent.text.size, base: base.fontSize, root: rootSize) {
                    text.size = size
                }
            case "direction":
                switch value {
                case "ltr": direction = .ltr
                case "rtl": direction = .rtl
                case "auto": direction = .auto
                default: break
                }
            case "display":
                if !["inherit", "initial", "unset", "revert"].contains(value) { tablePart = Self.tablePart(ofDisplay: value) }
                switch value {
                case "none": displayNone = true
                case "list-item": (display, displayNone) = (.listItem, false)
                case "contents": (display, displayNone) = (.inline, false)
                case "inline-block", "inline-flex", "inline-grid", "-webkit-inline-box": (display, displayNone) = (.inlineBlock, false)
                case "inherit", "initial", "unset", "revert": break
                default:
                    // An inline table is set as a table, which Galley sets between blocks.
                    let inline = (value.hasPrefix("inline") && value != "inline-table") || value == "ruby"
                    (display, displayNone) = (inline ? .inline : .block, false)
                    tableDisplay = value.hasPrefix("table") || value.hasPrefix("inline-table")
                    inlineTable = value == "inline-table"
                }
            default:
                break
            }
        }
        // A `display: table-cell` (or row, row group) element's box is read as a cell's.
        let tableElement = tableElement || tablePart != nil
        // Horizontal margins and paddings add up into the indents, and text decorations
        // combine with the parent's, so only the last of each counts. Logical sides become
        // physical ones, so that a later `margin-left` overrides an earlier
        // `margin-inline-start` and the other way round.
        let rtl = direction == .rtl
        // Points by side, each parsed once; summed in a fixed order below, so the indents do
        // not depend on a dictionary's order.
        var sides: [String: Double] = [:]
        var autoSides: Set<String> = []
        var decoration: String?
        for declaration in ordered {
            switch declaration.property {
            case "font-size", "direction", "display":
                break
            case "margin-left", "margin-right", "padding-left", "padding-right":
                box.takeFraction(property: declaration.property, value: declaration.value)
                if let points = length(declaration.value, rootSize: rootSize) { sides[declaration.property] = points }
                if declaration.value.trimmingASCIIWhitespace().lowercased() == "auto" {
                    autoSides.insert(declaration.property)
                    sides[declaration.property] = nil
                } else if sides[declaration.property] != nil {
                    autoSides.remove(declaration.property)
                }
                if tableElement { _ = applyBox(property: declaration.property, value: declaration.value) }
            case "margin-inline-start", "margin-inline-end", "padding-inline-start", "padding-inline-end":
                guard let points = length(declaration.value, rootSize: rootSize) else { break }
                let box = declaration.property.hasPrefix("margin") ? "margin" : "padding"
                let left = declaration.property.hasSuffix("start") != rtl
                sides[box + (left ? "-left" : "-right")] = points
                autoSides.remove(box + (left ? "-left" : "-right"))
            case "text-decoration":
                decoration = declaration.value.lowercased()
            default:
                if tableElement && applyBox(property: declaration.property, value: declaration.value) { break }
                // A block's border, vertical padding and background: its `TextBox`.
                if !tableElement && display != .inline && Self.isBlockBoxProperty(declaration.property)
                    && (inheritBorder(declaration.property, value: declaration.value, from: parent)
                        || applyBox(property: declaration.property, value: declaration.value)) { break }
                if !apply(property: declaration.property, value: declaration.value, parent: parent, base: base) {
                    ignored.append(declaration.property)
                }
            }
        }
        if display != .inline {
            for side in ["margin-left", "padding-left", "margin-right", "padding-right"] {
                guard let points = sides[side] else { continue }
                if side.hasSuffix("left") != rtl {
                    startIndent += points
                } else {
                    endIndent += points
                }
            }
            // The border box starts inside the margins; the lines inside the border too (a
            // table's border is drawn inside its width by the table layouter instead).
            let paddings = (left: sides["padding-left"] ?? 0, right: sides["padding-right"] ?? 0)
            if !tableElement { (box.padding.left, box.padding.right) = (paddings.left, paddings.right) }
            let margins = (left: sides["margin-left"] ?? 0, right: sides["margin-right"] ?? 0)
            box.margins = rtl ? (margins.right, margins.left) : (margins.left, margins.right)
            let autoMargins = (left: autoSides.contains("margin-left"), right: autoSides.contains("margin-right"))
            (box.size.marginStartAuto, box.size.marginEndAuto) = rtl ? (autoMargins.right, autoMargins.left) : (autoMargins.left, autoMargins.right)
            boxIndents = rtl ? (startIndent - paddings.right, endIndent - paddings.left) : (startIndent - paddings.left, endIndent - paddings.right)
            if !tableElement {
                let left = box.drawn(box.border.left, color: text.color).width, right = box.drawn(box.border.right, color: text.color).width
                startIndent += rtl ? right : left
                endIndent += rtl ? left : right
            }
        }
        // `position: relative` on an inline element moves what it draws, and its inline
        // descendants with it; a block's own offsets are the block layer's (`FramePositions`),
        // and the text inside a block starts unmoved.
        // An inline element's own `line-height` is its text's (a block's is its paragraphs').
        if display != .inline {
            text.lineHeight = nil
        } else if lineHeightDeclared {
            switch lineHeight {
            case .normal: break
            case .multiple(let factor) where factor.isFinite: text.lineHeight = .fontSizes(min(factor, 100))
            case .points(let points) where points.isFinite: text.lineHeight = .points(min(points, Self.maximumLength))
            default: break
            }
        }
        if display != .inline {
            (text.relativeX, text.relativeY) = (0, 0)
        } else if position == .relative {
            let shift = offsets.relativeShift
            text.relativeX = Self.clamped(text.relativeX + shift.x, -Self.maximumLength)
            text.relativeY = Self.clamped(text.relativeY + shift.y, -Self.maximumLength)
        }
        if let decoration {
            let words = decoration.split(separator: " ")
            if words.contains("none") {
                // CSS cannot take a parent's line away; articles that say `none` mean it.
                text.underline = false
                text.strikethrough = false
            } else {
                if words.contains("underline") { text.underline = true }
                if words.contains("line-through") { text.strikethrough = true }
            }
        }
        return ignored
    }

    /// The address of `url(...)` (quoted or not), as written; nil for another value.
    static func url(_ word: String) -> String? {
        guard word.lowercased().hasPrefix("url("), word.hasSuffix(")") else { return nil }
        var inner = word.dropFirst(4).dropLast().trimmingCharacters(in: .whitespaces)
        if inner.count >= 2, let first = inner.first, first == "\"" || first == "'", inner.last == first {
            inner = String(inner.dropFirst().dropLast())
        }
        return inner.isEmpty ? nil : inner
    }

    /// `background-repeat`'s keyword: whether it repeats across and down.
    static func backgroundRepeat(_ word: String) -> (Bool, Bool)? {
        switch word {
        case "repeat": (true, true)
        case "repeat-x": (true, false)
        case "repeat-y": (false, true)
        case "no-repeat": (false, false)
        default: nil
        }
    }

    /// The words of a property's value: split at white space outside parentheses, so that a
    /// function keeps its arguments (`1px solid rgb(40%, 0%, 0%)` is three words, not five).
    /// Written here because the value is already one declaration's: no CSS tokenizer is needed.
    static func words(_ value: String) -> [String] {
        var words: [String] = []
        var word = ""
        var depth = 0
        for character in value {
            if depth == 0 && (character == " " || character == "\t" || character == "\n" || character == "\r" || character == "\u{0C}") {
                if !word.isEmpty { words.append(word) }
                word = ""
                continue
            }
            if character == "(" { depth += 1 } else if character == ")" { depth = max(0, depth - 1) }
            word.append(character)
        }
        if !word.isEmpty { words.append(word) }
        return words
    }

    /// Applies one declaration; false when Galley does not support the property.
    private mutating func apply(property: String, value rawValue: String, parent: ComputedStyle, base: BaseStyle) -> Bool {
        let value = rawValue.lowercased()
        if value == "inherit" || value == "initial" || value == "unset" || value == "revert" { return true }
        switch property {
        case "background-color", "background":
            // Inline boxes here (a block's goes into its `TextBox`). A transparent background
            // shows the enclosing inline's, which the text already carries.
            guard display == .inline else { return false }
            if value == "none" || value == "transparent" { return true }
            // The whole value (`rgb(0, 0, 0)`), else the first word that is a colour
            // (`#eee url(x.png) no-repeat`).
            guard let color = RGBColor(css: value) ?? Self.words(value).lazy.compactMap({ RGBColor(css: $0) }).first
            else { return false }
            text.background = color
        case "writing-mode", "-webkit-writing-mode", "-epub-writing-mode":
            declaredWritingMode = value
        case "font-family":
            if let families = Self.fontFamilies(rawValue, base: base) { text.font.families = families }
        case "font-weight":
            if let weight = Self.fontWeight(value, parent: parent.text.font.weight) { text.font.weight = weight }
        case "font-style":
            if value == "normal" {
                text.font.italic = false
            } else if value == "italic" || value.hasPrefix("oblique") {
                text.font.italic = true
            }
        case "color":
            if let color = RGBColor(css: value) { text.color = color }
        case "line-height":
            lineHeightDeclared = true
            if value == "normal" {
                lineHeight = .normal
            } else if let length = CSSLength(value) {
                switch length {
                // 0 is allowed: lines of no height, drawn over one another, as CSS sets them.
                case .number(let factor) where factor >= 0: lineHeight = .multiple(factor)
                case .percent(let percent) where percent >= 0: lineHeight = .points(percent / 100 * text.size)
                default:
                    if let points = length.points(fontSize: text.size, rootSize: rootSize), points >= 0 {
                        lineHeight = .points(points)
                    }
                }
            }
        case "text-align":
            switch value {
            case "left", "-webkit-left", "-moz-left": alignment = .left
            case "right", "-webkit-right", "-moz-right": alignment = .right
            case "center", "-webkit-center", "-moz-center": alignment = .center
            case "justify", "justify-all":
                alignment = .justify
                justifiable = true
            case "start": alignment = .start
            case "end": alignment = direction == .rtl ? .left : .right
            default: break
            }
        case "text-align-last":
            switch value {
            case "auto": lastLineAlignment = nil
            case "left": lastLineAlignment = .left
            case "right": lastLineAlignment = .right
            case "center": lastLineAlignment = .center
            case "justify":
                lastLineAlignment = .justify
                justifiable = true
            case "start": lastLineAlignment = .start
            case "end": lastLineAlignment = direction == .rtl ? .left : .right
            case "match-parent": lastLineAlignment = parent.lastLineAlignment
            default: break
            }
        case "hyphens", "-webkit-hyphens", "-moz-hyphens", "-ms-hyphens":
            if let hyphens = Hyphens(rawValue: value) { text.hyphens = hyphens }
        case "line-break":
            if let strictness = LineBreakStrictness(rawValue: value) { lineBreak = strictness }
        case "text-indent":
            // `<length-percentage> && hanging? && each-line?` (CSS Text 3 §8.1); `each-line`
            // indents the line after each forced break (`<br>`) as the first.
            var words = Self.words(value)
            let hangs = words.contains("hanging")
            let eachLine = words.contains("each-line")
            words.removeAll { $0 == "hanging" || $0 == "each-line" }
            guard words.count == 1, let amount = CSSLength(words[0]) else { return false }
            if case .percent(let percent) = amount {
                (textIndent, textIndentFraction) = (0, Self.clamped(percent / 100, -1))
            } else if let points = length(words[0], rootSize: rootSize) {
                (textIndent, textIndentFraction) = (points, 0)
            } else {
                return false
            }
            (textIndentHangs, textIndentEachLine) = (hangs, eachLine)
        case "letter-spacing", "word-spacing":
            // Inherited as a length: `em` is the declaring element's font size. A number
            // without a unit (but 0) or a percentage is not valid here.
            let points = value == "normal" ? 0 : CSSLength(value)?.points(fontSize: text.size, rootSize: rootSize)
            guard let points, points.isFinite else { return true }
            let clamped = ComputedStyle.clamped(points, -Self.maximumLength)
            if property == "letter-spacing" { text.letterSpacing = clamped } else { text.wordSpacing = clamped }
        case "margin-top":
            box.takeFraction(property: property, value: value)
            if value == "auto" { marginTop = 0 } else if let points = length(value, rootSize: rootSize) { marginTop = points }
        case "margin-bottom":
            box.takeFraction(property: property, value: value)
            if value == "auto" { marginBottom = 0 } else if let points = length(value, rootSize: rootSize) { marginBottom = points }
        case "text-transform":
            guard let transform = TextTransform(rawValue: value) else { return false }
            textTransform = transform
        case "caption-side":
            if value == "bottom" { captionSideBottom = true } else if value == "top" { captionSideBottom = false } else { return false }
        case "empty-cells":
            if value == "hide" { emptyCellsHide = true } else if value == "show" { emptyCellsHide = false } else { return false }
        case "white-space":
            switch value {
            case "normal", "nowrap": whiteSpace = .collapse
            case "pre", "pre-wrap", "break-spaces":
                whiteSpace = .preserve
                text.verbatim = true
            case "pre-line": whiteSpace = .preserveLineBreaks
            default: break
            }
        case "page":
            if value != "auto", value != "inherit", value != "unset", value != "initial",
               !value.isEmpty, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) { pageName = value }
        case "break-before", "page-break-before", "-webkit-column-break-before":
            if let kind = BlockBreak(css: value) { (breakBefore, pageSide) = (kind, PageSide(css: value)) }
        case "break-after", "page-break-after", "-webkit-column-break-after":
            if let kind = BlockBreak(css: value) { (breakAfter, pageSideAfter) = (kind, PageSide(css: value)) }
        case "break-inside", "page-break-inside", "-webkit-column-break-inside":
            if value == "auto" { avoidBreakInside = false } else if BlockBreak(css: value) == .avoid { avoidBreakInside = true }
        case "float":
            switch value {
            case "left", "inline-start": float = .left
            case "right", "inline-end": float = .right
            case "none": float = nil
            default: return false
            }
        case "clear":
            switch value {
            case "left", "inline-start": clear = [.left]
            case "right", "inline-end": clear = [.right]
            case "both": clear = [.left, .right]
            case "none": clear = []
            default: return false
            }
        case "column-span", "-webkit-column-span":
            // `none` cannot take an element out of a spanning ancestor.
            if value == "all" { spansColumns = true } else if value == "none" { spansColumns = parent.spansColumns }
        case "orphans":
            if let count = Int(value), count >= 1 { orphans = min(count, 100) }
        case "widows":
            if let count = Int(value), count >= 1 { widows = min(count, 100) }
        case "visibility":
            // Hidden text takes its room and is not drawn; `visible` on a descendant shows it again.
            if value == "hidden" || value == "collapse" { visibilityHidden = true } else if value == "visible" { visibilityHidden = false }
            text.isHidden = visibilityHidden
        case "-galley-verbatim":
            // The user-agent style sheet's mark for code elements.
            text.verbatim = value == "yes"
        case "string-set":
            stringSet = value == "none" ? nil : rawValue
        case "content":
            content = rawValue
        case "counter-reset":
            counterReset = rawValue
        case "counter-increment":
            counterIncrement = rawValue
        case "-galley-justify":
            // The user-agent style sheet's mark for headings.
            justifiable = value != "never"
        case "vertical-align":
            switch value {
            case "sub": text.baselineShift = parent.text.baselineShift - 0.25 * parent.text.size
            case "super": text.baselineShift = parent.text.baselineShift + 0.35 * parent.text.size
            case "baseline": text.baselineShift = parent.text.baselineShift
            default:
                if let points = length(value, rootSize: rootSize) { text.baselineShift = parent.text.baselineShift + points }
            }
            text.baselineShift = Self.clamped(text.baselineShift, -Self.maximumLength)
            inlineBlockAlignment = InlineBlock.Alignment(css: value) ?? .baseline
        case "list-style-type":
            if let marker = ListMarker(value) { listMarker = marker }
        case "position":
            position = Positioning(rawValue: value) ?? position
            outOfFlow = position == .absolute || position == .fixed
            // An absolutely positioned box is a block, whatever its `display` (CSS 2.1 §9.7).
            if outOfFlow && display == .inline { display = .block }
        case "z-index":
            guard value == "auto" || Int(value) != nil else { return false }
            zIndex = Int(value)
        case "top", "right", "bottom", "left":
            guard let length = offsetLength(value) else { return false }
            offsets[keyPath: BoxOffsets.side(property)] = length
        case "overflow", "overflow-x", "overflow-y":
            clipsOverflow = ["hidden", "clip", "scroll", "auto"].contains(value)
        case "column-count", "column-width", "column-gap", "columns":
            if property == "columns" { (columns.count, columns.width) = (nil, nil) }
            for token in value.split(separator: " ").map(String.init) {
                if token == "auto" || token == "normal" {
                    if property == "column-count" { columns.count = nil }
                    if property == "column-width" { columns.width = nil }
                    if property == "column-gap" { columns.gap = nil }
                } else if let count = Int(token), count > 0, property != "column-width", property != "column-gap" {
                    columns.count = min(count, ColumnStyle.maximumCount)
                } else if property != "column-count", let points = length(token, rootSize: rootSize), points >= 0 {
                    if property == "column-gap" { columns.gap = Self.clamped(points, 0) } else { columns.width = max(1, Self.clamped(points, 0)) }
                }
            }
        case "column-rule", "column-rule-width", "column-rule-style", "column-rule-color":
            let tokens = Self.words(value)
            if property == "column-rule" { columnRule = Box.Side() }
            take(border: tokens, into: &columnRule, only: property == "column-rule" ? nil : String(property.dropFirst(12)))
        case "column-fill":
            switch value {
            case "auto": columns.fill = .auto
            case "balance", "balance-all": columns.fill = .balance
            default: return false
            }
        case "width":
            width = length(value, rootSize: rootSize).map { max(0, $0) }
            // A percentage is of the containing block: a table's or a floated block's column.
            if value.hasSuffix("%"), let percent = Double(value.dropLast()), percent.isFinite, percent > 0 {
                box.widthFraction = min(percent, 100) / 100
            }
            box.size.width = boxLength(value) ?? box.size.width
        case "height":
            height = length(value, rootSize: rootSize).map { max(0, $0) }
            box.size.height = boxLength(value) ?? box.size.height
        case "min-width", "max-width", "min-height", "max-height":
            guard let length = boxLength(value) else { return true }
            switch property {
            case "min-width": box.size.minWidth = length
            case "max-width": box.size.maxWidth = length
            case "min-height": box.size.minHeight = length
            default: box.size.maxHeight = length
            }
        case "box-sizing":
            if value == "border-box" { box.size.borderBox = true } else if value == "content-box" { box.size.borderBox = false }
        case "margin-right", "margin-left", "padding-right", "padding-left", "margin-inline-start", "margin-inline-end",
             "padding-inline-start", "padding-inline-end", "font-size", "direction", "display", "text-decoration":
            break  // Applied by `apply(_:parent:base:)`.
        default:
            return false
        }
        return true
    }

    /// Applies a box property of a table element or a block (or `border-collapse`,
    /// `border-spacing`); false for other properties.
    private mutating func applyBox(property: String, value rawValue: String) -> Bool {
        let value = rawValue.lowercased()
        let sideNames = ["top", "right", "bottom", "left"]
        func eachSide(_ names: [String], _ body: (inout Box.Side) -> Void) {
            for name in names {
                switch name {
                case "top": body(&box.border.top)
                case "right": body(&box.border.right)
                case "bottom": body(&box.border.bottom)
                default: body(&box.border.left)
                }
            }
        }
        let styles = Self.borderStyles
        let tokens = Self.words(value)
        switch property {
        case "border", "border-top", "border-right", "border-bottom", "border-left":
            let names = property == "border" ? sideNames : [String(property.dropFirst(7))]
            var side = Box.Side()
            take(border: tokens, into: &side)
            eachSide(names) { $0 = side }
        case "border-width", "border-style", "border-color":
            guard (1...4).contains(tokens.count) else { return true }
            let values = [tokens[0], tokens.count > 1 ? tokens[1] : tokens[0], tokens.count > 2 ? tokens[2] : tokens[0],
                          tokens.count > 3 ? tokens[3] : (tokens.count > 1 ? tokens[1] : tokens[0])]
            for (name, token) in zip(sideNames, values) {
                eachSide([name]) { side in
                    switch property {
                    case "border-width": side.width = borderWidth(token) ?? side.width
                    case "border-style": if styles.contains(token) { side.take(style: token) }
                    default: side.color = RGBColor(css: token) ?? side.color
                    }
                }
            }
        case _ where property.hasPrefix("border-") && sideNames.contains(where: { property.hasPrefix("border-\($0)-") }):
            let parts = property.split(separator: "-")
            guard parts.count == 3 else { return false }
            eachSide([String(parts[1])]) { side in
                switch parts[2] {
                case "width": side.width = borderWidth(value) ?? side.width
                case "style": if styles.contains(value) { side.take(style: value) }
                case "color": side.color = RGBColor(css: value) ?? side.color
                default: break
                }
            }
        case "padding-top", "padding-right", "padding-bottom", "padding-left":
            box.takeFraction(property: property, value: value)
            guard let points = length(value, rootSize: rootSize).map({ Self.clamped($0, 0) }) else { return true }
            switch property {
            case "padding-top": box.padding.top = points
            case "padding-right": box.padding.right = points
            case "padding-bottom": box.padding.bottom = points
            default: box.padding.left = points
            }
        case "background-color", "background":
            if value == "none" || value == "transparent" {
                box.background = nil
                if property == "background" { box.backgroundImage = nil }
                return true
            }
            if let color = tokens.lazy.compactMap({ RGBColor(css: $0) }).first { box.background = color }
            if property == "background" {
                // The shorthand resets what it does not give (CSS Backgrounds 3 §3.10).
                if !tokens.contains(where: { RGBColor(css: $0) != nil }) { box.background = nil }
                // The address as written: file names keep their case.
                box.backgroundImage = Self.words(rawValue).lazy.compactMap(Self.url).first.map { TextBox.BackgroundImage(source: $0) }
                if let repeating = tokens.lazy.compactMap(Self.backgroundRepeat).first {
                    box.backgroundImage?.repeatsAcross = repeating.0
                    box.backgroundImage?.repeatsDown = repeating.1
                }
            }
        case "background-image":
            if value == "none" { box.backgroundImage = nil; return true }
            guard let source = Self.url(rawValue.trimmingASCIIWhitespace()) else { return false }
            let repeating = box.backgroundImage.map { ($0.repeatsAcross, $0.repeatsDown) } ?? (true, true)
            box.backgroundImage = TextBox.BackgroundImage(source: source)
            box.backgroundImage?.repeatsAcross = repeating.0
            box.backgroundImage?.repeatsDown = repeating.1
        case "background-repeat":
            guard let repeating = Self.backgroundRepeat(value) else { return false }
            box.backgroundImage?.repeatsAcross = repeating.0
            box.backgroundImage?.repeatsDown = repeating.1
        case "vertical-align":
            guard let alignment = TextTable.VerticalAlignment(rawValue: value == "text-top" ? "top" : value == "text-bottom" ? "bottom" : value) else {
                return false
            }
            box.verticalAlignment = alignment
        case "border-collapse":
            if value == "collapse" { borderCollapse = true } else if value == "separate" { borderCollapse = false }
        case "table-layout":
            if value == "fixed" { box.fixedLayout = true } else if value == "auto" { box.fixedLayout = false }
        case "border-spacing":
            // One length for both directions, or horizontal then vertical.
            if let first = tokens.first, let points = length(first, rootSize: rootSize) {
                borderSpacing = Self.clamped(points, 0)
                borderRowSpacing = tokens.count > 1 ? length(tokens[1], rootSize: rootSize).map { Self.clamped($0, 0) } : nil
            }
        case "width":
            if value.hasSuffix("%"), let percent = Double(value.dropLast()), percent.isFinite, percent > 0 {
                box.widthFraction = min(percent, 100) / 100
            }
            return false  // `width` in points is read as for any element.
        default:
            return false
        }
        return true
    }

    /// A border width keyword or length, in points.
    private func borderWidth(_ token: String) -> Double? {
        switch token {
        case "thin": return 1 * CSSLength.pointsPerPixel
        case "medium": return 3 * CSSLength.pointsPerPixel
        case "thick": return 5 * CSSLength.pointsPerPixel
        default: return length(token, rootSize: rootSize).map { max(0, $0) }
        }
    }

    /// Reads a `border` (or `column-rule`) shorthand's tokens into `side`: its width, style and
    /// colour in any order; `only` (`width`, `style` or `color`): the one longhand given.
    private func take(border tokens: [String], into side: inout Box.Side, only: String? = nil) {
        for token in tokens {
            if only ?? "style" == "style", Self.borderStyles.contains(token) { side.take(style: token) }
            else if only ?? "width" == "width", let points = borderWidth(token) { side.width = points }
            else if only ?? "color" == "color", let parsed = RGBColor(css: token) { side.color = parsed }
        }
    }

    /// A `width`, `height` or limit as `BoxSize` keeps it: `auto` and `none` as `.auto`; nil
    /// for a value that is not valid (negative, or not a length).
    private func boxLength(_ value: String) -> BoxLength? {
        if value == "auto" || value == "none" { return .auto }
        if value.hasSuffix("%"), let percent = Double(value.dropLast()), percent.isFinite, percent >= 0 {
            return .fraction(min(percent, 1000) / 100)
        }
        guard let points = length(value, rootSize: rootSize), points >= 0 else { return nil }
        return .points(Self.clamped(points, 0))
    }

    /// An offset (`top`, `left`, …): a length, negative ones too, a percentage or `auto`.
    private func offsetLength(_ value: String) -> BoxLength? {
        if value == "auto" { return .auto }
        if value.hasSuffix("%"), let percent = Double(value.dropLast()), percent.isFinite {
            return .fraction(max(-1000, min(percent, 1000)) / 100)
        }
        return length(value, rootSize: rootSize).map { .points(Self.clamped($0, -Self.maximumLength)) }
    }

    /// `inherit` on one border side's width, style or colour (`border-left-width: inherit`):
    /// the parent's, whose box is not inherited otherwise. False for anything else.
    private mutating func inheritBorder(_ property: String, value: String, from parent: ComputedStyle) -> Bool {
        let parts = property.split(separator: "-")
        guard parts.count == 3, parts[0] == "border", value.trimmingASCIIWhitespace().lowercased() == "inherit" else { return false }
        let side: WritableKeyPath<TextTable.Sides<Box.Side>, Box.Side>
        switch parts[1] {
        case "top": side = \.top
        case "right": side = \.right
        case "bottom": side = \.bottom
        case "left": side = \.left
        default: return false
        }
        let inherited = parent.box.border[keyPath: side]
        switch parts[2] {
        case "width": box.border[keyPath: side].width = inherited.width
        case "style": (box.border[keyPath: side].visible, box.border[keyPath: side].style) = (inherited.visible, inherited.style)
        case "color": box.border[keyPath: side].color = inherited.color
        default: return false
        }
        return true
    }

    /// The `border-style` keywords.
    static let borderStyles: Set<String> = ["solid", "dotted", "dashed", "double", "groove", "ridge", "inset", "outset", "none", "hidden"]

    /// Whether a block's `TextBox` reads the property (its horizontal paddings are read with
    /// the margins, into the indents).
    static func isBlockBoxProperty(_ property: String) -> Bool {
        property.hasPrefix("border-") && !["border-collapse", "border-spacing"].contains(property) || property == "border"
            || property == "padding-top" || property == "padding-bottom" || property == "background" || property == "background-color"
            || property == "background-image" || property == "background-repeat"
    }

    /// A length in points, `em` relative to this element's font size; nil for percentages,
    /// `auto` and anything invalid.
    private func length(_ value: String, rootSize: Double) -> Double? {
        guard let length = CSSLength(value) else { return nil }
        if case .number(let number) = length, number != 0 {
            return number * CSSLength.pointsPerPixel  // Legacy pages write pixels without the unit; browsers accept it.
        }
        return length.points(fontSize: text.size, rootSize: rootSize).flatMap { $0.isFinite ? $0 : nil }
    }

    /// Factors of the base size for `<font size=1…7>` and the CSS size keywords, as browsers
    /// use them with a 16 px default (10, 13, 16, 18, 24, 32, 48 px).
    static let sizeKeywords: [String: Double] = [
        "xx-small": 0.5625, "x-small": 0.625, "small": 0.8125, "medium": 1, "large": 1.125,
        "x-large": 1.5, "xx-large": 2, "xxx-large": 3,
    ]

    /// A `font-size` in points: keywords relative to the base size, `em` and `%` to the
    /// parent's, `rem` to the root element's; clamped to 1…1000 pt.
    static func fontSize(_ text: String, parent: Double, base: Double, root: Double) -> Double? {
        let value = text.trimmingASCIIWhitespace().lowercased()
        let size: Double
        if let factor = sizeKeywords[value] {
            size = factor * base
        } else if value == "smaller" {
            size = parent / 1.2
        } else if value == "larger" {
            size = parent * 1.2
        } else if let length = CSSLength(value) {
            switch length {
            case .points(let points): size = points
            case .em(let count): size = count * parent
            case .rem(let count): size = count * root
            case .percent(let percent): size = percent / 100 * parent
            case .number(let number): size = number * CSSLength.pointsPerPixel
            }
        } else {
            return nil
        }
        guard size.isFinite, size > 0 else { return nil }
        return min(max(size, 1), 1000)
    }

    /// The family list of `font-family`, quotes stripped and generic names lower-cased, with
    /// the base family appended as the last resort when the list names no generic family. `-galley-monospace` is the user-agent
    /// style sheet's code font.
    static let genericFamilies: Set<String> = ["serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui",
                                                       "ui-serif", "ui-sans-serif", "ui-monospace", "math", "emoji"]

    static func fontFamilies(_ value: String, base: BaseStyle) -> [String]? {
        if value.trimmingASCIIWhitespace() == "-galley-monospace" {
            return ["DejaVu Sans Mono", "monospace"]
        }
        var families: [String] = []
        for item in StyleSheet.split(value, on: UInt8(ascii: ",")) {
            var name = item.trimmingASCIIWhitespace()
            if let first = name.first, first == "\"" || first == "'" {
                name = String(name.dropFirst())
                if name.last == first { name = String(name.dropLast()) }
            } else {
                name = name.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).joined(separator: " ")
                if genericFamilies.contains(name.lowercased()) { name = name.lowercased() }
            }
            if !name.isEmpty && !families.contains(name) { families.append(name) }
        }
        guard !families.isEmpty else { return nil }
        // A generic family always resolves, so the base family after it would only compete
        // with it: fontconfig ranks a family named in the request above the fonts a generic
        // name stands for, so `monospace` followed by DejaVu Serif gave serif code.
        if !families.contains(base.fontFamily) && !families.contains(where: { genericFamilies.contains($0.lowercased()) }) {
            families.append(base.fontFamily)
        }
        return families
    }

    /// A CSS `font-weight`, `bolder` and `lighter` relative to the parent's as CSS defines them.
    static func fontWeight(_ value: String, parent: Int) -> Int? {
        switch value {
        case "normal": return 400
        case "bold": return 700
        case "bolder": return parent < 350 ? 400 : parent < 550 ? 700 : 900
        case "lighter": return parent < 550 ? 100 : parent < 750 ? 400 : 700
        default:
            guard let number = Double(value), number.isFinite, number >= 1, number <= 1000 else { return nil }
            return min(900, max(100, Int((number / 100).rounded()) * 100))
        }
    }
}
