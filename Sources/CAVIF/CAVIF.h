// libavif is only ever called from GalleyRaster's AVIF encoder (it reports errors by
// avifResult codes, so no shim is needed).
#include <avif/avif.h>
