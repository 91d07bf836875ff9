import Foundation
import GalleyRaster

/// Checks that the reduced PNG of drawn pages (grey or a palette where Galley chose one)
/// decodes to exactly what the plain RGB PNG of the same pixels decodes to, in Galley's decoder,
/// in Pillow and in netpbm's `pngtopnm`, and that `pngcheck` accepts it.
public enum ReducedPNGCheck {
    /// The problems found (empty when every page decodes as drawn) and how many pages were
    /// stored in each form (`grey`, `palette 4-bit`, `rgb`, ...), so a caller can tell the
    /// reductions were exercised, and the bytes of all reduced and of all RGB PNGs.
    public static func check(_ pages: [(name: String, bitmap: Bitmap)], dpi: Double? = nil) throws
        -> (problems: [String], forms: [String: Int], reducedBytes: Int, rgbBytes: Int) {
        let decoders = try IndependentPNGDecoders()
        var problems: [String] = []
        var forms: [String: Int] = [:]
        var reducedBytes = 0, rgbBytes = 0
        for (name, bitmap) in pages {
            let reduced = try bitmap.pngData(dpi: dpi)
            let rgb = try bitmap.pngData(dpi: dpi, reduce: false)
            let form = switch reduced[25] {
            case 0: "grey"
            case 3: "palette \(reduced[24])-bit"
            default: "rgb"
            }
            forms[form, default: 0] += 1
            reducedBytes += reduced.count
            rgbBytes += rgb.count
            let ours = try Bitmap(pngData: reduced).bytes
            if ours != (try Bitmap(pngData: rgb).bytes) || ours != bitmap.bytes {
                problems.append("\(name) (\(form)): Galley's decoder reads other pixels than the RGB PNG's")
            }
            try decoders.add(reduced, expected: bitmap, name: name)
        }
        let (independent, checked) = try decoders.mismatches()
        if checked != pages.count { problems.append("independent decoders checked \(checked) of \(pages.count)") }
        return (problems + independent, forms, reducedBytes, rgbBytes)
    }
}
