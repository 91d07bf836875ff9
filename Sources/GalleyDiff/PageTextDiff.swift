import Foundation
import GalleyBase
import GalleyManifest
import GalleyPDF
import GalleyText

/// `--text`: the text of each run's pages, for the word diff of changed pages and for finding
/// pages inserted or removed when their pictures differ (a running page number in a footer).
///
/// Where the text comes from, since a run's output folder holds pictures, not text:
/// * an article's pages: its layout's text document (`documents: [text]` in pipeline.yml,
///   `document.txt`, pages apart by form feeds), written by the run itself, so a downloaded
///   artifact has it too;
/// * a PDF's pages: MuPDF's text of the source file (through the shim), when the file is found
///   where the manifest says (its input, relative to the configuration file's folder, which the
///   manifest records as `run.inputs_folder`; for manifests without it, relative to the current
///   folder or to the folder that holds the output folder) and still has the SHA-256 the manifest recorded, so the text is
///   the text of the pages compared. A CI artifact without its sources has no PDF text.
///
/// A document whose text cannot be had says why in the report (`text_unavailable`).
final class RunTexts {
    private let run: RunOutputs
    private let engine: MuPDFEngine?
    /// Per document name: the text of each page by layout (nil for PDFs), or why there is none.
    private var cache: [String: Result<[String?: [String]], TextUnavailable>] = [:]

    struct TextUnavailable: Error {
        var reason: String
    }

    init(run: RunOutputs, engine: MuPDFEngine?) {
        self.run = run
        self.engine = engine
    }

    /// The text of each page of `document` by layout, or why there is none.
    func pages(of document: Manifest.Document) -> Result<[String?: [String]], TextUnavailable> {
        if let known = cache[document.name] { return known }
        let result: Result<[String?: [String]], TextUnavailable>
        do {
            result = .success(try load(document))
        } catch {
            result = .failure(error)
        }
        cache[document.name] = result
        return result
    }

    /// The words of page `number` of `layout`, nil when unknown.
    func words(of document: Manifest.Document, layout: String?, number: Int) -> [Substring]? {
        guard case .success(let pages) = pages(of: document), let texts = pages[layout], number >= 1, number <= texts.count else { return nil }
        return WordDiff.words(texts[number - 1])
    }

    private func load(_ document: Manifest.Document) throws(TextUnavailable) -> [String?: [String]] {
        switch document.kind {
        case .markup:
            var pages: [String?: [String]] = [:]
            for layout in document.layouts ?? [] {
                guard let file = layout.files?.first(where: { $0.format == DocumentFormatName.text.rawValue }) else {
                    throw TextUnavailable(reason: "the run wrote no text document for layout \(layout.name) (documents: [text] in pipeline.yml)")
                }
                guard let data = FileManager.default.contents(atPath: run.folder.appendingPathComponent(file.path).path) else {
                    throw TextUnavailable(reason: "\(file.path) cannot be read")
                }
                pages[layout.name] = String(decoding: data, as: UTF8.self).components(separatedBy: "\u{0C}")
            }
            return pages
        case .pdf:
            guard let engine else { throw TextUnavailable(reason: "MuPDF could not be started") }
            let url = try source(of: document)
            let pdf: PDFDocument
            do {
                pdf = try PDFDocument(path: url.path, password: nil, engine: engine)
            } catch {
                throw TextUnavailable(reason: "\(url.path): \(error)")
            }
            var texts: [String] = []
            for index in 0..<pdf.pageCount {
                do {
                    texts.append(try pdf.pageText(index))
                } catch {
                    throw TextUnavailable(reason: "page \(index + 1) of \(url.path): \(error)")
                }
            }
            return [nil: texts]
        }
    }

    /// The source file the manifest names, found and checked against its SHA-256.
    private func source(of document: Manifest.Document) throws(TextUnavailable) -> URL {
        guard let expected = document.sha256 else { throw TextUnavailable(reason: "the manifest has no SHA-256 of its source") }
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let input = document.input
        var candidates: [URL] = []
        // Inputs are relative to the configuration file's folder, which the manifest records
        // relative to the output folder; before it did, the current folder or the output's parent.
        let recorded = run.manifest.run.inputsFolder.map { URL(fileURLWithPath: $0, relativeTo: run.folder).standardizedFileURL }
        let bases = input.hasPrefix("/") ? [URL(fileURLWithPath: "/")] : [recorded, cwd, run.folder.deletingLastPathComponent()].compactMap { $0 }
        for base in bases {
            let root = URL(fileURLWithPath: input, relativeTo: base).standardizedFileURL
            candidates += [root.appendingPathComponent(document.source), root, root.deletingLastPathComponent().appendingPathComponent(document.source)]
        }
        var seen = Set<String>()
        for candidate in candidates where seen.insert(candidate.path).inserted {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder), !isFolder.boolValue,
                  let hash = try? ContentHash.sha256(file: candidate).hash, hash == expected else { continue }
            return candidate
        }
        throw TextUnavailable(reason: "its source (\(document.source) under \(input)) is not where the manifest says, or has changed since the run")
    }
}

/// Both runs' texts, read once for finding shifts and for the word diff.
final class DiffTexts {
    let base: RunTexts
    let new: RunTexts

    init(base: RunOutputs, new: RunOutputs) {
        let engine = try? MuPDFEngine()
        self.base = RunTexts(run: base, engine: engine)
        self.new = RunTexts(run: new, engine: engine)
    }

    /// The words of page `number` of `layout` of `document` in the base or the new run.
    func words(of document: Manifest.Document, layout: String?, number: Int, isBase: Bool) -> [Substring]? {
        (isBase ? base : new).words(of: document, layout: layout, number: number)
    }
}

extension RunDiff {
    /// Adds the word changes of every changed page to `report` (a page moved by pages inserted
    /// or removed before it against the base's page it was paired with).
    static func addText(to report: inout DiffReport, plan: DiffPlan, texts: DiffTexts) {
        for (index, pair) in plan.documents.enumerated() {
            guard let b = pair.base, let n = pair.new, report.documents[index].status == .changed else { continue }
            var reasons: [String] = []
            if case .failure(let why) = texts.base.pages(of: b) { reasons.append("base: \(why.reason)") }
            if case .failure(let why) = texts.new.pages(of: n) { reasons.append("new: \(why.reason)") }
            if !reasons.isEmpty {
                report.documents[index].textUnavailable = reasons.joined(separator: "; ")
                continue
            }
            for (changeIndex, change) in report.documents[index].changes.enumerated()
            where [.changed, .resized, .similar].contains(change.status) {
                guard let before = texts.base.words(of: b, layout: change.layout, number: change.baseNumber ?? change.number),
                      let after = texts.new.words(of: n, layout: change.layout, number: change.number) else { continue }
                let steps = WordDiff.script(before, after)
                let removed = steps.filter { if case .remove = $0 { true } else { false } }.count
                let added = steps.filter { if case .add = $0 { true } else { false } }.count
                report.documents[index].changes[changeIndex].words = DiffReport.WordChanges(
                    edits: WordDiff.edits(steps), removed: removed, added: added)
            }
        }
    }
}
