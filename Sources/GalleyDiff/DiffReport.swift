import Foundation
import GalleyBase
import GalleyManifest

/// `diff.json`: what changed between two runs, described by `schemas/diff.schema.json`.
///
/// Keys sorted, snake case, paths relative to the diff's own folder; documents in the new
/// run's order, then those only the base has in its order; pages in order. The same two runs
/// and settings give the same bytes whatever the number of workers.
public struct DiffReport: Codable, Sendable, Equatable {
    public var schemaVersion = 1
    /// BASE and NEW as given.
    public var base: String
    public var new: String
    /// The runs' resolutions when they differ: pages are then compared by a thumbnail box both
    /// runs have, and a page with no such thumbnail, whose pictures differ in size only
    /// because of the resolution, is `resized` with the same size on both sides.
    public var dpi: DPIChange?
    public var settings: Settings
    /// `changed` when something changed beyond the limits (the exit status is 1), else
    /// `unchanged`.
    public var outcome: Outcome
    public var totals: Totals
    /// Names of the documents in each state.
    public var added: [String]
    public var removed: [String]
    public var changed: [String]
    public var unchanged: [String]
    public var documents: [Document]

    public enum Outcome: String, Codable, Sendable {
        case changed, unchanged
    }

    public struct DPIChange: Codable, Sendable, Equatable {
        public var base: Double
        public var new: Double
    }

    public struct Settings: Codable, Sendable, Equatable {
        public var threshold: Double
        /// A page whose changed pixels stay within every limit given counts as unchanged
        /// (`similar`); absent limits are not checked, and with none any change counts.
        public var maxChangedPixels: Int?
        public var maxChangedFraction: Double?
        /// Whether page text was compared (`--text`).
        public var text: Bool
    }

    public struct Totals: Codable, Sendable, Equatable {
        public var documents: Counts
        public var pages: Counts
        /// Pages whose images were decoded and compared pixel by pixel.
        public var pagesCompared: Int
    }

    /// How many documents (or pages) are in each state; `changed` includes pages `resized`,
    /// which are also counted on their own.
    public struct Counts: Codable, Sendable, Equatable {
        public var added = 0
        public var removed = 0
        public var changed = 0
        public var unchanged = 0
        public var resized = 0
        /// Differing pixels all within the limits or below the threshold: counted as unchanged too.
        public var similar = 0
        /// Pages equal to the base's page shifted by pages inserted or removed before them:
        /// neither changed nor unchanged (absent from reports written before it was counted).
        public var shifted = 0

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            added = try c.decode(Int.self, forKey: .added)
            removed = try c.decode(Int.self, forKey: .removed)
            changed = try c.decode(Int.self, forKey: .changed)
            unchanged = try c.decode(Int.self, forKey: .unchanged)
            resized = try c.decode(Int.self, forKey: .resized)
            similar = try c.decode(Int.self, forKey: .similar)
            shifted = try c.decodeIfPresent(Int.self, forKey: .shifted) ?? 0
        }
    }

    public enum DocumentStatus: String, Codable, Sendable {
        case added, removed, changed, unchanged
    }

    public struct Document: Codable, Sendable, Equatable {
        /// The document's folder under the output folders, which matches it across runs.
        public var name: String
        public var source: String
        public var kind: Manifest.Document.Kind
        public var status: DocumentStatus
        /// Its status in each run's manifest (`ok`, `failed`, `unchanged`); absent where it is not.
        public var baseStatus: Manifest.Status?
        public var newStatus: Manifest.Status?
        /// Why it failed in the new run (or, when it failed in the base run only, nothing).
        public var error: Failure?
        /// Page counts: `changed` includes `resized`; `similar` pages count as unchanged.
        public var pages: Counts
        /// Pages inserted or removed in the middle, found from the pages after them matching
        /// the base's shifted.
        public var shifts: [Shift]
        /// Every page that is not unchanged, in order.
        public var changes: [PageChange]
        /// `--text`: why the words of its pages could not be compared, when they could not.
        public var textUnavailable: String?
    }

    public struct Shift: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable { case inserted, removed }
        public var kind: Kind
        /// Articles: the layout.
        public var layout: String?
        /// The first page inserted (numbered in the new run) or removed (numbered in the base).
        public var at: Int
        public var count: Int
        /// The pages after it that match shifted, and how they were matched (`image`: equal
        /// SHA-256; `text`: equal words).
        public var matchingPages: Int
        public var matchedBy: String

        public init(kind: Kind, layout: String?, at: Int, count: Int, matchingPages: Int, matchedBy: String) {
            self.kind = kind
            self.layout = layout
            self.at = at
            self.count = count
            self.matchingPages = matchingPages
            self.matchedBy = matchedBy
        }
    }

    public enum PageStatus: String, Codable, Sendable {
        /// Changed pixels beyond the limits.
        case changed
        /// Another size or rotation: not compared pixel by pixel.
        case resized
        case added, removed
        /// Its image differs, but no pixel counts, or the count is within the limits.
        case similar
        /// Its image could not be read (`error` says why): counted as changed.
        case unreadable
        /// Equal to the base's page `base_number`: moved by pages inserted or removed before
        /// it, not changed (not read).
        case shifted
    }

    public struct PageChange: Codable, Sendable, Equatable {
        public var layout: String?
        public var number: Int
        /// The base's page it was compared with, when pages inserted or removed before it
        /// moved it (`number` is then its number in the new run).
        public var baseNumber: Int?
        public var status: PageStatus
        /// The page's size in points and /Rotate in each run, where it is.
        public var base: PageSize?
        public var new: PageSize?
        public var changedPixels: Int?
        /// Changed pixels over the page's pixels.
        public var changedFraction: Double?
        /// Pixels that differ past the threshold but lie on an anti-aliased edge.
        public var antiAliasedPixels: Int?
        /// Changed areas in points, top-left origin of the (new) page, y down.
        public var regions: [Manifest.Rect]?
        /// Pictures for the review, relative to the diff folder.
        public var images: PageImages?
        /// `--text`: words of the page text removed and added.
        public var words: WordChanges?
        public var error: String?
    }

    public struct PageSize: Codable, Sendable, Equatable {
        public var widthPt: Double
        public var heightPt: Double
        public var rotation: Int

        public init(widthPt: Double, heightPt: Double, rotation: Int) {
            self.widthPt = widthPt
            self.heightPt = heightPt
            self.rotation = rotation
        }
    }

    public struct PageImages: Codable, Sendable, Equatable {
        /// Copies of the page images, so the diff folder is a review on its own.
        public var before: String?
        public var after: String?
        /// The new page faded, changed pixels coloured, regions outlined.
        public var diff: String?
        /// Before and after side by side, small.
        public var sideBySide: String?
    }

    public struct WordChanges: Codable, Sendable, Equatable {
        /// Each run of removed words next to the run of words put in its place (either may be empty).
        public var edits: [WordEdit]
        public var removed: Int
        public var added: Int
    }

    public struct WordEdit: Codable, Sendable, Equatable {
        public var removed: String
        public var added: String

        public init(removed: String, added: String) {
            self.removed = removed
            self.added = added
        }
    }

    /// The report as JSON: sorted keys, snake case, two-space indentation, trailing newline.
    public func encoded() throws -> [UInt8] {
        Array(try Manifest.encoder(pretty: true).encode(self)) + [0x0A]
    }

    public static func decode(_ data: Data) throws -> DiffReport {
        try Manifest.decoder().decode(DiffReport.self, from: data)
    }
}
