/* Drawing display lists into RGB bands, with images decoded privately per drawing
   (private-images.c). */
#include "internal.h"

#include <mupdf/fitz.h>
#include <stdio.h>

/* Draws `list`, or else `page` run afresh, into the RGB buffer (see gm_render_rgb); the errors
   MuPDF skips are counted into `errors` when it is not NULL. */
static int render_rgb(fz_context *ctx, fz_display_list *list, fz_page *page, float zoom,
                      int x, int y, int width, int height, unsigned char *samples,
                      gm_cookie *cookie, int *errors, gm_error *error)
{
    fz_pixmap *pixmap = NULL;
    fz_device *device = NULL;
    /* Without a cookie (nothing to abort with), one of our own still counts skipped errors. */
    fz_cookie own = { 0 };
    fz_cookie *counting = cookie ? &cookie->cookie : &own;
    fz_var(pixmap);
    fz_var(device);
    fz_try(ctx)
    {
        fz_irect rect = fz_make_irect(x, y, x + width, y + height);
        pixmap = fz_new_pixmap_with_bbox_and_data(ctx, fz_device_rgb(ctx), rect, NULL, 0, samples);
        fz_clear_pixmap_with_value(ctx, pixmap, 255);
        /* The same transform split as `mutool draw`, so pixels match it. */
        device = fz_new_draw_device(ctx, fz_identity, pixmap);
        gm_use_private_images(device);
        gm_drawn_area = rect;
        if (list)
            fz_run_display_list(ctx, list, device, fz_scale(zoom, zoom), fz_rect_from_irect(rect), counting);
        else
            fz_run_page(ctx, page, device, fz_scale(zoom, zoom), counting);
        fz_close_device(ctx, device);
        if (errors)
            *errors = counting->errors;
    }
    fz_always(ctx)
    {
        gm_drawn_area = fz_empty_irect;
        fz_drop_device(ctx, device);
        fz_drop_pixmap(ctx, pixmap);
    }
    fz_catch(ctx)
    {
        gm_record_error(ctx, error);
        return -1;
    }
    if (gm_cookie_aborted(cookie)) {
        /* Where the drawing stopped: fz_run_display_list sets progress_max to the list's
           length and progress to the position of each node it runs (both in the list's
           storage units), leaving the list at the first node it finds the cookie aborted.
           A page run afresh counts no progress. */
        char message[sizeof error->message];
        if (list)
            snprintf(message, sizeof message, "rendering was cancelled at display-list node %d (list length %zu)",
                     cookie->cookie.progress, cookie->cookie.progress_max);
        else
            snprintf(message, sizeof message, "rendering was cancelled");
        gm_set_error(error, GM_ERROR_ABORT, message);
        return -1;
    }
    return 0;
}

int gm_render_rgb(fz_context *ctx, fz_display_list *list, float zoom,
                  int x, int y, int width, int height, unsigned char *samples,
                  gm_cookie *cookie, gm_error *error)
{
    return render_rgb(ctx, list, NULL, zoom, x, y, width, height, samples, cookie, NULL, error);
}

int gm_page_render_rgb(fz_context *ctx, fz_page *page, float zoom,
                       int x, int y, int width, int height, unsigned char *samples,
                       gm_cookie *cookie, int *errors, gm_error *error)
{
    return render_rgb(ctx, NULL, page, zoom, x, y, width, height, samples, cookie, errors, error);
}
