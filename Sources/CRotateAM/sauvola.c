// See include/rotateam.h (shelfscan_sauvola_both, pixSauvolaBinarizeTiled).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "rotateam.h"

#include "lept.h"

// Every float and double operation below is the Swift reference's, one by one: never fused.
#pragma clang fp contract(off)

#if defined(__x86_64__)
#define AVX2 __attribute__((target("avx2")))

/// The thresholds of one pixel, scalar: as `sauvolaBoth`'s `threshold` in Sauvola.swift.
static inline int threshold(uint32_t mean, uint32_t meanSquare, double k) {
    int32_t mv = (int32_t)mean, variance = (int32_t)meanSquare - mv * mv;
    double sd = (double)sqrtf((float)variance);
    return (int32_t)((double)mv * (1.0 - k * (1.0 - sd / 128.0))) & 0xff;
}

/// Bit 0 dark, bit 1 light, for pixel `v` with window sum `sum` and sum of squares `sq` (the
/// inverse's sum of squares, under 2^32 for windows up to 257 pixels across, is the same whole
/// number in 64 bits as in 32).
static inline unsigned pixel_bits(uint8_t v, uint32_t sum, uint64_t sq, uint32_t count, float meanNorm, double squareNorm, double k) {
    uint32_t inverseSum = 255 * count - sum;
    uint64_t inverseSquares = 65025 * (uint64_t)count + sq - 510 * (uint64_t)sum;
    uint32_t mean = (uint32_t)(meanNorm * (float)sum) & 0xff;
    uint32_t inverseMean = (uint32_t)(meanNorm * (float)inverseSum) & 0xff;
    uint32_t meanSquare = (uint32_t)(squareNorm * (double)sq + 0.5);
    uint32_t inverseMeanSquare = (uint32_t)(squareNorm * (double)inverseSquares + 0.5);
    unsigned bits = 0;
    if ((int)v < threshold(mean, meanSquare, k)) bits |= 1;
    if (255 - (int)v < threshold(inverseMean, inverseMeanSquare, k)) bits |= 2;
    return bits;
}

/// Eight thresholds at once: the same conversions and operations lane by lane (truncations
/// toward zero, IEEE square roots, double products and quotients).
static AVX2 inline __m256i thresholds8(__m256i mean, __m256i meanSquare, __m256d k) {
    __m256i variance = _mm256_sub_epi32(meanSquare, _mm256_mullo_epi32(mean, mean));
    __m256 sd = _mm256_sqrt_ps(_mm256_cvtepi32_ps(variance));
    const __m256d one = _mm256_set1_pd(1.0), scale = _mm256_set1_pd(128.0);
    __m256d sdLow = _mm256_cvtps_pd(_mm256_castps256_ps128(sd)), sdHigh = _mm256_cvtps_pd(_mm256_extractf128_ps(sd, 1));
    __m256d mvLow = _mm256_cvtepi32_pd(_mm256_castsi256_si128(mean)), mvHigh = _mm256_cvtepi32_pd(_mm256_extracti128_si256(mean, 1));
    __m256d tLow = _mm256_mul_pd(mvLow, _mm256_sub_pd(one, _mm256_mul_pd(k, _mm256_sub_pd(one, _mm256_div_pd(sdLow, scale)))));
    __m256d tHigh = _mm256_mul_pd(mvHigh, _mm256_sub_pd(one, _mm256_mul_pd(k, _mm256_sub_pd(one, _mm256_div_pd(sdHigh, scale)))));
    __m256i t = _mm256_set_m128i(_mm256_cvttpd_epi32(tHigh), _mm256_cvttpd_epi32(tLow));
    return _mm256_and_si256(t, _mm256_set1_epi32(0xff));
}

static AVX2 inline __m256i mean_squares8(__m256i sq, __m256d squareNorm) {
    const __m256d half = _mm256_set1_pd(0.5);
    __m256d low = _mm256_add_pd(_mm256_mul_pd(squareNorm, _mm256_cvtepi32_pd(_mm256_castsi256_si128(sq))), half);
    __m256d high = _mm256_add_pd(_mm256_mul_pd(squareNorm, _mm256_cvtepi32_pd(_mm256_extracti128_si256(sq, 1))), half);
    return _mm256_set_m128i(_mm256_cvttpd_epi32(high), _mm256_cvttpd_epi32(low));
}

static AVX2 inline __m256i box8(const uint32_t *top, const uint32_t *bottom, int l, int r) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(bottom + r)), b = _mm256_loadu_si256((const __m256i *)(bottom + l));
    __m256i c = _mm256_loadu_si256((const __m256i *)(top + r)), d = _mm256_loadu_si256((const __m256i *)(top + l));
    return _mm256_add_epi32(_mm256_sub_epi32(_mm256_sub_epi32(a, b), c), d);
}

/// Four 64-bit integers under 2^52 as doubles, exactly (their bits under those of 2^52).
static AVX2 inline __m256d doubles4(__m256i x) {
    const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL);
    return _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(x, magic)), _mm256_set1_pd(4503599627370496.0));
}

/// `mean_squares8` of eight 64-bit sums of squares, four in each of `low` and `high`.
static AVX2 inline __m256i mean_squares8_wide(__m256i low, __m256i high, __m256d squareNorm) {
    const __m256d half = _mm256_set1_pd(0.5);
    __m256d l = _mm256_add_pd(_mm256_mul_pd(squareNorm, doubles4(low)), half);
    __m256d h = _mm256_add_pd(_mm256_mul_pd(squareNorm, doubles4(high)), half);
    return _mm256_set_m128i(_mm256_cvttpd_epi32(h), _mm256_cvttpd_epi32(l));
}

static AVX2 inline __m256i box4_wide(const uint64_t *top, const uint64_t *bottom, int l, int r) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(bottom + r)), b = _mm256_loadu_si256((const __m256i *)(bottom + l));
    __m256i c = _mm256_loadu_si256((const __m256i *)(top + r)), d = _mm256_loadu_si256((const __m256i *)(top + l));
    return _mm256_add_epi64(_mm256_sub_epi64(_mm256_sub_epi64(a, b), c), d);
}

/// Both directions' bits, eight pixels at a time, from the tables above: the sums of squares
/// from the 32-bit table (`wide` false) or the 64-bit one (true, its window sums and the
/// inverse's in 64-bit lanes, four to a register). The same bits as the Swift reference's.
static AVX2 inline __attribute__((always_inline)) void binarise_rows(const uint8_t *px, int w, int h, int incr, const uint32_t *sums,
                                                                     const uint32_t *squares, const uint64_t *wide_squares, int stride,
                                                                     float meanNorm, double squareNorm, double k, uint32_t *dark,
                                                                     uint32_t *light, int wpl, const bool wide) {
    const uint32_t count = (uint32_t)(incr * incr);
    const __m256i count255 = _mm256_set1_epi32((int)(255 * count)), count65025 = _mm256_set1_epi32((int)(65025 * count));
    const __m256i count65025_wide = _mm256_set1_epi64x((long long)(65025 * (uint64_t)count)), c510_wide = _mm256_set1_epi64x(510);
    const __m256i c510 = _mm256_set1_epi32(510), c255 = _mm256_set1_epi32(255), low8 = _mm256_set1_epi32(0xff);
    const __m256 meanNormV = _mm256_set1_ps(meanNorm);
    const __m256d squareNormV = _mm256_set1_pd(squareNorm), kV = _mm256_set1_pd(k);
    for (int y = 0; y < h; y++) {
        const uint32_t *sTop = sums + (size_t)(y + 1) * stride, *sBottom = sums + (size_t)(y + 1 + incr) * stride;
        const uint32_t *qTop = wide ? NULL : squares + (size_t)(y + 1) * stride;
        const uint32_t *qBottom = wide ? NULL : squares + (size_t)(y + 1 + incr) * stride;
        const uint64_t *wTop = wide ? wide_squares + (size_t)(y + 1) * stride : NULL;
        const uint64_t *wBottom = wide ? wide_squares + (size_t)(y + 1 + incr) * stride : NULL;
        const uint8_t *row = px + (size_t)y * w;
        for (int x0 = 0; x0 < w; x0 += 32) {
            uint32_t darkWord = 0, lightWord = 0;
            for (int g = 0; g < 4; g++) {
                int x = x0 + 8 * g;
                if (x >= w) break;
                if (x + 8 <= w) {
                    int l = x + 1, r = x + 1 + incr;
                    __m256i sum = box8(sTop, sBottom, l, r);
                    __m256i inverseSum = _mm256_sub_epi32(count255, sum);
                    __m256i mean = _mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(meanNormV, _mm256_cvtepi32_ps(sum))), low8);
                    __m256i inverseMean = _mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(meanNormV, _mm256_cvtepi32_ps(inverseSum))), low8);
                    __m256i darkSquare, lightSquare;
                    if (wide) {
                        __m256i sqLow = box4_wide(wTop, wBottom, l, r), sqHigh = box4_wide(wTop, wBottom, l + 4, r + 4);
                        __m256i sumLow = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(sum));
                        __m256i sumHigh = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(sum, 1));
                        __m256i invLow = _mm256_sub_epi64(_mm256_add_epi64(count65025_wide, sqLow), _mm256_mul_epu32(c510_wide, sumLow));
                        __m256i invHigh = _mm256_sub_epi64(_mm256_add_epi64(count65025_wide, sqHigh), _mm256_mul_epu32(c510_wide, sumHigh));
                        darkSquare = mean_squares8_wide(sqLow, sqHigh, squareNormV);
                        lightSquare = mean_squares8_wide(invLow, invHigh, squareNormV);
                    } else {
                        __m256i sq = box8(qTop, qBottom, l, r);
                        __m256i inverseSquares = _mm256_sub_epi32(_mm256_add_epi32(count65025, sq), _mm256_mullo_epi32(c510, sum));
                        darkSquare = mean_squares8(sq, squareNormV);
                        lightSquare = mean_squares8(inverseSquares, squareNormV);
                    }
                    __m256i darkT = thresholds8(mean, darkSquare, kV);
                    __m256i lightT = thresholds8(inverseMean, lightSquare, kV);
                    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(row + x)));
                    unsigned d = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(darkT, v)));
                    unsigned li = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(lightT, _mm256_sub_epi32(c255, v))));
                    darkWord |= d << (8 * g);
                    lightWord |= li << (8 * g);
                } else {
                    for (int e = x; e < w; e++) {
                        int l = e + 1, r = e + 1 + incr;
                        uint32_t sum = sBottom[r] - sBottom[l] - sTop[r] + sTop[l];
                        uint64_t sq = wide ? wBottom[r] - wBottom[l] - wTop[r] + wTop[l] : (uint64_t)(uint32_t)(qBottom[r] - qBottom[l] - qTop[r] + qTop[l]);
                        unsigned bits = pixel_bits(row[e], sum, sq, count, meanNorm, squareNorm, k);
                        darkWord |= (bits & 1u) << (e - x0);
                        lightWord |= ((bits >> 1) & 1u) << (e - x0);
                    }
                }
            }
            // Leptonica keeps a word's first pixel in its most significant bit.
            dark[(size_t)y * wpl + (x0 >> 5)] = __builtin_bitreverse32(darkWord);
            light[(size_t)y * wpl + (x0 >> 5)] = __builtin_bitreverse32(lightWord);
        }
    }
}

static AVX2 void binarise(const uint8_t *px, int w, int h, int incr, const uint32_t *sums, const uint32_t *squares, int stride,
                          float meanNorm, double squareNorm, double k, uint32_t *dark, uint32_t *light, int wpl) {
    binarise_rows(px, w, h, incr, sums, squares, NULL, stride, meanNorm, squareNorm, k, dark, light, wpl, false);
}

static AVX2 void binarise_wide(const uint8_t *px, int w, int h, int incr, const uint32_t *sums, const uint64_t *squares, int stride,
                               float meanNorm, double squareNorm, double k, uint32_t *dark, uint32_t *light, int wpl) {
    binarise_rows(px, w, h, incr, sums, NULL, squares, stride, meanNorm, squareNorm, k, dark, light, wpl, true);
}
#endif

#if defined(__x86_64__)
// Summed-area tables of the picture with its mirrored border of wc + 1 pixels (column b - 1 - x
// of the border is the image's column x), a row and a column of zeros ahead, wrapping: window
// sums come out exact. The sums of squares in 32 bits (`squares`) while a window's stay under
// 2^31 (the conversions are signed: 65025 n < 2^31, windows up to 181 pixels across), in 64 bits
// (`wide_squares`, as the Swift reference keeps them) beyond; `wide` says which is made.
// -1 when out of memory or the window too large (over 4,000 pixels across).
static inline __attribute__((always_inline)) int tables(const uint8_t *px, int w, int h, int wc, uint32_t **sums_out,
                                                        uint32_t **squares_out, uint64_t **wide_out, int *stride_out, const bool wide) {
    int incr = 2 * wc + 1;
    if ((wide ? incr > 4000 : incr * incr > 33000) || w < 2 * wc + 3 || h < 2 * wc + 3) return -1;
    int b = wc + 1, bw = w + 2 * b, bh = h + 2 * b, stride = bw + 1;
    size_t cells = (size_t)(bh + 1) * stride;
    uint32_t *sums = calloc(cells, sizeof(uint32_t));
    uint32_t *squares = wide ? NULL : calloc(cells, sizeof(uint32_t));
    uint64_t *wide_squares = wide ? calloc(cells, sizeof(uint64_t)) : NULL;
    int *columns = malloc(sizeof(int) * (size_t)bw);
    if (!sums || (wide ? !wide_squares : !squares) || !columns) {
        free(sums); free(squares); free(wide_squares); free(columns);
        return -1;
    }
    for (int x = 0; x < bw; x++) columns[x] = x < b ? b - 1 - x : (x >= b + w ? 2 * w + b - 1 - x : x - b);
    for (int y = 0; y < bh; y++) {
        int sy = y < b ? b - 1 - y : (y >= b + h ? 2 * h + b - 1 - y : y - b);
        const uint8_t *row = px + (size_t)sy * w;
        uint32_t rowSum = 0;
        uint64_t rowSquares = 0;
        const uint32_t *sAbove = sums + (size_t)y * stride;
        uint32_t *sHere = sums + (size_t)(y + 1) * stride;
        for (int x = 0; x < bw; x++) {
            uint32_t v = row[columns[x]];
            rowSum += v;
            rowSquares += v * v;
            sHere[x + 1] = sAbove[x + 1] + rowSum;
            if (wide) wide_squares[(size_t)(y + 1) * stride + x + 1] = wide_squares[(size_t)y * stride + x + 1] + rowSquares;
            else squares[(size_t)(y + 1) * stride + x + 1] = squares[(size_t)y * stride + x + 1] + (uint32_t)rowSquares;
        }
    }
    free(columns);
    *sums_out = sums;
    if (wide) *wide_out = wide_squares;
    else *squares_out = squares;
    *stride_out = stride;
    return 0;
}

static int window_tables(const uint8_t *px, int w, int h, int wc, uint32_t **sums_out, uint32_t **squares_out, int *stride_out) {
    return tables(px, w, h, wc, sums_out, squares_out, NULL, stride_out, false);
}

static int window_tables_wide(const uint8_t *px, int w, int h, int wc, uint32_t **sums_out, uint64_t **wide_out, int *stride_out) {
    return tables(px, w, h, wc, sums_out, NULL, wide_out, stride_out, true);
}
#endif


int shelfscan_sauvola_both(const unsigned char *px, int w, int h, int wc, float meanNorm, double squareNorm, double k,
                           unsigned int *dark, unsigned int *light, int wpl) {
#if defined(__x86_64__)
    static int usable = -1;
    if (usable < 0) {
        const char *setting = getenv("SHELFSCAN_SAUVOLA_SIMD");
        usable = __builtin_cpu_supports("avx2") && !(setting && strcmp(setting, "off") == 0);
    }
    if (!usable) return -1;
    uint32_t *sums, *squares;
    int stride;
    if ((2 * wc + 1) * (2 * wc + 1) <= 33000) {
        if (window_tables(px, w, h, wc, &sums, &squares, &stride) != 0) return -1;
        binarise(px, w, h, 2 * wc + 1, sums, squares, stride, meanNorm, squareNorm, k, dark, light, wpl);
        free(sums); free(squares);
        return 0;
    }
    uint64_t *wide_squares;
    if (window_tables_wide(px, w, h, wc, &sums, &wide_squares, &stride) != 0) return -1;
    binarise_wide(px, w, h, 2 * wc + 1, sums, wide_squares, stride, meanNorm, squareNorm, k, dark, light, wpl);
    free(sums); free(wide_squares);
    return 0;
#else
    (void)px; (void)w; (void)h; (void)wc; (void)meanNorm; (void)squareNorm; (void)k; (void)dark; (void)light; (void)wpl;
    return -1;
#endif
}

// ---- Tesseract's local threshold: Leptonica's pixSauvolaBinarizeTiled, in the executable ----

#if defined(__x86_64__)
// One direction (dark letters) of `binarise`, the thresholds kept too: each pixel's threshold
// byte into `th` (Leptonica's 8-bit rows, `wplth` words a row: a word's first pixel in its top
// byte) and its bit (pixel below threshold) into `bin`.
static AVX2 void binarise_kept(const uint8_t *px, int w, int h, int incr, const uint32_t *sums, const uint32_t *squares, int stride,
                               float meanNorm, double squareNorm, double k, uint32_t *th, int wplth, uint32_t *bin, int wpl) {
    const __m256i low8 = _mm256_set1_epi32(0xff);
    const __m256 meanNormV = _mm256_set1_ps(meanNorm);
    const __m256d squareNormV = _mm256_set1_pd(squareNorm), kV = _mm256_set1_pd(k);
    // Each dword's low byte, four to a 128-bit lane, each word's four turned round.
    const __m256i pick = _mm256_setr_epi8(12, 8, 4, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          12, 8, 4, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    for (int y = 0; y < h; y++) {
        const uint32_t *sTop = sums + (size_t)(y + 1) * stride, *sBottom = sums + (size_t)(y + 1 + incr) * stride;
        const uint32_t *qTop = squares + (size_t)(y + 1) * stride, *qBottom = squares + (size_t)(y + 1 + incr) * stride;
        const uint8_t *row = px + (size_t)y * w;
        uint32_t *thRow = th + (size_t)y * wplth;
        uint8_t *thBytes = (uint8_t *)thRow;
        for (int x0 = 0; x0 < w; x0 += 32) {
            uint32_t word = 0;
            for (int g = 0; g < 4; g++) {
                int x = x0 + 8 * g;
                if (x >= w) break;
                if (x + 8 <= w) {
                    int l = x + 1, r = x + 1 + incr;
                    __m256i sum = box8(sTop, sBottom, l, r), sq = box8(qTop, qBottom, l, r);
                    __m256i mean = _mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(meanNormV, _mm256_cvtepi32_ps(sum))), low8);
                    __m256i t = thresholds8(mean, mean_squares8(sq, squareNormV), kV);
                    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(row + x)));
                    word |= (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(t, v))) << (8 * g);
                    const __m256i packed = _mm256_shuffle_epi8(t, pick);
                    thRow[x / 4] = (uint32_t)_mm256_cvtsi256_si32(packed);
                    thRow[x / 4 + 1] = (uint32_t)_mm256_extract_epi32(packed, 4);
                } else {
                    for (int e = x; e < w; e++) {
                        int l = e + 1, r = e + 1 + incr;
                        uint32_t sum = sBottom[r] - sBottom[l] - sTop[r] + sTop[l];
                        uint32_t sq = qBottom[r] - qBottom[l] - qTop[r] + qTop[l];
                        uint32_t mean = (uint32_t)(meanNorm * (float)sum) & 0xff;
                        uint32_t meanSquare = (uint32_t)(squareNorm * (double)sq + 0.5);
                        int t = threshold(mean, meanSquare, k);
                        if ((int)row[e] < t) word |= 1u << (e - x0);
                        thBytes[e ^ 3] = (uint8_t)t;
                    }
                }
            }
            bin[(size_t)y * wpl + (x0 >> 5)] = __builtin_bitreverse32(word);
        }
    }
}
#endif

typedef int (*sauvola_tiled_fn)(struct Pix *pixs, int whsize, float factor, int nx, int ny, struct Pix **ppixth, struct Pix **ppixd);
static sauvola_tiled_fn library_sauvola_tiled;
static pthread_once_t tiled_decided = PTHREAD_ONCE_INIT;
static int tiled_state;  // 0 undecided, 1 here, 2 the library's
static bool tiled_found, tiled_checks_passed;
static long tiled_checked, tiled_differed;
enum { tiled_self_checks = 8 };

// Whether the tiles Leptonica would cut (after its own reductions) leave the picture whole:
// then its result is `pixSauvolaBinarize` with a mirrored border, the binary picture taking the
// source's resolution; tiled, both outputs are fresh pictures (resolution 0). Either way every
// pixel's window is the same pixels (the tiles overlap by the window and mirror the picture's
// own edges), so the thresholds and bits are the same.
static bool whole_picture(int w, int h, int whsize, int nx, int ny) {
    if (nx <= 1 && ny <= 1) return true;
    if (w / nx < whsize + 2) nx = w / (whsize + 2);
    if (h / ny < whsize + 2) ny = h / (whsize + 2);
    return nx <= 1 && ny <= 1;
}

// Here: 8-bit, no colormap, both outputs asked for, Leptonica's own argument checks met, windows
// whose sums of squares fit 31 bits; false (nothing made) otherwise or out of memory.
static bool sauvola_here(struct Pix *pixs, int whsize, float factor, int nx, int ny, struct Pix **ppixth, struct Pix **ppixd) {
#if defined(__x86_64__)
    if (!pixs || !ppixth || !ppixd || pixGetDepth(pixs) != 8 || pixGetColormap(pixs) || whsize < 2 || factor < 0.0f) return false;
    const int w = pixGetWidth(pixs), h = pixGetHeight(pixs);
    if (w < 2 * whsize + 3 || h < 2 * whsize + 3) return false;
    // The picture's bytes in pixel order (Leptonica's words hold four pixels, the first on top).
    uint8_t *px = malloc((size_t)w * (size_t)h);
    if (!px) return false;
    const uint32_t *data = pixGetData(pixs);
    const int wpls = pixGetWpl(pixs);
    for (int y = 0; y < h; y++) {
        const uint8_t *from = (const uint8_t *)(data + (size_t)y * wpls);
        uint8_t *to = px + (size_t)y * w;
        for (int x = 0; x < w; x++) to[x] = from[x ^ 3];
    }
    uint32_t *sums, *squares;
    int stride;
    if (window_tables(px, w, h, whsize, &sums, &squares, &stride) != 0) {
        free(px);
        return false;
    }
    struct Pix *pixth = pixCreate(w, h, 8), *pixd = pixCreate(w, h, 1);
    if (!pixth || !pixd) {
        pixDestroy(&pixth); pixDestroy(&pixd); free(px); free(sums); free(squares);
        return false;
    }
    // Leptonica's norms: a float one for the mean, a double one (of the same float product) for
    // the mean square; its factor a float taken into double arithmetic.
    const int incr = 2 * whsize + 1;
    const float area = (float)incr * (float)incr;
    const float meanNorm = (float)(1.0 / (double)area);
    const double squareNorm = 1.0 / (double)area;
    binarise_kept(px, w, h, incr, sums, squares, stride, meanNorm, squareNorm, (double)factor, pixGetData(pixth), pixGetWpl(pixth),
                  pixGetData(pixd), pixGetWpl(pixd));
    free(px); free(sums); free(squares);
    if (whole_picture(w, h, whsize, nx, ny)) pixCopyResolution(pixd, pixs);
    *ppixth = pixth;
    *ppixd = pixd;
    return true;
#else
    (void)pixs; (void)whsize; (void)factor; (void)nx; (void)ny; (void)ppixth; (void)ppixd;
    return false;
#endif
}

// Random pictures (noise, smooth ramps, text-like strokes, flat), sizes, windows, factors and
// tilings, both ways: how many differed.
static long tiled_compare(int trials, unsigned seed) {
    long differ = 0;
    for (int t = 0; t < trials; t++) {
        int whsize = 2 + rand_r(&seed) % 30;
        int w = 2 * whsize + 3 + rand_r(&seed) % 500, h = 2 * whsize + 3 + rand_r(&seed) % 300;
        int nx = 1 + rand_r(&seed) % 4, ny = 1 + rand_r(&seed) % 3;
        float factor = (float)(rand_r(&seed) % 600) / 1000.0f;
        struct Pix *pix = pixCreate(w, h, 8);
        if (!pix) return -1;
        if (t % 3 == 0) pixSetResolution(pix, 300, 300);
        uint32_t *data = pixGetData(pix);
        const int wpl = pixGetWpl(pix), kind = t % 4;
        for (int y = 0; y < h; y++) {
            uint8_t *row = (uint8_t *)(data + (size_t)y * wpl);
            for (int x = 0; x < w; x++) {
                int v = kind == 0 ? rand_r(&seed) % 256
                        : kind == 1 ? (x * 255 / w + y) % 256
                        : kind == 2 ? ((x / 3 + y / 7) % 5 == 0 ? 20 + rand_r(&seed) % 30 : 200 + rand_r(&seed) % 40)
                                    : 128;
                row[x ^ 3] = (uint8_t)v;
            }
        }
        struct Pix *th_a = NULL, *d_a = NULL, *th_b = NULL, *d_b = NULL;
        bool here = sauvola_here(pix, whsize, factor, nx, ny, &th_a, &d_a);
        int r = library_sauvola_tiled(pix, whsize, factor, nx, ny, &th_b, &d_b);
        if (!here || r != 0 || !same_picture(th_a, th_b, same_resolution) || !same_picture(d_a, d_b, same_resolution)) differ++;
        pixDestroy(&th_a); pixDestroy(&d_a); pixDestroy(&th_b); pixDestroy(&d_b); pixDestroy(&pix);
    }
    return differ;
}

static void tiled_decide(void) {
    library_sauvola_tiled = (sauvola_tiled_fn)dlsym(RTLD_NEXT, "pixSauvolaBinarizeTiled");
    // Any call while the probe runs goes straight on to the library's.
    __atomic_store_n(&tiled_state, 2, __ATOMIC_RELEASE);
    char *version = getLeptonicaVersion();
#if defined(__x86_64__)
    tiled_found = library_sauvola_tiled && version && strcmp(version, "leptonica-1.82.0") == 0 && __builtin_cpu_supports("avx2");
#endif
    free(version);
    tiled_checks_passed = tiled_found && tiled_compare(12, 1) == 0;
    const char *setting = getenv("SHELFSCAN_TESSERACT_SAUVOLA");
    bool on = tiled_checks_passed && !(setting && strcmp(setting, "library") == 0);
    __atomic_store_n(&tiled_state, on ? 1 : 2, __ATOMIC_RELEASE);
}

int pixSauvolaBinarizeTiled(struct Pix *pixs, int whsize, float factor, int nx, int ny, struct Pix **ppixth, struct Pix **ppixd) {
    int s = __atomic_load_n(&tiled_state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&tiled_decided, tiled_decide);
        s = __atomic_load_n(&tiled_state, __ATOMIC_ACQUIRE);
    }
    if (s == 1) {
        struct Pix *th = NULL, *d = NULL;
        if (__atomic_load_n(&tiled_checked, __ATOMIC_RELAXED) >= tiled_self_checks) {
            if (sauvola_here(pixs, whsize, factor, nx, ny, ppixth, ppixd)) return 0;
        } else if (sauvola_here(pixs, whsize, factor, nx, ny, &th, &d)) {
            // Self-check: the library's result stands; a difference hands every later call to it.
            int r = library_sauvola_tiled(pixs, whsize, factor, nx, ny, ppixth, ppixd);
            bool same = r == 0 && same_picture(th, *ppixth, same_resolution) && same_picture(d, *ppixd, same_resolution);
            pixDestroy(&th);
            pixDestroy(&d);
            __atomic_add_fetch(&tiled_checked, 1, __ATOMIC_RELAXED);
            if (!same) {
                __atomic_add_fetch(&tiled_differed, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&tiled_state, 2, __ATOMIC_RELEASE);
            }
            return r;
        }
    }
    return library_sauvola_tiled(pixs, whsize, factor, nx, ny, ppixth, ppixd);
}

int shelfscan_tesseract_sauvola_state(void) {
    pthread_once(&tiled_decided, tiled_decide);
    return __atomic_load_n(&tiled_state, __ATOMIC_ACQUIRE);
}

long shelfscan_tesseract_sauvola_compare(int trials, unsigned seed) {
    pthread_once(&tiled_decided, tiled_decide);
    return tiled_found ? tiled_compare(trials, seed) : -1;
}

void shelfscan_tesseract_sauvola_checked(long *checked, long *differed) {
    *checked = __atomic_load_n(&tiled_checked, __ATOMIC_RELAXED);
    *differed = __atomic_load_n(&tiled_differed, __ATOMIC_RELAXED);
}
