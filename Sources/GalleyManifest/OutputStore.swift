import Foundation
import GalleyBase

/// The output folder: outputs written atomically (bytes go to a temporary file under
/// `<output>/.galley/tmp` and are renamed into place, so an interrupted run never leaves a
/// half-written file). The run sweeps away the outputs it no longer makes
/// (`removeStaleOutputs`, in GalleyPipeline, which knows the configuration).
public struct OutputStore: Sendable {
    public let root: URL
    public var stateFolder: URL { root.appendingPathComponent(".galley", isDirectory: true) }
    public var temporaryFolder: URL { stateFolder.appendingPathComponent("tmp", isDirectory: true) }

    /// The root, through which every output is written and removed: only real files and
    /// folders inside it are touched, never what a link there leads to.
    public let confined: ConfinedFolder

    public init(root: URL) {
        self.root = root
        confined = ConfinedFolder(root: root.path)
    }

    /// Creates the folders and removes temporary files a killed run left behind. Only while
    /// holding the folder's `OutputLock`: another process's temporary files would go too.
    ///
    /// - Throws: `OutputError` when `.galley` is a link or cannot be made.
    public func prepare() throws(OutputError) {
        // `.galley` itself first: removing `.galley/tmp` through a linked `.galley` would empty
        // a folder elsewhere (a linked `tmp` is removed as a link).
        _ = try confined.openFolder(".galley", create: true).map(close)
        try? FileManager.default.removeItem(at: temporaryFolder)
        _ = try confined.openFolder(".galley/tmp", create: true).map(close)
    }

    /// Removes the temporary folder (at the end of a run, finished or interrupted).
    public func cleanUp() {
        try? FileManager.default.removeItem(at: temporaryFolder)
    }

    /// Writes `bytes` to `relativePath` under the root, atomically.
    public func write(_ bytes: [UInt8], to relativePath: String) throws(OutputError) {
        try AtomicFile.write(bytes, to: relativePath, in: confined,
                             through: temporaryFolder.appendingPathComponent("\(UUID().uuidString).tmp").path)
    }

    /// Puts at `relativePath` under the root, atomically, the file `link` makes a second name
    /// of at the temporary path it is given; false (nothing written) when `link` fails.
    public func place(to relativePath: String, linking link: (String) -> Bool) throws(OutputError) -> Bool {
        let temporary = temporaryFolder.appendingPathComponent("\(UUID().uuidString).tmp").path
        guard link(temporary) else { return false }
        do {
            try confined.place(temporary, at: relativePath)
        } catch {
            unlink(temporary)
            throw error
        }
        return true
    }

    /// Writes what `contents` gives its sink to `relativePath` under the root, atomically, a
    /// piece at a time.
    public func write(to relativePath: String, contents: (AtomicFile.Sink) throws -> Void) throws {
        try AtomicFile.write(to: relativePath, in: confined,
                             through: temporaryFolder.appendingPathComponent("\(UUID().uuidString).tmp").path, contents: contents)
    }
}
