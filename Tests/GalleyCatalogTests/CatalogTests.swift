import Foundation
import GRDB
import GalleyBase
import GalleyTestSupport
import Testing
@testable import GalleyCatalog

@Suite struct CatalogTests {
    func output(_ id: Int64, page: Int, variant: String = "image", path: String? = nil, fingerprint: String = "f1") -> OutputRecord {
        OutputRecord(documentId: id, layout: "", page: page, variant: variant, fingerprint: fingerprint,
                     path: path ?? "doc/page-\(page).png", sha256: "sha\(page)", bytes: 100 + page, width: 10, height: 20)
    }

    @Test func theSchemaIsMigratedAndTheDatabaseIsInWALMode() throws {
        let folder = try ScratchFolder("galley-catalog")
        let catalog = try Catalog(path: folder.path("catalog.sqlite").path)
        #expect(try catalog.appliedMigrations()
                == ["v1: documents and outputs", "v2: thumbnail cache", "v3: documents in progress and crashes", "v4: when documents finished",
                    "v5: how long documents took to draw"])
        // Opening again applies nothing twice and keeps the rows.
        try catalog.begin(DocumentRecord(sourcePath: "/in/a.pdf", contentHash: "h", size: 1, mtime: 2, kind: "pdf"))
        let again = try Catalog(path: folder.path("catalog.sqlite").path)
        #expect(try again.documents().keys.sorted() == ["/in/a.pdf"])
        // The header of a WAL-mode database says so (bytes 18 and 19 are 2).
        let header = try #require(FileManager.default.contents(atPath: folder.path("catalog.sqlite").path))
        #expect(header[18] == 2 && header[19] == 2)
    }

    @Test func aFileThatIsNotADatabaseIsAnErrorNamingIt() throws {
        let folder = try ScratchFolder("galley-catalog")
        let path = folder.path("catalog.sqlite").path
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: CatalogError.self) { try Catalog(path: path) }
        #expect(error?.path == path)
    }

    @Test func outputsStopStandingInWhenTheContentChangesAndGoWhenItSucceeds() throws {
        let folder = try ScratchFolder("galley-catalog")
        let catalog = try Catalog(path: folder.path("catalog.sqlite").path)
        let first = try catalog.begin(DocumentRecord(sourcePath: "/in/a.pdf", contentHash: "old", size: 1, mtime: 1, kind: "pdf"))
        let id = try #require(first.id)
        try catalog.record(output(id, page: 1))
        try catalog.record(output(id, page: 2))
        // Same content again (a resumed run): the outputs stay.
        let resumed = try catalog.begin(DocumentRecord(sourcePath: "/in/a.pdf", contentHash: "old", size: 1, mtime: 5, kind: "pdf"))
        #expect(resumed.id == id)
        #expect(try catalog.reusableOutputs(documentID: id, contentHash: "old").count == 2)
        // New content: they can no longer be reused, but their files are still on disk, so
        // they stay listed while the document fails…
        try catalog.begin(DocumentRecord(sourcePath: "/in/a.pdf", contentHash: "new", size: 2, mtime: 6, kind: "pdf"))
        #expect(try catalog.reusableOutputs(documentID: id, contentHash: "new").isEmpty)
        try catalog.finish(documentID: id, status: .failed, pageCount: nil, errorCode: "damaged", errorMessage: "x",
                           settings: nil, summary: nil, keeping: [])
        #expect(try catalog.outputs(documentIDs: [id]).count == 2)
        // …and go once it succeeds without them.
        try catalog.begin(DocumentRecord(sourcePath: "/in/a.pdf", contentHash: "new", size: 2, mtime: 7, kind: "pdf"))
        try catalog.finish(documentID: id, status: .ok, pageCount: 1, errorCode: nil, errorMessage: nil,
                           settings: "s", summary: nil, keeping: [])
        #expect(try catalog.outputs(documentIDs: [id]).isEmpty)
    }

    @Test func recordingTheSameOutputTwiceKeepsOneRow() throws {
        let folder = try ScratchFolder("galley-catalog")
        let catalog = try Catalog(path: folder.path("catalog.sqlite").path)
        let id = try #require(try catalog.begin(DocumentRecord(sourcePath: "/a", contentHash: "h", size: 1, mtime: 1, kind: "pdf")).id)
        try catalog.record(output(id, page: 1, fingerprint: "dpi 72"))
        try catalog.record(output(id, page: 1, fingerprint: "dpi 150"))
        let rows = try catalog.outputs(documentIDs: [id])
        #expect(rows.map(\.fingerprint) == ["dpi 150"])
    }

    @Test func copiesOfTheSameContentOfferTheirOutputsOwnFirst() throws {
        let folder = try ScratchFolder("galley-catalog")
        let catalog = try Catalog(path: folder.path("catalog.sqlite").path)
        let a = try #require(try catalog.begin(DocumentRecord(sourcePath: "/in/a.pdf", contentHash: "same", size: 1, mtime: 1, kind: "pdf")).id)
        let b = try #require(try catalog.begin(DocumentRecord(sourcePath: "/in/b.pdf", contentHash: "same", size: 1, mtime: 1, kind: "pdf")).id)
        let c = try #require(try catalog.begin(DocumentRecord(sourcePath: "/in/c.pdf", contentHash: "other", size: 1, mtime: 1, kind: "pdf")).id)
        try catalog.record(output(a, page: 1, path: "a/page-1.png"))
        try catalog.record(output(b, page: 1, path: "b/page-1.png"))
        try catalog.record(output(c, page: 1, path: "c/page-1.png"))
        #expect(try catalog.reusableOutputs(documentID: b, contentHash: "same").map(\.output.path) == ["b/page-1.png", "a/page-1.png"])
        // Each with its document's source, which decides whether an article may take it.
        #expect(try catalog.reusableOutputs(documentID: b, contentHash: "same").map(\.sourcePath) == ["/in/b.pdf", "/in/a.pdf"])
        // A renamed file is a new row that finds the old one's outputs.
        #expect(try catalog.reusableOutputs(documentID: nil, contentHash: "same").map(\.output.path) == ["a/page-1.png", "b/page-1.png"])
    }

    @Test func finishingKeepsOnlyTheOutputsStillMadeAndRemovingCascades() throws {
        let folder = try ScratchFolder("galley-catalog")
        let catalog = try Catalog(path: folder.path("catalog.sqlite").path)
        let id = try #require(try catalog.begin(DocumentRecord(sourcePath: "/a", contentHash: "h", size: 1, mtime: 1, kind: "pdf")).id)
        for page in 1...3 { try catalog.record(output(id, page: page)) }
        try catalog.finish(documentID: id, status: .ok, pageCount: 2, errorCode: nil, errorMessage: nil, settings: "s",
                           summary: Data("{}".utf8), keeping: ["doc/page-1.png", "doc/page-2.png"])
        let row = try #require(try catalog.documents()["/a"])
        #expect(row.status == .ok && row.pageCount == 2 && row.settings == "s" && row.summary == Data("{}".utf8))
        #expect(try catalog.outputs(documentIDs: [id]).map(\.page).sorted() == [1, 2])
        try catalog.touch(documentID: id, size: 9, mtime: 99)
        #expect(try catalog.documents()["/a"]?.mtime == 99)
        try catalog.remove(documentIDs: [id])
        #expect(try catalog.documents().isEmpty)
        #expect(try catalog.outputs(documentIDs: [id]).isEmpty)
    }

    /// A catalog an earlier Galley wrote (schema v4, without drawing times) is opened and
    /// brought up to date, its rows kept: the next run records times into it.
    @Test func aCatalogWithoutDrawingTimesIsUpgradedNotRefused() throws {
        let folder = try ScratchFolder("galley-catalog")
        let path = folder.path("catalog.sqlite").path
        do {
            let old = try DatabaseQueue(path: path)
            try Catalog.migrator.migrate(old, upTo: "v4: when documents finished")
            try old.write { db in
                try db.execute(sql: """
                    INSERT INTO document (sourcePath, contentHash, size, mtime, kind, pageCount, status, settings)
                    VALUES ('/in/a.pdf', 'h', 1, 2, 'pdf', 3, 'ok', 's')
                    """)
                #expect(try !db.columns(in: "document").contains { $0.name == "drawSeconds" })
            }
        }
        let catalog = try Catalog(path: path)
        #expect(try catalog.appliedMigrations().last == "v5: how long documents took to draw")
        let row = try #require(try catalog.documents()["/in/a.pdf"])
        #expect(row.pageCount == 3 && row.status == .ok && row.drawSeconds == nil)
        let id = try #require(row.id)
        try catalog.begin(DocumentRecord(sourcePath: "/in/a.pdf", contentHash: "h", size: 1, mtime: 2, kind: "pdf"))
        try catalog.finish(documentID: id, status: .ok, pageCount: 3, errorCode: nil, errorMessage: nil, settings: "s",
                           summary: nil, drawSeconds: 2.5, keeping: [])
        #expect(try Catalog(path: path).documents()["/in/a.pdf"]?.drawSeconds == 2.5)
    }

    /// A document's drawing time outlives a restart of its work and a run that drew none of it
    /// (nil), and goes with it when a shard's catalog is merged, unless the shard knows none.
    @Test func drawingTimesAreKeptUntilAnotherIsRecordedAndMergedWithTheirDocuments() throws {
        let folder = try ScratchFolder("galley-catalog")
        let catalog = try Catalog(path: folder.path("catalog.sqlite").path)
        let id = try #require(try catalog.begin(DocumentRecord(sourcePath: "/a", contentHash: "h", size: 1, mtime: 1, kind: "pdf")).id)
        try catalog.finish(documentID: id, status: .ok, pageCount: 1, errorCode: nil, errorMessage: nil, settings: "s",
                           summary: nil, drawSeconds: 7, keeping: [])
        try catalog.begin(DocumentRecord(sourcePath: "/a", contentHash: "h2", size: 2, mtime: 2, kind: "pdf"))
        #expect(try catalog.documents()["/a"]?.drawSeconds == 7)
        try catalog.finish(documentID: id, status: .ok, pageCount: 1, errorCode: nil, errorMessage: nil, settings: "s",
                           summary: nil, drawSeconds: nil, keeping: [])
        #expect(try catalog.documents()["/a"]?.drawSeconds == 7)

        let shard = try Catalog(path: folder.path("shard.sqlite").path)
        for (source, seconds) in [("/a", nil), ("/b", 0.25)] as [(String, Double?)] {
            let id = try #require(try shard.begin(DocumentRecord(sourcePath: source, contentHash: "x", size: 1, mtime: 1, kind: "pdf")).id)
            try shard.finish(documentID: id, status: .ok, pageCount: 1, errorCode: nil, errorMessage: nil, settings: "s",
                             summary: nil, drawSeconds: seconds, keeping: [])
        }
        try catalog.importDocuments(from: shard) { $0 }
        let merged = try catalog.documents()
        #expect(merged["/a"]?.drawSeconds == 7 && merged["/a"]?.contentHash == "x", "the shard knew no time for /a")
        #expect(merged["/b"]?.drawSeconds == 0.25)
    }

    @Test func marksLeftInProgressCountOnceForEachDeadRunAndContent() throws {
        let folder = try ScratchFolder("galley-catalog")
        let path = folder.path("catalog.sqlite").path
        let catalog = try Catalog(path: path)
        for (source, hash) in [("/in/poison.pdf", "bad"), ("/in/copy.pdf", "bad"), ("/in/fine.pdf", "good"), ("/in/gone.pdf", "gone")] {
            try catalog.begin(DocumentRecord(sourcePath: source, contentHash: hash, size: 1, mtime: 1, kind: "pdf"))
        }
        // A run that died with two copies of one content, and another file, open.
        try catalog.markInProgress(sourcePath: "/in/poison.pdf", contentHash: "bad", runID: "run-1")
        try catalog.markInProgress(sourcePath: "/in/copy.pdf", contentHash: "bad", runID: "run-1")
        try catalog.markInProgress(sourcePath: "/in/fine.pdf", contentHash: "good", runID: "run-1")
        try catalog.markInProgress(sourcePath: "/in/gone.pdf", contentHash: "gone", runID: "run-1")
        // A run whose document finished: its mark is gone, it counts nothing.
        try catalog.markInProgress(sourcePath: "/in/fine.pdf", contentHash: "good", runID: "run-2")
        try catalog.clearInProgress(sourcePath: "/in/fine.pdf", runID: "run-2", forgettingCrashesOf: nil)
        // The marks are on disk: a new connection, as the next process opens, finds them.
        let first = try Catalog(path: path).countCrashes()
        #expect(first.found.map(\.sourcePath).sorted() == ["/in/copy.pdf", "/in/fine.pdf", "/in/gone.pdf", "/in/poison.pdf"])
        #expect(first.crashes == ["bad": 1, "good": 1, "gone": 1], "two copies in one death count once")
        #expect(try catalog.inProgress().isEmpty)

        // The next run dies with the poison alone; the fine file finished normally; the gone
        // file's document was removed.
        try catalog.markInProgress(sourcePath: "/in/fine.pdf", contentHash: "good", runID: "run-3")
        try catalog.clearInProgress(sourcePath: "/in/fine.pdf", runID: "run-3", forgettingCrashesOf: "good")
        try catalog.markInProgress(sourcePath: "/in/poison.pdf", contentHash: "bad", runID: "run-3")
        let gone = try #require(try catalog.documents()["/in/gone.pdf"]?.id)
        try catalog.remove(documentIDs: [gone])
        let second = try catalog.countCrashes()
        #expect(second.found.map(\.runID) == ["run-3"])
        #expect(second.crashes == ["bad": 2])

        // An interrupted run clears its marks without counting them.
        try catalog.markInProgress(sourcePath: "/in/poison.pdf", contentHash: "bad", runID: "run-4")
        try catalog.clearInProgress(runID: "run-4")
        #expect(try catalog.countCrashes().crashes == ["bad": 2])
    }

    @Test func contentHashesAgreeWithIndependentValues() throws {
        // Known answers: SHA-256 and MD5 of "abc" (FIPS 180-2, RFC 1321).
        #expect(ContentHash.sha256(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(ContentHash.md5("abc") == "900150983cd24fb0d6963f7d28e17f72")
        let folder = try ScratchFolder("galley-catalog")
        try Data("abc".utf8).write(to: folder.path("f"))
        let file = try ContentHash.sha256(file: folder.path("f"))
        #expect(file.hash == ContentHash.sha256(Array("abc".utf8)) && file.bytes == 3)
        // Nothing at all, and the two-block message of FIPS 180-2.
        #expect(ContentHash.sha256([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(ContentHash.md5("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(ContentHash.sha256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func contentHashesOfFilesAreWhatSha256sumAndMd5sumSay() throws {
        // Every PDF fixture, and a file of 2.5 MiB that crosses the 1 MiB pieces a file is read in.
        let folder = try ScratchFolder("galley-catalog")
        let large = folder.path("large.bin")
        try Data((0..<(5 << 19)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }).write(to: large)
        let pdfs = try FileManager.default.contentsOfDirectory(at: Fixtures.pdfFolder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "pdf" }.sorted { $0.path < $1.path }
        #expect(pdfs.count >= 8)
        for url in pdfs + [large] {
            let peer = try PeerTools.run("sha256sum", [url.path])
            let expected = String(peer.stdout.prefix(64))
            let streamed = try ContentHash.sha256(file: url)
            #expect(streamed.hash == expected, "\(url.lastPathComponent)")
            #expect(ContentHash.sha256(Array(try Data(contentsOf: url))) == expected, "\(url.lastPathComponent)")
            #expect(streamed.bytes == (try Data(contentsOf: url)).count)
        }
        // MD5 names a freedesktop thumbnail after its file URI.
        for text in ["file:///home/jens/photos/me.png", "file:///tmp/%C3%A9t%C3%A9%20x.pdf", "ünïcödé"] {
            let path = folder.path("uri")
            try Data(text.utf8).write(to: path)
            #expect(ContentHash.md5(text) == String(try PeerTools.run("md5sum", [path.path]).stdout.prefix(32)), "\(text)")
        }
    }
}
