#ifndef SHELFSCAN_OPENMP_H
#define SHELFSCAN_OPENMP_H

/// Makes the OpenMP parallel regions the calling thread meets run on that thread alone (its
/// max-active-levels set to 0), whatever OMP_THREAD_LIMIT says: Tesseract's LSTM asks for
/// several threads per line, and with a reading per core those threads fight over the cores
/// (5-12x slower on two). Cheap after the first call on a thread. Returns 0 when libgomp is not
/// loaded (Tesseract built without OpenMP: nothing to do), else 1.
int shelfscan_openmp_serial(void);

/// The calling thread's OpenMP max-active-levels (0 once `shelfscan_openmp_serial` ran on it),
/// or -1 when libgomp is not loaded.
int shelfscan_openmp_levels(void);

/// How many OpenMP parallel regions the calling thread has opened through this module's
/// `GOMP_parallel` (see openmp.c): 0 when the executable does not export it and libgomp's own
/// runs instead.
long shelfscan_openmp_regions(void);

/// A function offered every sections region before it runs here (`GOMP_parallel_sections`):
/// it returns nonzero when it did the region's work itself (it may run the region's own body
/// with `shelfscan_openmp_run_sections`), 0 to let the body run. CLSTMSteps's LSTM gates.
typedef int (*shelfscan_sections_hook)(void (*fn)(void *), void *data, unsigned count);

/// Sets the hook (NULL: none), for every thread from now on.
void shelfscan_openmp_set_sections_hook(shelfscan_sections_hook hook);

/// Runs a sections region's body on the calling thread, section after section (what
/// `GOMP_parallel_sections` does here without a hook).
void shelfscan_openmp_run_sections(void (*fn)(void *), void *data, unsigned count);

#endif
