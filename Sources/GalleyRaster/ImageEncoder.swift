/// Turns the pixels of a drawn page into the bytes of one image format: the output seam for
/// page images and thumbnails.
///
/// The stages draw a `PageSource` into a `Bitmap` and hand it to the configured encoder; the
/// manifest, the catalog's fingerprints, the thumbnail cache and output names ask the encoder
/// for its format, extension and settings, so a new format is a new conforming type and a
/// configuration value, not a change to the stages.
public protocol ImageEncoder: Sendable {
    /// The format it writes.
    var format: ImageFormat { get }

    /// Everything that changes its bytes for the same pixels (format, preset, quality, library
    /// version), as a line of text: part of every output's fingerprint, so a change redraws
    /// the outputs.
    var fingerprint: String { get }

    /// The largest width or height the format holds.
    var maximumSide: Int { get }

    /// The most pixels it encodes, or nil when it takes images band by band (`bandEncoder`)
    /// and so any size: an encoder that needs the whole image in memory refuses larger ones
    /// rather than exhaust memory.
    var maximumPixels: Int? { get }

    /// Encodes a whole bitmap; `dpi`, when given, is recorded in the file where the format
    /// allows (page images carry it, thumbnails do not).
    func encode(_ bitmap: Bitmap, dpi: Double?) throws(RasterError) -> [UInt8]

    /// Starts an image of this size that is handed over band by band, top to bottom, so a
    /// huge page costs one band of memory. Throws `tooLargeForFormat` for an encoder that
    /// cannot (`maximumPixels` is not nil).
    func bandEncoder(width: Int, height: Int, dpi: Double?) throws(RasterError) -> any BandEncoder

    /// The pixel size recorded in bytes this encoder wrote (a cached thumbnail), or nil when
    /// they are not such an image.
    func pixelSize(of bytes: [UInt8]) -> (width: Int, height: Int)?
}

extension ImageEncoder {
    /// The extension of the files it writes, without the dot (`png`, `jpg`).
    public var fileExtension: String { format.fileExtension }

    /// Refuses, before anything is drawn, an image this encoder cannot write: a side over the
    /// format's limit, or more pixels than an encoder that needs the whole image takes.
    public func checkSize(width: Int, height: Int) throws(RasterError) {
        let name = format.rawValue.uppercased()
        if width > maximumSide || height > maximumSide {
            throw RasterError(.tooLargeForFormat,
                              "the page is \(width)×\(height) pixels, and \(name) holds at most \(maximumSide) on a side; lower dpi, or choose another format")
        }
        if let maximumPixels, width * height > maximumPixels {
            throw RasterError(.tooLargeForFormat,
                              "the page is \(width)×\(height) pixels (\(width * height)), and \(name) is encoded from the whole image in memory, so Galley writes it up to \(maximumPixels) pixels; lower dpi, or use png or jpeg, which are written in bands")
        }
    }
}

/// An image being encoded band by band.
public protocol BandEncoder: AnyObject {
    /// Appends every row of a band; its width is the image's.
    func write(_ band: Bitmap) throws(RasterError)
    /// Ends the image and returns its bytes.
    func finish() throws(RasterError) -> [UInt8]
}

/// The pixel limit of encoders that need the whole image (WebP; AVIF has a lower one): the size
/// above which a page is drawn in bands (16 MiP, 48 MiB of RGB; the WebP encoder holds about as
/// much again in YUV and its own buffers).
public let wholeImagePixelLimit = 16 << 20
