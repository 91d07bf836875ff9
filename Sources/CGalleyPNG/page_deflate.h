#ifndef CGALLEY_PAGE_DEFLATE_H
#define CGALLEY_PAGE_DEFLATE_H

// The deflate encoder for drawn pages (page_deflate.c), used by gp_encode_image.

#include <stddef.h>

/// The largest stream gp_page_deflate writes for `length` bytes of input.
size_t gp_page_deflate_bound(size_t length);

/// Compresses `length` bytes of filtered PNG rows (each `row` bytes with its filter byte,
/// pixels `pixel` bytes apart) into a zlib stream of at most `capacity` bytes. Effort 1 matches
/// with the row above and the pixel before; 2 also with the last two earlier places of the same
/// 3 bytes; 3 also remembers the places inside short matches. Returns the stream's length, or
/// 0 when memory or `capacity` ran out.
size_t gp_page_deflate(const unsigned char *in, size_t length, size_t row, size_t pixel, int effort,
                       unsigned char *out, size_t capacity);

#endif
