extension StyleSheet {
    /// The user-agent style sheet, `UserAgent.css`: a browser's defaults for the supported
    /// elements, in units relative to the base style.
    ///
    /// SwiftPM compiles the CSS into the binary (`.embedInCode` in `Package.swift`), so it is
    /// there without a resource bundle; it is parsed once per process.
    static let userAgent: StyleSheet = {
        var sheet = StyleSheet()
        sheet.add(css: String(decoding: PackageResources.UserAgent_css, as: UTF8.self))
        return sheet
    }()
}
