/// Why a document, or one page of it, failed: a stable code to match on, the reason in words,
/// and the page when the failure concerns one page. The manifest records it as a document's
/// `error`; every module's error type becomes one through `FailureConvertible`.
public struct Failure: Error, Codable, Sendable, Hashable, CustomStringConvertible {
    /// A stable, kebab-case failure code: the one vocabulary of the project. Every code any
    /// module reports is a constant here; a struct rather than an enum so that callers matching
    /// on codes keep compiling when codes are added (as GRDB's `ResultCode`).
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }

        // MARK: PDFs

        /// Not a PDF at all (no `%PDF` header), or an empty file.
        public static let notPDF = Code(rawValue: "not-pdf")
        /// Damaged beyond what MuPDF can repair.
        public static let corrupt = Code(rawValue: "corrupt")
        /// Cut short: MuPDF may have rebuilt some pages, but not all can be trusted.
        public static let truncated = Code(rawValue: "truncated")
        /// The document opens but has no pages.
        public static let noPages = Code(rawValue: "no-pages")
        /// The page tree claims more pages than it holds (a /Count that is a lie).
        public static let impossiblePageTree = Code(rawValue: "impossible-page-tree")
        /// Encrypted, and no password is configured for it.
        public static let passwordRequired = Code(rawValue: "password-required")
        /// The configured password does not open it.
        public static let wrongPassword = Code(rawValue: "wrong-password")

        // MARK: Any document

        /// The file cannot be read.
        public static let unreadable = Code(rawValue: "unreadable")
        /// A page could not be drawn.
        public static let renderFailed = Code(rawValue: "render-failed")
        /// A page's pixels could not be encoded.
        public static let encodeFailed = Code(rawValue: "encode-failed")
        /// An output file could not be written.
        public static let writeFailed = Code(rawValue: "write-failed")
        /// A page took longer than `page_timeout` to record, draw or typeset.
        public static let timedOut = Code(rawValue: "timed-out")
        /// MuPDF ran out of memory.
        public static let outOfMemory = Code(rawValue: "out-of-memory")
        /// A page or image has more pixels than MuPDF accepts.
        public static let tooLarge = Code(rawValue: "too-large")
        /// A page has more pixels than the configured image format holds, or than Galley
        /// encodes in it (WebP and AVIF need the whole page in memory).
        public static let tooLargeForFormat = Code(rawValue: "too-large-for-format")
        /// Reached through a symbolic link that leads outside every input folder (and
        /// `follow_symlinks` is off): not read.
        public static let outsideInput = Code(rawValue: "outside-input")
        /// Its file name is not valid UTF-8, so it cannot be named in the manifest: not read,
        /// reported by its name as `ls -b` shows it.
        public static let invalidName = Code(rawValue: "invalid-name")
        /// Galley stopped (the process died) while working on this content in two earlier runs;
        /// it is skipped until its content changes, so it cannot stop every later run too.
        public static let crashed = Code(rawValue: "crashed")

        // MARK: Articles

        /// An article with no text to lay out (an empty file, only tags).
        public static let noText = Code(rawValue: "no-text")
        /// A `.html`/`.txt` file that holds binary data.
        public static let notText = Code(rawValue: "not-text")
        /// A layout's column cannot hold one line, or one character, of the article.
        public static let columnTooSmall = Code(rawValue: "column-too-small")
        /// No usable font: fontconfig found none, or a font file cannot be read.
        public static let fontMissing = Code(rawValue: "font-missing")

        // MARK: Never in a manifest

        /// The work was cancelled (Ctrl-C, or a time limit that reports `timedOut` instead).
        public static let cancelled = Code(rawValue: "cancelled")
        /// A bitmap's size is empty or over the memory limit (reported as `renderFailed`).
        public static let invalidSize = Code(rawValue: "invalid-size")
        /// Bytes that are not a readable image (reading back a PNG; never a document's failure).
        public static let decodeFailed = Code(rawValue: "decode-failed")

        /// Every code a manifest may carry, in the order docs/guide.md's table lists them.
        public static let documented: [Code] = [
            .notPDF, .corrupt, .truncated, .noPages, .impossiblePageTree, .passwordRequired, .wrongPassword, .unreadable,
            .renderFailed, .encodeFailed, .writeFailed, .timedOut, .outOfMemory, .tooLarge, .tooLargeForFormat, .outsideInput, .invalidName, .crashed,
            .noText, .notText, .columnTooSmall, .fontMissing,
        ]
    }

    public var code: Code
    /// The reason in words, for the user: never a C library's function name.
    public var message: String
    /// The page (1-based) the failure happened on, when it concerns one page.
    public var page: Int?
    /// Technical detail for whoever debugs it: the library call that failed
    /// (`fz_open_document`). The manifest keeps it; messages shown to users leave it out.
    public var detail: String?

    public init(code: Code, message: String, page: Int? = nil, detail: String? = nil) {
        self.code = code
        self.message = message
        self.page = page
        self.detail = detail
    }

    /// A failure from any stage's error, with a stable code: a `Failure` stays as it is (it
    /// already names its page), an error that knows its failure (`FailureConvertible`) gives
    /// it on `page`, anything else is a page that could not be drawn.
    public init(_ error: any Error, page: Int? = nil) {
        if let failure = error as? Failure {
            self = failure
        } else if let error = error as? any FailureConvertible {
            self = error.failure
            self.page = page
        } else {
            self.init(code: .renderFailed, message: "\(error)", page: page)
        }
    }

    public var description: String {
        page.map { "\(code): page \($0): \(message)" } ?? "\(code): \(message)"
    }
}

/// An error that knows the failure it means for a document: each module's error type says,
/// beside its own definition, which code of the one vocabulary it reports.
public protocol FailureConvertible: Error {
    /// The failure recorded for the document (without a page; the stage adds the page).
    var failure: Failure { get }
}
