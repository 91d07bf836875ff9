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

extension Process {
    /// The CPU time the running process has used (user and system, from /proc), in seconds;
    /// nil once it is gone. A clock of its own work, which a loaded machine does not stretch.
    var cpuSeconds: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(processIdentifier)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // After the command name: state, then fields 4 to 52; utime and stime are 14 and 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Waits until the process has used `seconds` of CPU time; false if it ended first.
    func waitForCPU(_ seconds: Double) -> Bool {
        while let used = cpuSeconds, isRunning {
            if used >= seconds { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }
}
