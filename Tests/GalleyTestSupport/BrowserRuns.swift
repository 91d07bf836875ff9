import Foundation

/// Runs of headless Chromium whose outcome depends on timing the page cannot control.
///
/// Headless Chromium draws a screenshot, or runs a page's script, when its virtual time runs
/// out. On a loaded machine (the suite runs tests in parallel, several browsers at once) it
/// sometimes gets there with pictures still being fetched or decoded: a screenshot without the
/// pictures, a probe that saw them in flight. Such a run says nothing about the page. A page
/// that really lacks its pictures lacks them every time, so a run is repeated, up to
/// `attempts` times, only while its result is the one a slow browser alone would give; the
/// last result is returned for the test to judge, so a page that never shows them still fails.
public enum BrowserRuns {
    /// Set by `scripts/sanitize.sh`: the tests that look at pages in Chromium run in the plain
    /// test step only. The browser is a process of its own, so the thread sanitizer sees
    /// nothing of it, and the pipelines those tests run are run by other suites under it.
    public static let skipped = ProcessInfo.processInfo.environment["GALLEY_TESTS_WITHOUT_BROWSER"] != nil

    /// A repeat is said on standard error, so a test log shows how often the browser was slow.
    ///
    /// Between attempts the test waits, longer each time (1, 2, 4… s): the load that starved
    /// the browser is the suite's other tests, which finish.
    public static func repeated<Result>(attempts: Int = 5, until finished: (Result) -> Bool,
                                        file: String = #fileID, line: Int = #line,
                                        _ run: () throws -> Result) throws -> Result {
        var result = try run()
        var attempt = 1
        while !finished(result) && attempt < attempts {
            Thread.sleep(forTimeInterval: Double(1 << (attempt - 1)))
            attempt += 1
            FileHandle.standardError.write(Data("headless Chromium run at \(file):\(line) repeated (attempt \(attempt) of \(attempts))\n".utf8))
            result = try run()
        }
        return result
    }

    /// Runs `scripts/screenshot-contact-sheet.sh` with `arguments`, again (up to `attempts`
    /// times) when headless Chromium wrote nothing: on a loaded machine it sometimes dies or
    /// is killed before writing its screenshot or document, which says nothing about the page
    /// either. A script that never succeeds throws with its last error output.
    public static func screenshotScript(_ arguments: [String], attempts: Int = 3,
                                        file: String = #fileID, line: Int = #line) throws {
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/screenshot-contact-sheet.sh").path
        var outcome = try PeerTools.run("bash", [script] + arguments)
        var attempt = 1
        while outcome.status != 0 && attempt < attempts {
            Thread.sleep(forTimeInterval: Double(1 << (attempt - 1)))
            attempt += 1
            FileHandle.standardError.write(Data("headless Chromium at \(file):\(line) wrote nothing; run again (attempt \(attempt) of \(attempts)): \(outcome.stderr)\n".utf8))
            outcome = try PeerTools.run("bash", [script] + arguments)
        }
        if outcome.status != 0 { throw BrowserFailure(message: "headless Chromium wrote nothing in \(attempts) attempts: \(outcome.stderr)") }
    }
}

public struct BrowserFailure: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
