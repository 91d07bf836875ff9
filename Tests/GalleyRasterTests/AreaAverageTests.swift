import Testing
@testable import GalleyRaster

@Suite struct AreaAverageTests {
    /// Each new pixel is the mean of the old ones under it, weighted by the part of each under
    /// it: checked against the sum written out in two dimensions, pixel by pixel.
    @Test(arguments: [(37, 23, 11, 7), (50, 40, 50, 13), (9, 9, 4, 4), (31, 17, 1, 1), (128, 96, 97, 73)])
    func reductionIsTheWeightedMean(size: (Int, Int, Int, Int)) throws {
        let (width, height, newWidth, newHeight) = size
        let bitmap = try Bitmap(width: width, height: height)
        var seed: UInt32 = 12345
        for i in 0..<bitmap.pixels.count {
            seed = seed &* 1_103_515_245 &+ 12345
            bitmap.pixels[i] = UInt8(truncatingIfNeeded: seed >> 16)
        }
        let reduced = try bitmap.areaAveraged(width: newWidth, height: newHeight)
        #expect(reduced.width == newWidth && reduced.height == newHeight)
        func overlap(_ old: Int, _ new: Int, _ oldCount: Int, _ newCount: Int) -> Int {
            // Old pixel `old` spans [old·newCount, (old+1)·newCount), new pixel `new` spans
            // [new·oldCount, (new+1)·oldCount), in units of 1/(oldCount·newCount) of the side.
            max(0, min((old + 1) * newCount, (new + 1) * oldCount) - max(old * newCount, new * oldCount))
        }
        var wrong = 0
        for y in 0..<newHeight {
            for x in 0..<newWidth {
                for channel in 0..<3 {
                    var sum = 0
                    for oldY in 0..<height {
                        let wy = overlap(oldY, y, height, newHeight)
                        guard wy > 0 else { continue }
                        for oldX in 0..<width {
                            let wx = overlap(oldX, x, width, newWidth)
                            if wx > 0 { sum += wx * wy * Int(bitmap.pixels[oldY * bitmap.rowBytes + oldX * 3 + channel]) }
                        }
                    }
                    let area = width * height
                    let expected = (sum + area / 2) / area
                    if Int(reduced.pixels[y * reduced.rowBytes + x * 3 + channel]) != expected { wrong += 1 }
                }
            }
        }
        #expect(wrong == 0)
    }

    /// A hairline survives a tenfold reduction as a light grey line, where taking every tenth
    /// pixel would drop it or keep it black depending on where it falls.
    @Test func aHairlineBecomesGreyNotLost() throws {
        let bitmap = try Bitmap(width: 100, height: 20)
        bitmap.fill(r: 255, g: 255, b: 255)
        for y in 0..<20 { for c in 0..<3 { bitmap.pixels[y * bitmap.rowBytes + 43 * 3 + c] = 0 } }
        let reduced = try bitmap.areaAveraged(width: 10, height: 2)
        for y in 0..<2 {
            #expect(reduced.pixel(x: 4, y: y) == (230, 230, 230))
            #expect(reduced.pixel(x: 3, y: y) == (255, 255, 255) && reduced.pixel(x: 5, y: y) == (255, 255, 255))
        }
    }

    @Test func growingIsRefused() throws {
        let bitmap = try Bitmap(width: 10, height: 10)
        #expect(throws: RasterError.self) { try bitmap.areaAveraged(width: 11, height: 5) }
    }
}
