// Leptonica's C API as this target's files call it, declared here so the target needs none of
// Leptonica's headers (private: not in include/).
#ifndef SHELFSCAN_CROTATEAM_LEPT_H
#define SHELFSCAN_CROTATEAM_LEPT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct Pix;
extern int pixGetDepth(const struct Pix *pix);
extern int pixGetWidth(const struct Pix *pix);
extern int pixGetHeight(const struct Pix *pix);
extern int pixGetWpl(const struct Pix *pix);
extern int pixGetXRes(const struct Pix *pix);
extern int pixGetYRes(const struct Pix *pix);
extern int pixGetInputFormat(const struct Pix *pix);
extern int pixSetResolution(struct Pix *pix, int xres, int yres);
extern void *pixGetColormap(struct Pix *pix);
extern uint32_t *pixGetData(struct Pix *pix);
extern char *pixGetText(struct Pix *pix);
extern struct Pix *pixCreate(int width, int height, int depth);
extern struct Pix *pixCreateTemplate(const struct Pix *pixs);
extern void pixDestroy(struct Pix **pix);
extern int pixCopyInputFormat(struct Pix *pixd, const struct Pix *pixs);
extern int pixCopyResolution(struct Pix *pixd, const struct Pix *pixs);
extern int pixCopyText(struct Pix *pixd, const struct Pix *pixs);
extern int pixScaleResolution(struct Pix *pix, float xscale, float yscale);
extern struct Pix *pixScaleAreaMap(struct Pix *pix, float scalex, float scaley);
extern struct Pix *pixScale(struct Pix *pix, float scalex, float scaley);
extern struct Pix *pixUnsharpMasking(struct Pix *pix, int halfwidth, float fract);
extern struct Pix *pixScaleGrayLI(struct Pix *pix, float scalex, float scaley);
extern struct Pix *pixUnsharpMaskingGray(struct Pix *pix, int halfwidth, float fract);
extern struct Pix *pixUnsharpMaskingGray2D(struct Pix *pix, int halfwidth, float fract);
extern int pixSetText(struct Pix *pix, const char *text);
extern char *getLeptonicaVersion(void);
extern struct Pix *pixCreateNoInit(int width, int height, int depth);
extern int pixSetPadBits(struct Pix *pix, int val);
extern int pixCopySpp(struct Pix *pixd, const struct Pix *pixs);
extern struct Pix *pixRotate(struct Pix *pixs, float angle, int type, int incolor, int width, int height);
extern struct Pix *pixEmbedForRotation(struct Pix *pixs, float angle, int incolor, int width, int height);
struct Numa;
extern struct Numa *numaContrastTRC(float factor);
extern int numaGetIValue(struct Numa *na, int index, int *pival);
extern void numaDestroy(struct Numa **pna);
extern struct Numa *numaCreate(int n);
extern int numaSetCount(struct Numa *na, int newcount);
extern float *numaGetFArray(struct Numa *na, int copyflag);

/// What `same_picture` compares beside the size, depth and every word (padding included).
enum { same_resolution = 1, same_input_format = 2, same_text = 4 };

/// Whether two pictures are the same (both NULL counts as the same): the self-checks' and
/// probes' comparison of the executable's result with the library's.
static inline bool same_picture(struct Pix *a, struct Pix *b, int also) {
    if (!a || !b) return a == b;
    const int h = pixGetHeight(a), wpl = pixGetWpl(a);
    if (pixGetWidth(a) != pixGetWidth(b) || h != pixGetHeight(b) || pixGetDepth(a) != pixGetDepth(b) || wpl != pixGetWpl(b))
        return false;
    if ((also & same_resolution) && (pixGetXRes(a) != pixGetXRes(b) || pixGetYRes(a) != pixGetYRes(b))) return false;
    if ((also & same_input_format) && pixGetInputFormat(a) != pixGetInputFormat(b)) return false;
    if (also & same_text) {
        const char *ta = pixGetText(a), *tb = pixGetText(b);
        if ((ta == NULL) != (tb == NULL) || (ta && strcmp(ta, tb) != 0)) return false;
    }
    return memcmp(pixGetData(a), pixGetData(b), sizeof(uint32_t) * (size_t)wpl * (size_t)h) == 0;
}

/// A function compiled twice, for AVX2 and for any x86-64, the processor's chosen at load time
/// (the same operations either way; the AVX2 copy does eight floats or four doubles a step).
#if defined(__x86_64__)
#define CLONED __attribute__((target_clones("avx2", "default")))
#else
#define CLONED
#endif

/// Byte `n` of an 8-bit picture's row: Leptonica keeps 32-bit words, most significant byte first.
static inline uint8_t byte_at(const uint32_t *line, int n) { return (uint8_t)(line[n >> 2] >> (8 * (3 - (n & 3)))); }
static inline void set_byte(uint32_t *line, int n, uint8_t v) { ((uint8_t *)line)[n ^ 3] = v; }

#endif
