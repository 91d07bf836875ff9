/// A failure to allocate, draw, encode or decode an image.
public struct RasterError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure; a struct so new codes do not break callers that match on them.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The requested image size is empty or too large.
        public static let invalidSize = Code(rawValue: "invalid-size")
        /// The PNG encoder failed.
        public static let encodeFailed = Code(rawValue: "encode-failed")
        /// The bytes are not a readable PNG.
        public static let decodeFailed = Code(rawValue: "decode-failed")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
