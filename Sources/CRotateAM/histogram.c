// See include/rotateam.h (shelfscan_gray_histogram).
#include <stdint.h>
#include <string.h>
#include "rotateam.h"
#include "lept.h"

struct Numa *shelfscan_gray_histogram(struct Pix *pix) {
    if (!pix || pixGetDepth(pix) != 8 || pixGetColormap(pix)) return NULL;
    const int w = pixGetWidth(pix), h = pixGetHeight(pix), wpl = pixGetWpl(pix);
    // Leptonica adds 1.0 to a float per pixel: exact below 2^24 pixels, as these counts are.
    if ((int64_t)w * (int64_t)h >= (int64_t)1 << 24) return NULL;
    // Four tables, a word's four bytes each to its own (no wait on the same count twice in a
    // row); a row's whole words hold its first w & ~3 pixels, the rest taken one by one.
    uint32_t counts[4][256];
    memset(counts, 0, sizeof counts);
    const uint32_t *data = pixGetData(pix);
    const int words = w >> 2;
    for (int i = 0; i < h; i++) {
        const uint32_t *line = data + (size_t)i * (size_t)wpl;
        for (int k = 0; k < words; k++) {
            uint32_t v = line[k];
            counts[0][v & 0xff]++;
            counts[1][(v >> 8) & 0xff]++;
            counts[2][(v >> 16) & 0xff]++;
            counts[3][v >> 24]++;
        }
        for (int j = words << 2; j < w; j++) counts[0][byte_at(line, j)]++;
    }
    struct Numa *na = numaCreate(256);
    if (!na) return NULL;
    numaSetCount(na, 256);
    float *array = numaGetFArray(na, 0);  // L_NOCOPY
    if (!array) {
        numaDestroy(&na);
        return NULL;
    }
    for (int v = 0; v < 256; v++) array[v] = (float)(counts[0][v] + counts[1][v] + counts[2][v] + counts[3][v]);
    return na;
}
