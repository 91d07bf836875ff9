import GalleyPDF

/// Bytes as a picture an article links to: rendered as SVG when a run would take it for one
/// (`MuPDFEngine.isSVG`: an SVG document's start), else decoded as a raster image (PNG, JPEG,
/// GIF, TIFF, …), both through the MuPDF shim as the article image loader does, with a smaller
/// pixel limit so that every input is quick. The pixels that come back are checked against the
/// size MuPDF reports and the limit asked for.
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
        do {
            let image = MuPDFEngine.isSVG(path: "input", bytes: input)
                ? try engine.renderSVG(input, maximumPixels: Self.maximumPixels)
                : try engine.decodeImage(input, maximumPixels: Self.maximumPixels)
            precondition(image.width > 0 && image.height > 0 && image.width * image.height <= Self.maximumPixels,
                         "a picture of \(image.width) × \(image.height) pixels, past the limit asked for")
            precondition(image.pixels.count == image.width * image.height * 4, "pixels do not match the size")
            outcome.pagesDrawn += 1
        } catch {
            outcome.errors.append("\(error)")
        }
        return outcome
    }
}
