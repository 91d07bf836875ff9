import CGalleyMuPDF

/// A PDF that cannot be opened or drawn, with MuPDF's message and the call that failed.
public struct PDFError: Error, CustomStringConvertible, Sendable {
    /// Why the document failed; a struct so callers can match codes and new ones can be added.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The file is damaged beyond what MuPDF can repair.
        public static let corrupt = Code(rawValue: "corrupt")
        /// The file is not a PDF at all.
        public static let notPDF = Code(rawValue: "not-pdf")
        /// The document is encrypted and no password was configured for it.
        public static let passwordRequired = Code(rawValue: "password-required")
        /// The configured password does not open the document.
        public static let wrongPassword = Code(rawValue: "wrong-password")
        /// The document opened but has no pages (a truncated file often "repairs" to this).
        public static let noPages = Code(rawValue: "no-pages")
        /// The file was cut short; MuPDF may have rebuilt some pages, but not all can be trusted.
        public static let truncated = Code(rawValue: "truncated")
        /// The file could not be read.
        public static let unreadable = Code(rawValue: "unreadable")
        /// A page could not be drawn.
        public static let renderFailed = Code(rawValue: "render-failed")
        /// An image has more pixels than the decoder accepts.
        public static let tooLarge = Code(rawValue: "too-large")
        /// MuPDF ran out of memory.
        public static let outOfMemory = Code(rawValue: "out-of-memory")
        /// The work was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
    }

    public var code: Code
    public var message: String
    /// The MuPDF operation that failed, e.g. `fz_open_document`.
    public var function: String

    public init(_ code: Code, _ message: String, function: String) {
        self.code = code
        self.message = message
        self.function = function
    }

    public var description: String { "\(message) (\(function))" }
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
func mupdfCall(_ function: String, code: PDFError.Code, _ body: (UnsafeMutablePointer<gm_error>) -> Int32) throws(PDFError) -> Int32 {
    var error = gm_error()
    let status = body(&error)
    guard status == 0 else {
        let mapped: PDFError.Code = switch Int(error.code) {
        case Int(GM_ERROR_ABORT): .cancelled
        case Int(GM_ERROR_MEMORY): .outOfMemory
        case Int(GM_ERROR_LIMIT): .tooLarge
        default: code
        }
        throw PDFError(mapped, error.text, function: function)
    }
    return status
}
