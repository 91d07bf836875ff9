/// Turns the pixels of a drawn page into the bytes of one image format: the output seam for
/// page images and thumbnails.
///
/// The stages draw a `PageSource` into a `Bitmap` and hand it to the configured encoder; the
/// manifest, the catalog's fingerprints, the thumbnail cache and output names ask the encoder
/// for its extension and settings, so a new format is a new conforming type and a
/// configuration value, not a change to the stages.
public protocol ImageEncoder: Sendable {
    /// The extension of the files it writes, without the dot (`png`).
    var fileExtension: String { get }

    /// Everything that changes its bytes for the same pixels (format, preset, quality), as a
    /// line of text: part of every output's fingerprint, so a change redraws the outputs.
    var fingerprint: String { get }

    /// Encodes a whole bitmap; `dpi`, when given, is recorded in the file where the format
    /// allows (page images carry it, thumbnails do not).
    func encode(_ bitmap: Bitmap, dpi: Double?) throws(RasterError) -> [UInt8]

    /// Starts an image of this size that is handed over band by band, top to bottom, so a
    /// huge page costs one band of memory.
    func bandEncoder(width: Int, height: Int, dpi: Double?) throws(RasterError) -> any BandEncoder

    /// The pixel size recorded in bytes this encoder wrote (a cached thumbnail), or nil when
    /// they are not such an image.
    func pixelSize(of bytes: [UInt8]) -> (width: Int, height: Int)?
}

/// An image being encoded band by band.
public protocol BandEncoder: AnyObject {
    /// Appends every row of a band; its width is the image's.
    func write(_ band: Bitmap) throws(RasterError)
    /// Ends the image and returns its bytes.
    func finish() throws(RasterError) -> [UInt8]
}
