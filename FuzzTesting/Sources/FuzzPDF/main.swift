import GalleyFuzzSupport

let target = FuzzDriver.start(PDFFuzzTarget.init)

/// libFuzzer's entry: one input as a PDF.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPDF(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzDriver.run(target, start, count)
}
