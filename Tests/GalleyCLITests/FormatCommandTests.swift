import Foundation
import GalleyRaster
import GalleyTestSupport
import Testing

/// `--format` on the commands that write images, and format settings errors at the command line.
@Suite struct FormatCommandTests {
    let command = GalleyCommandTests()

    @Test func renderAndRunWriteTheSameJPEGForAPage() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\nquality: 80\nformat: webp\n", files: [Fixtures.pdf("article.pdf")])
        let render = try command.galley(["render", "docs/article.pdf", "-o", "previews", "--pages", "2", "--dpi", "36", "--format", "jpeg"],
                                        in: folder.url)
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("previews").path) == ["article-0002.jpg"])
        let run = try command.galley(["run", "--dpi", "36", "--pages", "2", "--thumbnails", "none", "--format", "jpeg"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        let single = [UInt8](try Data(contentsOf: folder.path("previews/article-0002.jpg")))
        #expect(single == [UInt8](try Data(contentsOf: folder.path("out/article/page-0002.jpg"))))
        let facts = try IndependentImageDecoder.decode(single, format: .jpeg).facts
        #expect(facts.format == "JPEG" && facts.jfifDensity == [36, 36])
    }

    @Test func thumbnailTakesAFormat() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\n", files: [Fixtures.pdf("article.pdf")])
        let outcome = try command.galley(["thumbnail", "-s", "64", "--format", "webp", "docs/article.pdf", "t.webp"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let facts = try IndependentImageDecoder.decode([UInt8](try Data(contentsOf: folder.path("t.webp"))), format: .webp).facts
        #expect(facts.format == "WEBP" && max(facts.width, facts.height) == 64)
    }

    @Test func unknownFormatsAndSettingsForNoFormatExitTwo() throws {
        let folder = try command.folderWithConfig("inputs: [docs]\n", files: [Fixtures.pdf("article.pdf")])
        let unknown = try command.galley(["run", "--format", "gif"], in: folder.url)
        #expect(unknown.status == 2 && unknown.stderr.contains("--format gif"), "\(unknown.stderr)")
        try "inputs: [docs]\nformat: jpeg\nlossless: true\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let lossless = try command.galley(["run"], in: folder.url)
        #expect(lossless.status == 2 && lossless.stderr.contains("pipeline.yml:3: lossless: applies to webp only"), "\(lossless.stderr)")
    }
}
