/// How hard the PNG encoder works. Every preset is deterministic: equal pixels and preset give
/// equal bytes.
///
/// Chosen by measurement: encoding, not rendering, is most of a page image's cost. On the
/// benchmark corpus (100 pages of text, vector art and photos at 150 dpi, 2 cores), wall time and
/// PNG bytes relative to `mutool draw -r 150` (which took 5.47 s), as printed by
/// `python3 scripts/benchmark.py`:
///
/// | preset | zlib level, filter | time | bytes |
/// | --- | --- | ---: | ---: |
/// | `fast` | 1, Up | 1.27 s | 1.09× |
/// | `balanced` | 2, Up | 1.39 s | 1.07× |
/// | `small` | 6, adaptive | 4.16 s | 1.00× |
///
/// A one-off sweep, made by editing these settings and timing the same corpus, found level 3
/// with Up 14% slower than level 2 for 3% fewer bytes, level 9 with adaptive filtering at 21.8 s
/// for 0.96× mutool's bytes, and zlib's run-length strategy no faster than level 1 but 1.8× larger. Above
/// level 3 zlib switches to lazy matching, which costs far more than it saves on page images;
/// the Up filter suits text rows (mostly equal to the row above) and photos alike.
public enum PNGCompression: String, CaseIterable, Sendable {
    /// zlib level 1, Up filter: the fastest encode, files about 2% larger than `balanced`.
    case fast
    /// zlib level 2, Up filter: the default, about the size of `mutool draw`'s PNGs.
    case balanced
    /// zlib level 6, adaptive filtering: a few percent smaller, about twice the time.
    case small

    /// The default preset.
    public static let `default` = PNGCompression.balanced

    /// How rows are filtered before deflate (PNG filter types 0–4), or `adaptive`: per row the
    /// type whose output has the smallest sum of absolute signed bytes.
    public enum Filter: Int32, CaseIterable, Sendable {
        case none = 0, sub, up, average, paeth, adaptive
    }

    struct Settings {
        /// libdeflate level (1–12) of an image encoded whole.
        var deflateLevel: Int32
        /// The filter of images of many colours (photos, gradients) and that of images of at
        /// most 2048 colours (text, line art, flat fills: grey, palette or RGB).
        var filter: Filter
        var fewColoursFilter: Filter
        /// zlib settings of a page encoded in bands (libpng streams through zlib).
        var zlibLevel: Int32
        var zlibStrategy: Int32
        var zlibFilters: Int32
    }

    // zlib strategies and libpng filter bits, spelled out so this module does not import them.
    private static let zDefaultStrategy: Int32 = 0
    private static let filterUp: Int32 = 0x20, filterAll: Int32 = 0xF8

    var settings: Settings {
        switch self {
        case .fast: Settings(deflateLevel: 1, filter: .up, fewColoursFilter: .up,
                             zlibLevel: 1, zlibStrategy: Self.zDefaultStrategy, zlibFilters: Self.filterUp)
        case .balanced: Settings(deflateLevel: 4, filter: .up, fewColoursFilter: .up,
                                 zlibLevel: 2, zlibStrategy: Self.zDefaultStrategy, zlibFilters: Self.filterUp)
        case .small: Settings(deflateLevel: 9, filter: .adaptive, fewColoursFilter: .adaptive,
                              zlibLevel: 6, zlibStrategy: Self.zDefaultStrategy, zlibFilters: Self.filterAll)
        }
    }
}
