/* The engine: MuPDF's contexts, locks, allocator and error reporting. */
/* For PTHREAD_MUTEX_ADAPTIVE_NP, glibc's spinning mutex. */
#define _GNU_SOURCE
#include "internal.h"

#include <math.h>
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* MuPDF's locks: glibc's adaptive mutexes (they spin a little before sleeping), one per cache
   line.

   MuPDF takes FZ_LOCK_ALLOC around every allocation and free and around every reference
   count change of a shared object (a glyph, a font, an image): thumbnails of 480 pages of
   Debian manuals took it 10.3 million times, 21,000 times a page. When every drawing thread
   shared one engine, the lock and unlock were 21% of that run's CPU in `perf`, and a
   hand-written futex lock still 16%: the cost was the two cores passing the lock's line back
   and forth, not the lock's code. Since the run draws a PDF in page lanes, each engine is
   used by one thread at a time and the lock stays in its core's cache; with lanes the futex
   lock and these mutexes measured the same (thumbnails of those pages, three alternating
   runs: 1.36-1.52 s against 1.31-1.69 s), so the library's lock is kept. Each lock has a
   cache line of its own (three pthread mutexes would share two). */
typedef struct gm_lock_word {
    _Alignas(64) pthread_mutex_t mutex;
} gm_lock_word;

struct gm_engine {
    gm_lock_word locks_words[FZ_LOCK_MAX];
    fz_context *base;
    fz_locks_context locks;
};

void gm_record_error(fz_context *ctx, gm_error *error)
{
    if (!error)
        return;
    /* fz_caught() is often 0 after open failures in 1.21; keep the message regardless. */
    int code = fz_caught(ctx);
    error->code = code ? code : GM_ERROR_GENERIC;
    const char *message = fz_caught_message(ctx);
    snprintf(error->message, sizeof error->message, "%s", message ? message : "unknown MuPDF error");
}

void gm_set_error(gm_error *error, int code, const char *message)
{
    if (!error)
        return;
    error->code = code;
    snprintf(error->message, sizeof error->message, "%s", message);
}

static void gm_lock(void *user, int lock)
{
    struct gm_engine *engine = user;
    pthread_mutex_lock(&engine->locks_words[lock].mutex);
}

static void gm_unlock(void *user, int lock)
{
    struct gm_engine *engine = user;
    pthread_mutex_unlock(&engine->locks_words[lock].mutex);
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


/* No single MuPDF allocation may exceed this. A damaged image header (a PNG inside an SVG, an
   image in a PDF) can claim billions of pixels, and MuPDF allocates the whole image before it
   decodes a byte (found by FuzzImage: 2.2 GB for a 282 x 16M PNG in an SVG). A refused
   allocation becomes MuPDF's own "malloc failed" error, which fails that picture or page alone.
   512 MiB is a 11,500 px square RGBA image: pages are drawn in bands far smaller than that. */
#define GM_MAXIMUM_ALLOCATION ((size_t)512 << 20)

static void *gm_malloc(void *user, size_t size)
{
    (void)user;
    return size > GM_MAXIMUM_ALLOCATION ? NULL : malloc(size);
}

static void *gm_realloc(void *user, void *old, size_t size)
{
    (void)user;
    return size > GM_MAXIMUM_ALLOCATION ? NULL : realloc(old, size);
}

static void gm_free(void *user, void *pointer)
{
    (void)user;
    free(pointer);
}

static const fz_alloc_context gm_allocator = { NULL, gm_malloc, gm_realloc, gm_free };

gm_engine *gm_engine_new(size_t store_bytes, gm_error *error)
{
    /* Aligned for the locks' cache lines; zeroed, which is every lock free. */
    gm_engine *engine = aligned_alloc(64, sizeof *engine);
    if (engine)
        memset(engine, 0, sizeof *engine);
    if (!engine) {
        gm_set_error(error, GM_ERROR_MEMORY, "out of memory creating the MuPDF engine");
        return NULL;
    }
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_ADAPTIVE_NP);
    for (int i = 0; i < FZ_LOCK_MAX; i++)
        pthread_mutex_init(&engine->locks_words[i].mutex, &attributes);
    pthread_mutexattr_destroy(&attributes);
    engine->locks.user = engine;
    engine->locks.lock = gm_lock;
    engine->locks.unlock = gm_unlock;
    engine->base = fz_new_context(&gm_allocator, &engine->locks, store_bytes);
    if (!engine->base) {
        for (int i = 0; i < FZ_LOCK_MAX; i++)
            pthread_mutex_destroy(&engine->locks_words[i].mutex);
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
        pthread_mutex_destroy(&engine->locks_words[i].mutex);
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
