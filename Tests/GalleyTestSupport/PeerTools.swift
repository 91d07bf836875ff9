import Foundation
import GalleyRaster

/// Runs programs from tests: the peer tools the install script provides (mutool, sha256sum,
/// Python's jsonschema) and the built `galley` binary.
public enum PeerTools {
    /// What a finished program said.
    public struct Outcome: Sendable {
        /// The exit status, or the signal's number when `signalled`.
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// Whether a signal ended the program (`status` is then the signal).
        public var signalled = false
    }

    /// Runs `executable` (a path, or a name looked up on PATH) to completion, with `environment`
    /// added to this process's.
    public static func run(_ executable: String, _ arguments: [String], in directory: URL? = nil,
                           environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        process.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read stderr on another thread so neither pipe can fill up and stall the child.
        let errors = ErrorsReader(err.fileHandleForReading)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                       stderr: String(decoding: errors.wait(), as: UTF8.self), signalled: process.terminationReason == .uncaughtSignal)
    }

    /// `mutool draw` of one page (1-based) with extra options, decoded.
    public static func mutoolDraw(_ pdf: URL, page: Int, options: [String], password: String? = nil) throws -> Bitmap {
        let folder = try ScratchFolder("mutool")
        let output = folder.path("page.png")
        var arguments = ["draw", "-q", "-o", output.path] + options
        if let password { arguments += ["-p", password] }
        arguments += [pdf.path, String(page)]
        let result = try run("mutool", arguments)
        guard result.status == 0 else { throw PeerToolError(message: "mutool draw failed: \(result.stderr)") }
        return try Bitmap(pngData: Array(try Data(contentsOf: output)))
    }

    /// SHA-256 of a file as computed by `sha256sum`, independently of Galley's code.
    public static func sha256sum(_ url: URL) throws -> String {
        String(try run("sha256sum", [url.path]).stdout.prefix(64))
    }
}

/// Reads a pipe to its end on a background thread.
private final class ErrorsReader: @unchecked Sendable {
    // Written once by the reader thread before `done` is signalled; read only after waiting.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

public struct PeerToolError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
