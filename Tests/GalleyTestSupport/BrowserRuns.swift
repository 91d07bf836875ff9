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
}
