import GalleyBase

/// Why an article could not be typeset, with a code of the one failure vocabulary
/// (`noText`, `columnTooSmall`, `fontMissing`, `cancelled`).
public struct TypesetError: Error, Sendable, Equatable, CustomStringConvertible, FailureConvertible {
    public var code: Failure.Code
    public var message: String

    public init(_ code: Failure.Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    public var failure: Failure { Failure(code: code, message: message) }
}
