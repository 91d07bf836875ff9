// cairo font faces over FreeType faces of their own, for the vector painter (GalleyText's
// PDFDocumentWriter). Compiled here, not in a module's header: a header that includes
// FreeType's declarations gives Swift a second copy of them beside CFreeType's, and which copy
// a file of GalleyText then sees depends on how the compiler batches its files (moving files
// into folders made FT_GLYPH_FORMAT_OUTLINE vanish from FontFace.swift).
#include "CGalleyCairo.h"

#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H

// Frees a face and the FreeType library made for it alone, when cairo lets go of the font
// face (which may be later than the document that used it: cairo keeps recent fonts).
static void galley_cairo_ft_done(void *face) {
    FT_Library library = ((FT_Face)face)->glyph->library;
    FT_Done_Face((FT_Face)face);
    FT_Done_FreeType(library);
}

// A cairo font face over a FreeType face of its own for `path` at `index` (its own FreeType
// library too: FreeType faces and libraries are not thread-safe, and cairo touches the face
// when it measures and subsets glyphs, whichever thread frees it). NULL when it cannot be
// opened.
cairo_font_face_t *galley_cairo_open_ft_face(const char *path, long index) {
    static cairo_user_data_key_t key;
    FT_Library library;
    if (FT_Init_FreeType(&library) != 0) return NULL;
    FT_Face face;
    if (FT_New_Face(library, path, index, &face) != 0) { FT_Done_FreeType(library); return NULL; }
    cairo_font_face_t *font = cairo_ft_font_face_create_for_ft_face(face, FT_LOAD_NO_HINTING);
    if (cairo_font_face_status(font) != CAIRO_STATUS_SUCCESS
        || cairo_font_face_set_user_data(font, &key, face, galley_cairo_ft_done) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(font);
        FT_Done_Face(face);
        FT_Done_FreeType(library);
        return NULL;
    }
    return font;
}
