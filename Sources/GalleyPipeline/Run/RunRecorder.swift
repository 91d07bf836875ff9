import Foundation
import GalleyBase
import GalleyManifest
import GalleyText

/// What happened to one output of a page, reported by the stages to the record stage.
enum OutputVariant: Hashable, Sendable, Comparable {
    case image
    case thumbnail(box: Int)

    /// The outputs every page gets under `configuration`: its image (unless page images are
    /// off), then a thumbnail per box.
    static func all(_ configuration: Configuration) -> [OutputVariant] {
        (configuration.pageImages ? [.image] : []) + configuration.thumbnailBoxes.map { .thumbnail(box: $0) }
    }

    /// The output's path under the output folder: `<folder>/page-0001.<ext>`, thumbnails under
    /// `<folder>/thumbs/<box>/`.
    func path(folder: String, page number: Int, fileExtension: String) -> String {
        // Zero-padded by hand: `String(format:)` with `%@` bridges every argument on Linux.
        let digits = String(number)
        let padded = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        switch self {
        case .image: return "\(folder)/page-\(padded).\(fileExtension)"
        case .thumbnail(let box): return "\(folder)/thumbs/\(box)/page-\(padded).\(fileExtension)"
        }
    }
}

/// A written output file.
struct WrittenOutput: Sendable {
    var path: String
    var width: Int
    var height: Int
    var sha256: String
    var bytes: Int
}

/// Facts about a page that every page-level report carries, so reports may arrive in any order.
struct PageFacts: Sendable {
    /// Position among the document's pages (all layouts of an article, in order): the
    /// manifest's page order.
    var index: Int
    /// 1-based page number shown in names and the manifest (within its layout for articles).
    var number: Int
    /// Folder of the page's outputs under the output folder: the document's, or for articles
    /// its layout's.
    var folder: String
    var widthPt: Double
    var heightPt: Double
    var rotation: Int
    /// What an article page records about its layout.
    var layout: LayoutFacts?
}

/// The typesetting facts of an article page.
struct LayoutFacts: Sendable {
    var name: String
    var writingMode: WritingMode
    var columns: [Manifest.Column]
    var lineCount: Int
    var justifiedLineCount: Int
    var hyphenatedLineCount: Int
    var looseLineCount: Int
    var wrappedPreformattedLineCount: Int
    var breakExceptionCount: Int
    var attachments: [Manifest.AttachmentFrame]
    var tables: [Manifest.TableFrame] = []
    var boxes: [Manifest.BoxFrame] = []
    var floatedBlocks: [Manifest.FloatedBlockFrame] = []
    /// The page's number as printed, when its pages are dressed (`TypesetPage.label`).
    var label: String?
}

/// Progress reported while a run goes on.
public enum PipelineEvent: Sendable {
    /// A document was opened and its pages start to be drawn (`index`: 0-based, scan order).
    case documentStarted(name: String, source: String, index: Int, total: Int)
    /// Every output of a page was written. `pagesDone` counts pages finished in the run so far
    /// (those of unchanged documents included); `pagesKnown` the pages of the documents
    /// opened so far, at least `pagesDone`: the total grows as documents are opened.
    case pageFinished(name: String, page: Int, layout: String?, pagesDone: Int, pagesKnown: Int)
    /// A document finished: ok or failed, with how many pages were written.
    case documentFinished(name: String, source: String, status: Manifest.Status, pages: Int, failure: Failure?, done: Int, total: Int)
}

/// The record stage's state: every document's outcome, assembled into the manifest.
///
/// Reports arrive from two stages: the open stage tells what it learns while it opens a
/// document (`opened`, `counted`, `warn`, `typeset`) from its own worker threads, and every
/// later report (outputs, failures, the end of a document's dispatch, unchanged documents)
/// comes through the serial record queue. Every report takes the mutex, which also makes the
/// state safe to read from the thread that waits for the run. Order between the two does not
/// change the manifest: one open operation at a time works on a document (`DocumentCursor`), so
/// its open-stage reports arrive in page order, and record-queue reports are sorted when the
/// manifest is assembled. `onEvent` is called from both, so it must be thread-safe.
final class RunRecorder: Sendable {
    private struct PageState {
        var facts: PageFacts
        /// Written outputs, in the order they were reported (a page has a few).
        var outputs = PageOutputs()
        var reported = 0
        /// Outputs not made on purpose (page images in a thumbnails-only pass, when none was kept).
        var skipped = 0
        var complete: Bool { outputs.count + skipped == reported }
    }

    /// A written output as a finished page keeps it until its document's entry is made: a
    /// page of a long document waits there for all the others, so it is kept small and, in the
    /// usual case, with nothing on the heap of its own (its hash as 32 bytes instead of 64
    /// characters, its path as its extension when it is the path `OutputVariant.path` gives the
    /// page, no dictionary): small allocations kept a page each, amid the drawing threads'
    /// short-lived ones, pinned freed memory and made peak RSS grow with the page count.
    struct StoredOutput {
        var variant: OutputVariant
        /// The file's extension (a short string, kept inline) when `derived`, else its path.
        private var pathOrExtension: String
        private var derived: Bool
        var width: Int32
        var height: Int32
        var bytes: Int
        var sha256: CompactHash

        init(_ variant: OutputVariant, _ output: WrittenOutput, folder: String, page: Int) {
            self.variant = variant
            let dot = output.path.lastIndex(of: ".")
            let fileExtension = dot.map { String(output.path[output.path.index(after: $0)...]) } ?? ""
            derived = dot != nil && variant.path(folder: folder, page: page, fileExtension: fileExtension) == output.path
            pathOrExtension = derived ? fileExtension : output.path
            width = Int32(clamping: output.width)
            height = Int32(clamping: output.height)
            bytes = output.bytes
            sha256 = CompactHash(output.sha256)
        }

        /// The output's path under the output folder, for the page it belongs to.
        func path(folder: String, page: Int) -> String {
            derived ? variant.path(folder: folder, page: page, fileExtension: pathOrExtension) : pathOrExtension
        }
    }

    /// A page's outputs: two inline (a page image and one thumbnail size, the usual case, need
    /// no array of their own), more in an array.
    struct PageOutputs {
        private var first: StoredOutput?
        private var second: StoredOutput?
        private var more: [StoredOutput] = []

        var count: Int { (first == nil ? 0 : 1) + (second == nil ? 0 : 1) + more.count }

        /// Adds `output`, or replaces the one of the same variant.
        mutating func set(_ output: StoredOutput) {
            if first == nil || first?.variant == output.variant {
                first = output
            } else if second == nil || second?.variant == output.variant {
                second = output
            } else if let known = more.firstIndex(where: { $0.variant == output.variant }) {
                more[known] = output
            } else {
                more.append(output)
            }
        }

        var all: [StoredOutput] { [first, second].compactMap { $0 } + more }
    }

    /// A SHA-256 in lowercase hexadecimal, as 4 words when it is one (it always is: every hash
    /// comes from `ContentHash`), else the text as it came.
    enum CompactHash {
        case words(UInt64, UInt64, UInt64, UInt64)
        case text(String)

        init(_ hex: String) {
            let utf8 = Array(hex.utf8)
            func word(_ index: Int) -> UInt64? {
                var value: UInt64 = 0
                for byte in utf8[(index * 16)..<(index * 16 + 16)] {
                    switch byte {
                    case 0x30...0x39: value = value << 4 | UInt64(byte - 0x30)
                    case 0x61...0x66: value = value << 4 | UInt64(byte - 0x61 + 10)
                    default: return nil
                    }
                }
                return value
            }
            if utf8.count == 64, let a = word(0), let b = word(1), let c = word(2), let d = word(3) {
                self = .words(a, b, c, d)
            } else {
                self = .text(hex)
            }
        }

        var hex: String {
            switch self {
            case .text(let text): return text
            case .words(let a, let b, let c, let d):
                return [a, b, c, d].map { word in
                    let digits = String(word, radix: 16)
                    return String(repeating: "0", count: 16 - digits.count) + digits
                }.joined()
            }
        }
    }

    private struct DocumentState {
        var source: SourceDocument
        var sha256: String?
        var bytes: Int?
        var title: String?
        var author: String?
        var pageCount: Int?
        /// Of those, the pages the page selection draws (nil: all of them).
        var selectedPages: Int?
        var textLength: Int?
        var characters: (source: Int, set: Int)?
        var layouts: [Manifest.LayoutPages]?
        var warnings: [String] = []
        /// Page warnings arrive from the open stage in page order.
        var pageWarnings: [String] = []
        var failure: Failure?
        var pages: [Int: PageState] = [:]
        var completedPages = 0
        /// This document's share of `State.pagesKnown`.
        var knownPages = 0
        /// Set when the open stage has dispatched every page it will dispatch.
        var dispatched: Int?
        var finished = false
        /// The entry of a document that needed nothing done, taken from the catalog.
        var unchanged: Manifest.Document?
    }

    private struct State {
        var documents: [DocumentState]
        var finishedCount = 0
        var pagesDone = 0
        /// Pages of the documents whose page count is known (the others count what they
        /// finished): the sum of every document's `knownPages`, kept as they change.
        var pagesKnown = 0

        mutating func updateKnownPages(_ index: Int) {
            let document = documents[index]
            let known = max(document.selectedPages ?? document.pageCount ?? 0, document.unchanged?.pages.count ?? document.completedPages)
            pagesKnown += known - document.knownPages
            documents[index].knownPages = known
        }
        var drawn = 0
        var reused = 0
    }

    private let state: Mutex<State>
    private let outputsPerPage: Int
    private let slots: PageSlots
    private let onEvent: @Sendable (PipelineEvent) -> Void
    /// Told, on the record queue, each document's manifest entry as it finishes (for the catalog).
    private let onFinished: @Sendable (Int, Manifest.Document) -> Void

    init(documents: [SourceDocument], outputsPerPage: Int, slots: PageSlots, onEvent: @escaping @Sendable (PipelineEvent) -> Void,
         onFinished: @escaping @Sendable (Int, Manifest.Document) -> Void = { _, _ in }) {
        self.state = Mutex(State(documents: documents.map { DocumentState(source: $0) }))
        self.outputsPerPage = outputsPerPage
        self.slots = slots
        self.onEvent = onEvent
        self.onFinished = onFinished
    }

    /// Outputs drawn and encoded by this run, and outputs kept or copied from earlier runs.
    var outputCounts: (drawn: Int, reused: Int) {
        state.withLock { ($0.drawn, $0.reused) }
    }

    /// A document that needs nothing done: its entry from the catalog stands.
    func unchanged(_ document: Int, entry: Manifest.Document) {
        let event = state.withLock { state -> PipelineEvent in
            state.documents[document].unchanged = entry
            state.documents[document].finished = true
            state.finishedCount += 1
            state.pagesDone += entry.pages.count
            state.updateKnownPages(document)
            // `ok` for a document finished by the attempt of this run that died (CrashRestart).
            return .documentFinished(name: entry.name, source: entry.source, status: entry.status, pages: entry.pages.count,
                                     failure: nil, done: state.finishedCount, total: state.documents.count)
        }
        onEvent(event)
    }

    func opened(_ document: Int, sha256: String?, bytes: Int?) {
        let event = state.withLock { state -> PipelineEvent in
            state.documents[document].sha256 = sha256
            state.documents[document].bytes = bytes
            let source = state.documents[document].source
            return .documentStarted(name: source.name, source: source.relativePath, index: document, total: state.documents.count)
        }
        onEvent(event)
    }

    /// What a document's producer reported, in order (`ProducerEvent`).
    func record(_ document: Int, _ events: [ProducerEvent]) {
        for event in events {
            switch event {
            case .described(let title, let author): described(document, title: title, author: author)
            case .counted(let pages, let selected, let warnings): counted(document, pages: pages, selected: selected, warnings: warnings)
            case .typeset(let typeset):
                self.typeset(document, textLength: typeset.textLength, characters: typeset.characters, layouts: typeset.layouts,
                             selected: typeset.selected, warnings: typeset.warnings)
            case .warning(let warning): warn(document, warning)
            case .failed(let failure): failed(document, failure)
            case .wroteFile: break  // the catalog's (`Stages`); the manifest has it from `.typeset`
            }
        }
    }

    /// The document's title and author, as its metadata gives them (blank ones are left out).
    func described(_ document: Int, title: String?, author: String?) {
        state.withLock {
            $0.documents[document].title = Self.metadataText(title)
            $0.documents[document].author = Self.metadataText(author)
        }
    }

    /// Metadata text as the manifest shows it: runs of white space (line breaks included) made
    /// one space, trimmed; nil when nothing is left.
    static func metadataText(_ text: String?) -> String? {
        guard let text else { return nil }
        let words = text.split(whereSeparator: { $0.isWhitespace })
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    func warn(_ document: Int, _ warning: String) {
        state.withLock { $0.documents[document].pageWarnings.append(warning) }
    }

    func counted(_ document: Int, pages: Int, selected: Int? = nil, warnings: [String]) {
        state.withLock {
            $0.documents[document].pageCount = pages
            $0.documents[document].selectedPages = selected
            // One table for all of them, not one grown by doubling as they finish.
            $0.documents[document].pages.reserveCapacity(selected ?? pages)
            $0.documents[document].warnings += warnings
            $0.updateKnownPages(document)
        }
    }

    /// An article's typesetting finished (or stopped at a failure): its text length and the
    /// pages each layout made.
    func typeset(_ document: Int, textLength: Int, characters: (source: Int, set: Int), layouts: [Manifest.LayoutPages],
                 selected: Int? = nil, warnings: [String]) {
        state.withLock {
            $0.documents[document].selectedPages = selected
            $0.documents[document].textLength = textLength
            $0.documents[document].characters = characters
            $0.documents[document].layouts = layouts
            $0.documents[document].pageCount = layouts.reduce(0) { $0 + $1.pageCount }
            $0.documents[document].warnings += warnings
            $0.updateKnownPages(document)
        }
    }

    /// A document-level or page-level failure. When several happen, the one on the earliest
    /// page is kept, so the manifest does not depend on which worker failed first.
    func failed(_ document: Int, _ failure: Failure) {
        let event = state.withLock { state -> PipelineEvent? in
            Self.keepEarliest(&state.documents[document].failure, failure)
            return finishIfDone(&state, document)
        }
        announce(document, event)
    }

    /// The open stage has dispatched `count` pages and will dispatch no more.
    func dispatched(_ document: Int, pages count: Int) {
        let event = state.withLock { state -> PipelineEvent? in
            state.documents[document].dispatched = count
            return finishIfDone(&state, document)
        }
        announce(document, event)
    }

    private func announce(_ document: Int, _ event: PipelineEvent?) {
        guard let event else { return }
        let entry = state.withLock { state in Self.entry(state.documents[document], outputsPerPage: outputsPerPage) }
        onFinished(document, entry)
        onEvent(event)
    }

    /// One output of a page is left out on purpose (a thumbnails-only pass draws no page image).
    func skipped(_ document: Int, page facts: PageFacts, variant: OutputVariant) {
        count(document, facts) { page, _ in page.skipped += 1 }
    }

    /// One output of a page was written (`reused`: kept or copied from an earlier run), or failed.
    func reported(_ document: Int, page facts: PageFacts, variant: OutputVariant, result: Result<WrittenOutput, Failure>,
                  reused: Bool = false) {
        count(document, facts) { page, state in
            switch result {
            case .success(let output):
                page.outputs.set(StoredOutput(variant, output, folder: facts.folder, page: facts.number))
                if reused { state.reused += 1 } else { state.drawn += 1 }
            case .failure(let failure): Self.keepEarliest(&state.documents[document].failure, failure)
            }
        }
    }

    /// Counts one report for a page; the page's last one frees its slot and may finish the document.
    private func count(_ document: Int, _ facts: PageFacts, _ update: (inout PageState, inout State) -> Void) {
        let (pageDone, event, giveBack) = state.withLock { state -> (PipelineEvent?, PipelineEvent?, Bool) in
            // Taken out of the dictionary while it changes, so that what it holds is not shared
            // and changes in place (a copy per report, freed at once, fragmented the heap).
            var page = state.documents[document].pages.removeValue(forKey: facts.index) ?? PageState(facts: facts)
            update(&page, &state)
            page.reported += 1
            state.documents[document].pages[facts.index] = page
            guard page.reported == outputsPerPage else { return (nil, nil, false) }
            state.documents[document].completedPages += 1
            state.pagesDone += 1
            state.updateKnownPages(document)
            let done = PipelineEvent.pageFinished(name: state.documents[document].source.name, page: facts.number,
                                                  layout: facts.layout?.name, pagesDone: state.pagesDone, pagesKnown: state.pagesKnown)
            return (done, finishIfDone(&state, document), state.pagesDone % FreedMemory.pagesBetweenReturns == 0)
        }
        if let pageDone {
            slots.release()
            onEvent(pageDone)
        }
        if giveBack { FreedMemory.giveBack() }
        announce(document, event)
    }

    private func finishIfDone(_ state: inout State, _ index: Int) -> PipelineEvent? {
        let document = state.documents[index]
        guard !document.finished, let dispatched = document.dispatched, document.completedPages == dispatched else { return nil }
        state.documents[index].finished = true
        state.finishedCount += 1
        let written = document.pages.values.filter { $0.reported == outputsPerPage && $0.complete }.count
        return .documentFinished(name: document.source.name, source: document.source.relativePath,
                                 status: document.failure == nil ? .ok : .failed, pages: written,
                                 failure: document.failure, done: state.finishedCount, total: state.documents.count)
    }

    /// Keeps the failure of the earliest page; between failures of one page (its image and a
    /// thumbnail), the first by code and message, so the manifest does not depend on which
    /// worker reported first.
    static func keepEarliest(_ current: inout Failure?, _ new: Failure) {
        guard let existing = current else { current = new; return }
        if (new.page ?? 0, new.code.rawValue, new.message) < (existing.page ?? 0, existing.code.rawValue, existing.message) { current = new }
    }

    /// The manifest's documents, in scan order, with pages in page order.
    /// The entries of the documents finished so far, in document order, and how many there are in all.
    func finishedDocuments() -> (documents: [Manifest.Document], total: Int) {
        state.withLock { state in
            (state.documents.filter(\.finished).map { Self.entry($0, outputsPerPage: outputsPerPage) }, state.documents.count)
        }
    }

    func manifestDocuments() -> [Manifest.Document] {
        state.withLock { state in
            state.documents.map { Self.entry($0, outputsPerPage: outputsPerPage) }
        }
    }

    /// One document's manifest entry: pages whose outputs were all written, in page order.
    private static func entry(_ document: DocumentState, outputsPerPage: Int) -> Manifest.Document {
        if let unchanged = document.unchanged { return unchanged }
        let pages = document.pages.keys.sorted().compactMap { index -> Manifest.Page? in
            guard let page = document.pages[index], page.reported == outputsPerPage, page.complete else { return nil }
            let outputs = page.outputs.all
            let (folder, number) = (page.facts.folder, page.facts.number)
            let thumbnails = outputs.sorted { $0.variant < $1.variant }.compactMap { output -> Manifest.Thumbnail? in
                guard case .thumbnail(let box) = output.variant else { return nil }
                return Manifest.Thumbnail(box: box, path: output.path(folder: folder, page: number), width: Int(output.width),
                                          height: Int(output.height),
                                          sha256: output.sha256.hex, bytes: output.bytes)
            }
            return Manifest.Page(number: page.facts.number, label: page.facts.layout?.label, widthPt: page.facts.widthPt, heightPt: page.facts.heightPt,
                                 rotation: page.facts.rotation,
                                 image: outputs.first { $0.variant == .image }.map {
                                     Manifest.Image(path: $0.path(folder: folder, page: number), width: Int($0.width), height: Int($0.height), sha256: $0.sha256.hex,
                                                    bytes: $0.bytes)
                                 },
                                 thumbnails: thumbnails, layout: page.facts.layout?.name,
                                 writingMode: page.facts.layout?.writingMode.rawValue,
                                 columns: page.facts.layout?.columns, lineCount: page.facts.layout?.lineCount,
                                 justifiedLineCount: page.facts.layout?.justifiedLineCount,
                                 hyphenatedLineCount: page.facts.layout?.hyphenatedLineCount,
                                 looseLineCount: page.facts.layout?.looseLineCount,
                                 wrappedPreformattedLineCount: page.facts.layout?.wrappedPreformattedLineCount,
                                 breakExceptionCount: page.facts.layout?.breakExceptionCount,
                                 attachments: page.facts.layout?.attachments,
                                 tables: page.facts.layout.flatMap { $0.tables.isEmpty ? nil : $0.tables },
                                 boxes: page.facts.layout.flatMap { $0.boxes.isEmpty ? nil : $0.boxes },
                                 floatedBlocks: page.facts.layout.flatMap { $0.floatedBlocks.isEmpty ? nil : $0.floatedBlocks })
        }
        return Manifest.Document(name: document.source.name, input: document.source.input,
                                 source: document.source.relativePath, kind: document.source.kind,
                                 title: document.title, author: document.author, sha256: document.sha256, bytes: document.bytes,
                                 status: document.failure == nil ? .ok : .failed, error: document.failure,
                                 warnings: document.warnings + document.pageWarnings, pageCount: document.pageCount,
                                 textLength: document.textLength, sourceCharacters: document.characters?.source,
                                 setCharacters: document.characters?.set, layouts: document.layouts, pages: pages)
    }
}

/// A page's thumbnails, made from one drawing: the largest box is drawn (or, in a run with page
/// images, reduced from the page image's drawing: `pageImageScale`), every smaller one is that
/// box reduced by area averaging (`Bitmap.areaAveraged`). One interpretation of
/// the page (one decoding of a scan's 9,000-pixel image instead of one per box), and the
/// same pixels whatever order the boxes are made in, or whichever are already made: a
/// thumbnail depends only on its page, its box and the largest box, which its fingerprint
/// names.
struct ThumbnailSet: Sendable {
    /// The largest box, drawn.
    let master: Int
    /// Every box, the largest first.
    let boxes: [Int]

    init?(_ configuration: Configuration) {
        guard let master = configuration.thumbnailBoxes.max() else { return nil }
        self.master = master
        var seen: Set<Int> = [master]
        boxes = [master] + configuration.thumbnailBoxes.filter { seen.insert($0).inserted }
    }
}
