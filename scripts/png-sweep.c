/* Times Galley's PNG encoders on page pixels, for scripts/sweep-png.py (which builds this
 * file against Sources/CGalleyPNG and feeds it PPMs drawn by mutool).
 *
 *   png-sweep SETTINGS FILE.ppm...
 *
 * SETTINGS is a comma-separated list of encoder settings, each one of
 *   d<level>:<filter>:<few-colours filter>[:rgb|:p<effort>]   the whole-image writer (libdeflate
 *                                      level 0-12; filters 0-4 None..Paeth, 5 adaptive, the second
 *                                      for images of at most 2048 colours; ":rgb" turns colour-type
 *                                      reduction and colour counting off; ":p1" to ":p3" compress
 *                                      images of at most 2048 colours with page_deflate.c's encoder
 *                                      at that effort instead of libdeflate)
 *   z<level>:<libpng filter bits>              the streaming libpng/zlib writer (banded pages)
 * and for each it prints one line: the settings, CPU seconds (one thread, best of 3 passes
 * over all files), total bytes, and how many images were stored as grey, palette and RGB.
 * Every PNG of the first pass is decoded again (libpng, through the shim) and compared with
 * the PPM's pixels; a difference stops the sweep with status 1. */
#include "CGalleyPNG.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { int width, height; unsigned char *pixels; } ppm;

static int read_ppm(const char *path, ppm *image)
{
    FILE *f = fopen(path, "rb");
    int maxval = 0;
    if (!f || fscanf(f, "P6 %d %d %d", &image->width, &image->height, &maxval) != 3 || maxval != 255
        || fgetc(f) == EOF) {
        if (f) fclose(f);
        return -1;
    }
    size_t size = (size_t)image->width * image->height * 3;
    image->pixels = malloc(size);
    int ok = image->pixels && fread(image->pixels, 1, size, f) == size;
    fclose(f);
    return ok ? 0 : -1;
}

/* Whether a PNG decodes to exactly the image's pixels. */
static int same_pixels(const unsigned char *png, size_t length, const ppm *image)
{
    char error[256];
    int width = 0, height = 0;
    if (gp_decode_size(png, length, &width, &height, error, sizeof error) != 0
        || width != image->width || height != image->height)
        return 0;
    size_t size = (size_t)width * height * 3;
    unsigned char *decoded = malloc(size);
    int same = decoded && gp_decode_rgb(png, length, width, height, decoded, error, sizeof error) == 0
               && memcmp(decoded, image->pixels, size) == 0;
    free(decoded);
    return same;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: png-sweep SETTINGS FILE.ppm...\n");
        return 2;
    }
    int count = argc - 2;
    ppm *images = calloc((size_t)count, sizeof *images);
    for (int i = 0; i < count; i++)
        if (read_ppm(argv[i + 2], &images[i]) != 0) {
            fprintf(stderr, "png-sweep: cannot read %s\n", argv[i + 2]);
            return 1;
        }
    char *list = strdup(argv[1]);
    for (char *setting = strtok(list, ","); setting; setting = strtok(NULL, ",")) {
        double best = 1e30;
        size_t bytes = 0;
        int forms[7] = {0};
        for (int pass = 0; pass < 3; pass++) {
            double start = now();
            bytes = 0;
            memset(forms, 0, sizeof forms);
            for (int i = 0; i < count; i++) {
                char error[256];
                if (setting[0] == 'd') {
                    gp_image_options o = {0};
                    char rgb[8] = "";
                    sscanf(setting + 1, "%d:%d:%d:%7s", &o.level, &o.filter, &o.few_colours_filter, rgb);
                    o.reduce = strcmp(rgb, "rgb") != 0;
                    if (rgb[0] == 'p')
                        o.page_deflate = atoi(rgb + 1);
                    o.pixels_per_metre = 5906;
                    gp_encoded e;
                    if (gp_encode_image(images[i].pixels, images[i].width, images[i].height,
                                        (size_t)images[i].width * 3, 3, &o, NULL, 0, &e, error, sizeof error)) {
                        fprintf(stderr, "png-sweep: %s\n", error);
                        return 1;
                    }
                    bytes += e.length;
                    forms[e.colour_type]++;
                    if (pass == 0 && !same_pixels(e.bytes, e.length, &images[i])) {
                        fprintf(stderr, "png-sweep: %s of %s decodes to other pixels\n", setting, argv[i + 2]);
                        return 1;
                    }
                    gp_encoded_free(&e);
                } else {
                    gp_options o = {0, 0, 0, 5906};
                    sscanf(setting + 1, "%d:%i", &o.zlib_level, &o.filters);
                    gp_writer *w = gp_writer_new(images[i].width, images[i].height, 3, &o, NULL, 0, error, sizeof error);
                    size_t length = 0;
                    if (!w || gp_writer_write_rows(w, images[i].pixels, (size_t)images[i].width * 3, images[i].height)
                        || gp_writer_finish(w)) {
                        fprintf(stderr, "png-sweep: libpng failed\n");
                        return 1;
                    }
                    gp_writer_bytes(w, &length);
                    bytes += length;
                    forms[2]++;
                    gp_writer_free(w);
                }
            }
            double seconds = now() - start;
            if (seconds < best)
                best = seconds;
        }
        printf("%s %.3f %zu %d %d %d\n", setting, best, bytes, forms[0], forms[3], forms[2]);
        fflush(stdout);
    }
    return 0;
}
