import GalleyText
import Testing

// libunibreak 1.1 (Debian 12's) aborts the whole process on two kinds of valid text: U+FFFF,
// the value it uses to mark the end of its input, and the regional indicators that spell
// flags. Such text is typeset like any other: every character lands on a line, in order.

private let textLibunibreakAbortsOn = [
    "\u{FFFF}",
    "\u{FFFF}Text after the marker.",
    "Text with \u{FFFF} inside a sentence that is long enough to wrap in a narrow column.",
    "Text ending in the marker\u{FFFF}",
    "Three \u{FFFF}\u{FFFF}\u{FFFF} in a row",
    "🇩🇪",
    "Flags 🇩🇪 and 🇫🇷🇯🇵 in a sentence that is long enough to wrap in a narrow column.",
    "letters🇩🇪against(🇫🇷)1🇯🇵 and \u{FFFF}🇮🇹",
]

/// Every line of every page, in order.
private func lines(_ text: AttributedText, width: Double) throws -> [LineBox] {
    try typesetAll(text, column(width), fonts: sharedFonts).flatMap { $0.columns.flatMap(\.lines) }
}

@Test(arguments: textLibunibreakAbortsOn)
func textTheLineBreakerCannotTakeIsTypeset(paragraph: String) throws {
    let text = testText([paragraph, "A paragraph after it."])
    let lines = try lines(text, width: 90)
    var next = 0
    for line in lines {
        #expect(line.range.lowerBound == next, "gap or overlap at \(next)")
        next = line.range.upperBound
    }
    #expect(next == text.count, "the lines hold \(next) of \(text.count) characters")
}

@Test func aFlagIsNeverSplitAcrossLines() throws {
    let flags = ["🇩🇪", "🇫🇷", "🇯🇵", "🇮🇹", "🇬🇷", "🇺🇦"]
    let text = testText([Array(repeating: flags, count: 8).flatMap { $0 }.joined(separator: " ")])
    let lines = try lines(text, width: 60)
    #expect(lines.count > 4, "the column is narrow enough to wrap")
    let isRegionalIndicator = { (scalar: Unicode.Scalar) in (0x1F1E6...0x1F1FF).contains(scalar.value) }
    for line in lines.dropLast() {
        let end = line.range.upperBound
        let splitsFlag = isRegionalIndicator(text.scalars[end - 1]) && isRegionalIndicator(text.scalars[end])
        #expect(!splitsFlag, "a line ends inside the flag at \(end)")
    }
}

/// The bytes that stopped a batch: a plain-text book with invalid UTF-8, terminal escapes and
/// the UTF-8 encoding of U+FFFF (EF BF BF, one bit away from the EF BF BD of U+FFFD), and an
/// HTML page naming the same characters by reference.
@Test(arguments: [
    (Array("It was the best of times,\n\u{1B}[31mit was \u{FFFF}the worst\u{1B}[0m of times,\n\nit was the age".utf8) + [0xC3, 0x28, 0xEF, 0xBF, 0xBF, 0x0A], false),
    (Array("<p>x&#xFFFF;y &#x1F1E9;&#x1F1EA; &#65535;</p><p>\u{1B}[2J after</p>".utf8), true),
] as [([UInt8], Bool)])
func markupWithTheseCharactersIsTypeset(bytes: [UInt8], isHTML: Bool) throws {
    let parser = MarkupParser(base: BaseStyle())
    let article = isHTML ? parser.parse(html: bytes, baseURL: nil) : parser.parse(plainText: bytes)
    #expect(article.text.scalars.contains("\u{FFFF}"), "the marker reaches the typesetter")
    let lines = try lines(article.text, width: 120)
    #expect(lines.last?.range.upperBound == article.text.count)
}
