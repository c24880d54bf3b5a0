// See include/strokes.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include "strokes.h"

#define STROKE_WIDTH "_ZN9tesseract18SetBlobStrokeWidthENS_5ImageEPNS_8BLOBNBOXE"
// tesseract::Image is one Pix pointer, passed by value in a register (read off the call in
// assign_blobs_to_blocks2).
typedef void (*stroke_fn)(void *pix, void *blob);

static __thread bool unneeded;
static long skipped, measured;

void shelfscan_set_blob_stroke_width(void *pix, void *blob) __asm__(STROKE_WIDTH);
void shelfscan_set_blob_stroke_width(void *pix, void *blob) {
    if (unneeded) {
        __atomic_add_fetch(&skipped, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_add_fetch(&measured, 1, __ATOMIC_RELAXED);
    static stroke_fn library;
    stroke_fn f = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (stroke_fn)dlsym(RTLD_NEXT, STROKE_WIDTH);
        __atomic_store_n(&library, f, __ATOMIC_RELEASE);
    }
    if (f) f(pix, blob);
}

void shelfscan_stroke_widths_unneeded(int on) { unneeded = on != 0; }

#define EDGE_OFFSETS "_ZN9tesseract8TO_BLOCK18ComputeEdgeOffsetsENS_5ImageES1_"
// TO_BLOCK::ComputeEdgeOffsets(Image thresholds, Image grey): `this` and two Pix pointers.
typedef void (*offsets_fn)(void *block, void *thresholds, void *grey);

static __thread bool offsets_unneeded;
static long offsets_skipped, offsets_computed;

void shelfscan_to_block_edge_offsets(void *block, void *thresholds, void *grey) __asm__(EDGE_OFFSETS);
void shelfscan_to_block_edge_offsets(void *block, void *thresholds, void *grey) {
    if (offsets_unneeded) {
        __atomic_add_fetch(&offsets_skipped, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_add_fetch(&offsets_computed, 1, __ATOMIC_RELAXED);
    static offsets_fn library;
    offsets_fn f = __atomic_load_n(&library, __ATOMIC_ACQUIRE);
    if (!f) {
        f = (offsets_fn)dlsym(RTLD_NEXT, EDGE_OFFSETS);
        __atomic_store_n(&library, f, __ATOMIC_RELEASE);
    }
    if (f) f(block, thresholds, grey);
}

void shelfscan_edge_offsets_unneeded(int on) { offsets_unneeded = on != 0; }

void shelfscan_edge_offsets_counts(long *skipped_out, long *computed_out) {
    *skipped_out = __atomic_load_n(&offsets_skipped, __ATOMIC_RELAXED);
    *computed_out = __atomic_load_n(&offsets_computed, __ATOMIC_RELAXED);
}

void shelfscan_stroke_widths_counts(long *skipped_out, long *measured_out) {
    *skipped_out = __atomic_load_n(&skipped, __ATOMIC_RELAXED);
    *measured_out = __atomic_load_n(&measured, __ATOMIC_RELAXED);
}
