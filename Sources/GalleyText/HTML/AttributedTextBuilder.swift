/// How appended text treats white space (CSS `white-space`).
public enum WhiteSpaceMode: Sendable, Hashable {
    /// `normal`: each run of ASCII white space, line feeds and tabs included, becomes one
    /// space; none is kept at the start or the end of a line.
    case collapse
    /// `pre`, `pre-wrap`: spaces are kept, a tab advances to the next multiple of 8 columns
    /// and a line feed becomes U+2028.
    case preserve
    /// `pre-line`: spaces and tabs collapse as in `collapse`; line feeds become U+2028.
    case preserveLineBreaks
}

/// Accumulates text, character styles, paragraphs and inline images into an `AttributedText`
/// that passes `validate()`.
///
/// Paragraphs open lazily: `breakParagraph()` only ends the current paragraph, and the next one
/// starts with the next content (text that survives white-space collapsing, a line break, an
/// image or a list marker), taking `paragraphStyle` as it is at that moment. So empty blocks
/// leave no empty paragraphs; their vertical margins still count. Margins collapse as CSS
/// margins do (the largest positive margin plus the most negative one), and the whole gap goes
/// into the `spaceBefore` of the paragraph after it; `spaceAfter` is zero except on the last
/// paragraph, which carries the margins after it. A typesetter that adds the `spaceAfter` of
/// one paragraph to the `spaceBefore` of the next thus gets the CSS gap.
///
/// A line break at the very end of a paragraph is dropped, as browsers do not show an empty
/// line for it (`<p>text<br></p>`, a `<pre>` ending in a newline); a paragraph that holds only
/// a line break keeps it, so that `<p><br></p>` stays a blank line.
public struct AttributedTextBuilder: Sendable {
    /// Paragraph attributes for paragraphs that start from now on (those of the innermost
    /// block). `spaceBefore`, `spaceAfter` and `ruleAbove` are filled in by the builder from
    /// `addMargin(_:)` and `addRuleAbove()`.
    public var paragraphStyle = ParagraphStyle()

    private var scalars: [Unicode.Scalar] = []
    private var styleRuns: [AttributeRun<TextStyle>] = []
    private var paragraphs: [AttributeRun<ParagraphStyle>] = []
    private var attachments: [Attachment] = []

    /// Where the open paragraph starts and its attributes; nil when no paragraph is open.
    private var openStart: Int?
    private var openStyle = ParagraphStyle()
    /// Paragraph styles given so far, each in the box its paragraphs share.
    private var sharedStyles: [ParagraphStyle: ParagraphStyle] = [:]
    /// A collapsed space that is written only if more content follows on the same line, with
    /// the style of the text it came from.
    private var pendingSpace: TextStyle?
    /// At the start of a line, where collapsible white space is dropped.
    private var atLineStart = true
    /// Column in the current line, for tab stops in preserved white space.
    private var column = 0
    /// Collapsed vertical margins waiting for the next paragraph.
    private var positiveMargin = 0.0
    private var negativeMargin = 0.0
    private var ruleAbovePending = false
    private var breakBeforePending = BlockBreak.auto
    /// The `clear` of blocks opened since the last paragraph: the first paragraph inside a
    /// cleared block starts below the floats, whichever element holds its text.
    private var clearPending: Set<FloatSide> = []
    /// The side of `break-before: left | right`, for the next paragraph.
    public var pageSidePending: PageSide?
    /// `string-set` values (`PagedMedia.strings`).
    private var namedStrings: [NamedString] = []
    private var pageCounterResets: [PageCounterReset] = []
    /// `string-set` of the elements still open (`depth`: the walker's), each with where its
    /// text begins: the value is made from its text when it closes.
    private var openStringSets: [(depth: Int, offset: Int, value: String)] = []
    /// Elements with an `id` (`AttributedText.anchors`), and their names.
    private var anchors: [TextAnchor] = []
    private var anchorNames: Set<String> = []
    /// A list marker waiting for the first paragraph of its item.
    private var pendingMarker: (text: [Unicode.Scalar], style: TextStyle, width: Double, hangsOutside: Bool)?

    public init() {}

    /// Tables over the paragraphs built; the markup walker adds each when it closes.
    public var tables: [TextTable] = []
    /// Boxes of blocks over the paragraphs built; the markup walker adds each when it opens
    /// and gives it its paragraphs when it closes.
    public var boxes: [TextBox] = []
    public var floats: [FloatedBlock] = []
    /// The block boxes, which the markup walker opens and closes (`BoxTree`).
    public var boxTree = BoxTree()

    /// Paragraphs ended so far: the index the next paragraph will have.
    public var paragraphCount: Int { paragraphs.count }

    /// Takes the collapsed margin waiting for the next paragraph: a table's, which the table
    /// keeps above itself.
    public mutating func takePendingMargin() -> Double { takeMargin() }

    /// Gives a margin taken with `takePendingMargin` back to paragraph `index`, collapsed with
    /// its own, or to the next paragraph when there is none yet (a table that turned out to
    /// be no grid is set as paragraphs, with the margin above it).
    public mutating func restoreMargin(_ points: Double, paragraph index: Int) {
        guard points != 0 else { return }
        if paragraphs.indices.contains(index) {
            paragraphs[index].value.spaceBefore = max(paragraphs[index].value.spaceBefore, points)
        } else {
            addMargin(points)
        }
    }

    /// Forgets the margins and the rule waiting for the next paragraph: a table cell's content
    /// starts at the cell's padding, and what its last block leaves below stays in the cell.
    /// A pending break is kept, so a table's `break-before` reaches its first paragraph.
    public mutating func discardPendingMargins() {
        _ = takeMargin()
        ruleAbovePending = false
    }

    /// Whether no content has been appended yet.
    public var isEmpty: Bool { scalars.isEmpty && pendingMarker == nil }

    /// The offset the next content will have: after the separator the next paragraph starts
    /// with, when none is open.
    private var nextContentOffset: Int { openStart == nil && !paragraphs.isEmpty ? scalars.count + 1 : scalars.count }

    /// An element with `string-set` (`value`, as written) opens, `depth` elements deep.
    mutating func openStringSet(_ value: String, depth: Int) {
        openStringSets.append((depth, nextContentOffset, value))
    }

    /// An element that resets the page counter (`counter-reset: page 1`) opens: the counter
    /// holds `value` from where its content begins.
    mutating func resetPageCounter(to value: Int) {
        pageCounterResets.append(PageCounterReset(offset: nextContentOffset, value: value))
    }

    /// An element with an `id` opens: a link to `#name` points where its content begins. The
    /// first element of a name keeps it, as in a browser.
    mutating func addAnchor(_ name: String) {
        guard !name.isEmpty, anchorNames.insert(name).inserted else { return }
        anchors.append(TextAnchor(name: name, offset: nextContentOffset))
    }

    /// The elements open `depth` or more deep have closed: their `string-set` values are made,
    /// `content()` being the text they hold as set (hidden elements left out), white space
    /// collapsed, pictures and soft hyphens dropped.
    mutating func closeStringSets(depth: Int) {
        while let open = openStringSets.last, open.depth >= depth {
            openStringSets.removeLast()
            // Hidden text (`visibility: hidden`, a permalink mark) is not part of it.
            let start = min(open.offset, scalars.count)
            var held: [Unicode.Scalar] = []
            for run in styleRuns[AttributedText.runIndex(in: styleRuns, at: start)...] where !run.value.isHidden && run.range.upperBound > start {
                held += scalars[max(run.range.lowerBound, start)..<run.range.upperBound].filter { $0 != AttributedText.objectReplacement && $0 != "\u{AD}" }
            }
            let content = String(String.UnicodeScalarView(held)).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            namedStrings += PagedMedia.assignments(open.value, content: content, offset: open.offset)
        }
    }

    /// Appends text, treating its white space as `whiteSpace` says.
    ///
    /// U+000A never reaches the output inside a paragraph: in `collapse` mode it is white space,
    /// otherwise it becomes U+2028. U+2029 and U+0085 become U+2028 too, so that they cannot
    /// split a paragraph behind the typesetter's back, and U+0000 becomes U+FFFD.
    public mutating func append<Scalars: Sequence<Unicode.Scalar>>(
        _ text: Scalars, style: TextStyle, whiteSpace: WhiteSpaceMode = .collapse
    ) {
        var out: [Unicode.Scalar] = []
        var spaceInOut = false
        var afterCarriageReturn = false
        for scalar in text {
            // CR LF is one line break in the modes that keep line breaks.
            if scalar == "\n" && afterCarriageReturn && whiteSpace != .collapse {
                afterCarriageReturn = false
                continue
            }
            afterCarriageReturn = scalar == "\r"
            switch scalar {
            case " ", "\t", "\u{0C}", "\n", "\r":
                if whiteSpace == .preserve {
                    if scalar == "\n" || scalar == "\r" {
                        beginContent(&out)
                        out.append(AttributedText.lineSeparator)
                        column = 0
                        atLineStart = true
                    } else if scalar == "\t" {
                        beginContent(&out)
                        let spaces = 8 - column % 8
                        out.append(contentsOf: repeatElement(" ", count: spaces))
                        column += spaces
                        atLineStart = false
                    } else {
                        beginContent(&out)
                        out.append(" ")
                        column += 1
                        atLineStart = false
                    }
                } else if whiteSpace == .preserveLineBreaks && (scalar == "\n" || scalar == "\r") {
                    breakLine(&out)
                    spaceInOut = false
                } else if !atLineStart {
                    if out.isEmpty && openStart != nil {
                        if pendingSpace == nil { pendingSpace = style }
                    } else {
                        spaceInOut = true
                    }
                }
            case "\u{2028}", "\u{2029}", "\u{85}":
                breakLine(&out)
                spaceInOut = false
            default:
                beginContent(&out)
                if spaceInOut {
                    out.append(" ")
                    spaceInOut = false
                }
                out.append(scalar == "\0" ? "\u{FFFD}" : scalar)
                column += 1
                atLineStart = false
            }
        }
        if firstLetter != nil { commitFirstLetter(&out, style: style) }
        commit(out, style: style)
        if spaceInOut { pendingSpace = style }
    }

    // MARK: ::first-letter

    /// A block's `::first-letter` (CSS 2.1 §5.12.2), waiting for the first letter of its first
    /// line: the letter, with the punctuation before and after it, takes the properties the
    /// pseudo-element's rules set, over the style of the text it is in (so a letter inside a
    /// `<b>` stays bold unless the rules say otherwise).
    struct FirstLetter: Sendable {
        var change: TextStyleChange
        /// Its `text-transform` when that differs from the block's.
        var transform: ComputedStyle.TextTransform?
        /// The walker's depth of the block: the wait ends when it closes.
        var depth: Int
    }
    /// The `::first-letter` waiting for its letter, if any.
    private var firstLetter: FirstLetter?

    /// A block opens whose `::first-letter` rules give `letter` (applied over `block`, its
    /// text style); `depth`: the walker's depth of the block.
    mutating func awaitFirstLetter(block: TextStyle, letter: TextStyle, transform: ComputedStyle.TextTransform?, depth: Int) {
        firstLetter = FirstLetter(change: TextStyleChange(before: block, after: letter), transform: transform, depth: depth)
    }

    /// A block opens whose `::first-line` rules change `change`: its first paragraph takes it
    /// (`ParagraphStyle.firstLine`); `depth`: the walker's depth of the block.
    mutating func awaitFirstLine(_ change: TextStyleChange, depth: Int) {
        firstLine = (change, depth)
    }

    /// The `::first-line` waiting for its block's first paragraph, if any.
    private var firstLine: (change: TextStyleChange, depth: Int)?

    /// The block at `depth` closes: a first letter it still waits for is not to come.
    mutating func endFirstLetter(depth: Int) {
        if let waiting = firstLetter, waiting.depth >= depth { firstLetter = nil }
        if let waiting = firstLine, waiting.depth >= depth { firstLine = nil }
    }

    /// Commits the first letter at the start of `out`, text about to be committed in `style`,
    /// with the punctuation around it, in the first letter's style, leaving the rest in `out`.
    /// Text of punctuation alone takes it and leaves the wait on; anything else first on the
    /// line (a space in preformatted text, a line break) ends it.
    private mutating func commitFirstLetter(_ out: inout [Unicode.Scalar], style: TextStyle) {
        guard let waiting = firstLetter, !out.isEmpty else { return }
        var end = 0
        while end < out.count, out[end].isFirstLetterPunctuation { end += 1 }
        if end < out.count {
            if out[end] == " " || out[end] == AttributedText.lineSeparator || out[end] == "\u{A0}" {
                firstLetter = nil
                guard end > 0 else { return }
            } else {
                // The letter, its combining marks, and the punctuation that follows it.
                end += 1
                while end < out.count, out[end].isMark { end += 1 }
                while end < out.count, out[end].isFirstLetterPunctuation { end += 1 }
                firstLetter = nil
            }
        }
        var letter = Array(out[..<end])
        if let transform = waiting.transform {
            letter = Array(transform.applied(to: String(String.UnicodeScalarView(letter)), wordGoesOn: false).unicodeScalars)
        }
        commit(letter, style: waiting.change.applied(to: style))
        out.removeFirst(end)
    }

    /// Appends a forced line break (U+2028, `<br>`); collapsible spaces before and after it go.
    public mutating func appendLineBreak(style: TextStyle) {
        firstLetter = nil  // The first line ends before any letter.
        var out: [Unicode.Scalar] = []
        breakLine(&out)
        commit(out, style: style)
    }

    /// Appends an inline image: one U+FFFC and its `Attachment`.
    public mutating func appendAttachment(source: String, width: Double?, height: Double?, widthFraction: Double? = nil,
                                          alternative: String, style: TextStyle, float: FloatSide? = nil) {
        guard float == nil else {
            // A floated picture is out of the line: white space on either side of it collapses
            // as if it were not there (a space held back stays held, the start of a line stays
            // one), as CSS collapses white space around floats.
            if openStart == nil { openParagraph() }
            var attachment = Attachment(offset: scalars.count, source: source, width: width, height: height, alternative: alternative, float: float)
            attachment.widthFraction = widthFraction
            attachment.isHidden = style.isHidden
            attachments.append(attachment)
            commit([AttributedText.objectReplacement], style: style)
            return
        }
        var attachment = Attachment(offset: scalars.count, source: source, width: width, height: height, alternative: alternative)
        attachment.widthFraction = widthFraction
        appendInline(attachment, style: style)
    }

    /// Appends an inline-block: one U+FFFC, in the line as a picture is, holding `block`.
    public mutating func appendInlineBlock(_ block: InlineBlock, style: TextStyle) {
        appendInline(Attachment(offset: 0, inlineBlock: block), style: style)
    }

    /// Appends an attachment set in its line, at the next offset.
    private mutating func appendInline(_ attachment: Attachment, style: TextStyle) {
        firstLetter = nil  // A picture or inline-block first on the line: no first letter.
        beginContent()
        var attachment = attachment
        attachment.offset = scalars.count
        attachment.isHidden = attachment.isHidden || style.isHidden
        attachments.append(attachment)
        commit([AttributedText.objectReplacement], style: style)
        column += 1
        atLineStart = false
    }

    /// Appends a spacer: an attachment that draws nothing, no wider than nothing and `height`
    /// high, so that a block with a height and no content has a paragraph to stand for it.
    public mutating func appendSpacer(style: TextStyle, height: Double = 0) {
        beginContent()
        var spacer = Attachment(offset: scalars.count, source: "", width: 0, height: height, alternative: "")
        spacer.isSpacer = true
        attachments.append(spacer)
        commit([AttributedText.objectReplacement], style: style)
        atLineStart = false
    }

    /// Appends a line break opportunity (U+200B, `<wbr>`), unless at the start of a line,
    /// where it would be useless.
    public mutating func appendBreakOpportunity(style: TextStyle) {
        guard openStart != nil, !atLineStart else { return }
        append(CollectionOfOne("\u{200B}"), style: style)
    }

    /// Ends the open paragraph, if any; the next content starts a new one.
    public mutating func breakParagraph() {
        guard let start = openStart else { return }
        // A final line break shows no empty line in a browser; a lone one is a blank line.
        if scalars.count - start > 1, scalars.last == AttributedText.lineSeparator {
            removeLastScalar()
        }
        paragraphs.append(AttributeRun(range: start..<scalars.count, value: shared(openStyle)))
        firstLetter = nil  // Its first line had no letter.
        openStart = nil
        pendingSpace = nil
        atLineStart = true
        column = 0
    }

    /// Adds a vertical margin (points) between the previous paragraph and the next one;
    /// adjacent margins collapse.
    public mutating func addMargin(_ points: Double) {
        guard points.isFinite else { return }
        let points = min(max(points, -100_000), 100_000)
        if points > 0 {
            positiveMargin = max(positiveMargin, points)
        } else {
            negativeMargin = min(negativeMargin, points)
        }
    }

    /// A block's `break-before`: given to the next paragraph (combined with any other break
    /// met before it).
    public mutating func addBreakBefore(_ kind: BlockBreak) {
        breakBeforePending = breakBeforePending.combined(with: kind)
    }

    /// A block's `clear`: given to the next paragraph, its first line's.
    public mutating func addClear(_ sides: Set<FloatSide>) {
        clearPending.formUnion(sides)
    }

    /// A block's `break-after`, once the block is closed: given to the last paragraph (the
    /// break between it and the next).
    public mutating func addBreakAfter(_ kind: BlockBreak) {
        guard kind != .auto else { return }
        breakParagraph()
        guard !paragraphs.isEmpty else { return }
        paragraphs[paragraphs.count - 1].value.breakAfter = paragraphs[paragraphs.count - 1].value.breakAfter.combined(with: kind)
    }

    /// Keeps the paragraph just ended with the table about to start when it reads as the
    /// table's title or lead-in: at most `leadInLimit` characters, not ending a sentence
    /// (`Table 7.1. Packages`, DocBook's `p.title`; `The options are:`), and not a cell of a
    /// table before. A browser has no columns to strand it in; a page of columns must not
    /// leave a caption at one column's foot and its table in the next.
    public mutating func keepLeadInWithTable() {
        breakParagraph()
        guard let last = paragraphs.last, last.range.count <= Self.leadInLimit,
              tables.last.map({ !$0.paragraphs.contains(paragraphs.count - 1) }) ?? true,
              let end = scalars[last.range].lastIndex(where: { !$0.properties.isWhitespace }),
              !".!?…。！？".unicodeScalars.contains(scalars[end]) else { return }
        paragraphs[paragraphs.count - 1].value.breakAfter = last.value.breakAfter.combined(with: .avoid)
    }

    static let leadInLimit = 200

    /// Puts a rule above the next paragraph (`<hr>`); without a next paragraph nothing happens.
    public mutating func addRuleAbove() {
        ruleAbovePending = true
    }

    /// Sets the marker of a list item (`"1.\u{00A0}"`), which starts the item's first
    /// paragraph and hangs into its start indent by `width` points (at most the start indent;
    /// `hangsOutside`: the whole width, out of a table cell's content box, as CSS draws an
    /// outside marker). A marker still waiting from an item without content gets a paragraph
    /// of its own first.
    public mutating func setListMarker(_ marker: String, style: TextStyle, width: Double, hangsOutside: Bool = false) {
        flushListMarker()
        guard !marker.isEmpty else { return }
        pendingMarker = (Array(marker.unicodeScalars), style, width.isFinite ? max(0, width) : 0, hangsOutside)
    }

    /// Writes a marker whose item had no content as a paragraph of its own, as browsers show
    /// the bullet of an empty `<li>`.
    public mutating func flushListMarker() {
        guard pendingMarker != nil else { return }
        breakParagraph()
        beginContent()
        breakParagraph()
    }

    /// The text built so far, with the open paragraph ended and the trailing margins on the
    /// last paragraph.
    public func build() -> AttributedText {
        var copy = self
        return copy.finish()
    }

    /// `build()` for a builder that is done: the text takes its arrays without copying them
    /// (`build()` copies the text and the paragraphs of a builder that goes on), and the builder
    /// is left empty.
    public mutating func finish() -> AttributedText {
        flushListMarker()
        breakParagraph()
        if !paragraphs.isEmpty {
            paragraphs[paragraphs.count - 1].value.spaceAfter = takeMargin()
        }
        boxTree.close(BoxTree.root, end: paragraphs.count, tables: tables)
        var text = AttributedText(scalars: scalars, styleRuns: styleRuns, paragraphs: paragraphs, attachments: attachments,
                                  tables: tables, boxes: boxes, floats: floats, boxTree: boxTree)
        closeStringSets(depth: 0)
        text.pagedMedia.strings = namedStrings
        text.pagedMedia.pageCounterResets = pageCounterResets
        text.anchors = anchors
        self = AttributedTextBuilder()
        return text
    }

    // MARK: - Internals

    /// Makes sure a paragraph is open before content goes into `out`, and writes a space that
    /// collapsing held back. Called with `out` empty whenever no paragraph is open.
    private mutating func beginContent(_ out: inout [Unicode.Scalar]) {
        if openStart == nil {
            openParagraph()
        } else if let spaceStyle = pendingSpace {
            pendingSpace = nil
            if out.isEmpty {
                commit([" "], style: spaceStyle)
            } else {
                out.append(" ")
            }
            column += 1
        }
    }

    /// `beginContent` for content that is committed on its own (an image, a list marker).
    private mutating func beginContent() {
        var nothing: [Unicode.Scalar] = []
        beginContent(&nothing)
    }

    private mutating func breakLine(_ out: inout [Unicode.Scalar]) {
        if openStart == nil { openParagraph() }
        pendingSpace = nil
        out.append(AttributedText.lineSeparator)
        column = 0
        atLineStart = true
    }

    private mutating func openParagraph() {
        if let last = styleRuns.last, !paragraphs.isEmpty {
            commit([AttributedText.paragraphSeparator], style: last.value)
            paragraphs[paragraphs.count - 1].range = paragraphs[paragraphs.count - 1].range.lowerBound..<scalars.count
        }
        var style = paragraphStyle
        style.spaceBefore = takeMargin()
        style.spaceAfter = 0
        style.ruleAbove = style.ruleAbove || ruleAbovePending
        ruleAbovePending = false
        style.breakBefore = style.breakBefore.combined(with: breakBeforePending)
        breakBeforePending = .auto
        style.clear.formUnion(clearPending)
        clearPending = []
        // A change of named page is a page break (CSS Paged Media 3 §4.4).
        if let previous = paragraphs.last, previous.value.pageName != style.pageName { style.breakBefore = .page }
        style.pageSide = pageSidePending
        pageSidePending = nil
        if let waiting = firstLine.take() { style.firstLine = waiting.change }
        openStart = scalars.count
        pendingSpace = nil
        atLineStart = true
        column = 0
        if let marker = pendingMarker {
            pendingMarker = nil
            style.firstLineIndent = -(marker.hangsOutside ? marker.width : min(marker.width, max(0, style.startIndent)))
            style.markerLength = marker.text.count
            commit(marker.text, style: marker.style)
        }
        openStyle = style
    }

    /// `style`, in the box of an equal style given before: the paragraphs of a long table's
    /// cells, or of an article's `<p>`s, share one (`ParagraphStyle`).
    private mutating func shared(_ style: ParagraphStyle) -> ParagraphStyle {
        if let known = sharedStyles[style] { return known }
        // A page whose every paragraph differs (margins, indents) starts over now and then.
        if sharedStyles.count >= 4096 { sharedStyles.removeAll(keepingCapacity: true) }
        sharedStyles[style] = style
        return style
    }

    private mutating func takeMargin() -> Double {
        // The largest positive margin plus the most negative (CSS 2.1 §8.3.1): a net negative
        // margin pulls the next block up over what is above it.
        let margin = positiveMargin + negativeMargin
        positiveMargin = 0
        negativeMargin = 0
        return margin
    }

    private mutating func commit(_ out: [Unicode.Scalar], style: TextStyle) {
        guard !out.isEmpty else { return }
        let start = scalars.count
        scalars.append(contentsOf: out)
        if let last = styleRuns.last, last.value == style {
            styleRuns[styleRuns.count - 1].range = last.range.lowerBound..<scalars.count
        } else {
            styleRuns.append(AttributeRun(range: start..<scalars.count, value: style))
        }
    }

    private mutating func removeLastScalar() {
        guard !scalars.isEmpty, let last = styleRuns.last else { return }
        scalars.removeLast()
        if last.range.count == 1 {
            styleRuns.removeLast()
        } else {
            styleRuns[styleRuns.count - 1].range = last.range.lowerBound..<scalars.count
        }
    }
}


extension Unicode.Scalar {
    /// Punctuation that goes with a first letter (CSS 2.1 §5.12.2: Unicode's open, close,
    /// initial, final and other punctuation).
    var isFirstLetterPunctuation: Bool {
        switch properties.generalCategory {
        case .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation, .otherPunctuation: true
        default: false
        }
    }
}
