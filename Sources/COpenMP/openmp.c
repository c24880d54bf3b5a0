// See include/openmp.h.
//
// libgomp reads OMP_THREAD_LIMIT once, in its ELF constructor, before `main`: too early for the
// program to set it (glibc's environment is not ready in .preinit_array, and a re-exec costs
// about 20 ms of start-up). The ICV max-active-levels can be set at run time, but per thread
// (libgomp 11+ keeps it in the thread's implicit task), so each reading thread sets it before
// reading. Looked up with dlsym: omp.h is GCC's, not on clang's path, and libgomp comes with
// Tesseract.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include "openmp.h"

typedef void (*set_levels_fn)(int);
typedef int (*get_levels_fn)(void);
typedef unsigned (*sections_next_fn)(void);
typedef void (*sections_end_fn)(void);

static pthread_once_t looked_up = PTHREAD_ONCE_INIT;
static set_levels_fn set_levels = NULL;
static get_levels_fn get_levels = NULL;
// libgomp's own, for sections outside the regions run here (see below).
static sections_next_fn real_sections_next = NULL;
static sections_end_fn real_sections_end = NULL;
static __thread int serial = 0;

static void look_up(void) {
    set_levels = (set_levels_fn)dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
    get_levels = (get_levels_fn)dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
    real_sections_next = (sections_next_fn)dlsym(RTLD_NEXT, "GOMP_sections_next");
    real_sections_end = (sections_end_fn)dlsym(RTLD_NEXT, "GOMP_sections_end_nowait");
}

int shelfscan_openmp_serial(void) {
    if (serial) return 1;
    pthread_once(&looked_up, look_up);
    if (set_levels == NULL) return 0;
    set_levels(0);
    serial = 1;
    return 1;
}

int shelfscan_openmp_levels(void) {
    pthread_once(&looked_up, look_up);
    return get_levels == NULL ? -1 : get_levels();
}

// Tesseract's LSTM opens an OpenMP parallel region for every time step of every layer, about
// 850,000 on the 12 MP shelf. With one thread per region, as here, libgomp still sets a team
// up and wakes its barrier's futex on leaving: a system call per region, 5% of the photo's CPU.
// The executable's definitions come first in the dynamic linker's search order (exported with
// --export-dynamic-symbol, see Package.swift), so libtesseract's calls land here and run the
// region's body on the calling thread, as a team of one would:
// - `GOMP_parallel` (`parallel for`): the body's loop is statically scheduled by
//   `omp_get_num_threads` and `omp_get_thread_num`, 1 and 0 outside a team: every iteration.
// - `GOMP_parallel_sections`: the body asks `GOMP_sections_next` for section after section
//   (1...count, then 0) and ends with `GOMP_sections_end_nowait`; those two answer here while
//   such a region runs on the thread, and are libgomp's otherwise.
static __thread long regions = 0;

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags) {
    (void)num_threads; (void)flags;
    regions += 1;
    fn(data);
}

// The sections region running on this thread: the next section to hand out, and how many.
static __thread unsigned sections_next = 0, sections_count = 0;
static __thread int in_sections = 0;

static shelfscan_sections_hook sections_hook = NULL;

void shelfscan_openmp_set_sections_hook(shelfscan_sections_hook hook) {
    __atomic_store_n(&sections_hook, hook, __ATOMIC_RELEASE);
}

void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count, unsigned flags) {
    (void)num_threads; (void)flags;
    regions += 1;
    shelfscan_sections_hook hook = __atomic_load_n(&sections_hook, __ATOMIC_ACQUIRE);
    if (hook && hook(fn, data, count)) return;
    shelfscan_openmp_run_sections(fn, data, count);
}

void shelfscan_openmp_run_sections(void (*fn)(void *), void *data, unsigned count) {
    unsigned saved_next = sections_next, saved_count = sections_count;
    int saved_in = in_sections;
    sections_next = 1;
    sections_count = count;
    in_sections = 1;
    fn(data);
    sections_next = saved_next;
    sections_count = saved_count;
    in_sections = saved_in;
}

unsigned GOMP_sections_next(void) {
    if (in_sections) return sections_next <= sections_count ? sections_next++ : 0;
    pthread_once(&looked_up, look_up);
    return real_sections_next();
}

void GOMP_sections_end_nowait(void) {
    if (in_sections) return;
    pthread_once(&looked_up, look_up);
    real_sections_end();
}

long shelfscan_openmp_regions(void) { return regions; }
