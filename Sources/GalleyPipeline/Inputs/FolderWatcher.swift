import Foundation
import GalleyBase
import GalleyRaster
import Glibc

/// Watches folders (recursively) with inotify and reports changes once they have settled.
///
/// Settled means: no event for `debounce` seconds, and every changed file has kept its size and
/// modification time over that time, so a file still being copied in is waited for rather than
/// read half-written. Used by one thread at a time (`galley watch`'s loop).
public final class FolderWatcher {
    private let fd: Int32
    private var watches: [Int32: String] = [:]
    private let skipping: String

    /// Starts watching `folders` and every folder below them, except hidden ones and `skipping`
    /// (the output folder).
    ///
    /// - Throws: `UsageError` when inotify cannot start (too many instances, say), so nothing
    ///   can be watched here; `OutputError` naming the folder when inotify cannot watch it.
    public init(folders: [URL], skipping: URL) throws {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw UsageError(subject: "watch", message: "inotify cannot start: \(String(cString: strerror(errno)))") }
        self.skipping = skipping.standardizedFileURL.path
        for folder in folders {
            do {
                try add(folder.standardizedFileURL.path)
            } catch {
                close(fd)
                throw error
            }
        }
    }

    deinit { close(fd) }

    private static let mask = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_ATTRIB)

    private func add(_ path: String) throws(OutputError) {
        guard path != skipping && !path.hasPrefix(skipping + "/") else { return }
        let wd = inotify_add_watch(fd, path, Self.mask | UInt32(IN_ONLYDIR))
        guard wd >= 0 else { throw OutputError(path: path, message: "cannot watch: \(String(cString: strerror(errno)))") }
        watches[wd] = path
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        for entry in entries where !entry.hasPrefix(".") {
            var info = stat()
            let child = path + "/" + entry
            if lstat(child, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { try? add(child) }
        }
    }

    /// Reads pending events: the paths they name (new folders are watched at once).
    private func drain() -> Set<String> {
        var changed = Set<String>()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (wd, mask, length) = buffer.withUnsafeBytes { raw -> (Int32, UInt32, Int) in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.wd, event.mask, Int(event.len))
                }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let nameBytes = buffer[nameStart..<nameStart + length].prefix { $0 != 0 }
                let name = String(decoding: nameBytes, as: UTF8.self)
                if let folder = watches[wd], !name.isEmpty, !name.hasPrefix(".") {
                    let path = folder + "/" + name
                    if path != skipping && !path.hasPrefix(skipping + "/") {
                        changed.insert(path)
                        if mask & UInt32(IN_ISDIR) != 0 && mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 { try? add(path) }
                    }
                }
                offset = nameStart + length
            }
        }
        return changed
    }

    /// Waits for changes and returns the changed paths once they have settled, or nil when
    /// `cancellation` fires first.
    public func waitForChanges(debounce: Double, cancellation: Cancellation) -> [String]? {
        var changed = Set<String>()
        var lastEvent = Date.distantPast
        // Size and modification time of each changed file when its last event came.
        var stamps: [String: FileStamp?] = [:]
        while !cancellation.isCancelled {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, 100) > 0 {
                let fresh = drain()
                if !fresh.isEmpty {
                    changed.formUnion(fresh)
                    for path in fresh { stamps[path] = FileStamp(path: path) }
                    lastEvent = Date()
                }
                continue
            }
            guard !changed.isEmpty, Date().timeIntervalSince(lastEvent) >= debounce else { continue }
            // Quiet for the debounce time; a file that still grew without telling (written
            // through a mapping, or on a network file system) restarts the wait.
            let now = Dictionary(uniqueKeysWithValues: changed.map { ($0, FileStamp(path: $0)) })
            if now == stamps { return changed.sorted() }
            stamps = now
            lastEvent = Date()
        }
        return nil
    }
}
