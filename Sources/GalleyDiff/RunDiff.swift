import Foundation
import GalleyBase
import GalleyManifest
import GalleyRaster

/// What `galley diff` compares and how.
public struct DiffOptions: Sendable {
    /// pixelmatch's threshold (0...1): the smallest perceptual colour distance that counts, as a
    /// fraction of black against white. 0 compares exactly, anti-aliased pixels included.
    public var threshold = 0.1
    /// A changed page within every limit given counts as unchanged (`similar`).
    public var maxChangedPixels: Int?
    public var maxChangedFraction: Double?
    /// Compare the words of changed pages (`--text`).
    public var text = false
    /// Pages compared at once; each holds two decoded pages and a diff image.
    public var workers = 2
    /// Changed areas at most this far apart, in points, are one region.
    public var regionGap = 6.0
    /// Long side of each half of the side-by-side thumbnail, in pixels.
    public var thumbnailBox = 200

    public static let thresholdRange = 0.0...1.0

    public init(threshold: Double = 0.1, maxChangedPixels: Int? = nil, maxChangedFraction: Double? = nil, text: Bool = false,
                workers: Int = 2) {
        self.threshold = threshold
        self.maxChangedPixels = maxChangedPixels
        self.maxChangedFraction = maxChangedFraction
        self.text = text
        self.workers = workers
    }

    /// Whether `changed` pixels of `total` stay within the limits: never without a limit.
    func isWithinLimits(changed: Int, total: Int) -> Bool {
        guard maxChangedPixels != nil || maxChangedFraction != nil else { return false }
        let fraction = total > 0 ? Double(changed) / Double(total) : 0
        return (maxChangedPixels.map { changed <= $0 } ?? true) && (maxChangedFraction.map { fraction <= $0 } ?? true)
    }
}

/// One run's outputs: its folder and manifest.
public struct RunOutputs: Sendable {
    public var folder: URL
    public var manifest: Manifest

    /// The run whose output folder (or `manifest.json`) is at `url`.
    ///
    /// - Throws: `UsageError` naming the path when there is no manifest or it cannot be read.
    public init(at url: URL) throws(UsageError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
            throw UsageError(subject: url.path, message: "no such folder or file; give a run's output folder or its manifest.json")
        }
        let file = isFolder.boolValue ? url.appendingPathComponent("manifest.json") : url
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw UsageError(subject: url.path, message: "no manifest.json: is this a galley output folder, and did its run finish?")
        }
        do {
            manifest = try Manifest.decode(data)
        } catch {
            throw UsageError(subject: file.path, message: "not a Galley manifest (\(error))")
        }
        folder = file.deletingLastPathComponent()
    }

    public init(folder: URL, manifest: Manifest) {
        self.folder = folder
        self.manifest = manifest
    }
}

/// Two runs compared: documents matched by name, pages by number (articles within their
/// layout). A page whose image has the same SHA-256 in both manifests is unchanged without
/// being read; the others are decoded one pair at a time per worker and compared with
/// `PixelDiff`, so memory is bounded by the workers, not the pages.
public enum RunDiff {
    /// The names of the files it writes into its folder.
    public static let reportName = "diff.json"
    public static let reviewPageName = "index.html"
    public static let markdownSummaryName = "summary.md"
    public static let textSummaryName = "summary.txt"
    /// The diff's folder under NEW by default (and `galley run --baseline`'s).
    public static let defaultFolder = "diff"
    /// Pictures of the changed pages, under the diff folder.
    static let picturesFolder = "pages"

    /// Compares `base` with `new`, writes the report, the review page, the summaries and the
    /// pictures of changed pages into `output`, and returns the report. `labels` are how BASE
    /// and NEW are named in the report (as the user gave them).
    ///
    /// Pictures a previous diff left in `output` are removed first (only when `output` holds a
    /// `diff.json`, so another folder is never emptied).
    ///
    /// - Throws: `UsageError` when `output` is one of the runs' folders, `OutputError` when a
    ///   file cannot be written.
    public static func diff(base: RunOutputs, new: RunOutputs, output: URL, options: DiffOptions,
                            labels: (base: String, new: String)) throws -> DiffReport {
        let outputPath = output.standardizedFileURL.path
        for run in [base, new] where run.folder.standardizedFileURL.path == outputPath {
            throw UsageError(subject: "--output", message: "\(outputPath) is a run's output folder; the diff needs a folder of its own (the default is NEW/diff)")
        }
        if FileManager.default.fileExists(atPath: output.appendingPathComponent(reportName).path) {
            try? FileManager.default.removeItem(at: output.appendingPathComponent(picturesFolder))
        }
        try AtomicFile.makeFolders(output.path)
        let texts = options.text ? DiffTexts(base: base, new: new) : nil
        let plan = DiffPlan(base: base, new: new, options: options, texts: texts)
        let results = try plan.comparePages(into: output, options: options)
        var report = plan.report(results: results, options: options, labels: labels)
        if let texts { addText(to: &report, plan: plan, texts: texts) }
        try write(report, to: output)
        return report
    }

    /// Writes `diff.json`, the review page and the two summaries, atomically.
    static func write(_ report: DiffReport, to output: URL) throws {
        let files: [(String, [UInt8])] = [
            (reportName, try report.encoded()),
            (reviewPageName, Array(DiffReviewPage.html(for: report).utf8)),
            (markdownSummaryName, Array(DiffSummary.markdown(report).utf8)),
            (textSummaryName, Array(DiffSummary.text(report).utf8)),
        ]
        for (name, bytes) in files { try writeAtomically(bytes, to: output.appendingPathComponent(name)) }
    }

    /// What a run with `--baseline` naming a missing or empty folder says.
    public static func missingBaselineNote(_ path: String) -> String {
        "no baseline at \(path) (none yet, as on a first run): nothing was compared"
    }

    /// The diff folder of a run whose baseline is missing: the note as both summaries, so a CI
    /// step that shows `diff/summary.md` shows why there is no diff; a diff an earlier run
    /// left there is removed (its `diff.json` would describe another run).
    package static func writeMissingBaselineNote(_ note: String, in store: OutputStore) throws {
        _ = try store.confined.openFolder(defaultFolder, create: true).map(close)
        for name in [reportName, reviewPageName] { _ = store.confined.removeFile("\(defaultFolder)/\(name)") }
        try? FileManager.default.removeItem(at: store.root.appendingPathComponent(defaultFolder).appendingPathComponent(picturesFolder))
        try store.write(Array("### Galley diff: no baseline\n\n\(Escape.markdown(note.prefix(1).uppercased() + note.dropFirst())).\n".utf8),
                        to: "\(defaultFolder)/\(markdownSummaryName)")
        try store.write(Array("galley diff: \(note)\n".utf8), to: "\(defaultFolder)/\(textSummaryName)")
    }

    /// Writes through a temporary name in the destination's folder (the same file system).
    static func writeAtomically(_ bytes: [UInt8], to url: URL) throws(OutputError) {
        let folder = url.deletingLastPathComponent()
        try AtomicFile.write(bytes, to: url.path, through: folder.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path)
    }
}

/// The pages to compare, worked out from the two manifests alone.
struct DiffPlan {
    /// A page's picture chosen for comparison: the page image, or when a run has none the
    /// largest thumbnail box both runs have.
    struct Picture: Sendable {
        var path: String
        var width: Int
        var height: Int
        var sha256: String
    }

    /// One page of one run.
    struct Side: Sendable {
        var page: Manifest.Page
        var picture: Picture?
    }

    /// A page in either run, and what to do with it.
    struct PageJob: Sendable {
        enum Kind: Sendable { case compare, resized, added, removed, unchanged, shifted }
        var document: Int
        var layout: String?
        var number: Int
        var kind: Kind
        var base: Side?
        var new: Side?
        /// `pages/<document>/[<layout>/]p0001`: its pictures' names without the ending.
        var stem: String
    }

    struct DocumentPair {
        var base: Manifest.Document?
        var new: Manifest.Document?
        var name: String { (new ?? base)?.name ?? "" }
    }

    let baseFolder: URL
    let newFolder: URL
    let documents: [DocumentPair]
    /// Jobs of documents in both runs, in document then layout then page order.
    let jobs: [PageJob]

    /// Pages inserted or removed in the middle, per document index.
    let shifts: [Int: [DiffReport.Shift]]
    /// The two runs' resolutions, when they differ.
    let dpi: DiffReport.DPIChange?

    /// The plan for `base` and `new`; with `texts` (`--text`), pages are also matched by their
    /// words when finding pages inserted or removed.
    init(base: RunOutputs, new: RunOutputs, options: DiffOptions, texts: DiffTexts? = nil) {
        baseFolder = base.folder
        newFolder = new.folder
        let baseByName = Dictionary(base.manifest.documents.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let newNames = Set(new.manifest.documents.map(\.name))
        var documents = new.manifest.documents.map { DocumentPair(base: baseByName[$0.name], new: $0) }
        documents += base.manifest.documents.filter { !newNames.contains($0.name) }.map { DocumentPair(base: $0, new: nil) }
        self.documents = documents
        var jobs: [PageJob] = []
        var shifts: [Int: [DiffReport.Shift]] = [:]
        // Runs drawn at different resolutions: page images of one page differ in pixels, so
        // the pages are compared by a thumbnail box both runs have (drawn to the box, whatever the dpi).
        let redrawn = base.manifest.settings.dpi != new.manifest.settings.dpi
        self.dpi = redrawn ? DiffReport.DPIChange(base: base.manifest.settings.dpi, new: new.manifest.settings.dpi) : nil
        for (index, pair) in documents.enumerated() {
            guard let b = pair.base, let n = pair.new else { continue }
            for layout in Self.groups(b, n) {
                let basePages = Self.pages(of: b, layout: layout), newPages = Self.pages(of: n, layout: layout)
                // Words only where a shift is possible: the page counts differ.
                let useWords = texts != nil && basePages.count != newPages.count
                let basePrints = basePages.map { page in
                    PageShifts.Fingerprint(sha256: Self.pictures(page, page, thumbnailsFirst: redrawn).0?.sha256,
                                           words: useWords ? texts?.words(of: b, layout: layout, number: page.number, isBase: true) : nil)
                }
                let newPrints = newPages.map { page in
                    PageShifts.Fingerprint(sha256: Self.pictures(page, page, thumbnailsFirst: redrawn).0?.sha256,
                                           words: useWords ? texts?.words(of: n, layout: layout, number: page.number, isBase: false) : nil)
                }
                // Shifts are looked for where one run's page numbers begin the other's.
                let baseNumbers = basePages.map(\.number), newNumbers = newPages.map(\.number)
                let numbered = Array(newNumbers.prefix(baseNumbers.count)) == baseNumbers || Array(baseNumbers.prefix(newNumbers.count)) == newNumbers
                let alignment = numbered ? PageShifts.align(base: basePrints, new: newPrints) : nil
                let found = alignment?.shift
                if let found {
                    shifts[index, default: []].append(DiffReport.Shift(
                        kind: found.inserted ? .inserted : .removed, layout: layout,
                        at: found.inserted ? newPages[found.at].number : basePages[found.at].number,
                        count: found.count, matchingPages: found.matching, matchedBy: found.by))
                }
                let folder = [RunDiff.picturesFolder, n.name, layout].compactMap { $0 }.joined(separator: "/")
                for (i, j) in found != nil ? alignment?.pairs ?? [] : Self.byNumber(basePages, newPages) {
                    let bp = i.map { basePages[$0] }, np = j.map { newPages[$0] }
                    let moved = bp != nil && np != nil && bp?.number != np?.number
                    // A page removed in a shift has the number of a new page: its pictures get a name of their own.
                    let stem = folder + "/p" + String(format: "%04d", np?.number ?? bp?.number ?? 0)
                        + (np == nil && found != nil ? "-removed" : "")
                    let (bPicture, nPicture) = Self.pictures(bp, np, thumbnailsFirst: redrawn)
                    let kind: PageJob.Kind
                    switch (bp, np) {
                    case let (bp?, np?):
                        if moved, let i, let j, basePrints[i].isSamePage(as: newPrints[j]) {
                            kind = .shifted
                        } else if Self.isResized(bp, np) || bPicture.map({ ($0.width, $0.height) }) ?? (0, 0) != nPicture.map({ ($0.width, $0.height) }) ?? (0, 0) {
                            kind = .resized
                        } else if let bPicture, let nPicture, bPicture.sha256 == nPicture.sha256 {
                            kind = .unchanged
                        } else if bPicture == nil && nPicture == nil {
                            kind = .unchanged  // no pictures to compare in either run
                        } else {
                            kind = .compare
                        }
                    case (nil, _?): kind = .added
                    default: kind = .removed
                    }
                    jobs.append(PageJob(document: index, layout: layout, number: np?.number ?? bp?.number ?? 0, kind: kind,
                                        base: bp.map { Side(page: $0, picture: bPicture) }, new: np.map { Side(page: $0, picture: nPicture) },
                                        stem: stem))
                }
            }
        }
        self.jobs = jobs
        self.shifts = shifts
    }

    /// The pages of one layout of a document, by number (the first of a number only).
    static func pages(of document: Manifest.Document, layout: String?) -> [Manifest.Page] {
        var seen = Set<Int>()
        return document.pages.filter { $0.layout == layout && seen.insert($0.number).inserted }.sorted { $0.number < $1.number }
    }

    /// Pages paired by number: positions in `base` and `new`.
    static func byNumber(_ base: [Manifest.Page], _ new: [Manifest.Page]) -> [(base: Int?, new: Int?)] {
        let basePositions = Dictionary(base.enumerated().map { ($1.number, $0) }, uniquingKeysWith: { a, _ in a })
        let newPositions = Dictionary(new.enumerated().map { ($1.number, $0) }, uniquingKeysWith: { a, _ in a })
        return Set(basePositions.keys).union(newPositions.keys).sorted().map { (basePositions[$0], newPositions[$0]) }
    }

    /// The layouts of a document's pages (nil for a PDF), the new run's order first.
    static func groups(_ base: Manifest.Document, _ new: Manifest.Document) -> [String?] {
        var seen = Set<String?>(), order: [String?] = []
        for page in new.pages + base.pages where seen.insert(page.layout).inserted { order.append(page.layout) }
        return order
    }

    /// Another size in points (beyond rounding) or another rotation.
    static func isResized(_ a: Manifest.Page, _ b: Manifest.Page) -> Bool {
        abs(a.widthPt - b.widthPt) > 0.01 || abs(a.heightPt - b.heightPt) > 0.01 || a.rotation != b.rotation
    }

    /// The pictures to compare: both page images, or else the largest thumbnail box both have
    /// (`thumbnailsFirst`: that box when there is one, for runs at different resolutions).
    static func pictures(_ a: Manifest.Page?, _ b: Manifest.Page?, thumbnailsFirst: Bool = false) -> (Picture?, Picture?) {
        func image(_ page: Manifest.Page?) -> Picture? {
            page?.image.map { Picture(path: $0.path, width: $0.width, height: $0.height, sha256: $0.sha256) }
        }
        func thumbnail(_ page: Manifest.Page?, _ box: Int) -> Picture? {
            page?.thumbnails.first { $0.box == box }.map { Picture(path: $0.path, width: $0.width, height: $0.height, sha256: $0.sha256) }
        }
        func best(_ page: Manifest.Page) -> Picture? {
            image(page) ?? page.thumbnails.max { $0.box < $1.box }.flatMap { thumbnail(page, $0.box) }
        }
        guard let a, let b else { return (a.flatMap(best), b.flatMap(best)) }
        let common = Set(a.thumbnails.map(\.box)).intersection(b.thumbnails.map(\.box)).max()
        if thumbnailsFirst, let common, let x = thumbnail(a, common), let y = thumbnail(b, common) { return (x, y) }
        if let x = image(a), let y = image(b) { return (x, y) }
        return (common.flatMap { thumbnail(a, $0) }, common.flatMap { thumbnail(b, $0) })
    }

    /// Runs every job that reads pixels, `options.workers` at a time, writing each changed
    /// page's pictures under `output`; the results come back in job order.
    func comparePages(into output: URL, options: DiffOptions) throws -> [DiffReport.PageChange?] {
        let results = Mutex([DiffReport.PageChange?](repeating: nil, count: jobs.count))
        let firstError = Mutex<(any Error)?>(nil)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = max(1, options.workers)
        queue.name = "galley.diff"
        let baseFolder = baseFolder, newFolder = newFolder
        // At most one per worker: each operation takes one and gives it back.
        let scratches = Mutex<[DiffScratch]>([])
        for (index, job) in jobs.enumerated() where job.kind != .unchanged && job.kind != .shifted {
            queue.addOperation {
                guard firstError.withLock({ $0 == nil }) else { return }
                let scratch = scratches.withLock { $0.popLast() } ?? DiffScratch()
                defer { scratches.withLock { $0.append(scratch) } }
                do {
                    let change = try PageComparison(job: job, baseFolder: baseFolder, newFolder: newFolder, output: output, options: options,
                                                    scratch: scratch).run()
                    results.withLock { $0[index] = change }
                } catch {
                    firstError.withLock { if $0 == nil { $0 = error } }
                }
            }
        }
        queue.waitUntilAllOperationsAreFinished()
        if let error = firstError.withLock({ $0 }) { throw error }
        return results.withLock { $0 }
    }

    /// The report from the page results (in job order).
    func report(results: [DiffReport.PageChange?], options: DiffOptions, labels: (base: String, new: String)) -> DiffReport {
        var documentTotals = DiffReport.Counts(), pageTotals = DiffReport.Counts()
        var entries: [DiffReport.Document] = []
        var byStatus: [DiffReport.DocumentStatus: [String]] = [:]
        var compared = 0
        var jobIndex = 0
        for (index, pair) in documents.enumerated() {
            let any = (pair.new ?? pair.base)!
            var counts = DiffReport.Counts()
            var changes: [DiffReport.PageChange] = []
            var status: DiffReport.DocumentStatus
            var shifts: [DiffReport.Shift] = []
            if pair.base == nil {
                status = .added
                counts.added = any.pages.count
            } else if pair.new == nil {
                status = .removed
                counts.removed = any.pages.count
            } else {
                var documentJobs: [(job: PageJob, change: DiffReport.PageChange?)] = []
                while jobIndex < jobs.count && jobs[jobIndex].document == index {
                    documentJobs.append((jobs[jobIndex], results[jobIndex]))
                    jobIndex += 1
                }
                for (job, result) in documentJobs {
                    if job.kind == .compare { compared += 1 }
                    let change = job.kind == .shifted ? PageComparison.entry(for: job, status: .shifted) : result
                    guard let change else {
                        counts.unchanged += 1
                        continue
                    }
                    switch change.status {
                    case .changed, .unreadable: counts.changed += 1
                    case .resized: counts.changed += 1; counts.resized += 1
                    case .added: counts.added += 1
                    case .removed: counts.removed += 1
                    case .similar: counts.unchanged += 1; counts.similar += 1
                    case .shifted: counts.shifted += 1
                    }
                    changes.append(change)
                }
                shifts = self.shifts[index] ?? []
                let failureChanged = pair.base?.error?.code != pair.new?.error?.code
                status = counts.changed + counts.added + counts.removed > 0 || failureChanged ? .changed : .unchanged
            }
            byStatus[status, default: []].append(any.name)
            switch status {
            case .added: documentTotals.added += 1
            case .removed: documentTotals.removed += 1
            case .changed: documentTotals.changed += 1
            case .unchanged: documentTotals.unchanged += 1
            }
            pageTotals.added += counts.added; pageTotals.removed += counts.removed; pageTotals.changed += counts.changed
            pageTotals.unchanged += counts.unchanged; pageTotals.resized += counts.resized; pageTotals.similar += counts.similar
            pageTotals.shifted += counts.shifted
            entries.append(DiffReport.Document(
                name: any.name, source: any.source, kind: any.kind, status: status, baseStatus: pair.base?.status,
                newStatus: pair.new?.status, error: pair.new?.error, pages: counts, shifts: shifts, changes: changes))
        }
        let changed = documentTotals.added + documentTotals.removed + documentTotals.changed > 0
        return DiffReport(
            base: labels.base, new: labels.new, dpi: dpi,
            settings: .init(threshold: options.threshold, maxChangedPixels: options.maxChangedPixels,
                            maxChangedFraction: options.maxChangedFraction, text: options.text),
            outcome: changed ? .changed : .unchanged,
            totals: .init(documents: documentTotals, pages: pageTotals, pagesCompared: compared),
            added: byStatus[.added] ?? [], removed: byStatus[.removed] ?? [], changed: byStatus[.changed] ?? [],
            unchanged: byStatus[.unchanged] ?? [], documents: entries)
    }
}

/// The bitmaps a worker decodes page pairs into, kept from one page to the next: pages of one
/// size reuse them instead of touching fresh memory (whose page faults cost as much as the
/// decoding did). Owned by one operation at a time, taken from and given back to
/// `comparePages`' pool under its lock: that hand-off, not a lock of its own, is why it may be
/// `Sendable`.
final class DiffScratch: @unchecked Sendable {
    var before: Bitmap?
    var after: Bitmap?
}

/// One page pair read, compared and drawn: what a worker does for a job.
struct PageComparison {
    let job: DiffPlan.PageJob
    let baseFolder: URL
    let newFolder: URL
    let output: URL
    let options: DiffOptions
    let scratch: DiffScratch

    /// The page's entry in the report.
    func run() throws -> DiffReport.PageChange {
        var change = Self.entry(for: job, status: .changed)
        // Read both pictures (the bytes are copied into the diff folder as they are).
        var before: (bytes: [UInt8], bitmap: Bitmap)?, after: (bytes: [UInt8], bitmap: Bitmap)?
        do {
            if let picture = job.base?.picture {
                before = try read(picture, in: baseFolder, reusing: scratch.before)
                scratch.before = before?.bitmap
            }
            if let picture = job.new?.picture {
                after = try read(picture, in: newFolder, reusing: scratch.after)
                scratch.after = after?.bitmap
            }
        } catch {
            change.status = .unreadable
            change.error = "\(error)"
            return change
        }
        var images = DiffReport.PageImages()
        switch job.kind {
        case .added: change.status = .added
        case .removed: change.status = .removed
        case .resized: change.status = .resized
        case .unchanged, .shifted: preconditionFailure("unchanged and shifted pages are not read")
        case .compare:
            guard let before, let after, let page = job.new?.page else { break }
            let diff = PixelDiff(base: before.bitmap, new: after.bitmap, threshold: options.threshold)
            let total = after.bitmap.width * after.bitmap.height
            change.changedPixels = diff.changedPixels
            change.changedFraction = (Double(diff.changedPixels) / Double(total) * 1e6).rounded() / 1e6
            change.antiAliasedPixels = diff.antiAliasedPixels
            if diff.changedPixels == 0 || options.isWithinLimits(changed: diff.changedPixels, total: total) {
                change.status = .similar
                return change
            }
            // Pixels per point, from the manifest's page size and the picture's pixel size.
            let scale = Double(after.bitmap.width) / page.widthPt
            let gap = max(1, Int((options.regionGap * scale).rounded()))
            let regions = diff.regions(gap: gap)
            change.regions = regions.map { rect in
                Manifest.Rect(x: points(rect.x, scale), y: points(rect.y, scale), width: points(rect.width, scale), height: points(rect.height, scale))
            }
            let factor = DiffImages.shrinkFactor(width: after.bitmap.width, height: after.bitmap.height)
            let picture = try DiffImages.diffImage(new: after.bitmap, diff: diff, regions: regions,
                                                   outlineWidth: max(2, Int((scale / Double(factor)).rounded())), factor: factor)
            images.diff = try write(picture.pngData(compression: .fast), "diff")
        }
        if let picture = job.base?.picture, let before { images.before = try copy(picture, in: baseFolder, bytes: before.bytes, "before") }
        if let picture = job.new?.picture, let after { images.after = try copy(picture, in: newFolder, bytes: after.bytes, "after") }
        if before != nil || after != nil {
            let side = try DiffImages.sideBySide(before: thumbnail(job.base, in: baseFolder) ?? before?.bitmap,
                                                 after: thumbnail(job.new, in: newFolder) ?? after?.bitmap, box: options.thumbnailBox)
            images.sideBySide = try write(side.pngData(compression: .fast), "side")
        }
        change.images = images
        return change
    }

    /// The page's entry in the report before its pictures are read: its numbers and sizes.
    static func entry(for job: DiffPlan.PageJob, status: DiffReport.PageStatus) -> DiffReport.PageChange {
        func size(_ page: Manifest.Page) -> DiffReport.PageSize {
            DiffReport.PageSize(widthPt: page.widthPt, heightPt: page.heightPt, rotation: page.rotation)
        }
        let baseNumber = job.base?.page.number
        return DiffReport.PageChange(layout: job.layout, number: job.number, baseNumber: baseNumber == job.number ? nil : baseNumber,
                                     status: status, base: job.base.map { size($0.page) }, new: job.new.map { size($0.page) })
    }

    /// Pixels to points, two decimals.
    private func points(_ pixels: Int, _ scale: Double) -> Double {
        (Double(pixels) / scale * 100).rounded() / 100
    }

    private func read(_ picture: DiffPlan.Picture, in folder: URL, reusing reusable: Bitmap?) throws -> (bytes: [UInt8], bitmap: Bitmap) {
        let url = folder.appendingPathComponent(picture.path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw OutputError(path: url.path, message: "cannot be read")
        }
        let bytes = Array(data)
        let format = ImageFormat(fileExtension: url.pathExtension) ?? .png
        do {
            // PNG, what runs write by default, into the worker's bitmap (decode.c's fast path);
            // the other formats through their decoders.
            return (bytes, format == .png ? try Bitmap.decoding(pngData: bytes, reusing: reusable) : try Bitmap(encoded: bytes, format: format))
        } catch {
            throw OutputError(path: url.path, message: "not a readable \(format.rawValue.uppercased()) image (\(error))")
        }
    }

    /// The run's own thumbnail of the page nearest the side-by-side box (the smallest at least
    /// as large, else the largest): a small picture to shrink instead of the whole page.
    private func thumbnail(_ side: DiffPlan.Side?, in folder: URL) -> Bitmap? {
        guard let thumbnails = side?.page.thumbnails.sorted(by: { $0.box < $1.box }), !thumbnails.isEmpty,
              let chosen = thumbnails.first(where: { $0.box >= options.thumbnailBox }) ?? thumbnails.last,
              let data = FileManager.default.contents(atPath: folder.appendingPathComponent(chosen.path).path) else { return nil }
        return try? Bitmap(encoded: Array(data), format: ImageFormat(fileExtension: (chosen.path as NSString).pathExtension) ?? .png)
    }

    /// A copy of a run's picture in the diff folder: a hard link when the two are on one file
    /// system (no bytes written; the run replacing its file later leaves the link's content
    /// alone, as files are replaced by rename), else the bytes. Its path relative to the diff folder.
    private func copy(_ picture: DiffPlan.Picture, in folder: URL, bytes: [UInt8], _ suffix: String) throws(OutputError) -> String {
        // In the run's format (a page image may be JPEG, WebP or AVIF).
        let fileExtension = (picture.path as NSString).pathExtension
        let path = "\(job.stem)-\(suffix).\(fileExtension)"
        let destination = output.appendingPathComponent(path)
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).tmp")
        try AtomicFile.makeFolders(destination.deletingLastPathComponent().path)
        if link(folder.appendingPathComponent(picture.path).path, temporary.path) == 0 {
            if rename(temporary.path, destination.path) == 0 { return path }
            unlink(temporary.path)
        }
        return try write(bytes, suffix, fileExtension: fileExtension)
    }

    /// Writes one of the page's pictures and returns its path relative to the diff folder.
    private func write(_ bytes: [UInt8], _ suffix: String, fileExtension: String = "png") throws(OutputError) -> String {
        let path = "\(job.stem)-\(suffix).\(fileExtension)"
        try RunDiff.writeAtomically(bytes, to: output.appendingPathComponent(path))
        return path
    }
}
