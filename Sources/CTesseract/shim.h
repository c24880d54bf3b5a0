// Leptonica's header must come first: without it `struct Pix` in capi.h imports as OpaquePointer.
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>
