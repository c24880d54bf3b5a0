// See include/rotateam.h (pixSetMasked).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rotateam.h"

struct Pix;
extern int pixGetDepth(const struct Pix *pix);
extern int pixGetWidth(const struct Pix *pix);
extern int pixGetHeight(const struct Pix *pix);
extern int pixGetWpl(const struct Pix *pix);
extern uint32_t *pixGetData(struct Pix *pix);
extern void *pixGetColormap(struct Pix *pix);
extern struct Pix *pixCreate(int width, int height, int depth);
extern void pixDestroy(struct Pix **pix);
extern char *getLeptonicaVersion(void);

typedef int (*set_masked_fn)(struct Pix *pixd, struct Pix *pixm, uint32_t val);

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static set_masked_fn library_set_masked;
static bool found, checks_passed;
static int state;

/// The case Tesseract's stroke widths meet for every blob (pixDistanceFunction: an 8-bit
/// picture the mask's size, each masked pixel set to 1): 8-bit, no colormap, a 1-bit mask of
/// the same size, a value other than black and white (those take the library's rasterops).
static bool ours_can(struct Pix *pixd, struct Pix *pixm, uint32_t val) {
    if (!pixd || !pixm || pixGetColormap(pixd) || pixGetDepth(pixm) != 1 || pixGetDepth(pixd) != 8) return false;
    uint32_t v = val & 0xff;
    return v != 0 && v != 0xff && pixGetWidth(pixd) == pixGetWidth(pixm) && pixGetHeight(pixd) == pixGetHeight(pixm);
}

/// Leptonica 1.82's loop for that case (each masked pixel set to the value's low byte, the
/// others untouched), a mask word at a time: words without a set bit skipped, the others' bits
/// written without a branch per pixel.
static int set_masked_here(struct Pix *pixd, struct Pix *pixm, uint32_t val) {
    const uint8_t v = (uint8_t)(val & 0xff);
    int w = pixGetWidth(pixd), h = pixGetHeight(pixd), wpld = pixGetWpl(pixd), wplm = pixGetWpl(pixm);
    uint32_t *datad = pixGetData(pixd);
    const uint32_t *datam = pixGetData(pixm);
    for (int i = 0; i < h; i++) {
        uint8_t *lined = (uint8_t *)(datad + (size_t)i * wpld);
        const uint32_t *linem = datam + (size_t)i * wplm;
        for (int j0 = 0; j0 < w; j0 += 32) {
            uint32_t bits = linem[j0 >> 5];
            if (!bits) continue;
            int n = w - j0 < 32 ? w - j0 : 32;
            for (int k = 0; k < n; k++) {
                uint8_t *at = lined + ((j0 + k) ^ 3);
                *at = (bits >> (31 - k)) & 1 ? v : *at;
            }
        }
    }
    return 0;
}

static long compare(int trials, unsigned seed);

static void decide(void) {
    library_set_masked = (set_masked_fn)dlsym(RTLD_NEXT, "pixSetMasked");
    char *version = getLeptonicaVersion();
    found = library_set_masked && version && strcmp(version, "leptonica-1.82.0") == 0;
    free(version);
    checks_passed = found && compare(40, 1) == 0;
    const char *setting = getenv("SHELFSCAN_SET_MASKED");
    bool on = checks_passed && !(setting && strcmp(setting, "off") == 0);
    __atomic_store_n(&state, on ? 1 : 2, __ATOMIC_RELEASE);
}

int pixSetMasked(struct Pix *pixd, struct Pix *pixm, uint32_t val) {
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    if (s == 1 && ours_can(pixd, pixm, val)) return set_masked_here(pixd, pixm, val);
    return library_set_masked(pixd, pixm, val);
}

int shelfscan_set_masked_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }

int shelfscan_set_masked_use(int on) {
    pthread_once(&decided, decide);
    __atomic_store_n(&state, on && checks_passed ? 1 : 2, __ATOMIC_RELEASE);
    return shelfscan_set_masked_state();
}

long shelfscan_set_masked_compare(int trials, unsigned seed) {
    pthread_once(&decided, decide);
    return found ? compare(trials, seed) : -1;
}

// Random masks (sparse and dense strokes) on random 8-bit pictures, both ways on copies.
static long compare(int trials, unsigned seed) {
    long differ = 0;
    for (int t = 0; t < trials; t++) {
        int w = 1 + rand_r(&seed) % 140, h = 1 + rand_r(&seed) % 90;
        struct Pix *mask = pixCreate(w, h, 1), *a = pixCreate(w, h, 8), *b = pixCreate(w, h, 8);
        if (!mask || !a || !b) return -1;
        uint32_t *m = pixGetData(mask);
        int wplm = pixGetWpl(mask), density = 1 + rand_r(&seed) % 4;
        for (int k = 0; k < wplm * h; k++) {
            uint32_t bits = 0;
            for (int d = 0; d < density; d++) bits |= (uint32_t)rand_r(&seed) ^ ((uint32_t)rand_r(&seed) << 16);
            m[k] = t % 7 == 0 ? 0 : bits;
        }
        uint8_t *da = (uint8_t *)pixGetData(a), *db = (uint8_t *)pixGetData(b);
        size_t bytes = 4 * (size_t)pixGetWpl(a) * (size_t)h;
        for (size_t k = 0; k < bytes; k++) da[k] = db[k] = t % 2 ? 0 : (uint8_t)rand_r(&seed);
        uint32_t val = t % 3 == 0 ? 1 : (uint32_t)rand_r(&seed);
        if (ours_can(a, mask, val)) {
            set_masked_here(a, mask, val);
            library_set_masked(b, mask, val);
            differ += memcmp(da, db, bytes) != 0;
        }
        pixDestroy(&mask);
        pixDestroy(&a);
        pixDestroy(&b);
    }
    return differ;
}
