import CFontconfig
import Foundation
import GalleyBase

/// Finds fonts through fontconfig and keeps the faces it has opened.
///
/// A request (families, weight, slant, language) resolves to a `FontFallback`: the best
/// match first, then every installed font that covers characters the earlier ones do not, in
/// fontconfig's order. Folders from `pipeline.yml` are added to the search ahead of the
/// system's fonts. Everything is cached: resolution once per request, a face once per file
/// and index.
public final class FontLibrary: @unchecked Sendable {
    /// The fontconfig configuration, only used under `lock` (fontconfig's thread-safety has
    /// varied between releases; resolution is cached, so the lock is rarely taken).
    private let config: OpaquePointer
    private let lock = Mutex<Caches>(Caches())
    /// Glyph images shared by every page drawn with this library's faces.
    package let glyphCache: GlyphCache

    private struct Caches {
        var fallbacks: [FallbackKey: FontFallback] = [:]
        var faces: [FaceKey: FontFace] = [:]
    }

    private struct FallbackKey: Hashable {
        var request: FontRequest
        var language: String?
    }

    private struct FaceKey: Hashable {
        var path: String
        var index: Int
    }

    /// Loads the system's font configuration plus `fontFolders`.
    ///
    /// - Throws: `TypesetError` (`fontMissing`) when fontconfig cannot load, or a folder does not
    ///   exist.
    public convenience init(fontFolders: [URL] = []) throws(TypesetError) {
        try self.init(fontFolders: fontFolders, glyphStamps: GlyphCache.defaultStampsPerImage)
    }

    /// `glyphStamps`: inks a glyph image keeps a ready-made copy in (`GlyphCache`); 0 blends
    /// every glyph, for tests that compare both ways of drawing.
    package init(fontFolders: [URL] = [], glyphStamps: Int) throws(TypesetError) {
        glyphCache = GlyphCache(byteLimit: 64 << 20, stampsPerImage: glyphStamps)
        guard let config = FcInitLoadConfigAndFonts() else {
            throw TypesetError(.fontMissing, "fontconfig could not load its configuration")
        }
        for folder in fontFolders {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
                FcConfigDestroy(config)
                throw TypesetError(.fontMissing, "font folder \(folder.path) does not exist")
            }
            guard FcConfigAppFontAddDir(config, folder.path) != 0 else {
                FcConfigDestroy(config)
                throw TypesetError(.fontMissing, "fontconfig cannot read font folder \(folder.path)")
            }
        }
        self.config = config
    }

    deinit {
        FcConfigDestroy(config)
    }

    /// The faces to use for a request, best first.
    public func fallback(for request: FontRequest, language: String?) throws(TypesetError) -> FontFallback {
        let key = FallbackKey(request: request, language: language)
        let result: Result<FontFallback, TypesetError> = lock.withLock { caches in
            if let cached = caches.fallbacks[key] { return .success(cached) }
            let resolved = Result { () throws(TypesetError) -> FontFallback in try resolve(key, &caches) }
            if case .success(let fallback) = resolved { caches.fallbacks[key] = fallback }
            return resolved
        }
        return try result.get()
    }

    private func resolve(_ key: FallbackKey, _ caches: inout Caches) throws(TypesetError) -> FontFallback {
        guard let pattern = FcPatternCreate() else { throw TypesetError(.fontMissing, "fontconfig is out of memory") }
        defer { FcPatternDestroy(pattern) }
        for family in key.request.families { FcPatternAddString(pattern, FC_FAMILY, family) }
        FcPatternAddInteger(pattern, FC_WEIGHT, FcWeightFromOpenType(Int32(key.request.weight)))
        FcPatternAddInteger(pattern, FC_SLANT, key.request.italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN)
        if let language = key.language.flatMap(Self.fontconfigLanguage) {
            FcPatternAddString(pattern, FC_LANG, language)
        }
        FcConfigSubstitute(config, pattern, FcMatchPattern)
        FcDefaultSubstitute(pattern)
        var result = FcResultNoMatch
        guard let set = FcFontSort(config, pattern, 1, nil, &result), set.pointee.nfont > 0 else {
            throw TypesetError(.fontMissing, "fontconfig found no font for \(key.request.families.joined(separator: ", ")); install one (scripts/install-deps.sh installs DejaVu and Noto CJK) or add a font folder under fonts: in pipeline.yml")
        }
        defer { FcFontSetDestroy(set) }
        var entries: [FontFallback.Entry] = []
        var seen = Set<FaceKey>()
        for i in 0..<Int(set.pointee.nfont) {
            guard let font = set.pointee.fonts[i] else { continue }
            var file: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(font, FC_FILE, 0, &file) == FcResultMatch, let file else { continue }
            var index: Int32 = 0
            _ = FcPatternGetInteger(font, FC_INDEX, 0, &index)
            let faceKey = FaceKey(path: String(cString: file), index: Int(index))
            guard seen.insert(faceKey).inserted else { continue }
            var charset: OpaquePointer?
            guard FcPatternGetCharSet(font, FC_CHARSET, 0, &charset) == FcResultMatch, let charset,
                  let copy = FcCharSetCopy(charset) else { continue }
            // Every name of the family (a font may carry several, and translations).
            var families: [String] = []
            var familyName: UnsafeMutablePointer<FcChar8>?
            while FcPatternGetString(font, FC_FAMILY, Int32(families.count), &familyName) == FcResultMatch, let familyName {
                families.append(String(cString: familyName))
            }
            entries.append(FontFallback.Entry(path: faceKey.path, index: faceKey.index, family: families.first ?? "",
                                              familyNames: families, charset: CharacterSet(copy)))
        }
        guard !entries.isEmpty else {
            throw TypesetError(.fontMissing, "fontconfig found no usable font for \(key.request.families.joined(separator: ", "))")
        }
        return FontFallback(library: self, entries: entries)
    }

    /// The family text asked to be set in `family` is set in instead, when that is another:
    /// fontconfig has no font of that name (it answers with its best match, whatever the
    /// name), or none of its fonts can be used. Nil when the family is installed and usable, or
    /// is a generic name (`serif`, `sans-serif`, `monospace` ...), which stands for whatever
    /// fontconfig chooses.
    ///
    /// - Throws: `TypesetError` (`fontMissing`) when no font at all can be used.
    public func substitute(for family: String) throws(TypesetError) -> String? {
        guard !ComputedStyle.genericFamilies.contains(family.lowercased()) else { return nil }
        let used = try fallback(for: FontRequest(families: [family]), language: nil).primaryEntry()
        let wanted = family.lowercased()
        return used.familyNames.contains { $0.lowercased() == wanted } ? nil : used.family
    }

    /// The face for a font file and index, opened once.
    func face(path: String, index: Int, family: String) throws(TypesetError) -> FontFace {
        let key = FaceKey(path: path, index: index)
        let result: Result<FontFace, TypesetError> = lock.withLock { caches in
            if let face = caches.faces[key] { return .success(face) }
            let opened = Result { () throws(TypesetError) -> FontFace in
                try FontFace(id: caches.faces.count, path: path, index: index, family: family)
            }
            if case .success(let face) = opened { caches.faces[key] = face }
            return opened
        }
        return try result.get()
    }

    /// fontconfig language tags are lower case with `-` (`zh-cn`, `ja`); scripts map to the
    /// region fontconfig knows (`zh-Hans` → `zh-cn`, `zh-Hant` → `zh-tw`).
    static func fontconfigLanguage(_ tag: String) -> String? {
        let lower = tag.lowercased().replacingOccurrences(of: "_", with: "-")
        guard !lower.isEmpty else { return nil }
        if lower.hasPrefix("zh") {
            if lower.contains("hant") || lower.hasSuffix("-tw") { return "zh-tw" }
            if lower.contains("-hk") || lower.contains("-mo") { return "zh-hk" }
            return "zh-cn"
        }
        return String(lower.split(separator: "-").first ?? "")
    }

    /// A fontconfig character set, owned (released on deinit); read-only after creation.
    final class CharacterSet: @unchecked Sendable {
        let handle: OpaquePointer
        init(_ handle: OpaquePointer) { self.handle = handle }
        deinit { FcCharSetDestroy(handle) }
        func contains(_ scalar: Unicode.Scalar) -> Bool { FcCharSetHasChar(handle, scalar.value) != 0 }
    }
}

/// The faces for one font request: the best match, then fallbacks by coverage.
public final class FontFallback: Sendable {
    struct Entry: Sendable {
        var path: String
        var index: Int
        var family: String
        /// Every name fontconfig gives the family, `family` first.
        var familyNames: [String]
        var charset: FontLibrary.CharacterSet
    }

    /// Unowned: the library keeps its fallbacks, and would never be freed if they kept it.
    private unowned let library: FontLibrary
    private let entries: [Entry]
    /// Faces opened so far, or why they could not be, by entry index.
    private let opened = Mutex<[Int: Result<FontFace, TypesetError>]>([:])
    /// The entry `face(covering:)` found for each character asked about (nil: none covers it),
    /// so a page of Chinese under a Latin primary face walks the fallback order once per
    /// distinct character, not once per character.
    private let covering = Mutex<[Unicode.Scalar: Int?]>([:])

    init(library: FontLibrary, entries: [Entry]) {
        self.library = library
        self.entries = entries
    }

    /// The best-matching face that can be used: a font fontconfig lists but HarfBuzz cannot
    /// read (a Type 1 or bitmap font: no glyphs) is passed over for the next in fallback order.
    ///
    /// - Throws: `TypesetError` (`fontMissing`) when no face of the fallback can be used.
    public func primary() throws(TypesetError) -> FontFace { try usablePrimary().face }

    /// The entry of the primary face (`primary()`).
    func primaryEntry() throws(TypesetError) -> Entry { entries[try usablePrimary().index] }

    private func usablePrimary() throws(TypesetError) -> (index: Int, face: FontFace) {
        var firstError: TypesetError?
        for i in entries.indices {
            switch face(at: i) {
            case .success(let face): return (i, face)
            case .failure(let error): firstError = firstError ?? error
            }
        }
        throw firstError ?? TypesetError(.fontMissing, "fontconfig found no usable font")
    }

    /// The first face, in fallback order, that has a glyph for `scalar`; nil when none has
    /// (the character is drawn as the primary face's missing-glyph box). Faces that cannot be
    /// used are passed over.
    public func face(covering scalar: Unicode.Scalar) -> FontFace? {
        if let known = covering.withLock({ $0[scalar] }) { return known.flatMap { try? face(at: $0).get() } }
        var found: (index: Int, face: FontFace)?
        for (i, entry) in entries.enumerated() where entry.charset.contains(scalar) {
            if case .success(let face) = face(at: i), face.glyph(for: scalar) != nil {
                found = (i, face)
                break
            }
        }
        covering.withLock { $0[scalar] = .some(found?.index) }
        return found?.face
    }

    /// The face of an entry, opened on first use, or why it cannot be used (remembered, so a
    /// font without glyphs is tried once).
    private func face(at index: Int) -> Result<FontFace, TypesetError> {
        if let face = opened.withLock({ $0[index] }) { return face }
        let entry = entries[index]
        let face = Result { () throws(TypesetError) -> FontFace in
            try library.face(path: entry.path, index: entry.index, family: entry.family)
        }
        opened.withLock { $0[index] = face }
        return face
    }
}
