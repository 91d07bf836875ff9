import ArgumentParser
import Foundation
import GalleyBase
import GalleyManifest
import GalleyPipeline

/// Where a run's CI reports go: GitHub annotations and step summary, a JUnit file.
enum AnnotationMode: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// `github` when `GITHUB_ACTIONS=true` (set by GitHub's runners), else none.
    case auto
    /// Workflow commands (`::error`, `::warning`) and, with `GITHUB_STEP_SUMMARY` set, a
    /// Markdown summary appended to that file.
    case github
    case none

    func resolved(_ environment: [String: String]) -> AnnotationMode {
        guard self == .auto else { return self }
        return environment["GITHUB_ACTIONS"] == "true" ? .github : .none
    }
}

/// Each document's wall time, from its start event to its finish event (events arrive on
/// the pipeline's threads, hence the lock).
final class DocumentTimer: Sendable {
    private let state = Mutex<(started: [String: Date], finished: [String: Double])>(([:], [:]))

    func handle(_ event: PipelineEvent) {
        switch event {
        case let .documentStarted(name, _, _, _):
            state.withLock { $0.started[name] = Date() }
        case let .documentFinished(name, _, _, _, _, _, _):
            state.withLock { state in
                if let start = state.started.removeValue(forKey: name) { state.finished[name] = Date().timeIntervalSince(start) }
            }
        case .pageFinished:
            break
        }
    }

    var durations: [String: Double] { state.withLock { $0.finished } }
}

/// Options for CI reports, shared by the commands that run the pipeline.
struct CIReportOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "CI annotations: auto, github or none.",
        discussion: "auto is github when GITHUB_ACTIONS=true: an ::error line per failed document and a ::warning per warning, and a Markdown summary appended to $GITHUB_STEP_SUMMARY when it is set."))
    var annotations: AnnotationMode = .auto

    @Option(name: .long, help: "Write a JUnit XML report to this file (a test case per document, a failure per failed document).",
            completion: .file(extensions: ["xml"]))
    var junit: String?

    /// Writes what was asked for. Annotations go to standard output, or to standard error
    /// when standard output carries JSON progress (GitHub reads workflow commands from both).
    /// A report that cannot be written is said on standard error and does not change the
    /// run's exit status: the run itself is done.
    func write(_ summary: RunSummary, durations: [String: Double], standardOutputIsJSON: Bool,
               environment: [String: String] = ProcessInfo.processInfo.environment) {
        let report = CIReport(summary: summary, durations: durations)
        let workspace = environment["GITHUB_WORKSPACE"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if annotations.resolved(environment) == .github {
            let lines = report.githubAnnotations(workspace: workspace).map { $0 + "\n" }.joined()
            (standardOutputIsJSON ? FileHandle.standardError : FileHandle.standardOutput).write(Data(lines.utf8))
            if let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty {
                append(report.markdown(workspace: workspace), to: path, what: "the step summary")
            }
        }
        // An interrupted run has no documents to report: no JUnit file rather than an empty one.
        if let junit, summary.manifest != nil { writeJUnit(report.junitXML(), to: junit) }
    }

    /// A run stopped before any document was counted (`failure`, exit 2 for a configuration
    /// mistake): an error annotation on the configuration file's line when there is one, the
    /// step summary and a JUnit file with one error, so a CI job shows why nothing was drawn.
    func writeStopped(_ failure: CommandFailure, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let workspace = environment["GITHUB_WORKSPACE"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let stopped = CIReport.Stopped(message: failure.message, status: failure.status, file: failure.file, line: failure.line)
        if annotations.resolved(environment) == .github {
            FileHandle.standardOutput.write(Data((stopped.githubAnnotation(workspace: workspace) + "\n").utf8))
            if let path = environment["GITHUB_STEP_SUMMARY"], !path.isEmpty {
                append(stopped.markdown(workspace: workspace), to: path, what: "the step summary")
            }
        }
        if let junit { writeJUnit(stopped.junitXML(), to: junit) }
    }

    private func writeJUnit(_ xml: String, to junit: String) {
        let path = junit.hasPrefix("/") ? junit : FileManager.default.currentDirectoryPath + "/" + junit
        do {
            try AtomicFile.write(Array(xml.utf8), to: path,
                                 through: PathText.parent(of: path) + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp")
        } catch {
            warn("the JUnit report \(path) could not be written: \(error)")
        }
    }

    /// Appends to the step summary file (GitHub gives each step its own, and other steps'
    /// tools append to it too, so it is never replaced).
    private func append(_ text: String, to path: String, what: String) {
        guard let handle = FileHandle(forWritingAtPath: path) ?? {
            FileManager.default.createFile(atPath: path, contents: nil) ? FileHandle(forWritingAtPath: path) : nil
        }() else {
            warn("\(what) \(path) could not be opened for writing")
            return
        }
        defer { try? handle.close() }
        do {
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            warn("\(what) \(path) could not be written: \(error)")
        }
    }

    private func warn(_ message: String) {
        FileHandle.standardError.write(Data("galley: \(message)\n".utf8))
    }
}
