// See include/rotateam.h (shelfscan_rgb_luminance, shelfscan_rgb_darkest).
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "rotateam.h"
#include "lept.h"

// Every float and double operation below is Leptonica's (pixconv.c), one by one: never fused.
#pragma clang fp contract(off)

// Leptonica's perceptual weights (pix.h: L_RED_WEIGHT, L_GREEN_WEIGHT, L_BLUE_WEIGHT).
static const float red_weight = 0.3f, green_weight = 0.5f, blue_weight = 0.2f;

/// pixConvertRGBToGray's pixel with its default weights: the weighted sum in single precision,
/// plus 0.5 in double precision, truncated.
static inline uint8_t luminance(uint32_t word) {
    return (uint8_t)(int32_t)(red_weight * (float)((word >> 24) & 0xff) + green_weight * (float)((word >> 16) & 0xff)
                              + blue_weight * (float)((word >> 8) & 0xff) + 0.5);
}

static inline uint8_t darkest(uint32_t word) {
    uint32_t r = (word >> 24) & 0xff, g = (word >> 16) & 0xff, b = (word >> 8) & 0xff;
    uint32_t m = r < g ? r : g;
    return (uint8_t)(m < b ? m : b);
}

#if defined(__x86_64__)
#define AVX2 __attribute__((target("avx2")))

/// Eight results (32-bit lanes, 0 ... 255) into eight bytes of an 8-bit row in Leptonica's
/// order (a word's first pixel in its top byte).
static AVX2 inline void store8(uint32_t *lined, int j, __m128i low, __m128i high) {
    __m128i words = _mm_packus_epi32(low, high);
    __m128i bytes = _mm_packus_epi16(words, words);
    const __m128i order = _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    _mm_storel_epi64((__m128i *)((uint8_t *)lined + j), _mm_shuffle_epi8(bytes, order));
}

static AVX2 void convert_rows(const uint32_t *datas, int wpls, uint32_t *datad, int wpld, int w, int h, bool least) {
    const __m256i mask = _mm256_set1_epi32(0xff);
    const __m256 rw = _mm256_set1_ps(red_weight), gw = _mm256_set1_ps(green_weight), bw = _mm256_set1_ps(blue_weight);
    const __m256d half = _mm256_set1_pd(0.5);
    for (int i = 0; i < h; i++) {
        const uint32_t *lines = datas + (size_t)i * wpls;
        uint32_t *lined = datad + (size_t)i * wpld;
        int j = 0;
        // Whole groups of 8 (a multiple of 4 pixels, so whole destination words).
        for (; j + 8 <= w; j += 8) {
            __m256i word = _mm256_loadu_si256((const __m256i *)(lines + j));
            __m256i r = _mm256_srli_epi32(word, 24), g = _mm256_and_si256(_mm256_srli_epi32(word, 16), mask),
                    b = _mm256_and_si256(_mm256_srli_epi32(word, 8), mask);
            __m128i low, high;
            if (least) {
                __m256i m = _mm256_min_epi32(_mm256_min_epi32(r, g), b);
                low = _mm256_castsi256_si128(m);
                high = _mm256_extracti128_si256(m, 1);
            } else {
                __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(rw, _mm256_cvtepi32_ps(r)), _mm256_mul_ps(gw, _mm256_cvtepi32_ps(g))),
                                           _mm256_mul_ps(bw, _mm256_cvtepi32_ps(b)));
                low = _mm256_cvttpd_epi32(_mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(sum)), half));
                high = _mm256_cvttpd_epi32(_mm256_add_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(sum, 1)), half));
            }
            store8(lined, j, low, high);
        }
        for (; j < w; j++) set_byte(lined, j, least ? darkest(lines[j]) : luminance(lines[j]));
    }
}
#endif

static struct Pix *convert(struct Pix *pixs, bool least) {
#if defined(__x86_64__)
    if (!pixs || pixGetDepth(pixs) != 32 || !__builtin_cpu_supports("avx2")) return NULL;
    const int w = pixGetWidth(pixs), h = pixGetHeight(pixs);
    struct Pix *pixd = pixCreate(w, h, 8);
    if (!pixd) return NULL;
    pixCopyResolution(pixd, pixs);
    pixCopyInputFormat(pixd, pixs);
    convert_rows(pixGetData(pixs), pixGetWpl(pixs), pixGetData(pixd), pixGetWpl(pixd), w, h, least);
    return pixd;
#else
    (void)pixs; (void)least;
    return NULL;
#endif
}

struct Pix *shelfscan_rgb_luminance(struct Pix *pixs) { return convert(pixs, false); }

struct Pix *shelfscan_rgb_darkest(struct Pix *pixs) { return convert(pixs, true); }
