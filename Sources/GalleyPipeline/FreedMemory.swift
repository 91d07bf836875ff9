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
public enum FreedMemory {
    static let pagesBetweenReturns = 200

    /// One malloc arena per core (glibc's default is eight per core), set by `galley` before
    /// any thread starts. Each thread that allocates may otherwise get an arena of its own,
    /// and a run's worker threads come and go: a thread started late in a 3,000-page run
    /// opened a new arena and added 2 MB to peak RSS. Measured on the 2-core machine (five
    /// runs each, `/usr/bin/time -f %M`): 3,000 against 300 pages 1.22× the peak RSS without,
    /// 1.19× with; the time is the same.
    public static func limitArenas(toCores cores: Int) {
        _ = gm_limit_malloc_arenas(Int32(clamping: max(2, cores)))
    }

    static func giveBack() {
        _ = gm_return_freed_memory()
    }
}
