import Foundation
import GalleyPipeline
import GalleyTestSupport
import Logging
import Testing

@Suite struct InspectorTests {
    func documents(_ paths: [String], in folder: ScratchFolder, configuration base: Configuration = Configuration()) throws -> [SourceDocument] {
        var configuration = base
        configuration.baseDirectory = folder.url
        configuration.inputs = paths
        return try InputScanner(configuration: configuration).scan().documents
    }

    @Test func aPDFsPagesSizesRotationsLinksAndInfoAreReported() throws {
        let folder = try ScratchFolder("inspect")
        try TestPDF.write(pages: ["0 0 1 rg 10 10 50 50 re f", "", ""], width: 300, height: 500, links: [2, 0, 1],
                          rotations: [0, 90, 0], title: "Quarterly report", author: "Ada", to: folder.path("report.pdf"))
        let inspector = try Inspector(configuration: Configuration())
        let inspection = inspector.inspect(try #require(try documents(["report.pdf"], in: folder).first))
        #expect(inspection.error == nil)
        #expect(inspection.kind == .pdf && inspection.pageCount == 3 && inspection.encrypted == false && inspection.encryption == nil)
        #expect(inspection.title == "Quarterly report" && inspection.author == "Ada")
        #expect(inspection.linkCount == 3)
        #expect(inspection.pages?.map(\.linkCount) == [2, 0, 1])
        #expect(inspection.pages?.map(\.rotation) == [0, 90, 0])
        // Sizes after /Rotate, as the manifest gives them.
        #expect(inspection.pages?.map(\.widthPt) == [300, 500, 300] && inspection.pages?.map(\.heightPt) == [500, 300, 500])
    }

    @Test func encryptionIsNamedAndAMissingPasswordIsTheErrorARunWouldRecord() throws {
        let folder = try ScratchFolder("inspect")
        _ = try folder.copy([Fixtures.pdf(Fixtures.encryptedPDF), Fixtures.brokenFolder.appendingPathComponent("garbage.pdf")], into: "in")
        let locked = try Inspector(configuration: Configuration()).inspect(try #require(try documents(["in/encrypted.pdf"], in: folder).first))
        #expect(locked.error?.code.rawValue == "password-required")
        var configuration = Configuration()
        configuration.passwords = [.init(pattern: "encrypted.pdf", password: Fixtures.encryptedPassword)]
        let open = try Inspector(configuration: configuration).inspect(try #require(try documents(["in/encrypted.pdf"], in: folder).first))
        #expect(open.error == nil && open.pageCount == 4)
        #expect(open.encryption?.contains("AES") == true)
        let garbage = try Inspector(configuration: Configuration()).inspect(try #require(try documents(["in/garbage.pdf"], in: folder).first))
        #expect(garbage.error?.code.rawValue == "not-pdf")
    }

    @Test func anArticlesLayoutsHaveThePageCountsARunProduces() throws {
        let folder = try ScratchFolder("inspect")
        try FileManager.default.copyItem(at: Fixtures.articlesFolder, to: folder.path("in"))
        var configuration = try Configuration.load(file: Fixtures.repositoryRoot.appendingPathComponent("pipeline.yml"))
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in/magazine.html", "in/ja-vertical.html"]
        configuration.output = "out"
        configuration.dpi = 20
        configuration.thumbnailBoxes = []
        let manifest = try #require(try Pipeline(configuration: configuration, logger: Logger(label: "test")).run().manifest)
        let inspector = try Inspector(configuration: configuration)
        let documents = try InputScanner(configuration: configuration).scan().documents
        #expect(documents.count == 2)
        for document in documents {
            let inspection = inspector.inspect(document)
            let recorded = try #require(manifest.documents.first { $0.source == document.relativePath })
            #expect(inspection.error == nil)
            #expect(inspection.layouts?.map(\.name) == recorded.layouts?.map(\.name))
            #expect(inspection.layouts?.map(\.pageCount) == recorded.layouts?.map(\.pageCount), "\(document.relativePath)")
            #expect(inspection.textLength == recorded.textLength)
            let modes = Set(recorded.pages.compactMap(\.writingMode))
            #expect(Set(inspection.layouts?.map(\.writingMode) ?? []) == modes)
            // `galley typeset` opens and lays out the article as the run did.
            let measured = try TypesetMeasurement.measure(file: document.url, configuration: configuration,
                                                          fonts: try configuration.fontLibrary(), render: false)
            #expect(measured.layouts.map(\.pages) == recorded.layouts?.map(\.pageCount), "\(document.relativePath)")
            #expect(measured.textLength == recorded.textLength)
        }
    }

    /// A run, `galley inspect` and `galley typeset` refuse the same articles for the same reasons.
    @Test func binaryAndEmptyArticlesAreRefusedAlikeEverywhere() throws {
        let folder = try ScratchFolder("inspect")
        try FileManager.default.createDirectory(at: folder.path("in"), withIntermediateDirectories: true)
        try Data([0x3C, 0x70, 0x3E, 0, 1, 2, 3, 0, 0x3C]).write(to: folder.path("in/binary.html"))
        try Data().write(to: folder.path("in/empty.html"))
        try Data("<p> \n </p>".utf8).write(to: folder.path("in/blank.html"))
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = "out"
        configuration.thumbnailBoxes = []
        let manifest = try #require(try Pipeline(configuration: configuration, logger: Logger(label: "test")).run().manifest)
        let inspector = try Inspector(configuration: configuration)
        let documents = try InputScanner(configuration: configuration).scan().documents
        #expect(documents.count == 3)
        for document in documents {
            let recorded = try #require(manifest.documents.first { $0.source == document.relativePath }?.error)
            #expect(inspector.inspect(document).error == recorded, "\(document.relativePath)")
            #expect(throws: recorded) {
                try TypesetMeasurement.measure(file: document.url, configuration: configuration,
                                               fonts: try configuration.fontLibrary(), render: false)
            }
        }
    }

    @Test func anArticlesTitleAuthorLinksAndImagesAreCounted() throws {
        let folder = try ScratchFolder("inspect")
        try """
            <html lang="de"><head><title>Die  Zeitung</title><meta name="author" content=" Grete Weiß "></head>
            <body><p>Ein <a href="https://example.org/a">Link</a>, <a href="https://example.org/a"><b>derselbe</b> Link</a>
            und <a href="/b">noch einer</a>.</p><p><img src="nowhere.png" width="40" height="30"></p></body></html>
            """.write(to: folder.path("zeitung.html"), atomically: true, encoding: .utf8)
        let inspection = try Inspector(configuration: Configuration()).inspect(try #require(try documents(["zeitung.html"], in: folder).first))
        #expect(inspection.title == "Die Zeitung" && inspection.author == "Grete Weiß" && inspection.language == "de")
        // Two runs of one link next to each other are one link; the bold part does not split it.
        #expect(inspection.linkCount == 3)
        #expect(inspection.imageCount == 1)
        #expect(inspection.warnings?.contains { $0.contains("nowhere.png") } == true)
        #expect(inspection.layouts?.first?.pageCount == 1)
    }
}
