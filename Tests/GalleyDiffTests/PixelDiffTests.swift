import Foundation
@testable import GalleyDiff
import GalleyRaster
import Testing

/// The pixel comparison, the changed regions and the word diff on data made to measure.
@Suite struct PixelDiffTests {
    /// A white bitmap with black squares (x, y, side).
    func bitmap(_ width: Int, _ height: Int, squares: [(Int, Int, Int)]) throws -> Bitmap {
        let bitmap = try Bitmap(width: width, height: height)
        bitmap.fill(r: 255, g: 255, b: 255)
        for (x0, y0, side) in squares {
            for y in y0..<(y0 + side) {
                for x in x0..<(x0 + side) {
                    let o = y * bitmap.rowBytes + x * 3
                    bitmap.pixels[o] = 0; bitmap.pixels[o + 1] = 0; bitmap.pixels[o + 2] = 0
                }
            }
        }
        return bitmap
    }

    @Test func inkAddedAndRemovedAreCountedWithTheirDirection() throws {
        let base = try bitmap(60, 40, squares: [(5, 5, 4)])
        let new = try bitmap(60, 40, squares: [(40, 20, 3)])
        let diff = PixelDiff(base: base, new: new, threshold: 0.1)
        #expect(diff.changedPixels == 16 + 9 && diff.antiAliasedPixels == 0)
        #expect(diff.marks[6 * 60 + 6] == PixelDiff.Mark.lighter.rawValue)
        #expect(diff.marks[21 * 60 + 41] == PixelDiff.Mark.darker.rawValue)
        #expect(diff.regions(gap: 2) == [PixelRect(x: 5, y: 5, width: 4, height: 4), PixelRect(x: 40, y: 20, width: 3, height: 3)])
    }

    @Test func nearbyChangesMergeIntoOneRegionAndFarOnesDoNot() throws {
        let base = try bitmap(80, 30, squares: [])
        // Three marks: two 3 px apart, the third 30 px away.
        let new = try bitmap(80, 30, squares: [(2, 2, 2), (7, 2, 2), (39, 10, 2)])
        let diff = PixelDiff(base: base, new: new, threshold: 0.1)
        #expect(diff.regions(gap: 4) == [PixelRect(x: 2, y: 2, width: 7, height: 2), PixelRect(x: 39, y: 10, width: 2, height: 2)])
        #expect(diff.regions(gap: 1).count == 3)
        #expect(diff.regions(gap: 40) == [PixelRect(x: 2, y: 2, width: 39, height: 10)])
    }

    @Test func aFaintChangeCountsOnlyUnderALowerThreshold() throws {
        let base = try bitmap(10, 10, squares: [])
        let new = try bitmap(10, 10, squares: [])
        // One pixel a little darker: a YIQ distance of about 0.07 of black against white.
        let o = 5 * new.rowBytes + 5 * 3
        new.pixels[o] = 238; new.pixels[o + 1] = 238; new.pixels[o + 2] = 238
        #expect(PixelDiff(base: base, new: new, threshold: 0.1).changedPixels == 0)
        #expect(PixelDiff(base: base, new: new, threshold: 0.05).changedPixels == 1)
        #expect(PixelDiff(base: base, new: new, threshold: 0).changedPixels == 1)
    }

    @Test func wordsReplacedAreReportedAsEdits() {
        let before = WordDiff.words("The request fails after a timeout of 30 s.\nRetry twice.")
        let after = WordDiff.words("The request fails after a deadline of 30 s. Retry twice, then stop.")
        #expect(WordDiff.edits(before, after) == [DiffReport.WordEdit(removed: "timeout", added: "deadline"),
                                                  DiffReport.WordEdit(removed: "twice.", added: "twice, then stop.")])
        #expect(WordDiff.edits(before, before).isEmpty)
        #expect(WordDiff.similarity(before, before) == 1)
        #expect(WordDiff.similarity(before, WordDiff.words("something else entirely")) == 0)
    }
}
