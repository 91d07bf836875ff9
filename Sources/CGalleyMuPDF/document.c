/* Documents: opening, passwords, page counts, metadata, page facts and text. */
#include "internal.h"

#include <math.h>
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

int gm_open_document_from_memory(fz_context *ctx, const unsigned char *data, size_t length, const char *magic,
                                 fz_document **out, gm_error *error)
{
    fz_buffer *buffer = NULL;
    fz_stream *stream = NULL;
    fz_document *doc = NULL;
    fz_var(buffer);
    fz_var(stream);
    fz_var(doc);
    *out = NULL;
    fz_try(ctx)
    {
        buffer = fz_new_buffer_from_shared_data(ctx, data, length);
        stream = fz_open_buffer(ctx, buffer);
        /* The document keeps its own reference to the stream, and the stream to the buffer. */
        doc = fz_open_document_with_stream(ctx, magic, stream);
    }
    fz_always(ctx)
    {
        fz_drop_stream(ctx, stream);
        fz_drop_buffer(ctx, buffer);
    }
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
fz_rect gm_page_bounds(fz_context *ctx, fz_page *page, gm_page_info *info)
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
