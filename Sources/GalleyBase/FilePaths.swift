import Foundation

/// Where a path really leads: the one rule documents and pictures follow to stay inside the
/// folders a user gave.
package enum FilePaths {
    /// Whether `path` is `folder` or below it (both absolute and normalised).
    package static func path(_ path: String, isInside folder: String) -> Bool {
        let folder = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        return path == folder || path.hasPrefix(folder + "/")
    }

    /// `realpath(3)`: absolute, `..` and links resolved; nil with `errno` set when it fails.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `path` relative to the folder `base` (both made absolute and standardized): `..`,
    /// `../docs`, `.` for the folder itself.
    package static func relativePath(of path: String, from base: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let origin = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
        var common = 0
        while common < min(target.count, origin.count) && target[common] == origin[common] { common += 1 }
        let parts = Array(repeating: "..", count: origin.count - common) + target[common...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }
}
