// See include/lineinvert.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "lineinvert.h"

// Leptonica's and Tesseract's C API, declared here so this target needs neither's headers.
struct Pix;
typedef unsigned char l_uint8;
extern int pixGetWidth(const struct Pix *pix);
extern int pixGetHeight(const struct Pix *pix);
extern int pixGetDepth(const struct Pix *pix);
extern int pixGetWpl(const struct Pix *pix);
extern uint32_t *pixGetData(struct Pix *pix);
extern int TessBaseAPISetVariable(void *api, const char *name, const char *value);

typedef int (*write_mem_fn)(l_uint8 **data, size_t *size, struct Pix *pix, int format);
typedef struct Pix *(*invert_fn)(struct Pix *pixd, struct Pix *pixs);

static pthread_once_t looked_up = PTHREAD_ONCE_INIT;
static write_mem_fn real_write_mem = NULL;
static invert_fn real_invert = NULL;
static int interposed = 0;

// The reading under way on this thread.
static __thread void *api = NULL;
static __thread int gating = 0;
// The value of tessedit_do_invert last set on `api`: 1 (Tesseract's default) or 0.
static __thread int invert_on = 1;
static __thread long lines_seen = 0, lines_gated = 0, inversions = 0;

// At most this share of a line's pixels in the darker class for it to count as dark letters on
// a light ground (letters fill a quarter to a third of their line's box; a light line's dark
// band, or a dark ground, fills more).
static const double ink_share = 0.4;
// The two classes' mean grays at least this far apart (below it the split is noise).
static const double contrast = 48.0;
// Light letters on the ground: over `stray` of the line's pixels more than `step` grays lighter
// than the ground's commonest gray.
static const int step = 32;
static const double stray = 0.02;
// Strokes: at most this share of the dark pixels in a square a fifth of the line's height (5
// pixels at least) wholly dark.
static const double solid = 0.05;

static void look_up(void) {
    real_write_mem = (write_mem_fn)dlsym(RTLD_NEXT, "pixWriteMem");
    real_invert = (invert_fn)dlsym(RTLD_NEXT, "pixInvert");
}

void shelfscan_line_invert_begin(void *handle, int gate) {
    api = handle;
    gating = gate;
}

void shelfscan_line_invert_end(void) {
    if (api != NULL && !invert_on) TessBaseAPISetVariable(api, "tessedit_do_invert", "1");
    invert_on = 1;
    api = NULL;
    gating = 0;
}

void shelfscan_line_invert_counts(long *lines, long *gated, long *inverted) {
    *lines = lines_seen;
    *gated = lines_gated;
    *inverted = inversions;
}

int shelfscan_line_invert_active(void) { return __atomic_load_n(&interposed, __ATOMIC_RELAXED); }

// Otsu's split of `hist`: the threshold with the largest variance between the two classes (the
// darker class is 0...split), the classes' pixel counts and mean grays. 0 when the histogram
// holds fewer than two grays.
static int otsu(const long *hist, int *split, double *n0, double *n1, double *m0, double *m1) {
    double n = 0, total = 0;
    for (int v = 0; v < 256; v++) { n += hist[v]; total += (double)v * hist[v]; }
    double c0 = 0, s0 = 0, best = -1;
    *split = -1;
    for (int t = 0; t < 255; t++) {
        c0 += hist[t];
        s0 += (double)t * hist[t];
        double c1 = n - c0;
        if (c0 == 0 || c1 == 0) continue;
        double a = s0 / c0, b = (total - s0) / c1;
        double between = c0 * c1 * (b - a) * (b - a);
        if (between > best) { best = between; *split = t; *n0 = c0; *n1 = c1; *m0 = a; *m1 = b; }
    }
    return *split >= 0;
}

// The pixels lighter by more than `step` than the commonest gray from `lo` up (a window of 7
// grays), the ground.
static double lighter_than_ground(const long *hist, int lo) {
    int mode = lo;
    long most = -1;
    for (int v = lo; v < 256; v++) {
        long around = 0;
        for (int u = v - 3; u <= v + 3; u++) if (u >= lo && u < 256) around += hist[u];
        if (around > most) { most = around; mode = v; }
    }
    double count = 0;
    for (int v = mode + step + 1; v < 256; v++) count += hist[v];
    return count;
}

// The share of the darker class's pixels (grays up to `split` in `g`, w x h) that lie in a k x k
// square wholly of that class: next to none for letters' strokes, many for a dark band.
static double dark_solid_share(const l_uint8 *g, int w, int h, int split, int k) {
    int *sum = calloc((size_t)(w + 1) * (h + 1), sizeof(int));
    if (sum == NULL) return 1;
    // sum[(y + 1) * (w + 1) + x + 1]: dark pixels above and left of (x, y), inclusive.
    for (int y = 0; y < h; y++) {
        int run = 0;
        for (int x = 0; x < w; x++) {
            run += g[y * w + x] <= split;
            sum[(y + 1) * (w + 1) + x + 1] = sum[y * (w + 1) + x + 1] + run;
        }
    }
    long dark = 0, inside = 0;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            if (g[y * w + x] > split) continue;
            dark++;
            int x0 = x - k / 2, y0 = y - k / 2, x1 = x0 + k, y1 = y0 + k;
            if (x0 < 0 || y0 < 0 || x1 > w || y1 > h) continue;
            int n = sum[y1 * (w + 1) + x1] - sum[y0 * (w + 1) + x1] - sum[y1 * (w + 1) + x0] + sum[y0 * (w + 1) + x0];
            inside += n == k * k;
        }
    }
    free(sum);
    return dark ? (double)inside / dark : 0;
}

int shelfscan_line_dark_on_light(void *p) {
    struct Pix *pix = p;
    if (pix == NULL || pixGetDepth(pix) != 8) return 0;
    int w = pixGetWidth(pix), h = pixGetHeight(pix), wpl = pixGetWpl(pix);
    if (w < 4 || h < 4) return 0;
    l_uint8 *g = malloc((size_t)w * h);
    if (g == NULL) return 0;
    long hist[256] = {0};
    const uint32_t *data = pixGetData(pix);
    for (int y = 0; y < h; y++) {
        // Leptonica keeps 8-bit pixels in 32-bit words, most significant byte first.
        const l_uint8 *row = (const l_uint8 *)(data + (size_t)y * wpl);
        for (int x = 0; x < w; x++) hist[g[y * w + x] = row[x ^ 3]]++;
    }
    int split, yes = 0;
    double n0, n1, m0, m1;
    if (otsu(hist, &split, &n0, &n1, &m0, &m1) && m1 - m0 >= contrast && n0 <= ink_share * (n0 + n1)) {
        // The ground must hold no light letters: next to no pixel lighter than its commonest gray
        // by `step` (white letters on a pale orange Penguin spine, beside its author's name in
        // black, are light letters on a light ground); and the dark must be strokes, not a band
        // (white letters on a narrow navy spine between white ones: the letters and the
        // neighbours are one tone).
        yes = lighter_than_ground(hist, split + 1) <= stray * (n0 + n1)
            && dark_solid_share(g, w, h, split, h / 5 > 5 ? h / 5 : 5) <= solid;
    }
    free(g);
    return yes;
}

// Sets tessedit_do_invert on the reading's engine, when it changes.
static void set_invert(int on) {
    if (on == invert_on) return;
    TessBaseAPISetVariable(api, "tessedit_do_invert", on ? "1" : "0");
    invert_on = on;
}

int pixWriteMem(l_uint8 **data, size_t *size, struct Pix *pix, int format) {
    pthread_once(&looked_up, look_up);
    __atomic_store_n(&interposed, 1, __ATOMIC_RELAXED);
    if (real_write_mem == NULL) return 1;
    if (api == NULL) return real_write_mem(data, size, pix, format);
    lines_seen++;
    int dark_on_light = gating && shelfscan_line_dark_on_light(pix);
    if (dark_on_light) lines_gated++;
    set_invert(!dark_on_light);
    return real_write_mem(data, size, pix, format);
}

struct Pix *pixInvert(struct Pix *pixd, struct Pix *pixs) {
    pthread_once(&looked_up, look_up);
    if (api != NULL) inversions++;
    return real_invert != NULL ? real_invert(pixd, pixs) : NULL;
}
