#ifndef CGALLEYCAIRO_H
#define CGALLEYCAIRO_H

#include <cairo.h>
#include <stdint.h>

// A cairo font face over a FreeType face of its own for `path` at `index` (its own FreeType
// library too: FreeType faces and libraries are not thread-safe, and cairo touches the face
// when it measures and subsets glyphs, whichever thread frees it). NULL when it cannot be
// opened.
cairo_font_face_t *galley_cairo_open_ft_face(const char *path, long index);

// A cairo font face over a HarfBuzz subset of the CFF-flavoured font at `path`, `index`: the
// glyphs of `unicodes` and what shaping them gives, numbered afresh; NULL for a font without
// CFF outlines or when it cannot be made.
cairo_font_face_t *galley_cairo_open_subset_face(const char *path, long index, const uint32_t *unicodes, unsigned count);

// The subset's glyph id of the font's glyph `glyph` (a face from galley_cairo_open_subset_face);
// -1 when the subset does not hold it.
long galley_cairo_subset_glyph(cairo_font_face_t *font, unsigned glyph);

#endif
