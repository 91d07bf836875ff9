import ArgumentParser
import Foundation
import GalleyBase
import GalleyPipeline

/// How `galley run` shows a run going on.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// `bar` on a terminal, `plain` otherwise (pipes, files, `CI=true`).
    case auto
    /// One line redrawn in place on standard error, cleared at the end.
    case bar
    /// A line per finished document and a status line every `--progress-interval` seconds.
    case plain
    /// One JSON object per event on standard output (the summary goes to standard error).
    case json
    /// Only the final summary.
    case none

    /// `auto` made concrete for this process.
    var resolved: ProgressMode {
        guard self == .auto else { return self }
        let ci = ["true", "1", "yes"].contains(ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? "")
        return isatty(STDERR_FILENO) == 1 && !ci ? .bar : .plain
    }
}

/// Shows a run's progress as its events arrive, from the pipeline's threads.
///
/// Counts live behind a mutex; output is written while holding it, so lines never interleave.
/// The bar is redrawn at most ten times a second, the plain status line on a timer.
final class ProgressReporter: Sendable {
    private struct State {
        var started = ContinuousClock.now
        var documents = 0
        var documentsDone = 0
        var pagesDone = 0
        var pagesKnown = 0
        var failed = 0
        var lastDraw: ContinuousClock.Instant?
        var barShown = false
        var finished = false
    }

    let mode: ProgressMode
    private let state = Mutex(State())

    init(mode: ProgressMode, interval: Double) {
        self.mode = mode.resolved
        switch self.mode {
        case .plain where interval > 0: scheduleTick(after: interval)
        case .bar: scheduleTick(after: 0.5)  // elapsed time moves on while a long page draws
        default: break
        }
    }

    /// Every `interval` seconds until the run finishes: the plain status line, or the bar
    /// redrawn.
    private func scheduleTick(after interval: Double) {
        DispatchQueue.global().asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self else { return }
            let finished = self.state.withLock { state -> Bool in
                guard !state.finished else { return true }
                if self.mode == .bar {
                    self.drawBar(&state, force: true)
                } else {
                    self.write("galley: progress: " + Self.describe(state, long: true) + "\n")
                }
                return false
            }
            if !finished { self.scheduleTick(after: interval) }
        }
    }

    func handle(_ event: PipelineEvent) {
        state.withLock { state in
            switch event {
            case let .documentStarted(name, source, index, total):
                state.documents = total
                emitJSON(["event": "document_started", "document": name, "source": source, "index": index, "total": total])
            case let .pageFinished(name, page, layout, pagesDone, pagesKnown):
                state.pagesDone = pagesDone
                state.pagesKnown = max(pagesKnown, pagesDone)
                var object: [String: Any] = ["event": "page_done", "document": name, "page": page, "pages_done": pagesDone,
                                             "pages_known": state.pagesKnown]
                if let layout { object["layout"] = layout }
                emitJSON(object)
            case let .documentFinished(name, source, status, pages, failure, done, total):
                state.documents = total
                state.documentsDone = done
                if status == .unchanged {
                    state.pagesDone += pages
                    state.pagesKnown = max(state.pagesKnown + pages, state.pagesDone)
                }
                if let failure {
                    state.failed += 1
                    emitJSON(["event": "document_failed", "document": name, "source": source, "pages": pages, "done": done,
                              "total": total, "error": Self.object(failure)])
                } else {
                    emitJSON(["event": "document_finished", "document": name, "source": source, "status": status.rawValue,
                              "pages": pages, "done": done, "total": total])
                }
                switch mode {
                case .plain:
                    write(Run.line(for: event) + "\n")
                case .bar where failure != nil:
                    // Failures stay on screen above the bar.
                    write("\r\u{1B}[2K" + Run.line(for: event) + "\n")
                    state.barShown = false
                default:
                    break
                }
            }
            if mode == .bar { drawBar(&state, force: false) }
        }
    }

    /// Clears the bar and stops the timer; in JSON mode, reports the run's end.
    func finish(_ summary: RunSummary, status: Int32) {
        state.withLock { state in
            state.finished = true
            if state.barShown { write("\r\u{1B}[2K") }
            state.barShown = false
            guard mode == .json else { return }
            var object: [String: Any] = ["event": "run_finished", "seconds": (summary.duration * 1000).rounded() / 1000,
                                         "output": summary.outputFolder.path, "exit_status": Int(status),
                                         "interrupted": summary.outcome == .interrupted]
            if let totals = summary.manifest?.totals {
                object.merge(["documents": totals.documents, "ok": totals.ok, "failed": totals.failed, "unchanged": totals.unchanged,
                              "pages": totals.pages, "manifest": summary.outputFolder.appendingPathComponent("manifest.json").path]) { $1 }
            }
            emitJSON(object)
        }
    }

    private func drawBar(_ state: inout State, force: Bool) {
        let now = ContinuousClock.now
        if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return }
        state.lastDraw = now
        var line = "galley " + Self.describe(state, long: false)
        let width = Self.terminalWidth()
        if line.count >= width { line = String(line.prefix(max(1, width - 1))) }
        write("\r\u{1B}[2K" + line)
        state.barShown = true
    }

    /// `12/40 documents · 230/412 pages · 45.2 pages/s · 0:05 elapsed · ~0:04 left · 1 failed`.
    private static func describe(_ state: State, long: Bool) -> String {
        let elapsed = seconds(ContinuousClock.now - state.started)
        var parts = ["\(state.documentsDone)/\(state.documents) documents",
                     "\(state.pagesDone)/\(max(state.pagesKnown, state.pagesDone))\(state.documentsDone < state.documents ? "+" : "") pages"]
        if elapsed > 0 { parts.append(String(format: "%.1f pages/s", Double(state.pagesDone) / elapsed)) }
        parts.append("\(clock(elapsed)) elapsed")
        if state.documentsDone > 0, state.documentsDone < state.documents {
            let fraction = Double(state.documentsDone) / Double(state.documents)
            parts.append("\(long ? "about " : "~")\(clock(elapsed * (1 - fraction) / fraction)) left")
        }
        if state.failed > 0 { parts.append("\(state.failed) failed") }
        return parts.joined(separator: long ? ", " : " · ")
    }

    private static func object(_ failure: Failure) -> [String: Any] {
        var object: [String: Any] = ["code": failure.code.rawValue, "message": failure.message]
        if let page = failure.page { object["page"] = page }
        if let detail = failure.detail { object["detail"] = detail }
        return object
    }

    /// When an event happened: ISO 8601 in UTC with milliseconds (`2026-11-25T07:12:03.120Z`).
    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// One event as a line of JSON (`schemas/progress-event.schema.json`), with its `time`.
    private func emitJSON(_ object: [String: Any]) {
        guard mode == .json else { return }
        var object = object
        object["time"] = Date().formatted(Self.timeFormat)
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        FileHandle.standardOutput.write(data + Data([0x0A]))
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
            : String(format: "%d:%02d", total / 60, total % 60)
    }

    private static func terminalWidth() -> Int {
        var size = winsize()
        return ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 10 ? Int(size.ws_col) : 100
    }
}
