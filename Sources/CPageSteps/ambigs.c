// See include/ambigs.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include "ambigs.h"

#define LOAD_UNIVERSAL "_ZN9tesseract13UnicharAmbigs13LoadUniversalERKNS_10UNICHARSETEPS1_"
typedef void (*load_fn)(void *self, const void *encoder_set, void *unicharset);

static __thread bool skipping;
static long skipped;

void shelfscan_load_universal(void *self, const void *encoder_set, void *unicharset) __asm__(LOAD_UNIVERSAL);
void shelfscan_load_universal(void *self, const void *encoder_set, void *unicharset) {
    if (skipping) {
        __atomic_add_fetch(&skipped, 1, __ATOMIC_RELAXED);
        return;
    }
    load_fn library = (load_fn)dlsym(RTLD_NEXT, LOAD_UNIVERSAL);
    // Without the library's (never on a libtesseract that calls this): nothing to load it with.
    if (library) library(self, encoder_set, unicharset);
}

void shelfscan_universal_ambigs_skip(int on) { skipping = on != 0; }

long shelfscan_universal_ambigs_skipped(void) { return __atomic_load_n(&skipped, __ATOMIC_RELAXED); }
