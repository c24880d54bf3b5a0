// See include/rotateam.h (pixSetMasked, pixDistanceFunction).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rotateam.h"

#include "lept.h"

typedef int (*set_masked_fn)(struct Pix *pixd, struct Pix *pixm, uint32_t val);
typedef struct Pix *(*distance_fn)(struct Pix *pixs, int connectivity, int outdepth, int boundcond);
static distance_fn library_distance;

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

/// Leptonica 1.82's pixDistanceFunction for the case Tesseract's stroke widths ask for (a
/// 1-bit blob, 4-connected, 8-bit out, background outside): the mask painted as 1s, then
/// distanceFunctionLow's two scans (down and right: one more than the smaller of the pixel
/// above and the one before, at most 255; then up and left: the smaller of that and one more
/// than the pixel below or after), the image's outer ring left as painted. The same values,
/// the neighbour just written carried in a register and no branch per pixel.
static struct Pix *distance_here(struct Pix *pixs) {
    int w = pixGetWidth(pixs), h = pixGetHeight(pixs);
    struct Pix *pixd = pixCreate(w, h, 8);
    if (!pixd) return NULL;
    set_masked_here(pixd, pixs, 1);
    uint8_t *data = (uint8_t *)pixGetData(pixd);
    size_t stride = 4 * (size_t)pixGetWpl(pixd);
    int imax = h - 1, jmax = w - 1;
    for (int i = 1; i < imax; i++) {
        uint8_t *line = data + (size_t)i * stride;
        const uint8_t *up = line - stride;
        unsigned left = line[0 ^ 3];
        for (int j = 1; j < jmax; j++) {
            unsigned val = line[j ^ 3], above = up[j ^ 3];
            unsigned m = above < left ? above : left;
            m = m < 254 ? m : 254;
            val = val > 0 ? m + 1 : 0;
            line[j ^ 3] = (uint8_t)val;
            left = val;
        }
    }
    for (int i = imax - 1; i > 0; i--) {
        uint8_t *line = data + (size_t)i * stride;
        const uint8_t *down = line + stride;
        unsigned right = jmax >= 0 ? line[jmax ^ 3] : 0;
        for (int j = jmax - 1; j > 0; j--) {
            unsigned val = line[j ^ 3], below = down[j ^ 3];
            unsigned m = right < below ? right : below;
            m = m + 1 < val ? m + 1 : val;
            val = val > 0 ? m : 0;
            line[j ^ 3] = (uint8_t)val;
            right = val;
        }
    }
    return pixd;
}

struct Pix *pixDistanceFunction(struct Pix *pixs, int connectivity, int outdepth, int boundcond);

static long compare(int trials, unsigned seed);

static void decide(void) {
    library_set_masked = (set_masked_fn)dlsym(RTLD_NEXT, "pixSetMasked");
    library_distance = (distance_fn)dlsym(RTLD_NEXT, "pixDistanceFunction");
    // The library's pixDistanceFunction calls pixSetMasked through the executable's while the
    // probe runs: that call (and any other thread's meanwhile) must go straight on to the
    // library's, found just above, not wait for this decision (the same thread would wait
    // forever). Found first: a call handed on before then jumped to nothing (CI, 4aa0c21).
    __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
    char *version = getLeptonicaVersion();
    found = library_set_masked && library_distance && version && strcmp(version, "leptonica-1.82.0") == 0;
    free(version);
    checks_passed = found && compare(40, 1) == 0;
    const char *setting = getenv("SHELFSCAN_SET_MASKED");
    bool on = checks_passed && !(setting && strcmp(setting, "off") == 0);
    __atomic_store_n(&state, on ? 1 : 2, __ATOMIC_RELEASE);
}

int pixSetMasked(struct Pix *pixd, struct Pix *pixm, uint32_t val) {
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    if (s == 1 && ours_can(pixd, pixm, val)) return set_masked_here(pixd, pixm, val);
    return library_set_masked(pixd, pixm, val);
}

struct Pix *pixDistanceFunction(struct Pix *pixs, int connectivity, int outdepth, int boundcond) {
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    // L_BOUNDARY_BG is 1.
    if (s == 1 && pixs && pixGetDepth(pixs) == 1 && connectivity == 4 && outdepth == 8 && boundcond == 1) {
        struct Pix *pixd = distance_here(pixs);
        if (pixd) return pixd;
    }
    return library_distance(pixs, connectivity, outdepth, boundcond);
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
        // The mask as a blob: distances both ways.
        struct Pix *ours = distance_here(mask), *theirs = library_distance(mask, 4, 8, 1);
        if (!ours || !theirs) differ++;
        else differ += memcmp(pixGetData(ours), pixGetData(theirs), 4 * (size_t)pixGetWpl(ours) * (size_t)h) != 0;
        pixDestroy(&ours);
        pixDestroy(&theirs);
        pixDestroy(&mask);
        pixDestroy(&a);
        pixDestroy(&b);
    }
    return differ;
}
