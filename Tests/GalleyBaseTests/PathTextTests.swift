import Foundation
import GalleyBase
import Testing

struct PathTextTests {
    @Test func parentsAreWhatFoundationSaysWhereFoundationDoesNotTrap() {
        // Paths Foundation's deletingLastPathComponent takes apart without trapping.
        for path in ["a/b/c.png", "ab", "/a", "/", "/a/b", "a//b", "a/b/", "doc/page-0001.png", "d/y", "/x", "é/ü.pdf", ""] {
            #expect(PathText.parent(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
        }
    }

    @Test func oneCharacterPathsHaveNoParent() {
        // The paths on which Foundation traps (SIGILL) on Linux.
        for path in ["x", "x/", "é", "d"] {
            #expect(PathText.parent(of: path) == "", "\(path)")
        }
    }

    @Test func foldersAboveARelativePathEndAtItsTop() {
        #expect(PathText.folders(above: "x/page-0001.png") == ["x"])
        #expect(PathText.folders(above: "d/y/thumbs/96/page-0001.png") == ["d/y/thumbs/96", "d/y/thumbs", "d/y", "d"])
        #expect(PathText.folders(above: "page.png") == [])
        #expect(PathText.folders(above: "/abs/x.png") == ["/abs"])
    }
}
