/// The formats page images and thumbnails are written in (`format:` and `thumbnail_format:`
/// in `pipeline.yml`).
public enum ImageFormat: String, CaseIterable, Sendable, Codable {
    /// Lossless, reduced to grey or a palette when that keeps every pixel; written in bands.
    case png
    /// Lossy (`quality`) or lossless; encoded from the whole image.
    case webp
    /// Lossy (`quality`, `progressive`, `chroma`); written in bands.
    case jpeg
    /// Lossy AV1 (`quality`, `speed`, `chroma`); encoded from the whole image.
    case avif

    /// The extension of its files, without the dot.
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// The format whose files have this extension.
    public init?(fileExtension: String) {
        guard let format = Self.allCases.first(where: { $0.fileExtension == fileExtension }) else { return nil }
        self = format
    }

    /// Whether a page can be handed to its encoder band by band, so a huge page never has to
    /// be held whole; WebP and AVIF encoders need every pixel at once.
    public var writesBands: Bool { self == .png || self == .jpeg }

    /// Whether `quality` changes its bytes.
    public var isLossy: Bool { self != .png }
}

/// How JPEG and AVIF store colour: at full resolution, or halved both ways (the usual choice
/// for photographs; text on coloured ground shows soft edges).
public enum ChromaSubsampling: String, CaseIterable, Sendable {
    case full = "4:4:4"
    case half = "4:2:0"
}

/// Everything that chooses an image encoder and its bytes: a format and its settings.
public struct ImageEncoding: Sendable, Equatable {
    public var format: ImageFormat = .png
    /// PNG's compression preset.
    public var png: PNGCompression = .default
    /// 0...100 for WebP, JPEG and AVIF; nil: the format's default (`defaultQuality`). With
    /// lossless WebP it is the effort (0 fastest, 100 smallest), as in libwebp.
    public var quality: Int?
    /// WebP only: lossless instead of lossy.
    public var lossless = false
    /// JPEG only: a progressive scan script (images held whole; pages drawn in bands stay
    /// sequential, which needs no whole-image buffer).
    public var progressive = false
    /// JPEG and AVIF: chroma subsampling; nil: the format's default (JPEG 4:2:0, AVIF 4:4:4).
    public var chroma: ChromaSubsampling?
    /// AVIF only: encoder speed 0 (slowest, smallest) ... 10 (fastest); nil: 6.
    public var speed: Int?

    public init(format: ImageFormat = .png) {
        self.format = format
    }

    public static let qualityRange = 0...100
    public static let speedRange = 0...10
    /// AVIF's default speed: avifenc's.
    public static let defaultSpeed = 6

    /// The quality used when none is configured.
    public static func defaultQuality(_ format: ImageFormat) -> Int {
        switch format {
        case .png: 0
        case .webp, .jpeg: 90
        case .avif: 75
        }
    }

    /// The encoder these settings describe.
    public var encoder: any ImageEncoder {
        let quality = quality ?? Self.defaultQuality(format)
        switch format {
        case .png: return PNGImageEncoder(compression: png)
        case .jpeg: return JPEGImageEncoder(quality: quality, progressive: progressive, chroma: chroma ?? .half)
        case .webp: return WebPImageEncoder(quality: quality, lossless: lossless)
        case .avif: return AVIFImageEncoder(quality: quality, speed: speed ?? Self.defaultSpeed, chroma: chroma ?? .full)
        }
    }
}
