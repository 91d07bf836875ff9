import Foundation
import GalleyBase

/// A finished run told in the forms CI systems show: GitHub Actions workflow commands
/// (an annotation per failed document and per warning), a Markdown summary for the job's page
/// (`$GITHUB_STEP_SUMMARY`), and a JUnit XML report, which GitLab, Jenkins and Azure Pipelines
/// show as test results (a test case per document, a failure per failed document).
///
/// Everything comes from the run's manifest, plus the source files' paths and each document's
/// wall time, which the manifest does not hold. Documents are listed in the manifest's order,
/// so equal runs give equal reports but for their times.
public struct CIReport: Sendable {
    /// What the report tells of a finished run (the pipeline's `RunSummary` gives it).
    public struct Run: Sendable {
        /// The manifest written (absent when interrupted).
        public var manifest: Manifest?
        public var outputFolder: URL
        public var duration: Double
        /// Outputs drawn and encoded by the run, and kept from an earlier one.
        public var drawnOutputs: Int
        public var reusedOutputs: Int
        /// Each document's source file, by document name (`Manifest.Document.name`).
        public var sources: [String: URL]
        /// Why the manifest could not be written, when it could not.
        public var manifestError: String?
        /// `--baseline` named a folder that is missing or empty: the note saying nothing was compared.
        public var baselineNote: String?

        public init(manifest: Manifest?, outputFolder: URL, duration: Double, drawnOutputs: Int, reusedOutputs: Int,
                    sources: [String: URL], manifestError: String?, baselineNote: String?) {
            self.manifest = manifest
            self.outputFolder = outputFolder
            self.duration = duration
            self.drawnOutputs = drawnOutputs
            self.reusedOutputs = reusedOutputs
            self.sources = sources
            self.manifestError = manifestError
            self.baselineNote = baselineNote
        }
    }

    public var summary: Run
    /// Seconds from a document's start to its finish, by document name (unchanged documents,
    /// which are not drawn, have none).
    public var durations: [String: Double]

    public init(run: Run, durations: [String: Double] = [:]) {
        summary = run
        self.durations = durations
    }

    private var documents: [Manifest.Document] { summary.manifest?.documents ?? [] }

    /// A document's source file: relative to `workspace` when it lies inside it (GitHub attaches
    /// annotations to files by their path in the repository), else absolute.
    public func path(of document: Manifest.Document, relativeTo workspace: URL?) -> String {
        let path = summary.sources[document.name]?.path ?? document.source
        guard let workspace else { return path }
        let root = workspace.standardizedFileURL.path
        return FilePaths.path(path, isInside: root) && path.count > root.count ? String(path.dropFirst(root.count + 1)) : path
    }

    // MARK: GitHub Actions

    /// `::error file=PATH,title=galley: CODE::MESSAGE` for every failed document and
    /// `::warning file=PATH,title=galley::WARNING` for every warning, as GitHub's workflow
    /// commands spell them (`%`, CR and LF escaped in the message; `:` and `,` too in
    /// properties).
    public func githubAnnotations(workspace: URL?) -> [String] {
        var lines: [String] = []
        for document in documents {
            let file = Self.escapeProperty(path(of: document, relativeTo: workspace))
            if document.status == .failed, let error = document.error {
                let page = error.page.map { " (page \($0))" } ?? ""
                lines.append("::error file=\(file),title=\(Self.escapeProperty("galley: \(error.code.rawValue)"))::"
                             + Self.escapeData("\(document.source)\(page): \(error.message)"))
            }
            for warning in document.warnings {
                lines.append("::warning file=\(file),title=galley::" + Self.escapeData("\(document.source): \(warning)"))
            }
        }
        if let note = summary.baselineNote { lines.append("::notice title=galley::" + Self.escapeData(note)) }
        return lines
    }

    static func escapeData(_ text: String) -> String { Escape.workflowData(text) }

    static func escapeProperty(_ text: String) -> String { Escape.workflowProperty(text) }

    // MARK: Markdown

    /// The job summary: totals, the failed documents with their reasons, documents with
    /// warnings, the slowest documents, and where the previews are.
    public func markdown(workspace: URL?, slowest: Int = 5) -> String {
        guard let manifest = summary.manifest else {
            return "### Galley: interrupted\n\nThe run was interrupted after \(Self.seconds(summary.duration)); no manifest was written.\n"
        }
        let totals = manifest.totals
        let icon = totals.failed > 0 ? "❌" : "✅"
        var text = "### \(icon) Galley: \(totals.documents) documents, \(totals.failed) failed\n\n"
        text += "| documents | ok | failed | unchanged | pages | images drawn | reused | time |\n"
        text += "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
        text += "| \(totals.documents) | \(totals.ok) | \(totals.failed) | \(totals.unchanged) | \(totals.pages) | "
            + "\(summary.drawnOutputs) | \(summary.reusedOutputs) | \(Self.seconds(summary.duration)) |\n"
        let failed = documents.filter { $0.status == .failed }
        if !failed.isEmpty {
            text += "\n#### Failed documents\n\n| document | code | reason |\n| --- | --- | --- |\n"
            for document in failed {
                let error = document.error
                let page = error?.page.map { " (page \($0))" } ?? ""
                text += "| \(Self.code(path(of: document, relativeTo: workspace))) | `\(error?.code.rawValue ?? "?")` | "
                    + "\(Self.cell((error?.message ?? "") + page)) |\n"
            }
        }
        let warned = documents.filter { !$0.warnings.isEmpty }
        if !warned.isEmpty {
            text += "\n<details><summary>\(warned.count) document\(warned.count == 1 ? "" : "s") with warnings</summary>\n\n"
            text += "| document | warning |\n| --- | --- |\n"
            for document in warned {
                for warning in document.warnings {
                    text += "| \(Self.code(path(of: document, relativeTo: workspace))) | \(Self.cell(warning)) |\n"
                }
            }
            text += "\n</details>\n"
        }
        let timed = documents.compactMap { document in durations[document.name].map { (document, $0) } }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.name < $1.0.name }.prefix(slowest)
        if !timed.isEmpty {
            text += "\n#### Slowest documents\n\n| document | pages | seconds |\n| --- | ---: | ---: |\n"
            for (document, seconds) in timed {
                text += "| \(Self.code(path(of: document, relativeTo: workspace))) | \(document.pages.count) | "
                    + String(format: "%.2f", seconds) + " |\n"
            }
        }
        if let note = summary.baselineNote { text += "\n\(Self.cell(note.prefix(1).uppercased() + note.dropFirst())).\n" }
        let output = summary.outputFolder.path
        text += "\nPreviews in \(Self.code(output)): the contact sheet \(Self.code(output + "/index.html")), the manifest \(Self.code(output + "/manifest.json")).\n"
        if let error = summary.manifestError { text += "\n**The manifest could not be written:** \(Self.cell(error))\n" }
        return text
    }

    /// Text safe inside a Markdown table cell (`Escape.markdown`).
    static func cell(_ text: String) -> String { Escape.markdown(text) }

    /// A name in a Markdown table cell, shown as it is (`Escape.markdownCode`).
    static func code(_ text: String) -> String { Escape.markdownCode(text) }

    static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

    // MARK: A run that stopped

    /// A run stopped before any document was counted: a configuration mistake or bad usage
    /// (exit 2), told in the same three forms, so a CI job that says "see the annotations and
    /// the job summary" has something there.
    public struct Stopped: Sendable {
        public var message: String
        public var status: Int32
        /// The configuration file and line at fault, when known.
        public var file: String?
        public var line: Int?

        public init(message: String, status: Int32, file: String?, line: Int?) {
            self.message = message
            self.status = status
            self.file = file
            self.line = line
        }

        private func relative(_ path: String, to workspace: URL?) -> String {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            guard let root = workspace?.standardizedFileURL.path, FilePaths.path(absolute, isInside: root), absolute.count > root.count else { return path }
            return String(absolute.dropFirst(root.count + 1))
        }

        /// `::error file=docs/pipeline.yml,line=3,title=galley: configuration::MESSAGE`.
        public func githubAnnotation(workspace: URL?) -> String {
            var properties: [String] = []
            if let file { properties.append("file=" + CIReport.escapeProperty(relative(file, to: workspace))) }
            if let line { properties.append("line=\(line)") }
            properties.append("title=" + CIReport.escapeProperty("galley: \(file != nil ? "configuration" : "usage")"))
            return "::error " + properties.joined(separator: ",") + "::" + CIReport.escapeData(message)
        }

        public func markdown(workspace: URL?) -> String {
            var text = "### ❌ Galley: stopped before drawing anything (exit status \(status))\n\n"
            if let file { text += "In \(CIReport.code(relative(file, to: workspace) + (line.map { ":\($0)" } ?? ""))):\n\n" }
            text += "> \(CIReport.cell(message))\n\nFix the configuration or the command line and run again; no previews were written.\n"
            return text
        }

        /// One test case, `configuration` (or `usage`), with an error.
        public func junitXML() -> String {
            let kind = file != nil ? "configuration" : "usage"
            return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                + "<testsuites name=\"galley\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"0.000\">\n"
                + "  <testsuite name=\"galley run\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\" time=\"0.000\">\n"
                + "    <testcase classname=\"galley\" name=\"\(kind)\" time=\"0.000\">\n"
                + "      <error type=\"\(kind)\" message=\"\(CIReport.xml(message))\">\(CIReport.xml(message))</error>\n"
                + "    </testcase>\n  </testsuite>\n</testsuites>\n"
        }
    }

    // MARK: JUnit

    /// A JUnit XML report: one test suite, a test case per document (class name: its input;
    /// name: its path under the input), a `failure` with the code and message for each failed
    /// document, warnings as the case's `system-out`.
    public func junitXML() -> String {
        let failures = documents.filter { $0.status == .failed }.count
        let time = String(format: "%.3f", summary.duration)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"galley\" tests=\"\(documents.count)\" failures=\"\(failures)\" errors=\"0\" time=\"\(time)\">\n"
        xml += "  <testsuite name=\"galley run\" tests=\"\(documents.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\" time=\"\(time)\">\n"
        for document in documents {
            let seconds = String(format: "%.3f", durations[document.name] ?? 0)
            xml += "    <testcase classname=\"\(Self.xml(document.input))\" name=\"\(Self.xml(document.source))\" time=\"\(seconds)\""
            var body = ""
            if document.status == .failed, let error = document.error {
                let page = error.page.map { "page \($0): " } ?? ""
                body += "      <failure type=\"\(Self.xml(error.code.rawValue))\" message=\"\(Self.xml(page + error.message))\">"
                    + Self.xml("\(error.code.rawValue): \(page)\(error.message)") + "</failure>\n"
            }
            var out: [String] = []
            if document.status == .unchanged { out.append("unchanged since the last run") }
            out += document.warnings.map { "warning: \($0)" }
            if !out.isEmpty { body += "      <system-out>\(Self.xml(out.joined(separator: "\n")))</system-out>\n" }
            xml += body.isEmpty ? "/>\n" : ">\n\(body)    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Text escaped for XML content and attributes; characters XML 1.0 cannot hold (controls
    /// other than tab, LF and CR, lone surrogates cannot occur in a Swift string) become U+FFFD.
    static func xml(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result += "&#\(scalar.value);"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    result += "\u{FFFD}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
