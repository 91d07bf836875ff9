import Foundation
import GalleyBase
import GalleyManifest
import GalleyPipeline
import GalleyTestSupport
import Logging
import Testing

/// `index.html` while a run goes: there is something to look at before a long batch ends.
@Suite struct ProgressSheetTests {
    func configuration(_ folder: ScratchFolder, output: String) -> Configuration {
        var configuration = Configuration()
        configuration.baseDirectory = folder.url
        configuration.inputs = ["in"]
        configuration.output = output
        configuration.dpi = 36
        configuration.thumbnailBoxes = []
        configuration.workers = Configuration.Workers(all: 1)
        return configuration
    }

    @Test func theContactSheetIsWrittenWhileTheRunGoesAndReplacedAtTheEnd() throws {
        let folder = try ScratchFolder("progress-sheet")
        _ = try folder.copy(Fixtures.goodPDFs.prefix(4).map(Fixtures.pdf), into: "in")
        let seen = Mutex<[String]>([])
        let sheet = folder.path("out/index.html")
        var options = RunOptions()
        options.progressSheetInterval = 0  // every document, for the test (a run's default: every 5 s)
        _ = try Pipeline(configuration: configuration(folder, output: "out"), logger: Logger(label: "test")).run(options) { event in
            guard case .documentFinished(_, _, _, _, _, let done, let total) = event, done < total else { return }
            let html = (try? String(contentsOf: sheet, encoding: .utf8)) ?? ""
            seen.withLock { $0.append(html) }
        }
        let during = seen.withLock { $0 }
        #expect(during.count == 3)
        for (index, html) in during.enumerated() {
            #expect(html.contains("Run in progress: \(index + 1) of 4 documents done"), "\(html.prefix(1500))")
            #expect(html.contains("<meta http-equiv=\"refresh\""))
        }
        // The end: the run's own sheet, the same bytes as a run that wrote none on the way.
        let final = try String(contentsOf: sheet, encoding: .utf8)
        #expect(!final.contains("Run in progress") && !final.contains("http-equiv"))
        var quiet = RunOptions()
        quiet.progressSheetInterval = nil
        _ = try Pipeline(configuration: configuration(folder, output: "quiet"), logger: Logger(label: "test")).run(quiet)
        #expect(try String(contentsOf: folder.path("quiet/index.html"), encoding: .utf8) == final)
    }
}
