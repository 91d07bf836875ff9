/* For PTHREAD_MUTEX_ADAPTIVE_NP, glibc's spinning mutex. */
#define _GNU_SOURCE
#include "CGalleyMuPDF.h"

#include <malloc.h>
#include <math.h>
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* MuPDF's locks: glibc's adaptive mutexes (they spin a little before sleeping), one per cache
   line.

   MuPDF takes FZ_LOCK_ALLOC around every allocation and free and around every reference
   count change of a shared object (a glyph, a font, an image): thumbnails of 480 pages of
   Debian manuals took it 10.3 million times, 21,000 times a page. When every drawing thread
   shared one engine, the lock and unlock were 21% of that run's CPU in `perf`, and a
   hand-written futex lock still 16%: the cost was the two cores passing the lock's line back
   and forth, not the lock's code. Since the run draws a PDF in page lanes, each engine is
   used by one thread at a time and the lock stays in its core's cache; with lanes the futex
   lock and these mutexes measured the same (thumbnails of those pages, three alternating
   runs: 1.36-1.52 s against 1.31-1.69 s), so the library's lock is kept. Each lock has a
   cache line of its own (three pthread mutexes would share two). */
typedef struct gm_lock_word {
    _Alignas(64) pthread_mutex_t mutex;
} gm_lock_word;

struct gm_engine {
    gm_lock_word locks_words[FZ_LOCK_MAX];
    fz_context *base;
    fz_locks_context locks;
};

struct gm_cookie {
    fz_cookie cookie;
};

static void gm_record_error(fz_context *ctx, gm_error *error)
{
    if (!error)
        return;
    /* fz_caught() is often 0 after open failures in 1.21; keep the message regardless. */
    int code = fz_caught(ctx);
    error->code = code ? code : GM_ERROR_GENERIC;
    const char *message = fz_caught_message(ctx);
    snprintf(error->message, sizeof error->message, "%s", message ? message : "unknown MuPDF error");
}

static void gm_set_error(gm_error *error, int code, const char *message)
{
    if (!error)
        return;
    error->code = code;
    snprintf(error->message, sizeof error->message, "%s", message);
}

static void gm_lock(void *user, int lock)
{
    struct gm_engine *engine = user;
    pthread_mutex_lock(&engine->locks_words[lock].mutex);
}

static void gm_unlock(void *user, int lock)
{
    struct gm_engine *engine = user;
    pthread_mutex_unlock(&engine->locks_words[lock].mutex);
}

/* Warnings go nowhere: damaged files produce many, and the caller reports what matters. */
static void gm_quiet(void *user, const char *message)
{
    (void)user;
    (void)message;
}

const char *gm_mupdf_version(void)
{
    return FZ_VERSION;
}

/* The commit galley was built from: Package.swift defines GALLEY_COMMIT from the environment
   variable of that name, which scripts/build-release.sh sets (SwiftPM has no other way to pass
   a value into a build). Empty in other builds. */
#ifndef GALLEY_COMMIT
#define GALLEY_COMMIT ""
#endif

const char *gm_build_commit(void)
{
    return GALLEY_COMMIT;
}

/* No single MuPDF allocation may exceed this. A damaged image header (a PNG inside an SVG, an
   image in a PDF) can claim billions of pixels, and MuPDF allocates the whole image before it
   decodes a byte (found by FuzzImage: 2.2 GB for a 282 x 16M PNG in an SVG). A refused
   allocation becomes MuPDF's own "malloc failed" error, which fails that picture or page alone.
   512 MiB is a 11,500 px square RGBA image: pages are drawn in bands far smaller than that. */
#define GM_MAXIMUM_ALLOCATION ((size_t)512 << 20)

static void *gm_malloc(void *user, size_t size)
{
    (void)user;
    return size > GM_MAXIMUM_ALLOCATION ? NULL : malloc(size);
}

static void *gm_realloc(void *user, void *old, size_t size)
{
    (void)user;
    return size > GM_MAXIMUM_ALLOCATION ? NULL : realloc(old, size);
}

static void gm_free(void *user, void *pointer)
{
    (void)user;
    free(pointer);
}

static const fz_alloc_context gm_allocator = { NULL, gm_malloc, gm_realloc, gm_free };

gm_engine *gm_engine_new(size_t store_bytes, gm_error *error)
{
    /* Aligned for the locks' cache lines; zeroed, which is every lock free. */
    gm_engine *engine = aligned_alloc(64, sizeof *engine);
    if (engine)
        memset(engine, 0, sizeof *engine);
    if (!engine) {
        gm_set_error(error, GM_ERROR_MEMORY, "out of memory creating the MuPDF engine");
        return NULL;
    }
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ADAPTIVE_NP);
    for (int i = 0; i < FZ_LOCK_MAX; i++)
        pthread_mutex_init(&engine->locks_words[i].mutex, &attributes);
    pthread_mutexattr_destroy(&attributes);
    engine->locks.user = engine;
    engine->locks.lock = gm_lock;
    engine->locks.unlock = gm_unlock;
    engine->base = fz_new_context(&gm_allocator, &engine->locks, store_bytes);
    if (!engine->base) {
        for (int i = 0; i < FZ_LOCK_MAX; i++)
            pthread_mutex_destroy(&engine->locks_words[i].mutex);
        free(engine);
        gm_set_error(error, GM_ERROR_MEMORY, "cannot create MuPDF context");
        return NULL;
    }
    fz_set_warning_callback(engine->base, gm_quiet, NULL);
    fz_set_error_callback(engine->base, gm_quiet, NULL);
    fz_try(engine->base)
        fz_register_document_handlers(engine->base);
    fz_catch(engine->base)
    {
        gm_record_error(engine->base, error);
        gm_engine_free(engine);
        return NULL;
    }
    return engine;
}

void gm_engine_free(gm_engine *engine)
{
    if (!engine)
        return;
    fz_drop_context(engine->base);
    for (int i = 0; i < FZ_LOCK_MAX; i++)
        pthread_mutex_destroy(&engine->locks_words[i].mutex);
    free(engine);
}

fz_context *gm_engine_clone_context(gm_engine *engine, gm_error *error)
{
    fz_context *ctx = fz_clone_context(engine->base);
    if (!ctx) {
        gm_set_error(error, GM_ERROR_MEMORY, "cannot clone MuPDF context");
        return NULL;
    }
    fz_set_warning_callback(ctx, gm_quiet, NULL);
    fz_set_error_callback(ctx, gm_quiet, NULL);
    return ctx;
}

void gm_context_free(fz_context *ctx)
{
    fz_drop_context(ctx);
}

int gm_open_document(fz_context *ctx, const char *path, fz_document **out, gm_error *error)
{
    fz_document *doc = NULL;
    *out = NULL;
    fz_try(ctx)
        doc = fz_open_document(ctx, path);
    fz_catch(ctx)
    {
        gm_record_error(ctx, error);
        return -1;
    }
    *out = doc;
    return 0;
}

void gm_document_free(fz_context *ctx, fz_document *doc)
{
    fz_try(ctx)
        fz_drop_document(ctx, doc);
    fz_catch(ctx)
    {
        /* Dropping cannot usefully fail; nothing to report. */
    }
}

int gm_document_needs_password(fz_context *ctx, fz_document *doc, int *needs, gm_error *error)
{
    fz_try(ctx)
        *needs = fz_needs_password(ctx, doc);
    fz_catch(ctx)
    {
        gm_record_error(ctx, error);
        return -1;
    }
    return 0;
}

int gm_document_authenticate(fz_context *ctx, fz_document *doc, const char *password, int *ok, gm_error *error)
{
    fz_try(ctx)
        *ok = fz_authenticate_password(ctx, doc, password);
    fz_catch(ctx)
    {
        gm_record_error(ctx, error);
        return -1;
    }
    return 0;
}

int gm_document_count_pages(fz_context *ctx, fz_document *doc, int *count, gm_error *error)
{
    fz_try(ctx)
        *count = fz_count_pages(ctx, doc);
    fz_catch(ctx)
    {
        gm_record_error(ctx, error);
        return -1;
    }
    return 0;
}

int gm_document_page_exists(fz_context *ctx, fz_document *doc, int number)
{
    int exists = 0;
    fz_try(ctx)
    {
        pdf_document *pdf = pdf_specifics(ctx, doc);
        /* Walks the page tree by its kids' counts to the page object (a cycle or a missing
         * kid throws); other kinds of document have no tree to lie about their count. */
        exists = pdf ? pdf_lookup_page_obj(ctx, pdf, number) != NULL : 1;
    }
    fz_catch(ctx)
        exists = 0;
    return exists;
}

int gm_document_was_repaired(fz_context *ctx, fz_document *doc)
{
    int repaired = 0;
    fz_try(ctx)
    {
        pdf_document *pdf = pdf_specifics(ctx, doc);
        repaired = pdf ? pdf_was_repaired(ctx, pdf) : 0;
    }
    fz_catch(ctx)
        repaired = 0;
    return repaired;
}

int gm_document_metadata(fz_context *ctx, fz_document *doc, const char *key, char *buf, int size)
{
    int length = -1;
    fz_try(ctx)
        length = fz_lookup_metadata(ctx, doc, key, buf, size);
    fz_catch(ctx)
        length = -1;
    return length;
}

static int gm_page_rotation(fz_context *ctx, fz_page *page)
{
    pdf_page *pdf = pdf_page_from_fz_page(ctx, page);
    if (!pdf)
        return 0;
    int rotate = pdf_to_int(ctx, pdf_dict_get_inheritable(ctx, pdf->obj, PDF_NAME(Rotate)));
    rotate %= 360;
    if (rotate < 0)
        rotate += 360;
    return rotate;
}

/* Bounds and rotation of a loaded page; may throw (call inside fz_try). */
static fz_rect gm_page_bounds(fz_context *ctx, fz_page *page, gm_page_info *info)
{
    fz_rect bounds = fz_bound_page(ctx, page);
    info->x0 = bounds.x0;
    info->y0 = bounds.y0;
    info->x1 = bounds.x1;
    info->y1 = bounds.y1;
    info->rotation = gm_page_rotation(ctx, page);
    info->errors = 0;
    return bounds;
}

int gm_page_inspect(fz_context *ctx, fz_document *doc, int number, gm_page_info *info, int *links, gm_error *error)
{
    fz_page *page = NULL;
    fz_link *list = NULL;
    fz_var(page);
    fz_var(list);
    *links = 0;
    fz_try(ctx)
    {
        page = fz_load_page(ctx, doc, number);
        gm_page_bounds(ctx, page, info);
        list = fz_load_links(ctx, page);
        for (fz_link *link = list; link; link = link->next)
            (*links)++;
    }
    fz_always(ctx)
    {
        fz_drop_link(ctx, list);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx)
    {
        gm_record_error(ctx, error);
        return -1;
    }
    return 0;
}

int gm_page_text(fz_context *ctx, fz_document *doc, int number, char **text, size_t *length, gm_error *error)
{
    fz_page *page = NULL;
    fz_stext_page *stext = NULL;
    fz_buffer *buffer = NULL;
    fz_output *output = NULL;
    fz_var(page);
    fz_var(stext);
    fz_var(buffer);
    fz_var(output);
    *text = NULL;
    *length = 0;
    fz_try(ctx)
    {
        page = fz_load_page(ctx, doc, number);
        stext = fz_new_stext_page_from_page(ctx, page, NULL);
        buffer = fz_new_buffer(ctx, 4096);
        output = fz_new_output_with_buffer(ctx, buffer);
        fz_print_stext_page_as_text(ctx, output, stext);
        fz_close_output(ctx, output);
        unsigned char *data = NULL;
        size_t count = fz_buffer_storage(ctx, buffer, &data);
        /* Plain malloc: the caller frees it with gm_text_free, without a context. */
        char *copy = malloc(count + 1);
        if (!copy)
            fz_throw(ctx, FZ_ERROR_MEMORY, "cannot allocate %zu bytes for the page's text", count + 1);
        if (count > 0)
            memcpy(copy, data, count);
        copy[count] = 0;
        *text = copy;
        *length = count;
    }
    fz_always(ctx)
    {
        fz_drop_output(ctx, output);
        fz_drop_buffer(ctx, buffer);
        fz_drop_stext_page(ctx, stext);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx)
    {
        gm_record_error(ctx, error);
        return -1;
    }
    return 0;
}

void gm_text_free(char *text)
{
    free(text);
}

/* Whether the cookie was aborted. Read atomically: another thread may be storing to it (a
   plain read here was a data race the thread sanitizer reported). */
static int gm_cookie_aborted(gm_cookie *cookie)
{
    return cookie && __atomic_load_n(&cookie->cookie.abort, __ATOMIC_RELAXED);
}

int gm_page_record(fz_context *ctx, fz_document *doc, int number, int drop_cached, fz_display_list **out,
                   gm_page_info *info, gm_cookie *cookie, gm_error *error)
{
    fz_page *page = NULL;
    fz_display_list *list = NULL;
    fz_device *device = NULL;
    /* Without a cookie (nothing to abort with), one of our own still counts skipped errors. */
    fz_cookie own = { 0 };
    fz_cookie *counting = cookie ? &cookie->cookie : &own;
    fz_var(page);
    fz_var(list);
    fz_var(device);
    *out = NULL;
    fz_try(ctx)
    {
        page = fz_load_page(ctx, doc, number);
        fz_rect bounds = gm_page_bounds(ctx, page, info);
        /* fz_new_display_list_from_page, with a cookie to count the errors MuPDF skips. */
        list = fz_new_display_list(ctx, bounds);
        device = fz_new_list_device(ctx, list);
        fz_run_page(ctx, page, device, fz_identity, counting);
        fz_close_device(ctx, device);
        info->errors = counting->errors;
    }
    fz_always(ctx)
    {
        fz_drop_device(ctx, device);
        fz_drop_page(ctx, page);
        /* The display list holds what drawing needs; the page's parsed objects (its dictionary,
           content stream and resource dictionaries) would otherwise stay cached in the xref
           until the document closes, about 1.5 KB a page: a 3,000-page file kept 4.5 MB of
           them. Objects something else still holds (fonts, images in the store) stay. Only when
           the caller says (every 32nd page it records from this document): the shared objects
           dropped with them (the page tree's nodes, whose /Kids may list thousands of pages)
           are parsed again by the next page. A count of the caller's, not the page number:
           a page lane records every nth page, and `number % 32` would never come round for
           some lanes. */
        pdf_document *pdf = pdf_specifics(ctx, doc);
        if (pdf && drop_cached)
            pdf_clear_xref(ctx, pdf);
    }
    fz_catch(ctx)
    {
        fz_drop_display_list(ctx, list);
        gm_record_error(ctx, error);
        return -1;
    }
    if (gm_cookie_aborted(cookie)) {
        fz_drop_display_list(ctx, list);
        gm_set_error(error, GM_ERROR_ABORT, "recording the page was cancelled");
        return -1;
    }
    *out = list;
    return 0;
}

void gm_display_list_free(fz_context *ctx, fz_display_list *list)
{
    fz_drop_display_list(ctx, list);
}

gm_cookie *gm_cookie_new(void)
{
    return calloc(1, sizeof(gm_cookie));
}

void gm_cookie_free(gm_cookie *cookie)
{
    free(cookie);
}

void gm_cookie_abort(gm_cookie *cookie)
{
    /* MuPDF polls this field during rendering; a plain store is its documented protocol. */
    __atomic_store_n(&cookie->cookie.abort, 1, __ATOMIC_RELAXED);
}


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

/*
 * Image files for article attachments: decoded once per document at full size, so the page
 * painter resamples the same pixels at every scale (MuPDF's store plays no part, and the
 * image is never subsampled on decode).
 */
/* MuPDF 1.21's SVG interpreter reads a polygon's or polyline's `points` with a loop that only
   moves on over separators and numbers (svg_parse_polygon_imp): any other character, or a sign
   that starts no number, leaves it spinning forever. Its number lexer does not take a plus sign,
   so a `+` starting a number in path data (`d`) spins the path loop too (both found by
   FuzzImage). Those attributes are checked here with the same character classes before MuPDF
   runs the drawing; a value it would loop on makes the picture fail with the offending
   character, as a broken raster would. The walk over the tree is iterative, so deep nesting
   cannot exhaust the stack. */
static int gm_svg_number_start(const char *s)
{
    /* Where svg_lex_number moves on: an optional minus (1.21 does not take a plus sign), then
       digits, a dot or an exponent. */
    const char *p = s;
    if (*p == '-')
        p++;
    return (*p >= '0' && *p <= '9') || *p == '.' || ((*p == 'e' || *p == 'E') && p == s);
}

static const char *gm_svg_points_stall(const char *s)
{
    while (*s) {
        if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n' || *s == ',') {
            s++;
            continue;
        }
        if (!gm_svg_number_start(s))
            return s;
        if (*s == '-')
            s++;
        while (*s >= '0' && *s <= '9')
            s++;
        if (*s == '.') {
            s++;
            while (*s >= '0' && *s <= '9')
                s++;
        }
        if (*s == 'e' || *s == 'E') {
            s++;
            if (*s == '+' || *s == '-')
                s++;
            while (*s >= '0' && *s <= '9')
                s++;
        }
    }
    return NULL;
}

/* A plus sign svg_lex_number would not move past: one that is not an exponent's. */
static const char *gm_svg_path_stall(const char *s)
{
    for (const char *p = s; *p; p++)
        if (*p == '+' && (p == s || (p[-1] != 'e' && p[-1] != 'E')))
            return p;
    return NULL;
}

static void gm_check_svg_points(fz_context *ctx, const unsigned char *data, size_t length)
{
    /* The parser terminates (and so may grow) its buffer: it reads a copy. */
    fz_buffer *copy = fz_new_buffer_from_copied_data(ctx, data, length);
    fz_xml *xml = NULL;
    fz_var(xml);
    fz_try(ctx)
    {
        xml = fz_parse_xml(ctx, copy, 0);
        fz_xml *root = fz_xml_root(xml);
        fz_xml *node = root;
        while (node) {
            const char *points = fz_xml_tag(node) ? fz_xml_att(node, "points") : NULL;
            const char *stall = points ? gm_svg_points_stall(points) : NULL;
            if (stall)
                fz_throw(ctx, FZ_ERROR_SYNTAX, "the SVG <%s> has points MuPDF cannot read ('%c' at character %d)",
                         fz_xml_tag(node), *stall >= 0x20 && *stall < 0x7f ? *stall : '?', (int)(stall - points) + 1);
            const char *data = fz_xml_tag(node) ? fz_xml_att(node, "d") : NULL;
            stall = data ? gm_svg_path_stall(data) : NULL;
            if (stall)
                fz_throw(ctx, FZ_ERROR_SYNTAX, "the SVG <%s> has path data MuPDF cannot read ('+' at character %d)",
                         fz_xml_tag(node), (int)(stall - data) + 1);
            if (fz_xml_down(node)) {
                node = fz_xml_down(node);
                continue;
            }
            while (node != root && !fz_xml_next(node))
                node = fz_xml_up(node);
            node = node == root ? NULL : fz_xml_next(node);
        }
    }
    fz_always(ctx)
    {
        fz_drop_xml(ctx, xml);
        fz_drop_buffer(ctx, copy);
    }
    fz_catch(ctx)
        fz_rethrow(ctx);
}

int gm_render_svg(fz_context *ctx, const unsigned char *data, size_t length, size_t max_pixels, double max_scale,
                  int max_width, int max_height, int keeps_aspect, int *width, int *height, double *scale,
                  double *intrinsic_width, double *intrinsic_height, unsigned char **samples, gm_error *error)
{
    fz_buffer *buffer = NULL;
    fz_stream *stream = NULL;
    fz_document *doc = NULL;
    fz_page *page = NULL;
    fz_pixmap *pixmap = NULL;
    unsigned char *out = NULL;
    fz_var(buffer);
    fz_var(stream);
    fz_var(doc);
    fz_var(page);
    fz_var(pixmap);
    fz_var(out);
    *samples = NULL;
    *width = 0;
    *height = 0;
    *scale = 0;
    *intrinsic_width = 0;
    *intrinsic_height = 0;
    fz_try(ctx)
    {
        /* The data stays owned by the caller and outlives the buffer. */
        buffer = fz_new_buffer_from_shared_data(ctx, data, length);
        gm_check_svg_points(ctx, data, length);
        stream = fz_open_buffer(ctx, buffer);
        doc = fz_open_document_with_stream(ctx, "image/svg+xml", stream);
        page = fz_load_page(ctx, doc, 0);
        fz_rect bounds = fz_bound_page(ctx, page);
        double w = bounds.x1 - bounds.x0, h = bounds.y1 - bounds.y0;
        if (!(w >= 1 && h >= 1) || w > 100000 || h > 100000)
            fz_throw(ctx, FZ_ERROR_GENERIC, "the SVG has no usable size (%g x %g)", w, h);
        double s = max_scale > 0 ? max_scale : 1;
        /* Not more than twice as fine as the most it is drawn at (a column's width and height
           in page pixels): an SVG declaring 30,000 px square in a 500 px column is drawn from
           500 px. Its intrinsic size is then its own, not the pixels' over the scale. */
        double needed = s;
        if (max_width > 0 && max_height > 0)
            needed = keeps_aspect ? fmin(max_width / w, max_height / h) : fmax(max_width / w, max_height / h);
        if (needed * 2 <= s) {
            s = needed;
            *intrinsic_width = w;
            *intrinsic_height = h;
        }
        if (w * h * s * s > (double)max_pixels)
            s = sqrt((double)max_pixels / (w * h));
        /* The pixmap covers the scaled bounds rounded out to whole pixels (a pixel more on each
           side when they fall between pixels): shrink the scale until that fits too. */
        for (int tries = 0; tries < 16; tries++) {
            fz_irect area = fz_round_rect(fz_transform_rect(bounds, fz_scale((float)s, (float)s)));
            double pixels = (double)(area.x1 - area.x0) * (double)(area.y1 - area.y0);
            if (pixels <= (double)max_pixels)
                break;
            s *= 0.999 * sqrt((double)max_pixels / pixels);
        }
        pixmap = fz_new_pixmap_from_page(ctx, page, fz_scale((float)s, (float)s), fz_device_rgb(ctx), 1);
        if (pixmap->n != 4)
            fz_throw(ctx, FZ_ERROR_GENERIC, "MuPDF rendered the SVG with %d components, not RGBA", pixmap->n);
        int pw = pixmap->w, ph = pixmap->h;
        if ((double)pw * (double)ph > (double)max_pixels)
            fz_throw(ctx, FZ_ERROR_GENERIC, "the SVG would take %d x %d pixels, more than %zu", pw, ph, max_pixels);
        out = malloc((size_t)pw * (size_t)ph * 4);
        if (!out)
            fz_throw(ctx, FZ_ERROR_MEMORY, "out of memory rendering a %d x %d SVG", pw, ph);
        for (int y = 0; y < ph; y++)
            memcpy(out + (size_t)y * pw * 4, pixmap->samples + (size_t)y * pixmap->stride, (size_t)pw * 4);
        *width = pw;
        *height = ph;
        *scale = s;
    }
    fz_always(ctx)
    {
        fz_drop_pixmap(ctx, pixmap);
        fz_drop_page(ctx, page);
        fz_drop_document(ctx, doc);
        fz_drop_stream(ctx, stream);
        fz_drop_buffer(ctx, buffer);
    }
    fz_catch(ctx)
    {
        free(out);
        gm_record_error(ctx, error);
        return -1;
    }
    *samples = out;
    return 0;
}

/* The number of pixels an image of `width` x `height` is reduced by (per side) so that it still
   has as many as it is drawn at, at most `max_width` x `max_height`: 1 (kept whole) when there
   is no bound or the image is under twice it. Drawn with its aspect ratio it is scaled to fit
   both sides; else (a width and a height from the markup) each side may reach its bound. */
static int gm_reduction(int width, int height, int max_width, int max_height, int keeps_aspect)
{
    if (max_width <= 0 || max_height <= 0)
        return 1;
    double across = (double)width / max_width, down = (double)height / max_height;
    double factor = keeps_aspect ? fmax(across, down) : fmin(across, down);
    return factor >= 2 ? (int)floor(factor) : 1;
}

/* `rgb` (RGB, with or without alpha) averaged into `width` x `height` RGBA pixels in `out`:
   each source pixel counts in the one output pixel its position maps to (a box of one or two
   sizes along each side). At the source's own size it is a copy, an opaque source getting
   alpha 255. One row of sums is held, so nothing of the source's size is allocated. */
static void gm_reduce_to_rgba(fz_context *ctx, const fz_pixmap *rgb, int width, int height, unsigned char *out)
{
    int w = rgb->w, h = rgb->h, n = rgb->n;
    uint32_t *sums = fz_calloc(ctx, (size_t)width * 5, sizeof(uint32_t));
    int row = 0;
    for (int y = 0; y <= h; y++) {
        int target = y < h ? (int)((int64_t)y * height / h) : height;
        if (target != row) {
            unsigned char *to = out + (size_t)row * width * 4;
            for (int x = 0; x < width; x++) {
                uint32_t *sum = sums + (size_t)x * 5, count = sum[4];
                for (int c = 0; c < 4; c++)
                    to[x * 4 + c] = count ? (unsigned char)((sum[c] + count / 2) / count) : 0;
            }
            memset(sums, 0, (size_t)width * 5 * sizeof(uint32_t));
            row = target;
        }
        if (y == h)
            break;
        const unsigned char *from = rgb->samples + (size_t)y * rgb->stride;
        for (int x = 0; x < w; x++, from += n) {
            uint32_t *sum = sums + (size_t)((int64_t)x * width / w) * 5;
            sum[0] += from[0];
            sum[1] += from[1];
            sum[2] += from[2];
            sum[3] += n == 4 ? from[3] : 255;
            sum[4] += 1;
        }
    }
    fz_free(ctx, sums);
}

int gm_decode_image(fz_context *ctx, const unsigned char *data, size_t length, size_t max_pixels,
                    int max_width, int max_height, int keeps_aspect, int *width, int *height, int *source_width,
                    int *source_height, unsigned char **samples, gm_error *error)
{
    fz_buffer *buffer = NULL;
    fz_image *image = NULL;
    fz_pixmap *decoded = NULL;
    fz_pixmap *rgb = NULL;
    unsigned char *out = NULL;
    int limited = 0;
    fz_var(buffer);
    fz_var(image);
    fz_var(decoded);
    fz_var(rgb);
    fz_var(out);
    fz_var(limited);
    *samples = NULL;
    *width = 0;
    *height = 0;
    *source_width = 0;
    *source_height = 0;
    fz_try(ctx)
    {
        /* The data stays owned by the caller and outlives the buffer. */
        buffer = fz_new_buffer_from_shared_data(ctx, data, length);
        image = fz_new_image_from_buffer(ctx, buffer);
        *width = *source_width = image->w;
        *height = *source_height = image->h;
        if (image->w <= 0 || image->h <= 0)
            fz_throw(ctx, FZ_ERROR_GENERIC, "the image has no pixels");
        if ((size_t)image->w * (size_t)image->h > max_pixels) {
            limited = 1;
        } else {
            int reduction = gm_reduction(image->w, image->h, max_width, max_height, keeps_aspect);
            int w = (image->w + reduction - 1) / reduction, h = (image->h + reduction - 1) / reduction;
            if (reduction > 1) {
                /* Drawn smaller than its pixels: MuPDF decodes it subsampled by a power of two
                   where its decoder can (a JPEG's DCT scaling), at least w x h. */
                fz_matrix drawn = fz_scale((float)w, (float)h);
                decoded = fz_get_pixmap_from_image(ctx, image, NULL, &drawn, NULL, NULL);
            } else {
                decoded = fz_get_pixmap_from_image(ctx, image, NULL, NULL, NULL, NULL);
            }
            /* RGB with alpha whatever the source: grey, CMYK (Adobe JPEGs included), indexed. */
            rgb = fz_convert_pixmap(ctx, decoded, fz_device_rgb(ctx), NULL, NULL, fz_default_color_params, 1);
            fz_drop_pixmap(ctx, decoded);
            decoded = NULL;
            /* keep_alpha keeps an alpha channel the source has; an opaque one gets alpha 255 here. */
            if (rgb->n != 3 + rgb->alpha)
                fz_throw(ctx, FZ_ERROR_GENERIC, "MuPDF converted the image to %d components, not RGB", rgb->n);
            if (reduction == 1) {
                w = rgb->w;
                h = rgb->h;
            } else {
                w = fz_mini(w, rgb->w);
                h = fz_mini(h, rgb->h);
            }
            out = malloc((size_t)w * (size_t)h * 4);
            if (!out)
                fz_throw(ctx, FZ_ERROR_MEMORY, "out of memory decoding a %d x %d image", w, h);
            gm_reduce_to_rgba(ctx, rgb, w, h, out);
            *width = w;
            *height = h;
        }
    }
    fz_always(ctx)
    {
        fz_drop_pixmap(ctx, rgb);
        fz_drop_pixmap(ctx, decoded);
        fz_drop_image(ctx, image);
        fz_drop_buffer(ctx, buffer);
    }
    fz_catch(ctx)
    {
        free(out);
        gm_record_error(ctx, error);
        return -1;
    }
    if (limited) {
        char message[128];
        snprintf(message, sizeof message, "%d×%d pixels is over the %zu-megapixel limit", *width, *height, max_pixels / 1000000);
        gm_set_error(error, GM_ERROR_LIMIT, message);
        return -1;
    }
    *samples = out;
    return 0;
}

void gm_image_samples_free(unsigned char *samples)
{
    free(samples);
}

int gm_return_freed_memory(void)
{
    /* Not exported by Swift's Glibc module: malloc.h is glibc's own header. */
    return malloc_trim(0);
}

int gm_limit_malloc_arenas(int count)
{
    return mallopt(M_ARENA_MAX, count);
}

int gm_reuse_large_blocks(int mmap_threshold, int trim_threshold)
{
    return mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 && mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
}
