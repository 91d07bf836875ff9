/// How hard the PNG encoder works. Every preset is deterministic: equal pixels and preset give
/// equal bytes.
///
/// Chosen by measurement on the benchmark corpus (100 pages of text, vector art and photos at
/// 150 dpi, 2 cores; `python3 scripts/benchmark.py`), where encoding, not rendering, is most of
/// a page's cost. Wall time / PNG bytes relative to `mutool draw`'s own PNGs:
///
/// | zlib level, filter | time | bytes |
/// | --- | ---: | ---: |
/// | 1, Up | 1.36 s | 1.10× |
/// | 2, Up | 1.39 s | 1.07× |
/// | 3, Up | 1.58 s | 1.04× |
/// | 3, adaptive | 2.10 s | 1.01× |
/// | 6, Up | 3.00 s | 1.06× |
/// | 9, adaptive | 21.8 s | 0.96× |
/// | 1, Up, run-length strategy | 1.34 s | 1.80× |
///
/// Above level 3 zlib switches to lazy matching, which costs far more than it saves on page
/// images; the Up filter suits text rows (mostly equal to the row above) and photos alike.
public enum PNGCompression: String, CaseIterable, Sendable {
    /// zlib level 1, Up filter: the fastest encode, files about 3% larger than `balanced`.
    case fast
    /// zlib level 2, Up filter: the default, about the size of `mutool draw`'s PNGs at well under
    /// half its encoding time.
    case balanced
    /// zlib level 6, adaptive filtering: a few percent smaller, about twice the time.
    case small

    /// The default preset.
    public static let `default` = PNGCompression.balanced

    struct Settings {
        var zlibLevel: Int32
        var zlibStrategy: Int32
        var filters: Int32
    }

    // zlib strategies and libpng filter bits, spelled out so this module does not import them.
    private static let zDefaultStrategy: Int32 = 0
    private static let filterUp: Int32 = 0x20, filterAll: Int32 = 0xF8

    var settings: Settings {
        switch self {
        case .fast: Settings(zlibLevel: 1, zlibStrategy: Self.zDefaultStrategy, filters: Self.filterUp)
        case .balanced: Settings(zlibLevel: 2, zlibStrategy: Self.zDefaultStrategy, filters: Self.filterUp)
        case .small: Settings(zlibLevel: 6, zlibStrategy: Self.zDefaultStrategy, filters: Self.filterAll)
        }
    }
}
