// See include/rotateam.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "rotateam.h"
#include "selfcheck.h"

// Every float operation below is the library's, one by one: never fused.
#pragma clang fp contract(off)

#include "lept.h"

typedef struct Pix *(*rotate_fn)(struct Pix *pixs, float angle, int grayval);

enum { function_size = 0x400, self_checks = 8 };
// FNV-1a 64 of Debian 12's pixRotateAMGray, its 0x400 bytes of machine code.
static const uint64_t function_hash = 0x9e6e211af8085dafULL;

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static rotate_fn library_rotate;
static bool checks_passed;
static int state;
static long checked, differed, embedded_checked;

#if defined(__x86_64__)
#define WIDE __attribute__((target("avx2,avx512f,avx512bw,avx512vl")))

// The pixel at byte `n` of the 32-bit words gathered at index n >> 2: Leptonica keeps each
// word's first pixel in its most significant byte.
static WIDE inline __attribute__((always_inline)) __m512i byte_of(__m512i words, __m512i n) {
    const __m512i shift = _mm512_slli_epi32(_mm512_sub_epi32(_mm512_set1_epi32(3), _mm512_and_si512(n, _mm512_set1_epi32(3))), 3);
    return _mm512_and_si512(_mm512_srlv_epi32(words, shift), _mm512_set1_epi32(0xff));
}

// pixRotateAMGray's loop (rotateAMGrayLow), 16 output pixels of a row at a time: for pixel j
// of row i, xdif = xcen - j, ydif = ycen - i; xpm = (int)((-xdif) * cosa - ydif * sina) and
// ypm = (int)(xdif * sina + (-ydif) * cosa) in floats as the library's code computes them
// (each product rounded, then the sum); xp = xcen + (xpm >> 4), yp = ycen + (ypm >> 4); outside
// 0...w-2 x 0...h-2 the gray given, else the four pixels weighed by (16 - xf or xf) x (16 - yf
// or yf), plus 128, over 256.
static WIDE void rotate_rows(const uint32_t *datas, int wpls, uint32_t *datad, int wpld, int w, int h, float sina, float cosa,
                             int grayval) {
    const int xcen = w / 2, ycen = h / 2, wm2 = w - 2, hm2 = h - 2;
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i sixteen = _mm512_set1_epi32(16), fifteen = _mm512_set1_epi32(15);
    const __m512 vcosa = _mm512_set1_ps(cosa), vsina = _mm512_set1_ps(sina);
    const __m512i gray = _mm512_set1_epi32(grayval & 0xff);
    const __m128i swap = _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    const int *words = (const int *)datas;
    for (int i = 0; i < h; i++) {
        const int ydif = ycen - i;
        const __m512 a = _mm512_set1_ps((float)ydif * sina);
        const __m512 b = _mm512_set1_ps((float)(-ydif) * cosa);
        uint8_t *lined = (uint8_t *)(datad + (size_t)i * (size_t)wpld);
        for (int j = 0; j < w; j += 16) {
            const __m512i minus_xdif = _mm512_sub_epi32(_mm512_add_epi32(_mm512_set1_epi32(j), lanes), _mm512_set1_epi32(xcen));
            const __m512i xdif = _mm512_sub_epi32(_mm512_setzero_si512(), minus_xdif);
            const __m512i xpm = _mm512_cvttps_epi32(_mm512_sub_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(minus_xdif), vcosa), a));
            const __m512i ypm = _mm512_cvttps_epi32(_mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(xdif), vsina), b));
            const __m512i xp = _mm512_add_epi32(_mm512_srai_epi32(xpm, 4), _mm512_set1_epi32(xcen));
            const __m512i yp = _mm512_add_epi32(_mm512_srai_epi32(ypm, 4), _mm512_set1_epi32(ycen));
            const __mmask16 inside = _mm512_cmpge_epi32_mask(_mm512_or_si512(xp, yp), _mm512_setzero_si512())
                & _mm512_cmple_epi32_mask(xp, _mm512_set1_epi32(wm2)) & _mm512_cmple_epi32_mask(yp, _mm512_set1_epi32(hm2));
            __m512i value = gray;
            if (inside) {
                const __m512i xf = _mm512_and_si512(xpm, fifteen), yf = _mm512_and_si512(ypm, fifteen);
                const __m512i row = _mm512_mullo_epi32(yp, _mm512_set1_epi32(wpls));
                const __m512i next = _mm512_add_epi32(xp, _mm512_set1_epi32(1));
                const __m512i at0 = _mm512_add_epi32(row, _mm512_srai_epi32(xp, 2));
                const __m512i at1 = _mm512_add_epi32(row, _mm512_srai_epi32(next, 2));
                const __m512i below = _mm512_set1_epi32(wpls);
                const __m512i zero = _mm512_setzero_si512();
                const __m512i p00 = byte_of(_mm512_mask_i32gather_epi32(zero, inside, at0, words, 4), xp);
                const __m512i p10 = byte_of(_mm512_mask_i32gather_epi32(zero, inside, at1, words, 4), next);
                const __m512i p01 = byte_of(_mm512_mask_i32gather_epi32(zero, inside, _mm512_add_epi32(at0, below), words, 4), xp);
                const __m512i p11 = byte_of(_mm512_mask_i32gather_epi32(zero, inside, _mm512_add_epi32(at1, below), words, 4), next);
                const __m512i rx = _mm512_sub_epi32(sixteen, xf), ry = _mm512_sub_epi32(sixteen, yf);
                __m512i sum = _mm512_mullo_epi32(_mm512_mullo_epi32(rx, ry), p00);
                sum = _mm512_add_epi32(sum, _mm512_mullo_epi32(_mm512_mullo_epi32(xf, ry), p10));
                sum = _mm512_add_epi32(sum, _mm512_mullo_epi32(_mm512_mullo_epi32(rx, yf), p01));
                sum = _mm512_add_epi32(sum, _mm512_mullo_epi32(_mm512_mullo_epi32(xf, yf), p11));
                sum = _mm512_srli_epi32(_mm512_add_epi32(sum, _mm512_set1_epi32(128)), 8);
                value = _mm512_mask_blend_epi32(inside, gray, _mm512_and_si512(sum, _mm512_set1_epi32(0xff)));
            }
            // Bytes in pixel order, then each word's four turned round (Leptonica's order).
            const __m128i bytes = _mm_shuffle_epi8(_mm512_cvtepi32_epi8(value), swap);
            if (j + 16 <= w) {
                _mm_storeu_si128((__m128i *)(lined + j), bytes);
            } else {
                uint8_t out[16];
                _mm_storeu_si128((__m128i *)out, bytes);
                // out[k] holds pixel j + (k ^ 3): only the row's own pixels are written.
                for (int k = 0; k < 16; k++)
                    if (j + (k ^ 3) < w) lined[j + k] = out[k];
            }
        }
    }
}

#define NARROW __attribute__((target("avx2")))

// `rotate_rows` with AVX2 alone, 8 output pixels at a time: the same arithmetic, fetched and
// weighed otherwise. `plain` is the source with each word's four bytes turned round (pixel x of
// a row at byte x, `stride` bytes a row, 4 bytes to spare after the last): a pixel and the one
// to its right are then adjacent bytes, and one 32-bit gather per row brings both (two gathers
// for 8 pixels, where Leptonica's order, which splits x and x + 1 across words when x % 4 == 3,
// took four). Each pair is weighed in 16 bits by one multiply-add: (p00, p10) . ((16 - xf)(16 -
// yf), xf (16 - yf)) + (p01, p11) . ((16 - xf) yf, xf yf), the same integer sum as the
// library's four products (each weight at most 256, each pixel at most 255).
static NARROW void rotate_rows_avx2(const uint8_t *plain, int stride, uint32_t *datad, int wpld, int w, int h, float sina,
                                    float cosa, int grayval) {
    const int xcen = w / 2, ycen = h / 2;
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i sixteen = _mm256_set1_epi32(16), fifteen = _mm256_set1_epi32(15), zero = _mm256_setzero_si256();
    const __m256i below_w = _mm256_set1_epi32(w - 1), below_h = _mm256_set1_epi32(h - 1);  // xp <= w - 2: xp < w - 1
    const __m256 vcosa = _mm256_set1_ps(cosa), vsina = _mm256_set1_ps(sina);
    const __m256i gray = _mm256_set1_epi32(grayval & 0xff);
    const __m256i rows = _mm256_set1_epi32(stride);
    // A gathered dword's first two bytes as two 16-bit halves (the pixel, then its right neighbour).
    const __m256i pair = _mm256_setr_epi8(0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1,
                                          0, -1, 1, -1, 4, -1, 5, -1, 8, -1, 9, -1, 12, -1, 13, -1);
    // Each dword's low byte, four to a 128-bit lane, each word's four turned round (Leptonica's order).
    const __m256i pick = _mm256_setr_epi8(12, 8, 4, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          12, 8, 4, 0, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const int *base = (const int *)plain;
    const size_t end = (size_t)stride * (size_t)h + 4;  // the copy's bytes
    for (int i = 0; i < h; i++) {
        const int ydif = ycen - i;
        const __m256 a = _mm256_set1_ps((float)ydif * sina);
        const __m256 b = _mm256_set1_ps((float)(-ydif) * cosa);
        uint8_t *lined = (uint8_t *)(datad + (size_t)i * (size_t)wpld);
        for (int j = 0; j < w; j += 8) {
            const __m256i minus_xdif = _mm256_sub_epi32(_mm256_add_epi32(_mm256_set1_epi32(j), lanes), _mm256_set1_epi32(xcen));
            const __m256i xdif = _mm256_sub_epi32(zero, minus_xdif);
            const __m256i xpm = _mm256_cvttps_epi32(_mm256_sub_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(minus_xdif), vcosa), a));
            const __m256i ypm = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(xdif), vsina), b));
            const __m256i xp = _mm256_add_epi32(_mm256_srai_epi32(xpm, 4), _mm256_set1_epi32(xcen));
            const __m256i yp = _mm256_add_epi32(_mm256_srai_epi32(ypm, 4), _mm256_set1_epi32(ycen));
            const __m256i inside = _mm256_andnot_si256(_mm256_cmpgt_epi32(zero, _mm256_or_si256(xp, yp)),
                                                       _mm256_and_si256(_mm256_cmpgt_epi32(below_w, xp), _mm256_cmpgt_epi32(below_h, yp)));
            __m256i value = gray;
            if (!_mm256_testz_si256(inside, inside)) {
                const __m256i xf = _mm256_and_si256(xpm, fifteen), yf = _mm256_and_si256(ypm, fifteen);
                const __m256i rx = _mm256_sub_epi32(sixteen, xf), ry = _mm256_sub_epi32(sixteen, yf);
                __m256i top, bottom;
                // A slight turn (a leaning spine's): the 8 pixels' sources lie in three rows at
                // most and within 16 bytes of the first row's window. Both coordinates are
                // monotonic along the row (a linear function, rounded and truncated), so the
                // first and last lanes bound them. Then the four rows' 16-byte windows (the
                // pixels' rows and the one below the last) are loaded once and each pixel and its
                // right neighbour picked out of the row it needs: the same bytes the gathers
                // would bring. On `chris1`, 99% of the turn's groups of 8 (their sources span 1
                // row in 3%, 2 in 47%, 3 in 50%).
                const int x_first = _mm256_cvtsi256_si32(xp), x_last = _mm256_extract_epi32(xp, 7);
                const int y_first = _mm256_cvtsi256_si32(yp), y_last = _mm256_extract_epi32(yp, 7);
                const int x0 = x_first < x_last ? x_first : x_last, y0 = y_first < y_last ? y_first : y_last;
                const int x_span = x_first < x_last ? x_last - x_first : x_first - x_last;
                const int y_span = y_first < y_last ? y_last - y_first : y_first - y_last;
                if (_mm256_movemask_epi8(inside) == -1 && x_span <= 14 && y_span <= 2
                    && (size_t)(y0 + 3) * (size_t)stride + (size_t)x0 + 16 <= end) {
                    const uint8_t *window = plain + (size_t)y0 * (size_t)stride + (size_t)x0;
                    // Each dword's control: the pixel's byte, nothing, its neighbour's, nothing.
                    const __m256i d = _mm256_sub_epi32(xp, _mm256_set1_epi32(x0));
                    const __m256i control = _mm256_add_epi32(_mm256_add_epi32(d, _mm256_slli_epi32(d, 16)), _mm256_set1_epi32(0x80018000));
                    __m256i picked[4];
                    for (int r = 0; r < 4; r++)
                        picked[r] = _mm256_shuffle_epi8(
                            _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(window + (size_t)r * (size_t)stride))),
                            control);
                    const __m256i second = _mm256_cmpgt_epi32(yp, _mm256_set1_epi32(y0));
                    const __m256i third = _mm256_cmpgt_epi32(yp, _mm256_set1_epi32(y0 + 1));
                    top = _mm256_blendv_epi8(_mm256_blendv_epi8(picked[0], picked[1], second), picked[2], third);
                    bottom = _mm256_blendv_epi8(_mm256_blendv_epi8(picked[1], picked[2], second), picked[3], third);
                } else {
                    const __m256i at = _mm256_add_epi32(_mm256_mullo_epi32(yp, rows), xp);
                    top = _mm256_shuffle_epi8(_mm256_mask_i32gather_epi32(zero, base, at, inside, 1), pair);
                    bottom = _mm256_shuffle_epi8(_mm256_mask_i32gather_epi32(zero, base, _mm256_add_epi32(at, rows), inside, 1), pair);
                }
                // (16 - xf, xf) in each dword's halves, times (16 - yf) and yf in both halves.
                const __m256i across = _mm256_or_si256(rx, _mm256_slli_epi32(xf, 16));
                const __m256i upper = _mm256_mullo_epi16(across, _mm256_or_si256(ry, _mm256_slli_epi32(ry, 16)));
                const __m256i lower = _mm256_mullo_epi16(across, _mm256_or_si256(yf, _mm256_slli_epi32(yf, 16)));
                __m256i sum = _mm256_add_epi32(_mm256_madd_epi16(top, upper), _mm256_madd_epi16(bottom, lower));
                sum = _mm256_srli_epi32(_mm256_add_epi32(sum, _mm256_set1_epi32(128)), 8);
                value = _mm256_blendv_epi8(gray, _mm256_and_si256(sum, _mm256_set1_epi32(0xff)), inside);
            }
            // The two lanes' four bytes joined by one permutation and stored as 8 bytes (the
            // compiler made two dword extracts into eight byte extracts and shifts).
            const __m256i packed = _mm256_shuffle_epi8(value, pick);
            const __m128i joined = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0)));
            if (j + 8 <= w) {
                _mm_storel_epi64((__m128i *)(void *)(lined + j), joined);
            } else {
                uint8_t out[16];
                _mm_storeu_si128((__m128i *)(void *)out, joined);
                for (int k = 0; k < 8; k++)
                    if (j + (k ^ 3) < w) lined[j + k] = out[k];
            }
        }
    }
}

// `words` 32-bit words of Leptonica's 8-bit pixels written to `to` in pixel order (each word's
// four bytes turned round), 8 words at a time.
static NARROW void swap_words(const uint32_t *from, size_t words, uint8_t *to) {
    const __m256i swap = _mm256_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
                                          3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
    size_t k = 0;
    for (; k + 8 <= words; k += 8)
        _mm256_storeu_si256((__m256i *)(to + 4 * k), _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(from + k)), swap));
    for (; k < words; k++) {
        const uint32_t v = __builtin_bswap32(from[k]);
        memcpy(to + 4 * k, &v, 4);
    }
}

// The source's rows in pixel order for `rotate_rows_avx2`, with 4 bytes to spare after the
// last row; NULL when out of memory.
static NARROW uint8_t *plain_copy(const uint32_t *datas, size_t words) {
    uint8_t *plain = malloc(words * 4 + 4);
    if (!plain) return NULL;
    swap_words(datas, words, plain);
    memset(plain + 4 * words, 0, 4);
    return plain;
}

// Which: 2 AVX-512 (F, BW, VL), 1 AVX2, 0 neither (`SHELFSCAN_SIMD=avx2` keeps to AVX2).
static int processor_width(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) return 0;
    const char *setting = getenv("SHELFSCAN_SIMD");
    if (setting && strcmp(setting, "avx2") == 0) return 1;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") ? 2 : 1;
}
#endif

static int width;

static bool runnable(void);

static void decide(void) {
    library_rotate = (rotate_fn)dlsym(RTLD_NEXT, "pixRotateAMGray");
    bool found = runnable();
    checks_passed = found && shelfscan_rotate_am_compare(40, 1) == 0;
    const char *setting = getenv("SHELFSCAN_ROTATE_AM");
    bool on = checks_passed && !(setting && strcmp(setting, "off") == 0);
    __atomic_store_n(&state, on ? 1 : 2, __ATOMIC_RELEASE);
}

static bool runnable(void) {
#if defined(__x86_64__)
    if (!width) width = processor_width();
    if (!library_rotate || !width) return false;
    char *version = getLeptonicaVersion();
    bool same = version && strcmp(version, "leptonica-1.82.0") == 0;
    free(version);
    return same && shelfscan_code_hash((const void *)library_rotate, function_size) == function_hash;
#else
    return false;
#endif
}

// Here, for 8-bit pictures and turns of 0.01 radian or more (the library's checks, its clone
// of nearly level pictures and its errors all stay the library's).
static struct Pix *rotate_width(struct Pix *pixs, float angle, int grayval, int with) {
#if defined(__x86_64__)
    struct Pix *pixd = pixCreateTemplate(pixs);
    if (!pixd) return NULL;
    double s, c;
    sincos((double)angle, &s, &c);
    const float sina = (float)(16.0 * s), cosa = (float)(16.0 * c);
    const int wpls = pixGetWpl(pixs), h = pixGetHeight(pixs);
    if (with == 2) {
        rotate_rows(pixGetData(pixs), wpls, pixGetData(pixd), pixGetWpl(pixd), pixGetWidth(pixs), h, sina, cosa, grayval);
        return pixd;
    }
    // Byte offsets are 32-bit lanes: a picture of 2 GB or more stays the library's.
    const size_t words = (size_t)wpls * (size_t)h;
    uint8_t *plain = words * 4 + 4 <= INT32_MAX ? plain_copy(pixGetData(pixs), words) : NULL;
    if (!plain) {
        pixDestroy(&pixd);
        return library_rotate(pixs, angle, grayval);
    }
    rotate_rows_avx2(plain, wpls * 4, pixGetData(pixd), pixGetWpl(pixd), pixGetWidth(pixs), h, sina, cosa, grayval);
    free(plain);
    return pixd;
#else
    (void)with;
    return library_rotate(pixs, angle, grayval);
#endif
}

static struct Pix *rotate_here(struct Pix *pixs, float angle, int grayval) { return rotate_width(pixs, angle, grayval, width); }

struct Pix *pixRotateAMGray(struct Pix *pixs, float angle, int grayval) {
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    if (s != 1 || !pixs || pixGetDepth(pixs) != 8 || !(fabsf(angle) >= 0.01f) || pixGetWidth(pixs) < 2 || pixGetHeight(pixs) < 2)
        return library_rotate(pixs, angle, grayval);
    if (__atomic_load_n(&checked, __ATOMIC_RELAXED) >= self_checks) return rotate_here(pixs, angle, grayval);
    // Self-check: the library's result stands; any difference hands every later one to it.
    struct Pix *theirs = library_rotate(pixs, angle, grayval);
    struct Pix *ours = rotate_here(pixs, angle, grayval);
    bool same = same_picture(theirs, ours, 0);
    pixDestroy(&ours);
    __atomic_add_fetch(&checked, 1, __ATOMIC_RELAXED);
    if (!same) {
        __atomic_add_fetch(&differed, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
    }
    return theirs;
}

enum { rotate_area_map = 1, bring_in_white = 1 };  // Leptonica's L_ROTATE_AREA_MAP, L_BRING_IN_WHITE

// The library's whole turn of an 8-bit picture onto a white canvas that holds any turn of it
// (`pixRotate` with `pixEmbedForRotation`, then `pixRotateAMGray` of that canvas with white
// brought in): the reference for `rotate_embedded`.
static struct Pix *library_rotate_embedded(struct Pix *pixs, float angle) {
    struct Pix *canvas = pixEmbedForRotation(pixs, angle, bring_in_white, pixGetWidth(pixs), pixGetHeight(pixs));
    if (!canvas) return NULL;
    struct Pix *pixd = library_rotate(canvas, angle, 255);
    pixDestroy(&canvas);
    return pixd;
}

#if defined(__x86_64__)
// `pixRotate(pixs, angle, L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, w, h)` of an 8-bit picture
// without colormap, with AVX2, in one go: the canvas `pixEmbedForRotation` makes (its size
// worked out the same way, white, the picture in its middle) is made directly in pixel order
// for `rotate_rows_avx2`, rather than as a picture in Leptonica's order that is then copied
// again; the result is what `pixRotateAMGray` makes of that canvas (its size, resolution,
// text, samples per pixel, zeroed padding). NULL when out of memory.
static NARROW struct Pix *rotate_embedded(struct Pix *pixs, float angle) {
    const int w = pixGetWidth(pixs), h = pixGetHeight(pixs);
    const double cosa = cos(angle), sina = sin(angle), fw = (double)w, fh = (double)h;
    const int w1 = (int)(fabs(fw * cosa - fh * sina) + 0.5), w2 = (int)(fabs(-fw * cosa - fh * sina) + 0.5);
    const int h1 = (int)(fabs(fw * sina + fh * cosa) + 0.5), h2 = (int)(fabs(-fw * sina + fh * cosa) + 0.5);
    const int wnew = w > w1 ? (w > w2 ? w : w2) : (w1 > w2 ? w1 : w2);
    const int hnew = h > h1 ? (h > h2 ? h : h2) : (h1 > h2 ? h1 : h2);
    const int xoff = (wnew - w) / 2, yoff = (hnew - h) / 2;
    struct Pix *pixd = pixCreateNoInit(wnew, hnew, 8);
    if (!pixd) return NULL;
    pixCopySpp(pixd, pixs);
    pixCopyResolution(pixd, pixs);
    pixCopyText(pixd, pixs);
    pixSetPadBits(pixd, 0);
    const int wpld = pixGetWpl(pixd), stride = 4 * wpld;
    uint8_t *plain = malloc((size_t)stride * (size_t)hnew + 4);
    if (!plain) {
        pixDestroy(&pixd);
        return NULL;
    }
    memset(plain, 255, (size_t)stride * (size_t)hnew + 4);
    const uint32_t *datas = pixGetData(pixs);
    const int wpls = pixGetWpl(pixs), whole = w / 4;  // words of four pixels of the row's own
    for (int y = 0; y < h; y++) {
        const uint32_t *line = datas + (size_t)y * (size_t)wpls;
        uint8_t *to = plain + (size_t)(y + yoff) * (size_t)stride + xoff;
        swap_words(line, (size_t)whole, to);
        // The last word's pixels of the row alone: its padding stays the canvas's white.
        for (int x = 4 * whole; x < w; x++) to[x] = byte_at(line, x);
    }
    double s, c;
    sincos((double)angle, &s, &c);
    rotate_rows_avx2(plain, stride, pixGetData(pixd), wpld, wnew, hnew, (float)(16.0 * s), (float)(16.0 * c), 255);
    free(plain);
    return pixd;
}
#endif

struct Pix *shelfscan_rotate_white(struct Pix *pixs, float angle) {
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
#if defined(__x86_64__)
    // Where this turn applies (the executable's turns on, AVX2 alone: the AVX-512 one turns the
    // library's canvas) and the canvas's byte offsets fit 32-bit lanes.
    if (s == 1 && width == 1 && pixs && pixGetDepth(pixs) == 8 && !pixGetColormap(pixs) && fabsf(angle) >= 0.01f
        && pixGetWidth(pixs) >= 2 && pixGetHeight(pixs) >= 2 && (double)pixGetWidth(pixs) * pixGetHeight(pixs) < 2.5e8) {
        if (__atomic_load_n(&embedded_checked, __ATOMIC_RELAXED) >= self_checks) {
            struct Pix *ours = rotate_embedded(pixs, angle);
            if (ours) return ours;
        } else {
            // Self-check: the library's result stands; any difference hands every later one to it.
            struct Pix *theirs = library_rotate_embedded(pixs, angle);
            struct Pix *ours = rotate_embedded(pixs, angle);
            bool same = same_picture(theirs, ours, same_resolution | same_input_format);
            pixDestroy(&ours);
            __atomic_add_fetch(&embedded_checked, 1, __ATOMIC_RELAXED);
            __atomic_add_fetch(&checked, 1, __ATOMIC_RELAXED);
            if (!same) {
                __atomic_add_fetch(&differed, 1, __ATOMIC_RELAXED);
                __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
            }
            if (theirs) return theirs;
        }
    }
#endif
    return pixRotate(pixs, angle, rotate_area_map, bring_in_white, pixGetWidth(pixs), pixGetHeight(pixs));
}

int shelfscan_rotate_am_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }

int shelfscan_rotate_am_use(int on) {
    pthread_once(&decided, decide);
    __atomic_store_n(&state, on && checks_passed && __atomic_load_n(&differed, __ATOMIC_RELAXED) == 0 ? 1 : 2, __ATOMIC_RELEASE);
    return shelfscan_rotate_am_state();
}

void shelfscan_rotate_am_checked(long *rotations, long *differences) {
    *rotations = __atomic_load_n(&checked, __ATOMIC_RELAXED);
    *differences = __atomic_load_n(&differed, __ATOMIC_RELAXED);
}

long shelfscan_rotate_am_compare(int trials, unsigned seed) {
    if (!library_rotate) library_rotate = (rotate_fn)dlsym(RTLD_NEXT, "pixRotateAMGray");
    if (!runnable()) return -1;
    long differences = 0;
    for (int t = 0; t < trials; t++) {
        int w = 2 + (int)(shelfscan_probe_random(&seed) % 299), h = 2 + (int)(shelfscan_probe_random(&seed) % 299);
        struct Pix *pix = pixCreate(w, h, 8);
        if (!pix) return -1;
        uint32_t *data = pixGetData(pix);
        // Smooth gradients with noise, so neighbours differ as in photos.
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int v = (x * 7 + y * 3 + (int)(shelfscan_probe_random(&seed) % 40)) & 0xff;
                uint8_t *line = (uint8_t *)(data + (size_t)y * (size_t)pixGetWpl(pix));
                line[x ^ 3] = (uint8_t)v;
            }
        float angle = (((float)shelfscan_probe_random(&seed) / (float)RAND_MAX) * 2.0f - 1.0f) * (shelfscan_probe_random(&seed) % 4 == 0 ? 3.1f : 0.4f);
        if (fabsf(angle) < 0.01f) angle = 0.25f;
        int grayval = shelfscan_probe_random(&seed) % 2 ? 255 : (int)(shelfscan_probe_random(&seed) % 256);
        struct Pix *theirs = library_rotate(pix, angle, grayval);
        // Every width this processor has (AVX-512 and AVX2 both where it has AVX-512).
        for (int w = width; w >= 1; w--) {
            struct Pix *ours = rotate_width(pix, angle, grayval, w);
            differences += !same_picture(theirs, ours, 0);
            pixDestroy(&ours);
        }
        pixDestroy(&theirs);
#if defined(__x86_64__)
        // The whole turn onto its white canvas (`shelfscan_rotate_white`'s), some with a resolution.
        if (t % 2) pixSetResolution(pix, 72 + t, 300);
        theirs = library_rotate_embedded(pix, angle);
        struct Pix *ours = rotate_embedded(pix, angle);
        differences += !same_picture(theirs, ours, same_resolution | same_input_format);
        pixDestroy(&ours);
        pixDestroy(&theirs);
#endif
        pixDestroy(&pix);
    }
    return differences;
}
