#ifndef SHELFSCAN_LSTMGATES_H
#define SHELFSCAN_LSTMGATES_H

/// The four gates of each step of Tesseract's LSTMs (`LSTM::Forward`'s OpenMP sections: each
/// gate's int8 product, then its tanh or logistic, value by value, from the library's tables),
/// computed here with the activations eight values at a time: the library's loop branches on
/// each value's sign (half of them mispredicted) and was 13% of a shelf photo's CPU. The same
/// arithmetic, float operation by float operation (the table look-up, the interpolation,
/// the sign), so the same readings.
///
/// COpenMP runs Tesseract's OpenMP regions on the reading thread and offers each sections
/// region to `shelfscan_lstm_gates_hook` first: it takes the region only when it is that of
/// libtesseract 5.3.0's `LSTM::Forward` (Debian 12's: the function's machine code checked byte
/// for byte, its data and the LSTM's fields read where that code reads them), a one-dimensional
/// LSTM in int mode, on a processor with AVX2 (AVX-512 F, DQ and VL used where there:
/// `SHELFSCAN_SIMD=avx2` keeps to AVX2); otherwise, or with
/// `SHELFSCAN_LSTM_GATES=off`, the library's own code runs. Its first 64 regions are computed
/// both ways and compared bit for bit; one difference hands every later region to the library.
///
/// `FullyConnected::ForwardTimeStep(int, float *)` (a layer's activation after its product) and
/// `LSTM::Forward` itself are defined here too (exported, see Package.swift): the first for tanh
/// and logistic layers, the second for one-dimensional int-mode LSTMs without softmax, neither
/// training nor debugging (every step: the source row, the gates above, the state update,
/// `tanh(state) * output gate` eight values at a time, where the library's loop branched on
/// each value's sign again), the library's code for everything else. Their first 64 steps
/// (per activation) and 16 calls are checked against the library's in the same way.

/// 1 when the gates are computed here, 2 when by the library; 0 before the first decision.
int shelfscan_lstm_gates_state(void);

/// Decides once (`TesseractEngine` calls it before its first reading) and returns the state.
int shelfscan_lstm_gates_install(void);

/// Makes the gates computed here (`on` 1, where the checks passed) or by the library (0), from
/// now on; returns the state then. For tests.
int shelfscan_lstm_gates_use(int on);

/// Regions computed both ways by the self-check so far, and how many of them differed.
void shelfscan_lstm_gates_checked(long *regions, long *differed);

/// Runs `count` random values through this file's tanh and logistic and through a scalar
/// copy of the library's (the same instructions as its loop: `cvttss2si`, table, interpolation)
/// and returns how many results differed in any bit; -1 where this code cannot run.
long shelfscan_lstm_gates_compare(int count, unsigned seed);

#endif
