// A PNG decoded straight to a reduced size: libpng hands it over a row at a time and each row
// is added into one row of sums, so a 6,300 px picture drawn in a 500 px column costs its
// reduced pixels and one row, never its full size (MuPDF's PNG loader inflates the whole image
// and then holds it as a pixmap: twice its pixels before it could be reduced).

#include "CGalleyPNG.h"

#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct gp_source {
    const unsigned char *data;
    size_t length;
    size_t offset;
} gp_source;

static void gp_reduce_read(png_structp png, png_bytep out, png_size_t count)
{
    gp_source *source = png_get_io_ptr(png);
    if (source->length - source->offset < count)
        png_error(png, "the PNG is cut short");
    memcpy(out, source->data + source->offset, count);
    source->offset += count;
}

static void gp_reduce_error(png_structp png, png_const_charp message)
{
    (void)message;
    png_longjmp(png, 1);
}

static void gp_reduce_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

/* (a * b + 127) / 255 as MuPDF's fz_mul255 rounds it. */
static inline unsigned gp_mul255(unsigned a, unsigned b)
{
    unsigned x = a * b + 128;
    return (x + (x >> 8)) >> 8;
}

int gp_decode_reduced(const unsigned char *data, size_t length, size_t max_pixels, int max_width, int max_height,
                      int keeps_aspect, int *width, int *height, int *source_width, int *source_height,
                      unsigned char **pixels)
{
    *pixels = NULL;
    if (max_width <= 0 || max_height <= 0 || length < 8 || png_sig_cmp(data, 0, 8) != 0)
        return 0;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, gp_reduce_error, gp_reduce_warning);
    if (!png)
        return 0;
    png_infop info = png_create_info_struct(png);
    gp_source source = {data, length, 0};
    unsigned char *volatile row = NULL;
    uint32_t *volatile sums = NULL;
    unsigned char *volatile out = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        free(row);
        free(sums);
        free(out);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        return 0;
    }
    png_set_read_fn(png, &source, gp_reduce_read);
    png_read_info(png, info);
    png_uint_32 W = png_get_image_width(png, info), H = png_get_image_height(png, info);
    /* Interlaced rows come in passes, and a colour profile is MuPDF's to apply: both are left
       to MuPDF, as is anything over the pixel limit (refused there with its message). */
    if (W == 0 || H == 0 || (size_t)W * H > max_pixels || png_get_interlace_type(png, info) != PNG_INTERLACE_NONE
        || png_get_valid(png, info, PNG_INFO_iCCP))
        png_longjmp(png, 1);
    double across = (double)W / max_width, down = (double)H / max_height;
    double factor = keeps_aspect ? (across > down ? across : down) : (across < down ? across : down);
    if (!(factor >= 2))
        png_longjmp(png, 1);
    int reduction = factor > 1e6 ? 1000000 : (int)factor;
    int w = (int)((W + reduction - 1) / reduction), h = (int)((H + reduction - 1) / reduction);
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)W * 4)
        png_longjmp(png, 1);
    row = malloc((size_t)W * 4);
    sums = calloc((size_t)w * 5, sizeof(uint32_t));
    out = malloc((size_t)w * h * 4);
    if (!row || !sums || !out)
        png_longjmp(png, 1);
    int target_row = 0;
    for (png_uint_32 y = 0; y <= H; y++) {
        int target = y < H ? (int)((uint64_t)y * h / H) : h;
        if (target != target_row) {
            unsigned char *to = out + (size_t)target_row * w * 4;
            for (int x = 0; x < w; x++) {
                uint32_t *sum = sums + (size_t)x * 5, count = sum[4];
                for (int c = 0; c < 4; c++)
                    to[x * 4 + c] = count ? (unsigned char)((sum[c] + count / 2) / count) : 0;
            }
            memset(sums, 0, (size_t)w * 5 * sizeof(uint32_t));
            target_row = target;
        }
        if (y == H)
            break;
        png_read_row(png, row, NULL);
        const unsigned char *from = row;
        for (png_uint_32 x = 0; x < W; x++, from += 4) {
            uint32_t *sum = sums + (size_t)((uint64_t)x * w / W) * 5;
            unsigned a = from[3];
            /* Premultiplied, as MuPDF's pixmaps are. */
            sum[0] += gp_mul255(from[0], a);
            sum[1] += gp_mul255(from[1], a);
            sum[2] += gp_mul255(from[2], a);
            sum[3] += a;
            sum[4] += 1;
        }
    }
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    free(sums);
    *width = w;
    *height = h;
    *source_width = (int)W;
    *source_height = (int)H;
    *pixels = out;
    return 1;
}
