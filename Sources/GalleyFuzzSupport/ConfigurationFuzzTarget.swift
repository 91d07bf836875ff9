import Foundation
import GalleyPipeline
import GalleyText

/// Bytes as `pipeline.yml`: loaded from a file as `galley run` loads it, then used as a run
/// uses it: paths resolved, passwords looked up, font folders checked, and a short article
/// typeset in each of its layouts (the first four) with the first page drawn at 18 dpi, so a
/// layout the loader accepts but the typesetter cannot hold is found too.
public struct ConfigurationFuzzTarget: FuzzTarget {
    public static let name = "FuzzConfiguration"
    /// Layouts typeset per input at most.
    static let layoutLimit = 4
    /// Latin, CJK, a list and a soft hyphen: each layout's first page holds a bit of each.
    static let article = Array("""
        <h1>Fuzz</h1><p>Typeset in every layout a configuration names: a para&shy;graph with \
        <i>italics</i>, <b>bold</b> and 日本語の文章、中文。</p><ul><li>one</li><li>two</li></ul>
        """.utf8)

    private let fonts: FontLibrary

    /// The system's fonts, loaded once for every input (a configuration's `fonts:` folders
    /// are checked, not loaded).
    public init() throws(TypesetError) {
        fonts = try FontLibrary()
    }

    public func run(_ input: [UInt8]) -> FuzzOutcome {
        ScratchFile.with(input, name: "pipeline.yml") { file in
            var outcome = FuzzOutcome()
            let configuration: Configuration
            do {
                configuration = try Configuration.load(file: file)
            } catch {
                outcome.errors.append("\(error)")
                return outcome
            }
            _ = configuration.outputURL
            _ = configuration.inputs.map(configuration.resolveInput)
            _ = configuration.inbox.map(configuration.resolve)
            _ = configuration.password(forRelativePath: "reports/2024/q1.pdf")
            do {
                try configuration.checkFontFolders()
            } catch {
                outcome.errors.append("\(error)")
            }
            for layout in configuration.layouts.prefix(Self.layoutLimit) {
                let parsed = MarkupParser(base: layout.base).parse(html: Self.article, baseURL: nil)
                PageDrawing.typeset(parsed, layout: layout, fonts: fonts, dpi: 18, pageLimit: 1, into: &outcome)
            }
            return outcome
        }
    }
}
