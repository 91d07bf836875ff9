#ifndef CGALLEY_PNG_H
#define CGALLEY_PNG_H

// The only code in Galley that calls libpng, libdeflate and zlib.
//
// Why a shim: libpng reports errors by longjmp to a setjmp buffer. A longjmp across Swift
// frames is undefined behaviour, so every libpng call runs here behind setjmp, and a
// failure comes back as -1 with libpng's message in the writer's error buffer.
// An image held whole in memory skips libpng: gp_encode_image (whole_image.c) reduces its
// colour type, filters it, compresses it with one libdeflate call and writes the chunks,
// so a page costs one call from Swift and no per-row crossing; gp_decode_rgb (decode.c)
// reads those forms back with one libdeflate call too.

#include <stddef.h>

/// Decodes a PNG reduced by a whole factor to no fewer pixels than it is drawn at (at most
/// `max_width` x `max_height`: scaled to fit both with its aspect ratio when `keeps_aspect`,
/// else each side up to its own), a row at a time, into premultiplied RGBA (rows packed,
/// malloc'd, released with free). Returns 1, or 0 when it is left to MuPDF: not a PNG, damaged,
/// interlaced, with a colour profile, over `max_pixels`, or under twice the drawn size.
int gp_decode_reduced(const unsigned char *data, size_t length, size_t max_pixels, int max_width, int max_height,
                      int keeps_aspect, int *width, int *height, int *source_width, int *source_height,
                      unsigned char **pixels);

#ifdef __cplusplus
extern "C" {
#endif

/// Compression settings; the encoder is deterministic for equal settings and pixels.
typedef struct gp_options {
    int zlib_level;     /* 0...9 */
    int zlib_strategy;  /* Z_DEFAULT_STRATEGY 0, Z_FILTERED 1, Z_HUFFMAN_ONLY 2, Z_RLE 3 */
    int filters;        /* PNG_FILTER_* bit set (NONE 0x08, SUB 0x10, UP 0x20, AVG 0x40, PAETH 0x80) */
    unsigned pixels_per_metre; /* resolution for a pHYs chunk; 0 writes none */
} gp_options;

/// One text chunk (tEXt) written before the image data.
typedef struct gp_text {
    const char *key;
    const char *value;
} gp_text;

/// An encoder writing one PNG into memory, row band by row band.
typedef struct gp_writer gp_writer;

/// channels: 3 (RGB) or 4 (RGBA), 8 bits each. Returns NULL with a message on failure.
gp_writer *gp_writer_new(int width, int height, int channels, const gp_options *options,
                         const gp_text *texts, int text_count, char *error, size_t error_size);
/// Appends `count` rows starting at `rows`, each `stride` bytes apart.
int gp_writer_write_rows(gp_writer *writer, const unsigned char *rows, size_t stride, int count);
/// Writes the end of the image. After this the encoded bytes are complete.
int gp_writer_finish(gp_writer *writer);
const unsigned char *gp_writer_bytes(const gp_writer *writer, size_t *length);
/// The message of the last failure.
const char *gp_writer_error(const gp_writer *writer);
void gp_writer_free(gp_writer *writer);

/// Row filters of gp_encode_image: the five PNG filter types, or the one of them whose
/// filtered row has the smallest sum of absolute (signed) bytes, chosen row by row.
enum {
    GP_FILTER_NONE = 0, GP_FILTER_SUB = 1, GP_FILTER_UP = 2, GP_FILTER_AVERAGE = 3, GP_FILTER_PAETH = 4,
    GP_FILTER_ADAPTIVE = 5
};

/// Settings of gp_encode_image; equal settings and pixels give equal bytes.
typedef struct gp_image_options {
    int level;            /* libdeflate compression level, 0...12 */
    int filter;           /* GP_FILTER_* for images of many colours (photos, gradients) */
    int few_colours_filter; /* GP_FILTER_* for images of at most 2048 colours (text, line art),
                               counted when `reduce` is set */
    int reduce;           /* nonzero: store RGB as 8-bit grey or a palette when that is lossless */
    unsigned pixels_per_metre; /* resolution for a pHYs chunk; 0 writes none */
    int page_deflate;     /* 0: images of at most 2048 colours are compressed by libdeflate at `level`
                             too; 1-3: by page_deflate.c's encoder at that effort (1 matches with
                             the row above and the pixel before, 2 also earlier places of the
                             same 3 bytes, 3 remembers more places), needs `reduce` */
} gp_image_options;

/// An encoded PNG and the form its pixels were stored in.
typedef struct gp_encoded {
    unsigned char *bytes; /* release with gp_encoded_free */
    size_t length;
    int colour_type;      /* 0 grey, 2 RGB, 3 palette, 6 RGBA */
    int bit_depth;        /* 8, or 1, 2, 4 for a palette of at most 2, 4, 16 colours */
} gp_encoded;

/// Encodes a whole image of 8-bit RGB (channels 3) or RGBA (channels 4) rows, `stride` bytes
/// apart. With `reduce`, RGB is stored as 8-bit grey when every pixel has R = G = B and at
/// least 17 colours, as a palette (1, 2, 4 or 8 bits, colours ordered by luma then value) when
/// it has at most 256 colours, else as RGB: the decoded pixels are the same. RGBA is stored
/// as is. Text keys must be 1 to 79 bytes. Returns 0, or -1 with a message.
int gp_encode_image(const unsigned char *pixels, int width, int height, size_t stride, int channels,
                    const gp_image_options *options, const gp_text *texts, int text_count,
                    gp_encoded *result, char *error, size_t error_size);
void gp_encoded_free(gp_encoded *encoded);

/// The pixel size a PNG declares: 0, or -1 with a message when it is not a readable PNG.
int gp_decode_size(const unsigned char *data, size_t length, int *width, int *height, char *error, size_t error_size);
/// Decodes a PNG of `width`×`height` pixels (gp_decode_size's) into `pixels`: 8-bit RGB, rows
/// packed, any transparency composited onto white. The forms gp_encode_image writes are read
/// with libdeflate (decode.c), the rest with libpng. Returns 0, or -1 with a message.
int gp_decode_rgb(const unsigned char *data, size_t length, int width, int height, unsigned char *pixels,
                  char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
