import Foundation
import GalleyRaster
import GalleyTestSupport
import Testing

/// `galley render` and `galley thumbnail`: one file at a time, as a script or a file manager
/// calls them.
@Suite struct SingleFileCommandTests {
    let command = GalleyCommandTests()

    /// A PNG's size and text chunks, read by Python's struct and zlib (not by Galley's code).
    func pngFacts(_ file: URL) throws -> (width: Int, height: Int, colorType: Int, texts: [String: String]) {
        let outcome = try PeerTools.run("python3", ["-c", """
            import struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
            pos, texts = 8, {}
            while pos < len(data):
                length, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + length]
                assert zlib.crc32(kind + body) & 0xFFFFFFFF == struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])[0]
                if kind == b'IHDR':
                    width, height, depth, color = struct.unpack('>IIBB', body[:10])
                if kind == b'tEXt':
                    key, value = body.split(b'\\0', 1)
                    texts[key.decode('latin-1')] = value.decode('latin-1')
                pos += 12 + length
            print(width, height, color)
            for key in sorted(texts): print(key + '=' + texts[key])
            """, file.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n").map(String.init)
        let header = (lines.first ?? "").split(separator: " ").compactMap { Int($0) }
        try #require(header.count == 3, "\(outcome.stdout)")
        let texts = Dictionary(lines.dropFirst().map { line -> (String, String) in
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }, uniquingKeysWith: { a, _ in a })
        return (header[0], header[1], header[2], texts)
    }

    @Test func renderDrawsTheSelectedPagesOfEachFileAndReportsAFailedOne() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\n", files: [Fixtures.pdf("article.pdf"), Fixtures.pdf("rotated.pdf"),
                                                                            Fixtures.brokenFolder.appendingPathComponent("garbage.pdf")])
        let outcome = try command.galley(["render", "docs/article.pdf", "docs/garbage.pdf", "docs/rotated.pdf", "-o", "previews",
                                          "--pages", "2-N", "--dpi", "36"], in: folder.url)
        #expect(outcome.status == 1, "one file failed: \(outcome.stderr)")
        #expect(outcome.stderr.contains("docs/garbage.pdf: FAILED not-pdf"), "\(outcome.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: folder.path("previews").path).sorted()
        #expect(written == ["article-0002.png", "article-0003.png", "article-0004.png"], "rotated.pdf has one page: none selected; \(written)")
        #expect(outcome.stderr.contains("docs/rotated.pdf: warning: the page selection 2-N selects none of its 1 page(s)"), "\(outcome.stderr)")
        // The same pixels a run draws for the page at that resolution.
        let run = try command.galley(["run", "--dpi", "36", "--pages", "2", "--thumbnails", "none"], in: folder.url)
        #expect(run.status == 1)
        let single = try Data(contentsOf: folder.path("previews/article-0002.png"))
        let batch = try Data(contentsOf: folder.path("out/article/page-0002.png"))
        let (a, b) = (try Bitmap(pngData: Array(single)), try Bitmap(pngData: Array(batch)))
        #expect(a.width == b.width && a.height == b.height && a.bytes == b.bytes)
        #expect(try command.galley(["render", "docs/missing.pdf"], in: folder.url).status == 2)
        #expect(try command.galley(["render", "pipeline.yml"], in: folder.url).status == 2)
    }

    /// A page of a documentation tree links its style sheet from a sibling folder
    /// (`../_static/site.css`). One file's folder is its input folder, so the sheet is refused
    /// with a warning; `--root` names the tree and the sheet is read, by render and thumbnail.
    @Test func rootLetsAPageReadItsTreesStyleSheet() throws {
        let folder = try command.folderWithConfig("", files: [])
        let docs = folder.path("docs")
        try FileManager.default.createDirectory(at: docs.appendingPathComponent("_static"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: docs.appendingPathComponent("library"), withIntermediateDirectories: true)
        try "p { color: #ff0000 }\n".write(to: docs.appendingPathComponent("_static/site.css"), atomically: true, encoding: .utf8)
        try """
            <html><head><link rel="stylesheet" href="../_static/site.css"></head>
            <body><p>Words the linked style sheet sets in red, a line or two of them.</p></body></html>
            """.write(to: docs.appendingPathComponent("library/page.html"), atomically: true, encoding: .utf8)
        func redPixels(_ png: URL) throws -> Int {
            let bitmap = try Bitmap(pngData: Array(try Data(contentsOf: png)))
            var red = 0
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let p = bitmap.pixel(x: x, y: y)
                    if p.r > 150 && Int(p.r) - Int(max(p.g, p.b)) > 100 { red += 1 }
                }
            }
            return red
        }
        let alone = try command.galley(["render", "docs/library/page.html", "-o", "alone", "--dpi", "72"], in: folder.url)
        #expect(alone.status == 0 && alone.stderr.contains("style sheet \"../_static/site.css\": outside the input folder"), "\(alone.stderr)")
        #expect(try redPixels(folder.path("alone/page-0001.png")) == 0)
        let rooted = try command.galley(["render", "--root", "docs", "docs/library/page.html", "-o", "rooted", "--dpi", "72"], in: folder.url)
        #expect(rooted.status == 0 && !rooted.stderr.contains("warning"), "\(rooted.stderr)")
        #expect(try redPixels(folder.path("rooted/page-0001.png")) > 100)
        let thumbnail = try command.galley(["thumbnail", "--root", "docs", "-s", "256", "docs/library/page.html", "thumb.png"], in: folder.url)
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        #expect(try redPixels(folder.path("thumb.png")) > 20)
        // A file outside the root, or a root that is not a folder: usage errors.
        let outside = try command.galley(["render", "--root", "docs/_static", "docs/library/page.html"], in: folder.url)
        #expect(outside.status == 2 && outside.stderr.contains("not under --root"), "\(outside.stderr)")
        #expect(try command.galley(["thumbnail", "--root", "nowhere", "docs/library/page.html", "t.png"], in: folder.url).status == 2)
    }

    /// The article's `<body>` (or `<html>`) background is the page's, as a browser paints it
    /// over the whole canvas: margins included, over the layout's `background`.
    @Test func theBodysBackgroundColoursTheWholePage() throws {
        let folder = try command.folderWithConfig("layouts:\n  - name: a5\n    page: a5\n    background: \"#ffffff\"\n", files: [])
        try "<html><body style='background: #102030; color: white'><p>Light words on a dark page.</p></body></html>"
            .write(to: folder.path("dark.html"), atomically: true, encoding: .utf8)
        try "<html style='background: #203040'><body style='background: #102030'><p>The root's colour wins.</p></body></html>"
            .write(to: folder.path("root.html"), atomically: true, encoding: .utf8)
        try "<p>No colour given: the layout's.</p>".write(to: folder.path("plain.html"), atomically: true, encoding: .utf8)
        let outcome = try command.galley(["render", "dark.html", "root.html", "plain.html", "-o", "out", "--dpi", "36"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        func corner(_ name: String) throws -> [UInt8] {
            let bitmap = try Bitmap(pngData: Array(try Data(contentsOf: folder.path("out/\(name)-0001.png"))))
            let p = bitmap.pixel(x: 1, y: bitmap.height - 2)
            return [p.r, p.g, p.b]
        }
        #expect(try corner("dark") == [0x10, 0x20, 0x30])
        #expect(try corner("root") == [0x20, 0x30, 0x40])
        #expect(try corner("plain") == [255, 255, 255])
    }

    /// `--format pdf` writes each article's pages as one vector PDF (per layout when there are
    /// several), whose pages MuPDF reads back with the article's words; a PDF given with it is
    /// a usage error, since PDFs are drawn as they are and never rewritten.
    @Test func renderFormatPDFWritesEachArticleAsVectorPDF() throws {
        let folder = try command.folderWithConfig("layouts:\n  - name: a5\n    page: a5\n  - name: wide\n    page: a4\n    columns: 2\n",
                                                  files: [Fixtures.pdf("article.pdf")])
        try "<html lang='en'><body><h1>Printing</h1><p>Pages for the press, and words that copy.</p></body></html>"
            .write(to: folder.path("press.html"), atomically: true, encoding: .utf8)
        let outcome = try command.galley(["render", "--format", "pdf", "press.html", "-o", "out"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        for layout in ["a5", "wide"] {
            let pdf = folder.path("out/press-\(layout).pdf").path
            let text = try PeerTools.run("mutool", ["draw", "-F", "txt", pdf]).stdout
            #expect(text.contains("Pages for the press, and words that copy."), "\(layout): \(text)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("out").path).sorted() == ["press-a5.pdf", "press-wide.pdf"])
        let refused = try command.galley(["render", "--format", "pdf", "press.html", "docs/article.pdf", "-o", "refused"], in: folder.url)
        #expect(refused.status == 2 && refused.stderr.contains("never rewritten: docs/article.pdf"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("refused/press-a5.pdf").path))
    }

    /// An article made only of boxes (a cover of coloured blocks) is drawn, as browsers and
    /// WeasyPrint draw it; one with nothing to show is still refused as no-text.
    @Test func anArticleOfBoxesOnlyIsDrawn() throws {
        let folder = try command.folderWithConfig("layouts:\n  - name: a\n    page: [600, 450]\n    inset: 0\n", files: [])
        try "<div style='width: 200px; height: 100px; background: #102030'></div>".write(to: folder.path("boxes.html"), atomically: true, encoding: .utf8)
        try "<div></div>".write(to: folder.path("empty.html"), atomically: true, encoding: .utf8)
        let outcome = try command.galley(["render", "boxes.html", "-o", "out", "--dpi", "96"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let bitmap = try Bitmap(pngData: Array(try Data(contentsOf: folder.path("out/boxes-0001.png"))))
        let inside = bitmap.pixel(x: 199, y: 99), outside = bitmap.pixel(x: 200, y: 100)
        #expect([inside.r, inside.g, inside.b] == [0x10, 0x20, 0x30])
        #expect([outside.r, outside.g, outside.b] == [255, 255, 255])
        let empty = try command.galley(["render", "empty.html", "-o", "out", "--dpi", "96"], in: folder.url)
        #expect(empty.status == 1 && empty.stderr.contains("no text"), "\(empty.stderr)")
    }

    /// The installed thumbnailer entry, its Exec line expanded as GNOME's thumbnail factory
    /// does (split into arguments, then %s, %i and %o replaced in each), makes a thumbnail
    /// that fits the size and carries the standard's chunks; a file it cannot draw exits
    /// non-zero and writes nothing.
    @Test func theThumbnailerEntryWorksAsAFileManagerCallsIt() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\n", files: [Fixtures.pdf("landscape.pdf"),
                                                                            Fixtures.brokenFolder.appendingPathComponent("garbage.pdf")])
        _ = try folder.copy([Fixtures.articlesFolder.appendingPathComponent("long-essay.html")], into: "docs")
        let entry = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("share/thumbnailers/galley.thumbnailer"), encoding: .utf8)
        #expect(entry.contains("MimeType=application/pdf;text/html;text/plain;"))
        func thumbnail(_ input: String, size: Int, to output: String) throws -> PeerTools.Outcome {
            try thumbnailer(in: folder, input, size: size, to: output)
        }
        let pdf = try thumbnail("docs/landscape.pdf", size: 256, to: "landscape.png")
        #expect(pdf.status == 0, "\(pdf.stderr)")
        let facts = try pngFacts(folder.path("landscape.png"))
        #expect(max(facts.width, facts.height) <= 256 && max(facts.width, facts.height) >= 255 && facts.width > facts.height, "\(facts)")
        #expect(facts.colorType == 6, "8-bit RGBA, as the standard asks")
        #expect(facts.texts["Thumb::URI"] == "file://" + folder.path("docs/landscape.pdf").path)
        #expect(facts.texts["Thumb::Mimetype"] == "application/pdf" && facts.texts["Software"]?.hasPrefix("galley") == true)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.path("docs/landscape.pdf").path)
        let mtime = Int((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        #expect(facts.texts["Thumb::MTime"] == String(mtime))

        let article = try thumbnail("docs/long-essay.html", size: 128, to: "essay.png")
        #expect(article.status == 0, "\(article.stderr)")
        let essay = try pngFacts(folder.path("essay.png"))
        #expect(max(essay.width, essay.height) >= 127 && max(essay.width, essay.height) <= 128 && essay.texts["Thumb::Mimetype"] == "text/html")

        let broken = try thumbnail("docs/garbage.pdf", size: 128, to: "broken.png")
        #expect(broken.status == 1 && broken.stderr.contains("not-pdf"), "\(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("broken.png").path))
    }

    /// The entry's Exec line, expanded as GNOME's thumbnail factory does (split into
    /// arguments, then %s, %i and %o replaced in each), run in `folder`.
    func thumbnailer(in folder: ScratchFolder, _ input: String, size: Int, to output: String) throws -> PeerTools.Outcome {
        let entry = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("share/thumbnailers/galley.thumbnailer"), encoding: .utf8)
        let exec = try #require(entry.split(separator: "\n").first { $0.hasPrefix("Exec=") }).dropFirst(5)
        var arguments = exec.split(separator: " ").map { element in
            String(element).replacingOccurrences(of: "%s", with: String(size))
                .replacingOccurrences(of: "%i", with: folder.path(input).path).replacingOccurrences(of: "%o", with: folder.path(output).path)
        }
        #expect(arguments.removeFirst() == "galley")
        return try command.galley(arguments, in: folder.url)
    }

    /// The entry lists text/plain and application/pdf, and a file manager hands over a `README`,
    /// a `.log` and a PDF saved without its extension: each is read for what it holds. The
    /// thumbnailer runs in its caller's folder, whose pipeline.yml (here a broken one) is not its own.
    @Test func theThumbnailerReadsFilesWithoutExtensionsByContentAndIgnoresTheFoldersConfiguration() throws {
        let folder = try command.folderWithConfig("dpii: 3\n\tbroken: [\n", files: [])
        try FileManager.default.createDirectory(at: folder.path("docs"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.pdf("landscape.pdf"), to: folder.path("docs/scan"))
        try "Read me first.\nThe notes of a project, a line or two.\n".write(to: folder.path("docs/README"), atomically: true, encoding: .utf8)
        try "2026-11-29 04:00 build started\n2026-11-29 04:01 build done\n".write(to: folder.path("docs/build.log"), atomically: true, encoding: .utf8)
        try "<!DOCTYPE html><html><body><p>A page saved without its name's end.</p></body></html>"
            .write(to: folder.path("docs/saved"), atomically: true, encoding: .utf8)
        try Data((0..<600).map { UInt8(($0 * 7 + 3) % 256) }).write(to: folder.path("docs/blob"))
        for (file, mime) in [("scan", "application/pdf"), ("README", "text/plain"), ("build.log", "text/plain"), ("saved", "text/html")] {
            let outcome = try thumbnailer(in: folder, "docs/\(file)", size: 64, to: "\(file).png")
            #expect(outcome.status == 0, "\(file): \(outcome.stderr)")
            let facts = try pngFacts(folder.path("\(file).png"))
            #expect(facts.texts["Thumb::Mimetype"] == mime && max(facts.width, facts.height) == 64, "\(file): \(facts)")
        }
        let blob = try thumbnailer(in: folder, "docs/blob", size: 64, to: "blob.png")
        #expect(blob.status == 2 && blob.stderr.contains("not a file Galley reads"), "\(blob.stderr)")
    }

    @Test func theInstallScriptWritesAnEntryNamingTheBinary() throws {
        let folder = try ScratchFolder("galley-thumbnailer")
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/install-thumbnailer.sh").path
        let binaryFolder = GalleyCommandTests.binary.deletingLastPathComponent().path
        let path = binaryFolder + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for _ in 0..<2 {
            let outcome = try PeerTools.run("bash", [script, folder.path("prefix").path], environment: ["PATH": path])
            #expect(outcome.status == 0, "\(outcome.stderr)")
            // A binary outside /usr is one GNOME's thumbnailer sandbox cannot see: said, with the way out.
            #expect(outcome.stderr.contains("outside /usr: GNOME Files (Nautilus) runs thumbnailers in a sandbox")
                    && outcome.stderr.contains("sudo bash scripts/install.sh /usr/local"), "\(outcome.stderr)")
        }
        let installed = try String(contentsOf: folder.path("prefix/share/thumbnailers/galley.thumbnailer"), encoding: .utf8)
        #expect(installed.contains("Exec=\(GalleyCommandTests.binary.path) thumbnail -s %s %i %o"), "\(installed)")
        #expect(installed.contains("TryExec=\(GalleyCommandTests.binary.path)\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("prefix/share/thumbnailers").path) == ["galley.thumbnailer"])
    }
}
