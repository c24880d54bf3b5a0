#ifndef SHELFSCAN_AMBIGS_H
#define SHELFSCAN_AMBIGS_H

/// `tesseract::UnicharAmbigs::LoadUniversal`, defined again in the executable (exported, see
/// Package.swift's `interposed`; `Tesseract::init_tesseract_lang_data` calls it through
/// libtesseract's procedure linkage table). Every engine load parses Tesseract's built-in table
/// of character ambiguities ("rn" read for "m"...) into sorted lists: 20-45 ms of a core per
/// engine, four engines per process. Only the legacy classifier and its dictionary checks read
/// that table; LSTM-only reading never does (a libtesseract built without the legacy engine
/// leaves the call out altogether). While `shelfscan_universal_ambigs_skip(1)` holds on the
/// calling thread (around a load the caller then checks came out LSTM-only, reloading with the
/// table where it did not), the call returns at once; otherwise it goes on to the library's.

/// Skip (1) or load (0) the table in loads on this thread from now on.
void shelfscan_universal_ambigs_skip(int on);

/// How many loads skipped the table so far (for tests).
long shelfscan_universal_ambigs_skipped(void);

#endif
