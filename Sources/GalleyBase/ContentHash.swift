import CLibCrypto
import Foundation

/// Hashes as lowercase hex: SHA-256 for content and keys, MD5 where a standard asks for it
/// (freedesktop.org thumbnail names).
///
/// The digests are OpenSSL's (libcrypto's EVP interface, Debian's libssl3): the system library
/// every machine has, where a Swift package would compile its own copy of a TLS library into
/// every build for two hash functions.
public enum ContentHash {
    /// SHA-256 of bytes.
    public static func sha256(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { sha256($0) }
    }

    /// SHA-256 of bytes in memory.
    public static func sha256(_ bytes: UnsafeRawBufferPointer) -> String {
        var digest = Digest(EVP_sha256())
        digest.update(bytes)
        return hex(digest.finalize())
    }

    /// SHA-256 of a file, read in 1 MiB pieces so a large document is never in memory at once.
    public static func sha256(file url: URL) throws -> (hash: String, bytes: Int) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var digest = Digest(EVP_sha256())
        var total = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { digest.update($0) }
            total += chunk.count
        }
        return (hex(digest.finalize()), total)
    }

    /// MD5 of a string's UTF-8 bytes.
    public static func md5(_ text: String) -> String {
        var digest = Digest(EVP_md5())
        Array(text.utf8).withUnsafeBytes { digest.update($0) }
        return hex(digest.finalize())
    }

    /// One EVP digest context, used by one caller from start to end (never shared, so it needs
    /// no lock). EVP_MD_CTX_new fails only when memory is exhausted, and the digest calls only on
    /// a context that was never initialised or an engine error, none of which a caller could
    /// handle: they stop the process with a message rather than return a wrong hash.
    private struct Digest: ~Copyable {
        private let context: OpaquePointer

        init(_ type: OpaquePointer?) {
            guard let context = EVP_MD_CTX_new() else { fatalError("ContentHash: EVP_MD_CTX_new failed (out of memory)") }
            guard EVP_DigestInit_ex(context, type, nil) == 1 else { fatalError("ContentHash: EVP_DigestInit_ex failed") }
            self.context = context
        }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            guard EVP_DigestUpdate(context, base, bytes.count) == 1 else { fatalError("ContentHash: EVP_DigestUpdate failed") }
        }

        consuming func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(context, &out, &length) == 1 else { fatalError("ContentHash: EVP_DigestFinal_ex failed") }
            return Array(out.prefix(Int(length)))
        }

        deinit { EVP_MD_CTX_free(context) }
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
