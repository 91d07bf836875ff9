#if canImport(Glibc)
import Glibc
#endif

/// A folder whose files Galley creates, replaces, reads and deletes only through real folders
/// below it: every folder on the way is opened with `O_NOFOLLOW | O_DIRECTORY` from the one
/// before (`openat`), and the last name is created, renamed over, read or unlinked relative to
/// its folder's descriptor (`renameat`, `unlinkat`, `fstatat` without following). So a symbolic
/// link planted inside the output folder (a document's folder, `.galley/lock`, a page) can
/// never make Galley write, replace or delete anything outside it: the operation fails instead,
/// naming the link. The root itself is the user's choice and may be a link.
///
/// Hand-written on the system calls because Foundation's `FileManager` follows links in every
/// folder of a path and has no `*at` calls.
public struct ConfinedFolder: Sendable {
    public let root: String
    /// How messages name the root (`the output folder`): errors name a file by its path below
    /// the root, so a published manifest carries no path of the machine that ran.
    public let shownAs: String

    public init(root: String, shownAs: String = "the output folder") {
        self.root = root
        self.shownAs = shownAs
    }

    /// The folder `relative` (`a/b`, or "" for the root) opened for `*at` calls: the descriptor,
    /// or nil when it does not exist and `create` is false. The caller closes it.
    ///
    /// - Throws: `OutputError` when a name on the way is a link or not a folder, or a folder
    ///   cannot be made or opened.
    public func openFolder(_ relative: String, create: Bool) throws(OutputError) -> Int32? {
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 && errno == ENOENT && create {
            try AtomicFile.makeFolders(root)
            fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard fd >= 0 else {
            if errno == ENOENT && !create { return nil }
            throw OutputError(path: shownAs, errno: errno, action: "open the folder")
        }
        var walked = ""
        for component in relative.split(separator: "/") where component != "." {
            let name = String(component)
            walked += (walked.isEmpty ? "" : "/") + name
            guard name != ".." else {
                close(fd)
                throw OutputError(path: shown(walked), message: "'..' leads out of \(shownAs)")
            }
            var next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0 && errno == ENOENT && create {
                if mkdirat(fd, name, 0o755) != 0 && errno != EEXIST {
                    let code = errno
                    close(fd)
                    throw OutputError(path: walked, errno: code, action: "create the folder")
                }
                next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            var code = errno
            if next < 0 && (code == ENOTDIR || code == ELOOP) { code = Self.kind(of: name, in: fd) }
            close(fd)
            guard next >= 0 else {
                if code == ENOENT && !create { return nil }
                throw refusal(shown(walked), code, what: "a folder")
            }
            fd = next
        }
        return fd
    }

    /// Renames `temporary` (an absolute path on the same file system) to `relative`, making its
    /// folders. A name already there is replaced only when it is a regular file.
    public func place(_ temporary: String, at relative: String) throws(OutputError) {
        let (folder, name) = split(relative)
        guard let fd = try openFolder(folder, create: true) else { return }
        defer { close(fd) }
        let kind = Self.kind(of: name, in: fd)
        if kind != 0 && kind != ENOENT { throw refusal(shown(relative), kind, what: "a file") }
        guard renameat(AT_FDCWD, temporary, fd, name) == 0 else {
            throw OutputError(path: shown(relative), errno: errno, action: "rename into place")
        }
    }

    /// Opens the regular file `relative` with `flags` (`O_NOFOLLOW` added), `mode` when created;
    /// -1 with `errno` set when it fails (`ELOOP` for a link, `ENOENT` for a missing folder).
    public func openFile(_ relative: String, flags: Int32, mode: mode_t = 0o644, createFolders: Bool = false) -> Int32 {
        let (folder, name) = split(relative)
        let fd: Int32?
        do {
            fd = try openFolder(folder, create: createFolders)
        } catch {
            errno = ELOOP
            return -1
        }
        guard let fd else {
            errno = ENOENT
            return -1
        }
        defer { close(fd) }
        return openat(fd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)
    }

    /// Makes `path` (absolute, on the same file system, not there yet) a second name of the
    /// regular file `relative`: a hard link, no bytes copied. False when `relative` is missing,
    /// not a regular file or lies beyond a link, or the link cannot be made (another file
    /// system); the caller then writes the bytes instead.
    public func link(_ relative: String, to path: String) -> Bool {
        let (folder, name) = split(relative)
        guard let fd = try? openFolder(folder, create: false) else { return false }
        defer { close(fd) }
        // linkat without AT_SYMLINK_FOLLOW would link a symbolic link itself: checked first.
        return Self.kind(of: name, in: fd) == 0 && linkat(fd, name, AT_FDCWD, path, 0) == 0
    }

    /// The bytes of the regular file `relative`; nil when it is missing, not a regular file, lies
    /// beyond a link, or cannot be read.
    public func read(_ relative: String) -> [UInt8]? {
        let fd = openFile(relative, flags: O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            filled += n
        }
        return bytes
    }

    /// The size of the regular file `relative`; nil when it is missing, not a regular file or
    /// lies beyond a link.
    public func fileSize(_ relative: String) -> Int? {
        let (folder, name) = split(relative)
        guard let fd = try? openFolder(folder, create: false) else { return nil }
        defer { close(fd) }
        var existing = stat()
        guard fstatat(fd, name, &existing, AT_SYMLINK_NOFOLLOW) == 0, (existing.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(existing.st_size)
    }

    /// Deletes the regular file `relative`; false when it is not there, not a regular file, or
    /// lies beyond a link.
    @discardableResult
    public func removeFile(_ relative: String) -> Bool {
        let (folder, name) = split(relative)
        guard let fd = try? openFolder(folder, create: false) else { return false }
        defer { close(fd) }
        var existing = stat()
        guard fstatat(fd, name, &existing, AT_SYMLINK_NOFOLLOW) == 0, (existing.st_mode & S_IFMT) == S_IFREG else { return false }
        return unlinkat(fd, name, 0) == 0
    }

    /// Deletes the folder `relative` when it is empty (and a real folder); false otherwise.
    @discardableResult
    public func removeEmptyFolder(_ relative: String) -> Bool {
        let (folder, name) = split(relative)
        guard !name.isEmpty, let fd = try? openFolder(folder, create: false) else { return false }
        defer { close(fd) }
        return unlinkat(fd, name, AT_REMOVEDIR) == 0
    }

    /// The names in the folder `relative` (not `.` and `..`), unsorted; [] when it is missing
    /// or lies beyond a link.
    public func entries(of relative: String) -> [String] {
        guard let fd = try? openFolder(relative, create: false), let stream = fdopendir(fd) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `relative` can be used by path (a database opened by a library): every folder on
    /// the way is a real folder and the name, when it exists, is a regular file.
    ///
    /// - Throws: `OutputError` naming the link or the other kind of file.
    public func checkFile(_ relative: String) throws(OutputError) {
        let (folder, name) = split(relative)
        guard let fd = try openFolder(folder, create: false) else { return }
        defer { close(fd) }
        let kind = Self.kind(of: name, in: fd)
        if kind != 0 && kind != ENOENT { throw refusal(shown(relative), kind, what: "a file") }
    }

    /// `root/relative`.
    public func path(_ relative: String) -> String { relative.isEmpty ? root : root + "/" + relative }

    private func split(_ relative: String) -> (folder: String, name: String) {
        guard let slash = relative.lastIndex(of: "/") else { return ("", relative) }
        return (String(relative[..<slash]), String(relative[relative.index(after: slash)...]))
    }

    /// `relative` as messages show it: `page-0001.png in the output folder`.
    private func shown(_ relative: String) -> String { relative.isEmpty ? shownAs : "\(relative) in \(shownAs)" }

    /// What `name` in the folder `fd` is, as the errno opening it as something else gives:
    /// 0 for a regular file, `ELOOP` for a link, `ENOTDIR` for a folder or other kind, `ENOENT`
    /// when it is missing.
    private static func kind(of name: String, in fd: Int32) -> Int32 {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return errno }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return 0
        case S_IFLNK: return ELOOP
        default: return ENOTDIR
        }
    }

    /// Why `shown` (expected to be `what`) cannot be used, for the error `code` opening it gave.
    private func refusal(_ shown: String, _ code: Int32, what: String) -> OutputError {
        switch code {
        case ELOOP:
            return OutputError(path: shown, message: "is a symbolic link; Galley writes only into real files and folders inside \(shownAs), so it is left alone: remove the link to let Galley write here")
        case ENOTDIR, EISDIR:
            return OutputError(path: shown, message: "is not \(what); Galley does not replace it: move it away to let Galley write here")
        default:
            return OutputError(path: shown, errno: code, action: "open \(what)")
        }
    }
}
