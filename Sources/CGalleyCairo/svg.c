// SVG pictures drawn onto cairo by librsvg, for the vector painter: a picture that is SVG in
// the article goes into the PDF as paths and text, where the page images draw MuPDF's bitmap
// of it. Compiled here so that no module header shows Swift glib's declarations.
#include "CGalleyCairo.h"

#include <librsvg/rsvg.h>
#include <string.h>

// librsvg reports what it cannot draw through glib's log, which would print to the run's
// standard error beside its own report; the caller falls back to the bitmap and says nothing
// is lost, so the messages are dropped.
static void galley_svg_quiet(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

static void copy_message(char *message, size_t size, const char *text) {
    if (size == 0) return;
    strncpy(message, text ? text : "unknown error", size - 1);
    message[size - 1] = '\0';
}

int galley_cairo_draw_svg(cairo_t *cr, const unsigned char *bytes, size_t length,
                          double x, double y, double width, double height,
                          char *message, size_t messageSize) {
    static gsize quieted = 0;
    if (g_once_init_enter(&quieted)) {
        g_log_set_handler("librsvg", G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, galley_svg_quiet, NULL);
        g_once_init_leave(&quieted, 1);
    }
    // librsvg's contract: data and a length that fits a gssize; a viewport of finite size.
    if (cr == NULL || bytes == NULL || length == 0 || length > (size_t)G_MAXSSIZE
        || !(width > 0) || !(height > 0) || width > 1e7 || height > 1e7) {
        copy_message(message, messageSize, "no picture to draw");
        return 1;
    }
    GError *error = NULL;
    // From memory, with no base file: references to other files (`<image href="a.png">`,
    // external entities) resolve to nothing, so a picture reads only its own bytes.
    RsvgHandle *handle = rsvg_handle_new_from_data(bytes, (gsize)length, &error);
    if (handle == NULL) {
        copy_message(message, messageSize, error ? error->message : NULL);
        if (error) g_error_free(error);
        return 1;
    }
    RsvgRectangle viewport = {x, y, width, height};
    gboolean drawn = rsvg_handle_render_document(handle, cr, &viewport, &error);
    if (!drawn) copy_message(message, messageSize, error ? error->message : NULL);
    if (error) g_error_free(error);
    g_object_unref(handle);
    return drawn ? 0 : 1;
}
