// libdeflate is only ever called from the CGalleyPNG shim (whole_image.c), which compresses
// an in-memory page image in one call.
#include <libdeflate.h>
