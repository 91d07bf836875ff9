import Foundation
import GalleyBase
import GalleyManifest

/// Where each document's source file is: what the contact sheet links to.
///
/// The manifest keeps a source's path relative to its input as configured, which says where
/// the file is only to the configuration that names the input. A run therefore also keeps the
/// sources' absolute paths in its state folder (`<output>/.galley/sources.json`), so that
/// `galley merge`, which has only the shards' output folders, links the merged sheet to the
/// same files a single run's sheet does.
public struct SourceFiles: Sendable, Equatable {
    /// Document name → its source's absolute path, symbolic links resolved.
    public var paths: [String: String]

    /// The file in an output folder's state folder that holds them.
    static let stateFile = "sources.json"

    public init(paths: [String: String] = [:]) {
        self.paths = paths
    }

    /// The sources of `documents`; a name given twice keeps its first file.
    init(_ documents: [SourceDocument]) {
        paths = Dictionary(documents.map { ($0.name, $0.url.resolvingSymlinksInPath().standardizedFileURL.path) },
                           uniquingKeysWith: { first, _ in first })
    }

    /// Writes them into `store`'s state folder, replacing what an earlier run wrote.
    func write(to store: OutputStore) throws {
        // Galley's JSON; its snake-case strategy leaves a dictionary's keys as they are (a test
        // reads back names with capitals).
        let bytes = Array(try Manifest.encoder(pretty: true).encode(paths)) + [0x0A]
        try store.write(bytes, to: ".galley/\(Self.stateFile)")
    }

    /// What the run that wrote `folder` kept; none when it kept nothing readable (an output
    /// folder from before Galley kept them: its sheet has no source links).
    static func read(outputFolder folder: URL) -> SourceFiles {
        let url = OutputStore(root: folder).stateFolder.appendingPathComponent(stateFile)
        guard let data = FileManager.default.contents(atPath: url.path),
              let paths = try? JSONDecoder().decode([String: String].self, from: data) else { return SourceFiles() }
        return SourceFiles(paths: paths)
    }

    /// Each source's path relative to `folder` (an output folder), for links from its sheet.
    func links(from folder: URL) -> [String: String] {
        let from = folder.resolvingSymlinksInPath().standardizedFileURL.pathComponents
        return paths.mapValues { Self.relativePath(from: from, to: URL(fileURLWithPath: $0).standardizedFileURL.pathComponents) }
    }

    /// The path from the folder whose components are `from` to the file whose components are
    /// `to` (`../papers/a.pdf`).
    static func relativePath(from: [String], to: [String]) -> String {
        var common = 0
        while common < from.count, common < to.count - 1, from[common] == to[common] { common += 1 }
        return (Array(repeating: "..", count: from.count - common) + to[common...]).joined(separator: "/")
    }
}
