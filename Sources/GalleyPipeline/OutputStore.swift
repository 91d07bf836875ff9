import Foundation
import GalleyBase

/// The output folder: outputs written atomically (bytes go to a temporary file under
/// `<output>/.galley/tmp` and are renamed into place, so an interrupted run never leaves a
/// half-written file), and outputs a run no longer makes swept away.
public struct OutputStore: Sendable {
    public let root: URL
    public var stateFolder: URL { root.appendingPathComponent(".galley", isDirectory: true) }
    public var temporaryFolder: URL { stateFolder.appendingPathComponent("tmp", isDirectory: true) }

    public init(root: URL) {
        self.root = root
    }

    /// Creates the folders and removes temporary files a killed run left behind. Only while
    /// holding the folder's `OutputLock`: another process's temporary files would go too.
    public func prepare() throws(OutputError) {
        try? FileManager.default.removeItem(at: temporaryFolder)
        try AtomicFile.makeFolders(temporaryFolder.path)
    }

    /// Removes the temporary folder (at the end of a run, finished or interrupted).
    public func cleanUp() {
        try? FileManager.default.removeItem(at: temporaryFolder)
    }

    /// Writes `bytes` to `relativePath` under the root, atomically.
    public func write(_ bytes: [UInt8], to relativePath: String) throws(OutputError) {
        try AtomicFile.write(bytes, to: root.appendingPathComponent(relativePath).path,
                             through: temporaryFolder.appendingPathComponent("\(UUID().uuidString).tmp").path)
    }

    /// Deletes page images and thumbnails of these documents that this run did not write
    /// (pages a document no longer has, thumbnail boxes no longer configured). A document that
    /// failed keeps what an earlier run made of it: the failure may be passing (a file being
    /// copied), and its old images are all a user has of it.
    ///
    /// Only files named as outputs are touched (`page-NNNN.<fileExtension>` in a document's
    /// page and thumbnail folders), never another document's folder.
    func removeStaleOutputs(of documents: [Manifest.Document], fileExtension: String) {
        let fileManager = FileManager.default
        // Every folder that holds a document's own folder.
        var ownFolders = Set<String>()
        for document in documents {
            var folder = document.name
            while ownFolders.insert(folder).inserted, let slash = folder.lastIndex(of: "/") { folder = String(folder[..<slash]) }
        }
        for document in documents where document.status == .ok {
            var keep = Set<String>()
            for page in document.pages { keep.formUnion(page.outputPaths) }
            var pageFolders = [document.name]
            if document.kind == .markup {
                // Every layout folder, configured or not, so a layout removed from pipeline.yml
                // leaves nothing behind; but never a folder of another document (`a.html` and
                // `a/b.pdf` share `a/`).
                let entries = (try? fileManager.contentsOfDirectory(atPath: root.appendingPathComponent(document.name).path)) ?? []
                pageFolders = entries.filter { $0 != "thumbs" && !$0.hasSuffix(".\(fileExtension)") }.sorted().map { "\(document.name)/\($0)" }
                    .filter { !ownFolders.contains($0) }
            }
            var folders: [String] = []
            for pageFolder in pageFolders {
                folders.append(pageFolder)
                let thumbs = "\(pageFolder)/thumbs"
                let boxes = (try? fileManager.contentsOfDirectory(atPath: root.appendingPathComponent(thumbs).path)) ?? []
                folders += boxes.filter { Int($0) != nil }.map { "\(thumbs)/\($0)" }
            }
            for folder in folders {
                let entries = (try? fileManager.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
                for entry in entries where entry.hasPrefix("page-") && entry.hasSuffix(".\(fileExtension)") {
                    let path = "\(folder)/\(entry)"
                    if !keep.contains(path) { try? fileManager.removeItem(at: root.appendingPathComponent(path)) }
                }
            }
            // A thumbnail box no longer configured, or thumbnails turned off, leave no empty
            // folder behind: box folders first, then `thumbs`.
            for folder in folders.filter({ $0.contains("/thumbs/") }) + pageFolders.map({ "\($0)/thumbs" }) {
                let url = root.appendingPathComponent(folder)
                if (try? fileManager.contentsOfDirectory(atPath: url.path))?.isEmpty == true { try? fileManager.removeItem(at: url) }
            }
        }
    }
}
