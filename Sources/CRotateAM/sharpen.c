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

struct Pix *shelfscan_contrast_sharpen(struct Pix *pixs, float contrast, float fract) {
    if (!pixs || pixGetDepth(pixs) != 8 || pixGetColormap(pixs) || !(contrast >= 0.0f) || !(fract > 0.0f)) return NULL;
    const int w = pixGetWidth(pixs), h = pixGetHeight(pixs), wpls = pixGetWpl(pixs);
    if (w < 5 || h < 5) return NULL;
    const uint32_t *datas = pixGetData(pixs);

    // Contrast 0: the unsharp mask alone (pixUnsharpMaskingGray), each gray as it is.
    uint8_t lut[256];
    if (contrast == 0.0f) {
        for (int v = 0; v < 256; v++) lut[v] = (uint8_t)v;
    } else if (!contrast_table(datas, h, wpls, contrast, lut)) {
        return NULL;
    }

    // The contrast image, as plain rows of bytes.
    uint8_t *gray = malloc((size_t)w * (size_t)h);
    // Each row's sums of five across (pixUnsharpMaskingGray2D's horizontal pass), for j in 2 ..< w - 2.
    int32_t *across = malloc(sizeof(int32_t) * (size_t)w * (size_t)h);
    struct Pix *pixd = pixCreate(w, h, 8);
    if (!gray || !across || !pixd) {
        free(gray);
        free(across);
        if (pixd) pixDestroy(&pixd);
        return NULL;
    }
    pixCopyResolution(pixd, pixs);
    for (int i = 0; i < h; i++) {
        const uint32_t *line = datas + (size_t)i * (size_t)wpls;
        uint8_t *row = gray + (size_t)i * (size_t)w;
        for (int j = 0; j < w; j++) row[j] = lut[byte_at(line, j)];
        int32_t *sums = across + (size_t)i * (size_t)w;
        for (int j = 2; j < w - 2; j++) sums[j] = row[j - 2] + row[j - 1] + row[j] + row[j + 1] + row[j + 2];
    }

    // pixUnsharpMaskingGray2D, halfwidth 2: the border of two as it is (pixCopyBorder), inside
    // it each pixel plus fract times its difference from its 5x5 mean, rounded, clamped.
    uint32_t *datad = pixGetData(pixd);
    const int wpld = pixGetWpl(pixd);
    const float norm = (float)(1.0 / 25.0);
    for (int i = 0; i < h; i++) {
        uint32_t *lined = datad + (size_t)i * (size_t)wpld;
        const uint8_t *row = gray + (size_t)i * (size_t)w;
        if (i < 2 || i >= h - 2) {
            for (int j = 0; j < w; j++) set_byte(lined, j, row[j]);
            continue;
        }
        for (int j = 0; j < 2; j++) set_byte(lined, j, row[j]);
        for (int j = w - 2; j < w; j++) set_byte(lined, j, row[j]);
        const int32_t *s0 = across + (size_t)(i - 2) * (size_t)w, *s1 = s0 + w, *s2 = s1 + w, *s3 = s2 + w, *s4 = s3 + w;
        for (int j = 2; j < w - 2; j++) {
            // The five floats' sum is exact (whole numbers under 2^24), so the integer sum's.
            float val = norm * (float)(s0[j] + s1[j] + s2[j] + s3[j] + s4[j]);
            int sval = row[j];
            int ival = (int)((float)sval + fract * ((float)sval - val) + 0.5);
            ival = ival < 0 ? 0 : (ival > 255 ? 255 : ival);
            set_byte(lined, j, (uint8_t)ival);
        }
    }
    free(gray);
    free(across);
    return pixd;
}
