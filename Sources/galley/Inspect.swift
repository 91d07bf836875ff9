import ArgumentParser
import Foundation
import GalleyManifest
import GalleyPipeline

/// `galley inspect`: what each document is and what a run would make of it, without drawing.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe documents: kind, pages, page sizes and rotation, encryption, title, author, links; for articles, the pages each layout would produce.",
        discussion: """
            Files, folders (searched as `galley run` searches inputs) and globs. Passwords, layouts and \
            fonts come from the configuration file. Exit status 0 when every document could be read, \
            1 when one or more could not (each with the code a run would record), 2 for bad usage.
            """)

    @Option(name: .long, help: "The configuration file (passwords, layouts, fonts; without one, the defaults).", completion: .configurationFile)
    var config: String = "pipeline.yml"

    @Flag(name: .long, help: "Print JSON (one object with a `documents` array) instead of text.")
    var json = false

    @Argument(help: "PDF and article files, folders or globs.", completion: .file())
    var paths: [String]

    func run() throws {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        var configuration = try Galley.loadConfiguration(config)
        configuration.inputs = paths
        configuration.inputBaseDirectory = cwd
        let scan = try CommandFailure.catching { try InputScanner(configuration: configuration).scan() }
        for warning in scan.warnings { FileHandle.standardError.write(Data("galley: \(warning)\n".utf8)) }
        let documents = scan.documents
        if documents.isEmpty { throw CommandFailure("no PDF or article (.pdf, .html, .htm, .xhtml, .txt) in \(paths.joined(separator: " "))") }
        let inspector = try CommandFailure.catching { try Inspector(configuration: configuration) }
        let inspections = documents.map { document in
            var inspection = inspector.inspect(document)
            // Paths as the user gave them: relative to the current folder when inside it.
            let prefix = cwd.path.hasSuffix("/") ? cwd.path : cwd.path + "/"
            if inspection.path.hasPrefix(prefix) { inspection.path.removeFirst(prefix.count) }
            return inspection
        }
        if json {
            let encoder = Manifest.encoder(pretty: true)
            print(String(decoding: try encoder.encode(InspectReport(documents: inspections)), as: UTF8.self))
        } else {
            for inspection in inspections { print(Self.describe(inspection)) }
        }
        if inspections.contains(where: { $0.error != nil }) { throw ExitCode(Galley.Status.someFailed) }
    }

    /// A few lines a person reads: the facts, then pages grouped by equal size and rotation.
    static func describe(_ inspection: Inspection) -> String {
        var lines = ["\(inspection.path)"]
        func add(_ label: String, _ value: String?) {
            if let value { lines.append("  \(label): \(value)") }
        }
        add("kind", inspection.kind == .pdf ? "PDF" : "article")
        add("size", inspection.bytes.map { "\($0) bytes" })
        add("error", inspection.error.map { "\($0)" })
        add("encryption", inspection.encrypted == false ? "none" : inspection.encryption)
        if inspection.repaired == true { add("repaired", "yes (damaged cross-reference table rebuilt)") }
        add("title", inspection.title)
        add("author", inspection.author)
        add("language", inspection.language ?? inspection.guessedLanguage.map { "\($0) (guessed from its letters)" })
        add("text", inspection.textLength.map { "\($0) characters" })
        add("images", inspection.imageCount.map(String.init))
        add("links", inspection.linkCount.map(String.init))
        if let pages = inspection.pages {
            add("pages", "\(pages.count)")
            var start = 0
            while start < pages.count {
                let first = pages[start]
                var end = start + 1
                while end < pages.count, pages[end].widthPt == first.widthPt, pages[end].heightPt == first.heightPt,
                      pages[end].rotation == first.rotation { end += 1 }
                let range = end - start == 1 ? "page \(first.number)" : "pages \(first.number)–\(pages[end - 1].number)"
                let rotation = first.rotation == 0 ? "" : ", rotated \(first.rotation)°"
                lines.append("    \(range): \(format(first.widthPt)) × \(format(first.heightPt)) pt\(rotation)")
                start = end
            }
        }
        for layout in inspection.layouts ?? [] {
            var line = "  layout \(layout.name): \(layout.pageCount) page\(layout.pageCount == 1 ? "" : "s") "
                + "(\(format(layout.widthPt)) × \(format(layout.heightPt)) pt, \(layout.columns) "
                + (layout.writingMode == "vertical-rl" ? "band\(layout.columns == 1 ? "" : "s"), vertical" : "column\(layout.columns == 1 ? "" : "s")") + ")"
            if let error = layout.error { line += ": FAILS \(error)" }
            lines.append(line)
        }
        for warning in inspection.warnings ?? [] { lines.append("  warning: \(warning)") }
        return lines.joined(separator: "\n")
    }

    private static func format(_ points: Double) -> String {
        points == points.rounded() ? String(Int(points)) : String(format: "%.1f", points)
    }
}
