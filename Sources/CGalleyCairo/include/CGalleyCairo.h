#ifndef CGALLEYCAIRO_H
#define CGALLEYCAIRO_H

#include <cairo.h>

// A cairo font face over a FreeType face of its own for `path` at `index` (its own FreeType
// library too: FreeType faces and libraries are not thread-safe, and cairo touches the face
// when it measures and subsets glyphs, whichever thread frees it). NULL when it cannot be
// opened.
cairo_font_face_t *galley_cairo_open_ft_face(const char *path, long index);

#endif
