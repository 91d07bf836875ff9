// Whole-image PNG encoding: lossless colour-type reduction, row filtering, one
// libdeflate_zlib_compress call, and the PNG chunks around it.
//
// libpng drives zlib itself and has no hook for another deflate, so an image held in memory
// is written here chunk by chunk (PNG 1.2 / ISO 15948): signature, IHDR, PLTE (palette
// images), pHYs (when a resolution is given), tEXt (in the given order), IDAT (the zlib stream
// in pieces of at most GP_IDAT_PIECE bytes), IEND; every chunk's CRC is zlib's crc32 over its
// type and data. No time chunk, so equal pixels and options give equal bytes. Banded pages
// still go through libpng (shim.c), which streams.
//
// The per-byte loops (colour scan, index packing, filtering) live in C next to the compressor
// so that an image costs one call from Swift, not one per row.

#include "CGalleyPNG.h"
#include "page_deflate.h"

#include <libdeflate.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* A zlib stream longer than this is split over several IDAT chunks (a chunk may hold up to
   2^31 - 1 bytes; smaller pieces let a streaming reader start sooner and cost 12 bytes each). */
#define GP_IDAT_PIECE ((size_t)1 << 20)

/* ---- colour scan ----------------------------------------------------------------------- */

/* An open-addressing set of colours (0xRRGGBB + 1, 0 marks an empty slot), counted up to
   GP_FEW_COLOURS at a load of at most 1/4, so a probe rarely passes two slots. The first 256
   are kept in order, for a palette. */
#define GP_FEW_COLOURS 2048
#define GP_SLOTS 8192

typedef struct gp_colours {
    uint32_t keys[GP_SLOTS];
    uint8_t index[GP_SLOTS];
    uint32_t colours[256];
    int count;
} gp_colours;

static inline uint32_t gp_slot(uint32_t rgb)
{
    return (rgb * 2654435761u) >> 19; /* Fibonacci hashing onto 13 bits */
}

/* Adds a colour; -1 when it would be one more than GP_FEW_COLOURS. */
static inline int gp_colours_add(gp_colours *set, uint32_t rgb)
{
    uint32_t key = rgb + 1, slot = gp_slot(rgb);
    for (;;) {
        uint32_t found = set->keys[slot];
        if (found == key)
            return 0;
        if (found == 0) {
            if (set->count == GP_FEW_COLOURS)
                return -1;
            set->keys[slot] = key;
            if (set->count < 256)
                set->colours[set->count] = rgb;
            set->count++;
            return 0;
        }
        slot = (slot + 1) & (GP_SLOTS - 1);
    }
}

static inline uint8_t gp_colours_index(const gp_colours *set, uint32_t rgb)
{
    uint32_t key = rgb + 1, slot = gp_slot(rgb);
    while (set->keys[slot] != key)
        slot = (slot + 1) & (GP_SLOTS - 1);
    return set->index[slot];
}

static inline uint32_t gp_rgb(const unsigned char *p)
{
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

/* One pass over an RGB image: counts its colours (keeping the first 256) and whether every
   pixel is grey. Returns the colour count, or -1 as soon as there are more than
   GP_FEW_COLOURS. A row equal to the one above and a pixel equal to its left neighbour are
   skipped, which is most of a text page. */
static int gp_scan(const unsigned char *pixels, int width, int height, size_t stride,
                   gp_colours *set, int *grey)
{
    size_t row_bytes = (size_t)width * 3;
    int all_grey = 1;
    for (int y = 0; y < height; y++) {
        const unsigned char *row = pixels + (size_t)y * stride;
        if (y > 0 && memcmp(row, row - stride, row_bytes) == 0)
            continue;
        uint32_t last = 0xFFFFFFFFu;
        for (int x = 0; x < width; x++) {
            const unsigned char *p = row + (size_t)x * 3;
            /* Eight pixels whose bytes equal those three bytes earlier all equal the pixel
               before them, which is `last`: one 24-byte compare instead of eight lookups. */
            while (x > 0 && x + 8 <= width && memcmp(p, p - 3, 24) == 0) {
                x += 8;
                p += 24;
            }
            if (x == width)
                break;
            uint32_t rgb = gp_rgb(p);
            if (rgb == last)
                continue;
            last = rgb;
            all_grey &= (p[0] == p[1]) & (p[1] == p[2]);  /* meaningful only up to 256 colours */
            if (gp_colours_add(set, rgb) < 0)
                return -1;
        }
    }
    *grey = all_grey;
    return set->count;
}

/* Palette order: by luma, then by value. Deterministic, and neighbouring indices are similar
   shades, which the Sub, Average and Paeth filters can use. */
static int gp_compare_colours(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t lx = 299 * (x >> 16) + 587 * ((x >> 8) & 0xFF) + 114 * (x & 0xFF);
    uint32_t ly = 299 * (y >> 16) + 587 * ((y >> 8) & 0xFF) + 114 * (y & 0xFF);
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* ---- rows -------------------------------------------------------------------------------- */

/* How rows are stored: the PNG colour type and bit depth chosen for the image. */
typedef struct gp_layout {
    int colour_type; /* 0 grey, 2 RGB, 3 palette, 6 RGBA */
    int bit_depth;   /* 8, or 1/2/4 for small palettes */
    int bpp;         /* bytes per complete pixel, at least 1 (for the filters) */
    size_t row_bytes;
} gp_layout;

/* Writes one source row in the stored form into `out` (row_bytes bytes). */
static void gp_pack_row(const gp_layout *layout, const gp_colours *set, const unsigned char *src,
                        int width, unsigned char *out)
{
    if (layout->colour_type == 0) {
        for (int x = 0; x < width; x++)
            out[x] = src[(size_t)x * 3];
        return;
    }
    /* palette */
    uint32_t last = 0xFFFFFFFFu;
    uint8_t index = 0;
    int depth = layout->bit_depth;
    if (depth == 8) {
        for (int x = 0; x < width; x++) {
            uint32_t rgb = gp_rgb(src + (size_t)x * 3);
            if (rgb != last) {
                last = rgb;
                index = gp_colours_index(set, rgb);
            }
            out[x] = index;
        }
        return;
    }
    int per_byte = 8 / depth;
    memset(out, 0, layout->row_bytes);
    for (int x = 0; x < width; x++) {
        uint32_t rgb = gp_rgb(src + (size_t)x * 3);
        if (rgb != last) {
            last = rgb;
            index = gp_colours_index(set, rgb);
        }
        /* Leftmost pixel in the most significant bits. */
        int shift = 8 - depth * (x % per_byte + 1);
        out[x / per_byte] |= (unsigned char)(index << shift);
    }
}

static inline unsigned char gp_paeth(int a, int b, int c)
{
    int p = a + b - c;
    int pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    if (pa <= pb && pa <= pc)
        return (unsigned char)a;
    return (unsigned char)(pb <= pc ? b : c);
}

/* Filters one row with `type` (0 None ... 4 Paeth) into out[0..n); `prev` is the unfiltered
   row above (all zeros for the first row). */
static void gp_filter(int type, const unsigned char *cur, const unsigned char *prev, size_t n,
                      int bpp, unsigned char *out)
{
    size_t i;
    switch (type) {
    case 0:
        memcpy(out, cur, n);
        break;
    case 1:
        for (i = 0; i < (size_t)bpp && i < n; i++)
            out[i] = cur[i];
        for (; i < n; i++)
            out[i] = (unsigned char)(cur[i] - cur[i - bpp]);
        break;
    case 2:
        for (i = 0; i < n; i++)
            out[i] = (unsigned char)(cur[i] - prev[i]);
        break;
    case 3:
        for (i = 0; i < (size_t)bpp && i < n; i++)
            out[i] = (unsigned char)(cur[i] - (prev[i] >> 1));
        for (; i < n; i++)
            out[i] = (unsigned char)(cur[i] - ((cur[i - bpp] + prev[i]) >> 1));
        break;
    default:
        for (i = 0; i < (size_t)bpp && i < n; i++)
            out[i] = (unsigned char)(cur[i] - prev[i]);
        for (; i < n; i++)
            out[i] = (unsigned char)(cur[i] - gp_paeth(cur[i - bpp], prev[i], prev[i - bpp]));
        break;
    }
}

/* The sum of the filtered bytes taken as signed: the usual "minimum sum of absolute
   differences" heuristic for choosing a row's filter. */
static uint64_t gp_cost(const unsigned char *row, size_t n)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (uint64_t)abs((int)(signed char)row[i]);
    return sum;
}

/* ---- chunks ------------------------------------------------------------------------------ */

typedef struct gp_out {
    unsigned char *bytes;
    size_t length;
    size_t capacity;
} gp_out;

static void gp_put32(unsigned char *at, uint32_t value)
{
    at[0] = (unsigned char)(value >> 24);
    at[1] = (unsigned char)(value >> 16);
    at[2] = (unsigned char)(value >> 8);
    at[3] = (unsigned char)value;
}

/* Appends one chunk: length, type, data, CRC of type and data. The caller reserved room. */
static void gp_chunk(gp_out *out, const char type[4], const unsigned char *data, size_t length)
{
    unsigned char *at = out->bytes + out->length;
    gp_put32(at, (uint32_t)length);
    memcpy(at + 4, type, 4);
    if (length)
        memmove(at + 8, data, length);
    uLong crc = crc32(0L, at + 4, 4);
    /* zlib's crc32 takes a uInt length: feed long data in pieces. */
    for (size_t done = 0; done < length;) {
        size_t piece = length - done > 0x40000000u ? 0x40000000u : length - done;
        crc = crc32(crc, at + 8 + done, (uInt)piece);
        done += piece;
    }
    gp_put32(at + 8 + length, (uint32_t)crc);
    out->length += 12 + length;
}

/* ---- the encoder ------------------------------------------------------------------------- */

/* One compressor per thread, kept for the next image: allocating one (650 KB with its
   match-finder tables at levels 1-9) per image cost more than compressing a thumbnail. A
   thread holds one compressor, of the last level it used; it is freed when the thread ends.
   A compressor may not be shared by threads (libdeflate.h). The near-optimal levels (10-12)
   take 8.8 MB and compress so slowly that allocating costs nothing in comparison: those are
   made per image and freed at once, so idle threads do not hold them. */
#define GP_CACHED_LEVELS 10
typedef struct gp_cached_compressor {
    int level;
    struct libdeflate_compressor *compressor;
} gp_cached_compressor;

static pthread_key_t gp_compressor_key;
static pthread_once_t gp_compressor_once = PTHREAD_ONCE_INIT;
static int gp_compressor_key_made;

static void gp_cached_compressor_free(void *pointer)
{
    gp_cached_compressor *cached = pointer;
    if (cached->compressor)
        libdeflate_free_compressor(cached->compressor);
    free(cached);
}

static void gp_make_compressor_key(void)
{
    gp_compressor_key_made = pthread_key_create(&gp_compressor_key, gp_cached_compressor_free) == 0;
}

static struct libdeflate_compressor *gp_compressor(int level)
{
    pthread_once(&gp_compressor_once, gp_make_compressor_key);
    if (!gp_compressor_key_made)
        return NULL;
    gp_cached_compressor *cached = pthread_getspecific(gp_compressor_key);
    if (cached && cached->level == level && cached->compressor)
        return cached->compressor;
    if (!cached) {
        cached = calloc(1, sizeof *cached);
        if (!cached || pthread_setspecific(gp_compressor_key, cached) != 0) {
            free(cached);
            return NULL;
        }
    }
    if (cached->compressor)
        libdeflate_free_compressor(cached->compressor);
    cached->compressor = libdeflate_alloc_compressor(level);
    cached->level = level;
    return cached->compressor;
}

int gp_encode_image(const unsigned char *pixels, int width, int height, size_t stride, int channels,
                    const gp_image_options *options, const gp_text *texts, int text_count,
                    gp_encoded *result, char *error, size_t error_size)
{
    memset(result, 0, sizeof *result);
    if (!pixels || width <= 0 || height <= 0 || (channels != 3 && channels != 4)
        || stride < (size_t)width * (size_t)channels) {
        snprintf(error, error_size, "invalid image geometry %dx%dx%d, stride %zu", width, height, channels, stride);
        return -1;
    }
    if (options->level < 0 || options->level > 12 || options->filter < 0 || options->filter > GP_FILTER_ADAPTIVE
        || options->few_colours_filter < 0 || options->few_colours_filter > GP_FILTER_ADAPTIVE
        || options->page_deflate < 0 || options->page_deflate > 3) {
        snprintf(error, error_size, "invalid compression settings: level %d, filters %d/%d", options->level,
                 options->filter, options->few_colours_filter);
        return -1;
    }
    size_t text_bytes = 0;
    for (int i = 0; i < text_count; i++) {
        size_t key = texts[i].key ? strlen(texts[i].key) : 0;
        if (key < 1 || key > 79 || !texts[i].value) {
            snprintf(error, error_size, "text chunk key must be 1 to 79 bytes, got %zu", key);
            return -1;
        }
        text_bytes += 12 + key + 1 + strlen(texts[i].value);
    }

    /* Choose the stored form. */
    gp_colours *set = NULL;
    int count = -1; /* colours, when counted and at most GP_FEW_COLOURS */
    gp_layout layout = {channels == 4 ? 6 : 2, 8, channels, (size_t)width * (size_t)channels};
    if (channels == 3 && options->reduce) {
        set = calloc(1, sizeof *set);
        if (!set) {
            snprintf(error, error_size, "out of memory");
            return -1;
        }
        int grey = 0;
        count = gp_scan(pixels, width, height, stride, set, &grey);
        if (count > 0 && count <= 256) {
            int depth = count <= 2 ? 1 : count <= 4 ? 2 : count <= 16 ? 4 : 8;
            if (grey && depth == 8) {
                layout = (gp_layout){0, 8, 1, (size_t)width};
            } else {
                qsort(set->colours, (size_t)count, sizeof set->colours[0], gp_compare_colours);
                for (int i = 0; i < count; i++) {
                    uint32_t rgb = set->colours[i], slot = gp_slot(rgb);
                    while (set->keys[slot] != rgb + 1)
                        slot = (slot + 1) & (GP_SLOTS - 1);
                    set->index[slot] = (uint8_t)i;
                }
                layout = (gp_layout){3, depth, 1, ((size_t)width * (size_t)depth + 7) / 8};
            }
        }
    }
    /* Few colours means text, line art and flat fills, whose rows repeat glyph and edge shapes
       that deflate matches best unfiltered; more means photos and gradients, which want Up. */
    int filter = count > 0 ? options->few_colours_filter : options->filter;

    /* Filter every row into one buffer: a filter-type byte, then the row. */
    size_t line = layout.row_bytes + 1;
    if ((size_t)height > SIZE_MAX / line) {
        snprintf(error, error_size, "image %dx%d too large", width, height);
        free(set);
        return -1;
    }
    size_t filtered_size = line * (size_t)height;
    unsigned char *filtered = malloc(filtered_size);
    /* Two packed rows (current and previous) for reduced images, one zero row, and five
       candidate rows for adaptive filtering. */
    unsigned char *scratch = calloc(8, layout.row_bytes);
    /* Few colours: drawn text and line art, whose bytes repeat from the row above, the pixel
       before and a few places along the row, which page_deflate.c finds faster than libdeflate. */
    int page = count > 0 ? options->page_deflate : 0;
    int own_compressor = !page && options->level >= GP_CACHED_LEVELS;
    struct libdeflate_compressor *compressor =
        page ? NULL : own_compressor ? libdeflate_alloc_compressor(options->level) : gp_compressor(options->level);
    if (!filtered || !scratch || (!page && !compressor)) {
        snprintf(error, error_size, "out of memory filtering a %dx%d image", width, height);
        free(filtered);
        free(scratch);
        free(set);
        if (own_compressor && compressor)
            libdeflate_free_compressor(compressor);
        return -1;
    }
    unsigned char *packed[2] = {scratch, scratch + layout.row_bytes};
    const unsigned char *zeros = scratch + 2 * layout.row_bytes;
    unsigned char *candidates = scratch + 3 * layout.row_bytes;
    const unsigned char *prev = zeros;
    for (int y = 0; y < height; y++) {
        const unsigned char *src = pixels + (size_t)y * stride;
        const unsigned char *cur = src;
        if (layout.colour_type == 0 || layout.colour_type == 3) {
            unsigned char *row = packed[y & 1];
            gp_pack_row(&layout, set, src, width, row);
            cur = row;
        }
        unsigned char *out = filtered + (size_t)y * line;
        if (filter == GP_FILTER_ADAPTIVE) {
            int best = 0;
            uint64_t best_cost = UINT64_MAX;
            for (int type = 0; type < 5; type++) {
                unsigned char *candidate = candidates + (size_t)type * layout.row_bytes;
                gp_filter(type, cur, prev, layout.row_bytes, layout.bpp, candidate);
                uint64_t cost = gp_cost(candidate, layout.row_bytes);
                if (cost < best_cost) {
                    best_cost = cost;
                    best = type;
                }
            }
            out[0] = (unsigned char)best;
            memcpy(out + 1, candidates + (size_t)best * layout.row_bytes, layout.row_bytes);
        } else {
            out[0] = (unsigned char)filter;
            gp_filter(filter, cur, prev, layout.row_bytes, layout.bpp, out + 1);
        }
        prev = cur;
    }

    size_t bound = page ? gp_page_deflate_bound(filtered_size) : libdeflate_zlib_compress_bound(compressor, filtered_size);
    unsigned char *zlib = malloc(bound);
    size_t zlib_length = !zlib ? 0
        : page ? gp_page_deflate(filtered, filtered_size, line, (size_t)layout.bpp, page, zlib, bound)
               : libdeflate_zlib_compress(compressor, filtered, filtered_size, zlib, bound);
    if (own_compressor)
        libdeflate_free_compressor(compressor);
    free(filtered);
    free(scratch);
    if (zlib_length == 0) {
        snprintf(error, error_size, "%s could not compress a %dx%d image", page ? "page deflate" : "libdeflate",
                 width, height);
        free(zlib);
        free(set);
        return -1;
    }

    size_t pieces = (zlib_length + GP_IDAT_PIECE - 1) / GP_IDAT_PIECE;
    int colours = layout.colour_type == 3 ? set->count : 0;
    gp_out out = {0};
    out.capacity = 8 + 25 + (colours ? 12 + 3 * (size_t)colours : 0) + (options->pixels_per_metre ? 21 : 0)
                   + text_bytes + zlib_length + 12 * pieces + 12;
    out.bytes = malloc(out.capacity);
    if (!out.bytes) {
        snprintf(error, error_size, "out of memory for the encoded image");
        free(zlib);
        free(set);
        return -1;
    }
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    memcpy(out.bytes, signature, 8);
    out.length = 8;

    unsigned char header[13];
    gp_put32(header, (uint32_t)width);
    gp_put32(header + 4, (uint32_t)height);
    header[8] = (unsigned char)layout.bit_depth;
    header[9] = (unsigned char)layout.colour_type;
    header[10] = 0; /* deflate */
    header[11] = 0; /* adaptive filtering, five types */
    header[12] = 0; /* no interlace */
    gp_chunk(&out, "IHDR", header, sizeof header);

    if (colours) {
        unsigned char palette[256 * 3];
        for (int i = 0; i < colours; i++) {
            palette[3 * i] = (unsigned char)(set->colours[i] >> 16);
            palette[3 * i + 1] = (unsigned char)(set->colours[i] >> 8);
            palette[3 * i + 2] = (unsigned char)set->colours[i];
        }
        gp_chunk(&out, "PLTE", palette, 3 * (size_t)colours);
    }
    free(set);

    if (options->pixels_per_metre) {
        unsigned char phys[9];
        gp_put32(phys, options->pixels_per_metre);
        gp_put32(phys + 4, options->pixels_per_metre);
        phys[8] = 1; /* the unit is the metre */
        gp_chunk(&out, "pHYs", phys, sizeof phys);
    }

    for (int i = 0; i < text_count; i++) {
        size_t key = strlen(texts[i].key), value = strlen(texts[i].value);
        /* Written in place: room was reserved for it. */
        unsigned char *data = out.bytes + out.length + 8;
        memcpy(data, texts[i].key, key);
        data[key] = 0;
        memcpy(data + key + 1, texts[i].value, value);
        gp_chunk(&out, "tEXt", data, key + 1 + value);
    }

    for (size_t done = 0; done < zlib_length; done += GP_IDAT_PIECE) {
        size_t piece = zlib_length - done < GP_IDAT_PIECE ? zlib_length - done : GP_IDAT_PIECE;
        gp_chunk(&out, "IDAT", zlib + done, piece);
    }
    free(zlib);
    gp_chunk(&out, "IEND", NULL, 0);

    result->bytes = out.bytes;
    result->length = out.length;
    result->colour_type = layout.colour_type;
    result->bit_depth = layout.bit_depth;
    return 0;
}

void gp_encoded_free(gp_encoded *encoded)
{
    free(encoded->bytes);
    encoded->bytes = NULL;
    encoded->length = 0;
}
