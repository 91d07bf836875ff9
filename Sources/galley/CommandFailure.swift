import GalleyBase
import GalleyPipeline

/// Why a command stops before it finishes: `Galley.main` prints `galley: <message>` on standard
/// error and exits with `status`.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var status: Int32
    /// The configuration file at fault and the line, when a setting in it is (for a CI
    /// annotation on that line).
    var file: String?
    var line: Int?

    /// Bad configuration or usage unless `status` says otherwise.
    init(_ message: String, status: Int32 = Galley.Status.usage) {
        self.message = message
        self.status = status
    }

    /// What stopped a run or a merge before any document could be counted: a setting or option
    /// to fix is bad configuration or usage; anything else (a manifest that cannot be written)
    /// exits as a failure.
    init(stopping error: any Error) {
        let usage = error is ConfigurationError || error is UsageError
        self.init("\(error)", status: usage ? Galley.Status.usage : Galley.Status.someFailed)
        if let error = error as? ConfigurationError { (file, line) = (error.file, error.line) }
    }

    var description: String { message }

    /// `body`'s result; whatever it throws stops the command as bad configuration or usage.
    static func catching<T>(_ body: () throws -> T) throws(CommandFailure) -> T {
        do {
            return try body()
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            var failure = CommandFailure("\(error)")
            if let error = error as? ConfigurationError { (failure.file, failure.line) = (error.file, error.line) }
            throw failure
        }
    }
}
