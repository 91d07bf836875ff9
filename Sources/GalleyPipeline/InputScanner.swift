import Foundation
import GalleyBase

/// The scan stage: expands the configured inputs into an ordered list of documents.
///
/// Order is by input entry, then by relative path in byte order, so names and the manifest do
/// not depend on the order the file system lists folders in.
public struct InputScanner: Sendable {
    public var configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// File extensions read as each kind (lower case).
    static let extensions: [String: SourceDocument.Kind] = [
        "pdf": .pdf, "html": .markup, "htm": .markup, "xhtml": .markup, "txt": .markup,
    ]

    /// What articles load (pictures, style sheets, fonts, scripts): expected beside documents,
    /// so passed over without being counted as unsupported.
    static let articleResources: Set<String> = [
        "png", "jpg", "jpeg", "gif", "svg", "webp", "avif", "bmp", "tif", "tiff", "ico",
        "css", "js", "woff", "woff2", "ttf", "otf", "map",
    ]

    /// Files under the inputs that are not documents, by why they were passed over.
    public struct Skipped: Sendable, Equatable {
        /// Files whose extension is not one Galley reads (`notes.docx`); an article's
        /// pictures, style sheets and fonts (`articleResources`) are not counted.
        public var unsupported: [String] = []
        /// Hidden files and folders (names starting with `.`), not entered.
        public var hidden: [String] = []
        /// The output folder, when it lies inside an input.
        public var outputFolder: [String] = []

        public var isEmpty: Bool { unsupported.isEmpty && hidden.isEmpty && outputFolder.isEmpty }

        /// `2 of an unsupported type, 1 hidden`.
        public var counts: String {
            [(unsupported.count, "of an unsupported type"), (hidden.count, "hidden"), (outputFolder.count, "the output folder")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        }
    }

    /// The documents under every input. Throws when an input does not exist.
    public func scan() throws(UsageError) -> (documents: [SourceDocument], warnings: [String]) {
        let result = try scanCountingSkipped()
        return (result.documents, result.warnings)
    }

    /// `scan()`, and the files it passed over, with their paths.
    public func scanCountingSkipped() throws(UsageError) -> (documents: [SourceDocument], warnings: [String], skipped: Skipped) {
        var found: [(input: Int, relativePath: String, file: URL, root: URL)] = []
        var warnings: [String] = []
        var skipped = Skipped()
        var seen = Set<String>()
        let output = configuration.outputURL.resolvingSymlinksInPath().path
        for (inputIndex, input) in configuration.inputs.enumerated() {
            let matches: [URL]
            if input.contains(where: { "*?[".contains($0) }) {
                matches = glob(configuration.resolveInput(input).path)
                if matches.isEmpty { warnings.append("input '\(input)' matches no files") }
            } else {
                let url = configuration.resolveInput(input)
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw UsageError(subject: "inputs",
                                     message: "\(input): no such file or folder (\(url.path)); fix the path in pipeline.yml or --input")
                }
                matches = [url]
            }
            for match in matches {
                var isFolder: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: match.path, isDirectory: &isFolder)
                // An input folder that is a link is walked where it leads (the walk does not
                // enter links), and its documents named relative to that.
                let root = isFolder.boolValue ? match.resolvingSymlinksInPath() : match.deletingLastPathComponent()
                let files = isFolder.boolValue ? walk(root, skipping: output, skipped: &skipped) : [match]
                for file in files where seen.insert(file.path).inserted {
                    found.append((inputIndex, relative(file, to: root), file, root))
                }
            }
        }
        // Where the input folders really are: a document whose real path is under none of them
        // was reached through a link leading out, and is refused unless links may be followed.
        let roots = configuration.followSymlinks ? [] : Set(found.compactMap { FilePaths.realPath($0.root.path) })
        var namer = DocumentNamer()
        var documents: [SourceDocument] = []
        let layoutFolders = configuration.layouts.map(\.name)
        // Scan order; found order (glob matches are sorted) for equal keys.
        let ordered = found.map { ($0, Array($0.relativePath.utf8)) }.enumerated().sorted { a, b in
            let (x, xBytes) = a.element, (y, yBytes) = b.element
            if let order = Self.scanOrder((x.input, xBytes), (y.input, yBytes)) { return order }
            return a.offset < b.offset
        }
        for (_, (entry, _)) in ordered {
            guard let kind = Self.extensions[entry.file.pathExtension.lowercased()] else {
                skipped.unsupported.append(entry.file.path)
                continue
            }
            documents.append(SourceDocument(url: entry.file, input: configuration.inputs[entry.input],
                                            relativePath: entry.relativePath, kind: kind,
                                            name: namer.name(forRelativePath: entry.relativePath,
                                                             subfolders: kind == .markup ? layoutFolders : []),
                                            refusal: configuration.followSymlinks ? nil : Self.refusal(entry.file, roots: roots)))
        }
        return (documents, warnings, skipped)
    }

    /// Why a document must not be read: its real path (links resolved) is inside none of the
    /// input folders' real paths.
    static func refusal(_ file: URL, roots: Set<String>) -> Failure? {
        guard let real = FilePaths.realPath(file.path) else { return nil }  // gone: opening reports it
        guard !roots.contains(where: { FilePaths.path(real, isInside: $0) }) else { return nil }
        return Failure(code: .outsideInput,
                       message: "a symbolic link to \(real), outside every input folder; documents are read only from inside the inputs (follow_symlinks: true in pipeline.yml allows it)")
    }

    /// Documents are ordered by input entry, then by relative path in byte order; nil when
    /// both are equal (two glob matches with the same relative path).
    static func scanOrder(_ a: (input: Int, path: [UInt8]), _ b: (input: Int, path: [UInt8])) -> Bool? {
        if a.input != b.input { return a.input < b.input }
        if a.path != b.path { return a.path.lexicographicallyPrecedes(b.path) }
        return nil
    }

    /// Every regular file below `folder` with a document's extension, skipping hidden entries
    /// and the output folder; what it passes over goes to `skipped`.
    /// A symbolic link to a file counts as that file (under the link's name); links to folders
    /// are not followed, so a link loop cannot trap the scan.
    private func walk(_ folder: URL, skipping output: String, skipped: inout Skipped) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey],
            options: [.skipsPackageDescendants]) else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator {
            let path = url.standardizedFileURL.path
            if path == output || path.hasPrefix(output + "/") {
                skipped.outputFolder.append(path)
                enumerator.skipDescendants()
                continue
            }
            if url.lastPathComponent.hasPrefix(".") {
                skipped.hidden.append(path)
                enumerator.skipDescendants()
                continue
            }
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
            var isFile = values?.isRegularFile == true
            if values?.isSymbolicLink == true {
                var target = stat()
                isFile = stat(url.path, &target) == 0 && (target.st_mode & S_IFMT) == S_IFREG
            }
            guard isFile else { continue }
            let fileExtension = url.pathExtension.lowercased()
            guard Self.extensions[fileExtension] != nil else {
                if !Self.articleResources.contains(fileExtension) { skipped.unsupported.append(path) }
                continue
            }
            files.append(url.standardizedFileURL)
        }
        return files
    }

    private func relative(_ file: URL, to root: URL) -> String {
        let rootPath = root.standardizedFileURL.path
        let path = file.standardizedFileURL.path
        if path.hasPrefix(rootPath + "/") { return String(path.dropFirst(rootPath.count + 1)) }
        return file.lastPathComponent
    }

    private func glob(_ pattern: String) -> [URL] {
        var result = glob_t()
        defer { globfree(&result) }
        guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { i in
            result.gl_pathv[i].map { URL(fileURLWithPath: String(cString: $0)).standardizedFileURL }
        }
    }
}
