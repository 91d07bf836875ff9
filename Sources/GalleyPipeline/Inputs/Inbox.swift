import Foundation
import GalleyBase
import GalleyCatalog

/// The inbox: files dropped into it are moved into the library (the first input folder), keeping
/// their path below the inbox, then processed like any other document.
///
/// A file never replaces a different one: when the name is taken by other content the moved file
/// gets `-2`, `-3`... before its extension; when it is taken by the same content the dropped copy
/// is simply removed. The move is a hard link then an unlink (or a copy across file systems), so
/// a name is claimed atomically and an existing file cannot be overwritten by a race.
struct Inbox {
    let folder: URL
    let library: URL

    /// The inbox of a configuration that has one.
    ///
    /// - Throws: `ConfigurationError` naming the `inbox` key when the first input is not a folder
    ///   or the inbox folder cannot be made.
    init(configuration: Configuration) throws(ConfigurationError) {
        guard let inbox = configuration.inbox else { preconditionFailure("an Inbox is made only when the configuration has an inbox") }
        folder = configuration.resolve(inbox)
        guard let first = configuration.inputs.first else { throw configuration.settingError(key: "inputs", "no input folder for the inbox") }
        library = configuration.resolveInput(first)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: library.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw configuration.settingError(key: "inbox", "\(inbox): the first input (\(first)) must be a folder: inbox files are moved into it")
        }
        if !FileManager.default.fileExists(atPath: folder.path) {
            do {
                try AtomicFile.makeFolders(folder.path)
            } catch {
                throw configuration.settingError(key: "inbox", "\(inbox): \(error.message)")
            }
        }
    }

    /// Moves every document in the inbox into the library; returns `inbox path → library path`
    /// (relative), in order. Files that cannot be moved are reported as warnings and left.
    func collect() -> (moved: [(String, String)], warnings: [String]) {
        var moved: [(String, String)] = []
        var warnings: [String] = []
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey],
                                                              options: [.skipsHiddenFiles]) else { return ([], []) }
        var files: [URL] = []
        for case let url as URL in enumerator where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
            if InputScanner.extensions[url.pathExtension.lowercased()] != nil { files.append(url.standardizedFileURL) }
        }
        let root = folder.standardizedFileURL.path
        for file in files.sorted(by: { $0.path < $1.path }) {
            let relative = String(file.path.dropFirst(root.count + 1))
            do {
                if let placed = try place(file, relative: relative) { moved.append((relative, placed)) }
            } catch {
                warnings.append("inbox: \(relative) was not moved: \(error)")
            }
        }
        return (moved, warnings)
    }

    /// Moves one file; returns where it went, or nil when the library already had it.
    private func place(_ file: URL, relative: String) throws -> String? {
        let stem = (relative as NSString).deletingPathExtension, ext = (relative as NSString).pathExtension
        try AtomicFile.makeFolders(library.appendingPathComponent(PathText.parent(of: relative)).path)
        // The dropped file's hash, taken once, when a name is first found taken.
        var ownHash: String?
        func sameContent(as destination: URL) throws -> Bool {
            if ownHash == nil { ownHash = try ContentHash.sha256(file: file).hash }
            return try ContentHash.sha256(file: destination).hash == ownHash
        }
        for attempt in 1...10_000 {
            let name = attempt == 1 ? relative : "\(stem)-\(attempt)" + (ext.isEmpty ? "" : ".\(ext)")
            let destination = library.appendingPathComponent(name)
            if link(file.path, destination.path) == 0 {
                unlink(file.path)
                return name
            }
            switch errno {
            case EEXIST:
                if try sameContent(as: destination) {
                    unlink(file.path)
                    return nil
                }
            case EXDEV, EPERM:
                // Another file system (or no hard links): copy under a hidden name, then link that.
                let temporary = library.appendingPathComponent(".galley-inbox-\(UUID().uuidString)")
                try FileManager.default.copyItem(at: file, to: temporary)
                defer { unlink(temporary.path) }
                if link(temporary.path, destination.path) == 0 {
                    unlink(file.path)
                    return name
                }
                guard errno == EEXIST else { throw OutputError(path: destination.path, errno: errno, action: "move into the library") }
                if try sameContent(as: destination) {
                    unlink(file.path)
                    return nil
                }
            default:
                throw OutputError(path: destination.path, errno: errno, action: "move into the library")
            }
        }
        throw OutputError(path: file.path, message: "no free name in the library")
    }
}
