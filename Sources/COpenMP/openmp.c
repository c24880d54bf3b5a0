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

static pthread_once_t looked_up = PTHREAD_ONCE_INIT;
static set_levels_fn set_levels = NULL;
static get_levels_fn get_levels = NULL;
static __thread int serial = 0;

static void look_up(void) {
    set_levels = (set_levels_fn)dlsym(RTLD_DEFAULT, "omp_set_max_active_levels");
    get_levels = (get_levels_fn)dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
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
