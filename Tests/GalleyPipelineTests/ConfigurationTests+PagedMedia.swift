import Foundation
import GalleyPipeline
import GalleyText
import Testing

/// A layout's `folio` and `running_head` (page numbers and running heads without CSS).
extension ConfigurationTests {
    @Test func folioAndRunningHeadAreReadFromALayout() throws {
        let layouts = try load("layouts:\n  - name: book\n    folio: bottom-center\n    running_head: h1\n  - name: plain\n").layouts
        #expect(layouts[0].folio == .bottomCenter && layouts[0].runningHead == "h1")
        #expect(layouts[1].folio == nil && layouts[1].runningHead == nil)
        let outer = try load("layouts:\n  - name: a\n    folio: top-right\n    running_head: H2\n").layouts[0]
        #expect(outer.folio == .topRight && outer.runningHead == "h2")
        #expect(try load("layouts:\n  - name: a\n    folio: none\n    running_head: none\n").layouts[0].folio == nil)
    }

    @Test func anUnknownFolioPlaceNamesTheMarginBoxes() throws {
        let error = try #require(loadError("layouts:\n  - name: a\n    folio: bottom\n"))
        #expect(error.key == "layouts.a.folio")
        #expect(error.message.contains("bottom-center") && error.message.contains("top-right") && error.message.contains("'bottom'"))
        let head = try #require(loadError("layouts:\n  - name: a\n    running_head: \"h1 em\"\n"))
        #expect(head.key == "layouts.a.running_head" && head.message.contains("element name"))
    }
}
