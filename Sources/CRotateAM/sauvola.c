// See include/rotateam.h (shelfscan_sauvola_both).
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "rotateam.h"

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

/// Bit 0 dark, bit 1 light, for pixel `v` with window sum `sum` and sum of squares `sq`.
static inline unsigned pixel_bits(uint8_t v, uint32_t sum, uint32_t sq, uint32_t count, float meanNorm, double squareNorm, double k) {
    uint32_t inverseSum = 255 * count - sum;
    uint32_t inverseSquares = 65025 * count + sq - 510 * sum;
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

static AVX2 void binarise(const uint8_t *px, int w, int h, int incr, const uint32_t *sums, const uint32_t *squares, int stride,
                          float meanNorm, double squareNorm, double k, uint32_t *dark, uint32_t *light, int wpl) {
    const uint32_t count = (uint32_t)(incr * incr);
    const __m256i count255 = _mm256_set1_epi32((int)(255 * count)), count65025 = _mm256_set1_epi32((int)(65025 * count));
    const __m256i c510 = _mm256_set1_epi32(510), c255 = _mm256_set1_epi32(255), low8 = _mm256_set1_epi32(0xff);
    const __m256 meanNormV = _mm256_set1_ps(meanNorm);
    const __m256d squareNormV = _mm256_set1_pd(squareNorm), kV = _mm256_set1_pd(k);
    for (int y = 0; y < h; y++) {
        const uint32_t *sTop = sums + (size_t)(y + 1) * stride, *sBottom = sums + (size_t)(y + 1 + incr) * stride;
        const uint32_t *qTop = squares + (size_t)(y + 1) * stride, *qBottom = squares + (size_t)(y + 1 + incr) * stride;
        const uint8_t *row = px + (size_t)y * w;
        for (int x0 = 0; x0 < w; x0 += 32) {
            uint32_t darkWord = 0, lightWord = 0;
            for (int g = 0; g < 4; g++) {
                int x = x0 + 8 * g;
                if (x >= w) break;
                if (x + 8 <= w) {
                    int l = x + 1, r = x + 1 + incr;
                    __m256i sum = box8(sTop, sBottom, l, r), sq = box8(qTop, qBottom, l, r);
                    __m256i inverseSum = _mm256_sub_epi32(count255, sum);
                    __m256i inverseSquares = _mm256_sub_epi32(_mm256_add_epi32(count65025, sq), _mm256_mullo_epi32(c510, sum));
                    __m256i mean = _mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(meanNormV, _mm256_cvtepi32_ps(sum))), low8);
                    __m256i inverseMean = _mm256_and_si256(_mm256_cvttps_epi32(_mm256_mul_ps(meanNormV, _mm256_cvtepi32_ps(inverseSum))), low8);
                    __m256i darkT = thresholds8(mean, mean_squares8(sq, squareNormV), kV);
                    __m256i lightT = thresholds8(inverseMean, mean_squares8(inverseSquares, squareNormV), kV);
                    __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(row + x)));
                    unsigned d = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(darkT, v)));
                    unsigned li = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(lightT, _mm256_sub_epi32(c255, v))));
                    darkWord |= d << (8 * g);
                    lightWord |= li << (8 * g);
                } else {
                    for (int e = x; e < w; e++) {
                        int l = e + 1, r = e + 1 + incr;
                        uint32_t sum = sBottom[r] - sBottom[l] - sTop[r] + sTop[l];
                        uint32_t sq = qBottom[r] - qBottom[l] - qTop[r] + qTop[l];
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
#endif

int shelfscan_sauvola_both(const unsigned char *px, int w, int h, int wc, float meanNorm, double squareNorm, double k,
                           unsigned int *dark, unsigned int *light, int wpl) {
#if defined(__x86_64__)
    static int usable = -1;
    if (usable < 0) {
        const char *setting = getenv("SHELFSCAN_SAUVOLA_SIMD");
        usable = __builtin_cpu_supports("avx2") && !(setting && strcmp(setting, "off") == 0);
    }
    int incr = 2 * wc + 1;
    // Window sums of squares must stay under 2^31 (signed conversions): 65025 n < 2^31.
    if (!usable || incr * incr > 33000 || w < 2 * wc + 3 || h < 2 * wc + 3) return -1;
    int b = wc + 1, bw = w + 2 * b, bh = h + 2 * b, stride = bw + 1;
    size_t cells = (size_t)(bh + 1) * stride;
    uint32_t *sums = calloc(cells, sizeof(uint32_t)), *squares = calloc(cells, sizeof(uint32_t));
    int *columns = malloc(sizeof(int) * (size_t)bw);
    if (!sums || !squares || !columns) {
        free(sums); free(squares); free(columns);
        return -1;
    }
    // The mirrored border (column b - 1 - x of the border is the image's column x); summed-area
    // tables with a row and a column of zeros ahead, wrapping: window sums come out exact.
    for (int x = 0; x < bw; x++) columns[x] = x < b ? b - 1 - x : (x >= b + w ? 2 * w + b - 1 - x : x - b);
    for (int y = 0; y < bh; y++) {
        int sy = y < b ? b - 1 - y : (y >= b + h ? 2 * h + b - 1 - y : y - b);
        const uint8_t *row = px + (size_t)sy * w;
        uint32_t rowSum = 0, rowSquares = 0;
        const uint32_t *sAbove = sums + (size_t)y * stride, *qAbove = squares + (size_t)y * stride;
        uint32_t *sHere = sums + (size_t)(y + 1) * stride, *qHere = squares + (size_t)(y + 1) * stride;
        for (int x = 0; x < bw; x++) {
            uint32_t v = row[columns[x]];
            rowSum += v;
            rowSquares += v * v;
            sHere[x + 1] = sAbove[x + 1] + rowSum;
            qHere[x + 1] = qAbove[x + 1] + rowSquares;
        }
    }
    binarise(px, w, h, incr, sums, squares, stride, meanNorm, squareNorm, k, dark, light, wpl);
    free(sums); free(squares); free(columns);
    return 0;
#else
    (void)px; (void)w; (void)h; (void)wc; (void)meanNorm; (void)squareNorm; (void)k; (void)dark; (void)light; (void)wpl;
    return -1;
#endif
}
