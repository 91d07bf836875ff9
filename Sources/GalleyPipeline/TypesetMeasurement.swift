import Foundation
import GalleyRaster
import GalleyText

/// What typesetting one article in each configured layout costs: pages, lines, and seconds
/// spent typesetting and (optionally) drawing the page images, without PNG encoding or
/// writing. Used by `galley typeset` and the typesetter benchmark.
public struct TypesetMeasurement: Codable, Sendable {
    public var source: String
    public var textLength: Int
    public var layouts: [Layout]

    public struct Layout: Codable, Sendable {
        public var name: String
        public var pages: Int
        public var lines: Int
        public var typesetSeconds: Double
        /// Drawing every page at the configured dpi; 0 when not asked for.
        public var renderSeconds: Double
    }

    /// Typesets `file` in every layout of `configuration`, page by page, drawing each page at
    /// `configuration.dpi` when `render` is true. Single-threaded, like the peers it is
    /// compared with.
    public static func measure(file: URL, configuration: Configuration, fonts: FontLibrary, render: Bool) throws -> TypesetMeasurement {
        let bytes = try [UInt8](Data(contentsOf: file))
        let document = SourceDocument(url: file, input: file.path, relativePath: file.lastPathComponent, kind: .markup, name: "")
        var result = TypesetMeasurement(source: file.path, textLength: 0, layouts: [])
        let scale = configuration.dpi / 72
        for layout in configuration.layouts {
            var typesetSeconds = 0.0, renderSeconds = 0.0
            var pages = 0, lines = 0
            let clock = ContinuousClock()
            var started = clock.now
            let parsed = ArticlePages.parse(bytes, document: document, base: layout.base)
            result.textLength = parsed.text.count
            let typesetter = try ArticleTypesetter(text: parsed.text, layout: layout, fonts: fonts)
            typesetSeconds += seconds(clock.now - started)
            while true {
                started = clock.now
                guard let page = try typesetter.nextPage() else { break }
                typesetSeconds += seconds(clock.now - started)
                pages += 1
                lines += page.lineCount
                if render {
                    started = clock.now
                    _ = try page.render(scale: scale, cancellation: Cancellation())
                    renderSeconds += seconds(clock.now - started)
                }
            }
            result.layouts.append(Layout(name: layout.name, pages: pages, lines: lines,
                                         typesetSeconds: typesetSeconds, renderSeconds: renderSeconds))
        }
        return result
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (s, attoseconds) = duration.components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
