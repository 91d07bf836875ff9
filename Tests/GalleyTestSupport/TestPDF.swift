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

    /// A PDF of one page `width`×`height` points holding an unfiltered RGB image of that many
    /// pixels drawn over the whole page (a scan at 72 dpi), each pixel `pixel(x, y)`.
    public static func writeImagePage(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8), to url: URL) throws {
        var samples = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = pixel(x, y)
                let i = (y * width + x) * 3
                (samples[i], samples[i + 1], samples[i + 2]) = (r, g, b)
            }
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
        object("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
        object("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>")
        object("<< /Length \(content.utf8.count) >>", stream: Array(content.utf8))
        object("<< /Type /XObject /Subtype /Image /Width \(width) /Height \(height) /ColorSpace /DeviceRGB /BitsPerComponent 8 /Length \(samples.count) >>",
               stream: samples)
        let xref = pdf.count
        var tail = "xref\n0 \(offsets.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { tail += String(format: "%010d 00000 n \n", offset) }
        tail += "trailer\n<< /Size \(offsets.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        pdf.append(Data(tail.utf8))
        try pdf.write(to: url)
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
