import GalleyBase

/// A failure to allocate, draw, encode or decode an image, with a code of the one failure
/// vocabulary (`invalidSize`, `encodeFailed`, `decodeFailed`).
public struct RasterError: Error, CustomStringConvertible, Sendable, FailureConvertible {
    public var code: Failure.Code
    public var message: String

    public init(_ code: Failure.Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// An encoder's failure is `encode-failed`, a page its format cannot hold
    /// `too-large-for-format`; a bitmap that cannot be made or read stopped a page from being
    /// drawn.
    public var failure: Failure {
        switch code {
        case .encodeFailed, .tooLargeForFormat: Failure(code: code, message: message)
        default: Failure(code: .renderFailed, message: message)
        }
    }
}
