import ArgumentParser
import Foundation
import GalleyBase
import GalleyDiff
import GalleyPipeline

/// `galley diff`: what changed between two runs, page by page.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare two runs' outputs: which documents and pages changed, where on the page, and by how much.",
        discussion: """
            BASE and NEW are output folders of two runs (or their manifest.json). Documents are matched by name, pages by \
            number (articles within their layout); a page whose image has the same SHA-256 is unchanged without being read. \
            Writes diff.json, index.html (the review page), summary.md (for $GITHUB_STEP_SUMMARY) and summary.txt, and \
            for every changed page a diff image and before/after pictures, into --output (default NEW/diff).

            Exit status: 0 nothing changed beyond the limits, 1 something changed, 2 bad usage (or the diff folder \
            cannot be written).
            """)

    @Argument(help: "The earlier run: its output folder or manifest.json.", completion: .file())
    var base: String

    @Argument(help: "The later run: its output folder or manifest.json.", completion: .file())
    var new: String

    @Option(name: .long, help: "Folder for the report, review page and pictures (default NEW/diff).", completion: .directory)
    var output: String?

    @OptionGroup var settings: DiffSettings

    @Option(name: .long, help: "Pages compared at once (1...256; default: the cores).")
    var jobs: Int?

    func validate() throws {
        if let jobs, !Configuration.workerRange.contains(jobs) { throw ValidationError("--jobs \(jobs) is outside 1...256") }
    }

    func run() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let url = { (path: String) in URL(fileURLWithPath: path, relativeTo: cwd).standardizedFileURL }
        let options = settings.options(workers: jobs ?? ProcessInfo.processInfo.activeProcessorCount)
        let report: DiffReport
        let folder: URL
        do {
            let baseRun = try RunOutputs(at: url(base)), newRun = try RunOutputs(at: url(new))
            folder = output.map(url) ?? newRun.folder.appendingPathComponent(RunDiff.defaultFolder, isDirectory: true)
            report = try RunDiff.diff(base: baseRun, new: newRun, output: folder, options: options, labels: (base, new))
        } catch {
            // A run that cannot be read and a diff folder that cannot be written are both for
            // the user to fix; status 1 is kept for "something changed".
            throw CommandFailure("\(error)")
        }
        print(DiffSummary.text(report).split(separator: "\n", omittingEmptySubsequences: false).map { Escape.terminal(String($0)) }
                  .joined(separator: "\n"), terminator: "")
        print("galley: review page: \(folder.appendingPathComponent(RunDiff.reviewPageName).path)")
        if report.outcome == .changed { throw ExitCode(Galley.Status.changed) }
    }
}

/// How two runs are compared: options of `galley diff`, and of `galley run --baseline`.
struct DiffSettings: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Smallest colour distance that counts as a change, 0...1 (pixelmatch's threshold).",
        discussion: "0 compares exactly: every differing pixel counts, anti-aliased edges too."))
    var threshold: Double = 0.1

    @Option(name: .long, help: "A page with at most this many changed pixels counts as unchanged.")
    var maxChangedPixels: Int?

    @Option(name: .long, help: "A page with at most this fraction (0...1) of its pixels changed counts as unchanged.")
    var maxChangedFraction: Double?

    @Flag(name: .long, help: "Compare the words of changed pages too (from the runs' text documents: documents: [text]).")
    var text = false

    func validate() throws {
        if !DiffOptions.thresholdRange.contains(threshold) { throw ValidationError("--threshold \(threshold) is outside 0...1") }
        if let maxChangedPixels, maxChangedPixels < 0 { throw ValidationError("--max-changed-pixels must be 0 or more") }
        if let maxChangedFraction, !(0...1).contains(maxChangedFraction) {
            throw ValidationError("--max-changed-fraction \(maxChangedFraction) is outside 0...1")
        }
    }

    func options(workers: Int) -> DiffOptions {
        DiffOptions(threshold: threshold, maxChangedPixels: maxChangedPixels, maxChangedFraction: maxChangedFraction, text: text,
                    workers: workers)
    }
}
