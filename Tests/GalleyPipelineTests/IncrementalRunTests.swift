import Foundation
import GalleyBase
import GalleyCatalog
import GalleyManifest
import GalleyPipeline
import GalleyRaster
import GalleyText
import GalleyTestSupport
import Logging
import Testing

/// Reruns over a library that changed a little: only what changed is drawn again.
@Suite struct IncrementalRunTests {
    /// A library of three PDFs and one article in `in/`, with output in `out/`.
    func library() throws -> ScratchFolder {
        let folder = try ScratchFolder("galley-incremental")
        _ = try folder.copy(["article.pdf", "photo.pdf", "rotated.pdf"].map(Fixtures.pdf), into: "in")
        try FileManager.default.copyItem(at: Fixtures.articlesFolder.appendingPathComponent("plain-book.txt"),
                                         to: folder.path("in/book.txt"))
        return folder
    }

    func configuration(_ folder: ScratchFolder, output: String = "out", workers: Int = 2) -> Configuration {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = output
        configuration.dpi = 40
        configuration.thumbnailBoxes = [48, 96]
        configuration.workers = Configuration.Workers(all: workers)
        var wide = ArticleLayout(name: "wide")
        wide.columns = 2
        configuration.layouts = [ArticleLayout(name: "narrow"), wide]
        return configuration
    }

    func run(_ configuration: Configuration, force: Bool = false) throws -> RunSummary {
        try Pipeline(configuration: configuration, logger: Logger(label: "test")).run(RunOptions(force: force))
    }

    /// The manifest without what a rerun may change: the `run` block, totals and statuses.
    /// A run that wrote no manifest, or one without documents, is an issue of its own.
    static func comparable(_ manifest: Manifest?, sourceLocation: SourceLocation = #_sourceLocation) -> [Manifest.Document] {
        let documents = manifest?.documents ?? []
        if documents.isEmpty { Issue.record("no manifest, or a manifest without documents", sourceLocation: sourceLocation) }
        return documents.map { document in
            var document = document
            if document.status == .unchanged { document.status = .ok }
            return document
        }
    }

    @Test func aRerunWithNothingChangedDrawsNothingAndGivesTheFullManifest() throws {
        let folder = try library()
        let first = try run(configuration(folder))
        let before = pngIdentities(in: folder.path("out"))
        #expect(!before.isEmpty)
        let again = try run(configuration(folder))
        #expect(again.drawnOutputs == 0 && again.reusedOutputs == 0)
        let manifest = try #require(again.manifest)
        #expect(manifest.totals.unchanged == 4 && manifest.totals.ok == 0)
        #expect(manifest.documents.allSatisfy { $0.status == .unchanged })
        #expect(Self.comparable(manifest) == Self.comparable(first.manifest))
        #expect(pngIdentities(in: folder.path("out")) == before, "no file was written again")
        #expect(try ManifestSchema.violations(of: folder.path("out/manifest.json")) == [])

        // A newer modification time with the same bytes: read and hashed, still unchanged.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: folder.path("in/photo.pdf").path)
        let touched = try run(configuration(folder))
        #expect(touched.drawnOutputs == 0)
        #expect(touched.manifest?.documents.allSatisfy { $0.status == .unchanged } == true)
    }

    @Test func anEditedDocumentIsDrawnAgainAndNothingElse() throws {
        let folder = try library()
        _ = try run(configuration(folder))
        let before = pngIdentities(in: folder.path("out"))
        // Same name, new content (one page instead of four).
        try FileManager.default.removeItem(at: folder.path("in/article.pdf"))
        try FileManager.default.copyItem(at: Fixtures.pdf("landscape.pdf"), to: folder.path("in/article.pdf"))
        let summary = try run(configuration(folder))
        #expect(summary.drawnOutputs == 3, "one page: its image and two thumbnails")
        let statuses = Dictionary(uniqueKeysWithValues: (summary.manifest?.documents ?? []).map { ($0.source, $0.status) })
        #expect(statuses == ["article.pdf": .ok, "photo.pdf": .unchanged, "rotated.pdf": .unchanged, "book.txt": .unchanged])
        let after = pngIdentities(in: folder.path("out"))
        #expect(after.count == before.count - 9, "three pages fewer, each an image and two thumbnails")
        #expect(after["article/page-0002.png"] == nil, "pages the document no longer has are gone")
        for (path, inode) in after where !path.hasPrefix("article/") {
            #expect(before[path] == inode, "\(path) was not written again")
        }
        let full = try run(configuration(folder, output: "full"), force: true)
        #expect(Self.comparable(summary.manifest) == Self.comparable(full.manifest))
    }

    @Test func renamedAndCopiedFilesReuseOutputsAndVanishedOnesAreRemoved() throws {
        let folder = try library()
        _ = try run(configuration(folder))
        try FileManager.default.moveItem(at: folder.path("in/photo.pdf"), to: folder.path("in/picture.pdf"))
        try FileManager.default.copyItem(at: folder.path("in/book.txt"), to: folder.path("in/book-copy.txt"))
        try FileManager.default.removeItem(at: folder.path("in/rotated.pdf"))
        let summary = try run(configuration(folder))
        #expect(summary.drawnOutputs == 0, "nothing is drawn: the outputs are copies")
        #expect(summary.reusedOutputs > 3)
        #expect(summary.removedDocuments == 2, "photo.pdf (renamed) and rotated.pdf (deleted)")
        let out = folder.path("out")
        for gone in ["photo", "rotated"] {
            #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(gone).path), "\(gone)/ is removed")
        }
        let full = try run(configuration(folder, output: "full"), force: true)
        #expect(Self.comparable(summary.manifest) == Self.comparable(full.manifest))
        for document in full.manifest?.documents ?? [] {
            for page in document.pages {
                for path in [page.image?.path].compactMap({ $0 }) + page.thumbnails.map(\.path) {
                    #expect(FileManager.default.contentsEqual(atPath: out.appendingPathComponent(path).path,
                                                              andPath: folder.path("full/\(path)").path), "\(path)")
                }
            }
        }
        let catalog = try Catalog(path: Pipeline.catalogURL(output: out).path)
        #expect(try catalog.documents().keys.map { ($0 as NSString).lastPathComponent }.sorted()
                == ["article.pdf", "book-copy.txt", "book.txt", "picture.pdf"])
    }

    /// An article's pictures are found from its own folder, so the same markup in another
    /// folder is drawn with that folder's pictures, in one run or the next: its outputs are not
    /// copies of the first article's, nor taken from the thumbnail cache.
    @Test func theSameArticleInAnotherFolderShowsThatFoldersPictures() throws {
        let folder = try ScratchFolder("galley-incremental")
        let markup = Data(#"<html><body><h1>Pictures</h1><p><img src="pic.png" width="200" height="150"> The picture.</p></body></html>"#.utf8)
        let pictures = Fixtures.articlesFolder.appendingPathComponent("images")
        for (name, picture) in [("a", "figure.png"), ("b", "badge.png"), ("c", "figure.png")] {
            try FileManager.default.createDirectory(at: folder.path("in/\(name)"), withIntermediateDirectories: true)
            try markup.write(to: folder.path("in/\(name)/story.html"))
            try FileManager.default.copyItem(at: pictures.appendingPathComponent(picture), to: folder.path("in/\(name)/pic.png"))
        }
        func page(_ output: String, _ name: String, _ file: String) throws -> Data {
            try Data(contentsOf: folder.path("\(output)/\(name)/story/narrow/\(file)"))
        }
        // In one run, whatever the order the articles are drawn in.
        _ = try run(configuration(folder, workers: 1))
        #expect(try page("out", "a", "page-0001.png") != page("out", "b", "page-0001.png"))
        #expect(try page("out", "a", "page-0001.png") == page("out", "c", "page-0001.png"), "same markup, same picture")
        // And when the second folder arrives later.
        try FileManager.default.moveItem(at: folder.path("in/b"), to: folder.path("later-b"))
        _ = try run(configuration(folder, output: "again"))
        try FileManager.default.moveItem(at: folder.path("later-b"), to: folder.path("in/b"))
        let summary = try run(configuration(folder, output: "again"))
        #expect(summary.drawnOutputs > 0)
        for file in ["page-0001.png", "thumbs/48/page-0001.png", "thumbs/96/page-0001.png"] {
            #expect(try page("again", "b", file) == page("out", "b", file), "\(file)")
            #expect(try page("again", "b", file) != page("again", "a", file), "\(file)")
        }
    }

    /// A document that changes and then fails keeps its earlier pages on disk; when it then
    /// vanishes, those pages go with it.
    @Test func pagesKeptByAFailedDocumentGoWhenItVanishes() throws {
        let folder = try library()
        _ = try run(configuration(folder))
        let pages = pngIdentities(in: folder.path("out")).keys.filter { $0.hasPrefix("photo/") }
        #expect(!pages.isEmpty)
        // Same name, broken content: the run fails it and leaves its pages alone.
        let photo = folder.path("in/photo.pdf")
        try Data("%PDF-1.7 and nothing more".utf8).write(to: photo)
        let failed = try run(configuration(folder))
        #expect(failed.manifest?.documents.first { $0.source.hasSuffix("photo.pdf") }?.status == .failed)
        #expect(Set(pngIdentities(in: folder.path("out")).keys).isSuperset(of: pages))
        try FileManager.default.removeItem(at: photo)
        _ = try run(configuration(folder))
        let left = pngIdentities(in: folder.path("out")).keys.filter { $0.hasPrefix("photo/") }
        #expect(left.isEmpty, "pages of the vanished document left behind: \(left.sorted())")
    }

    @Test func aSettingChangeRedrawsOnlyTheOutputsItAffects() throws {
        let folder = try library()
        var settings = configuration(folder)
        let first = try run(settings)
        let pages = first.manifest?.totals.pages ?? 0
        #expect(pages > 8)

        // New thumbnail boxes: only thumbnails are drawn (the new box, and the 48 box, which
        // is now reduced from the 80 box's drawing instead of the 96's); page images stay.
        var before = pngIdentities(in: folder.path("out"))
        settings.thumbnailBoxes = [48, 80]
        var summary = try run(settings)
        #expect(summary.drawnOutputs == 2 * pages)
        var after = pngIdentities(in: folder.path("out"))
        #expect(after.count == before.count && after.filter { !$0.key.contains("/thumbs/") }.allSatisfy { before[$0.key] == $0.value })
        #expect(!after.keys.contains { $0.contains("/thumbs/96/") }, "the old box's thumbnails are gone")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/photo/thumbs/96").path), "and their folder")

        // A new dpi: page images, and the thumbnails reduced from them (`ThumbnailSet.pageImageScale`).
        before = after
        settings.dpi = 45
        summary = try run(settings)
        #expect(summary.drawnOutputs == 3 * pages)
        after = pngIdentities(in: folder.path("out"))
        #expect(after.count == before.count)

        // One layout changed: only that layout's pages of the article.
        before = after
        settings.layouts[1].columnGap = 30
        summary = try run(settings)
        let wide = (summary.manifest?.documents ?? []).flatMap(\.pages).filter { $0.layout == "wide" }.count
        #expect(wide > 0 && summary.drawnOutputs == wide * 3)
        after = pngIdentities(in: folder.path("out"))
        #expect(after.count == before.count && after.filter { !$0.key.hasPrefix("book/wide/") }.allSatisfy { before[$0.key] == $0.value })

        // --force draws everything.
        summary = try run(settings, force: true)
        #expect(summary.drawnOutputs == pages * 3 && summary.reusedOutputs == 0)

        // Thumbnails turned off: they go, and so do their folders.
        settings.thumbnailBoxes = []
        summary = try run(settings)
        #expect(summary.drawnOutputs == 0)
        after = pngIdentities(in: folder.path("out"))
        #expect(after.count == pages && !after.keys.contains { $0.contains("/thumbs/") })
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/photo/thumbs").path))
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/book/wide/thumbs").path))
    }

    @Test func outputsOfAnIncrementalRunAreIdenticalWhateverTheWorkerCount() throws {
        let folder = try library()
        _ = try run(configuration(folder, workers: 1))
        try FileManager.default.removeItem(at: folder.path("in/rotated.pdf"))
        try FileManager.default.copyItem(at: Fixtures.pdf("cropped.pdf"), to: folder.path("in/rotated.pdf"))
        var settings = configuration(folder, workers: 3)
        settings.thumbnailBoxes = [48, 64]
        let incremental = try run(settings)
        var full = configuration(folder, output: "full", workers: 1)
        full.thumbnailBoxes = [48, 64]
        let fresh = try run(full)
        #expect(Self.comparable(incremental.manifest) == Self.comparable(fresh.manifest))
        let a = pngIdentities(in: folder.path("out")).keys.sorted(), b = pngIdentities(in: folder.path("full")).keys.sorted()
        #expect(a == b)
        for path in a {
            #expect(FileManager.default.contentsEqual(atPath: folder.path("out/\(path)").path, andPath: folder.path("full/\(path)").path))
        }
    }
}

/// Thumbnails only, through the thumbnail cache.
@Suite struct ThumbnailsOnlyTests {
    let base = IncrementalRunTests()

    @Test func aThumbnailsOnlyRunKeepsPageImagesAndTheCacheServesBoxesMadeBefore() throws {
        let folder = try base.library()
        var settings = base.configuration(folder)
        let first = try base.run(settings)
        let pages = first.manifest?.totals.pages ?? 0
        let images = pngIdentities(in: folder.path("out")).filter { !$0.key.contains("/thumbs/") }
        #expect(pages > 0 && images.count == pages)

        // Drop the 96 box, then bring it back: the cache (not the catalog) has its thumbnails.
        // Without it the 48 box is the largest, drawn rather than reduced from the 96's drawing.
        settings.thumbnailBoxes = [48]
        let dropped = try Pipeline(configuration: settings, logger: Logger(label: "test")).run(RunOptions(thumbnailsOnly: true))
        #expect(dropped.drawnOutputs == pages)
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/photo/thumbs/96/page-0001.png").path))
        settings.thumbnailBoxes = [48, 96]
        let back = try Pipeline(configuration: settings, logger: Logger(label: "test")).run(RunOptions(thumbnailsOnly: true))
        #expect(back.drawnOutputs == 0, "every thumbnail came from the cache")
        #expect(back.manifest?.documents.flatMap(\.pages).allSatisfy { $0.image != nil && $0.thumbnails.count == 2 } == true)
        #expect(IncrementalRunTests.comparable(back.manifest) == IncrementalRunTests.comparable(first.manifest))
        let after = pngIdentities(in: folder.path("out"))
        #expect(images.allSatisfy { after[$0.key] == $0.value }, "page images are kept, not drawn")

        // A new dpi: a thumbnails-only run draws no page image and must not drop the ones there,
        // so it refuses to start and touches nothing; the next full run draws them all.
        settings.dpi = 50
        let refusal = #expect(throws: UsageError.self) {
            try Pipeline(configuration: settings, logger: Logger(label: "test")).run(RunOptions(thumbnailsOnly: true))
        }
        #expect(refusal?.message.contains("were made with other settings") == true)
        let untouched = pngIdentities(in: folder.path("out"))
        #expect(images.allSatisfy { untouched[$0.key] == $0.value }, "page images are kept")
        // (Its thumbnails too: they are reduced from the page images.)
        let full = try base.run(settings)
        #expect(full.drawnOutputs == 3 * pages)

        // A vanished source's cache entries go with --prune.
        try FileManager.default.removeItem(at: folder.path("in/photo.pdf"))
        let pruned = try Pipeline(configuration: settings, logger: Logger(label: "test")).run(RunOptions(thumbnailsOnly: true, pruneCache: true))
        #expect(pruned.cachePruned == 5, "photo.pdf's 96 thumbnail and its 48 one reduced from it, at both dpis, and the 48 one drawn alone")
    }

    @Test func theFreedesktopFolderFollowsXDGAndURIsAreEncodedAsGLibDoes() {
        #expect(FreedesktopThumbnails.defaultFolder(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/a"]).path == "/x/cache/thumbnails")
        #expect(FreedesktopThumbnails.defaultFolder(environment: ["XDG_CACHE_HOME": "relative", "HOME": "/home/a"]).path == "/home/a/.cache/thumbnails")
        #expect(FreedesktopThumbnails.defaultFolder(environment: ["HOME": "/home/a"]).path == "/home/a/.cache/thumbnails")
        #expect(FreedesktopThumbnails.uri(path: "/home/a/My Report (final)+1é#?.pdf")
                == "file:///home/a/My%20Report%20(final)+1%C3%A9%23%3F.pdf")
        // Every ASCII punctuation mark, against what g_filename_to_uri (GLib 2.74) returns.
        #expect(FreedesktopThumbnails.uri(path: #"/x/!$&'()*+,;=:@~-._[]{}%^`|"<>.pdf"#)
                == "file:///x/!$&'()*+,%3B=:@~-._%5B%5D%7B%7D%25%5E%60%7C%22%3C%3E.pdf")
    }
}
