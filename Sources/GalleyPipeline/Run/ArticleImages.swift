import Foundation
import GalleyBase
import GalleyPDF
import GalleyRaster
import GalleyText
#if canImport(Glibc)
import Glibc
#endif

/// Finds, checks and decodes the pictures an article's `<img>` elements name, once per
/// document: every layout typesets with the same decoded pixels.
///
/// A source is read only when it is a path (no URL: nothing is fetched) that leads, after
/// `..` and symbolic links are resolved, to a file under the input folder the article came
/// from. Anything else, and a file MuPDF cannot decode, gets one warning per distinct source
/// (in text order) and no picture, so the typesetter draws a placeholder and the document
/// still succeeds.
struct ArticleImageLoader {
    /// Where sources may be read from.
    let files: ArticleFiles
    let engine: MuPDFEngine
    /// The most page pixels a picture is drawn at (a column's width and height at the run's
    /// resolution, in the largest layout): pictures with twice as many or more are held
    /// reduced, so a 6,300 px photo in a 500 px column costs 525 px, not 6,300. Nil: full size.
    let drawnAtMost: MuPDFEngine.PixelSize?

    init(article: URL, root: URL, engine: MuPDFEngine, drawnAtMost: MuPDFEngine.PixelSize? = nil) {
        files = ArticleFiles(article: article, root: root)
        self.engine = engine
        self.drawnAtMost = drawnAtMost
    }

    init(document: SourceDocument, engine: MuPDFEngine, drawnAtMost: MuPDFEngine.PixelSize? = nil) {
        files = ArticleFiles(document: document)
        self.engine = engine
        self.drawnAtMost = drawnAtMost
    }

    /// The most page pixels any picture is drawn at in `layouts` at `scale` (pixels per point,
    /// `Configuration.pageScale`): attachments are scaled down to fit their column
    /// (`Framesetter.maximumBox`), pages drawn at that scale (thumbnails smaller). Columns in
    /// either writing mode count, as the markup may choose.
    static func drawnAtMost(layouts: [ArticleLayout], scale: Double) -> MuPDFEngine.PixelSize {
        func pixels(_ points: Double) -> Int { Int(min(1e9, max(1, (points * scale).rounded(.up)))) }
        let columns = layouts.flatMap { layout in
            [WritingMode.horizontalTB, .verticalRL].map { mode in
                var layout = layout
                layout.writingMode = mode
                return (width: pixels(layout.columnWidth), height: pixels(layout.columnHeight))
            }
        }
        return MuPDFEngine.PixelSize(width: columns.map(\.width).max() ?? 1, height: columns.map(\.height).max() ?? 1)
    }

    /// Decoded pictures by source, and a warning for each source that has none.
    func load(_ attachments: [Attachment]) -> (images: AttachmentImages, warnings: [String]) {
        var images: AttachmentImages = [:]
        var warnings: [String] = []
        var seen = Set<String>()
        // Two spellings of one file (`a.png`, `./a.png`) decode once.
        var decoded: [String: Result<RasterImage, ArticleFiles.Refusal>] = [:]
        // A picture given both a width and a height may be drawn out of its aspect ratio:
        // then each side may be as long as the column's.
        var resolved: [String: Result<String, ArticleFiles.Refusal>] = [:]
        var distorted = Set<String>()
        for attachment in attachments {
            let path = resolved[attachment.source] ?? files.resolve(attachment.source)
            resolved[attachment.source] = path
            if attachment.width != nil, attachment.height != nil, case .success(let path) = path { distorted.insert(path) }
        }
        for source in attachments.map(\.source) where seen.insert(source).inserted {
            let result = (resolved[source] ?? files.resolve(source)).flatMap { path in
                if let done = decoded[path] { return done }
                let result = decode(path, keepsAspect: !distorted.contains(path))
                decoded[path] = result
                return result
            }
            switch result {
            case .success(let image): images[source] = image
            case .failure(let refusal): warnings.append("image \"\(source)\": \(refusal.reason)")
            }
        }
        return (images, warnings)
    }

    private func decode(_ path: String, keepsAspect: Bool) -> Result<RasterImage, ArticleFiles.Refusal> {
        let drawn = drawnAtMost.map { MuPDFEngine.PixelSize(width: $0.width, height: $0.height, keepsAspect: keepsAspect) }
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            return .failure(ArticleFiles.Refusal(reason: "cannot read it: \(error.localizedDescription)"))
        }
        do {
            // An SVG keeps its file too, which a PDF draws as paths rather than these pixels.
            if MuPDFEngine.isSVG(path: path, bytes: bytes) { return .success(try engine.renderSVG(bytes, drawnAtMost: drawn).rememberingSVG(bytes)) }
            // A JPEG decoded whole keeps its file, which a PDF embeds as it is.
            return .success(try engine.decodeImage(bytes, drawnAtMost: drawn).rememberingJPEG(bytes))
        } catch where error.code == .tooLarge {
            return .failure(ArticleFiles.Refusal(reason: "\(error.message); it is left out to bound memory"))
        } catch {
            return .failure(ArticleFiles.Refusal(reason: "MuPDF cannot decode it: \(error.message)"))
        }
    }

}

/// The files an article may read besides itself (pictures, style sheets): a source is read only
/// when it is a path (no URL: nothing is fetched) that leads, after `..` and symbolic links are
/// resolved, to a file under the input folder the article came from.
struct ArticleFiles: Sendable {
    /// The folder relative sources start from (the article's own).
    let folder: URL
    /// The input folder no source may leave.
    let root: URL

    init(article: URL, root: URL) {
        self.folder = article.deletingLastPathComponent()
        self.root = root
    }

    init(document: SourceDocument) {
        // The scan made `relativePath` relative to the input folder: strip as many components.
        var root = document.url
        for _ in document.relativePath.split(separator: "/") { root.deleteLastPathComponent() }
        self.init(article: document.url, root: root)
    }

    /// Why a source has no picture.
    struct Refusal: Error {
        var reason: String
    }

    /// The real path of the file `source` names, or why it may not be read.
    func resolve(_ source: String) -> Result<String, Refusal> {
        let trimmed = source.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .failure(Refusal(reason: "no file named")) }
        if Self.isURL(trimmed) { return .failure(Refusal(reason: "URLs are not fetched")) }
        // `src` is a URL path: a query or fragment (`theme.css?v=2`, `icons.svg#arrow`) is not
        // part of the file's name, and percent escapes stand for bytes of it.
        let filePart = trimmed.prefix { $0 != "?" && $0 != "#" }
        guard !filePart.isEmpty else { return .failure(Refusal(reason: "no file named")) }
        let path = String(filePart).removingPercentEncoding ?? String(filePart)
        let candidate = (path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)).standardizedFileURL
        // Not named by its path: warnings are published (manifest, contact sheet, CI summary)
        // and name files as the manifest does, relative to the inputs, never by where the
        // machine that ran keeps them.
        let outside = Refusal(reason: "outside the input folder the article is in; only files under it are read")
        guard FilePaths.path(candidate.path, isInside: root.standardizedFileURL.path) else { return .failure(outside) }
        guard let real = FilePaths.realPath(candidate.path) else {
            let reason = errno == ENOENT || errno == ENOTDIR ? "no such file" : "cannot read it: \(String(cString: strerror(errno)))"
            return .failure(Refusal(reason: reason))
        }
        // A symbolic link may still lead out of the folder.
        guard let realRoot = FilePaths.realPath(root.path), FilePaths.path(real, isInside: realRoot) else { return .failure(outside) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real, isDirectory: &isFolder), !isFolder.boolValue else {
            return .failure(Refusal(reason: "it is a folder, not an image file"))
        }
        return .success(real)
    }

    /// Whether `source` is a URL with a scheme (`http:`, `data:`, `file:` ...) or
    /// scheme-relative (`//host/...`) rather than a path.
    static func isURL(_ source: String) -> Bool {
        if source.hasPrefix("//") { return true }
        guard let colon = source.firstIndex(of: ":"), let first = source.first, first.isASCII, first.isLetter else { return false }
        return source[..<colon].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    /// What a `<link rel=stylesheet>` or `@import` href gives the markup parser.
    func styleSheet(_ href: String) -> StyleSheetLoad {
        switch resolve(href) {
        case .failure(let refusal): return .refused(refusal.reason)
        case .success(let path):
            guard let data = FileManager.default.contents(atPath: path) else { return .refused("cannot read it") }
            guard data.count <= 4 << 20 else { return .refused("larger than 4 MB; not read") }
            return .css(String(decoding: data, as: UTF8.self))
        }
    }
}
