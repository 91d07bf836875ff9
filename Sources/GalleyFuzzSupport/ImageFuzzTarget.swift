import GalleyPDF
import GalleyRaster
import GalleyText

/// Bytes as a picture an article links to: rendered as SVG when a run would take it for one
/// (`MuPDFEngine.isSVG`: an SVG document's start), else decoded as a raster image (PNG, JPEG,
/// GIF, TIFF, …), both through the MuPDF shim as the article image loader does, with a smaller
/// pixel limit so that every input is quick. The pixels that come back are checked against the
/// size MuPDF reports and the limit asked for; an SVG is also drawn by librsvg as the PDF
/// writer draws it (`VectorPicture`). The same bytes go through each output format's
/// reader of pixel sizes (what reads a cached thumbnail back) and decoder (what `galley diff`
/// reads pages with), and a decoded picture is written
/// as JPEG, whole and in bands (the libjpeg shim), and read back by MuPDF at its size.
public struct ImageFuzzTarget: FuzzTarget {
    public static let name = "FuzzImage"
    /// Largest picture decoded or rendered per input (a run allows 40 MP).
    static let maximumPixels = 1 << 20

    private let engine: MuPDFEngine

    public init() throws(PDFError) {
        engine = try MuPDFEngine(storeBytes: 64 << 20)
    }

    public func run(_ input: [UInt8]) -> FuzzOutcome {
        var outcome = FuzzOutcome()
        // What the PDF writer hands librsvg: the SVG file, drawn into its box.
        if MuPDFEngine.isSVG(path: "input", bytes: input) {
            _ = VectorPicture.draws(input, width: Double(input.count % 500), height: Double(input.count % 300))
        }
        do {
            let image = MuPDFEngine.isSVG(path: "input", bytes: input)
                ? try engine.renderSVG(input, maximumPixels: Self.maximumPixels)
                : try engine.decodeImage(input, maximumPixels: Self.maximumPixels)
            precondition(image.width > 0 && image.height > 0 && image.width * image.height <= Self.maximumPixels,
                         "a picture of \(image.width) × \(image.height) pixels, past the limit asked for")
            precondition(image.pixels.count == image.width * image.height * 4, "pixels do not match the size")
            outcome.pagesDrawn += 1
            try writeJPEG(image)
        } catch {
            outcome.errors.append("\(error)")
        }
        for reader in Self.readers {
            if let size = reader.pixelSize(of: input) {
                precondition(size.width > 0 && size.height > 0, "\(reader.format) read a size of \(size.width) × \(size.height)")
            }
            // What galley diff reads a run's pages with.
            if let bitmap = try? Bitmap(encoded: input, format: reader.format, maximumPixels: Self.maximumPixels) {
                precondition(bitmap.width * bitmap.height <= Self.maximumPixels, "a \(reader.format) past the limit asked for")
            }
        }
        return outcome
    }

    static let readers: [any ImageEncoder] = [PNGImageEncoder(), JPEGImageEncoder(), WebPImageEncoder(), AVIFImageEncoder()]

    /// The picture as JPEG (its colour over black, premultiplied as it is), whole and in bands
    /// of 7 rows, each decoded again at the same size.
    private func writeJPEG(_ image: RasterImage) throws {
        let bitmap = try Bitmap(width: image.width, height: image.height)
        for index in 0..<image.width * image.height {
            for channel in 0..<3 { bitmap.pixels[index * 3 + channel] = image.pixels[index * 4 + channel] }
        }
        let encoder = JPEGImageEncoder(quality: image.width % 101, progressive: image.height % 2 == 0,
                                       chroma: image.width % 2 == 0 ? .full : .half)
        let whole = try encoder.encode(bitmap, dpi: Double(image.height % 600))
        let bands = try encoder.bandEncoder(width: image.width, height: image.height, dpi: nil)
        var y = 0
        while y < image.height {
            let band = try Bitmap(width: image.width, height: min(7, image.height - y))
            band.pixels.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bitmap.pixels)[(y * bitmap.rowBytes)...].prefix(band.pixels.count)))
            try bands.write(band)
            y += band.height
        }
        for bytes in [whole, try bands.finish()] {
            let decoded = try engine.decodeImage(bytes, maximumPixels: Self.maximumPixels)
            precondition(decoded.width == image.width && decoded.height == image.height, "a JPEG read back at another size")
        }
    }
}
