/// The work a fuzz target does with one input: what libFuzzer calls in `FuzzTesting/` and what
/// the tests replay from `FuzzTesting/FailCases/<name>/`, so an input that once crashed Galley
/// goes through exactly the code it crashed.
///
/// A target never traps on data: every input either is drawn or is refused with the error a
/// run would report. Anything else (a trap, a sanitizer report, a hang) is a bug in Galley.
public protocol FuzzTarget: Sendable {
    /// The executable's name in `FuzzTesting/`, and its folder under `FailCases/` and in the
    /// seed corpus.
    static var name: String { get }

    /// Runs one input through the libraries.
    func run(_ input: [UInt8]) -> FuzzOutcome
}

/// What became of one input: what it drew and the errors the libraries reported.
public struct FuzzOutcome: Sendable, Equatable {
    /// Pages drawn (each at most `PageDrawing.window` pixels, plus a thumbnail).
    public var pagesDrawn = 0
    /// Pages whose text was extracted (`galley diff --text`'s reading of a PDF).
    public var pagesOfText = 0
    /// Data errors, which most fuzzed inputs give: the failure code and message a run would
    /// record.
    public var errors: [String] = []

    public init() {}
}

/// What the fuzz executables' `LLVMFuzzerTestOneInput` functions do.
public enum FuzzDriver {
    /// The target, made once before the first input; a target that cannot start (no fonts,
    /// no MuPDF context) stops the fuzzer with the reason.
    public static func start<T: FuzzTarget>(_ make: () throws -> T) -> T {
        do {
            return try make()
        } catch {
            fatalError("\(T.name) cannot start: \(error)")
        }
    }

    /// Runs one input from libFuzzer (`count` bytes at `start`, which may be null when empty).
    public static func run(_ target: some FuzzTarget, _ start: UnsafeRawPointer?, _ count: Int) -> CInt {
        _ = target.run(Array(UnsafeRawBufferPointer(start: start, count: count)))
        return 0  // libFuzzer's only accepted answer: the input may go into the corpus.
    }
}
