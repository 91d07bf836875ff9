// libpng is only ever called from the CGalleyPNG shim (its errors are longjmps).
#include <png.h>
