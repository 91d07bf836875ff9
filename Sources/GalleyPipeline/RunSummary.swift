import Foundation

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
    /// Thumbnail cache entries removed to keep within `thumbnail_cache_size`, and with
    /// `pruneCache` because their source is gone.
    public var cacheEvicted = 0
    public var cachePruned = 0
    /// Files moved from the inbox into the library: (path in the inbox, path in the library).
    public var inboxMoves: [(String, String)] = []
}
