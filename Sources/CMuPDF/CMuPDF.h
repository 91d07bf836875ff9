// MuPDF is only ever called from the CGalleyMuPDF shim (its errors are longjmps).
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
