// libwebp is only ever called from GalleyRaster's WebP encoder (it reports errors by return
// codes, so no shim is needed); the mux library adds the EXIF chunk that carries a page's
// resolution.
#include <webp/encode.h>
#include <webp/decode.h>
#include <webp/mux.h>
