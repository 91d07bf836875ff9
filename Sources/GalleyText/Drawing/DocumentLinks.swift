import Foundation

/// The other articles of a run, for links between their PDFs: a link in an article to another
/// article of the batch (`<a href="ch02.html#ownership">`) goes to that article's PDF of the
/// same layout (`../ch02/a4.pdf`, at its destination `ownership`), so the PDFs link to each
/// other as the HTML files did.
public struct DocumentLinks: Sendable, Hashable {
    /// The article's own source file and its folder under the output folder (`book/ch01`:
    /// its PDFs are `book/ch01/<layout>.pdf`).
    public var source: URL
    public var name: String
    /// The output folders of the run's articles (markup documents), by their source files'
    /// standardized paths.
    public var articles: [String: String]

    public init(source: URL, name: String, articles: [String: String]) {
        self.source = source
        self.name = name
        self.articles = articles
    }

    /// A link to a file: its standardized path and its fragment, for a `file:` URL (as the
    /// markup's links to files reach the writer, resolved against the article's own URL) or a
    /// path relative to the article; nil for any other link (a scheme, a query, a root path).
    func file(for href: String) -> (path: String, fragment: String?)? {
        let href = href.trimmingASCIIWhitespace()
        let fragmentStart = href.firstIndex(of: "#")
        let fragment = fragmentStart.map { String(href[href.index(after: $0)...]) }.flatMap { $0.removingPercentEncoding ?? $0 }
        var path = String(href[..<(fragmentStart ?? href.endIndex)])
        if path.lowercased().hasPrefix("file:") {
            guard let url = URL(string: path), url.isFileURL, url.query == nil else { return nil }
            path = url.standardizedFileURL.path
        } else {
            guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("?"), path.prefix(while: { $0 != "/" }).firstIndex(of: ":") == nil,
                  let decoded = path.removingPercentEncoding else { return nil }
            path = URL(fileURLWithPath: decoded, relativeTo: source.deletingLastPathComponent()).standardizedFileURL.path
        }
        return (path, fragment.flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The output folder of the article of the batch at `path`, if it is one.
    func article(at path: String) -> String? {
        articles[path]
    }

    /// A file outside the batch as a URI relative to the article's own file (`notes.txt`,
    /// `../data/table.csv#row=4`), as the markup wrote it, never the machine's absolute path.
    func relativeURI(to path: String, fragment: String?) -> String {
        let relative = Self.relativePath(from: source.deletingLastPathComponent().standardizedFileURL.path, to: path)
        let encoded = relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative
        return encoded + (fragment.map { "#" + ($0.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? $0) } ?? "")
    }

    /// The path of `path` relative to folder `folder` (both absolute, `/`-separated).
    static func relativePath(from folder: String, to path: String) -> String {
        let from = folder.split(separator: "/")
        let to = path.split(separator: "/")
        let shared = zip(from, to).prefix { $0 == $1 }.count
        return (Array(repeating: "..", count: from.count - shared) + to[shared...].map(String.init)).joined(separator: "/")
    }

    /// The path of article `other`'s PDF of `layout` relative to this article's
    /// (`book/ch01/a4.pdf` to `book/ch02/a4.pdf`: `../ch02/a4.pdf`).
    func relativePDFPath(to other: String, layout: String) -> String {
        Self.relativePath(from: "/" + name, to: "/\(other)/\(layout).pdf")
    }
}

/// A link to another article's PDF, at a named destination. cairo 1.16 refuses `file='…'`
/// beside `dest='…'` (its attribute parser turns down any `dest` or `page` with `file`) and
/// writes a `file` link alone as `/S /GoToR /F (file) /D [0 null null 0]`, which names no
/// place. So the link is made with a marked file name (`../ch02/a4.pdf#galley-link-3`), and
/// once the file is written each such action gets its file's real name and the destination
/// (`/D (ownership)`, or the first page, `/D [0 /Fit]`), the cross-reference table moved to
/// match (`PDFCatalogEntry.replacing`).
struct RemoteLink {
    var file: String
    var destination: String?
    var index: Int

    var markedFile: String { "\(file)#galley-link-\(index)" }

    /// `bytes` with every action of `links` completed; as they are when the file is not laid
    /// out as cairo 1.16 writes it. `links[k]` is the link marked `#galley-link-k`: the file
    /// is read once for the marker, whatever the number of links (searched link by link, a
    /// chapter linking to many sections of others read its PDF once for each).
    static func completing(_ links: [RemoteLink], in bytes: [UInt8]) -> [UInt8] {
        guard !links.isEmpty else { return bytes }
        let marker = Array("#galley-link-".utf8)
        let placeholder = Array("/D [0 null null 0]".utf8)
        var edits: [(range: Range<Int>, bytes: [UInt8])] = []
        var from = 0
        while let found = CairoPDFLayout.firstIndex(of: marker, in: bytes, from: from) {
            from = found + marker.count
            // The link's number, and the file name before it as cairo wrote it: `/F (file#galley-link-k)`.
            guard let number = CairoPDFLayout.number(in: bytes, from: from), number.start == from,
                  number.value < links.count, number.end < bytes.count, bytes[number.end] == UInt8(ascii: ")") else { continue }
            let link = links[number.value]
            let opening = Array("/F (\(link.file)".utf8)
            let at = found - opening.count
            guard at >= 0, bytes[at..<found].elementsEqual(opening) else { continue }
            var end = number.end + 1
            var next = end
            while next < bytes.count, bytes[next] == 0x20 || bytes[next] == 0x0A || bytes[next] == 0x0D { next += 1 }
            if bytes[next...].starts(with: placeholder) { end = next + placeholder.count }
            // The destination's name as cairo writes it in the other file's name tree: its
            // UTF-8 bytes between parentheses.
            let destination = link.destination.map { "(\(literal($0)))" } ?? "[0 /Fit]"
            edits.append((at..<end, Array("/F (\(literal(link.file)))\n      /D \(destination)".utf8)))
            from = end
        }
        return PDFCatalogEntry.replacing(edits, in: bytes) ?? bytes
    }

    /// `text` as the inside of a PDF literal string: a backslash before each parenthesis and
    /// backslash (a name such as `report (draft).html` or an id with an unbalanced parenthesis
    /// would else end the string early), as cairo writes the name tree's keys.
    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "(" || character == ")" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
