// See include/rotateam.h (shelfscan_contrast_sharpen).
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "rotateam.h"
#include "lept.h"

// Every float and double operation below is Leptonica's (enhance.c, pixarith.c), one by one:
// never fused.
#pragma clang fp contract(off)

// pixMaxDynamicRange (L_LINEAR_SCALE) then pixContrastTRC as one table: false where the
// picture is all black (Leptonica's scale is then infinite) or the curve cannot be made.
static bool contrast_table(const uint32_t *datas, int h, int wpls, float contrast, uint8_t lut[256]) {
    // pixMaxDynamicRange: the largest byte of every word, a row's padding included, then each
    // gray scaled by 255 / max.
    uint32_t max = 0;
    for (int i = 0; i < h; i++) {
        const uint32_t *line = datas + (size_t)i * (size_t)wpls;
        for (int j = 0; j < wpls; j++) {
            uint32_t word = line[j];
            uint32_t a = word >> 24, b = (word >> 16) & 0xff, c = (word >> 8) & 0xff, d = word & 0xff;
            if (a > max) max = a;
            if (b > max) max = b;
            if (c > max) max = c;
            if (d > max) max = d;
        }
    }
    if (max == 0) return false;
    const float factor = (float)(255. / (float)max);
    // pixContrastTRC: numaContrastTRC's curve, as pixTRCMap reads it (numaGetIArray).
    struct Numa *curve = numaContrastTRC(contrast);
    if (!curve) return false;
    // Grays above the largest never occur (and would scale past 255): left 0.
    memset(lut, 0, 256);
    for (int v = 0; v <= (int)max; v++) {
        uint8_t stretched = (uint8_t)(factor * (float)v + 0.5);
        int mapped = 0;
        numaGetIValue(curve, stretched, &mapped);
        lut[v] = (uint8_t)mapped;
    }
    numaDestroy(&curve);
    return true;
}

/// pixUnsharpMaskingGray2D of the picture `lut` makes of `pixs` (each gray as it is without
/// one), `halfwidth` 1 or 2 (a constant where inlined): the border of `halfwidth` as it is
/// (pixCopyBorder), inside it each pixel plus `fract` times its difference from the mean of its
/// (2 halfwidth + 1)^2 square, rounded, clamped. `pixd`: `pixs`'s size, zeroed. The library's
/// float sums are exact (whole numbers under 2^24), so the integer sums'; rows are made as they
/// are needed, the last 2 halfwidth + 1 of them (grays and their sums across) kept in rings.
static inline __attribute__((always_inline)) bool sharpen_into(struct Pix *pixd, struct Pix *pixs, const uint8_t *lut,
                                                               const int halfwidth, float fract) {
    const int w = pixGetWidth(pixs), h = pixGetHeight(pixs), wpls = pixGetWpl(pixs);
    const uint32_t *datas = pixGetData(pixs);
    const int side = 2 * halfwidth + 1;
    uint8_t *gray = malloc((size_t)side * (size_t)w);
    int32_t *across = malloc(sizeof(int32_t) * (size_t)side * (size_t)w);
    if (!gray || !across) {
        free(gray);
        free(across);
        return false;
    }
    uint32_t *datad = pixGetData(pixd);
    const int wpld = pixGetWpl(pixd);
    const float norm = halfwidth == 1 ? (float)(1.0 / 9.0) : (float)(1.0 / 25.0);
    for (int r = 0; r < h; r++) {
        // Row r: its grays and its sums across (the library's horizontal pass).
        const uint32_t *line = datas + (size_t)r * (size_t)wpls;
        uint8_t *row = gray + (size_t)(r % side) * (size_t)w;
        if (lut) for (int j = 0; j < w; j++) row[j] = lut[byte_at(line, j)];
        else for (int j = 0; j < w; j++) row[j] = byte_at(line, j);
        int32_t *sums = across + (size_t)(r % side) * (size_t)w;
        if (halfwidth == 1) for (int j = 1; j < w - 1; j++) sums[j] = row[j - 1] + row[j] + row[j + 1];
        else for (int j = 2; j < w - 2; j++) sums[j] = row[j - 2] + row[j - 1] + row[j] + row[j + 1] + row[j + 2];
        if (r < halfwidth || r >= h - halfwidth) {
            uint32_t *lined = datad + (size_t)r * (size_t)wpld;
            for (int j = 0; j < w; j++) set_byte(lined, j, row[j]);
        }
        // Row i, whose square's last row r is: every ring slot is one of its rows.
        const int i = r - halfwidth;
        if (i < halfwidth || i >= h - halfwidth) continue;
        uint32_t *lined = datad + (size_t)i * (size_t)wpld;
        const uint8_t *mid = gray + (size_t)(i % side) * (size_t)w;
        for (int j = 0; j < halfwidth; j++) set_byte(lined, j, mid[j]);
        for (int j = w - halfwidth; j < w; j++) set_byte(lined, j, mid[j]);
        const int32_t *a0 = across, *a1 = a0 + w, *a2 = a1 + w, *a3 = halfwidth == 2 ? a2 + w : a2, *a4 = halfwidth == 2 ? a3 + w : a2;
        for (int j = halfwidth; j < w - halfwidth; j++) {
            int32_t sum = a0[j] + a1[j] + a2[j];
            if (halfwidth == 2) sum += a3[j] + a4[j];
            float val = norm * (float)sum;
            int sval = mid[j];
            int ival = (int)((float)sval + fract * ((float)sval - val) + 0.5);
            ival = ival < 0 ? 0 : (ival > 255 ? 255 : ival);
            set_byte(lined, j, (uint8_t)ival);
        }
    }
    free(gray);
    free(across);
    return true;
}

CLONED static bool sharpen_1(struct Pix *pixd, struct Pix *pixs, const uint8_t *lut, float fract) {
    return sharpen_into(pixd, pixs, lut, 1, fract);
}

CLONED static bool sharpen_2(struct Pix *pixd, struct Pix *pixs, const uint8_t *lut, float fract) {
    return sharpen_into(pixd, pixs, lut, 2, fract);
}

struct Pix *shelfscan_contrast_sharpen(struct Pix *pixs, float contrast, float fract) {
    if (!pixs || pixGetDepth(pixs) != 8 || pixGetColormap(pixs) || !(contrast >= 0.0f) || !(fract > 0.0f)) return NULL;
    const int w = pixGetWidth(pixs), h = pixGetHeight(pixs), wpls = pixGetWpl(pixs);
    if (w < 5 || h < 5) return NULL;
    // Contrast 0: the unsharp mask alone (pixUnsharpMaskingGray), each gray as it is.
    uint8_t lut[256];
    if (contrast != 0.0f && !contrast_table(pixGetData(pixs), h, wpls, contrast, lut)) return NULL;
    struct Pix *pixd = pixCreate(w, h, 8);
    if (!pixd) return NULL;
    pixCopyResolution(pixd, pixs);
    if (!sharpen_2(pixd, pixs, contrast != 0.0f ? lut : NULL, fract)) pixDestroy(&pixd);
    return pixd;
}

struct Pix *shelfscan_sharpen_here(struct Pix *pixs, int halfwidth, float fract) {
    if (!pixs || pixGetDepth(pixs) != 8 || pixGetColormap(pixs) || !(fract > 0.0f) || (halfwidth != 1 && halfwidth != 2))
        return NULL;
    const int w = pixGetWidth(pixs), h = pixGetHeight(pixs);
    if (w < 2 * halfwidth + 1 || h < 2 * halfwidth + 1) return NULL;
    // pixCopyBorder's picture: pixCreateTemplate's (resolution, text, input format).
    struct Pix *pixd = pixCreate(w, h, 8);
    if (!pixd) return NULL;
    pixCopyResolution(pixd, pixs);
    pixCopyText(pixd, pixs);
    pixCopyInputFormat(pixd, pixs);
    if (!(halfwidth == 1 ? sharpen_1(pixd, pixs, NULL, fract) : sharpen_2(pixd, pixs, NULL, fract))) pixDestroy(&pixd);
    return pixd;
}
