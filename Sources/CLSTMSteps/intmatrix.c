// See include/intmatrix.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include "intmatrix.h"
#include "selfcheck.h"

extern const char *TessVersion(void);

typedef void (*dot_fn)(int dim1, int dim2, const int8_t *shaped, const float *scales, const int8_t *u, float *v);

// tesseract::IntSimdMatrix as libtesseract 5.3.0 lays it out (intsimdmatrix.h there: the kernel,
// then outputs per register, registers at most, inputs per register and inputs per group; its
// AVX2 instance read as {kernel, 8, 8, 32, 4} before this one is used).
struct int_simd_matrix {
    dot_fn kernel;
    int outputs_per_register, max_output_registers, inputs_per_register, inputs_per_group;
};

// GENERIC_2D_ARRAY<int8_t> (a vtable, the elements, the unused cell, the two dimensions, the
// allocated size) and std::vector<int8_t> (begin, end, end of storage), for the probe's calls
// of the library's `Init`.
struct int_array {
    const void *vtable;
    int8_t *array;
    int8_t empty;
    int dim1, dim2, allocated;
};
struct byte_vector { int8_t *begin, *end, *capacity; };
typedef void (*init_fn)(const struct int_simd_matrix *self, const struct int_array *w, struct byte_vector *shaped, int *rounded_out);
typedef void (*delete_fn)(void *);

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static int state;

#if defined(__x86_64__)
#define WIDE __attribute__((target("avx512f,avx512bw,avx512vnni")))

// One group of 4 inputs, broadcast to the 16 lanes and offset by 128 (unsigned bytes 1...255,
// as `vpdpbusd` takes them), times `regs` registers' 16 x 4 weights.
static WIDE inline __attribute__((always_inline)) void dot_group(const int regs, const int8_t *w, const int8_t *u, __m512i *sums) {
    int32_t four;
    memcpy(&four, u, sizeof four);
    const __m512i inputs = _mm512_xor_si512(_mm512_set1_epi32(four), _mm512_set1_epi32((int)0x80808080u));
    for (int r = 0; r < regs; r++)
        sums[r] = _mm512_dpbusd_epi32(sums[r], inputs, _mm512_loadu_si512((const void *)(w + 64 * r)));
}

// One set of `regs` registers of 16 outputs: every group of 4 inputs, each broadcast to the 16
// lanes, times each register's 16 x 4 weights. `vpdpbusd` takes unsigned bytes times signed
// ones: each input plus 128 times its weight, so 128 times the output's weight sum (`row_sums`,
// kept after the weights by `Init` below) comes off. Then the bias (its weight times 127) added
// and the sum scaled, as the library's kernel does: int to float, times the scale. Exact in 32
// bits: the same sums as the library's.
static WIDE inline __attribute__((always_inline)) void dot_set(const int regs, int groups, const int8_t **shaped,
                                                                const float **scales, const int32_t **row_sums,
                                                                const int8_t *u, float **v) {
    // With fewer than 4 registers, 2 sums per register (even and odd groups, added at the end:
    // exact in 32 bits), so that more than 2 products are under way (`vpdpbusd` takes 5 cycles).
    enum { most = 8 };
    const int chains = regs >= 4 ? 1 : 2;
    __m512i sums[2][most];
    for (int c = 0; c < chains; c++)
        for (int r = 0; r < regs; r++) sums[c][r] = _mm512_setzero_si512();
    const int8_t *w = *shaped;
    int g = 0;
    for (; g + chains <= groups; g += chains)
        for (int c = 0; c < chains; c++, w += 64 * regs) dot_group(regs, w, u + 4 * (g + c), sums[c]);
    for (; g < groups; g++, w += 64 * regs) dot_group(regs, w, u + 4 * g, sums[0]);
    if (chains == 2)
        for (int r = 0; r < regs; r++) sums[0][r] = _mm512_add_epi32(sums[0][r], sums[1][r]);
    const float *s = *scales;
    const int32_t *rows = *row_sums;
    float *out = *v;
    for (int r = 0; r < regs; r++) {
        const __m512i bias = _mm512_mullo_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(w + 16 * r))),
                                                _mm512_set1_epi32(127));
        const __m512i offset = _mm512_slli_epi32(_mm512_loadu_si512((const void *)(rows + 16 * r)), 7);
        const __m512 total = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_sub_epi32(sums[0][r], offset), bias));
        _mm512_storeu_ps(out + 16 * r, _mm512_mul_ps(total, _mm512_loadu_ps(s + 16 * r)));
    }
    *shaped = w + 16 * regs;
    *scales = s + 16 * regs;
    *row_sums = rows + 16 * regs;
    *v = out + 16 * regs;
}

// The product over the layout `Init` makes for {16, 8, 32, 4}: sets of 8 registers while they
// fit in the outputs (rounded up to 16), then 4, 2 and 1, each its inputs' groups then its biases.
static WIDE void dot_wide(int dim1, int dim2, const int8_t *shaped, const float *scales, const int8_t *u, float *v) {
    const int groups = (dim2 - 1 + 3) / 4;
    const int rounded_out = (dim1 + 15) / 16 * 16;
    // The weight sums follow the weights and biases: (4 groups + 1) bytes per rounded output.
    const int32_t *rows = (const int32_t *)(const void *)(shaped + (size_t)rounded_out * (size_t)(4 * groups + 1));
    int output = 0;
    for (; output + 128 <= rounded_out; output += 128) dot_set(8, groups, &shaped, &scales, &rows, u, &v);
    for (; output + 64 <= rounded_out; output += 64) dot_set(4, groups, &shaped, &scales, &rows, u, &v);
    for (; output + 32 <= rounded_out; output += 32) dot_set(2, groups, &shaped, &scales, &rows, u, &v);
    for (; output + 16 <= rounded_out; output += 16) dot_set(1, groups, &shaped, &scales, &rows, u, &v);
}

static const struct int_simd_matrix wide = {dot_wide, 16, 8, 32, 4};

// An LSTM's four gate products at once (the same u into four matrices of `regs` x 16 outputs):
// every output's sum in its own register through one walk of the input groups, so that 4 x
// `regs` independent products are under way instead of one matrix's 1-3 registers after
// another's (the small LSTMs' matrices, 48 or 64 outputs, leave `vpdpbusd` waiting on its own
// latency). Each matrix laid out by `Init` for this kernel: its sets of 4, 2 and 1 registers,
// each its groups then its biases, then the weight sums. The same sums, in another order
// (exact in 32 bits), the same arithmetic after: what `dot_wide` writes, output for output.
static WIDE inline __attribute__((always_inline)) void dot4_fixed(const int s0, const int s1, int groups, const int8_t *const shaped[4],
                                                                  const float *const scales[4], const int8_t *u, float *const v[4]) {
    // Sets of s0 and s1 registers (s1 may be 0), as `dot_wide` walks them: 3 = 2 + 1,
    // 4 = 4, 6 = 4 + 2. Every count here is a constant once inlined, so that the 4 x (s0 + s1)
    // sums stay in registers.
    const int regs = s0 + s1;
    const size_t second = (size_t)groups * 64 * (size_t)s0 + 16 * (size_t)s0;
    __m512i sums[4 * 6];
    _Pragma("clang loop unroll(full)") for (int k = 0; k < 4 * regs; k++) sums[k] = _mm512_setzero_si512();
    const int8_t *w[4];
    _Pragma("clang loop unroll(full)") for (int g = 0; g < 4; g++) w[g] = shaped[g];
    for (int grp = 0; grp < groups; grp++) {
        int32_t four;
        memcpy(&four, u + 4 * grp, sizeof four);
        const __m512i inputs = _mm512_xor_si512(_mm512_set1_epi32(four), _mm512_set1_epi32((int)0x80808080u));
        _Pragma("clang loop unroll(full)") for (int g = 0; g < 4; g++) {
            _Pragma("clang loop unroll(full)") for (int r = 0; r < s0; r++)
                sums[g * regs + r] = _mm512_dpbusd_epi32(sums[g * regs + r], inputs,
                                                         _mm512_loadu_si512((const void *)(w[g] + (size_t)grp * 64 * s0 + 64 * r)));
            _Pragma("clang loop unroll(full)") for (int r = 0; r < s1; r++)
                sums[g * regs + s0 + r] = _mm512_dpbusd_epi32(
                    sums[g * regs + s0 + r], inputs, _mm512_loadu_si512((const void *)(w[g] + second + (size_t)grp * 64 * s1 + 64 * r)));
        }
    }
    _Pragma("clang loop unroll(full)") for (int g = 0; g < 4; g++) {
        const int32_t *rows = (const int32_t *)(const void *)(shaped[g] + (size_t)(16 * regs) * (size_t)(4 * groups + 1));
        _Pragma("clang loop unroll(full)") for (int r = 0; r < regs; r++) {
            const int8_t *b = r < s0 ? shaped[g] + (size_t)groups * 64 * s0 + 16 * r
                                     : shaped[g] + second + (size_t)groups * 64 * s1 + 16 * (r - s0);
            const __m512i bias = _mm512_mullo_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)b)), _mm512_set1_epi32(127));
            const __m512i offset = _mm512_slli_epi32(_mm512_loadu_si512((const void *)(rows + 16 * r)), 7);
            const __m512 total = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_sub_epi32(sums[g * regs + r], offset), bias));
            _mm512_storeu_ps(v[g] + 16 * r, _mm512_mul_ps(total, _mm512_loadu_ps(scales[g] + 16 * r)));
        }
    }
}

static WIDE void dot4_3(int groups, const int8_t *const shaped[4], const float *const scales[4], const int8_t *u, float *const v[4]) {
    dot4_fixed(2, 1, groups, shaped, scales, u, v);
}
static WIDE void dot4_4(int groups, const int8_t *const shaped[4], const float *const scales[4], const int8_t *u, float *const v[4]) {
    dot4_fixed(4, 0, groups, shaped, scales, u, v);
}
static WIDE void dot4_6(int groups, const int8_t *const shaped[4], const float *const scales[4], const int8_t *u, float *const v[4]) {
    dot4_fixed(4, 2, groups, shaped, scales, u, v);
}

// One matrix of up to 16 outputs (one register) times the inputs of `steps` time steps, rows
// `stride` bytes apart, into `v` (16 floats per step): a fully connected layer's products over a
// whole line at once (the convolution's 16 tanh outputs of 9 inputs, at every pixel), eight
// steps' sums under way at a time. Per step the same sums and scaling as `dot_set(1, ...)`.
static WIDE void dot_steps_one(int groups, const int8_t *shaped, const float *scales, const int8_t *u, long stride, int steps,
                               float *v) {
    const int32_t *rows = (const int32_t *)(const void *)(shaped + (size_t)16 * (size_t)(4 * groups + 1));
    const __m512i bias = _mm512_mullo_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(shaped + (size_t)groups * 64))),
                                            _mm512_set1_epi32(127));
    const __m512i offset = _mm512_slli_epi32(_mm512_loadu_si512((const void *)rows), 7);
    const __m512 scale = _mm512_loadu_ps(scales);
    const __m512i flip = _mm512_set1_epi32((int)0x80808080u);
    enum { lanes = 8 };
    int s = 0;
    for (; s + lanes <= steps; s += lanes) {
        __m512i sums[lanes];
        _Pragma("clang loop unroll(full)") for (int k = 0; k < lanes; k++) sums[k] = _mm512_setzero_si512();
        for (int g = 0; g < groups; g++) {
            const __m512i w = _mm512_loadu_si512((const void *)(shaped + (size_t)g * 64));
            _Pragma("clang loop unroll(full)") for (int k = 0; k < lanes; k++) {
                int32_t four;
                memcpy(&four, u + (s + k) * stride + 4 * g, sizeof four);
                sums[k] = _mm512_dpbusd_epi32(sums[k], _mm512_xor_si512(_mm512_set1_epi32(four), flip), w);
            }
        }
        _Pragma("clang loop unroll(full)") for (int k = 0; k < lanes; k++) {
            const __m512 total = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_sub_epi32(sums[k], offset), bias));
            _mm512_storeu_ps(v + 16 * (s + k), _mm512_mul_ps(total, scale));
        }
    }
    for (; s < steps; s++) {
        __m512i sum = _mm512_setzero_si512();
        for (int g = 0; g < groups; g++) {
            int32_t four;
            memcpy(&four, u + s * stride + 4 * g, sizeof four);
            sum = _mm512_dpbusd_epi32(sum, _mm512_xor_si512(_mm512_set1_epi32(four), flip),
                                      _mm512_loadu_si512((const void *)(shaped + (size_t)g * 64)));
        }
        const __m512 total = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_sub_epi32(sum, offset), bias));
        _mm512_storeu_ps(v + 16 * s, _mm512_mul_ps(total, scale));
    }
}

// The four products through `dot4_*` where they share one shape of 33-96 outputs (3, 4 or 6
// registers); false otherwise (each product then goes alone through `dot_wide`).
static bool dot4_shapes(int dim1, int dim2, const int8_t *const shaped[4], const float *const scales[4], const int8_t *u,
                        float *const v[4]) {
    const int regs = (dim1 + 15) / 16, groups = (dim2 - 1 + 3) / 4;
    switch (regs) {
    case 3: dot4_3(groups, shaped, scales, u, v); return true;
    case 4: dot4_4(groups, shaped, scales, u, v); return true;
    case 6: dot4_6(groups, shaped, scales, u, v); return true;
    default: return false;
    }
}

static bool processor_has_vnni(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
}

// The same products where the processor has AVX2 but not AVX-512 VNNI, on the library's own AVX2
// layout (`Init` with {8, 8, 32, 4}: sets of 8 registers of 8 outputs while they fit in the
// outputs rounded up to 8, then one set of 4, 2 and 1 registers each where they fit; each set
// its groups of 4 inputs, 32 bytes per register per group, then its 8 bias bytes per register)
// and the library's arithmetic: per register and group, the inputs' signs set to the weights'
// (`vpsignb`), times the weights' magnitudes (`vpmaddubsw`, pairs added in 16 bits: at most 2 x
// 127 x 127, never saturated), pairs added into 32 bits (`vpmaddwd` by ones), summed; then the
// bias times 127 added, to float, times the scale. Exact in 32 bits: the same sums in another
// order, the same floats. What differs from the library's kernel: each group's 4 inputs
// broadcast from memory (not rotated through a register), and a set of 4 or 2 registers walked
// together with the set before it (48 outputs: 4 + 2 registers in one walk of the inputs, not
// two), fewer calls' set-up: about a fifth less time on the models' shapes; and a small matrix's
// products over a whole line at once (`dot_steps_narrow`: the convolution's 16 outputs of 9
// inputs at every pixel, the weights kept in registers: 3.4 against 14-25 ns a pixel).
#define NARROW __attribute__((target("avx2")))

// `regs` registers' products of one group (`rep`: its 4 inputs in every lane) added to `sums`.
static NARROW inline __attribute__((always_inline)) void narrow_group(const int regs, const int8_t *w, __m256i rep, __m256i *sums) {
    const __m256i ones = _mm256_set1_epi16(1);
    for (int r = 0; r < regs; r++) {
        const __m256i weights = _mm256_loadu_si256((const __m256i *)(const void *)(w + 32 * r));
        const __m256i signed_inputs = _mm256_sign_epi8(rep, weights);
        const __m256i pairs = _mm256_maddubs_epi16(_mm256_sign_epi8(weights, weights), signed_inputs);
        sums[r] = _mm256_add_epi32(sums[r], _mm256_madd_epi16(pairs, ones));
    }
}

// The bias (8 bytes a register) times 127 added to each register's sums, to float, times the
// scale, stored: ExtractResults8 and 16's arithmetic.
static NARROW inline __attribute__((always_inline)) void narrow_store(const int regs, const int8_t *bias, const float *scales, const __m256i *sums,
                                                                    float *v) {
    for (int r = 0; r < regs; r++) {
        int64_t eight;
        memcpy(&eight, bias + 8 * r, sizeof eight);
        const __m256i b = _mm256_mullo_epi32(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(eight)), _mm256_set1_epi32(127));
        const __m256 total = _mm256_cvtepi32_ps(_mm256_add_epi32(sums[r], b));
        _mm256_storeu_ps(v + 8 * r, _mm256_mul_ps(total, _mm256_loadu_ps(scales + 8 * r)));
    }
}

// Two consecutive sets of the layout (s0 registers, then s1, which may be 0) in one walk of the
// inputs; at most 12 registers of sums.
static NARROW inline __attribute__((always_inline)) void narrow_sets(const int s0, const int s1, int groups, const int8_t *w, const float *scales,
                                                                   const int8_t *u, float *v) {
    __m256i sums[12];
    for (int k = 0; k < s0 + s1; k++) sums[k] = _mm256_setzero_si256();
    const int8_t *second = w + (size_t)groups * 32 * (size_t)s0 + 8 * (size_t)s0;
    for (int g = 0; g < groups; g++) {
        int32_t four;
        memcpy(&four, u + 4 * g, sizeof four);
        const __m256i rep = _mm256_set1_epi32(four);
        narrow_group(s0, w + (size_t)g * 32 * (size_t)s0, rep, sums);
        if (s1) narrow_group(s1, second + (size_t)g * 32 * (size_t)s1, rep, sums + s0);
    }
    narrow_store(s0, w + (size_t)groups * 32 * (size_t)s0, scales, sums, v);
    if (s1) narrow_store(s1, second + (size_t)groups * 32 * (size_t)s1, scales + 8 * s0, sums + s0, v + 8 * s0);
}

#define NARROW_SETS(a, b)                                                                                            \
    static NARROW void narrow_##a##_##b(int groups, const int8_t *w, const float *s, const int8_t *u, float *v) { \
        narrow_sets(a, b, groups, w, s, u, v);                                                                       \
    }
NARROW_SETS(8, 0)
NARROW_SETS(8, 4)
NARROW_SETS(4, 2)
NARROW_SETS(4, 1)
NARROW_SETS(4, 0)
NARROW_SETS(2, 1)
NARROW_SETS(2, 0)
NARROW_SETS(1, 0)

// The product over the library's AVX2 layout, set after set as `Init` laid them out: sets of 8
// registers, the last of them walked with a set of 4 after it where that is all that is left
// (96 outputs: 12 registers), else the rest (4, 2, 1 registers where the rounded outputs hold
// them) in one or two walks.
static NARROW void dot_narrow(int dim1, int dim2, const int8_t *w, const float *scales, const int8_t *u, float *v) {
    const int groups = (dim2 - 1 + 3) / 4;
    const int rounded = (dim1 + 7) / 8 * 8;
    const int eights = rounded / 64, rest = (rounded % 64) / 8;
    const size_t set_bytes = (size_t)(4 * groups + 1) * 8;  // per register of a set
    const bool last_with_four = eights > 0 && rest == 4;
    for (int k = 0; k < eights - last_with_four; k++, w += 8 * set_bytes, scales += 64, v += 64) narrow_8_0(groups, w, scales, u, v);
    if (last_with_four) {
        narrow_8_4(groups, w, scales, u, v);
        return;
    }
    switch (rest) {
    case 7:
        narrow_4_2(groups, w, scales, u, v);
        narrow_1_0(groups, w + 6 * set_bytes, scales + 48, u, v + 48);
        break;
    case 6: narrow_4_2(groups, w, scales, u, v); break;
    case 5: narrow_4_1(groups, w, scales, u, v); break;
    case 4: narrow_4_0(groups, w, scales, u, v); break;
    case 3: narrow_2_1(groups, w, scales, u, v); break;
    case 2: narrow_2_0(groups, w, scales, u, v); break;
    case 1: narrow_1_0(groups, w, scales, u, v); break;
    default: break;
    }
}

static const struct int_simd_matrix narrow = {dot_narrow, 8, 8, 32, 4};

// One matrix of 1 or 2 registers (up to 16 outputs) of `groups` groups times the inputs of
// `steps` time steps, rows `stride` bytes apart, into `v` (16 floats per step): per step the
// sums and scaling of `dot_narrow`. With 4 groups or fewer (the convolution's 9 inputs: 3) the
// weights, their magnitudes, the biases and the scales stay in registers.
static NARROW inline __attribute__((always_inline)) void narrow_steps_fixed(const int regs, const int groups, const int8_t *w,
                                                                          const float *scales, const int8_t *u, long stride, int steps,
                                                                          float *v) {
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i weights[4][2], magnitudes[4][2], bias[2];
    __m256 scale[2];
    for (int g = 0; g < groups; g++)
        for (int r = 0; r < regs; r++) {
            weights[g][r] = _mm256_loadu_si256((const __m256i *)(const void *)(w + (size_t)(g * regs + r) * 32));
            magnitudes[g][r] = _mm256_sign_epi8(weights[g][r], weights[g][r]);
        }
    for (int r = 0; r < regs; r++) {
        int64_t eight;
        memcpy(&eight, w + (size_t)groups * 32 * (size_t)regs + 8 * (size_t)r, sizeof eight);
        bias[r] = _mm256_mullo_epi32(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(eight)), _mm256_set1_epi32(127));
        scale[r] = _mm256_loadu_ps(scales + 8 * r);
    }
    for (int s = 0; s < steps; s++) {
        __m256i sums[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
        for (int g = 0; g < groups; g++) {
            int32_t four;
            memcpy(&four, u + s * stride + 4 * g, sizeof four);
            const __m256i rep = _mm256_set1_epi32(four);
            for (int r = 0; r < regs; r++) {
                const __m256i pairs = _mm256_maddubs_epi16(magnitudes[g][r], _mm256_sign_epi8(rep, weights[g][r]));
                sums[r] = _mm256_add_epi32(sums[r], _mm256_madd_epi16(pairs, ones));
            }
        }
        for (int r = 0; r < regs; r++)
            _mm256_storeu_ps(v + 16 * s + 8 * r, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(sums[r], bias[r])), scale[r]));
    }
}

typedef void (*narrow_steps_fn)(const int8_t *w, const float *scales, const int8_t *u, long stride, int steps, float *v);
#define NARROW_STEPS(regs, groups)                                                                                      \
    static NARROW void narrow_steps_##regs##_##groups(const int8_t *w, const float *s, const int8_t *u, long stride, int steps, \
                                                      float *v) {                                                       \
        narrow_steps_fixed(regs, groups, w, s, u, stride, steps, v);                                                    \
    }
NARROW_STEPS(1, 1)
NARROW_STEPS(1, 2)
NARROW_STEPS(1, 3)
NARROW_STEPS(1, 4)
NARROW_STEPS(2, 1)
NARROW_STEPS(2, 2)
NARROW_STEPS(2, 3)
NARROW_STEPS(2, 4)

// Any number of groups: step by step through the sets' walk (weights from memory).
static NARROW void narrow_steps_any(int regs, int groups, const int8_t *w, const float *scales, const int8_t *u, long stride, int steps,
                                    float *v) {
    for (int s = 0; s < steps; s++) {
        if (regs == 2) narrow_2_0(groups, w, scales, u + s * stride, v + 16 * s);
        else narrow_1_0(groups, w, scales, u + s * stride, v + 16 * s);
    }
}

static void dot_steps_narrow(int dim1, int dim2, const int8_t *w, const float *scales, const int8_t *u, long stride, int steps, float *v) {
    static const narrow_steps_fn fixed[2][4] = {{narrow_steps_1_1, narrow_steps_1_2, narrow_steps_1_3, narrow_steps_1_4},
                                                {narrow_steps_2_1, narrow_steps_2_2, narrow_steps_2_3, narrow_steps_2_4}};
    const int groups = (dim2 - 1 + 3) / 4, regs = (dim1 + 7) / 8;
    if (groups >= 1 && groups <= 4) fixed[regs - 1][groups - 1](w, scales, u, stride, steps, v);
    else narrow_steps_any(regs, groups, w, scales, u, stride, steps, v);
}

static bool processor_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#endif

// The library's pieces: its kernel pointer, its AVX2 instance, `Init`, the int array's vtable.
static const struct int_simd_matrix **slot, *avx2;
static init_fn library_init;
static const char *int_array_vtable;
static delete_fn delete_one;
typedef void *(*new_fn)(size_t);
static new_fn new_bytes;

#define INIT "_ZNK9tesseract13IntSimdMatrix4InitERKNS_16GENERIC_2D_ARRAYIaEERSt6vectorIaSaIaEERi"

// IntSimdMatrix::Init, which libtesseract calls (through its procedure linkage table) for every
// weight matrix of a model as it loads, with the kernel it lays the weights out for: the
// library's own, then, for this kernel, each output's weight sum (its inputs', not the bias)
// appended as 32-bit ints after the laid-out weights (the kernel's offset inputs need them; the
// library only ever hands the kernel the vector's start).
void shelfscan_int_matrix_init(const struct int_simd_matrix *self, const struct int_array *w, struct byte_vector *shaped,
                               int *rounded_out) __asm__(INIT);
void shelfscan_int_matrix_init(const struct int_simd_matrix *self, const struct int_array *w, struct byte_vector *shaped,
                               int *rounded_out) {
    if (!library_init) library_init = (init_fn)dlsym(RTLD_NEXT, INIT);
    library_init(self, w, shaped, rounded_out);
#if defined(__x86_64__)
    if (self != &wide) return;
    size_t size = (size_t)(shaped->end - shaped->begin), extra = sizeof(int32_t) * (size_t)*rounded_out;
    int8_t *grown = new_bytes(size + extra);
    memcpy(grown, shaped->begin, size);
    for (int o = 0; o < *rounded_out; o++) {
        int32_t sum = 0;
        if (o < w->dim1)
            for (int j = 0; j < w->dim2 - 1; j++) sum += w->array[(size_t)o * (size_t)w->dim2 + (size_t)j];
        memcpy(grown + size + sizeof(int32_t) * (size_t)o, &sum, sizeof sum);
    }
    if (shaped->begin) delete_one(shaped->begin);
    shaped->begin = grown;
    shaped->end = grown + size + extra;
    shaped->capacity = grown + size + extra;
#endif
}

static bool library_found(void) {
    const char *version = TessVersion();
    if (!version || strcmp(version, "5.3.0") != 0) return false;
    slot = (const struct int_simd_matrix **)dlsym(RTLD_DEFAULT, "_ZN9tesseract13IntSimdMatrix13intSimdMatrixE");
    avx2 = (const struct int_simd_matrix *)dlsym(RTLD_DEFAULT, "_ZN9tesseract13IntSimdMatrix17intSimdMatrixAVX2E");
    if (!library_init) library_init = (init_fn)dlsym(RTLD_NEXT, INIT);
    new_bytes = (new_fn)dlsym(RTLD_DEFAULT, "_Znwm");
    int_array_vtable = (const char *)dlsym(RTLD_DEFAULT, "_ZTVN9tesseract16GENERIC_2D_ARRAYIaEE");
    delete_one = (delete_fn)dlsym(RTLD_DEFAULT, "_ZdlPv");
    return slot && avx2 && library_init && int_array_vtable && delete_one && new_bytes && avx2->kernel
        && avx2->outputs_per_register == 8 && avx2->max_output_registers == 8
        && avx2->inputs_per_register == 32 && avx2->inputs_per_group == 4;
}

// The executable's kernel for this processor: the VNNI one (`wide`) where it has AVX-512 VNNI
// (unless `SHELFSCAN_SIMD=avx2`, which tests use to run the AVX2 one there), else the AVX2 one
// (`narrow`) where it has AVX2, in an optimised build; NULL where neither runs or the library is
// not the one checked. Unoptimised (a debug build's -O0: the debug tests), the AVX2 kernel is
// about a hundred times slower than the library's optimised one (C harness), and every test
// reading went through it (two CI tests ran out of their 10 minutes): there the library's kernel
// reads, and `shelfscan_int_matrix_compare_avx2` still checks this one product by product; the
// release build, which the accuracy gates run, reads with it. (Optimising the C targets in
// debug builds takes `unsafeFlags`, which would bar ShelfScanKit as a versioned dependency.)
static const struct int_simd_matrix *ours_for_processor(void) {
#if defined(__x86_64__)
    if (!library_found()) return NULL;
    const char *simd = getenv("SHELFSCAN_SIMD");
    if (processor_has_vnni() && !(simd && strcmp(simd, "avx2") == 0)) return &wide;
#if defined(__OPTIMIZE__)
    if (processor_has_avx2()) return &narrow;
#endif
#endif
    return NULL;
}

#if defined(__x86_64__)
// One random product through both kernels (the library's AVX2 one and `ours`), each on the
// weights `Init` laid out for it.
static long compare_one(const struct int_simd_matrix *ours, unsigned *seed) {
    enum { most_out = 300, most_in = 600, guard = 64 };
    int outputs = 1 + (int)(shelfscan_probe_random(seed) % most_out), inputs = 1 + (int)(shelfscan_probe_random(seed) % most_in);
    int8_t *weights = malloc((size_t)outputs * (size_t)(inputs + 1));
    int8_t *u = calloc((size_t)(inputs + 32 + 32), 1);
    float *scales = malloc(sizeof(float) * (most_out + 16));
    float *v[2];
    for (int k = 0; k < 2; k++) v[k] = malloc(sizeof(float) * (most_out + 16 + guard));
    if (!weights || !u || !scales || !v[0] || !v[1]) abort();
    // Mostly small weights as trained networks have, some at the extremes.
    for (int k = 0; k < outputs * (inputs + 1); k++)
        weights[k] = (int8_t)(shelfscan_probe_random(seed) % 8 == 0 ? (shelfscan_probe_random(seed) % 2 ? 127 : -127) : (int)(shelfscan_probe_random(seed) % 255) - 127);
    for (int k = 0; k < inputs; k++)
        u[k] = (int8_t)(shelfscan_probe_random(seed) % 8 == 0 ? (shelfscan_probe_random(seed) % 2 ? 127 : -127) : (int)(shelfscan_probe_random(seed) % 255) - 127);
    for (int k = 0; k < most_out + 16; k++) scales[k] = ((float)shelfscan_probe_random(seed) / (float)RAND_MAX) * 1e-4f;
    struct int_array w = {int_array_vtable + 2 * sizeof(void *), weights, 0, outputs, inputs + 1, outputs * (inputs + 1)};
    const struct int_simd_matrix *kernels[2] = {avx2, ours};
    long differed = 0;
    for (int k = 0; k < 2; k++) {
        struct byte_vector shaped = {0, 0, 0};
        int rounded = 0;
        shelfscan_int_matrix_init(kernels[k], &w, &shaped, &rounded);
        for (int j = 0; j < most_out + 16 + guard; j++) v[k][j] = -7.0f;
        kernels[k]->kernel(outputs, inputs + 1, shaped.begin, scales, u, v[k]);
        // Nothing written past the rounded outputs.
        for (int j = rounded; j < most_out + 16 + guard; j++) differed += v[k][j] != -7.0f;
        if (shaped.begin) delete_one(shaped.begin);
    }
    differed += memcmp(v[0], v[1], sizeof(float) * (size_t)outputs) != 0;
    free(weights);
    free(u);
    free(scales);
    free(v[0]);
    free(v[1]);
    return differed != 0;
}
#endif

#if defined(__x86_64__)
// Four random products of one shape through `dot4_shapes` and each through `dot_wide`, on
// weights `Init` laid out for this kernel: 1 if any output differed or one was written past
// the rounded outputs, 0 if all agreed, 0 also where the shape is not one `dot4_shapes` takes.
static long compare_four(unsigned *seed) {
    enum { most_out = 96, most_in = 200, guard = 64 };
    static const int shapes[] = {48, 64, 96, 33, 47, 63, 80, 95};
    const int outputs = shapes[shelfscan_probe_random(seed) % (sizeof shapes / sizeof *shapes)];
    const int inputs = 1 + (int)(shelfscan_probe_random(seed) % most_in);
    int8_t *u = calloc((size_t)(inputs + 64), 1);
    float *scales = malloc(sizeof(float) * (most_out + 16));
    int8_t *weights = malloc((size_t)outputs * (size_t)(inputs + 1));
    if (!u || !scales || !weights) abort();
    for (int k = 0; k < inputs; k++)
        u[k] = (int8_t)(shelfscan_probe_random(seed) % 8 == 0 ? (shelfscan_probe_random(seed) % 2 ? 127 : -127) : (int)(shelfscan_probe_random(seed) % 255) - 127);
    for (int k = 0; k < most_out + 16; k++) scales[k] = ((float)shelfscan_probe_random(seed) / (float)RAND_MAX) * 1e-4f;
    struct byte_vector shaped[4];
    const int8_t *laid[4];
    const float *scale_of[4];
    float *ours[4], *theirs[4];
    for (int g = 0; g < 4; g++) {
        for (int k = 0; k < outputs * (inputs + 1); k++)
            weights[k] = (int8_t)(shelfscan_probe_random(seed) % 8 == 0 ? (shelfscan_probe_random(seed) % 2 ? 127 : -127) : (int)(shelfscan_probe_random(seed) % 255) - 127);
        struct int_array w = {int_array_vtable + 2 * sizeof(void *), weights, 0, outputs, inputs + 1, outputs * (inputs + 1)};
        shaped[g] = (struct byte_vector){0, 0, 0};
        int rounded = 0;
        shelfscan_int_matrix_init(&wide, &w, &shaped[g], &rounded);
        laid[g] = shaped[g].begin;
        scale_of[g] = scales;
        ours[g] = malloc(sizeof(float) * (most_out + 16 + guard));
        theirs[g] = malloc(sizeof(float) * (most_out + 16 + guard));
        if (!ours[g] || !theirs[g]) abort();
        for (int j = 0; j < most_out + 16 + guard; j++) ours[g][j] = theirs[g][j] = -7.0f;
        dot_wide(outputs, inputs + 1, laid[g], scales, u, theirs[g]);
    }
    long differed = 0;
    if (dot4_shapes(outputs, inputs + 1, laid, scale_of, u, ours))
        for (int g = 0; g < 4; g++) differed += memcmp(ours[g], theirs[g], sizeof(float) * (most_out + 16 + guard)) != 0;
    for (int g = 0; g < 4; g++) {
        if (shaped[g].begin) delete_one(shaped[g].begin);
        free(ours[g]);
        free(theirs[g]);
    }
    free(u);
    free(scales);
    free(weights);
    return differed != 0;
}
#endif

#if defined(__x86_64__)
// One random matrix of up to 16 outputs times the inputs of up to 30 steps through
// `dot_steps_one` and each step through `dot_wide` (with `narrow`: `dot_steps_narrow` and the
// library's kernel): 1 if any step's outputs differed.
static long compare_steps(const struct int_simd_matrix *ours, unsigned *seed) {
    enum { most_in = 60, most_steps = 30, pad = 64 };
    const int outputs = 1 + (int)(shelfscan_probe_random(seed) % 16), inputs = 1 + (int)(shelfscan_probe_random(seed) % most_in);
    const int steps = 1 + (int)(shelfscan_probe_random(seed) % most_steps);
    const long stride = inputs + (long)(shelfscan_probe_random(seed) % 5);
    int8_t *u = calloc((size_t)(stride * steps + pad), 1);
    int8_t *weights = malloc((size_t)outputs * (size_t)(inputs + 1));
    float scales[32], *got = malloc(sizeof(float) * 16 * most_steps), theirs[16];
    if (!u || !weights || !got) abort();
    for (long k = 0; k < stride * steps; k++)
        u[k] = (int8_t)(shelfscan_probe_random(seed) % 8 == 0 ? (shelfscan_probe_random(seed) % 2 ? 127 : -127) : (int)(shelfscan_probe_random(seed) % 255) - 127);
    for (int k = 0; k < outputs * (inputs + 1); k++)
        weights[k] = (int8_t)(shelfscan_probe_random(seed) % 8 == 0 ? (shelfscan_probe_random(seed) % 2 ? 127 : -127) : (int)(shelfscan_probe_random(seed) % 255) - 127);
    for (int k = 0; k < 32; k++) scales[k] = ((float)shelfscan_probe_random(seed) / (float)RAND_MAX) * 1e-3f;
    struct int_array w = {int_array_vtable + 2 * sizeof(void *), weights, 0, outputs, inputs + 1, outputs * (inputs + 1)};
    struct byte_vector shaped = {0, 0, 0};
    int rounded = 0;
    shelfscan_int_matrix_init(ours, &w, &shaped, &rounded);
    if (ours == &wide) dot_steps_one((inputs + 3) / 4, shaped.begin, scales, u, stride, steps, got);
    else dot_steps_narrow(outputs, inputs + 1, shaped.begin, scales, u, stride, steps, got);
    long differed = 0;
    for (int t = 0; t < steps; t++) {
        (ours == &wide ? dot_wide : avx2->kernel)(outputs, inputs + 1, shaped.begin, scales, u + t * stride, theirs);
        differed += memcmp(theirs, got + 16 * t, sizeof(float) * (size_t)outputs) != 0;
    }
    if (shaped.begin) delete_one(shaped.begin);
    free(u);
    free(weights);
    free(got);
    return differed != 0;
}
#endif

#if defined(__x86_64__)
static long compare_kernel(const struct int_simd_matrix *ours, int trials, unsigned seed) {
    if (!ours) return -1;
    long differed = 0;
    for (int t = 0; t < trials; t++)
        differed += compare_one(ours, &seed) + (ours == &wide ? compare_four(&seed) : 0) + compare_steps(ours, &seed);
    return differed;
}
#endif

long shelfscan_int_matrix_compare(int trials, unsigned seed) {
#if defined(__x86_64__)
    return compare_kernel(ours_for_processor(), trials, seed);
#else
    (void)trials;
    (void)seed;
    return -1;
#endif
}

long shelfscan_int_matrix_compare_avx2(int trials, unsigned seed) {
#if defined(__x86_64__)
    return compare_kernel(library_found() && processor_has_avx2() ? &narrow : NULL, trials, seed);
#else
    (void)trials;
    (void)seed;
    return -1;
#endif
}

static void decide(void) {
    const char *setting = getenv("SHELFSCAN_INT_MATRIX");
    const struct int_simd_matrix *ours = ours_for_processor();
    bool on = !(setting && strcmp(setting, "off") == 0) && ours
        // Only in place of the library's own choice, AVX2 (before any model is laid out for it).
        && *slot == avx2
        // 16 products of up to 300 x 600: about 4 ms of a core at start-up (50 took 13 ms in
        // `perf`, where the comment said 1); the test runs 5,000.
        && shelfscan_int_matrix_compare(16, 1) == 0;
    if (on) *slot = ours;
    __atomic_store_n(&state, on ? 1 : 2, __ATOMIC_RELEASE);
}

// tesseract::WeightMatrix in libtesseract 5.3.0 (read off `MatrixDotVector(const int8_t *,
// float *)`): its int weights' dimensions at 0x34 and 0x38, its scales' and laid-out weights'
// vectors' first elements at 0x68 and 0xe0.
enum { matrix_dim1_at = 0x34, matrix_dim2_at = 0x38, matrix_scales_at = 0x68, matrix_shaped_at = 0xe0 };

bool shelfscan_int_matrix_dot4(const void *const matrices[4], const int8_t *u, float *const v[4]) {
#if defined(__x86_64__)
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 1 || *slot != &wide) return false;
    const char *m0 = matrices[0];
    const int dim1 = *(const int *)(m0 + matrix_dim1_at), dim2 = *(const int *)(m0 + matrix_dim2_at);
    const int8_t *shaped[4];
    const float *scales[4];
    for (int g = 0; g < 4; g++) {
        const char *m = matrices[g];
        if (*(const int *)(m + matrix_dim1_at) != dim1 || *(const int *)(m + matrix_dim2_at) != dim2) return false;
        shaped[g] = *(const int8_t *const *)(m + matrix_shaped_at);
        scales[g] = *(const float *const *)(m + matrix_scales_at);
    }
    return dot4_shapes(dim1, dim2, shaped, scales, u, v);
#else
    (void)matrices;
    (void)u;
    (void)v;
    return false;
#endif
}

bool shelfscan_int_matrix_dot_steps(const void *matrix, const int8_t *u, long stride, int steps, float *v) {
#if defined(__x86_64__)
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 1) return false;
    const char *m = matrix;
    const int dim1 = *(const int *)(m + matrix_dim1_at), dim2 = *(const int *)(m + matrix_dim2_at);
    if (dim1 < 1 || dim1 > 16 || dim2 < 1) return false;
    if (*slot == &narrow) {
        dot_steps_narrow(dim1, dim2, *(const int8_t *const *)(m + matrix_shaped_at), *(const float *const *)(m + matrix_scales_at), u,
                         stride, steps, v);
        return true;
    }
    if (*slot != &wide) return false;
    dot_steps_one((dim2 - 1 + 3) / 4, *(const int8_t *const *)(m + matrix_shaped_at), *(const float *const *)(m + matrix_scales_at),
                  u, stride, steps, v);
    return true;
#else
    (void)matrix;
    (void)u;
    (void)stride;
    (void)steps;
    (void)v;
    return false;
#endif
}

int shelfscan_int_matrix_install(void) {
    pthread_once(&decided, decide);
    return shelfscan_int_matrix_state();
}

int shelfscan_int_matrix_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }
