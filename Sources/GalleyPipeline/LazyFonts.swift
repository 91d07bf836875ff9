import GalleyBase
import GalleyText

/// The font library, made when the first article is opened: fontconfig's start-up costs more
/// than a rerun that opens nothing.
final class LazyFonts: Sendable {
    private let configuration: Configuration
    private let made = Mutex<Result<FontLibrary, Failure>?>(nil)

    init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The fonts, or the `font-missing` failure of every article that needs them.
    func library() throws(Failure) -> FontLibrary {
        let result = made.withLock { made in
            if let made { return made }
            let result = Result { () throws(Failure) -> FontLibrary in try configuration.documentFonts() }
            made = result
            return result
        }
        return try result.get()
    }
}
