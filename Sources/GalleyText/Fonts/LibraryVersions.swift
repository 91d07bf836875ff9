import CFreeType
import CHarfBuzz

/// The versions of the text libraries linked in, for `galley --version` (what a bug report
/// needs: shaping and rasterizing change between releases).
public enum LibraryVersions {
    /// HarfBuzz's version string (`6.0.0`).
    public static var harfBuzz: String { String(cString: hb_version_string()) }

    /// FreeType's version (`2.12.1`), asked of a library instance made for the purpose.
    public static var freeType: String {
        var library: FT_Library?
        guard FT_Init_FreeType(&library) == 0, let library else { return "unknown" }
        defer { FT_Done_FreeType(library) }
        var major: FT_Int = 0, minor: FT_Int = 0, patch: FT_Int = 0
        FT_Library_Version(library, &major, &minor, &patch)
        return "\(major).\(minor).\(patch)"
    }
}
