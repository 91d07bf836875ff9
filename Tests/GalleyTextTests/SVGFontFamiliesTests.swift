@testable import GalleyText
import Testing

/// SVG text's family lists as the PDF writer hands them to librsvg: the first named family
/// fontconfig has, or has a metric twin of, goes first, so that fontconfig does not prefer the
/// generic family's fonts to it.
struct SVGFontFamiliesTests {
    /// fontconfig as a machine with Liberation Serif and DejaVu has it.
    static func resolve(_ family: String) -> String? {
        switch family.lowercased() {
        case "times", "times new roman", "liberation serif": "Liberation Serif"
        case "dejavu sans": "DejaVu Sans"
        default: "DejaVu Sans"
        }
    }

    func rewritten(_ svg: String) -> String {
        var families = SVGFontFamilies(resolve: Self.resolve)
        return String(decoding: families.rewritten(Array(svg.utf8)), as: UTF8.self)
    }

    @Test func aTimesListIsHeadedByItsMetricTwin() {
        #expect(rewritten(#"<text font-family="Times,serif">a</text>"#) == #"<text font-family="Liberation Serif,Times,serif">a</text>"#)
        #expect(rewritten(#"<text style="fill:red;font-family: 'Times New Roman', serif">a</text>"#)
                == #"<text style="fill:red;font-family: Liberation Serif,'Times New Roman', serif">a</text>"#)
        // A family fontconfig lacks is passed over for the next one it has.
        #expect(rewritten("<text font-family='Minion Pro, Times, serif'>a</text>") == "<text font-family='Liberation Serif,Minion Pro, Times, serif'>a</text>")
    }

    @Test func listsWithoutAnInstalledNamedFamilyAreLeftAlone() {
        for svg in [#"<text font-family="Minion Pro,serif">a</text>"#, #"<text font-family="serif">a</text>"#,
                    #"<text font-family="DejaVu Sans,sans-serif">a</text>"#, #"<g font-family=>"#, "<text font-family"] {
            #expect(rewritten(svg) == svg)
        }
    }
}
