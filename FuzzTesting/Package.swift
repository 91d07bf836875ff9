// swift-tools-version:6.0
import PackageDescription

// Galley's fuzz targets: a package of its own, so the normal build never sees libFuzzer. Built
// by scripts/fuzz.sh with `swift build --sanitize=fuzzer --sanitize=address`; each executable
// is libFuzzer's main around one `FuzzTarget` of GalleyFuzzSupport (in the main package, where
// the tests replay FailCases/ through the same code).
let package = Package(
    name: "GalleyFuzzTesting",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Galley", path: ".."),
    ],
    targets: [
        .executableTarget(name: "FuzzMarkup", dependencies: [.product(name: "GalleyFuzzSupport", package: "Galley")]),
        .executableTarget(name: "FuzzConfiguration", dependencies: [.product(name: "GalleyFuzzSupport", package: "Galley")]),
        .executableTarget(name: "FuzzPDF", dependencies: [.product(name: "GalleyFuzzSupport", package: "Galley")]),
        .executableTarget(name: "FuzzImage", dependencies: [.product(name: "GalleyFuzzSupport", package: "Galley")]),
    ]
)
