#ifndef SHELFSCAN_LSTMSTEPS_H
#define SHELFSCAN_LSTMSTEPS_H

/// The smallest steps of Tesseract's LSTM, defined again in the executable where the library's
/// cost more than the work they do (`perf` on a real 12 MP shelf photo):
///
/// - `tesseract::StrideMap::Index` (`MaxIndexOfDim`, `IsValid`, `IsLast`, `Increment`,
///   `SetTFromIndices`, `AddOffset`): the walk through the LSTM's arrays. The library's call one
///   another through its procedure linkage table (`AddOffset` calls `SetTFromIndices`, then
///   `IsValid`, which calls `MaxIndexOfDim` three times); the convolution over a line's pixels
///   does that a dozen times per pixel: 13% of the CPU. Here each is whole, calling nothing.
/// - `tesseract::NetworkIO::WriteTimeStepPart`: each time step's outputs stored as int8, one
///   value at a time there (6%), eight at a time here (SSE2), rounded and clipped alike.
/// - `tesseract::NetworkIO::MaxpoolTimeStep`: the maxpool over the convolution's output, one
///   feature at a time behind a virtual call's check there (3%), sixteen at a time here.
/// - `tesseract::Maxpool::Forward`: that maxpool's walk, each window position through two
///   `AddOffset` calls and a `MaxpoolTimeStep` call (2.8% of a real 12 MP shelf's CPU on the
///   forty-ninth session's AMD EPYC); here a window inside the picture over 16 int8 features
///   (the fast model's Mp3,3) is one run in registers (0.4%), others as the library does them.
///   Only with the libtesseract whose `Maxpool::Forward` machine code was read (its bytes hashed).
/// - `tesseract::NetworkIO::Copy2DImage`: each line picture's grays into the network's int8
///   input, a `SetPixel` call (a division and a rounding) per pixel there (0.9% of a 12 MP
///   shelf's CPU); here a table of the 256 grays' values per line. Gray pictures into int-mode
///   inputs of one feature; others the library's.
///
/// libtesseract's own calls reach these (the executable exports them, see Package.swift's
/// `interposed`). Same arithmetic, same results. They do the work only with a libtesseract whose
/// layout of `StrideMap`, `StrideMap::Index` and `NetworkIO` was checked (`TessVersion()` 5.3.0,
/// Debian 12's, read off its machine code) and whose own methods agree with them on a probe
/// (`lstmsteps.c`); otherwise, or with `SHELFSCAN_LSTM_STEPS=off`, each call goes on to the
/// library's own.

/// 0 while no call has reached the executable's definitions (nothing recognised yet, or the
/// executable does not export them), 1 when they do the work, 2 when they hand each call to
/// the library's own.
int shelfscan_lstm_steps_state(void);

/// `n` floats quantised into `line` as `NetworkIO::WriteTimeStepPart` stores them in int mode
/// (times 127, rounded half away from zero, clipped to +-127).
void shelfscan_quantise(signed char *line, int n, const float *input);

/// How many `Maxpool::Forward` calls the executable's definition did the work of (for tests).
long shelfscan_lstm_steps_poolings(void);

/// How many `NetworkIO::Copy2DImage` calls (each line picture's grays into the LSTM's int8
/// input, `(gray - black) / contrast - 1` times 128, rounded, clipped; the library's a
/// `SetPixel` call per pixel) the executable's definition did the work of, each gray's value
/// worked out once per line (for tests).
long shelfscan_lstm_steps_copies(void);

/// Makes the definitions do the work (`on` 1, where the checks passed) or hand each call to the
/// library's own (`on` 0), from now on, for every thread; returns the state then. For tests.
int shelfscan_lstm_steps_use(int on);

/// Runs `trials` random cases (positions in random stride maps, writes and poolings of random
/// values) through both the executable's and the library's methods and returns how many results
/// differed (-1 when the library's cannot be found). For tests.
long shelfscan_lstm_steps_compare(int trials, unsigned seed);

#endif
