import Foundation
import GalleyBase
import GalleyCatalog
import GalleyPDF
import GalleyRaster
import GalleyText
import Logging

/// Thumbnails of the first page of every document in the layout of freedesktop.org's
/// Thumbnail Managing Standard, so file managers show them without making their own.
///
/// * `<folder>/normal` (128 px), `large` (256), `x-large` (512), `xx-large` (1024): the longer
///   side of a thumbnail is the size's pixels, the aspect ratio kept.
/// * The file name is the MD5 of the file's canonical URI (`file://` and the absolute path,
///   percent-encoded as GLib does: unreserved characters, `/` and `!$&'()*+,;=:@` stay) + `.png`.
/// * 8-bit RGBA, non-interlaced PNG with tEXt `Thumb::URI`, `Thumb::MTime` (seconds),
///   `Thumb::Size` (bytes), `Thumb::Mimetype` and `Software`.
/// * Files 0600 in folders 0700, written under a temporary name in the same folder and renamed.
/// * A document that cannot be drawn gets an empty (1×1 transparent) PNG carrying its URI and
///   mtime under `fail/galley-<version>/`, so it is not tried again until it changes.
/// * A thumbnail is fresh when its `Thumb::MTime` equals the file's modification time; fresh
///   ones are left alone.
public struct FreedesktopThumbnails: Sendable {
    /// The standard's sizes.
    public enum Size: String, CaseIterable, Sendable {
        case normal, large, xLarge = "x-large", xxLarge = "xx-large"

        /// The longest side in pixels.
        public var pixels: Int {
            switch self {
            case .normal: 128
            case .large: 256
            case .xLarge: 512
            case .xxLarge: 1024
            }
        }
    }

    /// What a pass did.
    public struct Summary: Sendable, Equatable {
        public var written = 0
        public var fresh = 0
        public var failed = 0
        public var pruned = 0
    }

    /// The thumbnail root (`$XDG_CACHE_HOME/thumbnails` by default).
    public let folder: URL
    public let sizes: [Size]
    public let configuration: Configuration
    private let logger: Logger

    public init(folder: URL, sizes: [Size] = Size.allCases, configuration: Configuration, logger: Logger) {
        self.folder = folder
        self.sizes = sizes
        self.configuration = configuration
        self.logger = logger
    }

    /// `$XDG_CACHE_HOME/thumbnails`, or `~/.cache/thumbnails` when the variable is unset or
    /// not an absolute path (as the XDG Base Directory spec says).
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("thumbnails")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".cache/thumbnails")
    }

    /// The canonical URI of a file: `file://` + its absolute path, percent-encoded (UTF-8,
    /// upper-case hex) except for what GLib's `g_filename_to_uri` leaves as is.
    public static func uri(path: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,=:@/".utf8)
        var out = "file://"
        for byte in path.utf8 {
            if allowed.contains(byte) { out.append(Character(Unicode.Scalar(byte))) } else { out += String(format: "%%%02X", byte) }
        }
        return out
    }

    /// The thumbnail file of a URI at a size.
    public func file(uri: String, size: Size) -> URL {
        folder.appendingPathComponent(size.rawValue).appendingPathComponent(ContentHash.md5(uri) + ".png")
    }

    /// The failure marker of a URI.
    public func failureFile(uri: String) -> URL {
        folder.appendingPathComponent("fail/galley-\(Pipeline.version)").appendingPathComponent(ContentHash.md5(uri) + ".png")
    }

    /// Makes the thumbnails that are missing or stale for every document the inputs hold.
    ///
    /// - Throws: `ConfigurationError` when an input is missing, `UsageError` when the folder cannot be made.
    public func run(cancellation: Cancellation = Cancellation(), onDocument: (String, String) -> Void = { _, _ in }) throws -> Summary {
        let (documents, _) = try InputScanner(configuration: configuration).scan()
        let folders = [folder] + sizes.map { folder.appendingPathComponent($0.rawValue) }
            + [folder.appendingPathComponent("fail"), failureFile(uri: "").deletingLastPathComponent()]
        for folder in folders {
            do {
                try Self.makePrivateFolder(folder)
            } catch {
                throw UsageError(subject: "--freedesktop", message: "\(folder.path): cannot create the folder: \(error.message)")
            }
        }
        let opener = try SingleFile.opener(configuration)
        let limiter = SingleFile.limiter(configuration, cancellation)
        var summary = Summary()
        for document in documents {
            guard !cancellation.isCancelled else { break }
            if let refusal = document.refusal {
                summary.failed += 1
                onDocument(document.relativePath, "FAILED \(refusal)")
                continue
            }
            guard let stamp = FileStamp(path: document.url.path) else { continue }
            let uri = Self.uri(path: document.url.path)
            let mtime = String(stamp.mtime / 1_000_000_000)
            let stale = sizes.filter { !isFresh(file(uri: uri, size: $0), uri: uri, mtime: mtime) }
            if stale.isEmpty || isFresh(failureFile(uri: uri), uri: uri, mtime: mtime) {
                summary.fresh += 1
                continue
            }
            let texts = [("Thumb::URI", uri), ("Thumb::MTime", mtime), ("Thumb::Size", String(stamp.size)),
                         ("Thumb::Mimetype", Self.mimeType(document)), ("Software", "galley \(Pipeline.version)")]
            do {
                let page = try firstPage(document, opener: opener, limiter: limiter)
                let renderer = PageRenderer(encoder: Encoder(texts: texts), dpi: nil)
                for size in stale {
                    try write(renderer.render(page, number: 1, scale: page.thumbnailScale(box: size.pixels), limiter: limiter),
                              to: file(uri: uri, size: size))
                }
                summary.written += 1
                onDocument(document.relativePath, "\(stale.count) size(s) written")
            } catch {
                // An interruption is not the document's fault: nothing is recorded, and the next
                // run starts over with it.
                if cancellation.isCancelled { break }
                // A document that cannot be drawn is recorded as the standard says, so no
                // thumbnailer tries it again until it changes; a file that could not be
                // written is not the document's fault either.
                if !(error is OutputError), let empty = try? Self.emptyPNG(texts: Array(texts.prefix(2))) {
                    try? write(empty, to: failureFile(uri: uri))
                }
                summary.failed += 1
                onDocument(document.relativePath, "FAILED \(Failure(error))")
            }
        }
        return summary
    }

    /// Removes thumbnails Galley made (its `Software` chunk) whose file is gone.
    public func prune() -> Int {
        var removed = 0
        let folders = Size.allCases.map { folder.appendingPathComponent($0.rawValue) } + [failureFile(uri: "").deletingLastPathComponent()]
        for sizeFolder in folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: sizeFolder.path)) ?? [] where name.hasSuffix(".png") {
                let url = sizeFolder.appendingPathComponent(name)
                guard let data = FileManager.default.contents(atPath: url.path), let texts = PNGText.chunks(of: [UInt8](data)),
                      texts["Software"]?.hasPrefix("galley") == true || sizeFolder.lastPathComponent.hasPrefix("galley-"),
                      let uri = texts["Thumb::URI"], uri.hasPrefix("file://"),
                      let path = String(uri.dropFirst(7)).removingPercentEncoding else { continue }
                if access(path, F_OK) != 0 {
                    try? FileManager.default.removeItem(at: url)
                    removed += 1
                }
            }
        }
        return removed
    }

    private func isFresh(_ file: URL, uri: String, mtime: String) -> Bool {
        guard let data = FileManager.default.contents(atPath: file.path), let texts = PNGText.chunks(of: [UInt8](data)) else { return false }
        return texts["Thumb::MTime"] == mtime && texts["Thumb::URI"] == uri
    }

    static func mimeType(_ document: SourceDocument) -> String {
        switch document.sniffed {
        case .pdf?: return "application/pdf"
        case .html?: return "text/html"
        case .text?: return "text/plain"
        case nil: break
        }
        return switch document.url.pathExtension.lowercased() {
        case "pdf": "application/pdf"
        case "txt": "text/plain"
        case "xhtml": "application/xhtml+xml"
        default: "text/html"
        }
    }

    /// The page a thumbnail shows: a PDF's first page, an article's first page in the first layout.
    private func firstPage(_ document: SourceDocument, opener: DocumentOpener, limiter: TimeLimiter) throws -> any PageSource {
        let producer = try opener.pages(of: document, limiter: limiter)
        defer { producer.finish() }
        guard let page = try producer.next()?.page else { throw Failure(code: .noPages, message: "the document has no pages") }
        return page
    }

    /// The standard's thumbnail as an image encoder, so `PageRenderer` makes it as it makes
    /// every other image: 8-bit RGBA PNG, opaque, with the text chunks (`rgbaPNG`). Whole
    /// images only: the standard's largest size is 1,024 pixels, `galley thumbnail --size` at
    /// most 4,096.
    struct Encoder: ImageEncoder {
        /// The text chunks, in order: `Thumb::URI`, `Thumb::MTime`, ...
        let texts: [(String, String)]

        var format: ImageFormat { .png }
        var fingerprint: String { "freedesktop.org thumbnail: RGBA PNG with its text chunks" }
        var maximumSide: Int { PNGImageEncoder.libpngSideLimit }
        var maximumPixels: Int? { wholeImagePixelLimit }

        func encode(_ bitmap: Bitmap, dpi: Double?) throws(RasterError) -> [UInt8] {
            try FreedesktopThumbnails.rgbaPNG(bitmap, texts: texts)
        }

        func bandEncoder(width: Int, height: Int, dpi: Double?) throws(RasterError) -> any BandEncoder {
            throw RasterError(.tooLargeForFormat, "a freedesktop.org thumbnail is encoded whole")
        }

        func pixelSize(of bytes: [UInt8]) -> (width: Int, height: Int)? {
            PNGImageEncoder().pixelSize(of: bytes)
        }
    }

    /// 8-bit RGBA rows (opaque) from an RGB bitmap, as the standard asks.
    private static func rgbaPNG(_ bitmap: Bitmap, texts: [(String, String)]) throws(RasterError) -> [UInt8] {
        var rgba = [UInt8](repeating: 255, count: bitmap.width * bitmap.height * 4)
        let source = bitmap.pixels
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let from = y * bitmap.rowBytes + x * 3, to = (y * bitmap.width + x) * 4
                rgba[to] = source[from]
                rgba[to + 1] = source[from + 1]
                rgba[to + 2] = source[from + 2]
            }
        }
        return try encodeRGBA(rgba, width: bitmap.width, height: bitmap.height, texts: texts)
    }

    /// A 1×1 fully transparent PNG: the standard's "empty" failure marker.
    static func emptyPNG(texts: [(String, String)]) throws(RasterError) -> [UInt8] {
        try encodeRGBA([0, 0, 0, 0], width: 1, height: 1, texts: texts)
    }

    /// RGBA as the standard asks ("8bit, non-interlaced PNG image with full alpha
    /// transparency"), so no colour-type reduction.
    private static func encodeRGBA(_ pixels: [UInt8], width: Int, height: Int, texts: [(String, String)]) throws(RasterError) -> [UInt8] {
        try pixels.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Result<[UInt8], RasterError> in
            guard let base = buffer.baseAddress else { return .failure(RasterError(.invalidSize, "empty thumbnail")) }
            return Result { () throws(RasterError) in
                try WholeImagePNG.encode(rows: base, width: width, height: height, stride: width * 4, channels: 4,
                                         compression: .default, reduce: false, text: texts.map { (key: $0.0, value: $0.1) }).bytes
            }
        }.get()
    }

    /// Writes a 0600 file under a temporary name in the destination's folder, then renames it.
    private func write(_ bytes: [UInt8], to destination: URL) throws(OutputError) {
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".galley-\(getpid())-\(UUID().uuidString).png.tmp")
        try AtomicFile.write(bytes, to: destination.path, through: temporary.path, mode: 0o600)
    }

    /// `mkdir -p` with mode 0700, and 0700 on the folder itself if it already existed.
    static func makePrivateFolder(_ url: URL) throws(OutputError) {
        try AtomicFile.makeFolders(url.path)
        guard chmod(url.path, 0o700) == 0 else {
            throw OutputError(path: url.path, message: "cannot make it private: \(String(cString: strerror(errno)))")
        }
    }
}
