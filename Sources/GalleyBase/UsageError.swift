/// An option, argument or command that cannot be used as given: what the user gave and what
/// is allowed. A setting read from `pipeline.yml` is a `ConfigurationError` instead, which names
/// the file and line.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    /// What the user gave: an option (`--shard`), an argument (a shard's output folder), a
    /// command (`merge`) or what it needs (`watch`).
    public var subject: String
    public var message: String

    public init(subject: String, message: String) {
        self.subject = subject
        self.message = message
    }

    public var description: String { "\(subject): \(message)" }
}
