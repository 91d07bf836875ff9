import ArgumentParser
import Foundation
import GalleyPipeline

/// The `galley` command: parses options and hands over to the pipeline.
@main
struct Galley: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "galley",
        abstract: "Turn folders of PDFs and HTML articles into page images, thumbnails and a JSON manifest.",
        discussion: """
            Exit status:
              0    every document succeeded
              1    one or more documents failed (the others completed; see manifest.json)
              2    bad configuration or usage
              130  interrupted (Ctrl-C); no partial files are left behind
            """,
        version: Pipeline.version,
        subcommands: [Run.self, Thumbs.self, Watch.self, Typeset.self, Inspect.self, Merge.self])

    /// Exit statuses shared by every subcommand.
    enum Status {
        static let someFailed: Int32 = 1
        static let usage: Int32 = 2
        static let interrupted: Int32 = 130

        /// The status a run's outcome exits with.
        static func code(for outcome: RunSummary.Outcome) -> Int32 {
            switch outcome {
            case .succeeded: 0
            case .someFailed: someFailed
            case .interrupted: interrupted
            }
        }
    }

    /// Runs the command, mapping argument errors to exit status 2 as DESIGN.md promises
    /// (ArgumentParser's own default for them is 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                FileHandle.standardError.write(Data((message + "\n").utf8))
                Foundation.exit(Status.usage)
            }
            exit(withError: error)
        }
    }
}
