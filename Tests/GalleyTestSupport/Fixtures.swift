import Foundation
import Synchronization

/// Paths to the repository's fixtures and helpers for scratch folders.
public enum Fixtures {
    /// The repository root (found from this file's location).
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
        }
        fatalError("cannot find the repository root from \(#filePath)")
    }()

    /// `fixtures/pdf`, made by `scripts/make-fixtures.py`.
    public static let pdfFolder = repositoryRoot.appendingPathComponent("fixtures/pdf")

    /// `fixtures/broken`: files that must fail, each for its own reason.
    public static let brokenFolder = repositoryRoot.appendingPathComponent("fixtures/broken")

    /// `fixtures/articles`, made by `scripts/make-articles.py`: HTML and text articles (Latin,
    /// Chinese, Japanese, Shift_JIS, malformed markup) and the images they use.
    public static let articlesFolder = repositoryRoot.appendingPathComponent("fixtures/articles")
    /// `fixtures/broken-articles`: articles with no text to lay out.
    public static let brokenArticlesFolder = repositoryRoot.appendingPathComponent("fixtures/broken-articles")

    /// `fixtures/fonts/no-glyphs`, made by `scripts/make-type1-fixture.py`: one Type 1 font,
    /// family "Galley No Glyphs", that fontconfig lists as covering U+F8FF and U+10FFFD but
    /// HarfBuzz cannot open (no usable glyphs), whatever fonts the machine has.
    public static let noGlyphsFontFolder = repositoryRoot.appendingPathComponent("fixtures/fonts/no-glyphs")
    public static let noGlyphsFontFamily = "Galley No Glyphs"

    /// Every article fixture (files directly in `fixtures/articles`), sorted. A missing or
    /// empty folder stops the tests: parameterised tests would otherwise run no case at all.
    public static var articles: [URL] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: articlesFolder.path)) ?? [])
            .filter { ["html", "htm", "xhtml", "txt"].contains(($0 as NSString).pathExtension) }.sorted()
        precondition(!names.isEmpty, "no article fixtures in \(articlesFolder.path)")
        return names.map { articlesFolder.appendingPathComponent($0) }
    }

    /// A fixture PDF by file name.
    public static func pdf(_ name: String) -> URL { pdfFolder.appendingPathComponent(name) }

    /// The fixture PDFs that must render, and the broken ones that must fail.
    public static let goodPDFs = ["article.pdf", "vector-art.pdf", "photo.pdf", "rotated.pdf", "cropped.pdf", "landscape.pdf", "mixed.pdf",
                                           "shared-image.pdf"]
    public static let brokenPDFs = ["truncated.pdf", "garbage.pdf", "empty.pdf", "no-pages.pdf"]
    /// Opens with this password.
    public static let encryptedPDF = "encrypted.pdf"
    public static let encryptedPassword = "galley-secret"

    /// `count` PDFs in `folder` (made when missing), named `name(i)`: `photo.pdf` and
    /// `vector-art.pdf` in turn, each made distinct (`appendComment`) so that no document can
    /// borrow another's outputs and every one is drawn.
    public static func distinctPDFs(_ count: Int, in folder: URL, name: (Int) -> String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for i in 0..<count {
            let url = folder.appendingPathComponent(name(i))
            try FileManager.default.copyItem(at: pdf(i % 2 == 0 ? "photo.pdf" : "vector-art.pdf"), to: url)
            try appendComment("copy \(i)", to: url)
        }
    }

    /// Appends a comment line to a PDF: new content, the same pages.
    public static func appendComment(_ text: String, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\n% \(text)\n".utf8))
        try handle.close()
    }
}

/// The inode of every PNG under an output folder (Galley's own state left out), by relative
/// path: a file whose inode is unchanged was not written again.
public func pngIdentities(in folder: URL) -> [String: UInt64] {
    var result: [String: UInt64] = [:]
    for case let path as String in FileManager.default.enumerator(atPath: folder.path) ?? .init() where path.hasSuffix(".png") && !path.hasPrefix(".galley/") {
        var info = stat()
        if stat(folder.appendingPathComponent(path).path, &info) == 0 { result[path] = UInt64(info.st_ino) }
    }
    return result
}

/// A scratch folder removed when the value is released.
public final class ScratchFolder: Sendable {
    public let url: URL

    public init(_ label: String = "galley-test") throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A path inside the folder.
    public func path(_ relative: String) -> URL { url.appendingPathComponent(relative) }

    /// Copies fixture files into a subfolder and returns it.
    public func copy(_ files: [URL], into relative: String) throws -> URL {
        let folder = path(relative)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent(file.lastPathComponent))
        }
        return folder
    }
}

/// Something several tests only read, made once per test process: the first test to ask makes
/// it, the others wait for it and share it (a run of the whole article corpus takes seconds,
/// and half a minute under the thread sanitizer). An error is handed to every test that asks.
/// Scratch folders it holds are removed when the process exits (`ScratchFolder.keepUntilExit`).
public final class MadeOnce<Value: Sendable>: Sendable {
    private let value: Result<Value, any Error>

    public init(_ make: () throws -> Value) {
        value = Result(catching: make)
    }

    public func get() throws -> Value { try value.get() }
}

extension ScratchFolder {
    /// Removes this folder when the test process exits rather than when the value is released:
    /// for a folder a `MadeOnce` shares, which static storage never releases.
    public func keepUntilExit() -> ScratchFolder {
        ScratchFolder.atExit.withLock { state in
            if !state.registered {
                state.registered = true
                atexit {
                    for url in ScratchFolder.atExit.withLock({ $0.folders }) { try? FileManager.default.removeItem(at: url) }
                }
            }
            state.folders.append(url)
        }
        return self
    }

    private static let atExit = Mutex<(registered: Bool, folders: [URL])>((false, []))
}
