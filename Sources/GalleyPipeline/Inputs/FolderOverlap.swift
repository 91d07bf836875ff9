import Foundation
import GalleyBase

/// The rule that keeps the inbox, the output folder and the inputs apart.
///
/// The inbox moves every document it holds into the first input folder, and the output folder is
/// where Galley writes and deletes; so an inbox that is an input (or holds one, or lies in one)
/// would move the inputs away, and an inbox that holds the output folder would move its pages
/// into the inputs. An input inside the output folder would be read from the folder Galley
/// cleans. The output folder inside an input is allowed (the default: `inputs: ["."]`,
/// `output: out`): the scan passes it over.
///
/// Paths are compared as they really lead: `.`, `..`, trailing slashes and symbolic links
/// resolved for the part of each path that exists, so every spelling of one folder is one folder.
enum FolderOverlap {
    /// The first overlap in a configuration, as a message naming both folders; nil when apart.
    static func problem(in configuration: Configuration) -> (subject: String, message: String)? {
        let output = Folder(spelling: configuration.output, url: configuration.outputURL)
        let inputs = configuration.inputs.map { input in
            Folder(spelling: input, url: configuration.resolveInput(fixedPart(of: input)))
        }
        for input in inputs where input.isInside(output) {
            return ("inputs", "\(input) is \(input.path == output.path ? "the output folder" : "inside the output folder \(output)"), where Galley writes and removes pages; choose an output folder outside the inputs")
        }
        guard let inbox = configuration.inbox.map({ Folder(spelling: $0, url: configuration.resolve($0)) }) else { return nil }
        for input in inputs {
            guard let relation = inbox.overlap(with: input) else { continue }
            return ("inbox", "the inbox \(inbox) \(relation) the input \(input); the inbox's files are moved into the first input, so it must be a folder of its own, outside every input")
        }
        if let relation = inbox.overlap(with: output) {
            return ("inbox", "the inbox \(inbox) \(relation) the output folder \(output); the inbox's files are moved into the inputs, so it must be a folder of its own, outside the output folder")
        }
        return nil
    }

    /// A glob input's folders before its first wildcard (`docs/*/a.pdf` → `docs`).
    static func fixedPart(of input: String) -> String {
        guard input.contains(where: { "*?[".contains($0) }) else { return input }
        let components = input.split(separator: "/", omittingEmptySubsequences: false)
        let fixed = components.prefix { !$0.contains(where: { "*?[".contains($0) }) }
        let joined = fixed.joined(separator: "/")
        return joined.isEmpty ? (input.hasPrefix("/") ? "/" : ".") : joined
    }

    struct Folder: CustomStringConvertible {
        /// As the user wrote it.
        var spelling: String
        /// Absolute, with links resolved as far as the path exists.
        var path: String

        init(spelling: String, url: URL) {
            self.spelling = spelling
            path = FolderOverlap.realPath(url.standardizedFileURL.path)
        }

        var description: String { spelling == path ? "'\(spelling)'" : "'\(spelling)' (\(path))" }

        func isInside(_ other: Folder) -> Bool { FilePaths.path(path, isInside: other.path) }

        /// How this folder overlaps `other`, in words; nil when they are apart.
        func overlap(with other: Folder) -> String? {
            if path == other.path { return "is" }
            if isInside(other) { return "is inside" }
            if other.isInside(self) { return "holds" }
            return nil
        }
    }

    /// `realpath(3)` of the longest part of `path` that exists, with the rest appended: a folder
    /// not made yet compares by where it will be made.
    static func realPath(_ path: String) -> String {
        var head = path, tail: [Substring] = []
        while true {
            if let real = FilePaths.realPath(head) {
                let joined = ([real == "/" ? "" : real] + tail.reversed().map(String.init)).joined(separator: "/")
                return joined.isEmpty ? "/" : joined
            }
            guard let slash = head.lastIndex(of: "/"), head != "/" else { return path }
            tail.append(head[head.index(after: slash)...])
            head = slash == head.startIndex ? "/" : String(head[..<slash])
        }
    }
}

extension Configuration {
    /// Refuses an inbox, output folder and inputs that overlap (`FolderOverlap`).
    public func checkFoldersApart() throws(UsageError) {
        if let (subject, message) = FolderOverlap.problem(in: self) { throw UsageError(subject: subject, message: message) }
    }
}
