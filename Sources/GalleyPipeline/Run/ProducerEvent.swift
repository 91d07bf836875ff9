import GalleyBase
import GalleyManifest
import GalleyText

/// What a page producer found out about its document besides its pages: values it hands to
/// whoever drives it (`PageProducer.takeEvents()`), in the order they happened. The run's
/// stages record them (the recorder, `RunRecorder.record`, and the catalog, the document files
/// written); `galley render` and `galley thumbnail` read the warnings and the failure from
/// them, with no run to record into.
enum ProducerEvent: Sendable {
    /// The document's title and author, as its metadata gives them.
    case described(title: String?, author: String?)
    /// A PDF opened: its page count, how many are selected, and what opening it showed.
    case counted(pages: Int, selected: Int, warnings: [String])
    /// An article's typesetting finished (or stopped at a failure).
    case typeset(Typeset)
    /// A page's warning (a page drawn from what MuPDF could read of it).
    case warning(String)
    /// A page that failed alone, or a fault of the whole document its pages outlive (a page
    /// tree claiming more pages than it holds): the document goes on.
    case failed(Failure)
    /// A layout's whole-document file (`documents:`) written into the output folder.
    case wroteFile(layout: ArticleLayout, file: Manifest.DocumentFile)

    /// What an article's typesetting made: its text length, the characters read and set, the
    /// pages of each layout, how many were selected (nil: no selection), and its warnings.
    struct Typeset: Sendable {
        var textLength: Int
        var characters: (source: Int, set: Int)
        var layouts: [Manifest.LayoutPages]
        var selected: Int?
        var warnings: [String]
    }
}

extension [ProducerEvent] {
    /// The warnings as the manifest lists them (the document's, then its pages'), and the
    /// failure on the earliest page, as a run keeps it.
    var outcome: (warnings: [String], failure: Failure?) {
        var warnings: [String] = [], pageWarnings: [String] = [], failure: Failure?
        for event in self {
            switch event {
            case .counted(_, _, let found): warnings += found
            case .typeset(let typeset): warnings += typeset.warnings
            case .warning(let warning): pageWarnings.append(warning)
            case .failed(let found): RunRecorder.keepEarliest(&failure, found)
            case .described, .wroteFile: break
            }
        }
        return (warnings + pageWarnings, failure)
    }
}
