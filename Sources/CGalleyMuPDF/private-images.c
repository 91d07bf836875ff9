/* Deterministic image drawing: each drawing decodes the images it draws itself. */
#include "internal.h"

#include <limits.h>
#include <math.h>
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

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

/* Declared in internal.h: set by gm_render_rgb for the length of its call. */
_Thread_local fz_irect gm_drawn_area;

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

/*
 * Flate images inflated without zlib's checksum.
 *
 * A scan's 9,000 px Flate image is 243 MB inflated for every drawing of its page. MuPDF's flate
 * filter runs zlib over it 4 KB of output at a time, and zlib sums every byte for the stream's
 * Adler-32 trailer, which MuPDF then ignores when it does not match ("ignoring zlib error:
 * incorrect data check"): in `perf`, adler32 was 15% of a thumbnails run of the scans and 9% of
 * a page-image run. Here the same bytes come from a raw inflate (the two header bytes skipped,
 * the trailer never read) 64 KB at a time, and MuPDF's own decoder
 * (fz_decomp_image_from_stream: predictor, subarea, subsampling, decode arrays) does the rest,
 * so the pixels are those of MuPDF's path. A stream is inflated the same way to its end or to
 * the same error: MuPDF's filter stops quietly at the end of the input and at a data error
 * with no input left, and throws on any other error, as this one does. Only streams whose
 * header asks for nothing but a 32 KB window take this path (a preset dictionary or a smaller
 * window would change what zlib accepts); the others, and every other kind of image, go
 * through MuPDF's own.
 *
 * The rows are then averaged into the size the drawing needs as they are inflated
 * (gm_decode_rows), with MuPDF's arithmetic: on the scan's letter page, thumbnails took 0.050 s
 * of CPU for the 9,000 px image against 0.188 s through MuPDF's filter and subsampling stream,
 * the 150 dpi page image 0.128 s against 0.238 s, the pixels byte for byte the same
 * (FlateImageTests compares the two paths).
 */
typedef struct gm_inflate_state {
    z_stream z;
    const unsigned char *input;
    size_t remaining;
    unsigned char output[1 << 16];
} gm_inflate_state;

static int gm_inflate_next(fz_context *ctx, fz_stream *stm, size_t required)
{
    (void)required;
    gm_inflate_state *state = stm->state;
    z_streamp z = &state->z;
    if (stm->eof)
        return EOF;
    z->next_out = state->output;
    z->avail_out = sizeof state->output;
    while (z->avail_out > 0) {
        if (z->avail_in == 0 && state->remaining > 0) {
            uInt part = state->remaining > UINT_MAX ? UINT_MAX : (uInt)state->remaining;
            z->next_in = (Bytef *)state->input;
            z->avail_in = part;
            state->input += part;
            state->remaining -= part;
        }
        int code = inflate(z, Z_SYNC_FLUSH);
        /* As MuPDF's next_flated: the end, the end of the input, or a data error with no input
           left stop the stream; other errors throw. */
        if (code == Z_STREAM_END || code == Z_BUF_ERROR)
            break;
        if (code == Z_DATA_ERROR && z->avail_in == 0 && state->remaining == 0)
            break;
        if (code != Z_OK)
            fz_throw(ctx, FZ_ERROR_GENERIC, "zlib error: %s", z->msg ? z->msg : "unknown");
    }
    size_t made = sizeof state->output - z->avail_out;
    stm->rp = state->output;
    stm->wp = state->output + made;
    stm->pos += (int64_t)made;
    if (made == 0) {
        stm->eof = 1;
        return EOF;
    }
    return *stm->rp++;
}

static void gm_inflate_drop(fz_context *ctx, void *state_)
{
    gm_inflate_state *state = state_;
    inflateEnd(&state->z);
    fz_free(ctx, state);
}

/* The decoding stream of a Flate image whose zlib header asks for a 32 KB window and no
   dictionary, inflated raw and with its predictor; NULL for any other image (MuPDF's path). */
static fz_stream *gm_open_flate_image(fz_context *ctx, fz_image *image)
{
    fz_compressed_buffer *buffer = fz_compressed_image_buffer(ctx, image);
    /* A colour-keyed image with a soft mask is unblended whole by MuPDF (no subsampling). */
    if (!buffer || buffer->params.type != FZ_IMAGE_FLATE || !buffer->buffer || (image->use_colorkey && image->mask))
        return NULL;
    const unsigned char *data = buffer->buffer->data;
    size_t length = buffer->buffer->len;
    if (length < 2 || data[0] != 0x78 || (data[1] & 0x20) || ((data[0] << 8) | data[1]) % 31 != 0)
        return NULL;
    gm_inflate_state *state = fz_malloc_struct(ctx, gm_inflate_state);
    state->input = data + 2;
    state->remaining = length - 2;
    if (inflateInit2(&state->z, -15) != Z_OK) {
        fz_free(ctx, state);
        return NULL;
    }
    fz_stream *stream = fz_new_stream(ctx, state, gm_inflate_next, gm_inflate_drop);
    if (buffer->params.u.flate.predictor <= 1)
        return stream;
    /* The predictor keeps a reference of its own to the stream it reads (as every MuPDF 1.21
       filter does), so this one is dropped whether it opens or throws: kept, it leaked the
       inflate state and its 64 KB buffer on every drawing of such an image (LeakSanitizer, on
       FuzzPDF's seed of a Flate image with a PNG predictor). */
    fz_stream *predicted = NULL;
    fz_var(predicted);
    fz_try(ctx)
        predicted = fz_open_predict(ctx, stream, buffer->params.u.flate.predictor, buffer->params.u.flate.columns,
                                    buffer->params.u.flate.colors, buffer->params.u.flate.bpc);
    fz_always(ctx)
        fz_drop_stream(ctx, stream);
    fz_catch(ctx)
        fz_rethrow(ctx);
    return predicted;
}

/* `rows` (`height` rows of `width` pixels of `n` bytes, packed) averaged into one row of blocks
   of `f` pixels: each output byte the floor of its block's mean, the block narrower at the
   right edge (and `height` under `f` at the bottom): the arithmetic of MuPDF's
   fz_subsample_pixblock (floor of the sum over the pixels there are), summed row by row
   instead of block by block, column by column. */
static void gm_subsample_rows(const unsigned char *rows, int width, int height, int n, int f, uint32_t *sums, unsigned char *out)
{
    size_t values = (size_t)width * (size_t)n;
    memset(sums, 0, values * sizeof *sums);
    for (int y = 0; y < height; y++) {
        const unsigned char *row = rows + (size_t)y * values;
        for (size_t i = 0; i < values; i++)
            sums[i] += row[i];
    }
    for (int x = 0; x < width; x += f) {
        int across = fz_mini(f, width - x);
        uint32_t count = (uint32_t)across * (uint32_t)height;
        const uint32_t *block = sums + (size_t)x * n;
        for (int c = 0; c < n; c++) {
            uint32_t v = 0;
            for (int k = 0; k < across; k++)
                v += block[(size_t)k * n + c];
            *out++ = (unsigned char)(v / count);
        }
    }
}

/* fz_decomp_image_from_stream for the common case, whole image, 8 bits a component, no colour
   key, mask, index or 1-bit mask: `stream`'s rows read a group of 2^l2 at a time and averaged as
   they come (MuPDF's subsampling stream copies each row and averages each block column by
   column, 18% of a thumbnails run of scans in `perf`). Truncated data ends in the same place:
   a group cut short is dropped, and the rows not read are zero, as MuPDF pads them. NULL when
   the image is not of that case (`stream` untouched). */
static fz_pixmap *gm_decode_rows(fz_context *ctx, fz_stream *stream, fz_image *image, const fz_irect *area, int *remaining)
{
    int alpha = image->colorspace == NULL;
    int n = image->n;
    if (image->bpc != 8 || image->use_colorkey || image->imagemask || fz_colorspace_is_indexed(ctx, image->colorspace)
        || area->x0 != 0 || area->y0 != 0 || area->x1 != image->w || area->y1 != image->h
        || (image->colorspace ? fz_colorspace_n(ctx, image->colorspace) : 0) + alpha != n || *remaining < 0 || *remaining > 6)
        return NULL;
    int l2 = *remaining, f = 1 << l2;
    int w = (image->w + f - 1) >> l2, h = (image->h + f - 1) >> l2;
    fz_pixmap *tile = fz_new_pixmap(ctx, image->colorspace, w, h, NULL, alpha);
    unsigned char *group = NULL;
    uint32_t *sums = NULL;
    fz_var(group);
    fz_var(sums);
    fz_try(ctx)
    {
        if (image->interpolate & FZ_PIXMAP_FLAG_INTERPOLATE)
            tile->flags |= FZ_PIXMAP_FLAG_INTERPOLATE;
        else
            tile->flags &= ~FZ_PIXMAP_FLAG_INTERPOLATE;
        size_t stride = (size_t)tile->stride, made = 0, total = stride * (size_t)h;
        if (l2 == 0) {
            made = fz_read(ctx, stream, tile->samples, total);
        } else {
            size_t values = (size_t)image->w * (size_t)n;
            group = fz_malloc(ctx, values * (size_t)f);
            sums = fz_malloc(ctx, values * sizeof *sums);
            for (int y = 0; y < image->h; y += f) {
                int rows = fz_mini(f, image->h - y);
                if (fz_read(ctx, stream, group, values * (size_t)rows) != values * (size_t)rows)
                    break;
                gm_subsample_rows(group, image->w, rows, n, f, sums, tile->samples + made);
                made += stride;
            }
        }
        if (made < total)
            memset(tile->samples + made, 0, total - made);
        if (image->use_decode)
            fz_decode_tile(ctx, tile, image->decode);
        *remaining = 0;
    }
    fz_always(ctx)
    {
        fz_free(ctx, group);
        fz_free(ctx, sums);
    }
    fz_catch(ctx)
    {
        fz_drop_pixmap(ctx, tile);
        fz_rethrow(ctx);
    }
    return tile;
}

/* Whether Flate images take the raw inflate (gm_set_raw_inflate: a test hook). */
static int gm_raw_inflate = 1;

void gm_set_raw_inflate(int on)
{
    __atomic_store_n(&gm_raw_inflate, on, __ATOMIC_RELAXED);
}

/* What image->get_pixmap does for a compressed image (compressed_image_get_pixmap), with a Flate
   image's stream from gm_open_flate_image: the same pixels, the same `area` and `remaining`. */
static fz_pixmap *gm_decode_tile(fz_context *ctx, fz_image *image, fz_irect *area, int w, int h, int *remaining)
{
    fz_stream *stream = __atomic_load_n(&gm_raw_inflate, __ATOMIC_RELAXED) ? gm_open_flate_image(ctx, image) : NULL;
    if (!stream)
        return image->get_pixmap(ctx, image, area, w, h, remaining);
    fz_pixmap *tile = NULL;
    fz_var(stream);
    fz_try(ctx)
    {
        tile = gm_decode_rows(ctx, stream, image, area, remaining);
        if (!tile)
            tile = fz_decomp_image_from_stream(ctx, stream, (fz_compressed_image *)image, area,
                                               fz_colorspace_is_indexed(ctx, image->colorspace), 0, remaining);
    }
    fz_always(ctx)
        fz_drop_stream(ctx, stream);
    fz_catch(ctx)
        fz_rethrow(ctx);
    return tile;
}

/* Test hook: the private decodes of images of one pixel size (gm_count_image_decodes). */
static int gm_counted_width = -1, gm_counted_height = -1, gm_counted = 0;

void gm_count_image_decodes(int width, int height)
{
    __atomic_store_n(&gm_counted, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&gm_counted_width, width, __ATOMIC_RELAXED);
    __atomic_store_n(&gm_counted_height, height, __ATOMIC_RELAXED);
}

int gm_counted_image_decodes(void)
{
    return __atomic_load_n(&gm_counted, __ATOMIC_RELAXED);
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
    fz_pixmap *tile = gm_decode_tile(ctx, image, &area, w, h, &remaining);
    if (image->w == __atomic_load_n(&gm_counted_width, __ATOMIC_RELAXED) && image->h == __atomic_load_n(&gm_counted_height, __ATOMIC_RELAXED))
        __atomic_add_fetch(&gm_counted, 1, __ATOMIC_RELAXED);
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

void gm_use_private_images(fz_device *device)
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
