/// How hard the PNG encoder works. Every preset is deterministic: equal pixels and preset give
/// equal bytes.
///
/// The default was chosen by measurement (see `scripts/benchmark-png.sh` and the README):
/// PNG encoding, not rendering, dominates the cost of a page image.
public enum PNGCompression: String, CaseIterable, Sendable {
    /// zlib level 1, run-length strategy, Up filter: the fastest encode, larger files.
    case fast
    /// zlib level 3, default strategy, Up filter: near the size of `small` at a fraction of its time.
    case balanced
    /// zlib level 9, adaptive filtering: the smallest files, slowest.
    case small

    /// The default preset.
    public static let `default` = PNGCompression.balanced

    struct Settings {
        var zlibLevel: Int32
        var zlibStrategy: Int32
        var filters: Int32
    }

    // zlib strategies and libpng filter bits, spelled out so this module does not import them.
    private static let zDefaultStrategy: Int32 = 0, zRLE: Int32 = 3
    private static let filterUp: Int32 = 0x20, filterAll: Int32 = 0xF8

    var settings: Settings {
        switch self {
        case .fast: Settings(zlibLevel: 1, zlibStrategy: Self.zRLE, filters: Self.filterUp)
        case .balanced: Settings(zlibLevel: 3, zlibStrategy: Self.zDefaultStrategy, filters: Self.filterUp)
        case .small: Settings(zlibLevel: 9, zlibStrategy: Self.zDefaultStrategy, filters: Self.filterAll)
        }
    }
}
