import CGalleyMuPDF
import GalleyBase

/// A PDF that cannot be opened or drawn, with a code of the one failure vocabulary, MuPDF's
/// message and the call that failed.
public struct PDFError: Error, CustomStringConvertible, Sendable, FailureConvertible {
    public var code: Failure.Code
    public var message: String
    /// The MuPDF operation that failed, e.g. `fz_open_document`.
    public var function: String

    public init(_ code: Failure.Code, _ message: String, function: String) {
        self.code = code
        self.message = message
        self.function = function
    }

    /// The message; the MuPDF call that failed is the failure's `detail`, not part of what a
    /// user reads.
    public var description: String { message }

    public var failure: Failure { Failure(code: code, message: message, detail: function) }
}

extension gm_error {
    var text: String {
        withUnsafeBytes(of: message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// Calls a shim function and turns its failure into a `PDFError`, recording which MuPDF
/// operation failed. The single place where MuPDF's status codes become Swift errors.
@discardableResult
func mupdfCall(_ function: String, code: Failure.Code, _ body: (UnsafeMutablePointer<gm_error>) -> Int32) throws(PDFError) -> Int32 {
    var error = gm_error()
    let status = body(&error)
    guard status == 0 else {
        let mapped: Failure.Code = switch Int(error.code) {
        case Int(GM_ERROR_ABORT): .cancelled
        case Int(GM_ERROR_MEMORY): .outOfMemory
        case Int(GM_ERROR_LIMIT): .tooLarge
        default: code
        }
        throw PDFError(mapped, error.text, function: function)
    }
    return status
}
