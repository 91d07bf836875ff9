/// How hard the PNG encoder works. Every preset is deterministic: equal pixels and preset give
/// equal bytes.
///
/// Chosen by measurement: encoding, not rendering, is most of a page image's cost. An image
/// held whole is stored as grey, a palette or RGB (whichever keeps its pixels), filtered and
/// compressed by libdeflate in one call; its rows are left unfiltered when it has at most 2048
/// colours (text, line art: deflate then matches repeated glyph rows, 10–18% smaller than Up
/// on every such page measured) and filtered with Up otherwise (a CMYK photo: 17× smaller
/// than unfiltered). `python3 scripts/sweep-png.py` draws pages with `mutool draw -r 150` to
/// PPM and times the encoder on one thread (CPU seconds, best of three passes) on three sets:
/// the fixture PDFs (19 pages, 37 MP), the stress corpus (16 pages, 32 MP) and every 8th page
/// of four Debian manuals (62 pages, 133 MP, 51 of them RGB: grey text and anti-aliased
/// coloured links give them 350 to 970 colours). Bytes are relative to `mutool draw`'s PNGs of the same pages.
/// Timings moved by up to 20% between identical settings on the shared 2-core machine (the
/// manuals' columns come from a later run than the other two).
///
/// | settings (filter of many colours / of ≤ 2048) | fixtures s | × bytes | stress s | × bytes | manuals s | × bytes |
/// | --- | ---: | ---: | ---: | ---: | ---: | ---: |
/// | libpng + zlib 2, Up, RGB (the old `balanced`) | 0.37 | 0.98 | 0.28 | 1.11 | 1.02 | 1.22 |
/// | libpng + zlib 6, adaptive, RGB (the old `small`) | 1.59 | 0.92 | 1.15 | 0.97 | 3.62 | 1.08 |
/// | libdeflate 2, Up / Up, RGB only | 0.38 | 0.94 | 0.31 | 1.05 | 1.11 | 1.18 |
/// | libdeflate 1, Up / None | 0.30 | 0.69 | 0.15 | 0.58 | 1.06 | 1.04 |
/// | **libdeflate 2, Up / None (`fast`)** | 0.28 | 0.66 | 0.15 | 0.58 | 0.82 | 0.94 |
/// | libdeflate 4, Up / None | 0.31 | 0.65 | 0.16 | 0.57 | 0.86 | 0.94 |
/// | **libdeflate 5, Up / None (`balanced`)** | 0.35 | 0.64 | 0.18 | 0.57 | 0.92 | 0.91 |
/// | libdeflate 6, Up / None | 0.42 | 0.64 | 0.20 | 0.57 | 1.06 | 0.91 |
/// | libdeflate 7, Up / None | 0.58 | 0.63 | 0.22 | 0.57 | 1.32 | 0.90 |
/// | libdeflate 9, Up / None | 1.66 | 0.63 | 0.59 | 0.56 | 3.97 | 0.90 |
/// | **libdeflate 10, Up / None (`small`)** | 3.27 | 0.59 | 1.16 | 0.54 | 11.13 | 0.81 |
/// | libdeflate 2, None / None | 0.24 | 0.81 | 0.14 | 0.64 | 0.80 | 0.94 |
/// | libdeflate 2, Up / Up | 0.26 | 0.70 | 0.15 | 0.64 | 0.94 | 1.10 |
/// | libdeflate 2, Sub / None | 0.26 | 0.71 | 0.14 | 0.61 | 0.80 | 0.94 |
/// | libdeflate 2, Paeth / None | 0.34 | 0.69 | 0.14 | 0.59 | 0.80 | 0.94 |
/// | libdeflate 2, adaptive / None | 0.55 | 0.69 | 0.17 | 0.59 | 0.80 | 0.94 |
/// | libdeflate 2, Up / adaptive | 0.38 | 0.68 | 0.33 | 0.59 | 2.82 | 1.02 |
///
/// Re-measured on the manuals later (`--sets real --settings d1:2:0,d2:2:0,d5:2:0,d7:2:0,d10:2:0,d12:2:0`,
/// with a build running beside it, so every time is about twice the table's): levels 1, 2, 5,
/// 7, 10 and 12 took 1.53, 1.73, 1.81, 2.35, 20.65 and 73.92 s for 1.04, 0.94, 0.91, 0.90,
/// 0.81 and 0.79 of mutool's bytes. Only level 12 is under 0.8 of them, at about 1.2 s of CPU a
/// page where `mutool draw` spends about 0.09 s drawing and encoding one.
///
/// libdeflate's level 1 is larger than level 2 on these pages (and was slower in the table's run); levels 8 and 9
/// cost two to four times level 7 for nothing; level 10 (near-optimal parsing) is the first to
/// gain again, at ten times the time; level 12, in an earlier sweep (before the few-colours
/// rule), took 3.6 times level 10's time on the manuals for 2% fewer bytes. Pages drawn in bands (over
/// 16 megapixels) still go through libpng and zlib, as RGB with the zlib settings below.
///
/// Images of at most 2048 colours (unfiltered rows: text, line art) are compressed at `fast`
/// and `balanced` by Galley's own deflate for drawn pages (`Sources/CGalleyPNG/page_deflate.c`,
/// issue 39): matches with the row above, the pixel before and, from effort 2, the last two
/// earlier places of the same 3 bytes, taken greedily, with dynamic Huffman codes. Measured by
/// `python3 scripts/sweep-png.py --settings d2:2:0,d5:2:0,d2:2:0:p1,d2:2:0:p2,d2:2:0:p3,d5:2:0:p3`
/// (the real set is now 169 pages of eight manuals, 152 of them RGB; a load of 13 on the shared
/// machine, CPU seconds of one thread):
///
/// | settings (many colours / at most 2048) | fixtures s | × bytes | stress s | × bytes | real s | × bytes |
/// | --- | ---: | ---: | ---: | ---: | ---: | ---: |
/// | libdeflate 2 / libdeflate 2 (the old `fast`) | 0.29 | 0.66 | 0.14 | 0.58 | 2.54 | 0.97 |
/// | libdeflate 5 / libdeflate 5 (the old `balanced`) | 0.37 | 0.64 | 0.18 | 0.57 | 2.83 | 0.93 |
/// | libdeflate 2 / page deflate 1 (row above, pixel before) | 0.26 | 0.77 | 0.09 | 0.59 | 1.04 | 1.40 |
/// | **libdeflate 2 / page deflate 2 (`fast`)** | 0.27 | 0.66 | 0.12 | 0.55 | 1.05 | 0.92 |
/// | libdeflate 2 / page deflate 3 | 0.28 | 0.65 | 0.12 | 0.55 | 1.18 | 0.91 |
/// | **libdeflate 5 / page deflate 3 (`balanced`)** | 0.34 | 0.64 | 0.12 | 0.55 | 1.16 | 0.91 |
///
/// On the manuals the page encoder takes 40% of libdeflate 5's time for fewer bytes; on the
/// fixtures, whose time is mostly photos, it saves 8%. Photos stay with libdeflate: given the
/// many-colour images too (Up filter), the page encoder wrote the fixture photos 2–19% larger
/// than libdeflate 5. Hashing 3 bytes (one RGB pixel) rather than 4 made the manuals 5% smaller;
/// in rows of one-byte pixels a hashed match is taken from 5 bytes, since at 3 a scanned grey
/// page came out 21% larger. Colour counting, packing, filtering and the checksums are now most
/// of what is left: on 40 of the manuals' pages an encode that stores the rows (libdeflate
/// level 0) took 0.20 s, `balanced` 0.27 s, libdeflate 5 for every image 0.68 s.
public enum PNGCompression: String, CaseIterable, Sendable {
    /// libdeflate level 2, images of at most 2048 colours by the page encoder at effort 2: the
    /// fastest encode, files 1–3% larger than `balanced`.
    case fast
    /// libdeflate level 5, images of at most 2048 colours by the page encoder at effort 3: the
    /// default.
    case balanced
    /// libdeflate level 10 for every image: 4–11% smaller than `balanced`, about ten times the
    /// encoding time.
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
        /// Images of at most 2048 colours compressed by Galley's page encoder
        /// (`Sources/CGalleyPNG/page_deflate.c`) at this effort (1–3) instead of libdeflate; 0: by
        /// libdeflate at `deflateLevel` like the rest.
        var pageDeflate: Int32
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
        case .fast: Settings(deflateLevel: 2, filter: .up, fewColoursFilter: .none, pageDeflate: 2,
                             zlibLevel: 1, zlibStrategy: Self.zDefaultStrategy, zlibFilters: Self.filterUp)
        case .balanced: Settings(deflateLevel: 5, filter: .up, fewColoursFilter: .none, pageDeflate: 3,
                                 zlibLevel: 2, zlibStrategy: Self.zDefaultStrategy, zlibFilters: Self.filterUp)
        case .small: Settings(deflateLevel: 10, filter: .up, fewColoursFilter: .none, pageDeflate: 0,
                              zlibLevel: 6, zlibStrategy: Self.zDefaultStrategy, zlibFilters: Self.filterAll)
        }
    }
}
