import Foundation
import GalleyBase

/// A document found by the scan, with the output name derived from its path.
public struct SourceDocument: Sendable, Hashable {
    /// What kind of input this is.
    public enum Kind: String, Sendable, Codable {
        case pdf
        /// An HTML-like article or plain text, typeset once per layout.
        case markup
    }

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
