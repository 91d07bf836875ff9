import Foundation
import GalleyTestSupport
import Testing

/// `galley typeset --json --lines` reports the margin boxes set on each page (page numbers,
/// running heads), as a script checking a layout reads them.
extension GalleyCommandTests {
    @Test func typesetListsThePageNumbersOfTheMarginBoxes() throws {
        let paragraph = "<p>" + String(repeating: "The quick brown fox jumps over the lazy dog while the typesetter fills the page. ", count: 4) + "</p>"
        let html = "<html><head><style>@page { size: A5; margin: 20mm; @bottom-center { content: counter(page) \" / \" counter(pages) } }"
            + "</style></head><body>" + String(repeating: paragraph, count: 30) + "</body></html>"
        let source = try ScratchFolder("galley-cli-paged-source")
        try html.write(to: source.path("paged.html"), atomically: true, encoding: .utf8)
        let folder = try folderWithConfig("inputs: [docs]\n", files: [source.path("paged.html")])
        let outcome = try galley(["typeset", "--json", "--lines", "docs/paged.html"], in: folder.url)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
        let layout = try #require((json["documents"] as? [[String: Any]])?.first?["layouts"] as? [[String: Any]]).first
        let pages = try #require(layout?["pages"] as? Int)
        let boxes = try #require(layout?["margin_boxes"] as? [[String: Any]])
        #expect(pages >= 3)
        #expect(boxes.map { $0["text"] as? String } == (1...pages).map { "\($0) / \(pages)" })
        #expect(boxes.map { $0["label"] as? String } == (1...pages).map { "\($0)" })
        // In the bottom margin of the A5 page (595 pt high, 20 mm margins), across its middle.
        for box in boxes {
            let rect = try #require(box["rect"] as? [String: Double])
            let (x, y) = (try #require(rect["x"]), try #require(rect["y"]))
            let (width, height) = (try #require(rect["width"]), try #require(rect["height"]))
            #expect(box["position"] as? String == "bottom-center")
            #expect(y > 595.28 - 56.7 && y + height < 595.28)
            #expect(abs(x + width / 2 - 419.53 / 2) < 1)
        }
    }
}
