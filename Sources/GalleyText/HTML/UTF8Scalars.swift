/// The characters of UTF-8 text gumbo made, decoded where they lie: ASCII directly, anything
/// else through the standard library's decoder, so an invalid sequence (gumbo makes none)
/// becomes U+FFFD exactly as `String(decoding:as:)` would make it.
package struct UTF8Scalars: Sequence {
    let bytes: UnsafeBufferPointer<UInt8>

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    package func makeIterator() -> Iterator { Iterator(bytes: bytes) }

    package struct Iterator: IteratorProtocol {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        package mutating func next() -> Unicode.Scalar? {
            guard index < bytes.count else { return nil }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                return Unicode.Scalar(lead)
            }
            var rest = UnsafeBufferPointer(rebasing: bytes[index...]).makeIterator()
            var parser = Unicode.UTF8.ForwardParser()
            switch parser.parseScalar(from: &rest) {
            case .valid(let encoded):
                index += encoded.count
                return Unicode.UTF8.decode(encoded)
            case .error(let length):
                index += length
                return "\u{FFFD}"
            case .emptyInput:
                return nil
            }
        }
    }
}
