import CGalleyMuPDF

/// Gives memory that the drawing and encoding threads have freed back to the system, every
/// `pagesBetweenReturns` finished pages.
///
/// glibc's allocator keeps what a thread frees in that thread's arena, to reuse, and gives
/// back only the free memory at the very top of each heap; pages of bitmaps, display lists
/// and compressed streams freed between live allocations stay counted in the process's RSS.
/// Over thousands of pages that made peak RSS grow with the page count (300 pages 45 MB,
/// 3,000 pages 64 MB) though the work in flight is the same. `malloc_trim` walks every arena
/// and returns their free pages; a few milliseconds every few hundred pages. There is no
/// library for this: it is one glibc call (in the C shim, as Swift's Glibc module leaves
/// `malloc.h` out).
enum FreedMemory {
    static let pagesBetweenReturns = 200

    static func giveBack() {
        _ = gm_return_freed_memory()
    }
}
