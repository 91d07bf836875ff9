/// A piece of a block's box in one column: all of it, or the part before, between or after
/// column breaks. In the framesetter's line coordinates (x along the lines, y across them),
/// so that `FlowMapping` puts vertical text's boxes on the page as it puts the lines.
struct BoxPiece: Sendable {
    /// Index in `AttributedText.boxes`.
    var box: Int
    /// The piece's border box.
    var rect: Rect
    /// Whether the box begins, and ends, in this piece; else it is open on that side, with
    /// no border or padding there (CSS `box-decoration-break: slice`).
    var opensHere: Bool
    var closesHere: Bool

    /// The most dashes or dots a border side is drawn with; a thinner border's are spaced
    /// out, so that absurd input cannot make millions of rectangles.
    static let maximumDashes = 1000

    /// Rectangles that draw the piece of `box`: the background over the padding box, then the
    /// borders (each side across the corners; double ones as two nested frames), painted to
    /// whole pixels as a browser paints boxes (`FilledRect.snapsToPixels`), so that a box and
    /// the text or boxes lined up with it in CSS pixels cover the same rows.
    func rects(of box: TextBox, images: AttachmentImages = [:]) -> [FilledRect] {
        var rects = unsnappedRects(of: box).map { FilledRect(rect: $0.rect, color: $0.color, snapsToPixels: true) }
        if let background = box.backgroundImage, let image = images[background.source], image.intrinsicWidth > 0, image.intrinsicHeight > 0 {
            // Over the colour, under the borders; cut to the border box.
            let top = opensHere ? box.border.top.width : 0
            let origin = Rect(x: rect.x + box.border.left.width, y: rect.y + top, width: 0, height: 0)
            var tile = FilledRect.Tile(image: image, width: image.intrinsicWidth * CSSLength.pointsPerPixel,
                                       height: image.intrinsicHeight * CSSLength.pointsPerPixel,
                                       repeatsAcross: background.repeatsAcross, repeatsDown: background.repeatsDown)
            // A tiny picture (a 1 px swatch) over a large box would be thousands of copies:
            // drawn from a copy of it repeated into a larger one instead, at most
            // `largerTileSide` pixels a side, so a box's tile stays small whatever the box.
            let across = tile.repeatsAcross ? Int((rect.width / tile.width).rounded(.up)) : 1
            let down = tile.repeatsDown ? Int((rect.height / tile.height).rounded(.up)) : 1
            let (wider, taller) = (min(across, max(1, Self.largerTileSide / image.width)), min(down, max(1, Self.largerTileSide / image.height)))
            if across * down > Self.maximumTiles, wider * taller > 1, let larger = image.repeated(across: wider, down: taller) {
                tile.image = larger
                (tile.width, tile.height) = (tile.width * Double(wider), tile.height * Double(taller))
            }
            var fill = FilledRect(rect: Rect(x: origin.x, y: origin.y, width: rect.maxX - origin.x, height: rect.maxY - origin.y),
                                  color: box.background ?? .white)
            fill.tile = tile
            rects.insert(fill, at: box.background == nil ? 0 : 1)
        }
        return rects
    }

    /// The most copies of a background picture drawn over one box before it is drawn from a
    /// larger copy of itself.
    static let maximumTiles = 256
    static let largerTileSide = 256

    private func unsnappedRects(of box: TextBox) -> [FilledRect] {
        let top = opensHere ? box.border.top.width : 0
        let bottom = closesHere ? box.border.bottom.width : 0
        let (left, right) = (box.border.left.width, box.border.right.width)
        var rects: [FilledRect] = []
        if let background = box.background {
            let inner = Rect(x: rect.x + left, y: rect.y + top, width: rect.width - left - right, height: rect.height - top - bottom)
            if inner.width > 0 && inner.height > 0 { rects.append(FilledRect(rect: inner, color: background)) }
        }
        // Left and right run the whole height, over the corners, so that no seam of partly
        // covered pixels shows where they meet the top and bottom.
        let sides = [(Rect(x: rect.x, y: rect.y, width: rect.width, height: top), box.border.top, true),
                     (Rect(x: rect.x, y: rect.maxY - bottom, width: rect.width, height: bottom), box.border.bottom, true),
                     (Rect(x: rect.x, y: rect.y, width: left, height: rect.height), box.border.left, false),
                     (Rect(x: rect.maxX - right, y: rect.y, width: right, height: rect.height), box.border.right, false)]
        for (band, border, horizontal) in sides where band.width > 0 && band.height > 0 && border.style != .double {
            rects += Self.pieces(of: band, style: border.style, horizontal: horizontal).map { FilledRect(rect: $0, color: border.color) }
        }
        // Double borders: an outer and an inner frame, each line a third of the width, the
        // lines of adjacent sides overlapping at the corners.
        let third = (top: top / 3, right: right / 3, bottom: bottom / 3, left: left / 3)
        func line(_ rect: Rect, _ border: TextBox.Border) {
            guard border.style == .double, rect.width > 0, rect.height > 0 else { return }
            rects.append(FilledRect(rect: rect, color: border.color))
        }
        if top > 0 {
            line(Rect(x: rect.x, y: rect.y, width: rect.width, height: third.top), box.border.top)
            line(Rect(x: rect.x + 2 * third.left, y: rect.y + 2 * third.top, width: rect.width - 2 * (third.left + third.right), height: third.top),
                 box.border.top)
        }
        if bottom > 0 {
            line(Rect(x: rect.x, y: rect.maxY - third.bottom, width: rect.width, height: third.bottom), box.border.bottom)
            line(Rect(x: rect.x + 2 * third.left, y: rect.maxY - 3 * third.bottom, width: rect.width - 2 * (third.left + third.right),
                      height: third.bottom), box.border.bottom)
        }
        for (x, inner, border) in [(rect.x, rect.x + 2 * third.left, box.border.left),
                                   (rect.maxX - third.right, rect.maxX - 3 * third.right, box.border.right)] where border.width > 0 {
            let width = border.width / 3
            line(Rect(x: x, y: rect.y, width: width, height: rect.height), border)
            line(Rect(x: inner, y: rect.y + 2 * third.top, width: width, height: rect.height - 2 * (third.top + third.bottom)), border)
        }
        return rects
    }

    /// The rectangles of one border side filling `band` (its length by its width): solid,
    /// dashes three times as long as the border is wide, square dots, or (without corners)
    /// two lines a third as wide with a third between them. Dashes and dots start and end at the band's ends,
    /// the gaps between them evened out, as browsers draw them.
    static func pieces(of band: Rect, style: TextBox.BorderStyle, horizontal: Bool) -> [Rect] {
        let (length, width) = horizontal ? (band.width, band.height) : (band.height, band.width)
        func piece(_ start: Double, _ length: Double, across: Double = 0, width thickness: Double? = nil) -> Rect {
            let thickness = thickness ?? width
            return horizontal ? Rect(x: band.x + start, y: band.y + across, width: length, height: thickness)
                : Rect(x: band.x + across, y: band.y + start, width: thickness, height: length)
        }
        switch style {
        case .solid:
            return [band]
        case .double:
            let line = width / 3
            return [piece(0, length, width: line), piece(0, length, across: width - line, width: line)]
        case .dashed, .dotted:
            let dash = style == .dashed ? 3 * width : width
            let gap = style == .dashed ? 2 * width : width
            guard length > dash else { return [band] }
            let count = min(Self.maximumDashes, max(1, Int(((length + gap) / (dash + gap)).rounded(.down))))
            guard count > 1 else { return [piece((length - dash) / 2, dash)] }
            let spacing = (length - Double(count) * dash) / Double(count - 1)
            return (0..<count).map { piece(Double($0) * (dash + spacing), dash) }
        }
    }
}
