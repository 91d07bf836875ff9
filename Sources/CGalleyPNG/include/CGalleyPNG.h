#ifndef CGALLEY_PNG_H
#define CGALLEY_PNG_H

// The only code in Galley that calls libpng.
//
// Why a shim: libpng reports errors by longjmp to a setjmp buffer. A longjmp across Swift
// frames is undefined behaviour, so every libpng call runs here behind setjmp, and a
// failure comes back as -1 with libpng's message in the writer's error buffer.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Compression settings; the encoder is deterministic for equal settings and pixels.
typedef struct gp_options {
    int zlib_level;     /* 0...9 */
    int zlib_strategy;  /* Z_DEFAULT_STRATEGY 0, Z_FILTERED 1, Z_HUFFMAN_ONLY 2, Z_RLE 3 */
    int filters;        /* PNG_FILTER_* bit set (NONE 0x08, SUB 0x10, UP 0x20, AVG 0x40, PAETH 0x80) */
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

/// A decoded image: 8-bit samples, `channels` per pixel, rows packed.
typedef struct gp_image {
    int width;
    int height;
    int channels;
    unsigned char *pixels; /* release with gp_image_free */
} gp_image;

/// Decodes a PNG to 8-bit RGB (channels 3) or RGBA (channels 4), as asked.
int gp_decode(const unsigned char *data, size_t length, int channels, gp_image *out,
              char *error, size_t error_size);
void gp_image_free(gp_image *image);

#ifdef __cplusplus
}
#endif

#endif
