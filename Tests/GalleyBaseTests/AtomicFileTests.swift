import Foundation
import GalleyBase
import GalleyTestSupport
import Testing

/// Outputs appear whole or not at all.
struct AtomicFileTests {
    @Test func writesTheBytesAndMakesMissingFolders() throws {
        let folder = try ScratchFolder()
        let destination = folder.url.appendingPathComponent("doc/thumbs/128/page-0001.png").path
        let temporary = folder.url.appendingPathComponent(".galley/tmp/1.tmp").path
        try AtomicFile.write([1, 2, 3], to: destination, through: temporary)
        #expect(FileManager.default.contents(atPath: destination) == Data([1, 2, 3]))
        #expect(!FileManager.default.fileExists(atPath: temporary))
        // Replacing an existing file leaves the new bytes only.
        try AtomicFile.write([9], to: destination, through: temporary)
        #expect(FileManager.default.contents(atPath: destination) == Data([9]))
    }

    @Test func aFailedRenameLeavesNothingBehind() throws {
        let folder = try ScratchFolder()
        // The destination is a non-empty folder: the rename fails after the bytes were written.
        let destination = folder.url.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: destination.appendingPathComponent("inside"), withIntermediateDirectories: true)
        let temporary = folder.url.appendingPathComponent("tmp/1.tmp").path
        let error = #expect(throws: OutputError.self) {
            try AtomicFile.write([1, 2, 3], to: destination.path, through: temporary)
        }
        #expect(error?.path == destination.path)
        #expect(error?.message.hasPrefix("cannot rename into place") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.appendingPathComponent("tmp").path).isEmpty)
    }

    @Test func aFolderThatCannotBeMadeIsNamed() throws {
        let folder = try ScratchFolder()
        let file = folder.url.appendingPathComponent("plain-file")
        try Data([0]).write(to: file)
        let error = #expect(throws: OutputError.self) {
            try AtomicFile.makeFolders(file.appendingPathComponent("below").path)
        }
        #expect(error?.message.contains("cannot create the folder \(file.path)") == true)
    }
}
