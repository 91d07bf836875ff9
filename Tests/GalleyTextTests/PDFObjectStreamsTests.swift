import Foundation
import GalleyTestSupport
import Testing
@testable import GalleyText

/// The packing of a cairo-shaped PDF into object streams, on files made here: what a reader
/// (MuPDF) finds after it, and what it keeps out of a stream.
struct PDFObjectStreamsTests {
    /// A one-page PDF laid out as cairo writes it (one revision, a classic table), with
    /// `extra` as object 4, a link annotation the page lists, written first in the file (as
    /// cairo writes a page's annotations before the pages' tree).
    static func cairoShaped(annotation extra: String) -> [UInt8] {
        let objects = [
            (4, extra),
            (1, "<< /Type /Catalog /Pages 2 0 R >>"),
            (2, "<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>"),
            (3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 200 200 ] /Annots [ 4 0 R ] >>"),
        ]
        var bytes = Array("%PDF-1.5\n%\u{B5}\u{ED}\u{AE}\u{FB}\n".utf8)
        var offsets: [Int: Int] = [:]
        for (number, object) in objects {
            offsets[number] = bytes.count
            bytes += Array("\(number) 0 obj\n\(object)\nendobj\n".utf8)
        }
        let xref = bytes.count
        var text = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for number in 1...objects.count {
            let offset = String(offsets[number] ?? 0)
            text += String(repeating: "0", count: 10 - offset.count) + offset + " 00000 n \n"
        }
        text += "trailer\n<< /Size \(objects.count + 1)\n   /Root 1 0 R\n>>\nstartxref\n\(xref)\n%%EOF\n"
        return bytes + Array(text.utf8)
    }

    func pages(_ bytes: [UInt8], in folder: ScratchFolder, named name: String) throws -> (count: String, annotation: String) {
        let path = folder.path(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let count = try PeerTools.run("mutool", ["show", path, "trailer/Root/Pages/Count"]).stdout
        let annotation = try PeerTools.run("mutool", ["show", path, "4"]).stdout
        return (count.trimmingCharacters(in: .whitespacesAndNewlines), annotation)
    }

    @Test func objectsArePackedAndReadBack() throws {
        let folder = try ScratchFolder("object-streams")
        let source = Self.cairoShaped(annotation: "<< /Type /Annot /Subtype /Link /A << /S /URI /URI (https://example.org/a\\(b) >> >>")
        let packed = try #require(PDFObjectStreams.packed(source))
        #expect(String(decoding: packed, as: UTF8.self).contains("/Type /ObjStm /N 4"))
        let read = try pages(packed, in: folder, named: "packed.pdf")
        #expect(read.count == "1" && read.annotation.contains("example.org/a\\(b"), "\(read)")
    }

    /// An object whose string does not close (as cairo 1.16 wrote an address with an unbalanced
    /// parenthesis) stays out of the object stream: alone it spoils only itself, where packed
    /// it took the objects after it (the pages) with it.
    @Test func anObjectWhoseStringDoesNotCloseStaysAlone() throws {
        let folder = try ScratchFolder("object-streams")
        let source = Self.cairoShaped(annotation: "<< /Type /Annot /Subtype /Link /A << /S /URI /URI (https://example.org/a(b) >> >>")
        let packed = try #require(PDFObjectStreams.packed(source))
        #expect(String(decoding: packed, as: UTF8.self).contains("/Type /ObjStm /N 3"))
        #expect(try pages(packed, in: folder, named: "packed.pdf").count == "1")
        #expect(!PDFObjectStreams.stringsClose(Array("<< /URI (a(b) >>".utf8)[...]))
        #expect(PDFObjectStreams.stringsClose(Array("<< /URI (a\\(b) /T (x (y) z) >> % a ( comment".utf8)[...]))
        #expect(!PDFObjectStreams.stringsClose(Array("<< /T x) >>".utf8)[...]))
    }
}
