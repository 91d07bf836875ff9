// cairo's PDF surface, for the vector painter (GalleyText's PDFDocumentWriter). Its FreeType
// font faces are made in CGalleyCairo, so no FreeType declaration is seen through here.
#include <cairo.h>
#include <cairo-pdf.h>

