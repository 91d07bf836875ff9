/// Path strings taken apart by hand.
///
/// Foundation's `NSString.deletingLastPathComponent` on Linux traps (SIGILL) on a path of one
/// character with no folder, such as `x` or `x/` (swift-corelibs-foundation with Swift 6.3.1,
/// `String._startOfLastPathComponent`): a document named `x.pdf` that was deleted made every
/// later run into its output folder die before opening a document. Nothing here traps on any
/// string, and every result is shorter than the path it came from unless it is `/` or empty,
/// so a loop walking up to the root ends.
public enum PathText {
    /// The path without its last component, as `deletingLastPathComponent` means it:
    /// `a/b/c.png` → `a/b`, `c.png` → ``, `/a` → `/`, `/` → `/`, `a//b/` → `a`.
    public static func parent(of path: String) -> String {
        var rest = Substring(path)
        while rest.count > 1, rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let slash = rest.lastIndex(of: "/") else { return "" }
        if slash == rest.startIndex { return "/" }
        var head = rest[..<slash]
        while head.count > 1, head.hasSuffix("/") { head = head.dropLast() }
        return String(head)
    }

    /// Every folder above a relative path, deepest first, without the empty top:
    /// `a/b/c.png` → `a/b`, `a`.
    public static func folders(above path: String) -> [String] {
        var folders: [String] = []
        var current = parent(of: path)
        while !current.isEmpty, current != "/" {
            folders.append(current)
            current = parent(of: current)
        }
        return folders
    }
}
