/// Reads the tEXt chunks of a PNG (key → Latin-1 text), checking the signature and chunk
/// lengths but not decoding pixels: enough to tell whether a cached thumbnail is still fresh.
public enum PNGText {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The text chunks, or nil when the bytes are not a well-formed PNG up to its IEND.
    public static func chunks(of bytes: [UInt8]) -> [String: String]? {
        guard bytes.starts(with: signature) else { return nil }
        var texts: [String: String] = [:]
        var offset = signature.count
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let start = offset + 8
            guard length >= 0, start + length + 4 <= bytes.count else { return nil }
            if type == "tEXt", let nul = bytes[start..<start + length].firstIndex(of: 0) {
                let key = String(bytes[start..<nul].map { Character(Unicode.Scalar($0)) })
                let value = String(bytes[(nul + 1)..<(start + length)].map { Character(Unicode.Scalar($0)) })
                texts[key] = value
            }
            if type == "IEND" { return texts }
            offset = start + length + 4
        }
        return nil
    }

    /// Width and height from the IHDR chunk, which a PNG always starts with.
    public static func dimensions(of bytes: [UInt8]) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes.starts(with: signature), bytes[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        let number = { (at: Int) in bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (number(16), number(20))
    }
}
