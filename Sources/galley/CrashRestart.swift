import Foundation

/// A run that dies of a fatal signal starts again in the same process, so the batch still
/// ends with a manifest even in a fresh output folder.
///
/// The catalog marks each document in progress before it is opened, on disk. When the process
/// dies (a crash in MuPDF, a trap in Galley, an abort on a failed allocation), the signal
/// handler writes one line to standard error and `execve`s `/proc/self/exe` with the same
/// arguments and `GALLEY_CRASH_RESTART` counting the restarts. The new image is a new run into
/// the same output folder: it counts the marks the death left as crashes, draws the documents
/// that were open last and one at a time, quarantines one open at two deaths as `crashed`, and
/// writes the manifest, which names them. Documents finished before the death are kept, not
/// drawn again. The pid, the terminal, the pipes and the parent stay the same, so a caller
/// (CI, `timeout`, a shell) sees one process that finished, with the exit status of the
/// finished run.
///
/// A kill the kernel does not let a process catch (SIGKILL, as the out-of-memory killer
/// sends) leaves the marks for the next run, which quarantines in the same way.
///
/// Written on the system calls because there is nothing else to use inside a signal handler:
/// every buffer (arguments, environment, messages) is made before, when the handler is
/// installed, and the handler calls only `write` and `execve`, which are async-signal-safe. It
/// runs on an alternate stack, so a stack overflow can restart too.
enum CrashRestart {
    /// Restarts one run may make; past them the next death is final.
    static let limit = 8
    static let variable = "GALLEY_CRASH_RESTART"
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT]

    /// Restarts made so far in this run (0 in a process started by the user).
    static var restarts: Int { ProcessInfo.processInfo.environment[variable].flatMap(Int.init) ?? 0 }

    /// When the first attempt of this run started (seconds since 1970), in a restarted run.
    static var runStartedAt: Double? {
        restarts > 0 ? ProcessInfo.processInfo.environment[startedVariable].flatMap(Double.init) : nil
    }
    static let startedVariable = "GALLEY_CRASH_RUN_STARTED"

    /// Installs the handler, unless the restarts are used up or `GALLEY_CRASH_RESTART=off`
    /// turns restarting off (to see the runtime's own crash report).
    static func install() {
        let environment = ProcessInfo.processInfo.environment
        guard environment[variable] != "off", restarts < limit else { return }
        let next = restarts + 1
        // Every pointer below lives until the process ends or replaces itself.
        let started = runStartedAt ?? Date().timeIntervalSince1970
        var entries = environment.filter { $0.key != variable && $0.key != startedVariable }.map { "\($0.key)=\($0.value)" }.sorted()
        entries += ["\(variable)=\(next)", "\(startedVariable)=\(started)"]
        let envp = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: entries.count + 1)
        for (index, entry) in entries.enumerated() { envp[index] = strdup(entry) }
        envp[entries.count] = nil
        State.environment = envp
        State.arguments = CommandLine.unsafeArgv
        State.executable = strdup("/proc/self/exe")
        let messages = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 65)
        for number in 0..<65 {
            let name = signals.contains(Int32(number)) ? String(cString: strsignal(Int32(number))) : "signal \(number)"
            messages[number] = strdup("""
                galley: the run died (\(name)); starting it again (restart \(next) of \(limit)): documents that were open \
                are drawn last, one at a time, and one open at two deaths fails as crashed\n
                """)
        }
        State.messages = messages
        // An alternate stack, so a stack overflow can run the handler.
        let size = 1 << 16
        var stack = stack_t()
        stack.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        stack.ss_size = size
        stack.ss_flags = 0
        sigaltstack(&stack, nil)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            if let message = State.messages?[Int(number)] { _ = write(2, message, strlen(message)) }
            if let executable = State.executable, let arguments = State.arguments, let environment = State.environment {
                execve(executable, arguments, environment)
            }
            // The exec failed: die of the signal as if no handler were there.
            signal(number, SIG_DFL)
            raise(number)
        }
        action.sa_flags = SA_ONSTACK | SA_NODEFER
        sigemptyset(&action.sa_mask)
        for number in signals { sigaction(number, &action, nil) }
    }

    /// What the handler reads: set once by `install`, before the handler can run, and never
    /// changed after, so the unsynchronised reads from the handler see final values.
    private enum State {
        nonisolated(unsafe) static var executable: UnsafeMutablePointer<CChar>?
        nonisolated(unsafe) static var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        nonisolated(unsafe) static var environment: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        nonisolated(unsafe) static var messages: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    }
}
