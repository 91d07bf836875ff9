import Foundation

/// Validates manifests against `schemas/manifest.schema.json` with Python's jsonschema library
/// (Debian's python3-jsonschema, installed by the install script).
public enum ManifestSchema {
    /// The violations found; empty when the manifest is valid.
    /// `schema` names `schemas/<schema>.schema.json` (`diff` for galley diff's diff.json).
    public static func violations(of manifest: URL, schema: String = "manifest") throws -> [String] {
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/validate-manifest.py").path
        let outcome = try PeerTools.run(python, [script, "--schema", schema, manifest.path])
        if outcome.status == 0 { return [] }
        let lines = (outcome.stdout + outcome.stderr).split(separator: "\n").map(String.init)
        return lines.isEmpty ? ["validator exited with \(outcome.status)"] : lines
    }
}
