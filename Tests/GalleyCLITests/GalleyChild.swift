import Foundation
import Synchronization

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

/// The built `galley` started as a child process, its output read as it comes.
enum GalleyChild {
    /// `environment`: variables added to this process's for the child.
    static func start(_ arguments: [String], in folder: URL, environment: [String: String] = [:]) throws -> (Process, LiveOutput) {
        let process = Process()
        process.executableURL = GalleyCommandTests.binary
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = folder
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let output = LiveOutput(pipe)
        try process.run()
        return (process, output)
    }
}
