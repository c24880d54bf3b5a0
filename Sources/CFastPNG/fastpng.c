// See include/fastpng.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "fastpng.h"

typedef void (*set_level_fn)(void *png, int level);
typedef void (*set_filter_fn)(void *png, int method, int filters);

static __thread int fast_png = 0;
static pthread_once_t looked_up = PTHREAD_ONCE_INIT;
static set_level_fn real_level = NULL;
static set_filter_fn real_filter = NULL;
// Set once a write has come through here (any thread).
static int interposed = 0;

// libpng's PNG_FILTER_NONE.
#define FASTPNG_FILTER_NONE 0x08

void shelfscan_fast_png(int on) { fast_png = on; }

int shelfscan_fast_png_active(void) { return __atomic_load_n(&interposed, __ATOMIC_RELAXED); }

// The executable's definition comes first in the dynamic linker's search order, so Leptonica's
// call lands here; libpng's own is the next one.
static void look_up(void) {
    real_level = (set_level_fn)dlsym(RTLD_NEXT, "png_set_compression_level");
    real_filter = (set_filter_fn)dlsym(RTLD_NEXT, "png_set_filter");
}

void png_set_compression_level(void *png, int level) {
    pthread_once(&looked_up, look_up);
    __atomic_store_n(&interposed, 1, __ATOMIC_RELAXED);
    if (real_level == NULL) return;
    if (fast_png) {
        real_level(png, 0);
        if (real_filter != NULL) real_filter(png, 0, FASTPNG_FILTER_NONE);
    } else {
        real_level(png, level);
    }
}
