#include "CGalleyPNG.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gp_writer {
    png_structp png;
    png_infop info;
    int height;
    int rows_written;
    unsigned char *bytes;
    size_t length;
    size_t capacity;
    char error[256];
};

static void gp_on_error(png_structp png, png_const_charp message)
{
    struct gp_writer *writer = png_get_error_ptr(png);
    snprintf(writer->error, sizeof writer->error, "libpng: %s", message);
    png_longjmp(png, 1);
}

static void gp_on_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static void gp_on_write(png_structp png, png_bytep data, png_size_t length)
{
    struct gp_writer *writer = png_get_io_ptr(png);
    if (writer->length + length > writer->capacity) {
        size_t capacity = writer->capacity ? writer->capacity : 64 * 1024;
        while (capacity < writer->length + length)
            capacity *= 2;
        unsigned char *grown = realloc(writer->bytes, capacity);
        if (!grown)
            png_error(png, "out of memory for the encoded image");
        writer->bytes = grown;
        writer->capacity = capacity;
    }
    memcpy(writer->bytes + writer->length, data, length);
    writer->length += length;
}

static void gp_on_flush(png_structp png)
{
    (void)png;
}

gp_writer *gp_writer_new(int width, int height, int channels, const gp_options *options,
                         const gp_text *texts, int text_count, char *error, size_t error_size)
{
    if (width <= 0 || height <= 0 || (channels != 3 && channels != 4)) {
        snprintf(error, error_size, "invalid image geometry %dx%dx%d", width, height, channels);
        return NULL;
    }
    struct gp_writer *writer = calloc(1, sizeof *writer);
    if (!writer) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    writer->height = height;
    writer->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, writer, gp_on_error, gp_on_warning);
    if (!writer->png) {
        snprintf(error, error_size, "libpng: cannot create writer");
        free(writer);
        return NULL;
    }
    writer->info = png_create_info_struct(writer->png);
    if (!writer->info) {
        snprintf(error, error_size, "libpng: cannot create info");
        gp_writer_free(writer);
        return NULL;
    }
    if (setjmp(png_jmpbuf(writer->png))) {
        snprintf(error, error_size, "%s", writer->error);
        gp_writer_free(writer);
        return NULL;
    }
    png_set_write_fn(writer->png, writer, gp_on_write, gp_on_flush);
    png_set_compression_level(writer->png, options->zlib_level);
    png_set_compression_strategy(writer->png, options->zlib_strategy);
    png_set_filter(writer->png, PNG_FILTER_TYPE_BASE, options->filters);
    /* Larger IDAT chunks: fewer chunk headers and CRCs, same pixels. */
    png_set_compression_buffer_size(writer->png, 256 * 1024);
    png_set_IHDR(writer->png, writer->info, (png_uint_32)width, (png_uint_32)height, 8,
                 channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    if (options->pixels_per_metre)
        png_set_pHYs(writer->png, writer->info, options->pixels_per_metre, options->pixels_per_metre,
                     PNG_RESOLUTION_METER);
    if (text_count > 0) {
        png_text *chunks = calloc((size_t)text_count, sizeof(png_text));
        if (!chunks)
            png_error(writer->png, "out of memory for text chunks");
        for (int i = 0; i < text_count; i++) {
            chunks[i].compression = PNG_TEXT_COMPRESSION_NONE;
            chunks[i].key = (png_charp)texts[i].key;
            chunks[i].text = (png_charp)texts[i].value;
        }
        png_set_text(writer->png, writer->info, chunks, text_count);
        free(chunks);
    }
    png_write_info(writer->png, writer->info);
    return writer;
}

int gp_writer_write_rows(gp_writer *writer, const unsigned char *rows, size_t stride, int count)
{
    if (writer->rows_written + count > writer->height) {
        snprintf(writer->error, sizeof writer->error, "more rows than the image height");
        return -1;
    }
    if (setjmp(png_jmpbuf(writer->png)))
        return -1;
    for (int i = 0; i < count; i++)
        png_write_row(writer->png, (png_const_bytep)(rows + (size_t)i * stride));
    writer->rows_written += count;
    return 0;
}

int gp_writer_finish(gp_writer *writer)
{
    if (writer->rows_written != writer->height) {
        snprintf(writer->error, sizeof writer->error, "image has %d of %d rows",
                 writer->rows_written, writer->height);
        return -1;
    }
    if (setjmp(png_jmpbuf(writer->png)))
        return -1;
    png_write_end(writer->png, writer->info);
    return 0;
}

const unsigned char *gp_writer_bytes(const gp_writer *writer, size_t *length)
{
    *length = writer->length;
    return writer->bytes;
}

const char *gp_writer_error(const gp_writer *writer)
{
    return writer->error;
}

void gp_writer_free(gp_writer *writer)
{
    if (!writer)
        return;
    if (writer->png)
        png_destroy_write_struct(&writer->png, writer->info ? &writer->info : NULL);
    free(writer->bytes);
    free(writer);
}
