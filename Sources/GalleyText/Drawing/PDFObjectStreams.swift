import CDeflate

/// The objects of a PDF cairo wrote, repacked: every object that is not a stream goes into
/// compressed object streams (PDF 1.5, §7.5.7) behind a cross-reference stream, and the
/// objects cairo numbered but never wrote are marked free.
///
/// cairo 1.16 (Debian 12's) writes every object as plain text: on documentation full of links,
/// the link annotations alone are over a quarter of the file (458 annotations, 122 KB of a
/// 429 KB chapter), where WeasyPrint's files pack them compressed. cairo also numbers a
/// structure element for each link and never writes it, leaving table entries that point at
/// another object (`qpdf --check`: "file is damaged"). Written here rather than with libqpdf
/// (Debian's `libqpdf-dev` can write object streams) because qpdf parses and writes every
/// object again: 0.05 s of CPU for debian-reference's Japanese chapter two (`qpdf
/// --object-streams=generate --stream-data=preserve`), an eighth of the 0.40 s galley takes to
/// typeset and write it, where this packing is under 1% of that run in `perf`. It relies on the
/// layout cairo writes (`CairoPDFLayout`: one revision, a classic table); any other file is
/// left as it is.
enum PDFObjectStreams {
    /// How many objects one object stream holds (qpdf packs 100 too): a reader decompresses a
    /// whole stream to reach one object.
    static let objectsPerStream = 100

    /// `bytes` repacked, or nil when they are not laid out as cairo writes a PDF.
    static func packed(_ bytes: [UInt8]) -> [UInt8]? {
        guard let layout = CairoPDFLayout(bytes), let trailer = layout.trailerEntries(in: bytes, without: "/Size") else { return nil }
        // The objects written, in file order; an entry whose offset does not hold its object
        // (cairo's unwritten numbers) is dropped and becomes free.
        var written: [(number: Int, start: Int, header: Int)] = []
        for entry in layout.entries {
            guard let offset = layout.inUseOffset(of: entry, in: bytes) else { continue }
            // cairo writes generation 0 only; an object of another could not be packed.
            guard layout.generation(of: entry, in: bytes) == 0 else { return nil }
            guard offset < layout.xrefOffset, let header = CairoPDFLayout.objectHeaderEnd(number: entry.object, in: bytes, at: offset) else { continue }
            written.append((entry.object, offset, header))
        }
        guard !written.isEmpty else { return nil }
        written.sort { $0.start < $1.start }
        let size = max(layout.size, (written.map(\.number).max() ?? 0) + 1)

        var output = Array(bytes[..<written[0].start])
        // Object streams need PDF 1.5; cairo writes `%PDF-1.5` unless told to write 1.4.
        if output.starts(with: Array("%PDF-1.4".utf8)) { output[7] = UInt8(ascii: "5") }
        var offsets: [Int: Int] = [:]             // object -> offset, of objects left as they are
        var packed: [(number: Int, body: ArraySlice<UInt8>)] = []
        for (index, object) in written.enumerated() {
            let end = index + 1 < written.count ? written[index + 1].start : layout.xrefOffset
            guard let endobj = CairoPDFLayout.lastIndex(of: Array("endobj".utf8), in: bytes, before: end),
                  endobj > object.header else { return nil }
            let body = CairoPDFLayout.trimmed(bytes[object.header..<endobj])
            // A stream stays where it is; so does an object whose strings do not close, which in
            // an object stream would take the objects after it with it (a reader parses the
            // stream's objects one after another), where alone it spoils only itself.
            if body.count >= 9 && body.suffix(9).elementsEqual("endstream".utf8) || !Self.stringsClose(body) {
                offsets[object.number] = output.count
                output.append(contentsOf: bytes[object.start..<endobj])
                output.append(contentsOf: Array("endobj\n".utf8))
            } else {
                packed.append((object.number, body))
            }
        }

        var location: [Int: (stream: Int, index: Int)] = [:]
        var next = size
        var start = 0
        while start < packed.count {
            let group = packed[start..<min(start + objectsPerStream, packed.count)]
            var directory: [UInt8] = [], contents: [UInt8] = []
            for (index, object) in group.enumerated() {
                directory.append(contentsOf: Array("\(object.number) \(contents.count) ".utf8))
                contents.append(contentsOf: object.body)
                contents.append(0x0A)
                location[object.number] = (next, index)
            }
            directory.append(0x0A)
            guard let data = zlibCompressed(directory + contents) else { return nil }
            offsets[next] = output.count
            output.append(contentsOf: Array("\(next) 0 obj\n<< /Type /ObjStm /N \(group.count) /First \(directory.count) /Filter /FlateDecode /Length \(data.count) >>\nstream\n".utf8))
            output.append(contentsOf: data)
            output.append(contentsOf: Array("\nendstream\nendobj\n".utf8))
            next += 1
            start += objectsPerStream
        }

        // The cross-reference stream: 1 byte of type, 4 of offset or stream, 2 of generation
        // or index. Free numbers form the chain the table's first entry starts.
        let xrefNumber = next
        let xrefOffset = output.count
        offsets[xrefNumber] = xrefOffset
        let total = xrefNumber + 1
        let free = (1..<total).filter { offsets[$0] == nil && location[$0] == nil }
        var nextFree: [Int: Int] = [:]
        for (index, number) in free.enumerated() { nextFree[number] = index + 1 < free.count ? free[index + 1] : 0 }
        var rows: [UInt8] = []
        rows.reserveCapacity(total * 7)
        func row(_ type: UInt8, _ field: Int, _ other: Int) {
            rows.append(type)
            for shift in stride(from: 24, through: 0, by: -8) { rows.append(UInt8(truncatingIfNeeded: field >> shift)) }
            rows.append(UInt8(truncatingIfNeeded: other >> 8))
            rows.append(UInt8(truncatingIfNeeded: other))
        }
        for number in 0..<total {
            if number == 0 {
                row(0, free.first ?? 0, 65535)
            } else if let offset = offsets[number] {
                row(1, offset, 0)
            } else if let place = location[number] {
                row(2, place.stream, place.index)
            } else {
                row(0, nextFree[number] ?? 0, 1)
            }
        }
        guard offsets.values.allSatisfy({ $0 <= Int(UInt32.max) }), let table = zlibCompressed(rows) else { return nil }
        output.append(contentsOf: Array("\(xrefNumber) 0 obj\n<< /Type /XRef /Size \(total) /W [1 4 2] \(trailer) /Filter /FlateDecode /Length \(table.count) >>\nstream\n".utf8))
        output.append(contentsOf: table)
        output.append(contentsOf: Array("\nendstream\nendobj\nstartxref\n\(xrefOffset)\n%%EOF\n".utf8))
        return output
    }

    /// Whether every literal string of an object's text closes: parentheses balanced inside
    /// strings (a backslash escapes the character after it), none unopened, and a `%` outside
    /// a string starting a comment to the end of its line.
    static func stringsClose(_ body: ArraySlice<UInt8>) -> Bool {
        var depth = 0, escaped = false, comment = false
        for byte in body {
            if comment {
                comment = byte != 0x0A && byte != 0x0D
            } else if depth > 0 {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "(") { depth += 1 } else if byte == UInt8(ascii: ")") { depth -= 1 }
            } else if byte == UInt8(ascii: "(") {
                depth = 1
            } else if byte == UInt8(ascii: ")") {
                return false
            } else if byte == UInt8(ascii: "%") {
                comment = true
            }
        }
        return depth == 0
    }

    /// `data` in zlib's format (what `/FlateDecode` reads), by libdeflate at level 9.
    private static func zlibCompressed(_ data: [UInt8]) -> [UInt8]? {
        guard let compressor = libdeflate_alloc_compressor(9) else { return nil }
        defer { libdeflate_free_compressor(compressor) }
        var output = [UInt8](repeating: 0, count: libdeflate_zlib_compress_bound(compressor, data.count))
        let written = data.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                libdeflate_zlib_compress(compressor, input.baseAddress, input.count, out.baseAddress, out.count)
            }
        }
        guard written > 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }
}
