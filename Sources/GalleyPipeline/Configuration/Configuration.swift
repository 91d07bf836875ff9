import Foundation
import GalleyPDF
import GalleyRaster
import GalleyText

/// Everything a run needs to know, with a documented default for every setting.
///
/// Loaded from `pipeline.yml` by `Configuration.load(yaml:baseDirectory:)` (see
/// `Configuration+YAML.swift` for the keys); command-line options then override fields.
public struct Configuration: Sendable, Equatable {
    /// Folders, files or glob patterns to read documents from. Default: the current folder.
    public var inputs: [String] = ["."]
    /// Process only this shard of the documents (`--shard K/N`; not a file key: each machine
    /// of a sharded run gets its own). nil: every document.
    public var shard: Shard?
    /// Process exactly this shard's work list of a plan (`galley run --plan PLAN --shard K/N`)
    /// instead of scanning the inputs; `shard` is then the plan's shard.
    public var plannedShard: PlannedShard?
    /// Where page images, thumbnails and the manifest go. Default: `out`.
    public var output: String = "out"
    /// Page image resolution in pixels per inch (page pixels = points × `pageScale`, dpi / 72). Default: 150.
    public var dpi: Double = 150
    /// Whether to write full-size page images; false writes thumbnails only. Default: true.
    public var pageImages = true
    /// Thumbnail boxes in pixels: each thumbnail fits inside a box × box square. Default: 128, 256.
    public var thumbnailBoxes: [Int] = [128, 256]
    /// Mebibytes the thumbnail cache under `<output>/.galley/thumbnail-cache` may keep on disk;
    /// least recently used thumbnails go first. 0 turns the cache off. Default: 256.
    public var thumbnailCacheMiB: Int = 256
    /// Seconds `galley watch` waits for changes to settle before a run. Default: 2.
    public var watchDebounce: Double = 2
    /// A folder whose files are moved into the first input folder and processed (`galley run`,
    /// `galley thumbs` into an output folder, `galley watch`). Default: none.
    public var inbox: String?
    /// Concurrent operations per stage.
    public var workers = Workers()
    /// Pages recorded but not yet fully written; bounds memory whatever the corpus size.
    /// Default: 4 per core.
    public var maxPagesInFlight: Int = 4 * ProcessInfo.processInfo.activeProcessorCount
    /// Longest a page may take to record or draw, in seconds, before it fails as `timed-out`
    /// (a pathological page must not hang a CI job). Default: 300.
    public var pageTimeout: Double = 300
    /// PNG compression preset. Default: `balanced`.
    public var png: PNGCompression = .default
    /// Format of page images, and of thumbnails unless `thumbnailFormat` says otherwise.
    /// Default: `png`.
    public var format: ImageFormat = .png
    /// Format of thumbnails; nil: `format`. (freedesktop.org thumbnails are PNG whatever it is.)
    public var thumbnailFormat: ImageFormat?
    /// Quality of lossy formats, 0...100; nil: the format's default (WebP and JPEG 90, AVIF 75).
    public var quality: Int?
    /// WebP: lossless instead of lossy. Default: false.
    public var lossless = false
    /// JPEG: progressive scans (images held whole). Default: false.
    public var progressive = false
    /// JPEG and AVIF: chroma subsampling; nil: the format's default (JPEG 4:2:0, AVIF 4:4:4).
    public var chroma: ChromaSubsampling?
    /// AVIF: encoder speed, 0...10; nil: 6.
    public var speed: Int?
    /// Whole-document files written for each layout of an article (`text`). Default: none.
    public var documents: [DocumentFormatName] = []
    /// `pdf: true`: every layout of an article also gets its pages as vector PDF,
    /// `<document>/<layout>.pdf` (as `documents: [pdf]` says). Default: false.
    public var pdf = false
    /// A layout's own `pdf:`, by layout name, over `pdf` and `documents`.
    public var layoutPDF: [String: Bool] = [:]
    /// Enter symbolic links to folders, and read documents reached through links that lead
    /// outside every input folder. Default: false (links to folders are counted, not entered;
    /// documents linked from outside fail as `outside-input`, so a job previewing a pull request cannot
    /// publish the runner's files).
    public var followSymlinks = false
    /// Passwords for encrypted documents, by file name, relative path or glob pattern.
    /// Which pages of each document are drawn (`pages:`); nil for all.
    public var pageSelection: PageSelection?
    /// At most this many pages of each document (of each layout, for articles), after the
    /// selection (`max_pages:`); nil for no limit.
    public var maxPages: Int?
    /// `max_pages`' range.
    public static let maxPagesRange = 1...10_000_000
    public var passwords: [PasswordRule] = []
    /// Page layouts articles are typeset in, each to its own folder. Default: one layout named
    /// `a4` (A4 portrait, one column, DejaVu Serif 11 pt).
    public var layouts: [ArticleLayout] = [ArticleLayout(name: "a4")]
    /// Extra font folders searched before the system's fonts. Default: none.
    public var fontFolders: [String] = []
    /// Folder that relative paths in the configuration are resolved against.
    public var baseDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    /// The file the settings were read from, which errors about a setting name; nil when the
    /// configuration was made in code.
    public var file: String?
    /// Folder that relative `inputs` are resolved against, when not `baseDirectory` (inputs
    /// given on the command line are relative to the current folder). Inputs keep the spelling
    /// they were given, which is what the manifest shows.
    public var inputBaseDirectory: URL?

    /// Concurrent operations per stage; each defaults to the number of cores.
    public struct Workers: Sendable, Equatable {
        public var open: Int = ProcessInfo.processInfo.activeProcessorCount
        public var render: Int = ProcessInfo.processInfo.activeProcessorCount
        public var thumbnails: Int = ProcessInfo.processInfo.activeProcessorCount
        public var encode: Int = ProcessInfo.processInfo.activeProcessorCount
        public init() {}

        /// The same width for every stage (`--jobs N`).
        public init(all count: Int) {
            open = count
            render = count
            thumbnails = count
            encode = count
        }
    }

    /// A password for the documents whose path matches `pattern`.
    public struct PasswordRule: Sendable, Equatable {
        public var pattern: String
        public var password: String
        /// The environment variable the password was to come from (`env:NAME`) when it is not
        /// set: `password` is then unusable, and only the documents that need it fail
        /// (`password-required`, naming the variable), as in a pull request from a fork, which
        /// gets no secrets.
        public var unsetVariable: String?
        public init(pattern: String, password: String, unsetVariable: String? = nil) {
            self.pattern = pattern
            self.password = password
            self.unsetVariable = unsetVariable
        }
    }

    public init() {}

    /// Limits shared by the YAML loader and the command line.
    public static let dpiRange: ClosedRange<Double> = 1...2400
    public static let thumbnailBoxRange: ClosedRange<Int> = 8...4096
    public static let workerRange: ClosedRange<Int> = 1...256
    public static let pagesInFlightRange: ClosedRange<Int> = 1...4096
    public static let pageTimeoutRange: ClosedRange<Double> = 0.001...86_400
    public static let thumbnailCacheRange: ClosedRange<Int> = 0...1_048_576
    public static let watchDebounceRange: ClosedRange<Double> = 0...3600

    /// The fonts to typeset with: the system's, plus `fontFolders`.
    ///
    /// - Throws: `ConfigurationError` when fontconfig cannot load or a folder does not exist.
    public func fontLibrary() throws(ConfigurationError) -> FontLibrary {
        do {
            return try FontLibrary(fontFolders: fontFolders.map { resolve($0) })
        } catch {
            throw settingError(key: "fonts", "\(error.message); fix the fonts: list in pipeline.yml")
        }
    }

    /// Checks that every font folder exists, without starting fontconfig (which a rerun that
    /// opens no article never needs).
    public func checkFontFolders() throws(ConfigurationError) {
        for folder in fontFolders.map({ resolve($0) }) {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
                throw settingError(key: "fonts", "font folder \(folder.path) does not exist; fix the fonts: list in pipeline.yml")
            }
        }
    }

    /// An error about the setting `key`, naming the file it was read from (`pipeline.yml`, the
    /// usual name, for a configuration made in code).
    func settingError(key: String, _ message: String) -> ConfigurationError {
        ConfigurationError(file: file ?? "pipeline.yml", key: key, message: message)
    }

    /// The output folder as an absolute URL.
    public var outputURL: URL { resolve(output) }

    /// A configured path made absolute against `baseDirectory`.
    public func resolve(_ path: String) -> URL {
        resolve(path, against: baseDirectory)
    }

    /// An input made absolute.
    public func resolveInput(_ path: String) -> URL {
        resolve(path, against: inputBaseDirectory ?? baseDirectory)
    }

    private func resolve(_ path: String, against base: URL) -> URL {
        let expanded = (path as NSString).expandingTildeInPath
        if expanded.hasPrefix("/") { return URL(fileURLWithPath: expanded).standardizedFileURL }
        return base.appendingPathComponent(expanded).standardizedFileURL
    }

    /// The password for a document, by the first rule whose pattern matches its relative path
    /// or its file name.
    public func password(forRelativePath path: String) -> String? {
        guard let rule = passwordRule(forRelativePath: path), rule.unsetVariable == nil else { return nil }
        return rule.password
    }

    /// The first password rule whose pattern matches a document's relative path or file name.
    public func passwordRule(forRelativePath path: String) -> PasswordRule? {
        let name = (path as NSString).lastPathComponent
        return passwords.first { rule in
            fnmatch(rule.pattern, path, 0) == 0 || fnmatch(rule.pattern, name, 0) == 0
        }
    }

    /// Opens a PDF with its configured password; when it needs one whose environment
    /// variable is not set, the failure says so.
    /// `bytes`: the file's bytes, when the caller read them (MuPDF then reads those, not the file).
    func openPDF(_ document: SourceDocument, engine: MuPDFEngine, bytes: FileBytes? = nil) throws(PDFError) -> PDFDocument {
        let rule = passwordRule(forRelativePath: document.relativePath)
        let password = password(forRelativePath: document.relativePath)
        do {
            if let bytes { return try PDFDocument(bytes: bytes, path: document.url.path, password: password, engine: engine) }
            return try PDFDocument(path: document.url.path, password: password, engine: engine)
        } catch where error.code == .passwordRequired {
            guard let variable = rule?.unsetVariable else { throw error }
            throw PDFError(.passwordRequired,
                           "the document is encrypted and its password is to come from the environment variable \(variable), which is not set (secrets are not given to builds of pull requests from forks)",
                           function: error.function)
        }
    }
}
