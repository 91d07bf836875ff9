import ArgumentParser
import Foundation
import GalleyBase
import GalleyPipeline
import GalleyRaster

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
              2    bad configuration or usage, the output folder in use by another galley,
                   or inputs with no document (run --allow-empty accepts that)
              130  interrupted (Ctrl-C); no partial files are left behind
            galley diff: 0 nothing changed, 1 something changed, 2 bad usage.
            """,
        version: Pipeline.versionDescription,
        subcommands: [Run.self, Thumbs.self, Watch.self, Typeset.self, Inspect.self, Plan.self, Merge.self, Render.self, Thumbnail.self, Diff.self])

    /// Exit statuses shared by every subcommand.
    enum Status {
        static let someFailed: Int32 = 1
        /// `galley diff`: something changed beyond the limits.
        static let changed: Int32 = 1
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

    /// Runs the command; every error it throws ends the process through ArgumentParser.
    static func main() {
        // A file-size limit (`ulimit -f`) kills a process that writes past it with SIGXFSZ;
        // ignored, the write fails with EFBIG instead and is reported like a full disk: the
        // document fails as write-failed and the others complete.
        signal(SIGXFSZ, SIG_IGN)
        FreedMemory.limitArenas(toCores: ProcessInfo.processInfo.activeProcessorCount)
        FreedMemory.reuseLargeBlocks()
        if CrashRestart.restarts > 0 {
            // The crashed image's signal mask carries over through execve, and a worker thread's
            // blocks SIGINT and SIGTERM: unblocked, so the restarted run can be interrupted.
            var none = sigset_t()
            sigemptyset(&none)
            sigprocmask(SIG_SETMASK, &none, nil)
        }
        do {
            var command = try parseAsRoot()
            // The commands that run the pipeline restart after a crash (CrashRestart).
            if command is Run || command is Thumbs || command is Watch { CrashRestart.install() }
            try command.run()
        } catch {
            exit(withError: reported(error))
        }
    }

    /// What to hand ArgumentParser for `error`, once printed: a command's failure as
    /// `galley: message` with its status, and argument errors with status 2 as DESIGN.md
    /// promises (ArgumentParser's own default for them is 64).
    static func reported(_ error: any Error) -> any Error {
        if let failure = error as? CommandFailure {
            FileHandle.standardError.write(Data((Escape.terminal("galley: \(failure.message)") + "\n").utf8))
            return ExitCode(failure.status)
        }
        guard exitCode(for: error) == .validationFailure else { return error }
        FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
        return ExitCode(Status.usage)
    }

    /// The configuration file at `path` (relative to the current folder), loaded.
    ///
    /// Without the file the defaults apply, but only when `defaultsWithoutFile` and `path` is
    /// the default name (a file the user named must exist); otherwise a missing file is bad
    /// usage, and `hint` says what to pass instead.
    /// Refuses a `--format` that names no image format.
    static func validateFormat(_ format: String?) throws {
        guard let format, ImageFormat(rawValue: format) == nil else { return }
        throw ValidationError("--format \(format): use one of \(ImageFormat.allCases.map(\.rawValue).joined(separator: ", "))")
    }

    static func loadConfiguration(_ path: String, defaultsWithoutFile: Bool = true, hint: String? = nil) throws(CommandFailure) -> Configuration {
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
        guard FileManager.default.fileExists(atPath: url.path) else {
            guard path == "pipeline.yml", defaultsWithoutFile else {
                var failure = CommandFailure("\(url.path): no such configuration file" + (hint.map { "; \($0)" } ?? ""))
                failure.file = url.path
                throw failure
            }
            return Configuration()
        }
        return try CommandFailure.catching { try Configuration.load(file: url) }
    }
}

/// What the shell completions offer for Galley's kinds of values (`galley --generate-completion-script`).
extension CompletionKind {
    /// File names, folders included; `.yml` and `.yaml` files first where the shell can filter.
    static var configurationFile: CompletionKind { .file(extensions: ["yml", "yaml"]) }
    /// `png`, `webp`, `jpeg`, `avif`.
    static var imageFormats: CompletionKind { .list(ImageFormat.allCases.map(\.rawValue)) }
}
