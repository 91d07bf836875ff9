import Foundation

/// Writes small PDFs from content streams, for tests that need a page made to measure.
public enum TestPDF {
    /// A PDF with one page per content stream, each `width`×`height` points; `links[i]` URI
    /// link annotations and `/Rotate rotations[i]` on page i, and an info dictionary with
    /// `title` and `author` when given. With `font`, every page has Helvetica as `/F1` for its
    /// text operators. With `claimedCount`, the page tree's /Count claims that many pages
    /// whatever it holds.
    public static func write(pages contents: [String], width: Int = 612, height: Int = 792, links: [Int] = [], rotations: [Int] = [],
                             title: String? = nil, author: String? = nil, font: Bool = false, claimedCount: Int? = nil,
                             to url: URL) throws {
        let resources = font ? "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>" : "<< >>"
        var objects: [String] = ["<< /Type /Catalog /Pages 2 0 R >>", ""]
        var kids: [String] = []
        for (index, content) in contents.enumerated() {
            let pageNumber = objects.count + 1
            kids.append("\(pageNumber) 0 R")
            let count = index < links.count ? links[index] : 0
            let annotations = (0..<count).map { i in
                "<< /Type /Annot /Subtype /Link /Rect [\(20 + 30 * i) 20 \(40 + 30 * i) 40] /Border [0 0 0] /A << /S /URI /URI (https://example.org/\(i)) >> >>"
            }
            let annots = annotations.isEmpty ? "" : " /Annots [\(annotations.joined(separator: " "))]"
            let rotate = index < rotations.count ? " /Rotate \(rotations[index])" : ""
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents \(pageNumber + 1) 0 R /Resources \(resources)\(rotate)\(annots) >>")
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        }
        var info = ""
        if title != nil || author != nil {
            objects.append("<< " + (title.map { "/Title (\($0)) " } ?? "") + (author.map { "/Author (\($0)) " } ?? "") + ">>")
            info = " /Info \(objects.count) 0 R"
        }
        objects[1] = "<< /Type /Pages /Kids [\(kids.joined(separator: " "))] /Count \(claimedCount ?? contents.count) >>"
        var pdf = "%PDF-1.7\n"
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(pdf.utf8.count)
            pdf += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = pdf.utf8.count
        pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { pdf += String(format: "%010d 00000 n \n", offset) }
        pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R\(info) >>\nstartxref\n\(xref)\n%%EOF\n"
        try Data(pdf.utf8).write(to: url)
    }

    /// How an image's samples are stored in its stream.
    public enum ImageStream: Sendable, CaseIterable {
        /// Unfiltered.
        case raw
        /// FlateDecode (a zlib stream of stored blocks).
        case flate
        /// FlateDecode with PNG predictors (each row tagged with filter 0).
        case flatePNGRows
        /// FlateDecode whose Adler-32 trailer does not match (readers ignore it).
        case flateWrongChecksum
        /// FlateDecode cut off in the middle of its data (the rest of the image is missing).
        case flateTruncated
    }

    /// A PDF of one page `width`×`height` points holding an RGB image of that many pixels drawn
    /// over the whole page (a scan at 72 dpi), each pixel `pixel(x, y)`, stored as `stream` says.
    /// With `pages`, that many pages, each drawing the same image.
    public static func writeImagePage(width: Int, height: Int, stream: ImageStream = .raw, pages: Int = 1,
                                      pixel: (Int, Int) -> (UInt8, UInt8, UInt8), to url: URL) throws {
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = pixel(x, y)
                let i = (y * width + x) * 3
                (samples[i], samples[i + 1], samples[i + 2]) = (r, g, b)
            }
        }
        var filter = ""
        switch stream {
        case .raw: break
        case .flate, .flateWrongChecksum, .flateTruncated:
            filter = " /Filter /FlateDecode"
            samples = zlibStored(samples, wrongChecksum: stream == .flateWrongChecksum)
            if stream == .flateTruncated { samples = Array(samples.prefix(samples.count / 2)) }
        case .flatePNGRows:
            filter = " /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 3 /Columns \(width) >>"
            var rows: [UInt8] = []
            rows.reserveCapacity(samples.count + height)
            for y in 0..<height {
                let start = y * width * 3
                rows.append(0)
                rows.append(contentsOf: samples[start..<(start + width * 3)])
            }
            samples = zlibStored(rows, wrongChecksum: false)
        }
        let content = "q \(width) 0 0 \(height) 0 0 cm /Im1 Do Q"
        var pdf = Data()
        var offsets: [Int] = []
        func object(_ body: String, stream: [UInt8]? = nil) {
            offsets.append(pdf.count)
            pdf.append(Data("\(offsets.count) 0 obj\n\(body)".utf8))
            if let stream { pdf.append(Data("\nstream\n".utf8)); pdf.append(contentsOf: stream); pdf.append(Data("\nendstream".utf8)) }
            pdf.append(Data("\nendobj\n".utf8))
        }
        pdf.append(Data("%PDF-1.7\n".utf8))
        object("<< /Type /Catalog /Pages 2 0 R >>")
        // Objects: 1 catalog, 2 page tree, 3 content, 4 image, then the pages.
        object("<< /Type /Pages /Kids [\((0..<pages).map { "\(5 + $0) 0 R" }.joined(separator: " "))] /Count \(pages) >>")
        object("<< /Length \(content.utf8.count) >>", stream: Array(content.utf8))
        object("<< /Type /XObject /Subtype /Image /Width \(width) /Height \(height) /ColorSpace /DeviceRGB /BitsPerComponent 8\(filter) /Length \(samples.count) >>",
               stream: samples)
        for _ in 0..<pages {
            object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents 3 0 R /Resources << /XObject << /Im1 4 0 R >> >> >>")
        }
        let xref = pdf.count
        var tail = "xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { tail += String(format: "%010d 00000 n \n", offset) }
        tail += "trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        pdf.append(Data(tail.utf8))
        try pdf.write(to: url)
    }

    /// `bytes` as a zlib stream of stored (uncompressed) deflate blocks, with its Adler-32
    /// trailer (one off when `wrongChecksum`).
    static func zlibStored(_ bytes: [UInt8], wrongChecksum: Bool) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let count = min(65535, bytes.count - start)
            let final: UInt8 = start + count == bytes.count ? 1 : 0
            let length = UInt16(count), complement = ~UInt16(count)
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(complement & 0xFF), UInt8(complement >> 8)]
            out += bytes[start..<(start + count)]
            start += count
        } while start < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = (b << 16 | a) &+ (wrongChecksum ? 1 : 0)
        return out + [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
    }

    /// A content stream of `count` filled curves: slow to draw in proportion to `count`.
    public static func heavyContent(curves count: Int) -> String {
        var generator = SplitMix(seed: 1)
        var ops = ["0 0 0 rg"]
        for _ in 0..<count {
            let x = Double(generator.next() % 600), y = Double(generator.next() % 780)
            ops.append("\(x) \(y) m \(x + 40) \(y + 90) \(x - 60) \(y + 30) \(x + 20) \(y - 50) c \(x + 5) \(y + 5) l f")
        }
        return ops.joined(separator: "\n")
    }
}

/// A small deterministic random number generator (SplitMix64), seeded so that a failing
/// random input can be reproduced.
public struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
