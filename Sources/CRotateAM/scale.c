// See include/rotateam.h (shelfscan_scale_area_map, shelfscan_scale; pixScaleAreaMap,
// pixScaleGrayLI and pixUnsharpMaskingGray2D).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rotateam.h"

// The positions are the library's float and double operations, one by one: never fused.
#pragma clang fp contract(off)

#include "lept.h"

enum { self_checks = 8 };

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static void decide(void);
static int state;
static long checked, differed, li_checked, sharpen_checked, interpolation_checked;
// Results of the exported steps made here (for tests: Leptonica's own calls reach them).
static long steps_here;

typedef struct Pix *(*scale_fn)(struct Pix *, float, float);
typedef struct Pix *(*sharpen_fn)(struct Pix *, int, float);
// The library's own functions (the executable defines and exports functions of these names).
static scale_fn library_area_map, library_gray_li;
static sharpen_fn library_sharpen;

// sharpen.c: pixUnsharpMaskingGray2D's pixels here (NULL where it does not apply).
struct Pix *shelfscan_sharpen_here(struct Pix *pixs, int halfwidth, float fract);

/// Whether the library's pixScaleAreaMap would take its general 8-bit path for these factors
/// (not its 2x cascades, nor pixScaleSmooth below 0.02, nor pixScaleGeneral from 0.7).
static bool general_gray(struct Pix *pix, float scalex, float scaley) {
    if (!pix || pixGetDepth(pix) != 8 || pixGetColormap(pix)) return false;
    float minscale = scalex < scaley ? scalex : scaley, maxscale = scalex > scaley ? scalex : scaley;
    if (minscale < 0.02 || maxscale >= 0.7) return false;
    if (scalex == scaley && (scalex == 0.5 || scalex == 0.25 || scalex == 0.125 || scalex == 0.0625)) return false;
    int ws = pixGetWidth(pix), hs = pixGetHeight(pix);
    int wd = (int)(scalex * (float)ws + 0.5), hd = (int)(scaley * (float)hs + 0.5);
    return wd >= 1 && hd >= 1;
}

/// One destination column's (or row's) source span, in sixteenths: the first source pixel and
/// the share of it covered (16 - fraction), the last and its share, and whether it lies at the
/// far edge (the library copies the first source pixel there).
typedef struct { int first, firstShare, last, lastShare, span; bool edge; } Span;

// The library's coordinates: scale in single precision from a double quotient, the upper-left
// corner from a float product, the lower-right from a double one, both truncated.
static bool spans(Span *out, int nd, int ns) {
    float sc = 16. * (float)ns / (float)nd;
    int m2 = ns - 2;
    for (int j = 0; j < nd; j++) {
        int u = (int)(sc * j);
        int l = (int)(sc * (j + 1.0));
        Span s = { u >> 4, 16 - (u & 0x0f), l >> 4, l & 0x0f, 0, false };
        s.edge = s.last > m2;
        int del = s.last - s.first;
        if (!s.edge && del < 1) return false;  // never for factors under 0.7; the library's then
        s.span = s.firstShare + 16 * (del - 1) + s.lastShare;
        out[j] = s;
    }
    return true;
}

/// Leptonica 1.82's scaleGrayAreaMapLow, the same sums in another order: each destination
/// pixel's weighted sum of source pixels (weights in 256ths: corners, sides and interior) is
/// a row weight times a column weight, so the source rows of each destination row are first
/// added up with their row weights, every column at once (in the words' byte order: the same
/// for every row), then that one row summed across each destination column's span (from its
/// running sums). Integers throughout: the same totals, the same division.
CLONED static struct Pix *scale_here(struct Pix *pixs, float scalex, float scaley) {
    int ws = pixGetWidth(pixs), hs = pixGetHeight(pixs), wpls = pixGetWpl(pixs);
    int wd = (int)(scalex * (float)ws + 0.5), hd = (int)(scaley * (float)hs + 0.5);
    Span *cols = malloc(sizeof(Span) * (size_t)wd), *rows = malloc(sizeof(Span) * (size_t)hd);
    if (!cols || !rows || !spans(cols, wd, ws) || !spans(rows, hd, hs)) {
        free(cols);
        free(rows);
        return NULL;
    }
    size_t bytes = 4 * (size_t)wpls;
    int32_t *down = malloc(sizeof(int32_t) * bytes);
    // Running sums wrap (unsigned) on very wide rows at tiny factors; their differences, each
    // within a destination pixel's span, come out exact.
    uint32_t *running = malloc(sizeof(uint32_t) * ((size_t)ws + 1));
    struct Pix *pixd = (down && running) ? pixCreate(wd, hd, 8) : NULL;
    if (!pixd) {
        free(cols); free(rows); free(down); free(running);
        return NULL;
    }
    pixCopyInputFormat(pixd, pixs);
    pixCopyResolution(pixd, pixs);
    pixScaleResolution(pixd, scalex, scaley);
    const uint32_t *datas = pixGetData(pixs);
    uint32_t *datad = pixGetData(pixd);
    int wpld = pixGetWpl(pixd);
    for (int i = 0; i < hd; i++) {
        Span r = rows[i];
        const uint32_t *first = datas + (size_t)r.first * wpls;
        uint32_t *lined = datad + (size_t)i * wpld;
        if (r.edge) {
            for (int j = 0; j < wd; j++) set_byte(lined, j, byte_at(first, cols[j].first));
            continue;
        }
        const uint8_t *top = (const uint8_t *)first, *bottom = (const uint8_t *)(datas + (size_t)r.last * wpls);
        int32_t wt = r.firstShare, wb = r.lastShare;
        for (size_t n = 0; n < bytes; n++) down[n] = wt * top[n] + wb * bottom[n];
        for (int k = r.first + 1; k < r.last; k++) {
            const uint8_t *mid = (const uint8_t *)(datas + (size_t)k * wpls);
            for (size_t n = 0; n < bytes; n++) down[n] += 16 * mid[n];
        }
        uint32_t run = 0;
        running[0] = 0;
        for (int x = 0; x < ws; x++) {
            run += (uint32_t)down[x ^ 3];
            running[x + 1] = run;
        }
        for (int j = 0; j < wd; j++) {
            Span c = cols[j];
            uint8_t v;
            if (c.edge) {
                v = byte_at(first, c.first);
            } else {
                int32_t inner = (int32_t)(running[c.last] - running[c.first + 1]);
                int32_t sum = c.firstShare * down[c.first ^ 3] + 16 * inner + c.lastShare * down[c.last ^ 3];
                v = (uint8_t)((sum + 128) / (c.span * r.span));
            }
            set_byte(lined, j, v);
        }
    }
    free(cols); free(rows); free(down); free(running);
    return pixd;
}

// Size, depth, words, resolution, input format and text.
static bool same_picture_all(struct Pix *a, struct Pix *b) { return same_picture(a, b, same_resolution | same_input_format | same_text); }

/// `own` for the first `self_checks` results of a kind (counted in `count`) compared with
/// `theirs`, the library's: the same, `own`; different, the library's, and every later
/// scaling and sharpening goes to the library.
static struct Pix *agreed(struct Pix *own, struct Pix *theirs) {
    if (same_picture_all(own, theirs)) {
        pixDestroy(&theirs);
        return own;
    }
    __atomic_add_fetch(&differed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
    pixDestroy(&own);
    return theirs;
}

/// Whether this result of a kind is one of its first `self_checks` (counted in `count`).
static bool checking(long *count) {
    if (__atomic_load_n(count, __ATOMIC_RELAXED) >= self_checks) return false;
    return __atomic_add_fetch(count, 1, __ATOMIC_RELAXED) <= self_checks;
}

static inline int decided_state(void) {
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    return s;
}

/// Whether the library's pixScale would interpolate this 8-bit picture in its general case
/// (pixScaleGeneral -> pixScaleGrayLI, not its copy, 2x or 4x shortcuts).
static bool interpolated_gray(struct Pix *pix, float scalex, float scaley) {
    if (!pix || pixGetDepth(pix) != 8 || pixGetColormap(pix)) return false;
    if (scalex <= 0.0 || scaley <= 0.0) return false;
    float maxscale = scalex > scaley ? scalex : scaley;
    if (maxscale < 0.7) return false;
    if ((scalex == 1.0 && scaley == 1.0) || (scalex == 2.0 && scaley == 2.0) || (scalex == 4.0 && scaley == 4.0)) return false;
    int ws = pixGetWidth(pix), hs = pixGetHeight(pix);
    int wd = (int)(scalex * (float)ws + 0.5), hd = (int)(scaley * (float)hs + 0.5);
    return wd >= 1 && hd >= 1;
}

/// Leptonica 1.82's scaleGrayLILow, the same sums in another order: each destination pixel
/// weighs the four source pixels around its position (in sixteenths) by (16 - xf) or xf times
/// (16 - yf) or yf, a column weight times a row weight, so the two source rows are first
/// mixed by the row weights, every column at once, then each destination pixel takes its two
/// columns of that. The library's edges: the last row mixed with itself, the last column with
/// itself. Integers: the same totals, the same division.
CLONED static struct Pix *interpolate_here(struct Pix *pixs, float scalex, float scaley) {
    int ws = pixGetWidth(pixs), hs = pixGetHeight(pixs), wpls = pixGetWpl(pixs);
    int wd = (int)(scalex * (float)ws + 0.5), hd = (int)(scaley * (float)hs + 0.5);
    float scx = 16. * (float)ws / (float)wd, scy = 16. * (float)hs / (float)hd;
    int wm2 = ws - 2, hm2 = hs - 2;
    int *xp = malloc(sizeof(int) * (size_t)wd), *xf = malloc(sizeof(int) * (size_t)wd);
    size_t bytes = 4 * (size_t)wpls;
    int32_t *mixed = malloc(sizeof(int32_t) * bytes);
    struct Pix *pixd = (xp && xf && mixed) ? pixCreate(wd, hd, 8) : NULL;
    if (!pixd) {
        free(xp); free(xf); free(mixed);
        return NULL;
    }
    pixCopyText(pixd, pixs);
    pixCopyResolution(pixd, pixs);
    pixCopyInputFormat(pixd, pixs);
    pixScaleResolution(pixd, scalex, scaley);
    for (int j = 0; j < wd; j++) {
        int xpm = (int)(scx * (float)j);
        xp[j] = xpm >> 4;
        xf[j] = xpm & 0x0f;
    }
    const uint32_t *datas = pixGetData(pixs);
    uint32_t *datad = pixGetData(pixd);
    int wpld = pixGetWpl(pixd);
    for (int i = 0; i < hd; i++) {
        int ypm = (int)(scy * (float)i);
        int yp = ypm >> 4, yf = ypm & 0x0f;
        uint32_t *lined = datad + (size_t)i * wpld;
        const uint8_t *top = (const uint8_t *)(datas + (size_t)yp * wpls);
        const uint8_t *below = yp > hm2 ? top : (const uint8_t *)(datas + (size_t)(yp + 1) * wpls);
        int32_t wt = 16 - yf, wb = yf;
        for (size_t n = 0; n < bytes; n++) mixed[n] = wt * top[n] + wb * below[n];
        for (int j = 0; j < wd; j++) {
            int x = xp[j], f = xf[j];
            int32_t left = mixed[x ^ 3], right = x > wm2 ? left : mixed[(x + 1) ^ 3];
            set_byte(lined, j, (uint8_t)(((16 - f) * left + f * right + 128) / 256));
        }
    }
    free(xp); free(xf); free(mixed);
    return pixd;
}

/// pixScaleGeneral's steps after pixScaleGrayLI (`interpolated`, consumed): sharpened below
/// 1.4 (pixUnsharpMasking(2, 0.4), the executable's where it runs), the source's text and input
/// format.
static struct Pix *scale_interpolated(struct Pix *pixs, struct Pix *interpolated, float scalex, float scaley) {
    float maxscale = scalex > scaley ? scalex : scaley;
    struct Pix *pixd = interpolated;
    if (maxscale < 1.4) {
        pixd = pixUnsharpMaskingGray2D(interpolated, 2, 0.4f);
        pixDestroy(&interpolated);
        if (!pixd) return NULL;
    }
    pixCopyText(pixd, pixs);
    pixCopyInputFormat(pixd, pixs);
    return pixd;
}

struct Pix *pixScaleAreaMap(struct Pix *pix, float scalex, float scaley) {
    if (decided_state() != 1 || !general_gray(pix, scalex, scaley)) return library_area_map(pix, scalex, scaley);
    struct Pix *own = scale_here(pix, scalex, scaley);
    if (!own) return library_area_map(pix, scalex, scaley);
    __atomic_add_fetch(&steps_here, 1, __ATOMIC_RELAXED);
    return checking(&checked) ? agreed(own, library_area_map(pix, scalex, scaley)) : own;
}

struct Pix *pixScaleGrayLI(struct Pix *pix, float scalex, float scaley) {
    if (decided_state() != 1 || !interpolated_gray(pix, scalex, scaley)) return library_gray_li(pix, scalex, scaley);
    struct Pix *own = interpolate_here(pix, scalex, scaley);
    if (!own) return library_gray_li(pix, scalex, scaley);
    __atomic_add_fetch(&steps_here, 1, __ATOMIC_RELAXED);
    return checking(&interpolation_checked) ? agreed(own, library_gray_li(pix, scalex, scaley)) : own;
}

struct Pix *pixUnsharpMaskingGray2D(struct Pix *pix, int halfwidth, float fract) {
    struct Pix *own = decided_state() == 1 ? shelfscan_sharpen_here(pix, halfwidth, fract) : NULL;
    if (!own) return library_sharpen(pix, halfwidth, fract);
    __atomic_add_fetch(&steps_here, 1, __ATOMIC_RELAXED);
    return checking(&sharpen_checked) ? agreed(own, library_sharpen(pix, halfwidth, fract)) : own;
}

struct Pix *shelfscan_library_unsharp(struct Pix *pix, int halfwidth, float fract) {
    decided_state();
    if (pix && pixGetDepth(pix) == 8 && !pixGetColormap(pix) && fract > 0.0f && (halfwidth == 1 || halfwidth == 2) && library_sharpen)
        return library_sharpen(pix, halfwidth, fract);
    return pixUnsharpMaskingGray(pix, halfwidth, fract);
}

struct Pix *shelfscan_scale(struct Pix *pix, float scalex, float scaley) {
    if (decided_state() != 1 || !interpolated_gray(pix, scalex, scaley)) return pixScale(pix, scalex, scaley);
    struct Pix *interpolated = pixScaleGrayLI(pix, scalex, scaley);
    struct Pix *own = interpolated ? scale_interpolated(pix, interpolated, scalex, scaley) : NULL;
    if (!own) return pixScale(pix, scalex, scaley);
    // The steps after the interpolation checked against the library's (its own leaves are the
    // executable's where it exports them, each checked above).
    return checking(&li_checked) ? agreed(own, pixScale(pix, scalex, scaley)) : own;
}

static void decide(void) {
    library_area_map = (scale_fn)dlsym(RTLD_NEXT, "pixScaleAreaMap");
    library_gray_li = (scale_fn)dlsym(RTLD_NEXT, "pixScaleGrayLI");
    library_sharpen = (sharpen_fn)dlsym(RTLD_NEXT, "pixUnsharpMaskingGray2D");
    const char *setting = getenv("SHELFSCAN_SCALE_AREA");
    bool found = library_area_map && library_gray_li && library_sharpen;
    __atomic_store_n(&state, found && !(setting && strcmp(setting, "off") == 0) ? 1 : 2, __ATOMIC_RELEASE);
}

struct Pix *shelfscan_scale_area_map(struct Pix *pix, float scalex, float scaley) { return pixScaleAreaMap(pix, scalex, scaley); }

int shelfscan_scale_area_state(void) { return decided_state(); }

int shelfscan_scale_area_use(int on) {
    decided_state();
    bool found = library_area_map && library_gray_li && library_sharpen;
    __atomic_store_n(&state, on && found && __atomic_load_n(&differed, __ATOMIC_RELAXED) == 0 ? 1 : 2, __ATOMIC_RELEASE);
    return shelfscan_scale_area_state();
}

long shelfscan_scale_steps_here(void) { return __atomic_load_n(&steps_here, __ATOMIC_RELAXED); }

void shelfscan_scale_area_checked(long *scalings, long *differences) {
    long n = 0;
    long *counts[] = {&checked, &li_checked, &interpolation_checked, &sharpen_checked};
    for (int k = 0; k < 4; k++) {
        long c = __atomic_load_n(counts[k], __ATOMIC_RELAXED);
        n += c < self_checks ? c : self_checks;
    }
    *scalings = n;
    *differences = __atomic_load_n(&differed, __ATOMIC_RELAXED);
}

static uint32_t next_random(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

long shelfscan_scale_area_compare(int trials, unsigned seed) {
    decided_state();
    if (!library_area_map || !library_gray_li || !library_sharpen) return -1;
    uint32_t s = seed * 2654435761u + 1;
    long differences = 0;
    for (int t = 0; t < trials; t++) {
        int w = 1 + (int)(next_random(&s) % (t % 10 == 0 ? 1200 : 300)), h = 1 + (int)(next_random(&s) % 300);
        struct Pix *pix = pixCreate(w, h, 8);
        if (!pix) return -1;
        if (t % 3 == 0) pixSetResolution(pix, 72 + (int)(next_random(&s) % 600), 72 + (int)(next_random(&s) % 600));
        uint32_t *data = pixGetData(pix);
        int wpl = pixGetWpl(pix);
        // Smooth gradients, edges and noise: sums reach every value, and a word's four bytes differ.
        int kind = t % 3;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                uint8_t v = kind == 0 ? (uint8_t)next_random(&s)
                          : kind == 1 ? (uint8_t)((x * 7 + y * 3) & 0xff)
                          : (uint8_t)(((x / 5 + y / 7) & 1) ? 250 : 5);
                set_byte(data + (size_t)y * wpl, x, v);
            }
        }
        // Shrinking by area (under 0.7) every other trial, interpolating (0.7 to 4.5) between.
        float low = t % 2 == 0 ? 0.02f : 0.7f, spread = t % 2 == 0 ? 0.68f : 3.8f;
        float f = low + spread * (float)(next_random(&s) % 100000) / 100000.0f;
        float g = t % 4 < 2 ? low + spread * (float)(next_random(&s) % 100000) / 100000.0f : f;
        if (t % 10 == 5) f = g = 1.5f;
        // Each of the executable's steps against the library's own (its functions found
        // past the executable's), then the whole of pixScale (whose steps are the executable's
        // where it exports them) against the executable's interpolation and sharpening.
        if (general_gray(pix, f, g)) {
            struct Pix *own = scale_here(pix, f, g);
            struct Pix *library = library_area_map(pix, f, g);
            if (own && !same_picture_all(own, library)) differences++;
            pixDestroy(&own);
            pixDestroy(&library);
        } else if (interpolated_gray(pix, f, g)) {
            struct Pix *interpolated = interpolate_here(pix, f, g);
            struct Pix *library = library_gray_li(pix, f, g);
            if (interpolated && !same_picture_all(interpolated, library)) differences++;
            pixDestroy(&library);
            struct Pix *own = interpolated ? scale_interpolated(pix, interpolated, f, g) : NULL;
            library = pixScale(pix, f, g);
            if (own && !same_picture_all(own, library)) differences++;
            pixDestroy(&own);
            pixDestroy(&library);
        }
        // The unsharp mask of 1 and 2 (pixScale's after area maps and interpolations) by a
        // random fraction, now and then over a text, on the picture as it is.
        if (t % 5 == 1) pixSetText(pix, "text");
        int halfwidth = 1 + (int)(next_random(&s) % 2);
        float fract = t % 4 == 0 ? (halfwidth == 1 ? 0.2f : 0.4f) : (float)(next_random(&s) % 1000 + 1) / 500.0f;
        struct Pix *own = shelfscan_sharpen_here(pix, halfwidth, fract);
        if (own) {
            struct Pix *library = library_sharpen(pix, halfwidth, fract);
            if (!same_picture_all(own, library)) differences++;
            pixDestroy(&library);
            pixDestroy(&own);
        }
        pixDestroy(&pix);
    }
    return differences;
}
