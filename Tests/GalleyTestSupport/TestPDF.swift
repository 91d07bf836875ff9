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
