import ArgumentParser
import Foundation
import GalleyBase
import GalleyManifest
import GalleyPipeline
import GalleyText

/// `galley typeset`: lays articles out in the configured layouts and reports pages, lines and
/// timings, writing nothing. For checking a layout and for benchmarks.
struct Typeset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "typeset",
        abstract: "Typeset articles in each configured layout and report pages, lines (--lines: every line) and timings; writes nothing but --pdf.",
        discussion: """
            --render also draws every page at the configured dpi (no PNG encoding). With --jobs 1 (the default) \
            everything runs on one thread; with more, one thread typesets while that many draw the finished pages, \
            as `galley run` does. --pdf writes the pages as vector PDF, as `pdf: true` does in a run.
            """)

    @Option(name: .long, help: "The configuration file (its layouts, fonts and dpi are used; without one, the defaults).", completion: .configurationFile)
    var config: String = "pipeline.yml"

    @Option(name: .long, help: "Page image resolution in pixels per inch, for --render.")
    var dpi: Double?

    @Flag(name: .long, help: "Also draw every page, to time rendering.")
    var render = false

    @Option(name: .long, help: "Threads drawing pages for --render (1: typeset and draw on one thread).")
    var jobs: Int = 1

    @Option(name: .long, help: "Documents typeset at once, each on a thread of its own (1: one after the other, for timings undisturbed by another; default: the number of cores).")
    var documents: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Flag(name: .long, help: "Also list every line: page, column, text range, element, how it was spread, its text.")
    var lines = false

    @Option(name: .long, help: ArgumentHelp("Also write each article's pages as vector PDF: to this file for one article in one layout, else into this folder as <article>.<layout>.pdf.", valueName: "path"), completion: .file(extensions: ["pdf"]))
    var pdf: String?

    @Argument(help: "Article files (.html, .htm, .xhtml, .txt).", completion: .file())
    var files: [String]

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1 (got \(jobs))") }
        guard documents >= 1 else { throw ValidationError("--documents must be at least 1 (got \(documents))") }
    }

    func run() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var configuration = try Galley.loadConfiguration(config)
        if let dpi { configuration.dpi = dpi }
        let fonts: FontLibrary = try CommandFailure.catching { try configuration.fontLibrary() }
        // Documents side by side (the font library and its faces are shared, as a run's
        // workers share them); results and errors are reported in the order of the files.
        let outcomes = Mutex([Result<TypesetMeasurement, any Error>?](repeating: nil, count: files.count))
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = min(documents, max(1, files.count))
        // One article in one layout: the path is the PDF; else a folder of them.
        let pdfFolder = pdf.map { files.count == 1 && configuration.layouts.count == 1 ? nil : URL(fileURLWithPath: $0, relativeTo: cwd).path } ?? nil
        if let pdfFolder { try CommandFailure.catching { try AtomicFile.makeFolders(pdfFolder) } }
        for (index, file) in files.enumerated() {
            let (configuration, render, jobs, lines) = (configuration, render, jobs, lines)
            let pdfPath: (@Sendable (String) -> String)? = pdf.map { pdf in
                let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                return { layout in pdfFolder.map { "\($0)/\(stem).\(layout).pdf" } ?? URL(fileURLWithPath: pdf, relativeTo: cwd).path }
            }
            queue.addOperation {
                let outcome = Result { try TypesetMeasurement.measure(file: URL(fileURLWithPath: file, relativeTo: cwd), configuration: configuration,
                                                                      fonts: fonts, render: render, jobs: jobs, lines: lines,
                                                                      frames: json || lines, pdf: pdfPath) }
                outcomes.withLock { $0[index] = outcome }
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        var results: [TypesetMeasurement] = []
        var failed = false
        for (file, outcome) in zip(files, outcomes.withLock { $0 }) {
            switch outcome {
            case .success(let result)?: results.append(result)
            case .failure(let error)?:
                FileHandle.standardError.write(Data("galley: \(file): \(error)\n".utf8))
                failed = true
            case nil: failed = true
            }
        }
        if json {
            let encoder = Manifest.encoder(pretty: true)
            let data = try encoder.encode(["documents": results])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for result in results {
                print("\(result.source): \(result.textLength) characters")
                for layout in result.layouts {
                    var line = "  \(layout.name): \(layout.pages) pages, \(layout.lines) lines (\(layout.justifiedLines) justified, "
                        + "\(layout.hyphenatedLines) hyphenated, \(layout.looseLines) loose, badness \(Int(layout.badness.rounded()))), "
                        + "typeset \(String(format: "%.3f", layout.typesetSeconds)) s"
                    if let pdfSeconds = layout.pdfSeconds { line += String(format: ", pdf %.3f s", pdfSeconds) }
                    if render {
                        line += String(format: ", render %.3f s, wall %.3f s (%.1f pages/s)", layout.renderSeconds, layout.wallSeconds,
                                       Double(layout.pages) / max(1e-9, layout.wallSeconds))
                    }
                    print(line)
                    for table in lines ? layout.tables ?? [] : [] {
                        print("    p\(table.page ?? 0) c\(table.column) table \(table.table)"
                              + (table.parent.map { " (in table \($0))" } ?? "") + ": rows [\(table.rows[0]), \(table.rows[1])) of \(table.rowCount), "
                              + "\(table.columnCount) columns, \(table.cells?.count ?? 0) cells"
                              + (table.scale < 1 ? String(format: ", font at %.0f%%", table.scale * 100) : "")
                              + String(format: ", %.1f × %.1f pt at (%.1f, %.1f)", table.rect.width, table.rect.height, table.rect.x, table.rect.y))
                    }
                    for box in lines ? layout.boxes ?? [] : [] {
                        let open = [box.starts ? nil : "open at the start", box.ends ? nil : "open at the end"].compactMap { $0 }
                        print("    p\(box.page ?? 0) c\(box.column) box \(box.box)" + (open.isEmpty ? "" : " (\(open.joined(separator: ", ")))")
                              + String(format: ": %.1f × %.1f pt at (%.1f, %.1f)", box.rect.width, box.rect.height, box.rect.x, box.rect.y))
                    }
                    for detail in layout.lineDetails ?? [] {
                        var flags = [detail.justified ? "justified" : nil, detail.hyphenated ? "hyphenated" : nil,
                                     detail.loose ? "loose" : nil, detail.wrappedPreformatted ? "wrapped" : nil].compactMap { $0 }
                        if let ratio = detail.spaceRatio { flags.append(String(format: "spaces %+.2f", ratio)) }
                        if let gap = detail.letterGap { flags.append(String(format: "letters +%.2f pt", gap)) }
                        let text = detail.text.replacingOccurrences(of: "\n", with: "⏎").replacingOccurrences(of: "\u{2028}", with: "↵")
                        print("    p\(detail.page) c\(detail.column) [\(detail.textRange[0]), \(detail.textRange[1])) \(detail.element) "
                              + String(format: "%.1f pt", detail.width) + (flags.isEmpty ? "" : " " + flags.joined(separator: ", "))
                              + ": \(text)")
                    }
                }
            }
        }
        if failed { throw ExitCode(Galley.Status.someFailed) }
    }
}
