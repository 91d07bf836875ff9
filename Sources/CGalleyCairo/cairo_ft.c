// cairo font faces over FreeType faces of their own, for the vector painter (GalleyText's
// PDFDocumentWriter). Compiled here, not in a module's header: a header that includes
// FreeType's declarations gives Swift a second copy of them beside CFreeType's, and which copy
// a file of GalleyText then sees depends on how the compiler batches its files (moving files
// into folders made FT_GLYPH_FORMAT_OUTLINE vanish from FontFace.swift).
#include "CGalleyCairo.h"

#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <hb-subset.h>
#include <stdlib.h>
#include <string.h>

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

// What a subset face keeps alive: the subset font's bytes (FreeType reads them in place), its
// face and library, and the set of glyphs it holds.
typedef struct {
    FT_Library library;
    FT_Face face;
    hb_blob_t *blob;
    // The plan that made the subset: its map from the font's glyphs to the subset's tells which
    // it holds (HarfBuzz 6 has no way to walk a map into a set).
    hb_subset_plan_t *plan;
} galley_subset_face;

static cairo_user_data_key_t galley_subset_key;

static void galley_cairo_subset_done(void *data) {
    galley_subset_face *subset = data;
    FT_Done_Face(subset->face);
    FT_Done_FreeType(subset->library);
    hb_blob_destroy(subset->blob);
    hb_subset_plan_destroy(subset->plan);
    free(subset);
}

// A cairo font face over a subset, made with HarfBuzz's subsetter, of the CFF-flavoured font
// at `path`, `index`: the glyphs of `unicodes` and every glyph shaping them can give (the
// closure over GSUB), numbered afresh (`galley_cairo_subset_glyph` maps the font's glyph ids
// to the subset's: kept, a CJK font's 65,000 empty slots made the subset 1 MB and its making
// twice as slow). The tables a PDF does not use (positioning, baselines) are left out. cairo
// (1.16) subsets a CFF font by its glyphs but copies
// every global and local subroutine of the font dictionaries it uses: a CJK font embedded for
// six glyphs took 91 KB, for 490 glyphs 694 KB. HarfBuzz keeps only the subroutines its glyphs
// call, so cairo's own subset of this face is small. A TrueType font is subset the same way
// for its hinting, which the subset leaves out (below). NULL for a font with neither CFF nor
// TrueType outlines, or when the subset cannot be made.
// A CFF table that says "CID-keyed" and holds nothing: a header, a Name INDEX of one name, a
// Top DICT with ROS (Adobe, Identity, 0) and CharStrings at the table's end, a String INDEX of
// the two registry strings and an empty Global Subr INDEX. Its length in `length`.
static const unsigned char *galley_cid_marker(unsigned *length) {
    static const unsigned char table[] = {
        1, 0, 4, 1,                         // header: version 1.0, 4 bytes, 1-byte offsets
        0, 1, 1, 1, 2, 'G',                 // Name INDEX: "G"
        0, 1, 1, 1, 12,                     // Top DICT INDEX: one dict of 11 bytes
        248, 27, 248, 28, 139, 12, 30,      //   391 392 0 ROS
        28, 0, 47, 17,                      //   47 CharStrings: the table's end
        0, 2, 1, 1, 6, 14,                  // String INDEX: "Adobe", "Identity"
        'A', 'd', 'o', 'b', 'e', 'I', 'd', 'e', 'n', 't', 'i', 't', 'y',
        0, 0,                               // Global Subr INDEX: empty
    };
    _Static_assert(sizeof table == 47, "CharStrings point at the table's end");
    *length = sizeof table;
    return table;
}

// `face` (a TrueType font) with the CID marker above as its CFF table, and its sfnt version
// kept TrueType's (HarfBuzz's face builder writes OTTO for a font with a CFF table, which
// FreeType would read as a CFF font). NULL when it cannot be made.
//
// Why: cairo 1.16 (cairo-scaled-font-subsets.c) puts each glyph whose text is one WinAnsi
// character into a "latin" subset of the font, embedded as a simple TrueType font, and every
// other glyph (the fi and fl ligatures, the hyphen of a broken word beside the hyphen-minus,
// a no-break space, Greek) into a second, CID-keyed subset: two copies of the font's tables,
// descriptors, widths and ToUnicode maps, about 0.9 KB compressed each, 15% of a one-page
// article. cairo has no way to turn the latin subset off, but it never makes one for a font
// whose CFF table is CID-keyed (`_cairo_cff_scaled_font_is_cid_cff`). This marker is one; the
// outlines stay TrueType: cairo's CFF subsetter stops at the marker's empty CharStrings
// (CAIRO_INT_STATUS_UNSUPPORTED) and embeds the glyf outlines as a CIDFontType2 font, and
// FreeType, which opens the face as TrueType, never reads the table. A PDF reader never sees
// it: cairo copies the glyph tables only.
static hb_blob_t *galley_marked_cid(hb_face_t *face) {
    hb_face_t *builder = hb_face_builder_create();
    hb_tag_t tags[64];
    unsigned count = 64;
    hb_face_get_table_tags(face, 0, &count, tags);
    for (unsigned i = 0; i < count; i++) {
        hb_blob_t *table = hb_face_reference_table(face, tags[i]);
        hb_face_builder_add_table(builder, tags[i], table);
        hb_blob_destroy(table);
    }
    unsigned length = 0;
    const unsigned char *marker = galley_cid_marker(&length);
    hb_blob_t *cff = hb_blob_create((const char *)marker, length, HB_MEMORY_MODE_READONLY, NULL, NULL);
    hb_face_builder_add_table(builder, HB_TAG('C', 'F', 'F', ' '), cff);
    hb_blob_destroy(cff);
    hb_blob_t *built = hb_face_reference_blob(builder);
    hb_face_destroy(builder);
    unsigned size = 0;
    const char *data = hb_blob_get_data(built, &size);
    char *bytes = size > 4 && count < 64 ? malloc(size) : NULL;
    if (bytes == NULL) { hb_blob_destroy(built); return NULL; }
    memcpy(bytes, data, size);
    hb_blob_destroy(built);
    bytes[0] = 0; bytes[1] = 1; bytes[2] = 0; bytes[3] = 0;
    return hb_blob_create(bytes, size, HB_MEMORY_MODE_WRITABLE, bytes, free);
}

cairo_font_face_t *galley_cairo_open_subset_face(const char *path, long index, const uint32_t *unicodes, unsigned count, int one_subset) {
    hb_blob_t *file = hb_blob_create_from_file_or_fail(path);
    if (!file) return NULL;
    hb_face_t *source = hb_face_create(file, (unsigned)index);
    hb_blob_destroy(file);
    hb_blob_t *cff = hb_face_reference_table(source, HB_TAG('C', 'F', 'F', ' '));
    hb_blob_t *glyf = hb_face_reference_table(source, HB_TAG('g', 'l', 'y', 'f'));
    unsigned outlines = hb_blob_get_length(cff) + hb_blob_get_length(glyf);
    int truetype = hb_blob_get_length(cff) == 0 && hb_blob_get_length(glyf) > 0;
    hb_blob_destroy(cff);
    hb_blob_destroy(glyf);
    hb_subset_input_t *input = outlines > 0 ? hb_subset_input_create_or_fail() : NULL;
    if (!input) { hb_face_destroy(source); return NULL; }
    // Without hinting: PDF readers draw outlines unhinted at any size, and a TrueType font's
    // hinting (its cvt, fpgm and prep tables and each glyph's instructions) was most of what
    // cairo embedded for it: a one-page article in Liberation Sans took 18.5 KB, 9.8 KB
    // without (and ten pages of Debian's documentation 2.25 MB, 1.82 MB).
    hb_subset_input_set_flags(input, HB_SUBSET_FLAGS_NO_HINTING);
    hb_set_t *wanted = hb_subset_input_unicode_set(input);
    for (unsigned i = 0; i < count; i++) hb_set_add(wanted, unicodes[i]);
    hb_set_t *dropped = hb_subset_input_set(input, HB_SUBSET_SETS_DROP_TABLE_TAG);
    const char *unused[] = {"GPOS", "BASE", "JSTF", "MATH", "DSIG", "kern", "hdmx", "LTSH", "VDMX", "PCLT"};
    for (unsigned i = 0; i < sizeof unused / sizeof *unused; i++) hb_set_add(dropped, hb_tag_from_string(unused[i], 4));
    hb_subset_plan_t *plan = hb_subset_plan_create_or_fail(source, input);
    hb_subset_input_destroy(input);
    hb_face_t *subsetted = plan ? hb_subset_plan_execute_or_fail(plan) : NULL;
    galley_subset_face *subset = subsetted ? calloc(1, sizeof *subset) : NULL;
    if (subset) {
        subset->plan = plan;
        subset->blob = hb_face_reference_blob(subsetted);
        if (one_subset && truetype) {
            // The subset's tables, read back from its bytes (a builder face lists none).
            hb_face_t *built = hb_face_create(subset->blob, 0);
            hb_blob_t *marked = galley_marked_cid(built);
            hb_face_destroy(built);
            if (marked) {
                hb_blob_destroy(subset->blob);
                subset->blob = marked;
            }
        }
    } else if (plan) {
        hb_subset_plan_destroy(plan);
    }
    if (subsetted) hb_face_destroy(subsetted);
    hb_face_destroy(source);
    if (!subset) return NULL;
    unsigned length = 0;
    const char *bytes = hb_blob_get_data(subset->blob, &length);
    cairo_font_face_t *font = NULL;
    if (length > 0 && FT_Init_FreeType(&subset->library) == 0) {
        if (FT_New_Memory_Face(subset->library, (const FT_Byte *)bytes, (FT_Long)length, 0, &subset->face) == 0) {
            font = cairo_ft_font_face_create_for_ft_face(subset->face, FT_LOAD_NO_HINTING);
            if (cairo_font_face_status(font) == CAIRO_STATUS_SUCCESS
                && cairo_font_face_set_user_data(font, &galley_subset_key, subset, galley_cairo_subset_done) == CAIRO_STATUS_SUCCESS) {
                return font;
            }
            cairo_font_face_destroy(font);
            FT_Done_Face(subset->face);
        }
        FT_Done_FreeType(subset->library);
    }
    hb_blob_destroy(subset->blob);
    hb_subset_plan_destroy(subset->plan);
    free(subset);
    return NULL;
}

// The subset's glyph id of the font's glyph `glyph`, in a face from
// `galley_cairo_open_subset_face`; -1 when the subset does not hold it.
long galley_cairo_subset_glyph(cairo_font_face_t *font, unsigned glyph) {
    galley_subset_face *subset = cairo_font_face_get_user_data(font, &galley_subset_key);
    if (subset == NULL) return -1;
    const hb_map_t *kept = hb_subset_plan_old_to_new_glyph_mapping(subset->plan);
    return hb_map_has(kept, glyph) ? (long)hb_map_get(kept, glyph) : -1;
}
