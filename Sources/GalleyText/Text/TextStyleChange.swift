/// What the rules of a pseudo-element that styles part of a block's text (`::first-letter`,
/// `::first-line`) change: the block's text style before and after its declarations. Applied
/// to the style of each piece of text it covers, so that the properties it does not set stay
/// those of the inline elements around the piece (a first letter inside a `<b>` stays bold),
/// as the pseudo-element sits inside them (CSS 2.1 §5.12.1, §5.12.2).
public struct TextStyleChange: Hashable, Sendable {
    public var before: TextStyle
    public var after: TextStyle

    public init(before: TextStyle, after: TextStyle) {
        self.before = before
        self.after = after
    }

    /// Whether it changes nothing.
    public var isEmpty: Bool { before == after }

    /// `style` with what the rules changed changed.
    public func applied(to style: TextStyle) -> TextStyle {
        var out = style
        if after.font.families != before.font.families { out.font.families = after.font.families }
        if after.font.weight != before.font.weight { out.font.weight = after.font.weight }
        if after.font.italic != before.font.italic { out.font.italic = after.font.italic }
        if after.size != before.size { out.size = after.size }
        if after.color != before.color { out.color = after.color }
        if after.underline != before.underline { out.underline = after.underline }
        if after.strikethrough != before.strikethrough { out.strikethrough = after.strikethrough }
        if after.baselineShift != before.baselineShift { out.baselineShift = style.baselineShift + after.baselineShift - before.baselineShift }
        if after.background != before.background { out.background = after.background }
        if after.letterSpacing != before.letterSpacing { out.letterSpacing = after.letterSpacing }
        if after.wordSpacing != before.wordSpacing { out.wordSpacing = after.wordSpacing }
        if after.lineHeight != before.lineHeight { out.lineHeight = after.lineHeight }
        if after.isHidden != before.isHidden { out.isHidden = after.isHidden }
        return out
    }
}
