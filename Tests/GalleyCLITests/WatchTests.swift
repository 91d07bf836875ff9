import Foundation
import GalleyTestSupport
import Synchronization
import Testing

/// What a running child process has printed so far (stdout and stderr together).
final class LiveOutput: Sendable {
    private let text = Mutex("")

    init(_ pipe: Pipe) {
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            self.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
    }

    var current: String { text.withLock { $0 } }

    /// Waits until the output holds `needle` `count` times; false after `timeout` seconds.
    func wait(for needle: String, count: Int = 1, timeout: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if current.components(separatedBy: needle).count - 1 >= count { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}

/// `galley watch` as a child process: changes are picked up once settled, Ctrl-C stops it.
@Suite struct WatchTests {
    func start(_ arguments: [String], in folder: URL) throws -> (Process, LiveOutput) {
        let process = Process()
        process.executableURL = GalleyCommandTests.binary
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = LiveOutput(pipe)
        try process.run()
        return (process, output)
    }

    @Test func changesAreProcessedOnceSettledAndCtrlCStopsWithStatus130() throws {
        let folder = try ScratchFolder("galley-watch")
        let docs = try folder.copy([Fixtures.pdf("photo.pdf")], into: "docs")
        try "inputs: [docs]\ndpi: 30\nthumbnails: [32]\ninbox: inbox\nwatch_debounce: 1.0\n"
            .write(to: folder.path("pipeline.yml"), atomically: true, encoding: .utf8)
        let (process, output) = try start(["watch"], in: folder.url)
        defer { if process.isRunning { process.terminate() } }
        #expect(output.wait(for: "images drawn"), "the first run: \(output.current)")

        // A file written in pieces, each sooner than the debounce time: one run, once it is whole.
        let source = try Data(contentsOf: Fixtures.pdf("article.pdf"))
        let handle = try FileHandle(forWritingTo: { () -> URL in
            let url = docs.appendingPathComponent("growing.pdf")
            FileManager.default.createFile(atPath: url.path, contents: nil)
            return url
        }())
        let piece = source.count / 6 + 1
        for start in stride(from: 0, to: source.count, by: piece) {
            try handle.write(contentsOf: source[start..<min(source.count, start + piece)])
            Thread.sleep(forTimeInterval: 0.15)
        }
        try handle.close()
        #expect(output.wait(for: "growing.pdf → growing/: 4 pages"), "\(output.current)")
        #expect(!output.current.contains("FAILED"), "never read half-written: \(output.current)")
        #expect(output.current.components(separatedBy: "images drawn").count - 1 == 2, "one run for the whole write")

        // A file dropped in the inbox is moved into the library and processed; a different file
        // with a taken name does not replace the library's.
        try FileManager.default.copyItem(at: Fixtures.pdf("landscape.pdf"), to: folder.path("inbox/photo.pdf"))
        #expect(output.wait(for: "inbox: photo.pdf → photo-2.pdf"), "\(output.current)")
        #expect(output.wait(for: "photo-2.pdf → photo-2/: 1 page"), "\(output.current)")
        #expect(FileManager.default.contentsEqual(atPath: docs.appendingPathComponent("photo.pdf").path, andPath: Fixtures.pdf("photo.pdf").path))
        #expect(FileManager.default.contentsEqual(atPath: docs.appendingPathComponent("photo-2.pdf").path, andPath: Fixtures.pdf("landscape.pdf").path))
        #expect(!FileManager.default.fileExists(atPath: folder.path("inbox/photo.pdf").path))

        // A deleted file's outputs go.
        try FileManager.default.removeItem(at: docs.appendingPathComponent("growing.pdf"))
        #expect(output.wait(for: "outputs of 1 vanished document removed"), "\(output.current)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("out/growing").path))

        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(output.wait(for: "stopped watching", timeout: 5))
    }
}
