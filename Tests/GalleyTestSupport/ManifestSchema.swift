import Foundation

/// Validates manifests against `schemas/manifest.schema.json` with Python's jsonschema library
/// (Debian's python3-jsonschema, installed by the install script).
public enum ManifestSchema {
    /// The violations found; empty when the manifest is valid.
    public static func violations(of manifest: URL) throws -> [String] {
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, Fixtures.repositoryRoot.appendingPathComponent("scripts/validate-manifest.py").path, manifest.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 0 { return [] }
        let lines = text.split(separator: "\n").map(String.init)
        return lines.isEmpty ? ["validator exited with \(process.terminationStatus)"] : lines
    }
}
