import GalleyRaster

/// A margin box set on a page (`@bottom-center`, the layout's folio or running head).
public struct MarginBoxFrame: Hashable, Sendable {
    public var position: MarginBoxPosition
    /// The text set in it (its `content`, counters and strings filled in).
    public var text: String
    /// The margin box's rectangle on the page.
    public var rect: Rect
    /// Its lines, on the page: ranges are offsets in `text`.
    public var lines: [LineBox]
}

extension PagedMedia {
    /// The name of the string the layout's `running_head` sets.
    static let runningHeadName = "-galley-running-head"

    /// `layout` with the page size and margins of the `@page` rules without a selector or a
    /// name (margins in `em` of the layout's font size, percentages of the page's width or
    /// height).
    func pageLayout(_ layout: ArticleLayout) -> ArticleLayout {
        Self.applying(rules.filter { $0.selectors.isEmpty && $0.name == nil }, to: layout)
    }

    /// The page layouts the named pages' rules can give pages of `layout` (the article's
    /// unnamed page): each named rule over the rules of its name without a pseudo-class.
    func namedPageLayouts(_ layout: ArticleLayout) -> [(name: String, layout: ArticleLayout)] {
        rules.compactMap { rule in
            rule.name.map { name in (name, Self.applying(rules.filter { $0.name == name && $0.selectors.isEmpty } + [rule], to: layout)) }
        }
    }

    /// `layout` with the sizes (of rules without a selector, or of a page name) and margins of
    /// `rules`, in order.
    static func applying(_ rules: [PageRule], to layout: ArticleLayout) -> ArticleLayout {
        var layout = layout
        var margins: [String: CSSLength] = [:]
        for rule in rules {
            if let size = rule.size, rule.selectors.isEmpty || rule.name != nil { (layout.pageWidth, layout.pageHeight) = size }
            margins.merge(rule.margins) { $1 }
        }
        func points(_ side: String, of extent: Double) -> Double? {
            guard let length = margins[side] else { return nil }
            if case .percent(let percent) = length { return max(0, percent / 100 * extent) }
            return length.points(fontSize: layout.base.fontSize, rootSize: layout.base.fontSize).map { max(0, $0) }
        }
        layout.inset.top = points("top", of: layout.pageHeight) ?? layout.inset.top
        layout.inset.bottom = points("bottom", of: layout.pageHeight) ?? layout.inset.bottom
        layout.inset.left = points("left", of: layout.pageWidth) ?? layout.inset.left
        layout.inset.right = points("right", of: layout.pageWidth) ?? layout.inset.right
        return layout
    }
}

/// Dresses an article's pages for one layout: gives the pages of a named page (`page: chapter`)
/// the size and margins of its `@page chapter` rules, leaves a page blank where `break-before: left |
/// right` asks, sets the margin boxes of the `@page` rules and of the layout's `folio` and
/// `running_head` as lines on each page, and gives each page its printed number (`label`).
///
/// With `counter(pages)` the whole article is laid out before the first page is dressed.
final class PageDresser {
    private let rules: [PageRule]
    private let strings: [String: [NamedString]]
    private let fonts: FontLibrary
    private let layout: ArticleLayout
    private let needsTotal: Bool
    private var laidOut: ArraySlice<(page: TypesetPage, range: Range<Int>, context: PageContext)>?
    private var total: Int?
    /// The page name of the last page with text, once there is one: a page whose name differs
    /// begins a run of pages of its name (`@page chapter:first`).
    private var lastName: String??
    /// Boxes already set, by what they hold (a running head repeats page after page).
    private var setBoxes: [BoxKey: SetBox] = [:]
    /// The page counter (`counter(page)`) as of the last page dressed, and the elements'
    /// resets of it not yet applied, in text order.
    private var pageCounter = 0
    private var pendingCounterResets: ArraySlice<PageCounterReset>

    private struct BoxKey: Hashable {
        var text: String
        var rect: Rect
        var declarations: [CSSDeclaration]
        var align: TextAlignment
        var across: Int
    }

    private struct SetBox {
        var runs: [GlyphRun]
        var rects: [FilledRect]
        var lines: [LineBox]
    }

    /// Nil when the article and the layout dress no page: no `@page` rule, folio, running
    /// head or page side.
    init?(text: AttributedText, layout: ArticleLayout, fonts: FontLibrary) {
        var rules = text.pagedMedia.rules
        var strings = text.pagedMedia.strings
        var own = PageRule()
        if let folio = layout.folio {
            own.boxes[folio] = [CSSDeclaration(property: "content", value: "counter(page)")]
        }
        if let head = layout.runningHead?.lowercased() {
            let position: MarginBoxPosition = layout.folio == .topCenter ? .topLeft : .topCenter
            own.boxes[position] = [CSSDeclaration(property: "content", value: "string(\(PagedMedia.runningHeadName), last)")]
            for paragraph in text.paragraphs where paragraph.value.element.split(separator: ".").first.map(String.init) == head {
                let value = String(String.UnicodeScalarView(text.scalars[paragraph.range]))
                    .split(whereSeparator: { $0.isWhitespace || $0 == "\u{2028}" }).joined(separator: " ")
                strings.append(NamedString(offset: paragraph.range.lowerBound, name: PagedMedia.runningHeadName, value: value))
            }
        }
        if !own.boxes.isEmpty { rules.insert(own, at: 0) }
        guard !rules.isEmpty || !text.pagedMedia.pageCounterResets.isEmpty || text.paragraphs.contains(where: { $0.value.pageSide != nil }) else {
            return nil
        }
        pendingCounterResets = text.pagedMedia.pageCounterResets.sorted { $0.offset < $1.offset }[...]
        // The more specific rules after the others, each kind in source order.
        self.rules = rules.enumerated().sorted { ($0.element.specificity, $0.offset) < ($1.element.specificity, $1.offset) }.map(\.element)
        self.strings = Dictionary(grouping: strings.sorted { $0.offset < $1.offset }, by: \.name)
        self.fonts = fonts
        self.layout = layout
        needsTotal = rules.contains { rule in
            rule.boxes.values.contains { declarations in
                declarations.contains { $0.property == "content" && $0.value.lowercased().contains("counter(pages") }
            }
        }
    }

    /// The typesetter's next page, dressed.
    func nextPage(of typesetter: ArticleTypesetter) throws(TypesetError) -> TypesetPage? {
        guard needsTotal else {
            return try laidOutPage(of: typesetter).map { dress($0.page, range: $0.range, context: $0.context) }
        }
        if laidOut == nil {
            var pages: [(page: TypesetPage, range: Range<Int>, context: PageContext)] = []
            while let page = try laidOutPage(of: typesetter) { pages.append(page) }
            laidOut = pages[...]
            total = pages.count
        }
        return laidOut?.popFirst().map { dress($0.page, range: $0.range, context: $0.context) }
    }

    /// The next page as the typesetter lays it out, with the text offsets it holds, or a
    /// blank page when the text goes on with a paragraph that must begin on the other side.
    private func laidOutPage(of typesetter: ArticleTypesetter) throws(TypesetError) -> (page: TypesetPage, range: Range<Int>, context: PageContext)? {
        guard !typesetter.isFinished else { return nil }
        let start = typesetter.offset
        let paragraph = typesetter.text.paragraphs[typesetter.text.paragraphIndex(at: start)]
        let number = typesetter.pagesMade + 1
        let side = PageSide.of(page: number, in: layout.writingMode)
        // A page's name is that of the text it begins with; a blank page's, the next page's.
        let name = paragraph.value.pageName
        if paragraph.range.lowerBound == start, let wanted = paragraph.value.pageSide, side != wanted {
            typesetter.pagesMade += 1
            let context = PageContext(number: number, side: side, isBlank: true, name: name, startsName: false)
            let size = geometry(of: context).layout
            var blank = TypesetPage(size: PageSize(width: size.pageWidth, height: size.pageHeight), number: typesetter.pagesMade,
                                    background: layout.background, writingMode: layout.writingMode, columns: [], attachments: [],
                                    glyphRuns: [], rects: [], images: [], glyphCache: fonts.glyphCache)
            blank.isBlank = true
            return (blank, start..<start, context)
        }
        let context = PageContext(number: number, side: side, isBlank: false, name: name, startsName: lastName.map { $0 != name } ?? true)
        lastName = .some(name)
        let geometry = geometry(of: context)
        typesetter.pageLayout = geometry.layout
        typesetter.pageOffset = (geometry.insets.left - geometry.layout.inset.left, geometry.insets.top - geometry.layout.inset.top)
        guard let page = try typesetter.layOutPage() else { return nil }
        return (page, start..<typesetter.offset, context)
    }

    /// The page with its margin boxes set and its label.
    private func dress(_ page: TypesetPage, range: Range<Int>, context: PageContext) -> TypesetPage {
        let matching = rules.filter { $0.matches(context) }
        let number = advancePageCounter(matching: matching, range: range, isBlank: page.isBlank)
        let inherited = matching.flatMap(\.declarations)
        var boxes: [MarginBoxPosition: [CSSDeclaration]] = [:]
        for rule in matching {
            for (position, declarations) in rule.boxes { boxes[position, default: []] += declarations }
        }
        // The top boxes' lines (a running head) go before the page's own, the others' (a
        // folio) after: the order a PDF's text is read and copied in.
        var head: [GlyphRun] = []
        var runs = page.glyphRuns
        var rects = page.rects
        var frames: [MarginBoxFrame] = []
        var label = String(number)
        let margins = geometry(of: context).insets
        var keys: [MarginBoxPosition: BoxKey] = [:]
        for (position, declarations) in boxes {
            guard let content = declarations.last(where: { $0.property == "content" }) else { continue }
            let tokens = ContentToken.tokens(of: content.value)
            if case .function("counter", let arguments)? = tokens.first(where: {
                if case .function("counter", let arguments) = $0 { arguments.first?.lowercased() == "page" } else { false }
            }) {
                label = Self.counter(number, style: arguments.dropFirst().first)
            }
            let text = self.text(of: tokens, page: number, range: range)
            guard !text.allSatisfy(\.isWhitespace) else { continue }
            let (rect, defaultAlign, defaultAcross) = position.placement(width: page.size.width, height: page.size.height, margins: margins)
            let own = inherited + declarations.filter { $0.property != "content" }
            let verticalAlign = own.last { $0.property == "vertical-align" }?.value.lowercased()
            let across = verticalAlign == "top" ? -1 : verticalAlign == "bottom" ? 1 : verticalAlign == "middle" ? 0 : defaultAcross
            keys[position] = BoxKey(text: text, rect: rect, declarations: own, align: defaultAlign, across: across)
        }
        shareRows(&keys)
        for (position, key) in keys.sorted(by: { $0.key < $1.key }) {
            guard let set = setBoxes[key] ?? self.set(key) else { continue }
            setBoxes[key] = set
            if position.isAbove { head += set.runs } else { runs += set.runs }
            rects += set.rects
            frames.append(MarginBoxFrame(position: position, text: key.text, rect: key.rect, lines: set.lines))
        }
        var dressed = TypesetPage(size: page.size, number: page.number, background: page.background, writingMode: page.writingMode,
                                  columns: page.columns, attachments: page.attachments, glyphRuns: head + runs, rects: rects, images: page.images,
                                  glyphCache: page.glyphCache, breakExceptionCount: page.breakExceptionCount)
        dressed.marginBoxes = frames
        dressed.label = label
        dressed.isBlank = page.isBlank
        return dressed
    }

    /// The page counter's value on the page holding `range` (CSS Paged Media 3 §4.5): the
    /// resets of elements begun on earlier pages, then the page context's `counter-reset` and
    /// `counter-increment` of the most specific rules that give one (an increment of 1 when
    /// none does), then the resets of the elements that begin the page, so that a chapter with
    /// `counter-reset: page 1` opens on page 1. A blank page counts as a page; the elements
    /// after it begin the page after it.
    private func advancePageCounter(matching: [PageRule], range: Range<Int>, isBlank: Bool) -> Int {
        while let reset = pendingCounterResets.first, reset.offset < range.lowerBound {
            pageCounter = reset.value
            pendingCounterResets.removeFirst()
        }
        if let reset = matching.last(where: { $0.pageCounterReset != nil })?.pageCounterReset { pageCounter = reset }
        pageCounter += matching.last(where: { $0.pageCounterIncrement != nil })?.pageCounterIncrement ?? 1
        if !isBlank {
            while let reset = pendingCounterResets.first, reset.offset == range.lowerBound {
                pageCounter = reset.value
                pendingCounterResets.removeFirst()
            }
        }
        return pageCounter
    }

    /// Shares the width of the top row, and of the bottom row, between its boxes so that their
    /// texts do not overlap (after CSS Paged Media's §5.3.2, simplified): a centre box keeps the
    /// middle, as wide as its text when the side boxes' texts leave room for it (at least a
    /// third of the row), and the side boxes take what is left on either side; without one, the
    /// left and right boxes share the row in proportion to their texts when these do not fit
    /// side by side. A text wider than its box wraps.
    private func shareRows(_ keys: inout [MarginBoxPosition: BoxKey]) {
        for row in [[MarginBoxPosition.topLeft, .topCenter, .topRight], [.bottomLeft, .bottomCenter, .bottomRight]] {
            let present = row.filter { keys[$0] != nil }
            guard present.count > 1, let row0 = present.first.flatMap({ keys[$0] }) else { continue }
            let full = row0.rect
            /// The width of a box's text set on one line (or as wide as the row allows).
            func natural(_ position: MarginBoxPosition) -> Double? {
                guard let key = keys[position], let set = setBoxes[key] ?? self.set(key) else { return nil }
                setBoxes[key] = set
                return set.lines.map(\.rect.width).max()
            }
            func place(_ position: MarginBoxPosition, x: Double, width: Double) {
                keys[position]?.rect = Rect(x: x, y: full.y, width: width, height: full.height)
            }
            let (left, right) = (natural(row[0]), natural(row[2]))
            if let center = natural(row[1]) {
                let sides = max(left ?? 0, right ?? 0)
                let width = min(full.width, max(full.width / 3, min(center + 1, full.width - 2 * sides)))
                let side = (full.width - width) / 2
                place(row[1], x: full.x + side, width: width)
                place(row[0], x: full.x, width: side)
                place(row[2], x: full.maxX - side, width: side)
            } else if let left, let right, left + right > full.width {
                let share = full.width * left / (left + right)
                place(row[0], x: full.x, width: share)
                place(row[2], x: full.x + share, width: full.width - share)
            }
        }
    }

    /// A page's size and columns, and its margins: a named page's rules give it their size
    /// and margins whole (`@page chapter`, `@page chapter:first`); the other rules it matches
    /// give margins across and down the page where they leave the text area its width or height
    /// (`@page :left` and `:right` with mirrored margins move it), else the page keeps its own.
    private func geometry(of context: PageContext) -> (layout: ArticleLayout, insets: ArticleLayout.Insets) {
        let matching = rules.filter { $0.matches(context) }
        let page = PagedMedia.applying(matching.filter { $0.name != nil }, to: layout)
        guard matching.contains(where: { $0.name == nil && !$0.selectors.isEmpty && !$0.margins.isEmpty }) else { return (page, page.inset) }
        let own = PagedMedia.applying(matching, to: layout).inset
        var insets = page.inset
        if abs(own.left + own.right - insets.left - insets.right) < 0.01 { (insets.left, insets.right) = (own.left, own.right) }
        if abs(own.top + own.bottom - insets.top - insets.bottom) < 0.01 { (insets.top, insets.bottom) = (own.top, own.bottom) }
        return (page, insets)
    }

    /// A margin box's `content`: strings, `counter(page)`, `counter(pages)` (each with an
    /// optional counter style) and `string(name)` with `first` (the default), `start`, `last`
    /// or `first-except`.
    private func text(of tokens: [ContentToken], page number: Int, range: Range<Int>) -> String {
        var text = ""
        for token in tokens {
            switch token {
            case .string(let string):
                text += string
            case .function("counter", let arguments):
                switch arguments.first?.lowercased() {
                case "page": text += Self.counter(number, style: arguments.dropFirst().first)
                case "pages": text += Self.counter(total ?? number, style: arguments.dropFirst().first)
                default: break
                }
            case .function("string", let arguments):
                guard let name = arguments.first else { continue }
                text += namedString(name, policy: arguments.dropFirst().first?.lowercased() ?? "first", range: range) ?? ""
            default:
                break
            }
        }
        return text
    }

    /// The value of named string `name` on the page holding `range` (CSS GCPM 3 §1.2).
    private func namedString(_ name: String, policy: String, range: Range<Int>) -> String? {
        let assignments = strings[name] ?? []
        let before = assignments.last { $0.offset < range.lowerBound }?.value
        let on = assignments.filter { range.contains($0.offset) }
        switch policy {
        case "start": return on.first.flatMap { $0.offset == range.lowerBound ? $0.value : nil } ?? before
        case "last": return on.last?.value ?? before
        case "first-except": return on.isEmpty ? before : nil
        default: return on.first?.value ?? before
        }
    }

    /// `number` in a CSS counter style (decimal when none or unknown).
    static func counter(_ number: Int, style: String?) -> String {
        switch style?.lowercased() {
        case "lower-roman": HTMLWalker.roman(number)?.lowercased() ?? String(number)
        case "upper-roman": HTMLWalker.roman(number) ?? String(number)
        case "lower-alpha", "lower-latin": HTMLWalker.alphabetic(number) ?? String(number)
        case "upper-alpha", "upper-latin": HTMLWalker.alphabetic(number)?.uppercased() ?? String(number)
        case "decimal-leading-zero": number < 10 && number >= 0 ? "0\(number)" : String(number)
        default: String(number)
        }
    }

    /// Sets a margin box's text with the layout's fonts, as a one-column page of its own as
    /// wide as the box, and moves its lines into the box: aligned as `text-align` says (the
    /// box's default otherwise), across the box as `key.across` says.
    private func set(_ key: BoxKey) -> SetBox? {
        guard key.rect.width >= 1, key.rect.height > 0 else { return nil }
        var style = ComputedStyle(base: layout.base)
        style.apply(key.declarations, parent: ComputedStyle(base: layout.base), base: layout.base)
        var paragraph = style.paragraphStyle(base: layout.base)
        if !key.declarations.contains(where: { $0.property == "text-align" }) { paragraph.alignment = key.align }
        let scalars = Array(key.text.unicodeScalars)
        let text = AttributedText(scalars: scalars, styleRuns: [AttributeRun(range: 0..<scalars.count, value: style.text)],
                                  paragraphs: [AttributeRun(range: 0..<scalars.count, value: paragraph)], attachments: [])
        var boxLayout = ArticleLayout(name: layout.name)
        boxLayout.pageWidth = key.rect.width
        boxLayout.pageHeight = max(key.rect.height, 1000)
        boxLayout.inset = .init(all: 0)
        boxLayout.base = layout.base
        boxLayout.typography = layout.typography
        boxLayout.typography.justifyThreshold = 1
        guard let setter = try? ArticleTypesetter(text: text, layout: boxLayout, fonts: fonts),
              let page = try? setter.nextPage(), let lines = page.columns.first?.lines, !lines.isEmpty else { return nil }
        let top = lines.map(\.rect.y).min()!
        let depth = lines.map(\.rect.maxY).max()! - top
        let y = key.across < 0 ? key.rect.y : key.across > 0 ? key.rect.maxY - depth : key.rect.y + (key.rect.height - depth) / 2
        let (dx, dy) = (key.rect.x, y - top)
        func moved(_ rect: Rect) -> Rect { Rect(x: rect.x + dx, y: rect.y + dy, width: rect.width, height: rect.height) }
        return SetBox(runs: page.glyphRuns.map { run in
                          var run = run
                          run.positions = run.positions.map { ($0.x + dx, $0.y + dy) }
                          // Its clusters index the box's text, not the article's (the PDF's text).
                          run.ownText = scalars
                          return run
                      },
                      rects: page.rects.map { $0.moved(to: moved($0.rect)) },
                      lines: lines.map { line in
                          var line = line
                          line.rect = moved(line.rect)
                          line.baseline += dy
                          return line
                      })
    }
}
