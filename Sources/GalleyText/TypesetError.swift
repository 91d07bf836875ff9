/// Why an article could not be typeset.
public struct TypesetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable code to match on; also the manifest's failure code.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The article has no text to lay out.
        public static let noText = Code(rawValue: "no-text")
        /// A column is too small to hold a single line of the article.
        public static let columnTooSmall = Code(rawValue: "column-too-small")
        /// No usable font: fontconfig found nothing, or a font file cannot be read.
        public static let fontUnreadable = Code(rawValue: "font-missing")
        /// Typesetting or drawing was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
