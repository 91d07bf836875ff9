import Foundation

/// An input written to a file of its own, for the entry points that read files (a PDF is
/// opened by path, `pipeline.yml` is read from one), so the fuzzers go through the same code
/// as a run. Removed when done; unique per call, so tests may replay inputs in parallel.
enum ScratchFile {
    /// Runs `body` with `bytes` in a file named `name` (in a folder of its own).
    static func with<T>(_ bytes: [UInt8], name: String, _ body: (URL) -> T) -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("galley-fuzz-\(UUID().uuidString)", isDirectory: true)
        let file = directory.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: file)
        } catch {
            // The temporary directory is the fuzzer's own machine: not an input's fault.
            fatalError("cannot write the scratch file \(file.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        return body(file)
    }
}
