import GalleyRaster
import GalleyTestSupport
import Synchronization
import Testing

@Suite struct PNGTests {
    /// A bitmap with gradients and edges, so filters and compression have work to do.
    static func sample(width: Int = 173, height: Int = 91) throws -> Bitmap {
        let bitmap = try Bitmap(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let offset = y * bitmap.rowBytes + x * 3
                bitmap.pixels[offset] = UInt8((x * 255) / width)
                bitmap.pixels[offset + 1] = UInt8((y * 255) / height)
                bitmap.pixels[offset + 2] = (x / 8 + y / 8) % 2 == 0 ? 30 : 220
            }
        }
        return bitmap
    }

    @Test(arguments: PNGCompression.allCases)
    func roundTripsExactly(preset: PNGCompression) throws {
        let bitmap = try Self.sample()
        let decoded = try Bitmap(pngData: try bitmap.pngData(compression: preset))
        #expect(decoded.width == bitmap.width && decoded.height == bitmap.height)
        #expect(decoded.bytes == bitmap.bytes)
    }

    @Test(arguments: PNGCompression.allCases)
    func equalPixelsGiveEqualBytesAndNoTimeChunk(preset: PNGCompression) throws {
        let first = try Self.sample().pngData(compression: preset)
        let second = try Self.sample().pngData(compression: preset)
        #expect(first == second)
        let chunks = ImageProperties.chunkTypes(first)
        #expect(chunks.first == "IHDR" && chunks.last == "IEND")
        #expect(!chunks.contains("tIME"))
        // IHDR: bit depth 8, colour type 2 (RGB), no interlace.
        #expect(first[24] == 8 && first[25] == 2 && first[28] == 0)
    }

    @Test func smallerPresetsAreSmaller() throws {
        let bitmap = try Self.sample(width: 600, height: 400)
        let fast = try bitmap.pngData(compression: .fast).count
        let small = try bitmap.pngData(compression: .small).count
        #expect(small < fast)
    }

    @Test func textChunksAreWrittenInOrder() throws {
        let bitmap = try Self.sample()
        let encoder = try PNGEncoder(width: bitmap.width, height: bitmap.height, compression: .fast,
                                     text: [("Thumb::URI", "file:///a.pdf"), ("Thumb::MTime", "1")])
        try encoder.write(bitmap)
        let png = try encoder.finish()
        #expect(ImageProperties.chunkTypes(png).filter { $0 == "tEXt" }.count == 2)
        let text = String(decoding: png, as: UTF8.self)
        let uri = try #require(text.range(of: "Thumb::URI\0file:///a.pdf"))
        let mtime = try #require(text.range(of: "Thumb::MTime\01"))
        #expect(uri.lowerBound < mtime.lowerBound)
        #expect(try Bitmap(pngData: png).width == bitmap.width, "text chunks leave the image readable")
    }

    @Test func encoderRefusesMissingRows() throws {
        let encoder = try PNGEncoder(width: 10, height: 10, compression: .fast)
        let bitmap = try Bitmap(width: 10, height: 5)
        bitmap.fill(r: 1, g: 2, b: 3)
        try encoder.write(bitmap)
        #expect(throws: RasterError.self) { try encoder.finish() }
    }

    @Test func garbageIsNotDecoded() {
        let error = #expect(throws: RasterError.self) { try Bitmap(pngData: Array("not a png".utf8)) }
        #expect(error?.code == .decodeFailed)
    }

    @Test func impossibleSizesAreRefused() {
        #expect(throws: RasterError.self) { try Bitmap(width: 0, height: 10) }
        #expect(throws: RasterError.self) { try Bitmap(width: Int.max / 2, height: 3) }
        #expect(throws: RasterError.self) { try PNGEncoder(width: -1, height: 3, compression: .fast) }
    }
}

@Suite struct CancellationTests {
    @Test func cancelRunsRegisteredActionsOnce() {
        let cancellation = Cancellation()
        let counter = Counter()
        cancellation.whileRegistered(onCancel: { counter.increment() }) {
            cancellation.cancel()
            cancellation.cancel()
        }
        #expect(counter.value == 1)
        #expect(cancellation.isCancelled)
    }

    @Test func registeringAfterCancelFiresAtOnce() {
        let cancellation = Cancellation()
        cancellation.cancel()
        let counter = Counter()
        cancellation.whileRegistered(onCancel: { counter.increment() }) {}
        #expect(counter.value == 1)
    }

    @Test func childIsCancelledWithItsParentButNotTheOtherWayRound() {
        let parent = Cancellation()
        let child = Cancellation(parent: parent)
        let sibling = Cancellation(parent: parent)
        let counter = Counter()
        child.cancel()
        #expect(child.isCancelled && !parent.isCancelled && !sibling.isCancelled)
        sibling.whileRegistered(onCancel: { counter.increment() }) {
            parent.cancel()
        }
        #expect(sibling.isCancelled)
        #expect(counter.value == 1, "a parent's cancel reaches work registered on a child")
    }

    @Test func actionsAreForgottenAfterTheirScope() {
        let cancellation = Cancellation()
        let counter = Counter()
        cancellation.whileRegistered(onCancel: { counter.increment() }) {}
        cancellation.cancel()
        #expect(counter.value == 0)
    }
}

final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
