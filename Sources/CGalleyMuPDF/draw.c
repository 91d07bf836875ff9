/* Drawing display lists into RGB bands, with images decoded privately per drawing. */
#include "internal.h"

#include <math.h>
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Deterministic image drawing.
 *
 * MuPDF decodes an image at a reduced resolution when it is drawn small (a thumbnail) and
 * caches the decoded tile in its shared store; a later drawing reuses any cached tile that
 * is at least as fine as it needs. The store keeps a tile even when over its limit while
 * someone still uses it, so whether a thumbnail is made from a coarse decode or from the
 * page image's fine one depends on which thread got there first: the same input gave
 * different bytes with different worker counts.
 *
 * So the draw device's three image entry points are wrapped: each drawing decodes the image
 * itself, at the resolution MuPDF's own rule (fz_get_pixmap_from_image) picks for that
 * transform, and hands the draw device a private, already-decoded image, which MuPDF
 * neither subsamples again nor caches. The pixels are what an uncached MuPDF draws (what
 * `mutool draw` draws for a page), whatever else runs at the same time.
 */

/* Exported by libmupdf, declared only in its private pixmap-imp.h. */
void fz_subsample_pixmap(fz_context *ctx, fz_pixmap *tile, int factor);

typedef void (gm_fill_image_fn)(fz_context *, fz_device *, fz_image *, fz_matrix, float, fz_color_params);
typedef void (gm_fill_image_mask_fn)(fz_context *, fz_device *, fz_image *, fz_matrix, fz_colorspace *,
                                      const float *, float, fz_color_params);
typedef void (gm_clip_image_mask_fn)(fz_context *, fz_device *, fz_image *, fz_matrix, fz_rect);

/* The draw device's own entry points: the same functions for every draw device. */
static gm_fill_image_fn *gm_draw_fill_image;
static gm_fill_image_mask_fn *gm_draw_fill_image_mask;
static gm_clip_image_mask_fn *gm_draw_clip_image_mask;

/* The device pixels the current gm_render_rgb call draws (a band of a huge page, or the page):
   set on the drawing thread for the length of the call. */
static _Thread_local fz_irect gm_drawn_area;

/* A decoded image this large is cut to the rows and columns the drawn area needs. */
#define GM_SUBAREA_BYTES ((size_t)64 << 20)

/* The part of `image` (in its pixels) that device pixels `area` show under `ctm`, with a
   margin for the scaler, or the whole image when that is most of it. Only for images drawn at
   their own resolution or a whole multiple of it, upright, without a colour key: a 9,000 px scan
   on a 60-inch page, drawn in bands, decoded whole for every band took 243 MB each time;
   MuPDF's decoder reads a flate image's rows as a stream and keeps only those of the subarea
   (fz_decomp_image_from_stream, subarea_stream). */
static fz_irect gm_image_subarea(fz_context *ctx, fz_image *image, fz_matrix ctm, int l2factor)
{
    fz_irect whole = fz_make_irect(0, 0, image->w, image->h);
    size_t bytes = (size_t)image->w * (size_t)image->h * (size_t)(image->n > 0 ? image->n : 1);
    if (l2factor != 0 || image->orientation > 1 || image->use_colorkey || bytes <= GM_SUBAREA_BYTES
        || fz_is_empty_irect(gm_drawn_area))
        return whole;
    /* Only where each image pixel is a whole number of device pixels at whole-pixel offsets
       (a scan drawn at its own resolution): elsewhere the draw device fits the image's box to
       the pixel grid, and a part of it fitted on its own samples differently at its edges. */
    float sx = fabsf(ctm.a) / image->w, sy = fabsf(ctm.d) / image->h;
    if (ctm.b != 0 || ctm.c != 0 || sx < 0.999f || sy < 0.999f || fabsf(sx - roundf(sx)) > 1e-4f || fabsf(sy - roundf(sy)) > 1e-4f
        || fabsf(ctm.e - roundf(ctm.e)) > 1e-3f || fabsf(ctm.f - roundf(ctm.f)) > 1e-3f)
        return whole;
    fz_matrix inverse = fz_invert_matrix(ctm);
    fz_rect unit = fz_transform_rect(fz_rect_from_irect(gm_drawn_area), inverse);
    const float margin = 4;
    fz_irect area = fz_make_irect((int)floorf(unit.x0 * image->w - margin), (int)floorf(unit.y0 * image->h - margin),
                                  (int)ceilf(unit.x1 * image->w + margin), (int)ceilf(unit.y1 * image->h + margin));
    area = fz_intersect_irect(area, whole);
    if (fz_is_empty_irect(area))
        return whole;
    /* Most of the image anyway: decode it whole, as before. */
    if ((size_t)(area.x1 - area.x0) * (size_t)(area.y1 - area.y0) * 4 > (size_t)image->w * (size_t)image->h * 3)
        return whole;
    return area;
}

static fz_image *gm_private_image(fz_context *ctx, fz_image *image, fz_matrix *ctm_)
{
    fz_matrix ctm = *ctm_;
    /* Scalable images are never cached, decoded ones are never subsampled: nothing to fix. */
    if (image->scalable || image->decoded)
        return fz_keep_image(ctx, image);

    /* The subsampling factor fz_get_pixmap_from_image would choose for this transform. */
    fz_matrix local = fz_concat(fz_image_orientation_matrix(ctx, image), ctm);
    int w = (int)sqrtf(local.a * local.a + local.b * local.b);
    int h = (int)sqrtf(local.c * local.c + local.d * local.d);
    if (w > image->w)
        w = image->w;
    if (h > image->h)
        h = image->h;
    int l2factor = 0;
    if (w > 0 && h > 0)
        while (image->w >> (l2factor + 1) >= w + 2 && image->h >> (l2factor + 1) >= h + 2 && l2factor < 6)
            l2factor++;

    int remaining = l2factor;
    fz_irect area = gm_image_subarea(ctx, image, ctm, l2factor);
    fz_pixmap *tile = image->get_pixmap(ctx, image, &area, w, h, &remaining);
    /* The decoder may widen the area (alignment) or decode whole (can_sub = 0): the private
       image covers `area`, so the transform maps its unit square onto that part of the
       original's. */
    if (area.x0 != 0 || area.y0 != 0 || area.x1 != image->w || area.y1 != image->h) {
        fz_matrix part = fz_make_matrix((float)(area.x1 - area.x0) / image->w, 0, 0, (float)(area.y1 - area.y0) / image->h,
                                        (float)area.x0 / image->w, (float)area.y0 / image->h);
        *ctm_ = fz_concat(part, ctm);
    }
    fz_image *own = NULL;
    fz_var(own);
    fz_try(ctx)
    {
        /* The tile is freshly decoded for us alone, so subsampling it in place is safe. */
        if (remaining > 0)
            fz_subsample_pixmap(ctx, tile, remaining);
        own = fz_new_image_from_pixmap(ctx, tile, NULL);
        own->interpolate = image->interpolate;
        own->imagemask = image->imagemask;
        own->orientation = image->orientation;
    }
    fz_always(ctx)
        fz_drop_pixmap(ctx, tile);
    fz_catch(ctx)
        fz_rethrow(ctx);
    return own;
}

static void gm_fill_image(fz_context *ctx, fz_device *dev, fz_image *image, fz_matrix ctm, float alpha,
                          fz_color_params params)
{
    fz_image *own = gm_private_image(ctx, image, &ctm);
    fz_try(ctx)
        gm_draw_fill_image(ctx, dev, own, ctm, alpha, params);
    fz_always(ctx)
        fz_drop_image(ctx, own);
    fz_catch(ctx)
        fz_rethrow(ctx);
}

static void gm_fill_image_mask(fz_context *ctx, fz_device *dev, fz_image *image, fz_matrix ctm,
                               fz_colorspace *colorspace, const float *color, float alpha, fz_color_params params)
{
    fz_image *own = gm_private_image(ctx, image, &ctm);
    fz_try(ctx)
        gm_draw_fill_image_mask(ctx, dev, own, ctm, colorspace, color, alpha, params);
    fz_always(ctx)
        fz_drop_image(ctx, own);
    fz_catch(ctx)
        fz_rethrow(ctx);
}

static void gm_clip_image_mask(fz_context *ctx, fz_device *dev, fz_image *image, fz_matrix ctm, fz_rect scissor)
{
    fz_image *own = gm_private_image(ctx, image, &ctm);
    fz_try(ctx)
        gm_draw_clip_image_mask(ctx, dev, own, ctm, scissor);
    fz_always(ctx)
        fz_drop_image(ctx, own);
    fz_catch(ctx)
        fz_rethrow(ctx);
}

static pthread_mutex_t gm_wrap_lock = PTHREAD_MUTEX_INITIALIZER;

static void gm_use_private_images(fz_device *device)
{
    pthread_mutex_lock(&gm_wrap_lock);
    if (!gm_draw_fill_image) {
        gm_draw_fill_image = device->fill_image;
        gm_draw_fill_image_mask = device->fill_image_mask;
        gm_draw_clip_image_mask = device->clip_image_mask;
    }
    pthread_mutex_unlock(&gm_wrap_lock);
    device->fill_image = gm_fill_image;
    device->fill_image_mask = gm_fill_image_mask;
    device->clip_image_mask = gm_clip_image_mask;
}

int gm_render_rgb(fz_context *ctx, fz_display_list *list, float zoom,
                  int x, int y, int width, int height, unsigned char *samples,
                  gm_cookie *cookie, gm_error *error)
{
    fz_pixmap *pixmap = NULL;
    fz_device *device = NULL;
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
        fz_run_display_list(ctx, list, device, fz_scale(zoom, zoom), fz_rect_from_irect(rect),
                            cookie ? &cookie->cookie : NULL);
        fz_close_device(ctx, device);
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
        gm_set_error(error, GM_ERROR_ABORT, "rendering was cancelled");
        return -1;
    }
    return 0;
}
