// See include/rotateam.h (shelfscan_rotate90, shelfscan_crop).
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "rotateam.h"
#include "lept.h"

#if defined(__x86_64__)
#define SSSE3 __attribute__((target("ssse3")))

/// Source pixel (x, y) into destination pixel (i, j) of an 8-bit picture: the turn's
/// coordinates (clockwise: i = x, j = wd - 1 - y; counter-clockwise: i = hd - 1 - x, j = y).
static inline void turn_pixel(const uint32_t *datas, int wpls, uint32_t *datad, int wpld, int wd, int hd, int x, int y, bool clockwise) {
    int i = clockwise ? x : hd - 1 - x, j = clockwise ? wd - 1 - y : y;
    set_byte(datad + (size_t)i * wpld, j, byte_at(datas + (size_t)y * wpls, x));
}

/// The turn a 4 x 4 block at a time: four source rows' words (16 pixels) gathered into one
/// register, one byte shuffle puts each source column into a destination row's word (Leptonica's
/// byte order on both sides), four words stored. Rows and columns outside whole blocks one by one.
static SSSE3 void turn_blocks(const uint32_t *datas, int wpls, uint32_t *datad, int wpld, int wd, int hd, bool clockwise) {
    // wd: the source's height; hd: its width. Output byte 4n + m of the shuffle: lane n is
    // source column 4k + n (byte 3 - n of each source word), byte m from source row r.
    __m128i order;
    {
        uint8_t o[16];
        for (int n = 0; n < 4; n++)
            for (int m = 0; m < 4; m++) o[4 * n + m] = (uint8_t)(4 * (clockwise ? m : 3 - m) + 3 - n);
        order = _mm_loadu_si128((const __m128i *)o);
    }
    const int words = hd / 4;
    // Source rows taken four at a time where their destination columns make whole words.
    const int first = clockwise ? wd % 4 : 0, last = clockwise ? wd : wd - wd % 4;
    for (int y0 = first; y0 < last; y0 += 4) {
        const uint32_t *a = datas + (size_t)y0 * wpls, *b = a + wpls, *c = b + wpls, *d = c + wpls;
        const int dword = clockwise ? (wd - 4 - y0) / 4 : y0 / 4;
        for (int k = 0; k < words; k++) {
            __m128i block = _mm_setr_epi32((int)a[k], (int)b[k], (int)c[k], (int)d[k]);
            __m128i turned = _mm_shuffle_epi8(block, order);
            uint32_t lanes[4];
            _mm_storeu_si128((__m128i *)lanes, turned);
            for (int n = 0; n < 4; n++) {
                int i = clockwise ? 4 * k + n : hd - 1 - 4 * k - n;
                datad[(size_t)i * wpld + dword] = lanes[n];
            }
        }
    }
    for (int y = 0; y < wd; y++) {
        bool blocked = y >= first && y < last;
        for (int x = blocked ? 4 * words : 0; x < hd; x++) turn_pixel(datas, wpls, datad, wpld, wd, hd, x, y, clockwise);
    }
}
#endif

struct Pix *shelfscan_rotate90(struct Pix *pixs, int direction) {
#if defined(__x86_64__)
    if (!pixs || pixGetDepth(pixs) != 8 || pixGetColormap(pixs) || (direction != 1 && direction != -1)
        || !__builtin_cpu_supports("ssse3"))
        return NULL;
    const int hd = pixGetWidth(pixs), wd = pixGetHeight(pixs);
    struct Pix *pixd = pixCreate(wd, hd, 8);
    if (!pixd) return NULL;
    // pixRotate90's: colormap (none here), resolution, input format, samples per pixel.
    pixCopyResolution(pixd, pixs);
    pixCopyInputFormat(pixd, pixs);
    pixCopySpp(pixd, pixs);
    turn_blocks(pixGetData(pixs), pixGetWpl(pixs), pixGetData(pixd), pixGetWpl(pixd), wd, hd, direction == 1);
    return pixd;
#else
    (void)pixs; (void)direction;
    return NULL;
#endif
}

struct Pix *shelfscan_crop(struct Pix *pixs, int x, int y, int w, int h) {
    if (!pixs || pixGetColormap(pixs) || w <= 0 || h <= 0 || x < 0 || y < 0) return NULL;
    const int d = pixGetDepth(pixs);
    if ((d != 8 && d != 32) || x + w > pixGetWidth(pixs) || y + h > pixGetHeight(pixs)) return NULL;
    // pixClipRectangle's picture: made (here without clearing: every word is written), the
    // source's resolution and text.
    struct Pix *pixd = pixCreateNoInit(w, h, d);
    if (!pixd) return NULL;
    pixCopyResolution(pixd, pixs);
    pixCopyText(pixd, pixs);
    const uint32_t *datas = pixGetData(pixs);
    uint32_t *datad = pixGetData(pixd);
    const int wpls = pixGetWpl(pixs), wpld = pixGetWpl(pixd);
    for (int i = 0; i < h; i++) {
        const uint32_t *s = datas + (size_t)(y + i) * wpls;
        uint32_t *row = datad + (size_t)i * wpld;
        if (d == 32) {
            memcpy(row, s + x, sizeof(uint32_t) * (size_t)w);
            continue;
        }
        // 8-bit: a word's first pixel in its top byte, so pixels x ... x + 3 of the source are
        // its words q and q + 1 shifted together; the last word's bytes past the width zero.
        const int q = x >> 2, r = x & 3, words = (w + 3) >> 2;
        if (r == 0) {
            memcpy(row, s + q, sizeof(uint32_t) * (size_t)words);
        } else {
            const int shift = 8 * r;
            for (int k = 0; k < words; k++) {
                uint32_t next = q + k + 1 < wpls ? s[q + k + 1] : 0;
                row[k] = (s[q + k] << shift) | (next >> (32 - shift));
            }
        }
        if (w & 3) row[words - 1] &= 0xffffffffu << (32 - 8 * (w & 3));
    }
    return pixd;
}
