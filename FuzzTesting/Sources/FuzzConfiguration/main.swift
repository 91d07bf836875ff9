import GalleyFuzzSupport

let target = FuzzDriver.start(ConfigurationFuzzTarget.init)

/// libFuzzer's entry: one input as `pipeline.yml`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfiguration(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzDriver.run(target, start, count)
}
