#ifndef SHELFSCAN_SELFCHECK_H
#define SHELFSCAN_SELFCHECK_H

#include <stddef.h>
#include <stdint.h>

/// What the executable's own versions of library functions (CLSTMSteps, CRotateAM, CPageSteps)
/// share for their checks before they take over.

/// FNV-1a 64 of `n` bytes: a library function's machine code, compared with the hash of the
/// build whose code was read (Debian 12's), so that another build keeps its own function.
uint64_t shelfscan_code_hash(const void *bytes, size_t n);

/// The start-up probes' random numbers (0 ... 2^31 - 1, as rand_r's): xorshift32, inline
/// (rand_r, a call through the procedure linkage table per number, took most of the probes'
/// time at start-up). A zero state starts from a fixed one.
static inline unsigned shelfscan_probe_random(unsigned *state) {
    unsigned x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x >> 1;
}

#endif
