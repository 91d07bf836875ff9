/// The block pass of a column (or of a band across the page's columns): the flow of blocks
/// from a text position down a rectangle, handing each run of paragraphs to the framesetter
/// (the line filler) and each multi-column element to `MulticolLayouter`, one below the
/// other, until the rectangle is full, the text leaves it (a page break, a block of the
/// other spanning kind) or the text ends.
///
/// Holds no state of its own: a trial on a copy of the framesetter (column balancing) is a
/// block layouter over the copy.
struct BlockLayouter {
    let framesetter: Framesetter

    /// One rectangle the framesetter filled: a part of the column, or a column of a
    /// multi-column element (`multicol`: its index in `Framesetter.multicols`).
    struct Piece {
        var rect: Rect
        var frame: Framesetter.Frame
        var multicol: Int?
    }

    /// What the pass placed in the rectangle.
    struct Result {
        var pieces: [Piece] = []
        /// Where the text placed ends.
        var end: Int
        /// Stopped at a page break, or before a block of the other spanning kind.
        var pageBreak = false
        var spanChange = false

        var breakExceptions: Int { pieces.reduce(0) { $0 + $1.frame.breakExceptions } }
        /// Where the last thing placed ends (y), nil when nothing was.
        var bottom: Double? { pieces.compactMap(\.frame.bottom).max() }

        /// Ends the pieces of boxes that go on past the rectangle at `y` instead of its foot.
        mutating func cutOpenBoxes(at y: Double) {
            for index in pieces.indices { pieces[index].frame.cutOpenBoxes(at: y) }
        }
    }

    /// Fills `rect` (line coordinates) from text offset `start`; `spanning` as
    /// `Framesetter.fill`'s.
    func fill(_ rect: Rect, from start: Int, pageStart: Bool = false, spanning: Bool? = nil) throws(TypesetError) -> Result {
        let text = framesetter.text
        var result = Result(end: start)
        guard !framesetter.multicols.isEmpty else {
            // Nothing but the flow: the framesetter fills the whole rectangle.
            let frame = try framesetter.fill(rect, from: start, pageStart: pageStart, spanning: spanning)
            return Result(pieces: [Piece(rect: rect, frame: frame)], end: frame.range.upperBound, pageBreak: frame.pageBreak,
                          spanChange: frame.spanChange)
        }
        var top = 0.0
        while result.end < text.count {
            let paragraph = text.paragraphIndex(at: result.end)
            let band = Rect(x: rect.x, y: rect.y + top, width: rect.width, height: max(0, rect.height - top))
            let placedAbove = result.bottom != nil
            if let element = framesetter.multicol(of: paragraph) {
                if let spanning, framesetter.spansColumns(paragraph) != spanning, placedAbove {
                    result.spanChange = true
                    break
                }
                let before = placedAbove ? text.paragraphs[text.paragraphIndex(at: result.end - 1)].value.spaceAfter : 0
                let placed: MulticolLayouter.Result
                do {
                    placed = try MulticolLayouter(framesetter: framesetter, element: element)
                        .place(in: band, from: result.end, spaceAbove: before, placedAbove: placedAbove, pageStart: pageStart && !placedAbove)
                } catch {
                    // Not one line of it fits below what is placed: it starts the next column.
                    if placedAbove { break }
                    throw error
                }
                result.pieces += placed.pieces
                result.end = placed.end
                guard placed.isFinished, !placed.pageBreak else {
                    result.pageBreak = placed.pageBreak
                    break
                }
                // Below it, with the larger of the margins on either side.
                top = placed.bottom - rect.y
                if result.end < text.count {
                    let after = framesetter.marginAbove(paragraph: text.paragraphIndex(at: result.end))
                    top += max(text.paragraphs[text.paragraphIndex(at: result.end - 1)].value.spaceAfter, after)
                }
            } else {
                let frame: Framesetter.Frame
                do {
                    frame = try framesetter.fill(band, from: result.end, pageStart: pageStart && !placedAbove, spanning: spanning)
                } catch {
                    if placedAbove { break }
                    throw error
                }
                result.pieces.append(Piece(rect: band, frame: frame))
                result.end = frame.range.upperBound
                (result.pageBreak, result.spanChange) = (frame.pageBreak, frame.spanChange)
                guard frame.multicolChange, !frame.pageBreak, result.end < text.count else { break }
                // A multi-column element follows: the boxes going on around it end where it
                // begins, and go on below it.
                let foot = frame.bottom ?? band.y
                result.pieces[result.pieces.count - 1].frame.cutOpenBoxes(at: foot)
                top = foot - rect.y
            }
            if top >= rect.height { break }
        }
        return result
    }
}
