import Foundation
import GalleyTestSupport
import Testing

/// `galley thumbs --freedesktop`, checked by an independent PNG reader (Python's zlib and
/// struct in scripts/check-freedesktop-thumbnails.py).
@Suite struct FreedesktopThumbnailTests {
    static let checker = Fixtures.repositoryRoot.appendingPathComponent("scripts/check-freedesktop-thumbnails.py").path

    @Test func thumbnailsFollowTheStandardAndOnlyStaleOnesAreRemade() throws {
        let folder = try ScratchFolder("galley-freedesktop")
        let docs = try folder.copy([Fixtures.pdf("article.pdf"), Fixtures.pdf("landscape.pdf"),
                                    Fixtures.articlesFolder.appendingPathComponent("plain-book.txt")], into: "docs")
        // A name that needs percent-encoding (space, non-ASCII) and one GLib leaves alone (parentheses).
        try FileManager.default.moveItem(at: docs.appendingPathComponent("landscape.pdf"), to: docs.appendingPathComponent("Wide (1) é.pdf"))
        try Data("not a pdf".utf8).write(to: docs.appendingPathComponent("broken.pdf"))
        try "inputs: [docs]\n".write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let thumbnails = folder.path("thumbnails")

        let first = try PeerTools.run(GalleyCommandTests.binary.path, ["thumbs", "--freedesktop", thumbnails.path], in: folder.url)
        #expect(first.status == 1, "the broken file is a failure: \(first.stderr)")
        #expect(first.stdout.contains("3 written, 0 fresh, 1 failed"), "\(first.stdout)")
        let good = ["article.pdf", "Wide (1) é.pdf", "plain-book.txt"].map { docs.appendingPathComponent($0).path }
        let check = try PeerTools.run("python3", [Self.checker, thumbnails.path] + good)
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("0 problem(s)"))
        for size in ["normal", "large", "x-large", "xx-large"] {
            #expect((try FileManager.default.contentsOfDirectory(atPath: thumbnails.appendingPathComponent(size).path)).count == 3)
        }
        let failures = try FileManager.default.contentsOfDirectory(atPath: thumbnails.appendingPathComponent("fail/galley-0.1.0").path)
        #expect(failures.count == 1)

        // Nothing changed: nothing is made, the failure is not retried.
        let second = try PeerTools.run(GalleyCommandTests.binary.path, ["thumbs", "--freedesktop", thumbnails.path], in: folder.url)
        #expect(second.stdout.contains("0 written, 4 fresh, 0 failed"), "\(second.stdout)")

        // A new modification time makes one thumbnail stale; a vanished file's go with --prune.
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: good[0])
        try FileManager.default.removeItem(atPath: good[2])
        let third = try PeerTools.run(GalleyCommandTests.binary.path, ["thumbs", "--freedesktop", thumbnails.path, "--prune"], in: folder.url)
        #expect(third.stdout.contains("1 written, 2 fresh, 0 failed, 4 of vanished files removed"), "\(third.stdout)")
        let recheck = try PeerTools.run("python3", [Self.checker, thumbnails.path] + good.prefix(2))
        #expect(recheck.status == 0, "\(recheck.stdout)")
    }
}
