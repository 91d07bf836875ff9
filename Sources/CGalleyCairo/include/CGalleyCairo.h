#ifndef CGALLEYCAIRO_H
#define CGALLEYCAIRO_H

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

// A cairo font face over a FreeType face of its own for `path` at `index` (its own FreeType
// library too: FreeType faces and libraries are not thread-safe, and cairo touches the face
// when it measures and subsets glyphs, whichever thread frees it). NULL when it cannot be
// opened.
cairo_font_face_t *galley_cairo_open_ft_face(const char *path, long index);

// A cairo font face over a HarfBuzz subset of the font at `path`, `index`: the glyphs of
// `unicodes` and what shaping them gives, numbered afresh; with `one_subset`, a TrueType font
// is marked so that cairo embeds it as one CID font rather than a WinAnsi font and a CID font
// (cairo_ft.c says how). NULL for a font without CFF or TrueType outlines or when it cannot be
// made.
cairo_font_face_t *galley_cairo_open_subset_face(const char *path, long index, const uint32_t *unicodes, unsigned count, int one_subset);

// The subset's glyph id of the font's glyph `glyph` (a face from galley_cairo_open_subset_face);
// -1 when the subset does not hold it.
long galley_cairo_subset_glyph(cairo_font_face_t *font, unsigned glyph);

// Draws the SVG file `bytes` (librsvg) fitted into the rectangle at (x, y) of `width` by
// `height` in cr's user space, as the picture's preserveAspectRatio says: 0 when drawn, else
// 1 with the reason in `message` (cr then holds whatever was drawn before the failure, so the
// caller draws in a group it can drop). Other files the picture names are not read.
int galley_cairo_draw_svg(cairo_t *cr, const unsigned char *bytes, size_t length,
                          double x, double y, double width, double height,
                          char *message, size_t messageSize);

#endif
