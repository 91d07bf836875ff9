// swift-tools-version:6.0
import Foundation
import PackageDescription

// The commit `galley --version` names: scripts/build-release.sh exports GALLEY_COMMIT (SwiftPM
// re-reads this manifest when the environment changes). Only a hexadecimal hash is taken.
let commit = ProcessInfo.processInfo.environment["GALLEY_COMMIT"].flatMap { value in
    value.count >= 7 && value.count <= 40 && value.allSatisfy(\.isHexDigit) ? value : nil
}

// Debian's libmupdf-dev ships static archives only, and SwiftPM does not read
// `Libs.private` from mupdf.pc, so MuPDF's private dependencies are linked explicitly.
let mupdfPrivateLibraries = [
    "mupdf", "mupdf-third", "mujs", "gumbo", "openjp2", "jbig2dec", "jpeg",
    "harfbuzz", "freetype", "z", "m",
]

let package = Package(
    name: "Galley",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "galley", targets: ["galley"]),
        // The run, with the modules its public API speaks in (its summary holds a manifest and a diff).
        .library(name: "GalleyPipeline", targets: ["GalleyPipeline", "GalleyManifest", "GalleyDiff"]),
        // What the fuzz targets in FuzzTesting/ (a package of its own) run for each input.
        .library(name: "GalleyFuzzSupport", targets: ["GalleyFuzzSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // MARK: System libraries (Debian -dev packages)
        .systemLibrary(
            name: "CMuPDF", pkgConfig: "mupdf",
            providers: [.apt(["libmupdf-dev", "libmujs-dev", "libgumbo-dev", "libopenjp2-7-dev",
                              "libjbig2dec0-dev", "libjpeg-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),
        .systemLibrary(name: "CGumbo", pkgConfig: "gumbo", providers: [.apt(["libgumbo-dev"])]),
        .systemLibrary(name: "CUnibreak", pkgConfig: "libunibreak", providers: [.apt(["libunibreak-dev"])]),
        // libhyphen has no pkg-config file; the module map links it.
        .systemLibrary(name: "CHyphen", providers: [.apt(["libhyphen-dev"])]),
        .systemLibrary(name: "CExtTextCat", pkgConfig: "libexttextcat", providers: [.apt(["libexttextcat-dev"])]),
        // SHA-256 and MD5 (GalleyBase's ContentHash) from OpenSSL's libcrypto.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // The vector painter: typeset pages as PDF (cairo's PDF surface and FreeType fonts).
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CRsvg", pkgConfig: "librsvg-2.0", providers: [.apt(["librsvg2-dev"])]),
        .systemLibrary(name: "CFriBidi", pkgConfig: "fribidi", providers: [.apt(["libfribidi-dev"])]),
        // Page images and thumbnails as WebP and AVIF (libavif encodes with Debian's libaom).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpmux", providers: [.apt(["libwebp-dev"])]),
        // Without pkgConfig: libavif.pc's Cflags (-DAVIF_DLL, for Windows DLLs) are flags SwiftPM
        // refuses with a warning; the header is in /usr/include and the module map links it.
        .systemLibrary(name: "CAVIF", providers: [.apt(["libavif-dev"])]),

        // MARK: C shims: the only code that calls MuPDF, libpng and libjpeg (all report errors
        // by longjmp); the PNG shim also holds the whole-image writer over libdeflate and zlib
        .target(
            name: "CGalleyMuPDF",
            dependencies: ["CMuPDF"],
            linkerSettings: mupdfPrivateLibraries.map { .linkedLibrary($0) }),
        // glibc's malloc tuning (malloc.h, which Swift's Glibc module leaves out) and the
        // build's commit stamp: no library behind it, so no other shim needs to be seen for it.
        .target(
            name: "CGalleySystem",
            cSettings: commit.map { [.define("GALLEY_COMMIT", to: "\"\($0)\"")] } ?? []),
        .target(
            name: "CGalleyPNG",
            dependencies: ["CPNG", "CDeflate"],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("deflate")]),
        // The only code that calls libjpeg (libjpeg-turbo), whose errors end in exit() unless an
        // error manager longjmps out of them.
        .target(name: "CGalleyJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // libhyphen's dictionaries loaded in linear time (libhyphen's own loader took 7 s on
        // Debian's German dictionary); the automaton is libhyphen's, hyphenated by libhyphen.
        .target(name: "CGalleyHyphen", dependencies: ["CHyphen"], linkerSettings: [.linkedLibrary("hyphen")]),
        // cairo font faces over FreeType faces, compiled here so that no module header shows
        // Swift a second copy of FreeType's declarations beside CFreeType's; SVG pictures drawn
        // onto cairo by librsvg (glib's declarations stay out of Swift's sight too).
        .target(name: "CGalleyCairo", dependencies: ["CCairo", "CFreeType", "CHarfBuzz", "CRsvg"],
                linkerSettings: [.linkedLibrary("cairo"), .linkedLibrary("freetype"), .linkedLibrary("harfbuzz-subset"),
                                 .linkedLibrary("rsvg-2"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]),

        // MARK: Libraries
        // What every module shares: the one failure vocabulary, the atomic file writer and
        // content hashes (libcrypto's).
        .target(name: "GalleyBase", dependencies: ["CLibCrypto"]),
        .target(name: "GalleyRaster", dependencies: ["GalleyBase", "CGalleyPNG", "CGalleyJPEG", "CWebP", "CAVIF"]),
        .target(
            name: "GalleyPDF",
            dependencies: ["GalleyBase", "CGalleyMuPDF", "GalleyRaster"]),
        .target(
            name: "GalleyText",
            dependencies: ["GalleyBase", "GalleyRaster", "CHarfBuzz", "CFreeType", "CFontconfig", "CGumbo", "CUnibreak", "CFriBidi", "CHyphen", "CGalleyHyphen", "CExtTextCat", "CCairo", "CGalleyCairo", "CDeflate"],
            // Compiled into the binary: a statically linked galley copied anywhere has no resource bundle.
            resources: [.embedInCode("CSS/UserAgent.css")]),
        // The catalog: SQLite through GRDB (which links the system libsqlite3).
        .target(
            name: "GalleyCatalog",
            dependencies: [
                "GalleyBase",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // What describes a run's outputs: the manifest, the output folder, the contact sheet,
        // the progress sheet and the CI reports. Read by the diff, written by the run.
        .target(name: "GalleyManifest", dependencies: ["GalleyBase", "GalleyRaster"]),
        // `galley diff`: two runs' outputs compared through their manifests; it runs nothing
        // (MuPDF only for a PDF's text with --text; GalleyText for the text document's name).
        .target(name: "GalleyDiff", dependencies: ["GalleyBase", "GalleyManifest", "GalleyRaster", "GalleyPDF", "GalleyText"]),
        .target(
            name: "GalleyPipeline",
            dependencies: [
                "GalleyBase", "GalleyManifest", "GalleyDiff", "GalleyPDF", "GalleyRaster", "GalleyText", "GalleyCatalog", "CGalleySystem",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The per-input code of the fuzz targets (FuzzTesting/), here so that the tests replay
        // every input that ever failed (FuzzTesting/FailCases) through the same code.
        .target(
            name: "GalleyFuzzSupport",
            dependencies: ["GalleyBase", "GalleyPDF", "GalleyPipeline", "GalleyRaster", "GalleyText"]),

        // MARK: Command line
        .executableTarget(
            name: "galley",
            dependencies: [
                "GalleyBase", "GalleyManifest", "GalleyDiff", "GalleyPipeline", "GalleyRaster", "GalleyText",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // MARK: Tests
        .target(
            name: "GalleyTestSupport",
            dependencies: ["GalleyRaster"],
            path: "Tests/GalleyTestSupport"),
        .testTarget(name: "GalleyBaseTests", dependencies: ["GalleyBase", "GalleyTestSupport"]),
        .testTarget(name: "GalleyRasterTests", dependencies: ["GalleyRaster", "GalleyTestSupport"]),
        .testTarget(name: "GalleyPDFTests", dependencies: ["GalleyBase", "GalleyPDF", "GalleyRaster", "GalleyTestSupport"]),
        // CHyphen and CGalleyHyphen: HyphenLoaderTests compares Galley's loader with libhyphen's.
        .testTarget(name: "GalleyTextTests", dependencies: ["GalleyText", "GalleyRaster", "GalleyTestSupport", "CHyphen", "CGalleyHyphen"],
                    exclude: ["Goldens", "LanguageSamples"]),  // read from the repository by path, not bundled
        .testTarget(
            name: "GalleyPipelineTests",
            dependencies: [
                "GalleyPipeline", "GalleyManifest", "GalleyDiff", "GalleyBase", "GalleyCatalog", "GalleyPDF", "GalleyRaster", "GalleyText", "GalleyTestSupport",
                .product(name: "Logging", package: "swift-log"),
                // YAMLNestingScannerTests compares the scanner's count with the trees Yams builds.
                .product(name: "Yams", package: "Yams"),
            ]),
        // The manifest's and the diff's suites run pipelines to have outputs to describe and compare.
        .testTarget(
            name: "GalleyManifestTests",
            dependencies: ["GalleyManifest", "GalleyPipeline", "GalleyBase", "GalleyRaster", "GalleyText", "GalleyTestSupport",
                           .product(name: "Logging", package: "swift-log")]),
        .testTarget(
            name: "GalleyDiffTests",
            dependencies: ["GalleyDiff", "GalleyManifest", "GalleyPipeline", "GalleyBase", "GalleyRaster", "GalleyText", "GalleyTestSupport",
                           .product(name: "Logging", package: "swift-log")]),
        // GRDB: a catalog of an older schema is written as an older Galley left it.
        .testTarget(name: "GalleyCatalogTests",
                    dependencies: ["GalleyBase", "GalleyCatalog", "GalleyTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "GalleyCLITests", dependencies: ["GalleyRaster", "GalleyTestSupport"]),
        .testTarget(name: "GalleyFuzzSupportTests", dependencies: ["GalleyFuzzSupport", "GalleyTestSupport", "GalleyText"]),
    ]
)
