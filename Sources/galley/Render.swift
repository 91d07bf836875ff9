import ArgumentParser
import Foundation
import GalleyBase
import GalleyPipeline
import GalleyRaster

/// `galley render FILE… -o DIR`: the pages of a few files as images, no catalog, no manifest.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw the pages of the given files into a folder (no catalog, no manifest, no contact sheet).",
        discussion: """
            Writes DIR/<name>-0001.png, … for each file (an article set in several layouts: \
            <name>-<layout>-0001.png; .webp, .jpg or .avif with --format or format:). --format pdf writes each \
            article's pages as vector PDF instead: DIR/<name>.pdf (several layouts: <name>-<layout>.pdf); a PDF given \
            with it is a usage error (PDFs are drawn, never rewritten). Layouts, fonts and passwords come from the configuration file when there is \
            one (pipeline.yml in the current folder, or --config). Exit status 0 when every file was drawn, 1 when \
            one failed (the others are still drawn), 2 for bad usage.
            """)

    @Option(name: .long, help: "The configuration file (layouts, fonts, passwords; without one, the defaults).", completion: .configurationFile)
    var config: String = "pipeline.yml"

    @Option(name: [.short, .customLong("output")], help: "The folder to write into (made if missing).", completion: .directory)
    var output: String = "."

    @Option(name: .long, help: "Page image resolution in pixels per inch (1...2400).")
    var dpi: Double?

    @Option(name: .long, help: ArgumentHelp("Pages to draw: 1-3,7, first, last, 5-N.", valueName: "PAGES"))
    var pages: String?

    @Option(name: .long, help: "Image format: png, webp, jpeg or avif (default: format: in the configuration, else png); pdf for articles as vector PDF.", completion: .imageFormats)
    var format: String?

    @Option(name: .long, help: "Pages drawn at once (1...256).")
    var jobs: Int?

    @Option(name: .long, help: ArgumentHelp("The folder the articles' linked pictures and style sheets may come from (default: each file's own folder); every file must be under it.", valueName: "DIR"), completion: .directory)
    var root: String?

    @Argument(help: "PDFs and articles (.pdf, .html, .htm, .xhtml, .txt).", completion: .file())
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one file to draw") }
        if let dpi, !Configuration.dpiRange.contains(dpi) { throw ValidationError("--dpi \(dpi) is outside 1...2400") }
        if let jobs, !Configuration.workerRange.contains(jobs) { throw ValidationError("--jobs \(jobs) is outside 1...256") }
        if format != "pdf" { try Galley.validateFormat(format) }
        if let pages {
            do { _ = try PageSelection(parsing: pages) } catch { throw ValidationError("--pages \(pages): \(error.message)") }
            if format == "pdf" { throw ValidationError("--pages does not apply to --format pdf: the PDF holds every page of the article") }
        }
    }

    func run() throws {
        var configuration = try Galley.loadConfiguration(config)
        if let dpi { configuration.dpi = dpi }
        if let jobs { configuration.workers = Configuration.Workers(all: jobs) }
        if let pages { configuration.pageSelection = try? PageSelection(parsing: pages) }
        let rootURL = try root.map(Galley.rootFolder)
        if let format = format.flatMap(ImageFormat.init(rawValue:)) { configuration.format = format }
        let urls = try files.map { path throws(CommandFailure) -> URL in
            let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
            try Galley.checkSingleFile(url, named: path, root: rootURL)
            return url
        }
        let folder = URL(fileURLWithPath: output, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
        do {
            try AtomicFile.makeFolders(folder.path)
        } catch {
            throw CommandFailure("\(output): cannot make the folder: \(error.message)")
        }
        let cancellation = Cancellation()
        let signals = Run.cancelOnSignals(cancellation)
        defer { signals.forEach { $0.cancel() } }
        let renderer = SingleFile(configuration: configuration, root: rootURL)
        if format == "pdf" {
            let pdfs = zip(files, urls).filter { SingleFile.document($1, root: rootURL)?.kind == .pdf }.map(\.0)
            if !pdfs.isEmpty {
                throw CommandFailure("--format pdf writes typeset articles; a PDF is drawn as it is, never rewritten: \(pdfs.joined(separator: ", "))")
            }
        }
        var failed = 0
        for (path, url) in zip(files, urls) {
            do {
                if format == "pdf" {
                    let written = try renderer.writePDF(url, into: folder)
                    for warning in written.warnings { FileHandle.standardError.write(Data((Escape.terminal("galley: \(path): warning: \(warning)") + "\n").utf8)) }
                    print(Escape.terminal("\(path): → \(written.paths.joined(separator: ", "))"))
                    continue
                }
                let rendered = try renderer.render(url, into: folder, cancellation: cancellation)
                for warning in rendered.warnings { FileHandle.standardError.write(Data((Escape.terminal("galley: \(path): warning: \(warning)") + "\n").utf8)) }
                print(Escape.terminal("\(path): \(Run.plural(rendered.paths.count, "page")) → \(folder.path)"))
            } catch {
                if cancellation.isCancelled { throw ExitCode(Galley.Status.interrupted) }
                failed += 1
                FileHandle.standardError.write(Data((Escape.terminal("galley: \(path): FAILED \(error)") + "\n").utf8))
            }
        }
        if failed > 0 { throw ExitCode(Galley.Status.someFailed) }
    }
}

/// `galley thumbnail -s SIZE INPUT OUTPUT`: a desktop thumbnailer's command.
struct Thumbnail: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Write a thumbnail of a file's first page (a PNG with freedesktop.org's text chunks).",
        discussion: """
            The form a file manager's thumbnailer calls (galley.thumbnailer: Exec=galley thumbnail -s %s %i %o). \
            The page is fitted into SIZE×SIZE with its aspect ratio kept. A file without an extension Galley reads \
            is read by its content (%PDF-, HTML, UTF-8 text). Settings come only from --config, never from a \
            pipeline.yml in the current folder. Exit status 0 when the thumbnail was \
            written, 1 when the file could not be drawn (nothing is written), 2 for bad usage.
            """)

    @Option(name: [.short, .customLong("size")], help: "The box in pixels (8...4096).")
    var size: Int = 256

    @Option(name: .long, help: ArgumentHelp(
        "A configuration file (layouts, fonts, passwords); without it, the defaults.",
        discussion: "Unlike the other commands, thumbnail never reads pipeline.yml from the current folder: a file manager calls it from any folder."),
        completion: .configurationFile)
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The folder the article's linked pictures and style sheets may come from (default: the file's own folder); the file must be under it.", valueName: "DIR"), completion: .directory)
    var root: String?

    @Argument(help: "The PDF or article.", completion: .file())
    var input: String

    @Argument(help: "The PNG to write.", completion: .file())
    var output: String

    @Option(name: .long, help: ArgumentHelp(
        "Image format: png (the default: freedesktop.org's RGBA PNG with its text chunks), webp, jpeg or avif.",
        discussion: "Other formats are written with the configuration's quality and settings, without the thumbnail chunks."),
        completion: .imageFormats)
    var format: String?

    func validate() throws {
        if !Configuration.thumbnailBoxRange.contains(size) { throw ValidationError("--size \(size) is outside 8...4096") }
        try Galley.validateFormat(format)
    }

    func run() throws {
        // Only what the command line names: a thumbnailer runs in whatever folder its caller is in.
        let configuration = try config.map { try Galley.loadConfiguration($0, defaultsWithoutFile: false) } ?? Configuration()
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let url = URL(fileURLWithPath: input, relativeTo: cwd).standardizedFileURL
        let rootURL = try root.map(Galley.rootFolder)
        try Galley.checkSingleFile(url, named: input, root: rootURL, sniffing: true)
        let destination = URL(fileURLWithPath: output, relativeTo: cwd).standardizedFileURL
        let bytes: [UInt8]
        do {
            bytes = try SingleFile(configuration: configuration, root: rootURL).thumbnail(of: url, size: size,
                                                                           format: format.flatMap(ImageFormat.init(rawValue:)) ?? .png)
        } catch {
            FileHandle.standardError.write(Data((Escape.terminal("galley: \(input): FAILED \(error)") + "\n").utf8))
            throw ExitCode(Galley.Status.someFailed)
        }
        do {
            let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(getpid()).tmp")
            try AtomicFile.write(bytes, to: destination.path, through: temporary.path)
        } catch {
            FileHandle.standardError.write(Data((Escape.terminal("galley: \(output): FAILED \(error)") + "\n").utf8))
            throw ExitCode(Galley.Status.someFailed)
        }
    }
}

extension Galley {
    /// `--root DIR` as a folder URL, or a usage error when it is not a folder.
    static func rootFolder(_ path: String) throws(CommandFailure) -> URL {
        let url = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure("--root \(path): no such folder")
        }
        return url
    }

    /// A file given to `galley render` or `galley thumbnail`: it exists, Galley reads its
    /// type, and it is under `--root` when one is given; else a usage error naming it.
    static func checkSingleFile(_ url: URL, named path: String, root: URL?, sniffing: Bool = false) throws(CommandFailure) {
        guard FileManager.default.fileExists(atPath: url.path) else { throw CommandFailure("\(path): no such file") }
        if let root, !SingleFile.isInside(url, root: root) { throw CommandFailure("\(path): not under --root \(root.path)") }
        guard SingleFile.document(url, root: root, sniffing: sniffing) != nil else {
            throw CommandFailure("\(path): not a file Galley reads (.pdf, .html, .htm, .xhtml, .txt"
                                 + (sniffing ? ", or without such an extension a PDF, HTML or UTF-8 text by its content)" : ")"))
        }
    }
}
