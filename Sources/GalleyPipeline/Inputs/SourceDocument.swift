import Foundation
import GalleyBase
import GalleyManifest

/// A document found by the scan, with the output name derived from its path.
public struct SourceDocument: Sendable, Hashable {
    /// What kind of input this is: the manifest's word for it.
    public typealias Kind = Manifest.Document.Kind

    /// The file.
    public var url: URL
    /// The input entry (folder, file or glob) it was found through, as configured.
    public var input: String
    /// Its path relative to the input folder, with `/` separators.
    public var relativePath: String
    public var kind: Kind
    /// Its folder under the output folder: unique, safe for file names, stable across runs.
    public var name: String
    /// Why the scan already refuses to read it (a link leading outside the inputs); the run
    /// records it as failed without opening it.
    public var refusal: Failure?
    /// What its content showed it to be, when its name has no extension Galley reads (a
    /// `README`, a `.log`, a PDF saved without `.pdf`, given to `galley thumbnail`); nil: the
    /// extension says.
    public var sniffed: Sniffed?

    /// A file's type told from its first bytes.
    public enum Sniffed: String, Sendable, Hashable {
        case pdf, html, text

        /// `%PDF-` in the first 1,024 bytes (as readers accept it), markup at the start
        /// (`<!DOCTYPE html`, `<html`, `<head`, `<body`, `<?xml` then `<html`), else text: no
        /// NUL byte and valid UTF-8 (a multi-byte character cut at the end excepted); else nil.
        public static func of(_ bytes: ArraySlice<UInt8>) -> Sniffed? {
            let head = Array(bytes.prefix(1024))
            let pdf = Array("%PDF-".utf8)
            if head.count >= pdf.count, (0...(head.count - pdf.count)).contains(where: { head[$0..<$0 + pdf.count].elementsEqual(pdf) }) {
                return .pdf
            }
            guard !head.contains(0) else { return nil }
            var start = head[...]
            if start.starts(with: [0xEF, 0xBB, 0xBF]) { start = start.dropFirst(3) }
            let text = String(decoding: start.prefix(512), as: UTF8.self).lowercased()
            let trimmed = text.drop { $0.isWhitespace }
            if trimmed.hasPrefix("<") {
                let markup = ["<!doctype html", "<html", "<head", "<body"]
                if markup.contains(where: { trimmed.hasPrefix($0) }) || (trimmed.hasPrefix("<?xml") && text.contains("<html")) { return .html }
            }
            // Valid UTF-8 but for a character the 1,024-byte cut split.
            var sample = Array(start)
            while let last = sample.last, last & 0xC0 == 0x80 || last >= 0xC0, sample.count > start.count - 4 { sample.removeLast() }
            return String(validating: sample, as: UTF8.self) != nil ? .text : nil
        }
    }

    /// Whether it is set as plain text (`.txt`, or content sniffed as text).
    public var isPlainText: Bool {
        sniffed.map { $0 == .text } ?? (url.pathExtension.lowercased() == "txt")
    }
}

/// Makes output folder names from relative source paths.
///
/// The name keeps the folders of the source path so people can find a page without the
/// manifest (`reports/q1.pdf` → `reports/q1/page-0001.png`). Characters outside letters,
/// digits and `._-` become `_`, a leading dot gets a `_` so nothing turns hidden, and the
/// extension is dropped. Names are made unique case-insensitively, in scan order, by `-2`,
/// `-3`..., also against the folders a document's own files use (`thumbs`, and an article's
/// layout folders) and the output folder's own entries.
struct DocumentNamer {
    /// Names in use, lower-cased, plus the output folder's own entries (`diff` is where
    /// `galley diff` and `galley run --baseline` write by default, so `diff.pdf` becomes `diff-2/`).
    private var taken: Set<String> = ["manifest.json", "index.html", "_galley", "diff"]
    /// Every folder that contains a taken name, so checks cost a lookup, not a pass over all
    /// names (a corpus can hold hundreds of thousands of documents).
    private var ancestors: Set<String> = []

    /// - Parameter subfolders: folders the document's files go in besides its own (an
    ///   article's layouts), which no other document may own or lie in.
    mutating func name(forRelativePath path: String, subfolders: [String] = []) -> String {
        var components = path.split(separator: "/").map(String.init)
        if let last = components.popLast() {
            let stem = (last as NSString).deletingPathExtension
            components.append(stem.isEmpty ? last : stem)
        }
        components = components.map(Self.sanitize)
        // A folder that would put this document inside another one's thumbnail folder is renamed.
        for i in components.indices.dropFirst() where components[i].lowercased() == "thumbs" {
            if taken.contains(components[..<i].joined(separator: "/").lowercased()) { components[i] = "thumbs_" }
        }
        let base = components.joined(separator: "/")
        var candidate = base
        var suffix = 2
        while isTaken(candidate, subfolders: subfolders) {
            candidate = "\(base)-\(suffix)"
            suffix += 1
        }
        reserve(candidate)
        for subfolder in subfolders { reserve("\(candidate)/\(subfolder)") }
        return candidate
    }

    private func isTaken(_ name: String, subfolders: [String]) -> Bool {
        let key = name.lowercased()
        // Taken, or one of its own folders (thumbnails, layouts) is or would hold an existing
        // document.
        return taken.contains(key) || (["thumbs"] + subfolders).contains { folder in
            let path = key + "/" + folder.lowercased()
            return taken.contains(path) || ancestors.contains(path)
        }
    }

    private mutating func reserve(_ name: String) {
        let key = name.lowercased()
        taken.insert(key)
        var folder = key
        while let slash = folder.lastIndex(of: "/") {
            folder = String(folder[..<slash])
            guard ancestors.insert(folder).inserted else { break }
        }
    }

    static func sanitize(_ component: String) -> String {
        var out = String(component.unicodeScalars.map { scalar -> Character in
            let allowed = CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)
            return allowed ? Character(scalar) : "_"
        })
        if out.hasPrefix(".") { out = "_" + out }
        if out.isEmpty { out = "_" }
        return String(out.prefix(120))
    }
}
