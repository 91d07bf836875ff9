/* Pages recorded as display lists, and the cookies that abort them. */
#include "internal.h"

#include <math.h>
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Whether the cookie was aborted. Read atomically: another thread may be storing to it (a
   plain read here was a data race the thread sanitizer reported). */
int gm_cookie_aborted(gm_cookie *cookie)
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
           the caller says (every 256th page it records from this document, PDFDocument.cacheDropInterval): the shared objects
           dropped with them (the page tree's nodes, whose /Kids may list thousands of pages)
           are parsed again by the next page. A count of the caller's, not the page number:
           a page lane records every nth page, and `number % 256` would never come round for
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

int gm_page_load(fz_context *ctx, fz_document *doc, int number, int drop_cached, fz_page **out,
                 gm_page_info *info, gm_error *error)
{
    fz_page *page = NULL;
    fz_var(page);
    *out = NULL;
    fz_try(ctx)
    {
        /* As gm_page_record's, before loading rather than after: the page loaded here is
           held until it is drawn, and the previous one is already dropped. */
        pdf_document *pdf = pdf_specifics(ctx, doc);
        if (pdf && drop_cached)
            pdf_clear_xref(ctx, pdf);
        page = fz_load_page(ctx, doc, number);
        gm_page_bounds(ctx, page, info);
    }
    fz_catch(ctx)
    {
        fz_drop_page(ctx, page);
        gm_record_error(ctx, error);
        return -1;
    }
    *out = page;
    return 0;
}

void gm_page_free(fz_context *ctx, fz_page *page)
{
    fz_drop_page(ctx, page);
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
