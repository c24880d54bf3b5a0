#ifndef SHELFSCAN_INTMATRIX_H
#define SHELFSCAN_INTMATRIX_H

#include <stdbool.h>
#include <stdint.h>

/// Tesseract's int8 matrix-vector product (`IntSimdMatrix`: every LSTM gate and fully connected
/// layer of an integer model, each time step), by the executable's kernel instead of the
/// library's AVX2 one (32 products per five instructions; a fifth of a shelf photo's CPU):
/// - with AVX-512 VNNI, 64 products per instruction (`vpdpbusd`). It multiplies unsigned bytes
///   by signed ones: the inputs go in plus 128 and 128 times each output's weight sum comes off
///   after, the sums kept after the laid-out weights by the executable's `IntSimdMatrix::Init`
///   (libtesseract calls it for every matrix as a model loads; the library's own lays out the
///   weights, then the sums are appended for this kernel only);
/// - with AVX2 alone, on the library's own layout and with its instructions, but each group of
///   inputs broadcast from memory and a matrix's last sets of outputs walked together (48
///   outputs in one walk of the inputs, not two): about a fifth less time; a small matrix's
///   products over a whole line at once (`shelfscan_int_matrix_dot_steps`).
/// Same sums, exact in 32 bits either way, the same float arithmetic after them: the same
/// readings.
///
/// libtesseract picks its kernel through a public pointer (`IntSimdMatrix::intSimdMatrix`), read
/// when a model loads (its weights are laid out for the kernel: for VNNI 16 outputs per register
/// instead of 8) and at every product; `shelfscan_int_matrix_install` points it at the
/// executable's before the first model loads. Only with the libtesseract whose layout was
/// checked (`TessVersion()` 5.3.0, Debian 12's, which chose its AVX2 kernel), on a processor and
/// system with AVX-512 F, BW and VNNI (the VNNI kernel; `SHELFSCAN_SIMD=avx2` takes the AVX2 one
/// there) or with AVX2 (the AVX2 kernel, in optimised builds only: at -O0 it is about a hundred
/// times slower than the library's), and where a probe through the library's own weight
/// layout and kernel agrees bit for bit; otherwise, or with `SHELFSCAN_INT_MATRIX=off`, the
/// library's kernel stays.

/// Decides once, before any model is loaded (`TesseractEngine` calls it before its first
/// `TessBaseAPIInit`): 1 when this kernel is installed, 2 when the library's stays.
int shelfscan_int_matrix_install(void);

/// 0 before `shelfscan_int_matrix_install`, then what it returned.
int shelfscan_int_matrix_state(void);

/// An LSTM's four gate products of one input `u` (`matrices`: its four `WeightMatrix`es, laid
/// out for this kernel), each into its `v`, at once: where this kernel is installed and the
/// four share one shape of 33-96 outputs (the small LSTMs'); false, nothing written, otherwise.
/// The same outputs as four products one after the other.
bool shelfscan_int_matrix_dot4(const void *const matrices[4], const int8_t *u, float *const v[4]);

/// A matrix of up to 16 outputs (`matrix`: a `WeightMatrix` laid out for this kernel) times the
/// inputs of `steps` time steps (rows `stride` bytes apart, from `u`), into `v`, 16 floats per
/// step: where either kernel is installed; false, nothing written, otherwise. Per step the same
/// outputs as the product of that step alone.
bool shelfscan_int_matrix_dot_steps(const void *matrix, const int8_t *u, long stride, int steps, float *v);

/// Runs `trials` random products (up to 300 outputs of up to 600 inputs, weights and inputs in
/// -127...127, the library's `Init` laying out the weights for each kernel) through this kernel
/// and the library's AVX2 one, and as many sets of four products of 33-96 outputs through the
/// four-at-once product and this kernel one by one (VNNI), and as many products of up to 16
/// outputs over up to 30 steps through `shelfscan_int_matrix_dot_steps`'s code and step by step,
/// and returns how many differed in any output bit or wrote outside their outputs; -1 where
/// neither kernel can run (no AVX2, another libtesseract). The kernel is the one this processor
/// gets (see above).
long shelfscan_int_matrix_compare(int trials, unsigned seed);

/// The same for the AVX2 kernel, whatever this processor would get (-1 without AVX2 or with
/// another libtesseract): on an AVX-512 machine, the kernel AVX2-only machines run.
long shelfscan_int_matrix_compare_avx2(int trials, unsigned seed);

#endif
