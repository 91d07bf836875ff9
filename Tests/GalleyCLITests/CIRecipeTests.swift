import Foundation
import GalleyTestSupport
import Testing

/// The GitHub Actions recipe of docs/review.md, step by step as a runner runs it: its `run:`
/// steps in bash with the GITHUB_* variables set (its `uses:` steps, the artifact download and
/// upload, are done by hand), `galley` on the PATH being the built one.
@Suite struct CIRecipeTests {
    let command = GalleyCommandTests()

    /// The `run:` lines of the recipe's YAML block.
    static func recipeSteps() throws -> [String] {
        let doc = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/review.md"), encoding: .utf8)
        let start = try #require(doc.range(of: "GitHub Actions, on a pull request"))
        let block = try #require(doc[start.upperBound...].range(of: "```yaml\n"))
        let body = doc[block.upperBound...].prefix { _ in true }
        let end = try #require(body.range(of: "```"))
        return body[..<end.lowerBound].split(separator: "\n").compactMap { line in
            line.hasPrefix("- run: ") ? String(line.dropFirst("- run: ".count)) : nil
        }
    }

    /// Runs the steps in `folder` until one fails; the status of each step run.
    func runRecipe(in folder: ScratchFolder) throws -> [Int32] {
        let bin = folder.path("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: bin.appendingPathComponent("galley").path) {
            try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("galley"), withDestinationURL: GalleyCommandTests.binary)
        }
        let environment = ["GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": folder.url.path, "CI": "true",
                           "GITHUB_STEP_SUMMARY": folder.path("step-summary.md").path,
                           "PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        var statuses: [Int32] = []
        for step in try Self.recipeSteps() {
            let outcome = try PeerTools.run("/bin/bash", ["-e", "-c", step], in: folder.url, environment: environment)
            statuses.append(outcome.status)
            if outcome.status != 0 { break }
        }
        return statuses
    }

    @Test func theRecipesFirstRunWithoutABaselineMakesPreviewsAndSaysSo() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: [64]\n",
                                                  files: [Fixtures.pdf("rotated.pdf"), Fixtures.pdf("photo.pdf")])
        let steps = try Self.recipeSteps()
        #expect(steps.count >= 3 && steps[0].contains("--baseline baseline"), "\(steps)")
        // The download found no artifact: there is no baseline folder.
        #expect(try runRecipe(in: folder) == Array(repeating: 0, count: steps.count), "every step passes on a first run")
        #expect(FileManager.default.fileExists(atPath: folder.path("out/rotated/page-0001.png").path))
        let summary = try String(contentsOf: folder.path("step-summary.md"), encoding: .utf8)
        #expect(summary.contains("No baseline at baseline"), "\(summary)")
        #expect(summary.contains("Galley diff: no baseline"), "the recipe's cat step shows the note: \(summary)")

        // The next run has main's previews as its baseline: a changed page fails the last step.
        try FileManager.default.moveItem(at: folder.path("out"), to: folder.path("baseline"))
        try FileManager.default.removeItem(at: folder.path("docs/photo.pdf"))
        try FileManager.default.copyItem(at: Fixtures.pdf("landscape.pdf"), to: folder.path("docs/photo.pdf"))
        try FileManager.default.removeItem(at: folder.path("step-summary.md"))
        let statuses = try runRecipe(in: folder)
        #expect(statuses.dropLast().allSatisfy { $0 == 0 } && statuses.last == 1 && statuses.count == steps.count, "\(statuses)")
        let second = try String(contentsOf: folder.path("step-summary.md"), encoding: .utf8)
        #expect(second.contains("### Galley diff:") && !second.contains("no baseline"), "\(second)")
    }

    /// A `--baseline` folder that holds something else is a mistake, not a first run.
    @Test func aBaselineFolderWithoutAManifestIsStillAUsageError() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: []\n", files: [Fixtures.pdf("rotated.pdf")])
        try FileManager.default.createDirectory(at: folder.path("baseline"), withIntermediateDirectories: true)
        try "x".write(to: folder.path("baseline/notes.txt"), atomically: true, encoding: .utf8)
        #expect(try command.galley(["run", "--baseline", "baseline"], in: folder.url).status == 2)
    }
}
