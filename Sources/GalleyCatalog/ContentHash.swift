import Crypto
import Foundation

/// Hashes as lowercase hex: SHA-256 for content and keys, MD5 where a standard asks for it
/// (freedesktop.org thumbnail names).
public enum ContentHash {
    /// SHA-256 of bytes.
    public static func sha256(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// SHA-256 of a file, read in 1 MiB pieces so a large document is never in memory at once.
    public static func sha256(file url: URL) throws -> (hash: String, bytes: Int) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        var total = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            total += chunk.count
        }
        return (hex(hasher.finalize()), total)
    }

    /// MD5 of a string's UTF-8 bytes.
    public static func md5(_ text: String) -> String {
        hex(Insecure.MD5.hash(data: Array(text.utf8)))
    }

    /// Lowercase hex. By hand, not `String(format:)`: Foundation's formatter on Linux made
    /// hashing a thumbnail-only run's outputs 2% of its CPU.
    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
