import Foundation

/// Where a path really leads: the one rule documents and pictures follow to stay inside the
/// folders a user gave.
enum FilePaths {
    /// Whether `path` is `folder` or below it (both absolute and normalised).
    static func path(_ path: String, isInside folder: String) -> Bool {
        let folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return path == folder || path.hasPrefix(folder + "/")
    }

    /// `realpath(3)`: absolute, `..` and links resolved; nil with `errno` set when it fails.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
