import GalleyBase
import GalleyRaster
import GalleyText

extension Configuration {
    /// The encoder of page images and thumbnails: PNG with the `png` preset (the only image
    /// format so far).
    var imageEncoder: any ImageEncoder { PNGImageEncoder(compression: png) }

    /// The whole-document files each article layout gets, in configuration order.
    var documentFormats: [any DocumentFormat] { documents.map(\.format) }

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
