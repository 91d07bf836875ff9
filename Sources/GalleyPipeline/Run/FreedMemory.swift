import CGalleySystem

/// Gives memory that the drawing and encoding threads have freed back to the system, every
/// `pagesBetweenReturns` finished pages.
///
/// glibc's allocator keeps what a thread frees in that thread's arena, to reuse, and gives
/// back only the free memory at the very top of each heap; pages of bitmaps, display lists
/// and compressed streams freed between live allocations stay counted in the process's RSS.
/// Over thousands of pages that made peak RSS grow with the page count (300 pages 45 MB,
/// 3,000 pages 64 MB) though the work in flight is the same. `malloc_trim` walks every arena
/// and returns their free pages; a few milliseconds every few hundred pages. There is no
/// library for this: it is one glibc call (in the CGalleySystem shim, as Swift's Glibc module
/// leaves `malloc.h` out).
public enum FreedMemory {
    static let pagesBetweenReturns = 200

    /// One malloc arena per core (glibc's default is eight per core), set by `galley` before
    /// any thread starts. Each thread that allocates may otherwise get an arena of its own,
    /// and a run's worker threads come and go: a thread started late in a 3,000-page run
    /// opened a new arena and added 2 MB to peak RSS. Measured on the 2-core machine (five
    /// runs each, `/usr/bin/time -f %M`): 3,000 against 300 pages 1.22× the peak RSS without,
    /// 1.19× with; the time is the same.
    public static func limitArenas(toCores cores: Int) {
        _ = gs_limit_malloc_arenas(Int32(clamping: max(2, cores)))
    }

    /// Keeps freed page-sized blocks in the malloc arenas for the next page, set by `galley`
    /// before any thread starts.
    ///
    /// A page image at 150 dpi is a 6.4 MB bitmap, and its encoding two more buffers as large.
    /// glibc serves blocks that large with `mmap` and unmaps them when freed (or trims them off
    /// the top of a heap), so every page touched fresh memory: 830,000 page faults and 2.4 s of
    /// system time in a run over 480 pages of Debian manuals (150 dpi, page images only). Served
    /// from the arenas up to 32 MiB (glibc's ceiling for the setting; a 300 dpi page is 25 MB)
    /// and trimmed only past 32 MiB free at the top of a heap, they are reused: 40,000 faults,
    /// 0.5 s of system time, the run about 10% faster, peak RSS about 20 MB higher (135-147 MB
    /// against 117-123 MB). Keeping up to 256 MiB free was no faster and twice in seven runs
    /// peaked at 211 and 253 MB. `giveBack` still returns what is free every
    /// `pagesBetweenReturns` pages, so the peak does not grow with the run.
    public static func reuseLargeBlocks() {
        _ = gs_reuse_large_blocks(32 << 20, 32 << 20)
    }

    static func giveBack() {
        _ = gs_return_freed_memory()
    }
}
