import Foundation
import GalleyTestSupport
import Testing

/// The composite GitHub Action (`action.yml`): its shell steps run as GitHub's runner runs them
/// (`scripts/run-action.py` fills the inputs and step outputs and sets the GITHUB_* variables),
/// with the built galley given as the binary.
@Suite struct ActionTests {
    let command = GalleyCommandTests()

    struct Step: Decodable {
        var name: String
        var ran: Bool
        var status: Int32?
        var stdout: String?
        var outputs: [String: String]?
        var uses: String?
        var with: [String: String]?
    }

    func runAction(in folder: ScratchFolder, inputs: [String: String]) throws -> [String: Step] {
        let inputFile = folder.path("inputs.json")
        try JSONSerialization.data(withJSONObject: inputs.merging(["galley": GalleyCommandTests.binary.path]) { a, _ in a })
            .write(to: inputFile)
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/run-action.py").path
        let outcome = try PeerTools.run("python3", [script, folder.url.path, inputFile.path])
        try #require(outcome.status == 0, "\(outcome.stderr)")
        struct Report: Decodable { var steps: [Step] }
        let report = try JSONDecoder().decode(Report.self, from: Data(outcome.stdout.utf8))
        return Dictionary(uniqueKeysWithValues: report.steps.map { ($0.name, $0) })
    }

    @Test func theActionRunsGalleyAnnotatesUploadsAndFailsTheStepOnAFailedDocument() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: [64]\n",
                                                  files: [Fixtures.pdf("article.pdf"), Fixtures.brokenFolder.appendingPathComponent("garbage.pdf")])
        let steps = try runAction(in: folder, inputs: ["output": "previews", "args": "--pages first"])
        let run = try #require(steps["Run Galley"])
        #expect(run.ran && run.status == 0, "the run step records galley's status rather than failing")
        #expect(run.outputs?["status"] == "1")
        #expect(run.stdout?.contains("::error file=docs/garbage.pdf,title=galley%3A not-pdf::") == true, "\(run.stdout ?? "")")
        let manifest = try Data(contentsOf: folder.path("previews/manifest.json"))
        let object = try JSONSerialization.jsonObject(with: manifest) as? [String: Any]
        #expect((object?["settings"] as? [String: Any])?["pages"] as? String == "1", "--pages first from args")
        let summary = try String(contentsOf: folder.path("summary.md"), encoding: .utf8)
        #expect(summary.contains("2 documents, 1 failed"), "\(summary)")
        let upload = try #require(steps["Upload the previews"])
        #expect(upload.ran && upload.uses == "actions/upload-artifact@v4" && upload.with?["path"] == "previews")
        let fail = try #require(steps["Fail when galley failed"])
        #expect(fail.ran && fail.status == 1)

        let lenient = try runAction(in: folder, inputs: ["output": "previews", "fail-on-error": "false"])
        #expect(lenient["Fail when galley failed"]?.ran == false)
        #expect(lenient["Upload the previews"]?.ran == true)
    }

    /// With a baseline (main's previews, downloaded), the run compares with it as its last
    /// stage: the diff goes into the uploaded folder, and a change does not fail the step.
    @Test func aBaselineIsComparedAndAChangeDoesNotFailTheStep() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: [64]\n",
                                                  files: [Fixtures.pdf("rotated.pdf"), Fixtures.pdf("photo.pdf")])
        let base = try runAction(in: folder, inputs: ["output": "base"])
        #expect(base["Run Galley"]?.outputs?["status"] == "0")
        try FileManager.default.removeItem(at: folder.path("docs/photo.pdf"))
        try FileManager.default.copyItem(at: Fixtures.pdf("landscape.pdf"), to: folder.path("docs/photo.pdf"))
        let steps = try runAction(in: folder, inputs: ["output": "new", "baseline": "base"])
        #expect(steps["Run Galley"]?.outputs?["status"] == "0", "\(steps["Run Galley"]?.stdout ?? "")")
        #expect(steps["Fail when galley failed"]?.ran == false)
        #expect(FileManager.default.fileExists(atPath: folder.path("new/diff/diff.json").path))
        #expect(steps["Upload the previews"]?.with?["path"] == "new")
    }

    /// A repository's first run: the baseline download found nothing, so the folder is missing.
    @Test func aFirstRunWithoutTheBaselineFolderPassesAndSaysSo() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: []\n", files: [Fixtures.pdf("rotated.pdf")])
        let steps = try runAction(in: folder, inputs: ["output": "previews", "baseline": "baseline"])
        let run = try #require(steps["Run Galley"])
        #expect(run.outputs?["status"] == "0", "\(run.stdout ?? "")")
        #expect(run.stdout?.contains("::notice title=galley::no baseline at baseline") == true, "\(run.stdout ?? "")")
        #expect(steps["Fail when galley failed"]?.ran == false)
        #expect(FileManager.default.fileExists(atPath: folder.path("previews/rotated/page-0001.png").path))
        let summary = try String(contentsOf: folder.path("summary.md"), encoding: .utf8)
        #expect(summary.contains("No baseline at baseline"), "\(summary)")
    }

    @Test func aCleanRunPassesTheStep() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\ndpi: 30\nthumbnails: []\n", files: [Fixtures.pdf("rotated.pdf")])
        let steps = try runAction(in: folder, inputs: [:])
        #expect(steps["Set up Galley"]?.status == 0)
        #expect(steps["Run Galley"]?.outputs?["status"] == "0")
        #expect(steps["Fail when galley failed"]?.ran == false)
        #expect(FileManager.default.fileExists(atPath: folder.path("galley-out/rotated/page-0001.png").path))
    }
}
