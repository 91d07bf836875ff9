import Foundation
import GalleyBase
import GalleyPipeline
import GalleyRaster
import GalleyTestSupport
import Logging
import Testing

/// One process (here: one holder) per output folder; a lock left by a dead process never blocks.
@Suite struct OutputLockTests {
    @Test func aHeldFolderIsRefusedNamingTheHolderAndFreedWhenReleased() throws {
        let folder = try ScratchFolder("galley-lock")
        let output = folder.path("out")
        var held: OutputLock? = try OutputLock.acquire(output: output)
        // flock locks belong to an open file, so a second open in this process is refused like
        // another process would be.
        let error = #expect(throws: UsageError.self) { try OutputLock.acquire(output: output) }
        #expect(error?.subject == output.path)
        #expect(error?.message.hasPrefix("output folder in use by galley (pid \(getpid())) since ") == true, "\(String(describing: error))")
        #expect(held != nil)
        held = nil
        #expect(throws: Never.self) { _ = try OutputLock.acquire(output: output) }
    }

    @Test func aLockFileLeftByADeadProcessDoesNotBlock() throws {
        let folder = try ScratchFolder("galley-lock")
        let output = folder.path("out")
        let lockFile = output.appendingPathComponent(".galley/lock")
        try FileManager.default.createDirectory(at: lockFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("999999 2020-01-01T00:00:00Z\n".utf8).write(to: lockFile)
        let lock = try OutputLock.acquire(output: output)
        let record = try String(contentsOf: lockFile, encoding: .utf8)
        #expect(record.hasPrefix("\(getpid()) "), "the new holder wrote itself in: \(record)")
        withExtendedLifetime(lock) {}
    }

    @Test func waitingTakesTheLockOnceReleasedAndStopsWhenCancelled() throws {
        let folder = try ScratchFolder("galley-lock")
        let output = folder.path("out")
        let first = Mutex<OutputLock?>(try OutputLock.acquire(output: output))
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { first.withLock { $0 = nil } }
        var told: [OutputLock.Holder] = []
        let second = try OutputLock.acquire(output: output, waiting: Cancellation()) { told.append($0) }
        #expect(second != nil)
        #expect(told.map(\.pid) == [getpid()], "told once whom it waits for")

        let cancellation = Cancellation()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { cancellation.cancel() }
        #expect(try OutputLock.acquire(output: output, waiting: cancellation) { _ in } == nil)
        withExtendedLifetime(second) {}
    }

    /// What broke two concurrent runs: the second removed the first's temporary folder.
    @Test func aRunIntoAHeldFolderFailsBeforeTouchingIt() throws {
        let folder = try ScratchFolder("galley-lock")
        _ = try folder.copy([Fixtures.pdf("landscape.pdf")], into: "in")
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        let lock = try OutputLock.acquire(output: configuration.outputURL)
        let inFlight = configuration.outputURL.appendingPathComponent(".galley/tmp/in-flight.tmp")
        try FileManager.default.createDirectory(at: inFlight.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("half a png".utf8).write(to: inFlight)
        let pipeline = Pipeline(configuration: configuration, logger: Logger(label: "test"))
        let error = #expect(throws: UsageError.self) { try pipeline.run() }
        #expect(error?.message.contains("output folder in use") == true)
        #expect(FileManager.default.fileExists(atPath: inFlight.path), "the holder's temporary file is untouched")
        // The holder runs with its own lock.
        #expect(try pipeline.run(lock: lock).outcome == .succeeded)
    }
}
