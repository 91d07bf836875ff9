#include "CGalleyJPEG.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/// libjpeg's error manager, extended with where to jump and the message.
struct gj_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
};

struct gj_writer {
    struct jpeg_compress_struct cinfo;
    struct gj_error error_manager;
    struct jpeg_destination_mgr destination;
    int started;  /* jpeg_start_compress has run */
    int failed;   /* a libjpeg call failed: the writer can only be freed */
    int height;
    int rows_written;
    unsigned char *bytes;
    size_t length;
    size_t capacity;
    char error[JMSG_LENGTH_MAX + 16];
};

static void gj_on_error(j_common_ptr cinfo)
{
    struct gj_writer *writer = cinfo->client_data;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    snprintf(writer->error, sizeof writer->error, "libjpeg: %s", message);
    longjmp(writer->error_manager.jump, 1);
}

/// Warnings (libjpeg prints them on stderr by default) are dropped: none changes the bytes.
static void gj_on_message(j_common_ptr cinfo)
{
    (void)cinfo;
}

/// The destination: one buffer owned by the writer, grown by doubling.
static int gj_grow(struct gj_writer *writer)
{
    size_t capacity = writer->capacity ? writer->capacity * 2 : 64 * 1024;
    unsigned char *grown = realloc(writer->bytes, capacity);
    if (!grown)
        return -1;
    writer->bytes = grown;
    writer->destination.next_output_byte = grown + writer->capacity;
    writer->destination.free_in_buffer = capacity - writer->capacity;
    writer->capacity = capacity;
    return 0;
}

static void gj_init_destination(j_compress_ptr cinfo)
{
    struct gj_writer *writer = cinfo->client_data;
    writer->length = 0;
    if (writer->capacity == 0 && gj_grow(writer) != 0)
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    writer->destination.next_output_byte = writer->bytes;
    writer->destination.free_in_buffer = writer->capacity;
}

/// Called when the buffer is full (all of it is output so far).
static boolean gj_empty_output_buffer(j_compress_ptr cinfo)
{
    struct gj_writer *writer = cinfo->client_data;
    if (gj_grow(writer) != 0)
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    return TRUE;
}

static void gj_term_destination(j_compress_ptr cinfo)
{
    struct gj_writer *writer = cinfo->client_data;
    writer->length = writer->capacity - writer->destination.free_in_buffer;
}

gj_writer *gj_writer_new(int width, int height, const gj_options *options, char *error, size_t error_size)
{
    if (width <= 0 || height <= 0 || width > GJ_MAX_DIMENSION || height > GJ_MAX_DIMENSION) {
        snprintf(error, error_size, "a JPEG is 1 to %d pixels on each side, not %dx%d", GJ_MAX_DIMENSION, width, height);
        return NULL;
    }
    if (!options || options->quality < 0 || options->quality > 100 || options->dpi > 65535) {
        snprintf(error, error_size, "invalid JPEG settings");
        return NULL;
    }
    struct gj_writer *writer = calloc(1, sizeof *writer);
    if (!writer) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    writer->height = height;
    writer->cinfo.err = jpeg_std_error(&writer->error_manager.pub);
    writer->error_manager.pub.error_exit = gj_on_error;
    writer->error_manager.pub.output_message = gj_on_message;
    writer->cinfo.client_data = writer;
    if (setjmp(writer->error_manager.jump)) {
        snprintf(error, error_size, "%s", writer->error);
        gj_writer_free(writer);
        return NULL;
    }
    jpeg_create_compress(&writer->cinfo);
    writer->destination.init_destination = gj_init_destination;
    writer->destination.empty_output_buffer = gj_empty_output_buffer;
    writer->destination.term_destination = gj_term_destination;
    writer->cinfo.dest = &writer->destination;

    writer->cinfo.image_width = (JDIMENSION)width;
    writer->cinfo.image_height = (JDIMENSION)height;
    writer->cinfo.input_components = 3;
    writer->cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&writer->cinfo);
    // quality 0 is libjpeg's 1 (jpeg_set_quality raises it); baseline tables (values <= 255).
    jpeg_set_quality(&writer->cinfo, options->quality, TRUE);
    writer->cinfo.dct_method = JDCT_ISLOW;
    writer->cinfo.optimize_coding = options->optimize ? TRUE : FALSE;
    if (options->chroma444) {
        writer->cinfo.comp_info[0].h_samp_factor = 1;
        writer->cinfo.comp_info[0].v_samp_factor = 1;
    }
    if (options->progressive)
        jpeg_simple_progression(&writer->cinfo);
    writer->cinfo.write_JFIF_header = TRUE;
    if (options->dpi) {
        writer->cinfo.density_unit = 1;
        writer->cinfo.X_density = (UINT16)options->dpi;
        writer->cinfo.Y_density = (UINT16)options->dpi;
    } else {
        writer->cinfo.density_unit = 0;
        writer->cinfo.X_density = 1;
        writer->cinfo.Y_density = 1;
    }
    jpeg_start_compress(&writer->cinfo, TRUE);
    writer->started = 1;
    return writer;
}

int gj_writer_write_rows(gj_writer *writer, const unsigned char *rows, size_t stride, int count)
{
    if (writer->failed)
        return -1;
    if (count < 0 || count > writer->height - writer->rows_written || !rows
        || stride < (size_t)writer->cinfo.image_width * 3) {
        snprintf(writer->error, sizeof writer->error, "%d rows of stride %zu do not fit the image (%d of %d rows written)",
                 count, stride, writer->rows_written, writer->height);
        return -1;
    }
    if (setjmp(writer->error_manager.jump)) {
        writer->failed = 1;
        return -1;
    }
    JSAMPROW pointers[64];
    int done = 0;
    while (done < count) {
        int batch = count - done < 64 ? count - done : 64;
        for (int i = 0; i < batch; i++)
            pointers[i] = (JSAMPROW)(rows + (size_t)(done + i) * stride);
        JDIMENSION written = jpeg_write_scanlines(&writer->cinfo, pointers, (JDIMENSION)batch);
        if ((int)written != batch) {
            snprintf(writer->error, sizeof writer->error, "libjpeg took %u of %d rows", written, batch);
            writer->failed = 1;
            return -1;
        }
        done += batch;
        writer->rows_written += batch;
    }
    return 0;
}

int gj_writer_finish(gj_writer *writer)
{
    if (writer->failed)
        return -1;
    if (writer->rows_written != writer->height) {
        snprintf(writer->error, sizeof writer->error, "%d of %d rows written", writer->rows_written, writer->height);
        return -1;
    }
    if (setjmp(writer->error_manager.jump)) {
        writer->failed = 1;
        return -1;
    }
    jpeg_finish_compress(&writer->cinfo);
    writer->started = 0;
    return 0;
}

const unsigned char *gj_writer_bytes(const gj_writer *writer, size_t *length)
{
    *length = writer->length;
    return writer->bytes;
}

const char *gj_writer_error(const gj_writer *writer)
{
    return writer->error;
}

void gj_writer_free(gj_writer *writer)
{
    if (!writer)
        return;
    // jpeg_destroy_compress only frees libjpeg's own pools: it cannot fail.
    jpeg_destroy_compress(&writer->cinfo);
    free(writer->bytes);
    free(writer);
}

/// The decoder's state, so that gj_decode's error path can free what it made.
struct gj_reader {
    struct jpeg_decompress_struct cinfo;
    struct gj_error error_manager;
    unsigned char *pixels;
    char error[JMSG_LENGTH_MAX + 16];
};

static void gj_on_read_error(j_common_ptr cinfo)
{
    struct gj_reader *reader = cinfo->client_data;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    snprintf(reader->error, sizeof reader->error, "libjpeg: %s", message);
    longjmp(reader->error_manager.jump, 1);
}

int gj_decode(const unsigned char *data, size_t length, size_t max_pixels, unsigned char **pixels, int *width,
              int *height, char *error, size_t error_size)
{
    *pixels = NULL;
    if (!data || length == 0 || length > (unsigned long)-1) {
        snprintf(error, error_size, "no JPEG data");
        return -1;
    }
    struct gj_reader *reader = calloc(1, sizeof *reader);
    if (!reader) {
        snprintf(error, error_size, "out of memory");
        return -1;
    }
    reader->cinfo.err = jpeg_std_error(&reader->error_manager.pub);
    reader->error_manager.pub.error_exit = gj_on_read_error;
    reader->error_manager.pub.output_message = gj_on_message;
    reader->cinfo.client_data = reader;
    if (setjmp(reader->error_manager.jump)) {
        snprintf(error, error_size, "%s", reader->error);
        jpeg_destroy_decompress(&reader->cinfo);
        free(reader->pixels);
        free(reader);
        return -1;
    }
    jpeg_create_decompress(&reader->cinfo);
    jpeg_mem_src(&reader->cinfo, data, (unsigned long)length);
    jpeg_read_header(&reader->cinfo, TRUE);
    reader->cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&reader->cinfo);
    size_t w = reader->cinfo.output_width, h = reader->cinfo.output_height;
    if (reader->cinfo.output_components != 3 || w == 0 || h == 0 || w > max_pixels / h) {
        snprintf(reader->error, sizeof reader->error, "a JPEG of %zux%zu pixels is over the %zu asked for", w, h, max_pixels);
        longjmp(reader->error_manager.jump, 1);
    }
    reader->pixels = malloc(w * h * 3);
    if (!reader->pixels)
        ERREXIT(&reader->cinfo, JERR_OUT_OF_MEMORY);
    while (reader->cinfo.output_scanline < h) {
        JSAMPROW row = reader->pixels + (size_t)reader->cinfo.output_scanline * w * 3;
        if (jpeg_read_scanlines(&reader->cinfo, &row, 1) != 1) {
            snprintf(reader->error, sizeof reader->error, "the JPEG ends after %u of %zu rows", reader->cinfo.output_scanline, h);
            longjmp(reader->error_manager.jump, 1);
        }
    }
    jpeg_finish_decompress(&reader->cinfo);
    jpeg_destroy_decompress(&reader->cinfo);
    *pixels = reader->pixels;
    *width = (int)w;
    *height = (int)h;
    free(reader);
    return 0;
}

int gj_version(void)
{
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
    return LIBJPEG_TURBO_VERSION_NUMBER;
#else
    return JPEG_LIB_VERSION;
#endif
}

int gj_dimensions(const unsigned char *data, size_t length, int *width, int *height)
{
    if (!data || length < 4 || data[0] != 0xFF || data[1] != 0xD8)
        return -1;
    size_t i = 2;
    while (i + 4 <= length) {
        if (data[i] != 0xFF)
            return -1;
        unsigned char marker = data[i + 1];
        if (marker == 0xFF) { /* fill byte */
            i++;
            continue;
        }
        size_t segment = ((size_t)data[i + 2] << 8) | data[i + 3];
        // SOF0...SOF15 but DHT (C4), JPG (C8) and DAC (CC) carry the frame's size.
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
            if (segment < 7 || i + 2 + segment > length)
                return -1;
            *height = (data[i + 5] << 8) | data[i + 6];
            *width = (data[i + 7] << 8) | data[i + 8];
            return *width > 0 && *height > 0 ? 0 : -1;
        }
        if (marker == 0xD9 || marker == 0xDA || segment < 2) /* EOI, SOS before any frame */
            return -1;
        i += 2 + segment;
    }
    return -1;
}
