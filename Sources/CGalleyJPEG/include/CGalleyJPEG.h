#ifndef CGALLEY_JPEG_H
#define CGALLEY_JPEG_H

// The only code in Galley that calls libjpeg (libjpeg-turbo).
//
// Why a shim: libjpeg's default error handler prints and calls exit(); Galley installs its
// own, which longjmps back to a setjmp in the function of this file that called libjpeg. A
// longjmp across Swift frames is undefined behaviour, so every libjpeg call runs here and a
// failure comes back as -1 (or NULL) with libjpeg's message. Rows are handed over band by
// band (libjpeg writes scanlines), so a huge page never has to be held whole.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Settings of one JPEG; equal settings and pixels give equal bytes.
typedef struct gj_options {
    int quality;     /* 0...100, libjpeg's scale (jpeg_set_quality with baseline tables) */
    int progressive; /* nonzero: a progressive scan script (needs the whole image's coefficients in memory) */
    int optimize;    /* nonzero: Huffman tables made for the image (a second pass over the whole image's coefficients) */
    int chroma444;   /* nonzero: colour at full resolution (4:4:4); zero: halved both ways (4:2:0) */
    unsigned dpi;    /* JFIF density in dots per inch, 1...65535; 0 writes the JFIF default (aspect 1:1, no unit) */
} gj_options;

/// The largest width or height libjpeg writes (JPEG_MAX_DIMENSION).
enum { GJ_MAX_DIMENSION = 65500 };

/// A JPEG being written into memory, rows handed over band by band.
typedef struct gj_writer gj_writer;

/// Starts an 8-bit RGB image (written as YCbCr). Returns NULL with a message on failure.
gj_writer *gj_writer_new(int width, int height, const gj_options *options, char *error, size_t error_size);
/// Appends `count` rows of `width * 3` bytes starting at `rows`, each `stride` bytes apart.
/// Returns 0, or -1 (the message in gj_writer_error).
int gj_writer_write_rows(gj_writer *writer, const unsigned char *rows, size_t stride, int count);
/// Ends the image; every row must have been written. Returns 0 or -1.
int gj_writer_finish(gj_writer *writer);
/// The encoded bytes, complete after gj_writer_finish.
const unsigned char *gj_writer_bytes(const gj_writer *writer, size_t *length);
/// The message of the last failure.
const char *gj_writer_error(const gj_writer *writer);
void gj_writer_free(gj_writer *writer);

/// Decodes a JPEG to 8-bit RGB rows, packed, into `*pixels` (release with free), refusing
/// images of more than `max_pixels` pixels before decoding them. Returns 0, or -1 with a message.
int gj_decode(const unsigned char *data, size_t length, size_t max_pixels, unsigned char **pixels, int *width,
              int *height, char *error, size_t error_size);

/// libjpeg-turbo's version as a number (2001005 for 2.1.5): part of the encoder's fingerprint.
int gj_version(void);

/// The pixel size in a JPEG's frame header (SOFn), read without decoding. Returns 0, or -1
/// when the bytes are not a JPEG with a frame header.
int gj_dimensions(const unsigned char *data, size_t length, int *width, int *height);

#ifdef __cplusplus
}
#endif

#endif
