/// `::first-line` (CSS 2.1 §5.12.1): the characters of a paragraph's first line, as it is laid
/// out, take what its block's first-line rules change (`ParagraphStyle.firstLine`).
///
/// Which characters are on the first line depends on the style they take (a larger font fits
/// fewer words), and the style depends on the line: so the line is found first, with the
/// style. The paragraph is set alone, in a column as wide as the article's, with the change
/// applied to all its text; the characters of that trial's first line are the first line's,
/// and only they keep the change. The article is then set as usual, and the paragraph's first
/// line holds the same text in the same style in the same measure, so it breaks where the
/// trial's did. This is simpler than restyling inside the framesetter, which would have to
/// set the line, restyle it and set it again, and it leaves `Framesetter.fill` alone.
/// Where the measure differs from the column's (beside a float, in a table's cell, after a
/// page's named size changes the column), the first line may end elsewhere than the trial's:
/// some of the first line's text then ends up on the second line, or the other way round.
struct FirstLineStyler {
    let layout: ArticleLayout
    let fonts: FontLibrary
    let images: AttachmentImages

    /// `text` with each first line's characters restyled.
    func styled(_ text: AttributedText) -> AttributedText {
        guard !layout.writingMode.isVertical, text.paragraphs.contains(where: { $0.value.firstLine != nil }) else { return text }
        var runs = text.styleRuns
        for paragraph in text.paragraphs {
            guard let change = paragraph.value.firstLine, !change.isEmpty, let end = firstLineEnd(of: paragraph, in: text) else { continue }
            runs = Self.restyled(runs, in: paragraph.range.lowerBound..<end, by: change)
        }
        var styled = AttributedText(scalars: text.scalars, styleRuns: runs, paragraphs: text.paragraphs, attachments: text.attachments,
                                    tables: text.tables, boxes: text.boxes, floats: text.floats, boxTree: text.boxTree)
        styled.keepExtras(of: text)
        return styled
    }

    /// Where the paragraph's first line ends when all its text takes its first-line style:
    /// the paragraph set alone in a page as wide as the column. Nil when it sets nothing.
    private func firstLineEnd(of paragraph: AttributeRun<ParagraphStyle>, in text: AttributedText) -> Int? {
        guard let change = paragraph.value.firstLine else { return nil }
        var content = paragraph.range
        if content.count > 1, text.scalars[content.upperBound - 1] == AttributedText.paragraphSeparator {
            content = content.lowerBound..<(content.upperBound - 1)
        }
        let start = content.lowerBound
        let scalars = Array(text.scalars[content])
        var runs: [AttributeRun<TextStyle>] = []
        for run in text.styleRuns[text.styleRunIndex(at: start)...] {
            guard run.range.lowerBound < content.upperBound else { break }
            let clamped = run.range.clamped(to: content)
            guard !clamped.isEmpty else { continue }
            runs.append(AttributeRun(range: (clamped.lowerBound - start)..<(clamped.upperBound - start), value: change.applied(to: run.value)))
        }
        // Alone on its page: no space, rule or break around it, nothing to clear.
        var style = paragraph.value
        (style.spaceBefore, style.spaceAfter, style.ruleAbove) = (0, 0, false)
        (style.breakBefore, style.breakAfter, style.pageSide, style.pageName) = (.auto, .auto, nil, nil)
        (style.clear, style.spansColumns, style.firstLine) = ([], false, nil)
        let attachments = text.attachments.filter { content.contains($0.offset) }.map { attachment in
            var attachment = attachment
            attachment.offset -= start
            return attachment
        }
        let trial = AttributedText(scalars: scalars, styleRuns: runs, paragraphs: [AttributeRun(range: 0..<scalars.count, value: style)],
                                   attachments: attachments)
        var own = ArticleLayout(name: layout.name)
        (own.pageWidth, own.pageHeight) = (max(1, layout.columnWidth), max(1, layout.columnHeight))
        own.inset = .init(all: 0)
        own.base = layout.base
        own.typography = layout.typography
        guard let typesetter = try? ArticleTypesetter(text: trial, layout: own, fonts: fonts, images: images),
              let page = try? typesetter.layOutPage(),
              let line = page.columns.first?.lines.first else { return nil }
        return start + min(line.range.upperBound, scalars.count)
    }

    /// `runs` with the text in `range` restyled by `change`, equal neighbours merged.
    static func restyled(_ runs: [AttributeRun<TextStyle>], in range: Range<Int>, by change: TextStyleChange) -> [AttributeRun<TextStyle>] {
        var out: [AttributeRun<TextStyle>] = []
        out.reserveCapacity(runs.count + 2)
        func add(_ part: Range<Int>, _ value: TextStyle) {
            guard !part.isEmpty else { return }
            if let last = out.last, last.value == value, last.range.upperBound == part.lowerBound {
                out[out.count - 1].range = last.range.lowerBound..<part.upperBound
            } else {
                out.append(AttributeRun(range: part, value: value))
            }
        }
        for run in runs {
            let inside = run.range.clamped(to: range)
            guard !inside.isEmpty else {
                add(run.range, run.value)
                continue
            }
            add(run.range.lowerBound..<inside.lowerBound, run.value)
            add(inside, change.applied(to: run.value))
            add(inside.upperBound..<run.range.upperBound, run.value)
        }
        return out
    }
}
