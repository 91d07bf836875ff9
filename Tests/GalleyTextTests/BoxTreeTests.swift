import Foundation
import GalleyText
import Testing

/// The block boxes the markup walker builds (`BoxTree`): blocks inside blocks with their box
/// style, the runs of paragraphs between them as inline formatting contexts, tables and
/// floated blocks in their places.
@Suite struct BoxTreeTests {
    @Test func theWalkerBuildsBlocksWithTheirStylesAndTheTextBetweenThem() throws {
        let html = "<body><p>Lead.</p><div class='note' style='width: 50%; margin: 0 auto; padding: 4px; background: #eee; column-count: 2'>"
            + "Loose text.<p>Inside.</p>More loose text.</div><table><tr><td>cell</td></tr></table>"
            + "<aside style='float: left; width: 30%'><p>Aside.</p></aside><p>Last.</p></body>"
        let text = MarkupParser(base: BaseStyle()).parse(html: Array(html.utf8), baseURL: nil).text
        let tree = text.boxTree
        let body = try #require(tree.boxes.firstIndex { $0.element == "body" })
        func blocks(_ index: Int) -> [BlockBox] { tree.boxes[index].children.compactMap { child in
            switch child {
            case .block(let block), .multicol(let block): tree.boxes[block]
            default: nil
            }
        } }
        // body: p, div, the table, the floated aside, p.
        let kinds = tree.boxes[body].children.map { child -> String in
            switch child {
            case .block(let index): tree.boxes[index].element
            case .inline: "inline"
            case .table: "table"
            case .float(let index, _): "float " + tree.boxes[index].element
            case .multicol(let index): "multicol " + tree.boxes[index].element
            }
        }
        // The note has columns of its own: a multi-column element.
        #expect(kinds == ["p", "multicol div.note", "table", "float aside", "p"])
        let note = try #require(blocks(body).first { $0.element == "div.note" })
        #expect(note.style.size.width == .fraction(0.5))
        #expect(note.style.size.marginStartAuto && note.style.size.marginEndAuto)
        #expect(note.style.padding.top == 3 && note.style.padding.left == 3)
        #expect(note.style.background != nil && note.style.columns.count == 2)
        #expect(note.textBox != nil)
        // Inside the note: loose text, a paragraph, loose text.
        let inner = note.children.map { child -> String in
            switch child {
            case .inline(let paragraphs): text.string(text.paragraphs[paragraphs.lowerBound].range).trimmingCharacters(in: .whitespacesAndNewlines)
            case .block(let index): tree.boxes[index].element
            default: "?"
            }
        }
        #expect(inner == ["Loose text.", "p", "More loose text."])
        // Every paragraph is in exactly one inline formatting context.
        var covered: [Int] = []
        for box in tree.boxes {
            for case .inline(let paragraphs) in box.children { covered += paragraphs }
        }
        let inTables = text.tables.flatMap { Array($0.paragraphs) }
        #expect((covered + inTables).sorted() == Array(0..<text.paragraphs.count))
    }
}
