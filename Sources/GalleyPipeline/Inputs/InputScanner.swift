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
        /// Symbolic links to folders, not entered because `follow_symlinks` is off.
        public var linkedFolders: [String] = []
        /// Folders that could not be listed (permissions), with the reason.
        public var unlisted: [String] = []

        public var isEmpty: Bool { unsupported.isEmpty && hidden.isEmpty && outputFolder.isEmpty && linkedFolders.isEmpty && unlisted.isEmpty }

        /// `2 of an unsupported type, 1 hidden`, then the folders not entered.
        public var counts: String {
            let files = [(unsupported.count, "of an unsupported type"), (hidden.count, "hidden"), (outputFolder.count, "the output folder")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
            return [files, foldersNotEntered].filter { !$0.isEmpty }.joined(separator: "; ")
        }

        /// `2 links to folders (follow_symlinks: true enters them), 1 folder that cannot be
        /// listed`, or "".
        public var foldersNotEntered: String {
            [(linkedFolders.count, "link to a folder", "links to folders", " (follow_symlinks: true enters them)"),
             (unlisted.count, "folder that cannot be listed", "folders that cannot be listed", "")]
                .filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2) not entered\($0.3)" }.joined(separator: ", ")
        }
    }

    /// The documents under every input. Throws when an input does not exist.
    public func scan() throws(UsageError) -> (documents: [SourceDocument], warnings: [String]) {
        let result = try scanCountingSkipped()
        return (result.documents, result.warnings)
    }

    /// `scan()`, and the files it passed over, with their paths.
    public func scanCountingSkipped() throws(UsageError) -> (documents: [SourceDocument], warnings: [String], skipped: Skipped) {
        var found: [(input: Int, relativePath: String, file: URL, root: URL, unnamable: Bool)] = []
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
                let files = isFolder.boolValue ? walk(root, skipping: output, skipped: &skipped) : [Found(url: match)]
                for file in files where seen.insert(file.url.path).inserted {
                    found.append((inputIndex, relative(file.url, to: root), file.url, root, file.unnamable))
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
                                            refusal: entry.unnamable ? Self.unnamable(entry.relativePath)
                                                : configuration.followSymlinks ? nil : Self.refusal(entry.file, roots: roots)))
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

    /// Why a document whose name is not UTF-8 is not read: the manifest, the contact sheet and
    /// every report name documents in UTF-8, so it is reported by its name as `ls -b` shows it.
    static func unnamable(_ shown: String) -> Failure {
        Failure(code: .invalidName,
                message: "its name is not valid UTF-8 (shown here as ls -b shows it), so it cannot be named in the manifest; rename it (convmv converts names from another encoding)")
    }

    /// Documents are ordered by input entry, then by relative path in byte order; nil when
    /// both are equal (two glob matches with the same relative path).
    static func scanOrder(_ a: (input: Int, path: [UInt8]), _ b: (input: Int, path: [UInt8])) -> Bool? {
        if a.input != b.input { return a.input < b.input }
        if a.path != b.path { return a.path.lexicographicallyPrecedes(b.path) }
        return nil
    }

    /// A file the walk found: its path, or, for a name that is not UTF-8, the path as `ls -b`
    /// shows it (`unnamable`), which cannot be opened but can be reported.
    struct Found {
        var url: URL
        var unnamable = false
    }

    /// Every regular file below `folder` with a document's extension, skipping hidden entries
    /// and the output folder; what it passes over goes to `skipped`.
    ///
    /// A symbolic link to a file counts as that file (under the link's name). Links to folders
    /// are entered when `follow_symlinks` is on (each real folder once, so a link loop cannot
    /// trap the walk) and counted as passed over when it is off. Names that are not UTF-8 are
    /// found too, and returned as `unnamable` documents (or counted as unsupported files), never
    /// dropped in silence.
    ///
    /// Hand-written on `opendir`/`readdir` because Foundation's enumerator drops names that are
    /// not UTF-8 without a word and never enters links.
    private func walk(_ folder: URL, skipping output: String, skipped: inout Skipped) -> [Found] {
        var files: [Found] = []
        var entered = Set<[UInt64]>()
        var pending = [(path: folder.standardizedFileURL.path, shown: folder.standardizedFileURL.path)]
        while let (path, shown) = pending.popLast() {
            guard let stream = opendir(path) else {
                skipped.unlisted.append("\(shown): \(String(cString: strerror(errno)))")
                continue
            }
            defer { closedir(stream) }
            var info = stat()
            guard fstat(dirfd(stream), &info) == 0, entered.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted else { continue }
            var names: [[UInt8]] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
            }
            // Folders are taken from the end of `pending`: pushed in reverse to enter them in order.
            var folders: [(String, String)] = []
            for bytes in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                let valid = String(validating: bytes, as: UTF8.self)
                let name = valid ?? Self.octal(bytes)
                let child = path + "/" + name, childShown = shown + "/" + name
                guard valid != nil else {
                    let fileExtension = (name as NSString).pathExtension.lowercased()
                    if Self.extensions[fileExtension] != nil {
                        files.append(Found(url: URL(fileURLWithPath: childShown), unnamable: true))
                    } else if !Self.articleResources.contains(fileExtension) {
                        skipped.unsupported.append(childShown)
                    }
                    continue
                }
                if child == output || child.hasPrefix(output + "/") {
                    skipped.outputFolder.append(childShown)
                    continue
                }
                if name.hasPrefix(".") {
                    skipped.hidden.append(childShown)
                    continue
                }
                var kind = stat()
                guard lstat(child, &kind) == 0 else { continue }
                var mode = kind.st_mode & S_IFMT
                if mode == S_IFLNK {
                    guard stat(child, &kind) == 0 else { continue }  // a dangling link
                    mode = kind.st_mode & S_IFMT
                    if mode == S_IFDIR && !configuration.followSymlinks {
                        skipped.linkedFolders.append(childShown)
                        continue
                    }
                }
                if mode == S_IFDIR {
                    folders.append((child, childShown))
                    continue
                }
                guard mode == S_IFREG else { continue }
                let fileExtension = (name as NSString).pathExtension.lowercased()
                guard Self.extensions[fileExtension] != nil else {
                    if !Self.articleResources.contains(fileExtension) { skipped.unsupported.append(childShown) }
                    continue
                }
                files.append(Found(url: URL(fileURLWithPath: child)))
            }
            pending += folders.reversed()
        }
        return files
    }

    /// A name that is not UTF-8 as `ls -b` shows it: valid UTF-8 kept, other bytes in octal.
    static func octal(_ bytes: [UInt8]) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            // The longest valid UTF-8 sequence starting here (1 to 4 bytes), else one byte.
            if let length = (1...min(4, bytes.count - index)).reversed().first(where: { String(validating: bytes[index..<(index + $0)], as: UTF8.self) != nil }) {
                out += Escape.terminal(String(decoding: bytes[index..<(index + length)], as: UTF8.self))
                index += length
            } else {
                out += "\\" + String(repeating: "0", count: 3 - String(bytes[index], radix: 8).count) + String(bytes[index], radix: 8)
                index += 1
            }
        }
        return out
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
