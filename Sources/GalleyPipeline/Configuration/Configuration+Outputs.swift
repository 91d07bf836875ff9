import GalleyBase
import GalleyRaster
import GalleyText

extension Configuration {
    /// Pixels per point of page images: `dpi / 72`, a page of W points being W × dpi / 72 pixels
    /// wide, for PDFs and articles alike. The one place the page images' scale is computed: the
    /// stages, the single-file commands, and the limits articles' pictures are decoded to.
    public var pageScale: Double { dpi / 72 }

    /// The settings of outputs in `format`: the format and every setting that applies to it.
    public func encoding(_ format: ImageFormat) -> ImageEncoding {
        var encoding = ImageEncoding(format: format)
        encoding.png = png
        if format.isLossy { encoding.quality = quality }
        if format == .webp { encoding.lossless = lossless }
        if format == .jpeg { encoding.progressive = progressive }
        if format == .jpeg || format == .avif { encoding.chroma = chroma }
        if format == .avif { encoding.speed = speed }
        return encoding
    }

    /// The encoder of page images (`format`).
    public var imageEncoder: any ImageEncoder { encoding(format).encoder }

    /// The encoder of thumbnails (`thumbnail_format`, else `format`).
    public var thumbnailEncoder: any ImageEncoder { encoding(thumbnailFormat ?? format).encoder }

    /// The encoder of one kind of output.
    func encoder(for variant: OutputVariant) -> any ImageEncoder {
        variant == .image ? imageEncoder : thumbnailEncoder
    }

    /// How page images are drawn and encoded: in `format`, recording `dpi`.
    var imageRenderer: PageRenderer { PageRenderer(encoder: imageEncoder, dpi: dpi) }

    /// How thumbnails are drawn and encoded: in `thumbnail_format`, recording no resolution
    /// (a thumbnail's is no round figure, and of no use).
    var thumbnailRenderer: PageRenderer { PageRenderer(encoder: thumbnailEncoder, dpi: nil) }

    /// The formats outputs are written in, page images' first.
    var outputFormats: [ImageFormat] {
        thumbnailFormat.map { $0 == format ? [format] : [format, $0] } ?? [format]
    }

    /// A format setting given for no configured format (`lossless` without WebP,
    /// `progressive` without JPEG, ...): its key and what to do; nil when every one applies.
    public func formatSettingProblem() -> (key: String, message: String)? {
        let formats = Set(outputFormats)
        let rules: [(key: String, given: Bool, formats: [ImageFormat])] = [
            ("quality", quality != nil, [.webp, .jpeg, .avif]), ("lossless", lossless, [.webp]),
            ("progressive", progressive, [.jpeg]), ("chroma", chroma != nil, [.jpeg, .avif]), ("speed", speed != nil, [.avif]),
        ]
        for rule in rules where rule.given && formats.isDisjoint(with: rule.formats) {
            let configured = outputFormats.map(\.rawValue).joined(separator: " and ")
            return (rule.key, "applies to \(rule.formats.map(\.rawValue).joined(separator: ", ")) only, and the output format is \(configured); set format: or thumbnail_format:, or remove \(rule.key)")
        }
        return nil
    }

    /// The whole-document files layout `layout` gets: `documents:`, with PDF as the layout's
    /// `pdf:` says, else as the top-level `pdf:` or `documents:` say.
    public func documentFormatNames(for layout: String) -> [DocumentFormatName] {
        let wanted = layoutPDF[layout] ?? (pdf || documents.contains(.pdf))
        var names = documents.filter { $0 != .pdf || wanted }
        if wanted && !names.contains(.pdf) { names.append(.pdf) }
        return names
    }

    /// Whether any layout gets a whole-document file.
    var writesDocumentFiles: Bool { layouts.contains { !documentFormatNames(for: $0.name).isEmpty } }

    /// The fonts, for a document that needs them: when they cannot be had, the document fails
    /// as `font-missing` with the configuration's reason.
    func documentFonts() throws(Failure) -> FontLibrary {
        do {
            return try fontLibrary()
        } catch {
            throw Failure(code: .fontMissing, message: "\(error)")
        }
    }
}

extension ArticleLayout {
    /// Whether `name` can name a layout: letters, digits, `-` and `_` (it names a folder, and
    /// `<layout>.pdf` beside it), at most 64 of them, and not `thumbs`.
    static func isUsableName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.lowercased() != "thumbs"
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }
}
