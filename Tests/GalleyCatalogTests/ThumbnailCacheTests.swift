import Foundation
import GalleyTestSupport
import Testing
@testable import GalleyCatalog

@Suite struct ThumbnailCacheTests {
    func cache(_ folder: ScratchFolder, diskBudget: Int, memoryBudget: Int = 1 << 20) throws -> ThumbnailCache {
        let catalog = try Catalog(path: folder.path("catalog.sqlite").path)
        return ThumbnailCache(folder: folder.url.appendingPathComponent("thumbs"), catalog: catalog,
                              diskBudget: diskBudget, memoryBudget: memoryBudget)
    }

    @Test func memoryAnswersFirstThenDiskSurvivesANewProcess() throws {
        let folder = try ScratchFolder("galley-catalog")
        let first = try cache(folder, diskBudget: 1 << 20)
        try first.store([1, 2, 3], forKey: "doc@page-1@box-128", sourcePath: "/in/doc.pdf")
        #expect(first.bytes(forKey: "doc@page-1@box-128") == [1, 2, 3])
        #expect(first.statistics == .init(memoryHits: 1, diskHits: 0, misses: 0))
        // A new cache over the same folder (the next run) finds it on disk, then in memory.
        let second = try cache(folder, diskBudget: 1 << 20)
        #expect(second.bytes(forKey: "doc@page-1@box-128") == [1, 2, 3])
        #expect(second.bytes(forKey: "doc@page-1@box-128") == [1, 2, 3])
        #expect(second.bytes(forKey: "doc@page-1@box-256") == nil)
        #expect(second.statistics == .init(memoryHits: 1, diskHits: 1, misses: 1))
    }

    /// A page drawn again (`--force`) stores the same bytes: the cached file is kept, not
    /// replaced by a new one; other bytes under the key do replace it. Either way the entry
    /// stays indexed with its size.
    @Test func storingTheSameBytesAgainKeepsTheFileAndOtherBytesReplaceIt() throws {
        let folder = try ScratchFolder("galley-catalog")
        let cache = try cache(folder, diskBudget: 1 << 20)
        let path = cache.file(forKey: "doc@page-1@box-128").path
        func inode() throws -> UInt64 {
            try #require(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64)
        }
        try cache.store([1, 2, 3], forKey: "doc@page-1@box-128", sourcePath: "/in/doc.pdf")
        let first = try inode()
        try cache.store([1, 2, 3], forKey: "doc@page-1@box-128", sourcePath: "/in/doc.pdf")
        #expect(try inode() == first, "the same bytes leave the file in place")
        #expect(try cache.diskBytes() == 3)
        try cache.store([4, 5, 6, 7], forKey: "doc@page-1@box-128", sourcePath: "/in/doc.pdf")
        #expect(try inode() != first, "new bytes are written through a new file")
        #expect(FileManager.default.contents(atPath: path) == Data([4, 5, 6, 7]))
        #expect(try cache.diskBytes() == 4)
        let later = try self.cache(folder, diskBudget: 1 << 20)
        #expect(later.bytes(forKey: "doc@page-1@box-128") == [4, 5, 6, 7])
    }

    @Test func evictionRemovesTheLeastRecentlyUsedUntilTheBudgetHolds() throws {
        let folder = try ScratchFolder("galley-catalog")
        let cache = try cache(folder, diskBudget: 250)
        for key in ["a", "b", "c"] {
            try cache.store([UInt8](repeating: 7, count: 100), forKey: key, sourcePath: "/in/\(key)")
            Thread.sleep(forTimeInterval: 0.01)
        }
        // A fresh process reads "a" from disk: it becomes the most recently used.
        let later = try self.cache(folder, diskBudget: 250)
        #expect(later.bytes(forKey: "a") != nil)
        #expect(try later.evict() == 1)
        #expect(try later.diskBytes() == 200)
        let after = try self.cache(folder, diskBudget: 250)
        #expect(after.bytes(forKey: "b") == nil, "b was the least recently used")
        #expect(after.bytes(forKey: "a") != nil && after.bytes(forKey: "c") != nil)
        #expect(!FileManager.default.fileExists(atPath: cache.file(forKey: "b").path))
    }

    @Test func pruneRemovesEntriesWhoseSourceIsGone() throws {
        let folder = try ScratchFolder("galley-catalog")
        let cache = try cache(folder, diskBudget: 1 << 20)
        try cache.store([1], forKey: "kept", sourcePath: "/in/here.pdf")
        try cache.store([2], forKey: "gone-1", sourcePath: "/in/gone.pdf")
        try cache.store([3], forKey: "gone-2", sourcePath: "/in/gone.pdf")
        #expect(try cache.prune { $0 == "/in/here.pdf" } == 2)
        #expect(cache.bytes(forKey: "gone-1") == nil && cache.bytes(forKey: "kept") == [1])
        #expect(try cache.diskBytes() == 1)
    }

    @Test func theMemoryStoreKeepsWithinItsBudget() {
        var store = MemoryStore()
        store.put("a", [UInt8](repeating: 0, count: 60), budget: 100)
        store.put("b", [UInt8](repeating: 0, count: 30), budget: 100)
        _ = store.get("a")
        store.put("c", [UInt8](repeating: 0, count: 30), budget: 100)
        #expect(store.get("b") == nil, "the least recently used went")
        #expect(store.get("a") != nil && store.get("c") != nil)
    }
}
