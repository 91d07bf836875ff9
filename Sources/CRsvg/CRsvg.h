// librsvg, which draws SVG pictures onto cairo as paths and text, for the vector painter: a
// picture that is SVG in the article stays vector in the PDF. Only CGalleyCairo includes it.
#include <librsvg/rsvg.h>
