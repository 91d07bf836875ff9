#if canImport(Glibc)
import Glibc
#endif

/// Drops start tags that would make gumbo's work grow faster than the input.
///
/// gumbo 0.10.1 looks up element scopes by walking the stack of open elements (200,000 nested
/// `<div>`s take two minutes) and reopens every active formatting element in each new block
/// (20,000 unclosed `<font color=…>` in as many paragraphs need 24 GB). So, while following a
/// rough model of the HTML tree builder (implied end tags of `p`, `li`, `dd`, `td`, ...,
/// formatting elements with markers and the Noah's Ark rule), start tags beyond a depth of 200
/// or beyond 16 active formatting elements are removed from the input. Only tags go: text is
/// kept. Documents within the limits pass through untouched.
enum NestingLimiter {
    static let maximumDepth = 200
    static let maximumActiveFormatting = 16

    /// The markup with the excess start tags removed, and how many there were.
    static func limit(_ html: [UInt8]) -> (html: [UInt8], droppedTags: Int) {
        var model = TreeModel()
        let dropped = html.withUnsafeBufferPointer { model.excessTags(in: $0) }
        guard !dropped.isEmpty else { return (html, 0) }
        var output: [UInt8] = []
        output.reserveCapacity(html.count)
        var copied = 0
        for range in dropped {
            output.append(contentsOf: html[copied..<range.lowerBound])
            copied = range.upperBound
        }
        output.append(contentsOf: html[copied...])
        return (output, dropped.count)
    }

    private static func names(_ list: String) -> Set<[UInt8]> {
        Set(list.split(separator: " ").map { Array($0.utf8) })
    }

    /// What the model does with an element, looked up once per tag.
    struct Category: OptionSet, Hashable {
        let rawValue: Int
        static let void = Category(rawValue: 1 << 0)
        static let rawText = Category(rawValue: 1 << 1)
        static let formatting = Category(rawValue: 1 << 2)
        static let marker = Category(rawValue: 1 << 3)
        static let closesParagraph = Category(rawValue: 1 << 4)
        static let heading = Category(rawValue: 1 << 5)
        static let foreignRoot = Category(rawValue: 1 << 6)
        static let document = Category(rawValue: 1 << 7)
    }

    static let categories: [[UInt8]: Category] = {
        var table: [[UInt8]: Category] = [:]
        let sets: [(Set<[UInt8]>, Category)] = [
            (voidElements, .void), (rawTextElements, .rawText), (formattingElements, .formatting),
            (markerElements, .marker), (closesParagraph, .closesParagraph), (headings, .heading),
            (foreignRoots, .foreignRoot), (documentElements, .document),
        ]
        for (names, category) in sets {
            for name in names { table[name, default: []].insert(category) }
        }
        return table
    }()

    static let voidElements = names("""
        area base basefont bgsound br col command embed frame hr image img input keygen link menuitem meta param \
        source track wbr
        """)
    /// Elements whose content the tokenizer reads as text up to their end tag.
    static let rawTextElements = names("script style textarea title xmp iframe noembed noframes")
    static let formattingElements = names("a b big code em font i nobr s small strike strong tt u")
    /// Elements that put a marker in the list of active formatting elements.
    static let markerElements = names("td th caption marquee object applet template")
    static let closesParagraph = names("""
        address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form \
        h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre section summary table ul li dd dt listing xmp \
        plaintext search
        """)
    static let headings = names("h1 h2 h3 h4 h5 h6")
    static let listRoots = names("ul ol menu dir")
    static let documentElements = names("html head body")
    static let definitionRoots = names("dl")
    static let rowRoots = names("tr table")
    static let tableRoots = names("table")
    static let paragraph = Array("p".utf8)
    static let listItem = Array("li".utf8)
    static let term = Array("dt".utf8)
    static let definition = Array("dd".utf8)
    static let cell = Array("td".utf8)
    static let headerCell = Array("th".utf8)
    static let row = Array("tr".utf8)
    static let option = Array("option".utf8)
    static let anchor = Array("a".utf8)
    static let plaintext = Array("plaintext".utf8)
    static let foreignRoots = names("svg math")

    /// The open elements and active formatting elements of the tree builder, roughly.
    private struct TreeModel {
        var open: [[UInt8]] = []
        /// How many elements of each name are open, to skip most searches of `open`.
        var openCounts: [[UInt8]: Int] = [:]
        /// Active formatting elements: tag name and a key of the whole tag; nil is a marker.
        var active: [(name: [UInt8], key: Int)?] = []
        var foreignDepth = 0

        mutating func excessTags(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
            var dropped: [Range<Int>] = []
            let count = bytes.count
            var i = 0
            while i < count {
                guard let lessThan = Self.index(of: UInt8(ascii: "<"), in: bytes, from: i) else { break }
                i = lessThan + 1
                guard i < count else { break }
                let c = bytes[i]
                if c == UInt8(ascii: "!") {
                    if i + 2 < count && bytes[i + 1] == UInt8(ascii: "-") && bytes[i + 2] == UInt8(ascii: "-") {
                        i = Self.endOfComment(in: bytes, from: i + 3)
                    } else {
                        i = Self.after(UInt8(ascii: ">"), in: bytes, from: i)
                    }
                } else if c == UInt8(ascii: "?") {
                    i = Self.after(UInt8(ascii: ">"), in: bytes, from: i)
                } else if c == UInt8(ascii: "/") {
                    guard i + 1 < count, bytes[i + 1].isASCIILetter else {
                        i = Self.after(UInt8(ascii: ">"), in: bytes, from: i)
                        continue
                    }
                    let (name, afterName) = Self.name(in: bytes, from: i + 1)
                    i = Self.after(UInt8(ascii: ">"), in: bytes, from: afterName)
                    endTag(name)
                } else if c.isASCIILetter {
                    let (name, afterName) = Self.name(in: bytes, from: i)
                    guard let tagEnd = Self.endOfTag(in: bytes, from: afterName) else { break }
                    let end = tagEnd.end
                    i = end
                    let category = categories[name] ?? []
                    var key = 0
                    if category.contains(.formatting) {
                        var hasher = Hasher()
                        hasher.combine(name)
                        hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[afterName..<end])))
                        key = hasher.finalize()
                    }
                    if !startTag(name, category: category, key: key, selfClosing: tagEnd.selfClosing) {
                        dropped.append(lessThan..<end)
                    }
                    if name == plaintext { break }
                    if category.contains(.rawText) && foreignDepth == 0 {
                        i = Self.endTag(name, in: bytes, from: i)
                    }
                }
            }
            return dropped
        }

        /// Updates the model for a start tag; false when the tag is to be dropped.
        private mutating func startTag(_ name: [UInt8], category: Category, key: Int, selfClosing: Bool) -> Bool {
            if category.contains(.void) || (selfClosing && foreignDepth > 0) { return true }
            if category.contains(.rawText) && foreignDepth == 0 { return true }
            if category.contains(.document) { return true }
            if category.contains(.closesParagraph), let index = lastOpen([paragraph]) {
                pop(to: index)
            }
            if name == listItem {
                if let index = lastOpen([listItem], stoppingAt: listRoots) { pop(to: index) }
            } else if name == term || name == definition {
                if let index = lastOpen([term, definition], stoppingAt: definitionRoots) { pop(to: index) }
            } else if name == cell || name == headerCell {
                if let index = lastOpen([cell, headerCell], stoppingAt: rowRoots) { pop(to: index) }
            } else if name == row {
                if let index = lastOpen([row], stoppingAt: tableRoots) { pop(to: index) }
            } else if name == option {
                if open.last == option { pop(to: open.count - 1) }
            } else if name == anchor {
                removeActive(name)
                if let index = lastOpen([anchor]) { pop(to: index) }
            } else if category.contains(.heading), let last = open.last, headings.contains(last) {
                pop(to: open.count - 1)
            }
            let isFormatting = category.contains(.formatting)
            if open.count >= maximumDepth || (isFormatting && activeSinceMarker() >= maximumActiveFormatting) {
                return false
            }
            open.append(name)
            openCounts[name, default: 0] += 1
            if category.contains(.foreignRoot) { foreignDepth += 1 }
            if category.contains(.marker) { active.append(nil) }
            if isFormatting {
                // Noah's Ark: at most three identical entries after the last marker.
                var identical: [Int] = []
                for index in active.indices.reversed() {
                    guard let entry = active[index] else { break }
                    if entry.key == key { identical.append(index) }
                }
                if identical.count >= 3, let earliest = identical.last { active.remove(at: earliest) }
                active.append((name, key))
            }
            return true
        }

        private mutating func endTag(_ name: [UInt8]) {
            if formattingElements.contains(name) { removeActive(name) }
            if let index = lastOpen([name]) { pop(to: index) }
        }

        private func activeSinceMarker() -> Int {
            var count = 0
            for entry in active.reversed() {
                guard entry != nil else { break }
                count += 1
            }
            return count
        }

        private mutating func removeActive(_ name: [UInt8]) {
            for index in active.indices.reversed() {
                guard let entry = active[index] else { return }
                if entry.name == name {
                    active.remove(at: index)
                    return
                }
            }
        }

        /// The index of the topmost open element named one of `names`, unless one of
        /// `boundaries` is above it.
        private func lastOpen(_ names: [[UInt8]], stoppingAt boundaries: Set<[UInt8]> = []) -> Int? {
            guard names.contains(where: { openCounts[$0, default: 0] > 0 }) else { return nil }
            for index in open.indices.reversed() {
                if names.contains(open[index]) { return index }
                if boundaries.contains(open[index]) { return nil }
            }
            return nil
        }

        /// Closes the open element at `index` and those above it.
        private mutating func pop(to index: Int) {
            while open.count > index {
                let name = open.removeLast()
                openCounts[name, default: 1] -= 1
                if foreignRoots.contains(name) { foreignDepth -= 1 }
                if markerElements.contains(name) {
                    while let entry = active.popLast(), entry != nil {}
                }
            }
        }

        // MARK: Tokenizing

        static func index(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
            guard start < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }

        /// The index after the next `byte`, or the end.
        static func after(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
            index(of: byte, in: bytes, from: start).map { $0 + 1 } ?? bytes.count
        }

        static func endOfComment(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
            var i = start
            while let dash = index(of: UInt8(ascii: "-"), in: bytes, from: i) {
                if dash + 2 < bytes.count && bytes[dash + 1] == UInt8(ascii: "-") && bytes[dash + 2] == UInt8(ascii: ">") {
                    return dash + 3
                }
                i = dash + 1
            }
            return bytes.count
        }

        /// A tag name, lower-cased, and the index after it.
        static func name(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> ([UInt8], Int) {
            var name: [UInt8] = []
            var i = start
            while i < bytes.count {
                let byte = bytes[i]
                if byte.isHTMLWhitespace || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") { break }
                name.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
                i += 1
            }
            return (name, i)
        }

        /// The index after a start tag's `>` and whether it ends with `/>`; nil if the input
        /// ends inside the tag (gumbo then drops it).
        static func endOfTag(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, selfClosing: Bool)? {
            var i = start
            var selfClosing = false
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: ">") { return (i + 1, selfClosing) }
                if byte == UInt8(ascii: "/") {
                    selfClosing = true
                    i += 1
                } else if byte == UInt8(ascii: "=") {
                    selfClosing = false
                    i += 1
                    while i < bytes.count && bytes[i].isHTMLWhitespace { i += 1 }
                    if i < bytes.count && (bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'")) {
                        guard let close = index(of: bytes[i], in: bytes, from: i + 1) else { return nil }
                        i = close + 1
                    }
                } else {
                    if !byte.isHTMLWhitespace { selfClosing = false }
                    i += 1
                }
            }
            return nil
        }

        /// The index of `</name` closing a raw-text element, or the end.
        static func endTag(_ name: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
            var i = start
            while let lessThan = index(of: UInt8(ascii: "<"), in: bytes, from: i) {
                let nameStart = lessThan + 2
                if nameStart + name.count <= bytes.count, bytes[lessThan + 1] == UInt8(ascii: "/") {
                    var matches = true
                    for (offset, expected) in name.enumerated() {
                        let byte = bytes[nameStart + offset]
                        if ((0x41...0x5A).contains(byte) ? byte + 0x20 : byte) != expected {
                            matches = false
                            break
                        }
                    }
                    let after = nameStart + name.count
                    if matches && (after == bytes.count || bytes[after].isHTMLWhitespace || bytes[after] == UInt8(ascii: ">")
                                   || bytes[after] == UInt8(ascii: "/")) {
                        return lessThan
                    }
                }
                i = lessThan + 1
            }
            return bytes.count
        }
    }
}
