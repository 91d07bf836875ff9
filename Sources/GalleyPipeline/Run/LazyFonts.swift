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

    /// A warning for each layout whose `font_family` is set in another font (not installed, or
    /// no glyphs Galley can use), for the run's warnings; none when no article opened the
    /// fonts, so a run without articles never starts fontconfig for it.
    func substitutionWarnings(_ layouts: [ArticleLayout]) -> [String] {
        guard let library = made.withLock({ try? $0?.get() }) else { return [] }
        return layouts.compactMap { layout in
            ((try? library.substitute(for: layout.base.fontFamily)) ?? nil).map {
                Self.substitutionWarning(layout: layout.name, family: layout.base.fontFamily, used: $0)
            }
        }
    }

    /// What a run and each article say of a layout whose `font_family` is set in `used`.
    static func substitutionWarning(layout: String, family: String, used: String) -> String {
        "layout \(layout): font_family \"\(family)\" is not an installed font Galley can use, so the text is set in \(used); install it, add its folder under fonts: in pipeline.yml, or name another"
    }
}
