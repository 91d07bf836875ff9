#ifndef CGALLEYSYSTEM_H
#define CGALLEYSYSTEM_H

/* What Galley asks of the system's C library that Swift's Glibc module does not expose
   (malloc.h is left out of it), and the build's commit stamp. No MuPDF here: the MuPDF shim
   is seen only by GalleyPDF. */

#ifdef __cplusplus
extern "C" {
#endif

/// The commit this build was made from (scripts/build-release.sh), or "".
const char *gs_build_commit(void);

/// Gives the memory free in every malloc arena back to the system (glibc's malloc_trim), so
/// that what the drawing threads freed stops counting in the process's RSS. Returns whether
/// any was given back.
int gs_return_freed_memory(void);

/// Caps the number of malloc arenas (glibc's mallopt M_ARENA_MAX); call before threads start.
/// Returns whether glibc took it.
int gs_limit_malloc_arenas(int count);

/// Serves allocations up to `mmap_threshold` bytes from the malloc arenas and keeps up to
/// `trim_threshold` bytes free at the top of a heap (glibc's M_MMAP_THRESHOLD and
/// M_TRIM_THRESHOLD); call before threads start. Returns whether glibc took both.
int gs_reuse_large_blocks(int mmap_threshold, int trim_threshold);

#ifdef __cplusplus
}
#endif

#endif
