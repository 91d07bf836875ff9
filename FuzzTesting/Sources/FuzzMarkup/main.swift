import GalleyFuzzSupport

let target = FuzzDriver.start(MarkupFuzzTarget.init)

/// libFuzzer's entry: one input, as an HTML article and as plain text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkup(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzDriver.run(target, start, count)
}
