// See include/lstmsteps.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "lstmsteps.h"
#include "selfcheck.h"

extern const char *TessVersion(void);

// tesseract::StrideMap and tesseract::StrideMap::Index as libtesseract 5.3.0 lays them out
// (stridemap.h there; the offsets checked against Debian's machine code: the map's shape at 0,
// its t increments at 12, heights_ at 24 and widths_ at 48; the index's map at 0, t at 8, its
// batch, y and x at 12, 16, 20). The dimensions are FD_BATCH 0, FD_HEIGHT 1, FD_WIDTH 2.
enum { dims = 3, batch_dim = 0, height_dim = 1 };
struct int_vector { int *begin, *end, *capacity; };
struct stride_map {
    int shape[dims];
    int t_increments[dims];
    struct int_vector heights, widths;
};
struct stride_index {
    const struct stride_map *map;
    int t;
    int indices[dims];
};

// The largest index `dim` may take at the index's batch: the map's size, or this batch's own
// height or width when it has one and it is smaller.
static inline int max_index(const struct stride_index *ix, int dim) {
    int limit = ix->map->shape[dim] - 1;
    if (dim == batch_dim) return limit;
    const struct int_vector *sizes = dim == height_dim ? &ix->map->heights : &ix->map->widths;
    size_t batch = (size_t)(long)ix->indices[batch_dim];
    if (batch >= (size_t)(sizes->end - sizes->begin)) return limit;
    int size = sizes->begin[batch];
    return size > limit ? limit : size - 1;
}

static inline bool is_valid(const struct stride_index *ix) {
    for (int d = 0; d < dims; d++)
        if (ix->indices[d] < 0) return false;
    for (int d = 0; d < dims; d++)
        if (ix->indices[d] > max_index(ix, d)) return false;
    return true;
}

static inline void set_t(struct stride_index *ix) {
    const int *inc = ix->map->t_increments;
    ix->t = inc[0] * ix->indices[0] + inc[1] * ix->indices[1] + inc[2] * ix->indices[2];
}

static inline bool add_offset(struct stride_index *ix, int offset, int dim) {
    ix->indices[dim] += offset;
    set_t(ix);
    return is_valid(ix);
}

// The next position, the last dimension fastest; false (and back to the start) after the last.
static inline bool increment(struct stride_index *ix) {
    for (int d = dims - 1; d >= 0; d--) {
        if (max_index(ix, d) != ix->indices[d]) {
            ix->t += ix->map->t_increments[d];
            ix->indices[d]++;
            return true;
        }
        ix->t -= ix->map->t_increments[d] * ix->indices[d];
        ix->indices[d] = 0;
    }
    return false;
}

// tesseract::NetworkIO as libtesseract 5.3.0 lays it out (networkio.h there; checked against
// Debian's machine code): its float array f_ and int8 array i_ (GENERIC_2D_ARRAY: a vtable, the
// elements, the unused cell, the two dimensions, the allocated size), which of them is used,
// and its stride map.
struct net_io {
    void *f_vtable;
    float *f;
    float f_empty;
    int f_dim1, f_dim2, f_allocated;
    void *i_vtable;
    int8_t *i;
    int8_t i_empty;
    int i_dim1, i_dim2, i_allocated;
    bool int_mode;
    struct stride_map stride_map;
};
_Static_assert(offsetof(struct net_io, f) == 0x8 && offsetof(struct net_io, f_dim2) == 0x18
               && offsetof(struct net_io, i) == 0x28 && offsetof(struct net_io, i_dim2) == 0x38
               && offsetof(struct net_io, int_mode) == 0x40 && offsetof(struct net_io, stride_map) == 0x48,
               "NetworkIO as libtesseract 5.3.0 lays it out");

// One value in [-1, 1] as an int8 as Tesseract stores it: times 127, rounded half away from
// zero (by truncating |x| + 0.5 in single precision), clipped to +-127; what x86's truncation
// makes of NaN and of values past an int's range (INT_MIN, so -127) included.
static inline int8_t quantised(float value) {
    float x = value * 127.0f;
#if defined(__x86_64__)
    int r = x >= 0.0f ? _mm_cvtt_ss2si(_mm_set_ss(x + 0.5f)) : (int)(0u - (unsigned)_mm_cvtt_ss2si(_mm_set_ss(0.5f - x)));
#else
    int r = x >= 0.0f ? (int)(x + 0.5f) : -(int)(0.5f - x);
#endif
    return (int8_t)(r > 127 ? 127 : r < -127 ? -127 : r);
}

#if defined(__x86_64__)
// Four at once, the same arithmetic: |x| + 0.5 truncated, negated where x is not >= 0.
static inline __m128i quantised4(__m128 values) {
    __m128 x = _mm_mul_ps(values, _mm_set1_ps(127.0f));
    __m128i r = _mm_cvttps_epi32(_mm_add_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), x), _mm_set1_ps(0.5f)));
    __m128i positive = _mm_castps_si128(_mm_cmpge_ps(x, _mm_setzero_ps()));
    __m128i negated = _mm_sub_epi32(_mm_setzero_si128(), r);
    return _mm_or_si128(_mm_and_si128(positive, r), _mm_andnot_si128(positive, negated));
}
#endif

#if defined(__x86_64__)
// Sixteen at once with AVX-512 (F, BW, VL), the same arithmetic again: the sums clipped to
// +-127 in 32 bits, as the 16-bit saturation and clip above leave them, then narrowed (3% of a
// shelf photo's CPU went into the four-at-a-time loop). Returns how many values it wrote.
static __attribute__((target("avx512f,avx512bw,avx512vl"))) int quantise_wide(int8_t *line, int n, const float *input) {
    int k = 0;
    for (; k + 16 <= n; k += 16) {
        const __m512 x = _mm512_mul_ps(_mm512_loadu_ps(input + k), _mm512_set1_ps(127.0f));
        __m512i r = _mm512_cvttps_epi32(_mm512_add_ps(_mm512_abs_ps(x), _mm512_set1_ps(0.5f)));
        const __mmask16 positive = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OQ);
        r = _mm512_mask_sub_epi32(r, (__mmask16)~positive, _mm512_setzero_si512(), r);
        r = _mm512_min_epi32(_mm512_max_epi32(r, _mm512_set1_epi32(-127)), _mm512_set1_epi32(127));
        _mm_storeu_si128((__m128i *)(line + k), _mm512_cvtepi32_epi8(r));
    }
    return k;
}

// Whether `quantise_wide` runs: AVX-512 F, BW and VL, unless `SHELFSCAN_SIMD=avx2`.
static int quantise_width = -1;
static bool quantises_wide(void) {
    int w = __atomic_load_n(&quantise_width, __ATOMIC_RELAXED);
    if (__builtin_expect(w < 0, 0)) {
        __builtin_cpu_init();
        const char *setting = getenv("SHELFSCAN_SIMD");
        w = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")
            && !(setting && strcmp(setting, "avx2") == 0);
        __atomic_store_n(&quantise_width, w, __ATOMIC_RELAXED);
    }
    return w == 1;
}
#endif

// `n` values quantised into `line` (`quantised`, 16, 8 or one at a time).
static inline void quantise_line(int8_t *line, int n, const float *input) {
    int k = 0;
#if defined(__x86_64__)
    if (quantises_wide()) k = quantise_wide(line, n, input);
    for (; k + 8 <= n; k += 8) {
        __m128i both = _mm_packs_epi32(quantised4(_mm_loadu_ps(input + k)), quantised4(_mm_loadu_ps(input + k + 4)));
        both = _mm_min_epi16(_mm_max_epi16(both, _mm_set1_epi16(-127)), _mm_set1_epi16(127));
        _mm_storel_epi64((__m128i *)(line + k), _mm_packs_epi16(both, both));
    }
#endif
    for (; k < n; k++) line[k] = quantised(input[k]);
}

void shelfscan_quantise(signed char *line, int n, const float *input) { quantise_line((int8_t *)line, n, input); }

// NetworkIO::WriteTimeStepPart: `n` values into time step `t` from `offset` on, quantised in int
// mode (the LSTM's outputs, time step by time step; 6% of a shelf photo's CPU one at a time).
static inline void write_part(struct net_io *io, int t, int offset, int n, const float *input) {
    if (io->int_mode) {
        quantise_line(io->i + (long)(t * io->i_dim2) + offset, n, input);
    } else {
        float *line = io->f + (long)(t * io->f_dim2) + offset;
        for (int k = 0; k < n; k++) line[k] = input[k];
    }
}

// NetworkIO::MaxpoolTimeStep: time step `src_t` of `src` pooled into `dest_t` of `dest`, feature
// by feature: where the source is greater (in float mode, greater and not NaN), it is taken and
// `max_line` notes `src_t` (the maxpool over each 3x3 of the convolution's output; the library's
// goes one feature at a time, behind a virtual call's check, 3% of a shelf photo's CPU).
static inline void maxpool_step(struct net_io *dest, int dest_t, const struct net_io *src, int src_t, int *max_line) {
    if (dest->int_mode) {
        int n = dest->i_dim2;
        int8_t *d = dest->i + (long)(dest_t * n);
        const int8_t *from = src->i + (long)(src_t * src->i_dim2);
        int k = 0;
#if defined(__x86_64__)
        __m128i step = _mm_set1_epi32(src_t);
        for (; k + 16 <= n; k += 16) {
            __m128i was = _mm_loadu_si128((const __m128i *)(d + k)), value = _mm_loadu_si128((const __m128i *)(from + k));
            __m128i greater = _mm_cmpgt_epi8(value, was);
            _mm_storeu_si128((__m128i *)(d + k), _mm_or_si128(_mm_and_si128(greater, value), _mm_andnot_si128(greater, was)));
            __m128i low = _mm_unpacklo_epi8(greater, greater), high = _mm_unpackhi_epi8(greater, greater);
            __m128i wide[4] = {_mm_unpacklo_epi16(low, low), _mm_unpackhi_epi16(low, low),
                               _mm_unpacklo_epi16(high, high), _mm_unpackhi_epi16(high, high)};
            for (int q = 0; q < 4; q++) {
                __m128i *line = (__m128i *)(max_line + k + 4 * q);
                __m128i old = _mm_loadu_si128(line);
                _mm_storeu_si128(line, _mm_or_si128(_mm_and_si128(wide[q], step), _mm_andnot_si128(wide[q], old)));
            }
        }
#endif
        for (; k < n; k++)
            if (d[k] < from[k]) { d[k] = from[k]; max_line[k] = src_t; }
    } else {
        int n = dest->f_dim2;
        float *d = dest->f + (long)(dest_t * n);
        const float *from = src->f + (long)(src_t * src->f_dim2);
        for (int k = 0; k < n; k++)
            if (from[k] > d[k]) { d[k] = from[k]; max_line[k] = src_t; }
    }
}

// tesseract::Convolve as libtesseract 5.3.0 lays it out (Network's fields, then its own; read
// off Debian's machine code): inputs per position, outputs, the randomizer that fills what lies
// outside the picture, and the half sizes of its window.
struct convolve {
    char network[0x18];
    int ni, no;
    char more_network[0x58 - 0x20];
    void *randomizer;
    int half_x, half_y;
};
_Static_assert(offsetof(struct convolve, ni) == 0x18 && offsetof(struct convolve, no) == 0x1c
               && offsetof(struct convolve, randomizer) == 0x58 && offsetof(struct convolve, half_x) == 0x60
               && offsetof(struct convolve, half_y) == 0x64, "Convolve as libtesseract 5.3.0 lays it out");

typedef void (*resize_to_map_fn)(struct net_io *, bool, const struct stride_map *, int);
typedef void (*randomize_fn)(struct net_io *, int, int, int, void *);
static resize_to_map_fn real_resize_to_map;
static randomize_fn real_randomize;
// operator delete and operator delete[] (libstdc++'s, loaded with libtesseract): the probe frees
// what the library allocated.
typedef void (*delete_fn)(void *);
static delete_fn delete_one, delete_array;

// NetworkIO::CopyTimeStepGeneral as the convolution uses it: `n` inputs of time step `src_t`
// of `from` (from its first feature) into time step `t` of `to` from `offset` on.
static inline void copy_inputs(struct net_io *to, int t, int offset, const struct net_io *from, int src_t, int n) {
    if (to->int_mode) {
        int8_t *d = to->i + (long)(t * to->i_dim2) + offset;
        const int8_t *s = from->i + (long)(src_t * from->i_dim2);
        if (n == 1) *d = *s; else memcpy(d, s, (size_t)n);
    } else {
        float *d = to->f + (long)(t * to->f_dim2) + offset;
        const float *s = from->f + (long)(src_t * from->f_dim2);
        if (n == 1) *d = *s; else memcpy(d, s, sizeof(float) * (size_t)n);
    }
}

// NetworkIO::Randomize: `n` features of time step `t` from `offset` on, each the randomizer's
// next SignedRand (times 127 and rounded half away from zero in int mode). Tesseract's TRand is
// a std::minstd_rand (its one 64-bit word: x <- 48271 x mod 2^31 - 1); SignedRand(range) is
// range * 2.0 * x / INT32_MAX - range in double precision. The library's computes the modulo by
// a multiply-high and calls through its linkage table per span: the same numbers here, inline.
static inline void randomize(struct net_io *io, int t, int offset, int n, void *randomizer) {
    uint64_t *state = randomizer, x = *state;
    if (io->int_mode) {
        int8_t *line = io->i + (long)t * io->i_dim2 + offset;
        for (int k = 0; k < n; k++) {
            x = x * 48271u % 2147483647u;
            double v = 127.0 * 2.0 * (double)(int32_t)x / 2147483647.0 - 127.0;
            line[k] = (int8_t)(v >= 0.0 ? (int)(v + 0.5) : -(int)(0.5 - v));
        }
    } else {
        float *line = io->f + (long)t * io->f_dim2 + offset;
        for (int k = 0; k < n; k++) {
            x = x * 48271u % 2147483647u;
            line[k] = (float)(1.0 * 2.0 * (double)(int32_t)x / 2147483647.0 - 1.0);
        }
    }
    *state = x;
}

// Convolve::Forward: each position's window of (2 half_x + 1) x (2 half_y + 1) inputs stacked
// into its output, x outer, y inner; what falls outside the picture random (Randomize's numbers,
// `randomize` above, drawn in the same order, so the randomizer's sequence is the same). The library's
// steps through the window with index objects and copies one input per call: on the first
// layer (one gray per pixel) a dozen calls through the linkage table per pixel.
static void convolve_forward(const struct convolve *layer, const struct net_io *input, struct net_io *output) {
    real_resize_to_map(output, input->int_mode, &input->stride_map, layer->no);
    int ni = layer->ni, y_scale = 2 * layer->half_y + 1;
    struct stride_index at = {&output->stride_map, 0, {0, 0, 0}};
    const int *inc = output->stride_map.t_increments;
    // A window's inputs' offsets from its first, x outer, y inner, for one int8 feature.
    enum { most_window = 49 };
    long offsets[most_window];
    const int window_size = (2 * layer->half_x + 1) * y_scale;
    const bool bytes_one_by_one = ni == 1 && input->int_mode && output->int_mode && window_size <= most_window;
    if (bytes_one_by_one)
        for (int x = 0, k = 0; x <= 2 * layer->half_x; x++)
            for (int y = 0; y < y_scale; y++, k++) offsets[k] = (long)(x * inc[2] + y * inc[1]) * input->i_dim2;
    do {
        int t = at.t, out_ix = 0;
        // A window wholly inside the picture (most of them): no test per input.
        const int last_x = max_index(&at, 2);
        if (at.indices[2] >= layer->half_x && at.indices[2] + layer->half_x <= last_x
            && at.indices[1] >= layer->half_y && at.indices[1] + layer->half_y <= max_index(&at, 1)) {
            // Every position left in this row whose window is inside too, one after another (x
            // is the map's innermost dimension); `at` then stands at the run's last one.
            const int run = last_x - layer->half_x - at.indices[2] + 1;
            if (bytes_one_by_one) {
                // One int8 feature per position (the line's pixels): each window's bytes
                // gathered at offsets worked out once, the arrays' pointers held in registers.
                const int8_t *from = input->i;
                int8_t *to = output->i;
                const long from_row = input->i_dim2, to_row = output->i_dim2;
                for (int r = 0; r < run; r++, t += inc[2]) {
                    const int8_t *window = from + (long)(t - layer->half_x * inc[2] - layer->half_y * inc[1]) * from_row;
                    int8_t *d = to + (long)t * to_row;
                    for (int k = 0; k < window_size; k++) d[k] = window[offsets[k]];
                }
            } else {
                for (int r = 0; r < run; r++, t += inc[2]) {
                    int first = t - layer->half_x * inc[2] - layer->half_y * inc[1];
                    for (int x = 0, out = 0; x <= 2 * layer->half_x; x++)
                        for (int y = 0; y < y_scale; y++, out += ni) copy_inputs(output, t, out, input, first + x * inc[2] + y * inc[1], ni);
                }
            }
            at.indices[2] += run - 1;
            at.t += (run - 1) * inc[2];
            continue;
        }
        for (int x = -layer->half_x; x <= layer->half_x; x++, out_ix += y_scale * ni) {
            struct stride_index column = at;
            if (!add_offset(&column, x, 2)) {
                randomize(output, t, out_ix, y_scale * ni, layer->randomizer);
                continue;
            }
            int out_iy = out_ix;
            for (int y = -layer->half_y; y <= layer->half_y; y++, out_iy += ni) {
                struct stride_index cell = column;
                if (add_offset(&cell, y, 1)) copy_inputs(output, t, out_iy, input, cell.t, ni);
                else randomize(output, t, out_iy, ni, layer->randomizer);
            }
        }
    } while (increment(&at));
}

// tesseract::Maxpool as libtesseract 5.3.0 lays it out (Network's fields, Reconfig's, its own;
// read off Debian's machine code of Maxpool::Forward, whose bytes are checked): inputs and
// outputs per position, the input's map kept for the backward pass, the pooling's x and y
// sizes, and `maxes_` (a GENERIC_2D_ARRAY<int>: vtable, elements, unused cell, dimensions,
// allocated size), where each output's feature notes the input position it came from.
struct maxpool {
    char network[0x18];
    int ni, no;
    char more_network[0x60 - 0x20];
    struct stride_map back_map;
    int x_scale, y_scale;
    void *maxes_vtable;
    int *maxes;
    int maxes_empty;
    int maxes_dim1, maxes_dim2, maxes_allocated;
};
_Static_assert(offsetof(struct maxpool, ni) == 0x18 && offsetof(struct maxpool, no) == 0x1c
               && offsetof(struct maxpool, back_map) == 0x60 && offsetof(struct stride_map, heights) == 0x18
               && offsetof(struct maxpool, x_scale) == 0xa8 && offsetof(struct maxpool, y_scale) == 0xac
               && offsetof(struct maxpool, maxes) == 0xb8 && offsetof(struct maxpool, maxes_dim1) == 0xc4
               && offsetof(struct maxpool, maxes_dim2) == 0xc8 && offsetof(struct maxpool, maxes_allocated) == 0xcc,
               "Maxpool as libtesseract 5.3.0 lays it out");

typedef void (*resize_scaled_fn)(struct net_io *, const struct net_io *, int, int, int);
typedef void (*copy_step_fn)(struct net_io *, int, const struct net_io *, int);
typedef void *(*new_fn)(size_t);
static resize_scaled_fn real_resize_scaled;
static copy_step_fn real_copy_step;
// operator new and operator new[] (libstdc++'s): what the library will free, allocated as it does.
static new_fn new_one, new_array;

// std::vector<int>'s copy assignment as libstdc++ does it: the elements copied into the storage
// there when it holds them, else into new storage of exactly their number (the old let go).
static void assign_ints(struct int_vector *to, const struct int_vector *from) {
    if (to == from) return;
    const size_t n = (size_t)(from->end - from->begin);
    if (n > (size_t)(to->capacity - to->begin)) {
        int *fresh = new_one(n * sizeof(int));
        memcpy(fresh, from->begin, n * sizeof(int));
        if (to->begin) delete_one(to->begin);
        to->begin = fresh;
        to->capacity = fresh + n;
    } else if (n) {
        memmove(to->begin, from->begin, n * sizeof(int));
    }
    to->end = to->begin + n;
}

#if defined(__x86_64__)
// One output position of a pooling over 16 int8 features whose window lies wholly inside the
// picture, as `maxpool_step` over the window, x outer, y inner, would leave it: the running
// maximum and, for each feature, the first position holding it (a later one replaces it only
// where strictly greater), in registers; the window's first position is the copied one.
static __attribute__((target("avx512f,avx512bw,avx512vl"))) void pool16(int8_t *out, const int8_t *in, int in_t, const int *inc,
                                                                       int x_scale, int y_scale, int *max_line) {
    __m128i best = _mm_loadu_si128((const __m128i *)(in + (long)in_t * 16));
    __m512i where = _mm512_set1_epi32(in_t);
    for (int x = 0; x < x_scale; x++)
        for (int y = 0; y < y_scale; y++) {
            const int t = in_t + x * inc[2] + y * inc[1];
            const __m128i value = _mm_loadu_si128((const __m128i *)(in + (long)t * 16));
            const __mmask16 greater = _mm_cmpgt_epi8_mask(value, best);
            best = _mm_mask_mov_epi8(best, greater, value);
            where = _mm512_mask_mov_epi32(where, greater, _mm512_set1_epi32(t));
        }
    _mm_storeu_si128((__m128i *)out, best);
    _mm512_storeu_si512(max_line, where);
}
#endif

#if defined(__x86_64__)
// `pool16` with AVX2: the best 16 values in one register, the positions they came from in two
// registers of eight.
static __attribute__((target("avx2"))) void pool16_avx2(int8_t *out, const int8_t *in, int in_t, const int *inc, int x_scale,
                                                        int y_scale, int *max_line) {
    __m128i best = _mm_loadu_si128((const __m128i *)(in + (long)in_t * 16));
    __m256i low = _mm256_set1_epi32(in_t), high = low;
    for (int x = 0; x < x_scale; x++)
        for (int y = 0; y < y_scale; y++) {
            const int t = in_t + x * inc[2] + y * inc[1];
            const __m128i value = _mm_loadu_si128((const __m128i *)(in + (long)t * 16));
            const __m128i greater = _mm_cmpgt_epi8(value, best);
            best = _mm_blendv_epi8(best, value, greater);
            const __m256i step = _mm256_set1_epi32(t);
            low = _mm256_blendv_epi8(low, step, _mm256_cvtepi8_epi32(greater));
            high = _mm256_blendv_epi8(high, step, _mm256_cvtepi8_epi32(_mm_srli_si128(greater, 8)));
        }
    _mm_storeu_si128((__m128i *)out, best);
    _mm256_storeu_si256((__m256i *)max_line, low);
    _mm256_storeu_si256((__m256i *)(max_line + 8), high);
}
#endif

// Maxpool::Forward: the output sized as the library sizes it (`ResizeScaled`), `maxes_` as its
// `ResizeNoInit` does, the input's map kept (`back_map_`); then for each output position, the
// input position at its scaled indices copied (`CopyTimeStepFrom`), every feature noted as from
// there, and each position of its x_scale x y_scale window inside the picture pooled in
// (`MaxpoolTimeStep`), x outer, y inner. The library walks the window with index objects, two
// `AddOffset` calls through the linkage table per position: 3% of a shelf photo's CPU.
static void maxpool_forward(struct maxpool *layer, const struct net_io *input, struct net_io *output) {
    real_resize_scaled(output, input, layer->x_scale, layer->y_scale, layer->no);
    const int width = output->int_mode ? output->i_dim1 : output->f_dim1;
    const int size = width * layer->ni;
    if (size > layer->maxes_allocated) {
        if (layer->maxes) delete_array(layer->maxes);
        layer->maxes = new_array((size_t)size * sizeof(int));
        layer->maxes_allocated = size;
    }
    layer->maxes_dim1 = width;
    layer->maxes_dim2 = layer->ni;
    memcpy(layer->back_map.shape, input->stride_map.shape, sizeof layer->back_map.shape);
    memcpy(layer->back_map.t_increments, input->stride_map.t_increments, sizeof layer->back_map.t_increments);
    assign_ints(&layer->back_map.heights, &input->stride_map.heights);
    assign_ints(&layer->back_map.widths, &input->stride_map.widths);
    const bool same_mode = output->int_mode == input->int_mode;
#if defined(__x86_64__)
    // The fast model's pooling (Mp3,3 over 16 int8 features): `pool16` (AVX-512) or
    // `pool16_avx2`, each window in registers.
    const bool sixteen_bytes = same_mode && output->int_mode && layer->ni == 16 && input->i_dim2 == 16 && output->i_dim2 == 16;
    const bool sixteen = sixteen_bytes && quantises_wide();
    const bool sixteen_avx2 = sixteen_bytes && !sixteen && __builtin_cpu_supports("avx2");
#endif
    const int *inc = input->stride_map.t_increments;
    struct stride_index at = {&output->stride_map, 0, {0, 0, 0}};
    struct stride_index from = {&input->stride_map, 0, {0, 0, 0}};
    do {
        const int out_t = at.t;
        from.indices[0] = at.indices[0];
        from.indices[1] = at.indices[1] * layer->y_scale;
        from.indices[2] = at.indices[2] * layer->x_scale;
        set_t(&from);
        int *max_line = layer->maxes + (long)out_t * layer->maxes_dim2;
        const int in_t = from.t;
        if (!same_mode) {
            // The library's, to raise its error.
            real_copy_step(output, out_t, input, in_t);
        } else if (output->int_mode) {
            memcpy(output->i + (long)(out_t * output->i_dim2), input->i + (long)(in_t * input->i_dim2), (size_t)output->i_dim2);
        } else {
            memcpy(output->f + (long)(out_t * output->f_dim2), input->f + (long)(in_t * input->f_dim2),
                   sizeof(float) * (size_t)output->f_dim2);
        }
        // `AddOffset` along x, then along y, both valid: the window's position inside the map at
        // this batch (the offsets are not negative, so a position past the edge along x or y
        // stays past it; the batch is the output's own).
        bool batch_valid = from.indices[0] >= 0 && from.indices[0] <= max_index(&from, 0);
        const int last_x = max_index(&from, 2), last_y = max_index(&from, 1);
#if defined(__x86_64__)
        if ((sixteen || sixteen_avx2) && batch_valid && from.indices[2] + layer->x_scale - 1 <= last_x
            && from.indices[1] + layer->y_scale - 1 <= last_y) {
            if (sixteen) pool16(output->i + (long)out_t * 16, input->i, in_t, inc, layer->x_scale, layer->y_scale, max_line);
            else pool16_avx2(output->i + (long)out_t * 16, input->i, in_t, inc, layer->x_scale, layer->y_scale, max_line);
            continue;
        }
#endif
        for (int i = 0; i < layer->ni; i++) max_line[i] = in_t;
        for (int x = 0; x < layer->x_scale; x++) {
            const int column = from.indices[2] + x;
            if (!batch_valid || column < 0 || column > last_x) continue;
            for (int y = 0; y < layer->y_scale; y++) {
                const int row = from.indices[1] + y;
                if (row < 0 || row > last_y) continue;
                maxpool_step(output, out_t, input, in_t + x * inc[2] + y * inc[1], max_line);
            }
        }
    } while (increment(&at));
}

// Leptonica's picture accessors (Copy2DImage's line picture).
struct Pix;
extern int pixGetWidth(const struct Pix *pix);
extern int pixGetHeight(const struct Pix *pix);
extern int pixGetDepth(const struct Pix *pix);
extern int pixGetWpl(const struct Pix *pix);
extern uint32_t *pixGetData(struct Pix *pix);
extern struct Pix *pixCreate(int width, int height, int depth);
extern void pixDestroy(struct Pix **pix);

// NetworkIO::SetPixel in int mode: (pixel - black) / contrast - 1 in single precision, times
// 128, IntCastRounded (half away from zero, by truncating |x| + 0.5; x86's truncation of NaN
// and of values past an int's range, INT_MIN, included), clipped to +-127.
static inline int8_t input_value(int pixel, float black, float contrast) {
    float float_pixel = ((float)pixel - black) / contrast - 1.0f;
    float x = 128.0f * float_pixel;
#if defined(__x86_64__)
    int r = x >= 0.0f ? _mm_cvtt_ss2si(_mm_set_ss(x + 0.5f)) : (int)(0u - (unsigned)_mm_cvtt_ss2si(_mm_set_ss(-x + 0.5f)));
#else
    int r = x >= 0.0f ? (int)(x + 0.5f) : -(int)(-x + 0.5f);
#endif
    return (int8_t)(r > 127 ? 127 : r < -127 ? -127 : r);
}

// NetworkIO::Copy2DImage for a gray line picture into an int-mode input of one feature (every
// line the LSTM reads): the library converts each pixel by a call to SetPixel (its division
// and rounding per pixel); here the 256 grays' values are worked out once and looked up. What
// lies past the picture is random as Randomize makes it, in the same order.
static bool copy_2d_fits(const struct net_io *io, struct Pix *pix) {
    return io->int_mode && io->i_dim2 == 1 && pix && pixGetDepth(pix) == 8;
}

static void copy_2d_here(struct net_io *io, int batch, struct Pix *pix, float black, float contrast, void *randomizer) {
    int width = pixGetWidth(pix), height = pixGetHeight(pix), wpl = pixGetWpl(pix);
    struct stride_index at = {&io->stride_map, 0, {0, 0, 0}};
    add_offset(&at, batch, batch_dim);
    int t = at.t;
    const int target_height = io->stride_map.shape[1], target_width = io->stride_map.shape[2];
    if (width > target_width) width = target_width;
    int8_t values[256];
    for (int v = 0; v < 256; v++) values[v] = input_value(v, black, contrast);
    const uint32_t *line = pixGetData(pix);
    for (int y = 0; y < target_height; ++y, line += wpl) {
        int x = 0;
        if (y < height) {
            int8_t *to = io->i + (long)t;
            const uint8_t *bytes = (const uint8_t *)line;
            for (; x < width; ++x) to[x] = values[bytes[x ^ 3]];
            t += width;
        }
        for (; x < target_width; ++x) randomize(io, t++, 0, 1, randomizer);
    }
}

// The library's own methods, and which run: 0 not decided yet, 1 these, 2 the library's.
typedef int (*max_index_fn)(const struct stride_index *, int);
typedef bool (*is_valid_fn)(const struct stride_index *);
typedef bool (*is_last_fn)(const struct stride_index *, int);
typedef bool (*increment_fn)(struct stride_index *);
typedef void (*set_t_fn)(struct stride_index *);
typedef bool (*add_offset_fn)(struct stride_index *, int, int);
typedef void (*write_part_fn)(struct net_io *, int, int, int, const float *);
typedef void (*maxpool_fn)(struct net_io *, int, const struct net_io *, int, int *);
typedef void (*convolve_fn)(struct convolve *, bool, const struct net_io *, const void *, void *, struct net_io *);
static max_index_fn real_max_index;
static is_valid_fn real_is_valid;
static is_last_fn real_is_last;
static increment_fn real_increment;
static set_t_fn real_set_t;
static add_offset_fn real_add_offset;
static write_part_fn real_write_part;
static maxpool_fn real_maxpool;
static convolve_fn real_convolve;
typedef void (*copy_2d_fn)(struct net_io *, int, struct Pix *, float, float, void *);
static copy_2d_fn real_copy_2d;
// The virtual tables of GENERIC_2D_ARRAY<int8_t> and <float>: the library's MaxpoolTimeStep
// calls its source array's `index` through them, so the probe's arrays need the real ones.
static char *int_array_vtable, *float_array_vtable;
static int state = 0;
static int checks_passed = 0;
static pthread_once_t decided = PTHREAD_ONCE_INIT;

#define MAX_INDEX "_ZNK9tesseract9StrideMap5Index13MaxIndexOfDimENS_14FlexDimensionsE"
#define IS_VALID "_ZNK9tesseract9StrideMap5Index7IsValidEv"
#define IS_LAST "_ZNK9tesseract9StrideMap5Index6IsLastENS_14FlexDimensionsE"
#define INCREMENT "_ZN9tesseract9StrideMap5Index9IncrementEv"
#define SET_T "_ZN9tesseract9StrideMap5Index15SetTFromIndicesEv"
#define ADD_OFFSET "_ZN9tesseract9StrideMap5Index9AddOffsetEiNS_14FlexDimensionsE"
#define WRITE_PART "_ZN9tesseract9NetworkIO17WriteTimeStepPartEiiiPKf"
#define MAXPOOL "_ZN9tesseract9NetworkIO15MaxpoolTimeStepEiRKS0_iPi"
#define CONVOLVE "_ZN9tesseract8Convolve7ForwardEbRKNS_9NetworkIOEPKNS_15TransposedArrayEPNS_14NetworkScratchEPS1_"
#define COPY_2D "_ZN9tesseract9NetworkIO11Copy2DImageEiNS_5ImageEffPNS_5TRandE"
#define MAXPOOL_FORWARD "_ZN9tesseract7Maxpool7ForwardEbRKNS_9NetworkIOEPKNS_15TransposedArrayEPNS_14NetworkScratchEPS1_"
// Maxpool::Forward's 0x314 bytes of machine code in Debian 12's libtesseract 5.3.0 (FNV-1a 64),
// from which `struct maxpool` was read: with any other, the library's own runs.
enum { maxpool_forward_size = 0x314 };
static const uint64_t maxpool_forward_hash = 0xe99469ce2ec0920aULL;
typedef void (*maxpool_forward_fn)(struct maxpool *, bool, const struct net_io *, const void *, void *, struct net_io *);
static maxpool_forward_fn real_maxpool_forward;
static bool maxpool_forward_found;

static long compare(int trials, unsigned seed);
// Line pictures copied here (`shelfscan_lstm_steps_copies`, for tests).
static long copies_2d;

static void decide(void) {
    real_max_index = (max_index_fn)dlsym(RTLD_NEXT, MAX_INDEX);
    real_is_valid = (is_valid_fn)dlsym(RTLD_NEXT, IS_VALID);
    real_is_last = (is_last_fn)dlsym(RTLD_NEXT, IS_LAST);
    real_increment = (increment_fn)dlsym(RTLD_NEXT, INCREMENT);
    real_set_t = (set_t_fn)dlsym(RTLD_NEXT, SET_T);
    real_add_offset = (add_offset_fn)dlsym(RTLD_NEXT, ADD_OFFSET);
    real_write_part = (write_part_fn)dlsym(RTLD_NEXT, WRITE_PART);
    real_maxpool = (maxpool_fn)dlsym(RTLD_NEXT, MAXPOOL);
    real_convolve = (convolve_fn)dlsym(RTLD_NEXT, CONVOLVE);
    real_copy_2d = (copy_2d_fn)dlsym(RTLD_NEXT, COPY_2D);
    real_maxpool_forward = (maxpool_forward_fn)dlsym(RTLD_NEXT, MAXPOOL_FORWARD);
    real_resize_scaled = (resize_scaled_fn)dlsym(RTLD_NEXT, "_ZN9tesseract9NetworkIO12ResizeScaledERKS0_iii");
    real_copy_step = (copy_step_fn)dlsym(RTLD_NEXT, "_ZN9tesseract9NetworkIO16CopyTimeStepFromEiRKS0_i");
    new_one = (new_fn)dlsym(RTLD_DEFAULT, "_Znwm");
    new_array = (new_fn)dlsym(RTLD_DEFAULT, "_Znam");
    maxpool_forward_found = real_maxpool_forward && real_resize_scaled && real_copy_step && new_one && new_array
        && shelfscan_code_hash((const void *)real_maxpool_forward, maxpool_forward_size) == maxpool_forward_hash;
    real_resize_to_map = (resize_to_map_fn)dlsym(RTLD_NEXT, "_ZN9tesseract9NetworkIO11ResizeToMapEbRKNS_9StrideMapEi");
    real_randomize = (randomize_fn)dlsym(RTLD_NEXT, "_ZN9tesseract9NetworkIO9RandomizeEiiiPNS_5TRandE");
    delete_one = (delete_fn)dlsym(RTLD_DEFAULT, "_ZdlPv");
    delete_array = (delete_fn)dlsym(RTLD_DEFAULT, "_ZdaPv");
    int_array_vtable = dlsym(RTLD_NEXT, "_ZTVN9tesseract16GENERIC_2D_ARRAYIaEE");
    float_array_vtable = dlsym(RTLD_NEXT, "_ZTVN9tesseract16GENERIC_2D_ARRAYIfEE");
    // The library's methods call one another through these while the probe runs, and other
    // threads' calls go on meanwhile: both are handed to the library's, found just above. Set
    // before they were found (until the forty-ninth session), a call from another thread in
    // that moment jumped to nothing: the real-shelf runs' rare crash at the first reading
    // ("segfault at 0 ip 0" in a dispatch worker; three in one afternoon).
    __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
    // For the test of this order (`CLITests.lstmStepsStartUp`): a pause here, while other
    // threads' calls go on to the library's methods, widens the moment a wrong order crashes in.
    const char *pause = getenv("SHELFSCAN_TEST_STEPS_PAUSE_MS");
    if (pause) usleep((useconds_t)atoi(pause) * 1000);
    const char *setting = getenv("SHELFSCAN_LSTM_STEPS");
    const char *version = TessVersion();
    // 300 cases (30 convolutions) take 2.5 ms of the first reading; the test runs 20,000.
    checks_passed = version && strcmp(version, "5.3.0") == 0 && compare(300, 1) == 0;
    bool on = checks_passed && !(setting && strcmp(setting, "off") == 0);
    __atomic_store_n(&state, on ? 1 : 2, __ATOMIC_RELEASE);
}

static inline bool ours(void) {
    // Acquire (a plain load on x86): a 2 seen here comes with the library's methods found.
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s == 1, 1)) return true;
    if (s == 0) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    return s == 1;
}

// The definitions libtesseract's calls reach: `this` comes first, the enum as an int.
int shelfscan_max_index_of_dim(const struct stride_index *ix, int dim) __asm__(MAX_INDEX);
bool shelfscan_is_valid(const struct stride_index *ix) __asm__(IS_VALID);
bool shelfscan_is_last(const struct stride_index *ix, int dim) __asm__(IS_LAST);
bool shelfscan_increment(struct stride_index *ix) __asm__(INCREMENT);
void shelfscan_set_t_from_indices(struct stride_index *ix) __asm__(SET_T);
bool shelfscan_add_offset(struct stride_index *ix, int offset, int dim) __asm__(ADD_OFFSET);
void shelfscan_write_time_step_part(struct net_io *io, int t, int offset, int n, const float *input) __asm__(WRITE_PART);
void shelfscan_maxpool_time_step(struct net_io *dest, int dest_t, const struct net_io *src, int src_t, int *max_line)
    __asm__(MAXPOOL);
void shelfscan_convolve_forward(struct convolve *layer, bool debug, const struct net_io *input, const void *transposed,
                                void *scratch, struct net_io *output) __asm__(CONVOLVE);
void shelfscan_maxpool_forward(struct maxpool *layer, bool debug, const struct net_io *input, const void *transposed,
                               void *scratch, struct net_io *output) __asm__(MAXPOOL_FORWARD);

int shelfscan_max_index_of_dim(const struct stride_index *ix, int dim) {
    return ours() ? max_index(ix, dim) : real_max_index(ix, dim);
}

bool shelfscan_is_valid(const struct stride_index *ix) { return ours() ? is_valid(ix) : real_is_valid(ix); }

bool shelfscan_is_last(const struct stride_index *ix, int dim) {
    return ours() ? max_index(ix, dim) == ix->indices[dim] : real_is_last(ix, dim);
}

bool shelfscan_increment(struct stride_index *ix) { return ours() ? increment(ix) : real_increment(ix); }

void shelfscan_set_t_from_indices(struct stride_index *ix) {
    if (ours()) set_t(ix); else real_set_t(ix);
}

bool shelfscan_add_offset(struct stride_index *ix, int offset, int dim) {
    return ours() ? add_offset(ix, offset, dim) : real_add_offset(ix, offset, dim);
}

void shelfscan_write_time_step_part(struct net_io *io, int t, int offset, int n, const float *input) {
    if (ours()) write_part(io, t, offset, n, input); else real_write_part(io, t, offset, n, input);
}

// Arrays of different modes are the library's error to raise.
void shelfscan_maxpool_time_step(struct net_io *dest, int dest_t, const struct net_io *src, int src_t, int *max_line) {
    if (ours() && dest->int_mode == src->int_mode) maxpool_step(dest, dest_t, src, src_t, max_line);
    else real_maxpool(dest, dest_t, src, src_t, max_line);
}

// A debugging run (its picture drawn) is the library's.
void shelfscan_convolve_forward(struct convolve *layer, bool debug, const struct net_io *input, const void *transposed,
                                void *scratch, struct net_io *output) {
    if (ours() && !debug) convolve_forward(layer, input, output);
    else real_convolve(layer, debug, input, transposed, scratch, output);
}

// Copy2DImage: `this`, the batch, the Image (one Pix pointer, passed as one), black, contrast,
// the randomizer. Other inputs (colour, float mode) the library's.
void shelfscan_copy_2d_image(struct net_io *io, int batch, struct Pix *pix, float black, float contrast, void *randomizer)
    __asm__(COPY_2D);
void shelfscan_copy_2d_image(struct net_io *io, int batch, struct Pix *pix, float black, float contrast, void *randomizer) {
    if (ours() && copy_2d_fits(io, pix)) {
        copy_2d_here(io, batch, pix, black, contrast, randomizer);
        __atomic_add_fetch(&copies_2d, 1, __ATOMIC_RELAXED);
    } else {
        real_copy_2d(io, batch, pix, black, contrast, randomizer);
    }
}

long shelfscan_lstm_steps_copies(void) { return __atomic_load_n(&copies_2d, __ATOMIC_RELAXED); }

// Poolings done here (`shelfscan_lstm_steps_poolings`, for tests).
static long poolings;

// With another libtesseract than the one `struct maxpool` was read from, the library's.
void shelfscan_maxpool_forward(struct maxpool *layer, bool debug, const struct net_io *input, const void *transposed,
                               void *scratch, struct net_io *output) {
    if (ours() && maxpool_forward_found) {
        maxpool_forward(layer, input, output);
        __atomic_add_fetch(&poolings, 1, __ATOMIC_RELAXED);
    } else {
        real_maxpool_forward(layer, debug, input, transposed, scratch, output);
    }
}

long shelfscan_lstm_steps_poolings(void) { return __atomic_load_n(&poolings, __ATOMIC_RELAXED); }

int shelfscan_lstm_steps_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }

int shelfscan_lstm_steps_use(int on) {
    pthread_once(&decided, decide);
    __atomic_store_n(&state, on && checks_passed ? 1 : 2, __ATOMIC_RELEASE);
    return shelfscan_lstm_steps_state();
}

// One random write both ways, into arrays of 8 time steps of up to 100 features, in int or
// float mode: every element of both arrays compared (nothing written out of place either).
static long compare_write_part(unsigned *seed) {
    static const float special[] = {0.0f, -0.0f, 0.5f / 127, -0.5f / 127, 1.5f / 127, -2.5f / 127, 1.0f, -1.0f,
                                    1.2f, -1.2f, 3e7f, -3e7f, 1e30f, -1e30f, __builtin_inff(), -__builtin_inff(),
                                    __builtin_nanf("")};
    enum { steps = 8, most = 100 };
    int features = 1 + (int)(shelfscan_probe_random(seed) % most);
    int n = (int)(shelfscan_probe_random(seed) % (unsigned)(features + 1));
    int offset = (int)(shelfscan_probe_random(seed) % (unsigned)(features - n + 1));
    int t = (int)(shelfscan_probe_random(seed) % steps);
    float input[most];
    for (int k = 0; k < n; k++)
        input[k] = shelfscan_probe_random(seed) % 5 == 0 ? special[shelfscan_probe_random(seed) % (sizeof special / sizeof *special)]
                                         : ((float)shelfscan_probe_random(seed) / (float)RAND_MAX) * 2.6f - 1.3f;
    static int8_t ints[2][steps * most];
    static float floats[2][steps * most];
    struct net_io io[2];
    memset(io, 0, sizeof io);
    memset(ints, 0x55, sizeof ints);
    memset(floats, 0x55, sizeof floats);
    bool int_mode = shelfscan_probe_random(seed) % 4 != 0;
    for (int w = 0; w < 2; w++) {
        io[w].f = floats[w];
        io[w].i = ints[w];
        io[w].f_dim1 = io[w].i_dim1 = steps;
        io[w].f_dim2 = io[w].i_dim2 = features;
        io[w].int_mode = int_mode;
    }
    write_part(&io[0], t, offset, n, input);
    real_write_part(&io[1], t, offset, n, input);
    return (memcmp(ints[0], ints[1], sizeof ints[0]) != 0) + (memcmp(floats[0], floats[1], sizeof floats[0]) != 0);
}

// One random pooling both ways: 4 time steps of up to 40 features in each array, int or float
// mode (with NaN among the floats), both arrays and both max lines compared whole.
static long compare_maxpool(unsigned *seed) {
    enum { steps = 4, most = 40 };
    int features = 1 + (int)(shelfscan_probe_random(seed) % most), src_features = features + (int)(shelfscan_probe_random(seed) % 3);
    int dest_t = (int)(shelfscan_probe_random(seed) % steps), src_t = (int)(shelfscan_probe_random(seed) % steps);
    bool int_mode = shelfscan_probe_random(seed) % 4 != 0;
    int8_t ints[2][steps * most], src_ints[steps * (most + 2)];
    float floats[2][steps * most], src_floats[steps * (most + 2)];
    int lines[2][most];
    for (int k = 0; k < steps * most; k++) {
        ints[0][k] = ints[1][k] = (int8_t)(shelfscan_probe_random(seed) % 255 - 127);
        floats[0][k] = floats[1][k] = shelfscan_probe_random(seed) % 9 == 0 ? __builtin_nanf("") : (float)(shelfscan_probe_random(seed) % 201) / 100 - 1;
    }
    for (int k = 0; k < steps * (most + 2); k++) {
        src_ints[k] = (int8_t)(shelfscan_probe_random(seed) % 255 - 127);
        src_floats[k] = shelfscan_probe_random(seed) % 9 == 0 ? __builtin_nanf("") : (float)(shelfscan_probe_random(seed) % 201) / 100 - 1;
    }
    for (int k = 0; k < most; k++) lines[0][k] = lines[1][k] = (int)(shelfscan_probe_random(seed) % 100);
    struct net_io dest[2], src;
    memset(dest, 0, sizeof dest);
    memset(&src, 0, sizeof src);
    // A vtable pointer points past the table's offset-to-top and type information.
    src.i_vtable = int_array_vtable + 2 * sizeof(void *);
    src.f_vtable = float_array_vtable + 2 * sizeof(void *);
    src.i = src_ints;
    src.f = src_floats;
    src.i_dim1 = src.f_dim1 = steps;
    src.i_dim2 = src.f_dim2 = src_features;
    src.int_mode = int_mode;
    for (int w = 0; w < 2; w++) {
        dest[w].i_vtable = src.i_vtable;
        dest[w].f_vtable = src.f_vtable;
        dest[w].i = ints[w];
        dest[w].f = floats[w];
        dest[w].i_dim1 = dest[w].f_dim1 = steps;
        dest[w].i_dim2 = dest[w].f_dim2 = features;
        dest[w].int_mode = int_mode;
    }
    maxpool_step(&dest[0], dest_t, &src, src_t, lines[0]);
    real_maxpool(&dest[1], dest_t, &src, src_t, lines[1]);
    return (memcmp(ints[0], ints[1], sizeof ints[0]) != 0) + (memcmp(floats[0], floats[1], sizeof floats[0]) != 0)
        + (memcmp(lines[0], lines[1], sizeof lines[0]) != 0);
}


// One random convolution both ways: a picture of 1-2 batches, up to 8 x 12 positions (each
// batch its own height and width or not), 1-3 inputs each, a window of half sizes 0-2, int or
// float mode; the outputs (the library's `ResizeToMap` sizes them) and the two randomizers'
// states compared whole.
static long compare_convolve(unsigned *seed) {
    struct net_io input, output[2];
    memset(&input, 0, sizeof input);
    memset(output, 0, sizeof output);
    char *int_vtable = int_array_vtable + 2 * sizeof(void *), *float_vtable = float_array_vtable + 2 * sizeof(void *);
    struct stride_map *map = &input.stride_map;
    map->shape[0] = 1 + (int)(shelfscan_probe_random(seed) % 2);
    map->shape[1] = 1 + (int)(shelfscan_probe_random(seed) % 8);
    map->shape[2] = 1 + (int)(shelfscan_probe_random(seed) % 12);
    map->t_increments[2] = 1;
    map->t_increments[1] = map->shape[2];
    map->t_increments[0] = map->shape[1] * map->shape[2];
    int heights[2], widths[2];
    for (int b = 0; b < map->shape[0]; b++) {
        heights[b] = 1 + (int)(shelfscan_probe_random(seed) % (unsigned)map->shape[1]);
        widths[b] = 1 + (int)(shelfscan_probe_random(seed) % (unsigned)map->shape[2]);
    }
    if (shelfscan_probe_random(seed) % 2) {
        map->heights = (struct int_vector){heights, heights + map->shape[0], heights + map->shape[0]};
        map->widths = (struct int_vector){widths, widths + map->shape[0], widths + map->shape[0]};
    }
    int steps = map->shape[0] * map->shape[1] * map->shape[2];
    struct convolve layer;
    memset(&layer, 0, sizeof layer);
    layer.ni = 1 + (int)(shelfscan_probe_random(seed) % 3);
    layer.half_x = (int)(shelfscan_probe_random(seed) % 3);
    layer.half_y = (int)(shelfscan_probe_random(seed) % 3);
    layer.no = layer.ni * (2 * layer.half_x + 1) * (2 * layer.half_y + 1);
    int8_t ints[2 * 8 * 12 * 3];
    float floats[2 * 8 * 12 * 3];
    for (int k = 0; k < steps * layer.ni; k++) {
        ints[k] = (int8_t)(shelfscan_probe_random(seed) % 255 - 127);
        floats[k] = (float)(shelfscan_probe_random(seed) % 2001) / 1000 - 1;
    }
    input.i_vtable = int_vtable;
    input.f_vtable = float_vtable;
    input.i = ints;
    input.f = floats;
    input.i_dim1 = input.f_dim1 = steps;
    input.i_dim2 = input.f_dim2 = layer.ni;
    input.int_mode = shelfscan_probe_random(seed) % 4 != 0;
    // Two randomizers from the same bytes (whatever Tesseract's TRand holds fits in 64).
    uint64_t randomizers[2][8];
    for (int w = 0; w < 2; w++) {
        output[w].i_vtable = int_vtable;
        output[w].f_vtable = float_vtable;
        for (int k = 0; k < 8; k++) randomizers[w][k] = 12345 + (uint64_t)k;
    }
    layer.randomizer = randomizers[0];
    convolve_forward(&layer, &input, &output[0]);
    layer.randomizer = randomizers[1];
    real_convolve(&layer, false, &input, NULL, NULL, &output[1]);
    long differ = memcmp(randomizers[0], randomizers[1], sizeof randomizers[0]) != 0;
    if (output[0].int_mode != output[1].int_mode || output[0].i_dim1 != output[1].i_dim1 || output[0].i_dim2 != output[1].i_dim2
        || output[0].f_dim1 != output[1].f_dim1 || output[0].f_dim2 != output[1].f_dim2) differ++;
    else if (output[0].int_mode) differ += memcmp(output[0].i, output[1].i, (size_t)output[0].i_dim1 * (size_t)output[0].i_dim2) != 0;
    else differ += memcmp(output[0].f, output[1].f, sizeof(float) * (size_t)output[0].f_dim1 * (size_t)output[0].f_dim2) != 0;
    for (int w = 0; w < 2; w++) {
        if (output[w].i) delete_array(output[w].i);
        if (output[w].f) delete_array(output[w].f);
        if (output[w].stride_map.heights.begin) delete_one(output[w].stride_map.heights.begin);
        if (output[w].stride_map.widths.begin) delete_one(output[w].stride_map.widths.begin);
    }
    return differ;
}

// One random line picture copied both ways (Copy2DImage): up to 40 x 12 grays into an input of
// 1-2 batches, its height and width under or over the picture's, black and contrast as
// Tesseract's PreparePixInput makes them (contrast over 0) and tiny; the arrays and the
// randomizers after compared whole.
static long compare_copy_2d(unsigned *seed) {
    if (!real_copy_2d) return 1;
    int w = 1 + (int)(shelfscan_probe_random(seed) % 40), h = 1 + (int)(shelfscan_probe_random(seed) % 12);
    struct Pix *pix = pixCreate(w, h, 8);
    if (!pix) return 1;
    uint32_t *data = pixGetData(pix);
    for (int k = 0; k < pixGetWpl(pix) * h; k++) data[k] = (uint32_t)shelfscan_probe_random(seed) ^ ((uint32_t)shelfscan_probe_random(seed) << 16);
    struct net_io io[2];
    memset(io, 0, sizeof io);
    char *int_vtable = int_array_vtable + 2 * sizeof(void *), *float_vtable = float_array_vtable + 2 * sizeof(void *);
    struct stride_map map;
    memset(&map, 0, sizeof map);
    map.shape[0] = 1 + (int)(shelfscan_probe_random(seed) % 2);
    map.shape[1] = h + (int)(shelfscan_probe_random(seed) % 5) - 2;
    map.shape[2] = w + (int)(shelfscan_probe_random(seed) % 7) - 3;
    if (map.shape[1] < 1) map.shape[1] = 1;
    if (map.shape[2] < 1) map.shape[2] = 1;
    map.t_increments[2] = 1;
    map.t_increments[1] = map.shape[2];
    map.t_increments[0] = map.shape[1] * map.shape[2];
    const int steps = map.shape[0] * map.shape[1] * map.shape[2];
    static int8_t ints[2][2 * 14 * 43];
    memset(ints, 0x55, sizeof ints);
    uint64_t randomizers[2][8];
    for (int v = 0; v < 2; v++) {
        io[v].i_vtable = int_vtable;
        io[v].f_vtable = float_vtable;
        io[v].i = ints[v];
        io[v].i_dim1 = steps;
        io[v].i_dim2 = 1;
        io[v].int_mode = true;
        io[v].stride_map = map;
        for (int k = 0; k < 8; k++) randomizers[v][k] = 12345 + (uint64_t)k * 7;
    }
    int batch = (int)(shelfscan_probe_random(seed) % (unsigned)map.shape[0]);
    float black = (float)(shelfscan_probe_random(seed) % 25600) / 100.0f;
    float contrast = shelfscan_probe_random(seed) % 8 == 0 ? 1e-3f : 1.0f + (float)(shelfscan_probe_random(seed) % 12700) / 100.0f;
    copy_2d_here(&io[0], batch, pix, black, contrast, randomizers[0]);
    real_copy_2d(&io[1], batch, pix, black, contrast, randomizers[1]);
    pixDestroy(&pix);
    return (memcmp(ints[0], ints[1], sizeof ints[0]) != 0) + (memcmp(randomizers[0], randomizers[1], sizeof randomizers[0]) != 0);
}

// One random maxpool both ways: a picture of 1-2 batches, up to 9 x 13 positions (each batch
// its own height and width or not, never under the pooling's size), 1-20 features each (16 in
// half of them), x and y
// sizes 1-3, int or float mode (NaN among the floats), layers whose `maxes_` and kept map already
// hold something or not; the outputs, both layers' `maxes_` and kept maps compared whole.
static long compare_maxpool_forward(unsigned *seed) {
    if (!maxpool_forward_found) return 0;
    struct net_io input, output[2];
    memset(&input, 0, sizeof input);
    memset(output, 0, sizeof output);
    char *int_vtable = int_array_vtable + 2 * sizeof(void *), *float_vtable = float_array_vtable + 2 * sizeof(void *);
    struct maxpool layer[2];
    memset(layer, 0, sizeof layer);
    const int x_scale = 1 + (int)(shelfscan_probe_random(seed) % 3), y_scale = 1 + (int)(shelfscan_probe_random(seed) % 3);
    struct stride_map *map = &input.stride_map;
    map->shape[0] = 1 + (int)(shelfscan_probe_random(seed) % 2);
    map->shape[1] = y_scale + (int)(shelfscan_probe_random(seed) % (unsigned)(10 - y_scale));
    map->shape[2] = x_scale + (int)(shelfscan_probe_random(seed) % (unsigned)(14 - x_scale));
    map->t_increments[2] = 1;
    map->t_increments[1] = map->shape[2];
    map->t_increments[0] = map->shape[1] * map->shape[2];
    int heights[2], widths[2];
    for (int b = 0; b < map->shape[0]; b++) {
        heights[b] = y_scale + (int)(shelfscan_probe_random(seed) % (unsigned)(map->shape[1] - y_scale + 1));
        widths[b] = x_scale + (int)(shelfscan_probe_random(seed) % (unsigned)(map->shape[2] - x_scale + 1));
    }
    if (shelfscan_probe_random(seed) % 2) {
        map->heights = (struct int_vector){heights, heights + map->shape[0], heights + map->shape[0]};
        map->widths = (struct int_vector){widths, widths + map->shape[0], widths + map->shape[0]};
    }
    // Half of them the fast model's 16 features (`pool16`).
    const int steps = map->shape[0] * map->shape[1] * map->shape[2], ni = shelfscan_probe_random(seed) % 2 ? 16 : 1 + (int)(shelfscan_probe_random(seed) % 20);
    int8_t ints[2 * 9 * 13 * 20];
    float floats[2 * 9 * 13 * 20];
    for (int k = 0; k < steps * ni; k++) {
        ints[k] = (int8_t)(shelfscan_probe_random(seed) % 255 - 127);
        floats[k] = shelfscan_probe_random(seed) % 9 == 0 ? __builtin_nanf("") : (float)(shelfscan_probe_random(seed) % 201) / 100 - 1;
    }
    input.i_vtable = int_vtable;
    input.f_vtable = float_vtable;
    input.i = ints;
    input.f = floats;
    input.i_dim1 = input.f_dim1 = steps;
    input.i_dim2 = input.f_dim2 = ni;
    input.int_mode = shelfscan_probe_random(seed) % 4 != 0;
    // What an earlier line left in the layers: kept maps and `maxes_` of some size, or none.
    const int earlier = (int)(shelfscan_probe_random(seed) % 3), earlier_size = (int)(shelfscan_probe_random(seed) % 200);
    for (int w = 0; w < 2; w++) {
        output[w].i_vtable = int_vtable;
        output[w].f_vtable = float_vtable;
        layer[w].ni = layer[w].no = ni;
        layer[w].x_scale = x_scale;
        layer[w].y_scale = y_scale;
        if (earlier) {
            layer[w].maxes = new_array((size_t)earlier_size * sizeof(int) + sizeof(int));
            layer[w].maxes_allocated = earlier_size;
            int *h = new_one(sizeof(int) * (size_t)earlier), *v = new_one(sizeof(int) * (size_t)earlier);
            layer[w].back_map.heights = (struct int_vector){h, h, h + earlier};
            layer[w].back_map.widths = (struct int_vector){v, v + 1, v + earlier};
        }
    }
    maxpool_forward(&layer[0], &input, &output[0]);
    real_maxpool_forward(&layer[1], false, &input, NULL, NULL, &output[1]);
    long differ = 0;
    if (output[0].int_mode != output[1].int_mode || output[0].i_dim1 != output[1].i_dim1 || output[0].i_dim2 != output[1].i_dim2
        || output[0].f_dim1 != output[1].f_dim1 || output[0].f_dim2 != output[1].f_dim2) differ++;
    else if (output[0].int_mode) differ += memcmp(output[0].i, output[1].i, (size_t)output[0].i_dim1 * (size_t)output[0].i_dim2) != 0;
    else differ += memcmp(output[0].f, output[1].f, sizeof(float) * (size_t)output[0].f_dim1 * (size_t)output[0].f_dim2) != 0;
    if (layer[0].maxes_dim1 != layer[1].maxes_dim1 || layer[0].maxes_dim2 != layer[1].maxes_dim2
        || layer[0].maxes_allocated != layer[1].maxes_allocated) differ++;
    else if (differ == 0) {
        // The rows of the positions the map holds (the others' are new[]'s, never written).
        struct stride_index at = {&output[0].stride_map, 0, {0, 0, 0}};
        do {
            differ += memcmp(layer[0].maxes + (long)at.t * layer[0].maxes_dim2, layer[1].maxes + (long)at.t * layer[1].maxes_dim2,
                             sizeof(int) * (size_t)layer[0].maxes_dim2) != 0;
        } while (increment(&at));
    }
    const struct stride_map *kept[2] = {&layer[0].back_map, &layer[1].back_map};
    differ += memcmp(kept[0]->shape, kept[1]->shape, sizeof kept[0]->shape) != 0;
    differ += memcmp(kept[0]->t_increments, kept[1]->t_increments, sizeof kept[0]->t_increments) != 0;
    const struct int_vector *lists[2][2] = {{&kept[0]->heights, &kept[0]->widths}, {&kept[1]->heights, &kept[1]->widths}};
    for (int k = 0; k < 2; k++) {
        const long n0 = lists[0][k]->end - lists[0][k]->begin, n1 = lists[1][k]->end - lists[1][k]->begin;
        differ += n0 != n1 || (lists[0][k]->capacity - lists[0][k]->begin) != (lists[1][k]->capacity - lists[1][k]->begin)
            || (n0 == n1 && n0 > 0 && memcmp(lists[0][k]->begin, lists[1][k]->begin, sizeof(int) * (size_t)n0) != 0);
    }
    for (int w = 0; w < 2; w++) {
        if (output[w].i) delete_array(output[w].i);
        if (output[w].f) delete_array(output[w].f);
        if (output[w].stride_map.heights.begin) delete_one(output[w].stride_map.heights.begin);
        if (output[w].stride_map.widths.begin) delete_one(output[w].stride_map.widths.begin);
        if (layer[w].maxes) delete_array(layer[w].maxes);
        if (layer[w].back_map.heights.begin) delete_one(layer[w].back_map.heights.begin);
        if (layer[w].back_map.widths.begin) delete_one(layer[w].back_map.widths.begin);
    }
    return differ;
}

// The probe: random maps (1-3 batches, some with their own heights and widths, some without)
// and positions in and around them, every method run both ways on copies of the same index.
static long compare(int trials, unsigned seed) {
    if (!(real_max_index && real_is_valid && real_is_last && real_increment && real_set_t && real_add_offset && real_write_part
          && real_maxpool && int_array_vtable && float_array_vtable && real_convolve && real_resize_to_map && real_randomize
          && real_copy_2d && delete_one && delete_array))
        return -1;
    // The library's methods call one another through the executable's: those must hand on.
    int before = __atomic_exchange_n(&state, 2, __ATOMIC_ACQ_REL);
    long differ = 0;
    for (int trial = 0; trial < trials; trial++) {
        struct stride_map map;
        memset(&map, 0, sizeof map);
        int heights[3], widths[3];
        map.shape[0] = 1 + shelfscan_probe_random(&seed) % 3;
        map.shape[1] = 1 + shelfscan_probe_random(&seed) % 40;
        map.shape[2] = 1 + shelfscan_probe_random(&seed) % 200;
        map.t_increments[2] = 1;
        map.t_increments[1] = map.shape[2];
        map.t_increments[0] = map.shape[1] * map.shape[2];
        for (int b = 0; b < map.shape[0]; b++) {
            heights[b] = 1 + shelfscan_probe_random(&seed) % (map.shape[1] + 2);
            widths[b] = 1 + shelfscan_probe_random(&seed) % (map.shape[2] + 2);
        }
        if (shelfscan_probe_random(&seed) % 4) map.heights = (struct int_vector){heights, heights + map.shape[0], heights + 3};
        if (shelfscan_probe_random(&seed) % 4) map.widths = (struct int_vector){widths, widths + map.shape[0], widths + 3};
        struct stride_index a = {&map, 0, {0, 0, 0}};
        for (int d = 0; d < dims; d++) a.indices[d] = (int)(shelfscan_probe_random(&seed) % (unsigned)(map.shape[d] + 4)) - 2;
        // Increment walks from valid positions only.
        if (shelfscan_probe_random(&seed) % 2)
            for (int d = 0; d < dims; d++) a.indices[d] = a.indices[d] < 0 ? 0 : a.indices[d] > max_index(&a, d) ? max_index(&a, d) : a.indices[d];
        set_t(&a);
        for (int d = 0; d < dims; d++) {
            differ += max_index(&a, d) != real_max_index(&a, d);
            differ += (max_index(&a, d) == a.indices[d]) != real_is_last(&a, d);
        }
        differ += is_valid(&a) != real_is_valid(&a);
        struct stride_index b = a, c = a;
        b.t = c.t = -7;
        set_t(&b);
        real_set_t(&c);
        differ += memcmp(&b, &c, sizeof b) != 0;
        int offset = (int)(shelfscan_probe_random(&seed) % 7) - 3, dim = (int)(shelfscan_probe_random(&seed) % dims);
        b = a;
        c = a;
        differ += add_offset(&b, offset, dim) != real_add_offset(&c, offset, dim);
        differ += memcmp(&b, &c, sizeof b) != 0;
        if (is_valid(&a)) {
            b = a;
            c = a;
            for (int step = 0; step < 50; step++) {
                bool more = increment(&b);
                differ += more != real_increment(&c);
                differ += memcmp(&b, &c, sizeof b) != 0;
                if (!more) break;
            }
        }
        differ += compare_write_part(&seed);
        differ += compare_maxpool(&seed);
        if (trial % 10 == 0) differ += compare_convolve(&seed);
        if (trial % 10 == 5) differ += compare_maxpool_forward(&seed);
        if (trial % 5 == 2) differ += compare_copy_2d(&seed);
    }
    __atomic_store_n(&state, before, __ATOMIC_RELEASE);
    return differ;
}

long shelfscan_lstm_steps_compare(int trials, unsigned seed) {
    pthread_once(&decided, decide);
    return compare(trials, seed);
}
