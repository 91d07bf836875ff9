import GalleyDiff
/// What a run does besides the defaults.
public struct RunOptions: Sendable {
    /// Draw everything again, ignoring the catalog and the thumbnail cache.
    public var force = false
    /// Make thumbnails only: page images are kept when an earlier run made them with the same
    /// settings, and otherwise left out (`galley thumbs`).
    public var thumbnailsOnly = false
    /// Remove thumbnail cache entries whose source file is gone.
    public var pruneCache = false
    /// Stop with a usage error when the inputs hold no document at all (a misconfigured CI
    /// job must not pass on nothing); `galley run --allow-empty` turns it off.
    public var requireDocuments = false
    /// An earlier run to compare with as the last stage (`--baseline`): its outputs (read
    /// before the run starts, so a missing baseline stops the run at once) and how to compare.
    /// The diff goes to `<output>/diff/`, and the contact sheet marks the changed pages.
    public var baseline: RunOutputs?
    /// `--baseline` named a folder that does not exist or is empty: there is no earlier run
    /// yet (a repository's first CI run, whose artifact download found nothing). The run goes
    /// on without a comparison, says so in its summaries and writes the note to
    /// `<output>/diff/summary.md` and `summary.txt` (no `diff.json`: nothing was compared).
    public var missingBaseline: String?
    public var diffOptions = DiffOptions()
    /// When the run this one continues started, if its process died (`galley` restarts itself
    /// after a crash): documents it finished are reported as done in this run (`ok`), not as
    /// unchanged, and `force` no longer opens content quarantined as crashed, or the content
    /// that killed the first attempt would kill every restart.
    public var continuesRunStartedAt: Double?
    /// Seconds between the contact sheets written while the run goes (`ProgressSheet`), and
    /// before the first; nil: none, only the final sheet.
    public var progressSheetInterval: Double? = 5

    public init(force: Bool = false, thumbnailsOnly: Bool = false, pruneCache: Bool = false, requireDocuments: Bool = false) {
        self.force = force
        self.thumbnailsOnly = thumbnailsOnly
        self.pruneCache = pruneCache
        self.requireDocuments = requireDocuments
    }
}
