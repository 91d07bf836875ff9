import GalleyFuzzSupport

let target = FuzzDriver.start(ImageFuzzTarget.init)

/// libFuzzer's entry: one input as a picture an article links to (SVG or raster).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzDriver.run(target, start, count)
}
