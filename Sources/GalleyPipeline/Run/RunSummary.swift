import Foundation
import GalleyDiff
import GalleyManifest

/// How a run ended.
public struct RunSummary: Sendable {
    public enum Outcome: Sendable {
        /// Every document succeeded.
        case succeeded
        /// One or more documents failed; the others completed.
        case someFailed
        /// The run was cancelled; no manifest was written.
        case interrupted
    }

    public var outcome: Outcome
    /// The manifest written (absent when interrupted).
    public var manifest: Manifest?
    public var outputFolder: URL
    public var duration: Double
    public var warnings: [String]
    /// Outputs drawn and encoded by this run.
    public var drawnOutputs = 0
    /// Outputs kept from an earlier run, or copied from a document with the same content.
    public var reusedOutputs = 0
    /// Documents whose source is gone: their outputs were removed.
    public var removedDocuments = 0
    /// Every output file the run removed, by document and reason, so nothing a user had goes
    /// without a word.
    public var removals: [Removal] = []
    /// Why the manifest (or the contact sheet) could not be written, when it could not: the
    /// documents' outcomes are still in this summary.
    public var manifestError: String?
    /// Thumbnail cache entries removed to keep within `thumbnail_cache_size`, and with
    /// `pruneCache` because their source is gone.
    public var cacheEvicted = 0
    public var cachePruned = 0
    /// Files moved from the inbox into the library: (path in the inbox, path in the library).
    public var inboxMoves: [(String, String)] = []
    /// Files under the inputs that are not documents, by reason.
    public var skipped = InputScanner.Skipped()
    /// Each document's source file, by document name (`Manifest.Document.name`).
    public var sources: [String: URL] = [:]
    /// With a baseline: what changed since it (written to `<output>/diff/`).
    public var diff: DiffReport?
    /// With a baseline: why the diff could not be made, when it could not.
    public var diffError: String?
    /// `--baseline` named a folder that is missing or empty: the note saying nothing was compared.
    public var baselineNote: String?
}

/// Output files a run removed: how many, of which document, and why.
public struct Removal: Sendable, Equatable, CustomStringConvertible {
    /// The document's source path as the manifest shows it (relative to its input), or the
    /// full path of a source that is gone.
    public var source: String
    /// `page images`, `thumbnails`, `document files` or `outputs`.
    public var what: String
    public var count: Int
    public var reason: String

    public var description: String { "\(count) \(count == 1 ? String(what.dropLast()) : what) of \(source) (\(reason))" }
}

extension CIReport {
    /// The CI report of a finished run.
    public init(summary: RunSummary, durations: [String: Double] = [:]) {
        self.init(run: Run(manifest: summary.manifest, outputFolder: summary.outputFolder, duration: summary.duration,
                           drawnOutputs: summary.drawnOutputs, reusedOutputs: summary.reusedOutputs, sources: summary.sources,
                           manifestError: summary.manifestError, baselineNote: summary.baselineNote),
                  durations: durations)
    }
}
