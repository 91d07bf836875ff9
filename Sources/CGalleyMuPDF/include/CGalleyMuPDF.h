#ifndef CGALLEY_MUPDF_H
#define CGALLEY_MUPDF_H

// The only code in Galley that calls MuPDF.
//
// Why a shim: MuPDF reports errors with setjmp/longjmp (fz_try/fz_catch). A longjmp that
// crosses Swift frames is undefined behaviour, so every MuPDF call that can throw runs
// inside fz_try here, and failures come back as a status (0 ok, -1 failed) plus a
// gm_error holding MuPDF's error code and message. fz_new_context is a macro, which
// Swift cannot call either. The header deliberately does not include <mupdf/fitz.h>,
// so Swift sees only these functions and opaque handles.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fz_context fz_context;
typedef struct fz_document fz_document;
typedef struct fz_display_list fz_display_list;
typedef struct fz_page fz_page;

/// MuPDF's error code (FZ_ERROR_*) and message for a failed call.
typedef struct gm_error {
    int code;
    char message[512];
} gm_error;

enum {
    GM_ERROR_NONE = 0,
    GM_ERROR_MEMORY = 1,
    GM_ERROR_GENERIC = 2,
    GM_ERROR_SYNTAX = 3,
    GM_ERROR_TRYLATER = 5,
    GM_ERROR_ABORT = 6,
    /// Refused before any work: over a size limit the caller set.
    GM_ERROR_LIMIT = 100,
};

/// A base context with locks (so cloned contexts may be used on several threads at once).
typedef struct gm_engine gm_engine;

/// A render in progress; `abort` may be set from another thread to stop it.
typedef struct gm_cookie gm_cookie;

/// A page's bounds in points after CropBox and /Rotate, its /Rotate value, and how many
/// errors MuPDF met (and skipped) while reading its contents.
typedef struct gm_page_info {
    float x0, y0, x1, y1;
    int rotation;
    int errors;
} gm_page_info;

const char *gm_mupdf_version(void);

gm_engine *gm_engine_new(size_t store_bytes, gm_error *error);
void gm_engine_free(gm_engine *engine);
/// A new context sharing the engine's store and locks. Call from one thread at a time.
fz_context *gm_engine_clone_context(gm_engine *engine, gm_error *error);
void gm_context_free(fz_context *ctx);

int gm_open_document(fz_context *ctx, const char *path, fz_document **out, gm_error *error);
/// Opens a document from `length` bytes at `data`, of the type `magic` names (a MIME type such
/// as "application/pdf", or a file name): MuPDF reads no file. The bytes stay the caller's,
/// unchanged, until the document is freed.
int gm_open_document_from_memory(fz_context *ctx, const unsigned char *data, size_t length, const char *magic,
                                 fz_document **out, gm_error *error);
void gm_document_free(fz_context *ctx, fz_document *doc);
int gm_document_needs_password(fz_context *ctx, fz_document *doc, int *needs, gm_error *error);
int gm_document_authenticate(fz_context *ctx, fz_document *doc, const char *password, int *ok, gm_error *error);
int gm_document_count_pages(fz_context *ctx, fz_document *doc, int *count, gm_error *error);
/// Whether the page tree holds page `number` (0-based): the tree is walked to it, the page itself
/// is not loaded. A count MuPDF reads from the tree's /Count is a claim; this checks it.
int gm_document_page_exists(fz_context *ctx, fz_document *doc, int number);
/// Whether MuPDF had to rebuild the cross-reference table (damaged or truncated file).
int gm_document_was_repaired(fz_context *ctx, fz_document *doc);
/// Writes the metadata value (UTF-8, NUL-terminated) into buf; returns -1 when absent.
int gm_document_metadata(fz_context *ctx, fz_document *doc, const char *key, char *buf, int size);

/// Loads page `number` (0-based) and reports its bounds and rotation (errors stays 0) and its
/// number of links, without running its contents: what `galley inspect` shows.
int gm_page_inspect(fz_context *ctx, fz_document *doc, int number, gm_page_info *info, int *links, gm_error *error);

/// Extracts the text of page `number` (0-based) with MuPDF's structured text device, as
/// `mutool draw -F txt` prints it: UTF-8, a line of the page a line, blocks apart by a blank
/// line. On success `*text` is a malloc'd NUL-terminated buffer of `*length` bytes (without the
/// NUL) for the caller to release with gm_text_free. `galley diff --text` compares these.
int gm_page_text(fz_context *ctx, fz_document *doc, int number, char **text, size_t *length, gm_error *error);
void gm_text_free(char *text);

/// Loads page `number` (0-based), records it as a display list and reports its bounds.
/// Setting `cookie`'s abort stops the recording; `cookie` may be NULL. With `drop_cached`,
/// the document's parsed objects that nothing else holds are dropped afterwards (memory of
/// long documents; the caller sets it every few dozen pages).
int gm_page_record(fz_context *ctx, fz_document *doc, int number, int drop_cached, fz_display_list **out,
                   gm_page_info *info, gm_cookie *cookie, gm_error *error);
void gm_display_list_free(fz_context *ctx, fz_display_list *list);

/// Loads page `number` (0-based) and reports its bounds, without running its contents: a page
/// drawn once (thumbnails only) is run straight into the drawing (gm_page_render_rgb) with no
/// display list in between. The page belongs to `doc` and is used, and freed, only on the
/// context that loaded it. `drop_cached` as gm_page_record's.
int gm_page_load(fz_context *ctx, fz_document *doc, int number, int drop_cached, fz_page **out,
                 gm_page_info *info, gm_error *error);
void gm_page_free(fz_context *ctx, fz_page *page);

gm_cookie *gm_cookie_new(void);
void gm_cookie_free(gm_cookie *cookie);
void gm_cookie_abort(gm_cookie *cookie);

/// Draws the display list scaled by `zoom` into an RGB buffer covering the device-space
/// pixel rectangle (x, y, width, height), whose rows are width * 3 bytes apart. The buffer
/// is filled with white first.
int gm_render_rgb(fz_context *ctx, fz_display_list *list, float zoom,
                  int x, int y, int width, int height, unsigned char *samples,
                  gm_cookie *cookie, gm_error *error);

/// Runs `page` (gm_page_load) into the buffer as gm_render_rgb draws a display list: the same
/// pixels but where MuPDF's list culls differently (a few bytes on some pages). The errors MuPDF
/// met and skipped reading the page's contents are set in `*errors`.
int gm_page_render_rgb(fz_context *ctx, fz_page *page, float zoom,
                       int x, int y, int width, int height, unsigned char *samples,
                       gm_cookie *cookie, int *errors, gm_error *error);

/// Test hook: from now on, counts how many times drawings decode an image of `width` x `height`
/// pixels (its size in the file), from zero; gm_counted_image_decodes says how many so far.
void gm_count_image_decodes(int width, int height);
int gm_counted_image_decodes(void);
/// Test hook: whether drawings inflate Flate images raw, without zlib's checksum (1, the
/// default), or through MuPDF's own filter (0). The pixels are the same either way.
void gm_set_raw_inflate(int on);

/// Decodes an image file held in memory (PNG, JPEG, GIF, BMP, TIFF, JPEG 2000, PNM ... whatever
/// MuPDF's image loader reads) at its full pixel size, converted to RGB with alpha, alpha
/// premultiplied (MuPDF's own pixmap convention), 4 bytes per pixel, rows packed. The image's
/// resolution (DPI) is ignored. An image of more than `max_pixels` pixels is refused before
/// its pixels are decoded (code GM_ERROR_LIMIT, with *width and *height set), so memory
/// stays bounded.
///
/// When `max_width` and `max_height` (the most pixels it is drawn at: scaled to fit both with its
/// aspect ratio when `keeps_aspect`, else each side up to its own) are positive and the image
/// has at least twice as many as it is drawn at, it is decoded reduced by a whole factor to at least
/// that many, subsampled by MuPDF's decoder where it can and averaged: *width and *height are
/// then the reduced size, *source_width and *source_height the file's.
///
/// On success `*samples` is a malloc'd buffer of width * height * 4 bytes for the caller to
/// release with gm_image_samples_free.
int gm_decode_image(fz_context *ctx, const unsigned char *data, size_t length, size_t max_pixels,
                    int max_width, int max_height, int keeps_aspect, int *width, int *height, int *source_width,
                    int *source_height, unsigned char **samples, gm_error *error);
void gm_image_samples_free(unsigned char *samples);

/// Renders an SVG document (page 1) into premultiplied RGBA at `max_scale` pixels per SVG
/// unit, less when that would pass `max_pixels` or be over twice as fine as needed for
/// `max_width` x `max_height` pixels (the most it is drawn at, as gm_decode_image's; none when 0); the scale used is returned in
/// `scale`; when rendered coarser for the drawn size (at least twice finer than needed
/// otherwise), the SVG's own size is set in `intrinsic_width` and `intrinsic_height` (else 0).
/// Samples as gm_decode_image's, released with gm_image_samples_free.
int gm_render_svg(fz_context *ctx, const unsigned char *data, size_t length, size_t max_pixels, double max_scale,
                  int max_width, int max_height, int keeps_aspect, int *width, int *height, double *scale,
                  double *intrinsic_width, double *intrinsic_height, unsigned char **samples, gm_error *error);


#ifdef __cplusplus
}
#endif

#endif
