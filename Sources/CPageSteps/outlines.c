// See include/outlines.h.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "outlines.h"
#include "selfcheck.h"

extern const char *TessVersion(void);

#define WINDING "_ZNK9tesseract9C_OUTLINE14winding_numberENS_6ICOORDE"
// C_OUTLINE::winding_number(ICOORD point) const: `this`, and the point's two int16 coordinates
// in one register (x low, y high), as Debian's machine code takes them.
typedef int16_t (*winding_fn)(const void *outline, uint32_t point);
enum { winding_size = 0x10c, start_at = 0x10, stepcount_at = 0x14, steps_at = 0x20, intersecting = 32767 };
// FNV-1a 64 of Debian 12's C_OUTLINE::winding_number, its 0x10c bytes of machine code.
static const uint64_t winding_hash = 0x0cc255accbd001a7ULL;

static pthread_once_t decided = PTHREAD_ONCE_INIT;
static winding_fn library_winding;
static bool checks_passed;
static int state;
// Counted per thread (a shared counter would bounce between the cores on every call).
static __thread long answered;

// A chain code's step (C_OUTLINE::step_coords: left, down, right, up), and each byte's four
// steps added up (its codes from the low bits up).
static const int8_t step_x[4] = {-1, 0, 1, 0}, step_y[4] = {0, -1, 0, 1};
static int8_t byte_x[256], byte_y[256];

static void make_tables(void) {
    for (int b = 0; b < 256; b++) {
        int x = 0, y = 0;
        for (int k = 0; k < 4; k++) {
            x += step_x[(b >> (2 * k)) & 3];
            y += step_y[(b >> (2 * k)) & 3];
        }
        byte_x[b] = (int8_t)x;
        byte_y[b] = (int8_t)y;
    }
}

// The library's step, with its int16 coordinates (ICOORD's) and int comparisons and products.
// Returns false for a crossing through the point.
static inline bool one_step(int code, int16_t *x, int16_t *y, int *count) {
    const int dx = step_x[code], dy = step_y[code];
    if (*y <= 0 && *y + dy > 0) {
        const int32_t cross = (int32_t)*x * dy - (int32_t)*y * dx;
        if (cross > 0) ++*count;
        else if (cross == 0) return false;
    } else if (*y > 0 && *y + dy <= 0) {
        const int32_t cross = (int32_t)*x * dy - (int32_t)*y * dx;
        if (cross < 0) --*count;
        else if (cross == 0) return false;
    }
    *x = (int16_t)(*x + dx);
    *y = (int16_t)(*y + dy);
    return true;
}

// A step crosses the point's row only from y 0 upwards or from y 1 downwards; four steps move
// y by at most 3 before their last, and a 16-bit wrap (at +-32768) lands far from 0: a byte
// starting outside -3...4 crosses nothing, and its steps are added at once.
static int16_t winding_here(const char *outline, uint32_t point) {
    int16_t x = (int16_t)(*(const int16_t *)(outline + start_at) - (int16_t)(point & 0xffff));
    int16_t y = (int16_t)(*(const int16_t *)(outline + start_at + 2) - (int16_t)(point >> 16));
    const int n = *(const int16_t *)(outline + stepcount_at);
    const uint8_t *steps = *(const uint8_t *const *)(outline + steps_at);
    int count = 0, i = 0;
    for (; i + 4 <= n; i += 4) {
        const unsigned b = steps[i >> 2];
        if (y < -3 || y > 4) {
            x = (int16_t)(x + byte_x[b]);
            y = (int16_t)(y + byte_y[b]);
            continue;
        }
        for (int k = 0; k < 4; k++)
            if (!one_step((int)(b >> (2 * k)) & 3, &x, &y, &count)) return intersecting;
    }
    for (; i < n; i++)
        if (!one_step((steps[i >> 2] >> (2 * (i & 3))) & 3, &x, &y, &count)) return intersecting;
    return (int16_t)count;
}

static void decide(void) {
    make_tables();
    library_winding = (winding_fn)dlsym(RTLD_NEXT, WINDING);
    const char *version = TessVersion();
    bool found = library_winding && version && strcmp(version, "5.3.0") == 0
        && shelfscan_code_hash((const void *)library_winding, winding_size) == winding_hash;
    if (getenv("SHELFSCAN_PAGE_STEPS_HASHES") && library_winding)
        fprintf(stderr, "winding number hash %#llx\n", (unsigned long long)shelfscan_code_hash((const void *)library_winding, winding_size));
    // 50 chains (8 points each, about 1 ms); the test runs 5,000.
    checks_passed = found && shelfscan_winding_compare(50, 1) == 0;
    const char *setting = getenv("SHELFSCAN_WINDING");
    bool on = checks_passed && !(setting && strcmp(setting, "off") == 0);
    __atomic_store_n(&state, on ? 1 : 2, __ATOMIC_RELEASE);
}

int16_t shelfscan_winding_number(const void *outline, uint32_t point) __asm__(WINDING);
int16_t shelfscan_winding_number(const void *outline, uint32_t point) {
    int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (__builtin_expect(s == 0, 0)) {
        pthread_once(&decided, decide);
        s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    }
    if (s == 1) {
        answered++;
        return winding_here(outline, point);
    }
    return library_winding(outline, point);
}

int shelfscan_winding_state(void) { return __atomic_load_n(&state, __ATOMIC_ACQUIRE); }

int shelfscan_winding_use(int on) {
    pthread_once(&decided, decide);
    __atomic_store_n(&state, on && checks_passed ? 1 : 2, __ATOMIC_RELEASE);
    return shelfscan_winding_state();
}

long shelfscan_winding_answered(void) { return answered; }

// Random chains: closed-ish walks and noise, starts near the point or near the 16-bit edges,
// points on the chain (INTERSECTING) and beside it; the library's answer against this one's.
long shelfscan_winding_compare(int trials, unsigned seed) {
    if (!library_winding) library_winding = (winding_fn)dlsym(RTLD_NEXT, WINDING);
    const char *version = TessVersion();
    if (!library_winding || !version || strcmp(version, "5.3.0") != 0
        || shelfscan_code_hash((const void *)library_winding, winding_size) != winding_hash)
        return -1;
    if (!byte_x[1] && !byte_y[1]) make_tables();
    enum { most = 3000 };
    static __thread uint8_t steps[most / 4 + 1];
    // The fields both read (C_OUTLINE's start, stepcount and steps' data), the rest zero.
    _Alignas(8) char outline[0x48];
    long differ = 0;
    for (int t = 0; t < trials; t++) {
        const int n = (int)(shelfscan_probe_random(&seed) % 5 == 0 ? shelfscan_probe_random(&seed) % 9 : 1 + shelfscan_probe_random(&seed) % most);
        // A walk that wanders (each step random) or goes round (mostly one way at a time).
        const bool round = shelfscan_probe_random(&seed) % 2;
        int code = (int)(shelfscan_probe_random(&seed) % 4);
        memset(steps, 0, sizeof steps);
        for (int i = 0; i < n; i++) {
            if (!round || shelfscan_probe_random(&seed) % 6 == 0) code = (int)(shelfscan_probe_random(&seed) % 4);
            steps[i >> 2] |= (uint8_t)(code << (2 * (i & 3)));
        }
        memset(outline, 0, sizeof outline);
        int16_t sx, sy;
        switch (shelfscan_probe_random(&seed) % 4) {
        case 0: sx = (int16_t)(32767 - shelfscan_probe_random(&seed) % 40); sy = (int16_t)(shelfscan_probe_random(&seed) % 40 - 20); break;
        case 1: sx = (int16_t)(shelfscan_probe_random(&seed) % 40 - 20); sy = (int16_t)(-32768 + (int)(shelfscan_probe_random(&seed) % 40)); break;
        default: sx = (int16_t)(shelfscan_probe_random(&seed) % 200 - 100); sy = (int16_t)(shelfscan_probe_random(&seed) % 200 - 100); break;
        }
        memcpy(outline + start_at, &sx, 2);
        memcpy(outline + start_at + 2, &sy, 2);
        const int16_t count = (int16_t)n;
        memcpy(outline + stepcount_at, &count, 2);
        uint8_t *data = steps;
        memcpy(outline + steps_at, &data, sizeof data);
        uint8_t *end = steps + (n + 3) / 4;
        memcpy(outline + steps_at + 8, &end, sizeof end);
        memcpy(outline + steps_at + 16, &end, sizeof end);
        for (int p = 0; p < 8; p++) {
            int16_t px, py;
            if (p < 3 && n > 0) {
                // A point on the chain: the start moved along some steps.
                int k = (int)(shelfscan_probe_random(&seed) % (unsigned)n), x = sx, y = sy;
                for (int i = 0; i < k; i++) {
                    x += step_x[(steps[i >> 2] >> (2 * (i & 3))) & 3];
                    y += step_y[(steps[i >> 2] >> (2 * (i & 3))) & 3];
                }
                px = (int16_t)x;
                py = (int16_t)y;
            } else {
                px = (int16_t)(sx + (int)(shelfscan_probe_random(&seed) % 120) - 60);
                py = (int16_t)(sy + (int)(shelfscan_probe_random(&seed) % 120) - 60);
            }
            const uint32_t point = (uint16_t)px | ((uint32_t)(uint16_t)py << 16);
            differ += library_winding(outline, point) != winding_here(outline, point);
        }
    }
    return differ;
}
