// See include/pagesteps.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pagesteps.h"
#include "selfcheck.h"

struct Pix;
extern int pixGetDepth(const struct Pix *pix);
extern int pixGetWpl(const struct Pix *pix);
extern uint32_t *pixGetData(struct Pix *pix);
extern int pixGetXRes(const struct Pix *pix);
extern int pixGetYRes(const struct Pix *pix);
extern int pixSetXRes(struct Pix *pix, int res);
extern int pixSetYRes(struct Pix *pix, int res);
extern struct Pix *pixCreate(int width, int height, int depth);
extern void pixDestroy(struct Pix **pix);
extern int pixGetHeight(const struct Pix *pix);
extern const char *TessVersion(void);

#define HISTOGRAM "_ZN9tesseract13HistogramRectENS_5ImageEiiiiiPi"
#define THRESHOLD "_ZNK9tesseract16ImageThresholder18ThresholdRectToPixENS_5ImageEiRKSt6vectorIiSaIiEES6_PS1_"

// std::vector<int> as libstdc++ lays it out: its first element first.
struct int_vector { int *begin, *end, *capacity; };

// tesseract::ImageThresholder's rectangle, as ThresholdRectToPix reads it in 5.3.0.
enum { rect_left = 0x2c, rect_top = 0x30, rect_width = 0x34, rect_height = 0x38 };

typedef void (*histogram_fn)(struct Pix *pix, int channel, int left, int top, int width, int height, int *histogram);
typedef void (*threshold_fn)(const void *self, struct Pix *src, int channels, const struct int_vector *thresholds,
                             const struct int_vector *hi_values, struct Pix **pix);

// FNV-1a 64 of Debian 12's two functions' machine code (HistogramRect's 0x113 bytes,
// ThresholdRectToPix's 0x1c4).
enum { histogram_size = 0x113, threshold_size = 0x1c4 };
static const uint64_t histogram_hash = 0x49393be01a86f75dULL, threshold_hash = 0xd74f61533293ed13ULL;

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static histogram_fn library_histogram;
static threshold_fn library_threshold;
static bool found, checks_passed;
static int state;

static inline int field(const void *self, int offset) {
    int v;
    memcpy(&v, (const char *)self + offset, sizeof v);
    return v;
}

/// HistogramRect: the library's channel choice and byte addressing (a byte index times the
/// channel count plus the channel, Leptonica's byte order); gray pictures four histograms at a time.
static void histogram_here(struct Pix *pix, int channel, int left, int top, int width, int height, int *histogram) {
    int channels = pixGetDepth(pix) / 8;
    int chosen = channels - 1 > channel ? channel : channels - 1;
    if (channel < 0) chosen = 0;
    memset(histogram, 0, sizeof(int) * 256);
    int wpl = pixGetWpl(pix);
    const uint8_t *data = (const uint8_t *)pixGetData(pix);
    int bottom = top + height;
    if (top >= bottom || width <= 0) return;
    if (channels != 1) {
        for (int y = top; y < bottom; y++) {
            uintptr_t at = (uintptr_t)(data + (long)(y * wpl) * 4) + (uintptr_t)((long)(left * channels)) + (uintptr_t)(long)chosen;
            for (int x = 0; x < width; x++, at += (uintptr_t)(long)channels) histogram[*(const uint8_t *)(at ^ 3)]++;
        }
        return;
    }
    uint32_t counts[4][256];
    memset(counts, 0, sizeof counts);
    for (int y = top; y < bottom; y++) {
        const uint8_t *row = data + (long)(y * wpl) * 4;
        long n = left, end = (long)left + width;
        for (; n + 4 <= end; n += 4) {
            counts[0][row[n ^ 3]]++;
            counts[1][row[(n + 1) ^ 3]]++;
            counts[2][row[(n + 2) ^ 3]]++;
            counts[3][row[(n + 3) ^ 3]]++;
        }
        for (; n < end; n++) counts[0][row[n ^ 3]]++;
    }
    for (int v = 0; v < 256; v++) histogram[v] = (int)(counts[0][v] + counts[1][v] + counts[2][v] + counts[3][v]);
}

/// ThresholdRectToPix: a pixel is black where, for some channel with a nonnegative hi value,
/// (pixel > threshold) == (hi value == 0); gray pictures without branches.
static void threshold_here(const void *self, struct Pix *src, int channels, const struct int_vector *thresholds,
                           const struct int_vector *hi_values, struct Pix **pix) {
    int left = field(self, rect_left), top = field(self, rect_top), width = field(self, rect_width), height = field(self, rect_height);
    *pix = pixCreate(width, height, 1);
    uint32_t *out = pixGetData(*pix);
    long wpl = pixGetWpl(*pix);
    int src_wpl = pixGetWpl(src);
    const uint8_t *data = (const uint8_t *)pixGetData(src);
    pixSetXRes(*pix, pixGetXRes(src));
    pixSetYRes(*pix, pixGetYRes(src));
    const int *limit = thresholds->begin, *hi = hi_values->begin;
    for (int y = 0; y < height; y++) {
        const uint8_t *line = data + (long)((y + top) * src_wpl) * 4;
        uint32_t *bits = out + y * wpl;
        if (channels == 1) {
            int h = hi[0], t = limit[0];
            uint32_t want = h == 0;
            for (int x0 = 0; x0 < width; x0 += 32) {
                uint32_t word = 0;
                int n = width - x0 < 32 ? width - x0 : 32;
                if (h >= 0) {
                    for (int k = 0; k < n; k++) {
                        long at = (long)(x0 + k + left);
                        uint32_t above = line[at ^ 3] > t;
                        word |= (uint32_t)(above == want) << (31 - k);
                    }
                }
                // The library writes every bit of the row's words it reaches, set or cleared.
                uint32_t mask = n == 32 ? 0xffffffffu : ~(0xffffffffu >> n);
                bits[x0 >> 5] = (bits[x0 >> 5] & ~mask) | word;
            }
            continue;
        }
        for (int x = 0; x < width; x++) {
            bool black = false;
            for (int ch = 0; ch < channels; ch++) {
                long at = (long)((x + left) * channels) + ch;
                int pixel = line[at ^ 3];
                if (hi[ch] >= 0 && (pixel > limit[ch]) == (hi[ch] == 0)) {
                    black = true;
                    break;
                }
            }
            if (black) bits[x >> 5] |= 0x80000000u >> (x & 31);
            else bits[x >> 5] &= ~(0x80000000u >> (x & 31));
        }
    }
}

static long compare(int trials, unsigned seed);

static void decide(void) {
    library_histogram = (histogram_fn)dlsym(RTLD_NEXT, HISTOGRAM);
    library_threshold = (threshold_fn)dlsym(RTLD_NEXT, THRESHOLD);
    const char *version = TessVersion();
    found = library_histogram && library_threshold && version && strcmp(version, "5.3.0") == 0
        && shelfscan_code_hash((const void *)library_histogram, histogram_size) == histogram_hash
        && shelfscan_code_hash((const void *)library_threshold, threshold_size) == threshold_hash;
    if (getenv("SHELFSCAN_PAGE_STEPS_HASHES") && library_histogram && library_threshold) {
        fprintf(stderr, "page steps hashes %#llx %#llx\n", (unsigned long long)shelfscan_code_hash((const void *)library_histogram, histogram_size),
                (unsigned long long)shelfscan_code_hash((const void *)library_threshold, threshold_size));
    }
    checks_passed = found && compare(40, 1) == 0;
    const char *setting = getenv("SHELFSCAN_PAGE_STEPS");
    bool on = checks_passed && !(setting && strcmp(setting, "off") == 0);
    __atomic_store_n(&state, on ? 1 : 2, __ATOMIC_RELEASE);
}

static inline bool ours(void) {
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    return s == 1;
}

void shelfscan_histogram_rect(struct Pix *pix, int channel, int left, int top, int width, int height, int *histogram) __asm__(HISTOGRAM);
void shelfscan_threshold_rect_to_pix(const void *self, struct Pix *src, int channels, const struct int_vector *thresholds,
                                     const struct int_vector *hi_values, struct Pix **pix) __asm__(THRESHOLD);

void shelfscan_histogram_rect(struct Pix *pix, int channel, int left, int top, int width, int height, int *histogram) {
    if (ours()) histogram_here(pix, channel, left, top, width, height, histogram);
    else library_histogram(pix, channel, left, top, width, height, histogram);
}

void shelfscan_threshold_rect_to_pix(const void *self, struct Pix *src, int channels, const struct int_vector *thresholds,
                                     const struct int_vector *hi_values, struct Pix **pix) {
    if (ours()) threshold_here(self, src, channels, thresholds, hi_values, pix);
    else library_threshold(self, src, channels, thresholds, hi_values, pix);
}

int shelfscan_page_steps_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }

int shelfscan_page_steps_use(int on) {
    pthread_once(&decided, decide);
    __atomic_store_n(&state, on && checks_passed ? 1 : 2, __ATOMIC_RELEASE);
    return shelfscan_page_steps_state();
}

long shelfscan_page_steps_compare(int trials, unsigned seed) {
    pthread_once(&decided, decide);
    return compare(trials, seed);
}

static bool same_bits(struct Pix *a, struct Pix *b) {
    if (!a || !b) return a == b;
    int h = pixGetHeight(a), wpl = pixGetWpl(a);
    if (h != pixGetHeight(b) || wpl != pixGetWpl(b) || pixGetXRes(a) != pixGetXRes(b) || pixGetYRes(a) != pixGetYRes(b)) return false;
    return memcmp(pixGetData(a), pixGetData(b), sizeof(uint32_t) * (size_t)wpl * (size_t)h) == 0;
}

// Random gray and colour pictures (white grounds with dark strokes, noise), random rectangles
// inside them, channels and thresholds (hi values -1, 0 and 1), both ways.
static long compare(int trials, unsigned seed) {
    if (!found) return -1;
    long differ = 0;
    for (int t = 0; t < trials; t++) {
        int depth = t % 3 == 2 ? 32 : 8, w = 1 + rand_r(&seed) % 300, h = 1 + rand_r(&seed) % 120;
        struct Pix *pix = pixCreate(w, h, depth);
        if (!pix) return -1;
        if (t % 2) { pixSetXRes(pix, 70 + rand_r(&seed) % 500); pixSetYRes(pix, 70 + rand_r(&seed) % 500); }
        uint8_t *bytes = (uint8_t *)pixGetData(pix);
        size_t n = 4 * (size_t)pixGetWpl(pix) * (size_t)h;
        for (size_t i = 0; i < n; i++) bytes[i] = t % 4 == 0 ? (uint8_t)rand_r(&seed) : (rand_r(&seed) % 9 ? 255 : (uint8_t)(rand_r(&seed) % 90));
        int channels = depth / 8;
        int left = rand_r(&seed) % w, top = rand_r(&seed) % h;
        int width = rand_r(&seed) % (w - left + 1), height = rand_r(&seed) % (h - top + 1);
        int channel = (int)(rand_r(&seed) % 6) - 1;
        int a[256], b[256];
        histogram_here(pix, channel, left, top, width, height, a);
        library_histogram(pix, channel, left, top, width, height, b);
        if (memcmp(a, b, sizeof a) != 0) differ++;
        int limits[4], his[4];
        for (int c = 0; c < 4; c++) { limits[c] = rand_r(&seed) % 260 - 2; his[c] = (int)(rand_r(&seed) % 4) - 1; }
        struct int_vector lv = {limits, limits + 4, limits + 4}, hv = {his, his + 4, his + 4};
        char self[0x40];
        memset(self, 0, sizeof self);
        memcpy(self + rect_left, &left, 4);
        memcpy(self + rect_top, &top, 4);
        memcpy(self + rect_width, &width, 4);
        memcpy(self + rect_height, &height, 4);
        struct Pix *mine = NULL, *theirs = NULL;
        if (width > 0 && height > 0) {
            threshold_here(self, pix, channels, &lv, &hv, &mine);
            library_threshold(self, pix, channels, &lv, &hv, &theirs);
            if (!same_bits(mine, theirs)) differ++;
        }
        pixDestroy(&mine);
        pixDestroy(&theirs);
        pixDestroy(&pix);
    }
    return differ;
}
