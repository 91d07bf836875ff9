import Foundation
import GalleyBase
import GalleyManifest
import GalleyPipeline
import GalleyTestSupport
import Logging
import Testing

/// `galley render` reads a file as a run reads it: the page producers report what they found
/// (warnings, pages that failed) as values, which a run records in its manifest and the
/// single-file command reads back with no run of its own.
@Suite struct SingleFileTests {
    @Test func renderReportsWhatARunRecords() throws {
        let folder = try ScratchFolder("galley-single-file")
        let inputs = folder.path("in")
        try FileManager.default.createDirectory(at: inputs, withIntermediateDirectories: true)
        for file in [Fixtures.pdf("damaged-content.pdf"), Fixtures.pdf("rotated.pdf")]
            + ["truncated.pdf", "cut-short.pdf", "no-pages.pdf"].map({ Fixtures.brokenFolder.appendingPathComponent($0) }) {
            try FileManager.default.copyItem(at: file, to: inputs.appendingPathComponent(file.lastPathComponent))
        }
        // No lang attribute (the language is guessed, and said) and a picture that is not there.
        try Data("<html><body><p>The quick brown fox jumps over the lazy dog, and the dog sleeps on.</p><img src=\"gone.png\"></body></html>".utf8)
            .write(to: inputs.appendingPathComponent("note.html"))
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = "out"
        configuration.dpi = 36
        configuration.thumbnailBoxes = []
        let summary = try Pipeline(configuration: configuration, logger: Logger(label: "test")).run()
        let documents = try #require(summary.manifest).documents
        #expect(documents.count == 6)
        #expect(documents.contains { !$0.warnings.isEmpty && $0.status == .ok && $0.kind == .pdf })
        #expect(documents.contains { !$0.warnings.isEmpty && $0.status == .ok && $0.kind == .markup })
        #expect(documents.contains { $0.status == .failed })

        let single = SingleFile(configuration: configuration, root: inputs)
        for document in documents {
            let file = inputs.appendingPathComponent(document.source)
            do {
                let rendered = try single.render(file, into: folder.path("single"))
                #expect(document.status == .ok, "\(document.source): rendered, but the run failed it: \(document.error.map { "\($0)" } ?? "")")
                #expect(rendered.warnings == document.warnings, "\(document.source)")
                #expect(rendered.paths.count == document.pages.count, "\(document.source)")
            } catch {
                #expect(error.code == document.error?.code, "\(document.source): \(error)")
                #expect(error.page == document.error?.page, "\(document.source): \(error)")
            }
        }
    }

    /// `galley render` holds a page's drawing to `page_timeout` as a run does: the page over it
    /// fails as `timed-out`, naming it, and the page before it is written.
    @Test func renderHoldsADrawingToThePageTimeLimit() throws {
        let folder = try ScratchFolder("galley-single-file-timeout")
        let file = folder.path("slow.pdf")
        try TestPDF.write(pages: ["0 0 1 rg 10 10 100 100 re f", TestPDF.heavyContent(curves: 12_000)], to: file)
        var configuration = Configuration()
        configuration.dpi = 300
        configuration.pageTimeout = 0.25
        let out = folder.path("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let failure = #expect(throws: Failure.self) { try SingleFile(configuration: configuration).render(file, into: out) }
        #expect(failure?.code == .timedOut, "\(String(describing: failure))")
        #expect(failure?.page == 2)
        #expect(failure?.message.contains("to draw") == true, "\(String(describing: failure))")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("slow-0001.png").path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("slow-0002.png").path))
    }
}
