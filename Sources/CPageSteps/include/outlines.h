#ifndef SHELFSCAN_OUTLINES_H
#define SHELFSCAN_OUTLINES_H

/// `tesseract::C_OUTLINE::winding_number`, defined again in the executable (it exports it, see
/// Package.swift's `interposed`; libtesseract calls it through its procedure linkage table):
/// how many times an outline winds round a point, asked again and again while each line's
/// outlines are nested in one another (`C_OUTLINE::operator<`, from `extract_edges`): 1.7% of
/// a real 12 MP shelf's CPU (forty-ninth session). The library visits every step of the chain
/// with two unpredictable branches; a step can only cross the point's row when the chain stands
/// on that row or the next, so here four steps at a time (one byte of the chain) are added
/// from a table wherever the chain is four rows or more away, and only the steps near the row
/// are looked at one by one, as the library does. The same counts: a step crossing rightwards
/// above the point counts +1, leftwards -1, and a crossing through the point makes the answer
/// INTERSECTING (32767) wherever it comes in the chain (the library returns at the first; every
/// later one would return the same).
///
/// Only with libtesseract 5.3.0 whose function is Debian 12's byte for byte (a hash; the
/// outline's start at 0x10, step count at 0x14 and steps at 0x20 were read off that machine
/// code) and a probe on random chains that agrees; otherwise, or with `SHELFSCAN_WINDING=off`,
/// each call goes on to the library's own.

/// 0 before the first call decided, 1 when the executable's does the work, 2 when the library's.
int shelfscan_winding_state(void);

/// Makes the executable's do the work (`on` 1, where the checks passed) or the library's (0);
/// returns the state then. For tests.
int shelfscan_winding_use(int on);

/// Runs `trials` random chains (of up to 3,000 steps, starts and points near one another, near
/// the 16-bit edges, points on the chain) and points through both and returns how many
/// answers differed (-1 where the library's cannot be found or is not the one read).
long shelfscan_winding_compare(int trials, unsigned seed);

/// Winding numbers the executable's definition answered so far on the calling thread (for tests).
long shelfscan_winding_answered(void);

#endif
