/// The text of an article as it was set: each line as it appears on the page, columns in
/// filling order, pages separated by a form feed (U+000C), as `pdftotext` does. For search
/// indexes, accessibility and reviewing what moved between two runs with a text diff.
///
/// A hyphenated line ends with the hyphen it shows (a soft hyphen that did not break is
/// dropped); trailing white space and picture placeholders (U+FFFC) are left out, and a line
/// separator inside a line (`<br>`) ends the line. UTF-8, ending with a newline.
public struct TextDocumentFormat: DocumentFormat {
    public init() {}

    public var name: DocumentFormatName { .text }
    public var fileExtension: String { "txt" }
    public var fingerprint: String { "text 1" }

    public func makeWriter(text: AttributedText, layout: ArticleLayout) -> any DocumentWriter {
        TextDocumentWriter(text: text)
    }
}

/// Writes the lines of each page as they arrive.
final class TextDocumentWriter: DocumentWriter {
    private let scalars: [Unicode.Scalar]
    private var output = String.UnicodeScalarView()
    private var pages = 0

    init(text: AttributedText) {
        scalars = text.scalars
    }

    func add(_ page: TypesetPage) throws(TypesetError) {
        if pages > 0 { output.append("\u{0C}") }
        pages += 1
        for (index, column) in page.columns.enumerated() {
            if index > 0 { output.append("\n") }
            for line in column.lines {
                append(line)
                output.append("\n")
            }
        }
    }

    private func append(_ line: LineBox) {
        let range = line.range.clamped(to: 0..<scalars.count)
        var shown = scalars[range].filter { $0 != "\u{AD}" && $0 != AttributedText.objectReplacement }
            .map { ($0 == AttributedText.lineSeparator || $0 == AttributedText.paragraphSeparator) ? "\n" : $0 }
        while let last = shown.last, last.properties.isWhitespace { shown.removeLast() }
        output.append(contentsOf: shown)
        if line.isHyphenated, shown.last != "-" { output.append("-") }
    }

    func finish() throws(TypesetError) -> [UInt8] {
        Array(String(output).utf8)
    }
}
