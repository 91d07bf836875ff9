#include "CGalleySystem.h"

#include <malloc.h>

/* The commit galley was built from: Package.swift defines GALLEY_COMMIT from the environment
   variable of that name, which scripts/build-release.sh sets (SwiftPM has no other way to pass
   a value into a build). Empty in other builds. */
#ifndef GALLEY_COMMIT
#define GALLEY_COMMIT ""
#endif

const char *gs_build_commit(void)
{
    return GALLEY_COMMIT;
}

int gs_return_freed_memory(void)
{
    /* Not exported by Swift's Glibc module: malloc.h is glibc's own header. */
    return malloc_trim(0);
}

int gs_limit_malloc_arenas(int count)
{
    return mallopt(M_ARENA_MAX, count);
}

int gs_reuse_large_blocks(int mmap_threshold, int trim_threshold)
{
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
}
