/* Declarations shared by the shim's files; not part of its interface (CGalleyMuPDF.h). */
#ifndef GALLEY_MUPDF_INTERNAL_H
#define GALLEY_MUPDF_INTERNAL_H

#include "CGalleyMuPDF.h"

#include <mupdf/fitz.h>

#define GM_HIDDEN __attribute__((visibility("hidden")))

struct gm_cookie {
    fz_cookie cookie;
};

/* The error MuPDF just threw (inside fz_catch), into `error` when it is not NULL. */
GM_HIDDEN void gm_record_error(fz_context *ctx, gm_error *error);
/* An error of the shim's own. */
GM_HIDDEN void gm_set_error(gm_error *error, int code, const char *message);
/* Whether the cookie was aborted (read atomically). */
GM_HIDDEN int gm_cookie_aborted(gm_cookie *cookie);
/* The device pixels the current gm_render_rgb call draws (a band of a huge page, or the page):
   set on the drawing thread for the length of the call. */
GM_HIDDEN extern _Thread_local fz_irect gm_drawn_area;
/* Wraps the draw device's image entry points so that the drawing decodes each image it draws
   itself, privately (private-images.c). */
GM_HIDDEN void gm_use_private_images(fz_device *device);
/* A page's bounds as drawn (its rotation applied), and what `info` records of them. */
GM_HIDDEN fz_rect gm_page_bounds(fz_context *ctx, fz_page *page, gm_page_info *info);

#endif
