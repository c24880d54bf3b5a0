// See include/lstmgates.h.
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
#include "lstmsteps.h"
#include "lstmgates.h"
#include "selfcheck.h"
#include "openmp.h"

// Every float operation below is the library's, one by one: never fused.
#pragma clang fp contract(off)

extern const char *TessVersion(void);

// WeightMatrix::MatrixDotVector(const int8_t *, float *) const: the library's (its kernel, or
// CLSTMSteps/intmatrix.c's where installed).
void shelfscan_weights_dot(const void *weights, const int8_t *u, float *v)
    __asm__("_ZNK9tesseract12WeightMatrix15MatrixDotVectorEPKaPf");

// What libtesseract 5.3.0's `LSTM::Forward` hands its sections region (read off Debian's machine
// code, the outlined function at 0x285520 in libtesseract.so.5.3.0, 0x750 bytes): the LSTM, its
// five temporary lines (NetworkScratch::FloatVec, 24 bytes each, the floats at 8), the float
// input, the time step.
struct region_data {
    const char *lstm;
    const char *temp_lines;
    const void *curr_input;
    int t;
};
enum {
    function_offset = 0x285520, function_size = 0x750,
    // Where that code reads the LSTM's fields: ns_, is_2d_, the gate weights (WeightMatrix, 0xf8
    // bytes each, CI GI GF1 GO GFS), source_'s int array, its row length and its int mode.
    ns_at = 0x64, is_2d_at = 0x6c, gates_at = 0x70, gate_size = 0xf8,
    source_ints_at = 0x578, source_row_at = 0x588, source_int_mode_at = 0x590,
    float_vec_size = 24, float_vec_data_at = 8,
};
static const uint64_t function_hash = 0x3555120a5be0bbd1ULL;  // FNV-1a 64 of the function's bytes

// FullyConnected::ForwardTimeStep(int t, float *output) in libtesseract 5.3.0 (0x4c0 bytes of
// machine code from its entry, checked): its type_ (NetworkType: NT_LOGISTIC 16, NT_TANH 19) and
// no_ read at 8 and 0x1c, the activation applied in place to its `no_` outputs.
enum { fc_type_at = 0x8, fc_outputs_at = 0x1c, fc_logistic = 16, fc_tanh = 19, fc_size = 0x4c0 };
static const uint64_t fc_hash = 0xa41b4a8ee5fc4b78ULL;
#define FC_STEP "_ZN9tesseract14FullyConnected15ForwardTimeStepEiPf"
typedef void (*fc_step_fn)(void *fc, int t, float *output);
static fc_step_fn library_fc_step;
static bool fc_found;
static long fc_checked[2];

// FullyConnected::Forward in libtesseract 5.3.0 (0x280 bytes of machine code, checked), replaced
// for int-mode tanh and logistic layers of up to 16 outputs (the convolution's 16 tanh outputs at
// every pixel of every line; see `fc_forward_here`); its weights (a WeightMatrix) at 0x60.
#define FC_FORWARD "_ZN9tesseract14FullyConnected7ForwardEbRKNS_9NetworkIOEPKNS_15TransposedArrayEPNS_14NetworkScratchEPS1_"
enum { fc_forward_size = 0x280, fc_weights_at = 0x60, fc_training_at = 0xc, fc_forward_self_checks = 16 };
static const uint64_t fc_forward_hash = 0xc43a0627468c7933ULL;
typedef void (*fc_forward_fn)(void *fc, bool debug, const void *input, const void *transposed, void *scratch, void *output);
static fc_forward_fn library_fc_forward;
static bool fc_forward_found;
static long fc_forward_checked;
void shelfscan_fc_setup_forward(void *fc, const void *input, const void *transposed)
    __asm__("_ZN9tesseract14FullyConnected12SetupForwardERKNS_9NetworkIOEPKNS_15TransposedArrayE");
void shelfscan_zero_invalid_elements(void *io) __asm__("_ZN9tesseract9NetworkIO19ZeroInvalidElementsEv");

// LSTM::Forward in libtesseract 5.3.0 (0x1410 bytes of machine code, checked), replaced for the
// common case (see `forward_here`); the LSTM's other fields it reads: ni_ 0x18, no_ 0x1c, type_ 8
// (NT_LSTM 14, NT_LSTM_SUMMARY 15), training_ 0xc (TS_ENABLED 1), nf_ 0x68, softmax_ 0x548,
// input_width_ 0x9a8; a NetworkIO's int mode at 0x40, its stride map at 0x48, its int8 array,
// rows and row length at 0x28, 0x34, 0x38, its float array at 8, 0x14, 0x18.
#define LSTM_FORWARD "_ZN9tesseract4LSTM7ForwardEbRKNS_9NetworkIOEPKNS_15TransposedArrayEPNS_14NetworkScratchEPS1_"
enum {
    forward_size = 0x1410, lstm_ni_at = 0x18, lstm_no_at = 0x1c, lstm_type_at = 0x8, lstm_training_at = 0xc,
    lstm_nf_at = 0x68, lstm_softmax_at = 0x548, lstm_input_width_at = 0x9a8, lstm_source_at = 0x550,
    nt_lstm = 14, nt_lstm_summary = 15, ts_enabled = 1,
    io_int_mode_at = 0x40, io_map_at = 0x48, io_ints_at = 0x28, io_int_rows_at = 0x34, io_int_row_at = 0x38,
    io_floats_at = 0x8, io_float_rows_at = 0x14, io_float_row_at = 0x18,
    width_dim = 2, forward_self_checks = 16,
};
static const uint64_t forward_hash = 0x684b204f00f7a349ULL;
typedef void (*forward_fn)(void *lstm, bool debug, const void *input, const void *transposed, void *scratch, void *output);
static forward_fn library_forward;
static bool forward_found;
static long forward_checked;
void shelfscan_resize_to_map(void *io, bool int_mode, const void *map, int features)
    __asm__("_ZN9tesseract9NetworkIO11ResizeToMapEbRKNS_9StrideMapEi");
void shelfscan_resize_x_to_1(void *io, const void *src, int features) __asm__("_ZN9tesseract9NetworkIO10ResizeXTo1ERKS0_i");
void shelfscan_resize_forward(void *lstm, const void *input) __asm__("_ZN9tesseract4LSTM13ResizeForwardERKNS_9NetworkIOE");
void shelfscan_copy_time_step(void *io, int dest_t, int dest_offset, int features, const void *src, int src_t, int src_offset)
    __asm__("_ZN9tesseract9NetworkIO19CopyTimeStepGeneralEiiiRKS0_ii");
void shelfscan_write_time_step(void *io, int t, const float *values) __asm__("_ZN9tesseract9NetworkIO13WriteTimeStepEiPKf");
// These three are the executable's own (lstmsteps.c), reached under the library's names.
void shelfscan_write_step_part(void *io, int t, int offset, int n, const float *values) __asm__("_ZN9tesseract9NetworkIO17WriteTimeStepPartEiiiPKf");
struct step_index { const void *map; int t; int indices[3]; };
bool shelfscan_index_increment(struct step_index *ix) __asm__("_ZN9tesseract9StrideMap5Index9IncrementEv");
bool shelfscan_index_is_last(const struct step_index *ix, int dim) __asm__("_ZNK9tesseract9StrideMap5Index6IsLastENS_14FlexDimensionsE");

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static int state;           // 0 undecided, 1 here, 2 the library
static bool checks_passed;
static const void *region_function;
static const float *tanh_table, *logistic_table;
static long checked, differed, region_checked;
enum { self_checks = 64 };

#if defined(__x86_64__)
#define GATES __attribute__((target("avx2,avx512f,avx512dq,avx512vl")))

// The library's Tanh (tanh = 1) or Logistic (tanh = 0) over 8 values: for x < 0, of -x, then
// negated (tanh) or taken from 1 (logistic); x times 256, truncated to a 64-bit int (cvttss2si)
// whose low 32 bits index the table unless over 4094 (then 1, -1 for tanh's negatives, 0 for
// logistic's); t0 + (t1 - t0) * (x - index), index back to float as a 32-bit int.
static GATES inline __attribute__((always_inline)) __m256 activate8(__m256 x, const float *table, bool tanh) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
    const __m256 negative = _mm256_cmp_ps(x, zero, _CMP_LT_OQ);
    const __m256 a = _mm256_xor_ps(x, _mm256_and_ps(negative, sign));
    const __m256 scaled = _mm256_mul_ps(a, _mm256_set1_ps(256.0f));
    const __m256i index = _mm512_cvtepi64_epi32(_mm512_cvttps_epi64(scaled));
    const __mmask8 beyond = _mm256_cmpgt_epu32_mask(index, _mm256_set1_epi32(4094));
    const __m256i safe = _mm256_mask_blend_epi32(beyond, index, _mm256_setzero_si256());
    const __m256 t0 = _mm256_i32gather_ps(table, safe, 4);
    const __m256 t1 = _mm256_i32gather_ps(table, _mm256_add_epi32(safe, _mm256_set1_epi32(1)), 4);
    const __m256 fraction = _mm256_sub_ps(scaled, _mm256_cvtepi32_ps(safe));
    __m256 r = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(t1, t0), fraction), t0);
    r = _mm256_mask_blend_ps(beyond, r, one);
    if (tanh) return _mm256_xor_ps(r, _mm256_and_ps(negative, sign));
    return _mm256_blendv_ps(r, _mm256_sub_ps(one, r), negative);
}

static float library_activation(float x, const float *table, bool tanh);

// The same with AVX2 alone (no 64-bit truncation there): values whose scaled magnitude is 2^31
// or more, or NaN, where the 32-bit truncation differs from the library's 64-bit one, are
// done value by value the library's way (`library_activation`); they do not occur in a
// network's gates (|x| >= 2^23).
static __attribute__((target("avx2"))) inline __attribute__((always_inline)) __m256 activate8_avx2(__m256 x, const float *table,
                                                                                                    bool tanh) {
    const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), sign = _mm256_set1_ps(-0.0f);
    const __m256 negative = _mm256_cmp_ps(x, zero, _CMP_LT_OQ);
    const __m256 a = _mm256_xor_ps(x, _mm256_and_ps(negative, sign));
    const __m256 scaled = _mm256_mul_ps(a, _mm256_set1_ps(256.0f));
    const __m256 odd = _mm256_or_ps(_mm256_cmp_ps(scaled, _mm256_set1_ps(2147483648.0f), _CMP_GE_OQ),
                                    _mm256_cmp_ps(scaled, scaled, _CMP_UNORD_Q));
    if (__builtin_expect(_mm256_movemask_ps(odd) != 0, 0)) {
        float values[8];
        _mm256_storeu_ps(values, x);
        for (int k = 0; k < 8; k++) values[k] = library_activation(values[k], table, tanh);
        return _mm256_loadu_ps(values);
    }
    const __m256i index = _mm256_cvttps_epi32(scaled);
    const __m256i beyond = _mm256_cmpgt_epi32(index, _mm256_set1_epi32(4094));
    const __m256i safe = _mm256_andnot_si256(beyond, index);
    // Each value's two entries side by side, one 8-byte load each (two 8-wide gathers cost
    // more on AMD's Zen 3, the AVX2 machines measured: 1.7 against 2.0 ns a value), then the
    // first entries and the second ones picked out. The indices taken from the register two at
    // a time as 64-bit words (storing them and loading each back waited on the store: 1.0
    // against 0.9 ns a value in a C harness on Zen 3).
    const __m128i low = _mm256_castsi256_si128(safe), high = _mm256_extracti128_si256(safe, 1);
    const uint64_t at01 = (uint64_t)_mm_cvtsi128_si64(low), at23 = (uint64_t)_mm_extract_epi64(low, 1);
    const uint64_t at45 = (uint64_t)_mm_cvtsi128_si64(high), at67 = (uint64_t)_mm_extract_epi64(high, 1);
    const __m128d p01 = _mm_loadh_pd(_mm_load_sd((const double *)(table + (uint32_t)at01)), (const double *)(table + (at01 >> 32)));
    const __m128d p23 = _mm_loadh_pd(_mm_load_sd((const double *)(table + (uint32_t)at23)), (const double *)(table + (at23 >> 32)));
    const __m128d p45 = _mm_loadh_pd(_mm_load_sd((const double *)(table + (uint32_t)at45)), (const double *)(table + (at45 >> 32)));
    const __m128d p67 = _mm_loadh_pd(_mm_load_sd((const double *)(table + (uint32_t)at67)), (const double *)(table + (at67 >> 32)));
    // Values 0, 1 and 4, 5 in one register, 2, 3 and 6, 7 in the other: the shuffle of each
    // 128-bit half then gives the entries in order, with no permutation across the halves
    // (0.8 against 0.9 ns a value in the harness).
    const __m256 pairs0145 = _mm256_castpd_ps(_mm256_insertf128_pd(_mm256_castpd128_pd256(p01), p45, 1));
    const __m256 pairs2367 = _mm256_castpd_ps(_mm256_insertf128_pd(_mm256_castpd128_pd256(p23), p67, 1));
    const __m256 t0 = _mm256_shuffle_ps(pairs0145, pairs2367, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 t1 = _mm256_shuffle_ps(pairs0145, pairs2367, _MM_SHUFFLE(3, 1, 3, 1));
    const __m256 fraction = _mm256_sub_ps(scaled, _mm256_cvtepi32_ps(safe));
    __m256 r = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(t1, t0), fraction), t0);
    r = _mm256_blendv_ps(r, one, _mm256_castsi256_ps(beyond));
    if (tanh) return _mm256_xor_ps(r, _mm256_and_ps(negative, sign));
    return _mm256_blendv_ps(r, _mm256_sub_ps(one, r), negative);
}

// Over n values in place, 8 at a time, the tail padded.
#define ACTIVATE_LOOP(step)                                                                              \
    int i = 0;                                                                                           \
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(v + i, step(_mm256_loadu_ps(v + i), table, tanh));     \
    if (i < n) {                                                                                         \
        float rest[8] = {0};                                                                             \
        memcpy(rest, v + i, sizeof(float) * (size_t)(n - i));                                            \
        _mm256_storeu_ps(rest, step(_mm256_loadu_ps(rest), table, tanh));                                \
        memcpy(v + i, rest, sizeof(float) * (size_t)(n - i));                                            \
    }

// 16 at a time, as `activate8` but for two things: the scaled values truncated to 32 bits (the
// low half of the library's 64-bit truncation below 2^31; 16 values holding one of 2^31 or
// more, or NaN, go 8 at a time through `activate8`, as never in a network's gates), and each
// value's two table entries, side by side, fetched by one 64-bit gather (two gathers of 8)
// instead of two 32-bit ones: the same entries, the same arithmetic after.
static GATES inline __attribute__((always_inline)) bool activate16(float *v, const float *table, bool tanh) {
    const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f), sign = _mm512_set1_ps(-0.0f);
    const __m512 x = _mm512_loadu_ps(v);
    const __mmask16 negative = _mm512_cmp_ps_mask(x, zero, _CMP_LT_OQ);
    const __m512 a = _mm512_mask_xor_ps(x, negative, x, sign);
    const __m512 scaled = _mm512_mul_ps(a, _mm512_set1_ps(256.0f));
    if (__builtin_expect(_mm512_cmp_ps_mask(scaled, _mm512_set1_ps(2147483648.0f), _CMP_NLT_UQ) != 0, 0)) return false;
    const __m512i index = _mm512_cvttps_epi32(scaled);
    const __mmask16 beyond = _mm512_cmpgt_epu32_mask(index, _mm512_set1_epi32(4094));
    const __m512i safe = _mm512_maskz_mov_epi32((__mmask16)~beyond, index);
    const __m512 low = _mm512_castsi512_ps(_mm512_i32gather_epi64(_mm512_castsi512_si256(safe), table, 4));
    const __m512 high = _mm512_castsi512_ps(_mm512_i32gather_epi64(_mm512_extracti64x4_epi64(safe, 1), table, 4));
    const __m512i evens = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512 t0 = _mm512_permutex2var_ps(low, evens, high);
    const __m512 t1 = _mm512_permutex2var_ps(low, _mm512_add_epi32(evens, _mm512_set1_epi32(1)), high);
    const __m512 fraction = _mm512_sub_ps(scaled, _mm512_cvtepi32_ps(safe));
    __m512 r = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(t1, t0), fraction), t0);
    r = _mm512_mask_blend_ps(beyond, r, one);
    r = tanh ? _mm512_mask_xor_ps(r, negative, r, sign) : _mm512_mask_sub_ps(r, negative, one, r);
    _mm512_storeu_ps(v, r);
    return true;
}

static GATES void activate_wide(float *v, int n, const float *table, bool tanh) {
    int done = 0;
    for (; done + 16 <= n; done += 16)
        if (!activate16(v + done, table, tanh))
            for (int k = 0; k < 16; k += 8) _mm256_storeu_ps(v + done + k, activate8(_mm256_loadu_ps(v + done + k), table, tanh));
    v += done;
    n -= done;
    ACTIVATE_LOOP(activate8)
}
static __attribute__((target("avx2"))) void activate_avx2(float *v, int n, const float *table, bool tanh) {
    ACTIVATE_LOOP(activate8_avx2)
}

// Which: 2 AVX-512 (F, DQ, VL), 1 AVX2, 0 neither (`decide`; `SHELFSCAN_SIMD=avx2` for AVX2).
static int width;

static void activate(float *v, int n, const float *table, bool tanh) {
    if (width == 2) activate_wide(v, n, table, tanh);
    else activate_avx2(v, n, table, tanh);
}

// The library's loop for one value, instruction for instruction (for the probe).
static float library_activation(float x, const float *table, bool tanh) {
    bool negative = 0.0f > x;
    float a = negative ? -x : x;
    float scaled = a * 256.0f;
    unsigned index = (unsigned)_mm_cvttss_si64(_mm_set_ss(scaled));
    float r;
    if (index > 4094) {
        r = 1.0f;
    } else {
        float t0 = table[index], t1 = table[index + 1];
        r = (t1 - t0) * (scaled - (float)(int)index) + t0;
    }
    if (!negative) return r;
    return tanh ? -r : 1.0f - r;
}

// The widest set of instructions this processor has for the activations (`width`).
static int processor_width(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2")) return 0;
    const char *setting = getenv("SHELFSCAN_SIMD");
    if (setting && strcmp(setting, "avx2") == 0) return 1;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") ? 2 : 1;
}

static bool processor_has_gates(void) {
    if (!width) width = processor_width();
    return width > 0;
}
#endif

static void decide(void) {
    bool found = false;
    const char *version = TessVersion();
#if defined(__x86_64__)
    void *anchor = dlsym(RTLD_DEFAULT, "_ZN9tesseract4LSTM13ResizeForwardERKNS_9NetworkIOE");
    Dl_info info;
    if (processor_has_gates() && version && strcmp(version, "5.3.0") == 0 && anchor && dladdr(anchor, &info) && info.dli_fbase) {
        const unsigned char *function = (const unsigned char *)info.dli_fbase + function_offset;
        tanh_table = (const float *)dlsym(RTLD_DEFAULT, "_ZN9tesseract9TanhTableE");
        logistic_table = (const float *)dlsym(RTLD_DEFAULT, "_ZN9tesseract13LogisticTableE");
        found = tanh_table && logistic_table && shelfscan_code_hash(function, function_size) == function_hash;
        if (found) region_function = function;
    }
#endif
    library_fc_step = (fc_step_fn)dlsym(RTLD_NEXT, FC_STEP);
    library_forward = (forward_fn)dlsym(RTLD_NEXT, LSTM_FORWARD);
    library_fc_forward = (fc_forward_fn)dlsym(RTLD_NEXT, FC_FORWARD);
#if defined(__x86_64__)
    forward_found = found && library_forward && shelfscan_code_hash((const void *)library_forward, forward_size) == forward_hash;
#endif
#if defined(__x86_64__)
    fc_found = found && library_fc_step && shelfscan_code_hash((const void *)library_fc_step, fc_size) == fc_hash;
    fc_forward_found = fc_found && library_fc_forward
        && shelfscan_code_hash((const void *)library_fc_forward, fc_forward_size) == fc_forward_hash;
#endif
    checks_passed = found && shelfscan_lstm_gates_compare(4096, 1) == 0;
    const char *setting = getenv("SHELFSCAN_LSTM_GATES");
    bool on = checks_passed && !(setting && strcmp(setting, "off") == 0);
    __atomic_store_n(&state, on ? 1 : 2, __ATOMIC_RELEASE);
}

// One comparison of the self-check recorded (`kind`: that code's own count); a difference hands
// every later call to the library.
static void record_check(long *kind, bool same) {
    __atomic_add_fetch(kind, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&checked, 1, __ATOMIC_RELAXED);
    if (!same) {
        __atomic_add_fetch(&differed, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&state, 2, __ATOMIC_RELEASE);
    }
}

#if defined(__x86_64__)
// The region's work: each gate's product into its line (the four at once where the int8 kernel
// can), then each line's activation (CI tanh, the others logistic): what the library's sections
// compute, gate by gate.
static void gates(const struct region_data *d, float *const lines[4]) {
    const char *lstm = d->lstm;
    const int ns = *(const int *)(lstm + ns_at);
    const int8_t *row = *(int8_t *const *)(lstm + source_ints_at) + (long)d->t * *(const int *)(lstm + source_row_at);
    // The four products at once where the int8 kernel can (CLSTMSteps/intmatrix.c), else one
    // by one through the library's `MatrixDotVector`.
    const void *matrices[4] = {lstm + gates_at, lstm + gates_at + gate_size, lstm + gates_at + 2 * gate_size,
                               lstm + gates_at + 3 * gate_size};
    if (!shelfscan_int_matrix_dot4(matrices, row, lines))
        for (int g = 0; g < 4; g++) shelfscan_weights_dot(matrices[g], row, lines[g]);
    for (int g = 0; g < 4; g++) activate(lines[g], ns, g == 0 ? tanh_table : logistic_table, g == 0);
}
#endif

static int hook(void (*fn)(void *), void *data, unsigned count) {
#if defined(__x86_64__)
    if (fn != (void (*)(void *))region_function || count != 4 || __atomic_load_n(&state, __ATOMIC_RELAXED) != 1) return 0;
    const struct region_data *d = data;
    if (!*(const bool *)(d->lstm + source_int_mode_at) || *(const bool *)(d->lstm + is_2d_at)) return 0;
    float *lines[4];
    for (int g = 0; g < 4; g++) lines[g] = *(float *const *)(d->temp_lines + g * float_vec_size + float_vec_data_at);
    if (__atomic_load_n(&region_checked, __ATOMIC_RELAXED) >= self_checks) {
        gates(d, lines);
        return 1;
    }
    // Self-check: this code's lines beside the library's, compared bit for bit.
    const int ns = *(const int *)(d->lstm + ns_at);
    // Room for the product's rounded outputs (16 at a time at most).
    float *ours = malloc(sizeof(float) * 4 * (size_t)(ns + 64));
    if (!ours) return 0;
    float *mine[4];
    for (int g = 0; g < 4; g++) mine[g] = ours + g * (ns + 64);
    gates(d, mine);
    shelfscan_openmp_run_sections(fn, data, count);
    bool same = true;
    for (int g = 0; g < 4; g++) same = same && memcmp(mine[g], lines[g], sizeof(float) * (size_t)ns) == 0;
    free(ours);
    record_check(&region_checked, same);
    return 1;
#else
    (void)fn;
    (void)data;
    (void)count;
    return 0;
#endif
}

// The definition libtesseract's calls reach (exported, see Package.swift): a tanh or logistic
// layer's activation here, every other layer's (softmax...) the library's. The first 64 steps of
// each of the two are computed both ways and compared, as the LSTM's regions are.
void shelfscan_fc_time_step(void *fc, int t, float *output) __asm__(FC_STEP);
void shelfscan_fc_time_step(void *fc, int t, float *output) {
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
#if defined(__x86_64__)
    const int type = *(const int *)((const char *)fc + fc_type_at);
    if (s == 1 && fc_found && (type == fc_tanh || type == fc_logistic)) {
        const int n = *(const int *)((const char *)fc + fc_outputs_at), k = type == fc_tanh;
        const float *table = k ? tanh_table : logistic_table;
        if (__atomic_load_n(&fc_checked[k], __ATOMIC_RELAXED) >= self_checks) {
            activate(output, n, table, k);
            return;
        }
        float *mine = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
        if (mine) {
            memcpy(mine, output, sizeof(float) * (size_t)(n > 0 ? n : 0));
            activate(mine, n, table, k);
            library_fc_step(fc, t, output);
            bool same = memcmp(mine, output, sizeof(float) * (size_t)(n > 0 ? n : 0)) == 0;
            free(mine);
            record_check(&fc_checked[k], same);
            return;
        }
    }
#endif
    library_fc_step(fc, t, output);
}

#if defined(__x86_64__)
// Per-thread lines for `forward_here`: 4 gates (room for the product's rounded outputs), the
// state and the output.
static __thread float *forward_lines;
static __thread int forward_room;

// LSTM::Forward for a one-dimensional int-mode LSTM without softmax, not training, not
// debugging: the library's steps in its order. The output sized as the library sizes it, the
// source resized (`ResizeForward`); then for each position of the input's stride map: its
// inputs and the last output copied into the source row, the four gates, the state times the
// forget gate, plus cell input times input gate, clipped to +-100, the output tanh(state) times
// the output gate, written at the position (a summary LSTM: at the end of each row only), state
// and output zeroed at the end of each row. The input's map is walked where the library walks
// its copy of it (`input_map_`, which only `Backward`, in training, reads besides).
static void forward_here(char *lstm, const char *input, char *output) {
    const int ni = *(const int *)(lstm + lstm_ni_at), no = *(const int *)(lstm + lstm_no_at), ns = *(const int *)(lstm + ns_at);
    const bool summary = *(const int *)(lstm + lstm_type_at) == nt_lstm_summary;
    *(int *)(lstm + lstm_input_width_at) = *(const int *)(input + io_int_rows_at);
    if (summary) shelfscan_resize_x_to_1(output, input, no);
    else shelfscan_resize_to_map(output, true, input + io_map_at, no);
    shelfscan_resize_forward(lstm, input);
    const int room = ns + 64;
    if (forward_room < room) {
        free(forward_lines);
        forward_lines = malloc(sizeof(float) * 6 * (size_t)room);
        if (!forward_lines) abort();
        forward_room = room;
    }
    float *lines[4];
    for (int g = 0; g < 4; g++) lines[g] = forward_lines + g * room;
    float *cell = forward_lines + 4 * room, *out = forward_lines + 5 * room;
    memset(cell, 0, sizeof(float) * (size_t)ns);
    memset(out, 0, sizeof(float) * (size_t)ns);
    char *source = lstm + lstm_source_at;
    // Both int arrays (as every int-mode LSTM's): each step's inputs copied straight into the
    // source row, as `CopyTimeStepGeneral` does in int mode (a memcpy), without the call.
    const bool ints = *(const bool *)(source + io_int_mode_at) && *(const bool *)(input + io_int_mode_at);
    int8_t *const source_ints = *(int8_t *const *)(source + io_ints_at);
    const int8_t *const input_ints = *(const int8_t *const *)(input + io_ints_at);
    const long source_row = *(const int *)(source + io_int_row_at), input_row = *(const int *)(input + io_int_row_at);
    struct step_index src = {input + io_map_at, 0, {0, 0, 0}}, dest = {output + io_map_at, 0, {0, 0, 0}};
    const float lower = -100.0f, upper = 100.0f;
    do {
        const int t = src.t;
        if (ints) memcpy(source_ints + t * source_row, input_ints + t * input_row, (size_t)ni);
        else shelfscan_copy_time_step(source, t, 0, ni, input, t, 0);
        shelfscan_write_step_part(source, t, ni, ns, out);
        struct region_data d = {lstm, NULL, NULL, t};
        gates(&d, lines);
        for (int i = 0; i < ns; i++) cell[i] = cell[i] * lines[2][i];
        for (int i = 0; i < ns; i++) cell[i] = lines[0][i] * lines[1][i] + cell[i];
        for (int i = 0; i < ns; i++) {
            float x = cell[i];
            if (lower > x) x = lower;
            else if (x > upper) x = upper;
            cell[i] = x;
        }
        memcpy(out, cell, sizeof(float) * (size_t)ns);
        activate(out, ns, tanh_table, true);
        for (int i = 0; i < ns; i++) out[i] = out[i] * lines[3][i];
        if (summary) {
            if (shelfscan_index_is_last(&src, width_dim)) {
                shelfscan_write_time_step(output, dest.t, out);
                shelfscan_index_increment(&dest);
            }
        } else {
            shelfscan_write_time_step(output, t, out);
        }
        if (shelfscan_index_is_last(&src, width_dim)) {
            memset(cell, 0, sizeof(float) * (size_t)ns);
            memset(out, 0, sizeof(float) * (size_t)ns);
        }
    } while (shelfscan_index_increment(&src));
}
#endif

#if defined(__x86_64__)
// A layer's self-check: the library's int8 output kept (NULL where it is not in int mode or
// there is no memory: no check then) ...
static unsigned char *kept_output(const char *o, size_t *bytes) {
    if (!*(const bool *)(o + io_int_mode_at)) return NULL;
    *bytes = (size_t)*(const int *)(o + io_int_rows_at) * (size_t)*(const int *)(o + io_int_row_at);
    unsigned char *kept = malloc(*bytes ? *bytes : 1);
    if (kept) memcpy(kept, *(void *const *)(o + io_ints_at), *bytes);
    return kept;
}

// ... and once the executable's has run into the same output, the two compared byte for byte;
// the library's stands where they differ; the comparison recorded (`record_check`).
static void checked_against(char *o, unsigned char *theirs, size_t bytes, long *kind) {
    const bool sized = (size_t)*(int *)(o + io_int_rows_at) * (size_t)*(int *)(o + io_int_row_at) == bytes;
    const bool same = sized && memcmp(theirs, *(void **)(o + io_ints_at), bytes) == 0;
    if (!same && sized) memcpy(*(void **)(o + io_ints_at), theirs, bytes);
    free(theirs);
    record_check(kind, same);
}
#endif

#if defined(__x86_64__)
// FullyConnected::Forward for an int-mode tanh or logistic layer of up to 16 outputs, not
// training, not debugging: the library's steps in its order, a line at a time instead of a time
// step at a time. The output sized as the library sizes it (`Resize`: the input's map, int mode,
// `no_` features), `SetupForward`; then for 64 time steps at a time: every step's product
// (`shelfscan_int_matrix_dot_steps`, the same sums and scaling as the kernel's step by step),
// the activation of all their outputs (`activate`, value by value the library's), each step's
// `no_` outputs quantised into its row as `WriteTimeStep` does; then `ZeroInvalidElements`.
// False where the int8 kernel cannot take the matrix (nothing written then).
static bool fc_forward_here(char *fc, const char *input, const void *transposed, char *output) {
    const int no = *(const int *)(fc + fc_outputs_at), k = *(const int *)(fc + fc_type_at) == fc_tanh;
    enum { batch = 64 };
    float values[batch * 16];
    const int8_t *in = *(const int8_t *const *)(input + io_ints_at);
    const long in_row = *(const int *)(input + io_int_row_at);
    const int width = *(const int *)(input + io_int_rows_at);
    // Whether the kernel takes this matrix, asked before anything is written.
    if (width > 0 && !shelfscan_int_matrix_dot_steps(fc + fc_weights_at, in, in_row, 1, values)) return false;
    shelfscan_resize_to_map(output, true, input + io_map_at, no);
    shelfscan_fc_setup_forward(fc, input, transposed);
    int8_t *out = *(int8_t *const *)(output + io_ints_at);
    const long out_row = *(const int *)(output + io_int_row_at);
    const float *table = k ? tanh_table : logistic_table;
    for (int t0 = 0; t0 < width; t0 += batch) {
        const int n = width - t0 < batch ? width - t0 : batch;
        shelfscan_int_matrix_dot_steps(fc + fc_weights_at, in + t0 * in_row, in_row, n, values);
        if (no == 16) {
            activate(values, 16 * n, table, k);
        } else {
            for (int s = 0; s < n; s++) activate(values + 16 * s, no, table, k);
        }
        if (out_row == 16 && no == 16) {
            shelfscan_quantise((signed char *)(out + t0 * out_row), 16 * n, values);
        } else {
            for (int s = 0; s < n; s++) shelfscan_quantise((signed char *)(out + (t0 + s) * out_row), no, values + 16 * s);
        }
    }
    shelfscan_zero_invalid_elements(output);
    return true;
}
#endif

// The definition libtesseract's calls reach (its vtables' entry, exported, see Package.swift):
// an int-mode tanh or logistic layer of up to 16 outputs here (`fc_forward_here`), every other
// the library's. The first 16 calls taken here run the library's first, keep its output, run
// this one and compare the two outputs byte for byte (the library's stands).
void shelfscan_fc_forward(void *fc, bool debug, const void *input, const void *transposed, void *scratch, void *output)
    __asm__(FC_FORWARD);
void shelfscan_fc_forward(void *fc, bool debug, const void *input, const void *transposed, void *scratch, void *output) {
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
#if defined(__x86_64__)
    const char *f = fc, *in = input;
    const int type = *(const int *)(f + fc_type_at), no = *(const int *)(f + fc_outputs_at);
    if (s == 1 && fc_forward_found && shelfscan_lstm_steps_state() == 1 && !debug && *(const bool *)(in + io_int_mode_at)
        && *(const int *)(f + fc_training_at) != ts_enabled && (type == fc_tanh || type == fc_logistic) && no >= 1 && no <= 16) {
        if (__atomic_load_n(&fc_forward_checked, __ATOMIC_RELAXED) >= fc_forward_self_checks) {
            if (fc_forward_here(fc, input, transposed, output)) return;
            library_fc_forward(fc, debug, input, transposed, scratch, output);
            return;
        }
        library_fc_forward(fc, debug, input, transposed, scratch, output);
        size_t bytes;
        unsigned char *theirs = kept_output(output, &bytes);
        if (!theirs) return;
        if (fc_forward_here(fc, input, transposed, output)) checked_against(output, theirs, bytes, &fc_forward_checked);
        else free(theirs);
        return;
    }
#endif
    library_fc_forward(fc, debug, input, transposed, scratch, output);
}

// The definition libtesseract's calls reach (its vtables' entry, exported, see Package.swift).
// The first 16 calls taken here run the library's first, keep its output, run this one and
// compare the two outputs byte for byte (the library's stands).
void shelfscan_lstm_forward(void *lstm, bool debug, const void *input, const void *transposed, void *scratch, void *output)
    __asm__(LSTM_FORWARD);
void shelfscan_lstm_forward(void *lstm, bool debug, const void *input, const void *transposed, void *scratch, void *output) {
    int s = __atomic_load_n(&state, __ATOMIC_RELAXED);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
#if defined(__x86_64__)
    const char *l = lstm, *in = input;
    const int type = *(const int *)(l + lstm_type_at);
    if (s == 1 && forward_found && !debug && *(const bool *)(in + io_int_mode_at) && !*(void *const *)(l + lstm_softmax_at)
        && !*(const bool *)(l + is_2d_at) && *(const int *)(l + lstm_training_at) != ts_enabled && *(const int *)(l + lstm_nf_at) == 0
        && (type == nt_lstm || type == nt_lstm_summary)) {
        if (__atomic_load_n(&forward_checked, __ATOMIC_RELAXED) >= forward_self_checks) {
            forward_here(lstm, input, output);
            return;
        }
        library_forward(lstm, debug, input, transposed, scratch, output);
        size_t bytes;
        unsigned char *theirs = kept_output(output, &bytes);
        if (!theirs) return;
        forward_here(lstm, input, output);
        checked_against(output, theirs, bytes, &forward_checked);
        return;
    }
#endif
    library_forward(lstm, debug, input, transposed, scratch, output);
}

int shelfscan_lstm_gates_install(void) {
    pthread_once(&decided, decide);
    shelfscan_openmp_set_sections_hook(hook);
    return shelfscan_lstm_gates_state();
}

int shelfscan_lstm_gates_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }

int shelfscan_lstm_gates_use(int on) {
    pthread_once(&decided, decide);
    __atomic_store_n(&state, on && checks_passed && __atomic_load_n(&differed, __ATOMIC_RELAXED) == 0 ? 1 : 2, __ATOMIC_RELEASE);
    return shelfscan_lstm_gates_state();
}

void shelfscan_lstm_gates_checked(long *regions, long *differences) {
    *regions = __atomic_load_n(&checked, __ATOMIC_RELAXED);
    *differences = __atomic_load_n(&differed, __ATOMIC_RELAXED);
}

long shelfscan_lstm_gates_compare(int count, unsigned seed) {
#if defined(__x86_64__)
    if (!tanh_table || !logistic_table || !processor_has_gates()) return -1;
    // Values around the tables' range and past it, both signs, zeros, infinities and NaN.
    static const float special[] = {0.0f, -0.0f, 1.0f / 256, -1.0f / 256, 15.99f, -15.99f, 15.996f, -15.996f, 16.0f, -16.0f,
                                    1e7f, -1e7f, 1.6777216e7f, 3e9f, -3e9f, 1e20f, -1e20f, __builtin_inff(), -__builtin_inff(),
                                    __builtin_nanf("")};
    long differences = 0;
    enum { batch = 37 };  // not a multiple of 8: the tail too
    float values[batch], ours[batch];
    for (int done = 0; done < count; done += batch) {
        for (int k = 0; k < batch; k++) {
            unsigned r = (unsigned)shelfscan_probe_random(&seed);
            values[k] = r % 7 == 0 ? special[(unsigned)shelfscan_probe_random(&seed) % (sizeof special / sizeof *special)]
                                   : (((float)shelfscan_probe_random(&seed) / (float)RAND_MAX) * 2.0f - 1.0f) * (r % 3 == 0 ? 40.0f : 8.0f);
        }
        // Every width this processor has (AVX-512 and AVX2 both where it has AVX-512).
        for (int w = width; w >= 1; w--)
            for (int tanh = 0; tanh < 2; tanh++) {
                const float *table = tanh ? tanh_table : logistic_table;
                memcpy(ours, values, sizeof values);
                if (w == 2) activate_wide(ours, batch, table, tanh);
                else activate_avx2(ours, batch, table, tanh);
                for (int k = 0; k < batch; k++) {
                    float theirs = library_activation(values[k], table, tanh);
                    differences += memcmp(&theirs, &ours[k], sizeof theirs) != 0;
                }
            }
    }
    return differences;
#else
    (void)count;
    (void)seed;
    return -1;
#endif
}
