// PNG decoding to 8-bit RGB: the forms Galley writes by libdeflate, anything else by libpng.
//
// `galley diff` decodes two page images per changed page, and libpng's simplified reader
// (zlib's inflate, a transform pipeline per row, a buffer of its own) cost more than drawing
// the page had. The images a run writes are few forms (gp_encode_image: 8-bit grey or RGB, or
// a palette of 1, 2, 4 or 8 bits; not interlaced; no transparency, gamma or colour profile),
// which are read here in one libdeflate call, unfiltered and expanded to RGB straight into
// the caller's pixels. A file in any other form, or one that is damaged in any way (a bad CRC,
// a short or long zlib stream, a palette index past the palette), is left to libpng, so what
// is decoded and every error message stay libpng's.

#include "CGalleyPNG.h"

#include <libdeflate.h>
#include <png.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libpng's default limits on the sides (PNG_USER_WIDTH_MAX, PNG_USER_HEIGHT_MAX). */
#define GP_SIDE_MAX 1000000u

static const unsigned char gp_signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};

static inline uint32_t gp_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* One chunk of a PNG in memory. */
typedef struct gp_chunk {
    const unsigned char *type; /* 4 bytes */
    const unsigned char *data;
    uint32_t length;
} gp_chunk;

/* The chunk at `*offset`, with its CRC checked; 0 at a damaged or cut chunk. */
static int gp_next_chunk(const unsigned char *png, size_t length, size_t *offset, gp_chunk *chunk)
{
    if (length - *offset < 12)
        return 0;
    uint32_t size = gp_be32(png + *offset);
    if (size > 0x7fffffffu || length - *offset - 12 < size)
        return 0;
    chunk->length = size;
    chunk->type = png + *offset + 4;
    chunk->data = chunk->type + 4;
    if (libdeflate_crc32(0, chunk->type, (size_t)size + 4) != gp_be32(chunk->data + size))
        return 0;
    *offset += (size_t)size + 12;
    return 1;
}

static inline int gp_is(const gp_chunk *chunk, const char *type)
{
    return memcmp(chunk->type, type, 4) == 0;
}

/* Ancillary chunks that do not change the pixels libpng's simplified reader gives. */
static int gp_is_harmless(const gp_chunk *chunk)
{
    return gp_is(chunk, "pHYs") || gp_is(chunk, "tEXt") || gp_is(chunk, "zTXt") || gp_is(chunk, "iTXt")
        || gp_is(chunk, "tIME");
}

/* The header of one of the forms decoded here, or 0. */
typedef struct gp_header {
    uint32_t width, height;
    int colour_type; /* 0 grey, 2 RGB, 3 palette */
    int depth;
} gp_header;

static int gp_simple_header(const unsigned char *png, size_t length, gp_header *header)
{
    size_t offset = 8;
    gp_chunk ihdr;
    if (length < 8 || memcmp(png, gp_signature, 8) != 0 || !gp_next_chunk(png, length, &offset, &ihdr)
        || !gp_is(&ihdr, "IHDR") || ihdr.length != 13)
        return 0;
    const unsigned char *d = ihdr.data;
    header->width = gp_be32(d);
    header->height = gp_be32(d + 4);
    header->depth = d[8];
    header->colour_type = d[9];
    if (header->width == 0 || header->height == 0 || header->width > GP_SIDE_MAX || header->height > GP_SIDE_MAX)
        return 0;
    if (d[10] != 0 || d[11] != 0 || d[12] != 0) /* compression, filter method, interlace */
        return 0;
    switch (header->colour_type) {
    case 0: case 2: return header->depth == 8;
    case 3: return header->depth == 1 || header->depth == 2 || header->depth == 4 || header->depth == 8;
    default: return 0;
    }
}

static inline int gp_paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the row filters in place: rows of 1 + `row_bytes` bytes, `bpp` bytes a pixel (at
   least 1). 0 at a filter type that does not exist. */
static int gp_unfilter(unsigned char *rows, uint32_t height, size_t row_bytes, size_t bpp)
{
    const unsigned char *previous = NULL;
    for (uint32_t y = 0; y < height; y++) {
        unsigned char *row = rows + (size_t)y * (row_bytes + 1);
        unsigned char *p = row + 1;
        switch (row[0]) {
        case 0:
            break;
        case 1:
            for (size_t i = bpp; i < row_bytes; i++)
                p[i] = (unsigned char)(p[i] + p[i - bpp]);
            break;
        case 2:
            if (previous)
                for (size_t i = 0; i < row_bytes; i++)
                    p[i] = (unsigned char)(p[i] + previous[i]);
            break;
        case 3:
            for (size_t i = 0; i < row_bytes; i++) {
                int left = i >= bpp ? p[i - bpp] : 0, up = previous ? previous[i] : 0;
                p[i] = (unsigned char)(p[i] + ((left + up) >> 1));
            }
            break;
        case 4:
            for (size_t i = 0; i < row_bytes; i++) {
                int left = i >= bpp ? p[i - bpp] : 0, up = previous ? previous[i] : 0;
                int corner = previous && i >= bpp ? previous[i - bpp] : 0;
                p[i] = (unsigned char)(p[i] + gp_paeth(left, up, corner));
            }
            break;
        default:
            return 0;
        }
        previous = p;
    }
    return 1;
}

/* Expands unfiltered rows to packed RGB. 0 at a palette index past the palette. */
static int gp_expand(const unsigned char *rows, const gp_header *h, size_t row_bytes, const unsigned char *palette,
                     uint32_t palette_size, unsigned char *out)
{
    for (uint32_t y = 0; y < h->height; y++) {
        const unsigned char *p = rows + (size_t)y * (row_bytes + 1) + 1;
        unsigned char *o = out + (size_t)y * h->width * 3;
        if (h->colour_type == 2) {
            memcpy(o, p, (size_t)h->width * 3);
        } else if (h->colour_type == 0) {
            for (uint32_t x = 0; x < h->width; x++, o += 3)
                o[0] = o[1] = o[2] = p[x];
        } else {
            int depth = h->depth, per_byte = 8 / depth, mask = (1 << depth) - 1;
            for (uint32_t x = 0; x < h->width; x++, o += 3) {
                uint32_t index = depth == 8 ? p[x] : (uint32_t)(p[x / per_byte] >> (8 - depth * (int)(x % per_byte + 1))) & mask;
                if (index >= palette_size)
                    return 0;
                memcpy(o, palette + index * 3, 3);
            }
        }
    }
    return 1;
}

/* A decompressor and a buffer for the zlib stream's output, kept per thread for the next
   image: `galley diff` decodes page after page of one size, and a buffer allocated per page
   came from fresh pages of memory, whose faults cost as much as the decoding. A buffer over
   GP_KEPT_ROWS is allocated for its image and freed after it. Freed when the thread ends. */
#define GP_KEPT_ROWS ((size_t)32 << 20)
typedef struct gp_scratch {
    struct libdeflate_decompressor *decompressor;
    unsigned char *rows;
    size_t capacity;
} gp_scratch;

static pthread_key_t gp_scratch_key;
static pthread_once_t gp_scratch_once = PTHREAD_ONCE_INIT;
static int gp_scratch_key_made;

static void gp_scratch_free(void *pointer)
{
    gp_scratch *scratch = pointer;
    libdeflate_free_decompressor(scratch->decompressor);
    free(scratch->rows);
    free(scratch);
}

static void gp_make_scratch_key(void)
{
    gp_scratch_key_made = pthread_key_create(&gp_scratch_key, gp_scratch_free) == 0;
}

/* This thread's scratch, with a decompressor; NULL when out of memory. */
static gp_scratch *gp_thread_scratch(void)
{
    pthread_once(&gp_scratch_once, gp_make_scratch_key);
    if (!gp_scratch_key_made)
        return NULL;
    gp_scratch *scratch = pthread_getspecific(gp_scratch_key);
    if (!scratch) {
        scratch = calloc(1, sizeof *scratch);
        if (!scratch || pthread_setspecific(gp_scratch_key, scratch) != 0) {
            free(scratch);
            return NULL;
        }
    }
    if (!scratch->decompressor)
        scratch->decompressor = libdeflate_alloc_decompressor();
    return scratch->decompressor ? scratch : NULL;
}

/* Decodes one of the simple forms into `out` (width × height × 3 bytes); 0 when the file is
   not one, or is damaged (libpng then decodes it, or says what is wrong). */
static int gp_decode_simple(const unsigned char *png, size_t length, uint32_t width, uint32_t height, unsigned char *out)
{
    gp_header h;
    if (!gp_simple_header(png, length, &h) || h.width != width || h.height != height)
        return 0;
    size_t offset = 8 + 12 + 13;
    const unsigned char *palette = NULL;
    uint32_t palette_size = 0;
    /* The IDAT chunks' data, pointed at when there is one chunk, else copied together. */
    const unsigned char *stream = NULL;
    size_t stream_length = 0;
    unsigned char *joined = NULL;
    int idat_state = 0; /* 0 none yet, 1 in the run of IDATs, 2 after it */
    int ended = 0, ok = 1;
    gp_chunk chunk;
    while (ok && !ended) {
        if (!gp_next_chunk(png, length, &offset, &chunk)) {
            ok = 0;
        } else if (gp_is(&chunk, "IDAT")) {
            if (idat_state == 2) {
                ok = 0;
            } else if (idat_state == 0) {
                idat_state = 1;
                stream = chunk.data;
                stream_length = chunk.length;
            } else {
                unsigned char *grown = realloc(joined, stream_length + chunk.length);
                if (!grown) {
                    ok = 0;
                } else {
                    if (!joined)
                        memcpy(grown, stream, stream_length);
                    memcpy(grown + stream_length, chunk.data, chunk.length);
                    joined = grown;
                    stream = joined;
                    stream_length += chunk.length;
                }
            }
        } else {
            if (idat_state == 1)
                idat_state = 2;
            if (gp_is(&chunk, "IEND")) {
                ended = 1;
            } else if (gp_is(&chunk, "PLTE")) {
                ok = h.colour_type == 3 && !palette && idat_state == 0 && chunk.length % 3 == 0 && chunk.length > 0
                    && chunk.length / 3 <= (1u << h.depth);
                palette = chunk.data;
                palette_size = chunk.length / 3;
            } else {
                ok = gp_is_harmless(&chunk);
            }
        }
    }
    if (!ok || idat_state == 0 || (h.colour_type == 3 && !palette)) {
        free(joined);
        return 0;
    }
    size_t channels = h.colour_type == 2 ? 3 : 1;
    size_t row_bytes = ((size_t)h.width * channels * (size_t)h.depth + 7) / 8;
    size_t bpp = channels * (size_t)h.depth >= 8 ? channels * (size_t)h.depth / 8 : 1;
    size_t size = (row_bytes + 1) * h.height;
    gp_scratch *scratch = gp_thread_scratch();
    unsigned char *rows = NULL, *own = NULL;
    if (scratch && size <= GP_KEPT_ROWS) {
        if (scratch->capacity < size) {
            free(scratch->rows);
            scratch->rows = malloc(size);
            scratch->capacity = scratch->rows ? size : 0;
        }
        rows = scratch->rows;
    } else if (scratch) {
        rows = own = malloc(size);
    }
    size_t used = 0;
    ok = rows
        && libdeflate_zlib_decompress_ex(scratch->decompressor, stream, stream_length, rows, size, &used, NULL) == LIBDEFLATE_SUCCESS
        && used == stream_length
        && gp_unfilter(rows, h.height, row_bytes, bpp)
        && gp_expand(rows, &h, row_bytes, palette, palette_size, out);
    free(own);
    free(joined);
    return ok;
}

/* libpng's simplified reader opened on `data`, which catches libpng's longjmp itself and
   reports through `image`; 0 with a message when the header cannot be read. */
static int gp_libpng_open(png_image *image, const unsigned char *data, size_t length, char *error, size_t error_size)
{
    memset(image, 0, sizeof *image);
    image->version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(image, data, length)) {
        snprintf(error, error_size, "libpng: %s", image->message);
        return 0;
    }
    return 1;
}

int gp_decode_size(const unsigned char *data, size_t length, int *width, int *height, char *error, size_t error_size)
{
    gp_header h;
    if (gp_simple_header(data, length, &h)) {
        *width = (int)h.width;
        *height = (int)h.height;
        return 0;
    }
    png_image image;
    if (!gp_libpng_open(&image, data, length, error, error_size))
        return -1;
    *width = (int)image.width;
    *height = (int)image.height;
    png_image_free(&image);
    if (*width <= 0 || *height <= 0) {
        snprintf(error, error_size, "libpng: image size %dx%d", *width, *height);
        return -1;
    }
    return 0;
}

int gp_decode_rgb(const unsigned char *data, size_t length, int width, int height, unsigned char *pixels,
                  char *error, size_t error_size)
{
    if (width <= 0 || height <= 0) {
        snprintf(error, error_size, "image size %dx%d", width, height);
        return -1;
    }
    if (gp_decode_simple(data, length, (uint32_t)width, (uint32_t)height, pixels))
        return 0;
    png_image image;
    if (!gp_libpng_open(&image, data, length, error, error_size))
        return -1;
    if (image.width != (png_uint_32)width || image.height != (png_uint_32)height) {
        snprintf(error, error_size, "libpng: the image is %ux%u, not %dx%d", image.width, image.height, width, height);
        png_image_free(&image);
        return -1;
    }
    image.format = PNG_FORMAT_RGB;
    /* Composite any transparency onto white, as a page would show it. */
    png_color background = {255, 255, 255};
    if (!png_image_finish_read(&image, &background, pixels, 0, NULL)) {
        snprintf(error, error_size, "libpng: %s", image.message);
        return -1;
    }
    return 0;
}
