#include "CGalleyMuPDF.h"

#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct gm_engine {
    fz_context *base;
    fz_locks_context locks;
    pthread_mutex_t mutexes[FZ_LOCK_MAX];
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
    pthread_mutex_lock(&engine->mutexes[lock]);
}

static void gm_unlock(void *user, int lock)
{
    struct gm_engine *engine = user;
    pthread_mutex_unlock(&engine->mutexes[lock]);
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

gm_engine *gm_engine_new(size_t store_bytes, gm_error *error)
{
    gm_engine *engine = calloc(1, sizeof *engine);
    if (!engine) {
        gm_set_error(error, GM_ERROR_MEMORY, "out of memory creating the MuPDF engine");
        return NULL;
    }
    for (int i = 0; i < FZ_LOCK_MAX; i++)
        pthread_mutex_init(&engine->mutexes[i], NULL);
    engine->locks.user = engine;
    engine->locks.lock = gm_lock;
    engine->locks.unlock = gm_unlock;
    engine->base = fz_new_context(NULL, &engine->locks, store_bytes);
    if (!engine->base) {
        for (int i = 0; i < FZ_LOCK_MAX; i++)
            pthread_mutex_destroy(&engine->mutexes[i]);
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
        pthread_mutex_destroy(&engine->mutexes[i]);
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

int gm_page_record(fz_context *ctx, fz_document *doc, int number, fz_display_list **out,
                   gm_page_info *info, gm_error *error)
{
    fz_page *page = NULL;
    fz_display_list *list = NULL;
    fz_device *device = NULL;
    fz_cookie cookie = {0};
    fz_var(page);
    fz_var(list);
    fz_var(device);
    *out = NULL;
    fz_try(ctx)
    {
        page = fz_load_page(ctx, doc, number);
        fz_rect bounds = fz_bound_page(ctx, page);
        info->x0 = bounds.x0;
        info->y0 = bounds.y0;
        info->x1 = bounds.x1;
        info->y1 = bounds.y1;
        info->rotation = gm_page_rotation(ctx, page);
        /* fz_new_display_list_from_page, with a cookie to count the errors MuPDF skips. */
        list = fz_new_display_list(ctx, bounds);
        device = fz_new_list_device(ctx, list);
        fz_run_page(ctx, page, device, fz_identity, &cookie);
        fz_close_device(ctx, device);
        info->errors = cookie.errors;
    }
    fz_always(ctx)
    {
        fz_drop_device(ctx, device);
        fz_drop_page(ctx, page);
    }
    fz_catch(ctx)
    {
        fz_drop_display_list(ctx, list);
        gm_record_error(ctx, error);
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
        fz_run_display_list(ctx, list, device, fz_scale(zoom, zoom), fz_rect_from_irect(rect),
                            cookie ? &cookie->cookie : NULL);
        fz_close_device(ctx, device);
    }
    fz_always(ctx)
    {
        fz_drop_device(ctx, device);
        fz_drop_pixmap(ctx, pixmap);
    }
    fz_catch(ctx)
    {
        gm_record_error(ctx, error);
        return -1;
    }
    if (cookie && cookie->cookie.abort) {
        gm_set_error(error, GM_ERROR_ABORT, "rendering was cancelled");
        return -1;
    }
    return 0;
}
