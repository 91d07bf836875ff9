import Foundation
import GalleyRaster

/// Runs the peer tools the install script provides (mutool) so tests compare against them.
public enum PeerTools {
    /// Runs a program found on PATH and returns its exit status and standard error.
    @discardableResult
    public static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
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
}

public struct PeerToolError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
