#if canImport(Glibc)
import Glibc
#endif

/// A glibc iconv conversion between two charsets, open for the converter's lifetime.
///
/// The converter owns its iconv descriptor: `init` opens it and `deinit` closes it, so no
/// path leaks one. iconv keeps shift state between calls, so a converter serves one thread
/// at a time (it is not `Sendable`).
final class CharsetConverter {
    private let descriptor: iconv_t

    /// Opens a conversion from `source` to `target`, both iconv names (`CP1252`, `UTF-8`,
    /// `UTF-32LE`…); nil when iconv cannot convert between them.
    init?(from source: String, to target: String) {
        guard let descriptor = iconv_open(target, source), Int(bitPattern: descriptor) != -1 else { return nil }
        self.descriptor = descriptor
    }

    deinit {
        iconv_close(descriptor)
    }

    /// Converts all of `bytes`, then ends a stateful encoding's shift sequence. An invalid
    /// byte becomes `replacement` and the conversion resumes at the next byte, so nothing is
    /// dropped; a truncated sequence at the end becomes one `replacement`. Returns the output
    /// and how many replacements it holds.
    func convert(_ bytes: ArraySlice<UInt8>, replacingInvalidWith replacement: [UInt8]) -> (output: [UInt8], invalid: Int) {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3 / 2 + 16)
        var invalid = 0
        var input = Array(bytes)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        input.withUnsafeMutableBufferPointer { inputBuffer in
            chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                guard let chunkStart = chunkBuffer.baseAddress else { return }
                var inPointer = inputBuffer.baseAddress.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: CChar.self) }
                var inLeft = inputBuffer.count
                var flushing = false
                while true {
                    var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(chunkStart).assumingMemoryBound(to: CChar.self)
                    var outLeft = chunkBuffer.count
                    let result: Int
                    if inLeft > 0 {
                        result = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                    } else {
                        flushing = true  // Ends a stateful encoding's shift sequence.
                        result = iconv(descriptor, nil, nil, &outPointer, &outLeft)
                    }
                    let error = errno
                    output.append(contentsOf: chunkBuffer[0..<(chunkBuffer.count - outLeft)])
                    if result != -1 {
                        if flushing { break }
                        continue
                    }
                    if error == E2BIG { continue }
                    guard inLeft > 0 else { break }
                    output.append(contentsOf: replacement)
                    invalid += 1
                    if error == EINVAL {
                        inLeft = 0  // A truncated sequence at the end.
                    } else {
                        inPointer = inPointer.map { $0 + 1 }
                        inLeft -= 1
                    }
                }
            }
        }
        return (output, invalid)
    }

    /// Converts `bytes` on their own, from the initial shift state, in one iconv call with
    /// room for `outputCapacity` bytes; nil unless all of them convert (an invalid or
    /// incomplete sequence, or output that does not fit).
    func convertFromInitialState(_ bytes: [UInt8], outputCapacity: Int) -> [UInt8]? {
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [UInt8](repeating: 0, count: outputCapacity)
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBytes { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = inBuffer.baseAddress
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = outBuffer.baseAddress?.assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                iconv(descriptor, nil, nil, nil, nil)
                guard iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft) != -1 else { return nil }
                return outBuffer.count - outLeft
            }
        }
        return written.map { Array(output.prefix($0)) }
    }
}
