/* Picture files for articles: SVG checked and drawn, raster images decoded and reduced. */
#include "internal.h"

#include <math.h>
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
