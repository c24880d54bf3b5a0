#ifndef SHELFSCAN_ROTATEAM_H
#define SHELFSCAN_ROTATEAM_H

/// Leptonica's rotation of an 8-bit gray picture by area mapping (`pixRotateAMGray`: each
/// output pixel from the four source pixels around where it comes from, in sixteenths), sixteen
/// pixels at a time with AVX-512 (the source pixels gathered): leaning spines' crops turned
/// upright are 10% of a real shelf photo's CPU, one pixel at a time in the library. The same
/// arithmetic: the source position in single-precision floats operation by operation (the
/// library's sine and cosine from the same `sincos`), truncated, split into whole pixels and
/// sixteenths, the same integer weights and rounding; the same pixels.
///
/// `rotateam.c` defines `pixRotateAMGray` in the executable (exported, see Package.swift), so
/// Leptonica's `pixRotate` and `pixRotateAM` reach it. It does the work only with Leptonica
/// 1.82.0 whose `pixRotateAMGray` is Debian 12's, byte for byte (its arithmetic was read off
/// that machine code), on a processor with AVX2 (8 pixels at a time; 16 with AVX-512 F, BW and
/// VL, unless `SHELFSCAN_SIMD=avx2`), for turns of 0.01 radian or more;
/// the library's runs otherwise, or with `SHELFSCAN_ROTATE_AM=off`. Its first 8 rotations are
/// computed both ways and compared; one difference hands every later one to the library.

struct Pix;

/// Leptonica's `pixRotate(pixs, angle, L_ROTATE_AREA_MAP, L_BRING_IN_WHITE, w, h)` (the
/// picture on a white canvas that holds any turn of it, turned by area mapping): for an 8-bit
/// picture without colormap, where the rotations above run here with AVX2 alone, the canvas is
/// made directly in the order the AVX2 turn reads (pixel x of a row at byte x) instead of as a
/// Leptonica picture (`pixEmbedForRotation`: made, whitened, the picture copied in) that the
/// turn then copies again: the same size, pixels, resolution and text. Everything else, and
/// turns under 0.01 radian, is `pixRotate`'s. Its first 8 results are computed both ways and
/// compared (counted with the rotations' self-checks); one difference hands every later turn
/// to the library.
struct Pix *shelfscan_rotate_white(struct Pix *pixs, float angle);

/// 0 before the first rotation decided, 1 when rotations run here, 2 when in the library.
int shelfscan_rotate_am_state(void);

/// Makes rotations run here (`on` 1, where the checks passed) or in the library (0); returns
/// the state then. For tests.
int shelfscan_rotate_am_use(int on);

/// Rotations compared both ways by the self-check so far, and how many differed.
void shelfscan_rotate_am_checked(long *rotations, long *differed);

/// Rotates `trials` random gray pictures (up to 300 x 300, random turns, grays and ground)
/// here and in the library and returns how many results differed in any pixel (padding bytes
/// included); -1 where this code cannot run.
long shelfscan_rotate_am_compare(int trials, unsigned seed);

struct Pix;

/// Leptonica's `pixScaleAreaMap` (each output pixel the average of the source pixels it covers,
/// in sixteenths of a pixel), for 8-bit gray pictures without colormap and factors from 0.02
/// to under 0.7 other than its 2x cascades, computed row sums first (`areamap.c`): every output
/// pixel's weights are a column weight times a row weight, so each source row is summed across
/// the output columns once and those sums down the output rows, instead of the library's
/// walk over every covered source pixel for each output pixel (6% of a 12 MP shelf photo's
/// CPU). Integer sums in another order: the same totals, the same rounding, the same pixels,
/// resolution and input format. Other pictures and factors, and with
/// `SHELFSCAN_SCALE_AREA=off`, go to the library's.
///
/// scale.c defines `pixScaleAreaMap` itself in the executable (exported, see Package.swift),
/// with `pixScaleGrayLI` (the interpolation below) and `pixUnsharpMaskingGray2D` (the unsharp
/// mask of half width 1 or 2, sharpen.c: the same float operations on exact integer sums), so
/// that Leptonica's `pixScale` (Tesseract's scaling of every line picture to the model's
/// height, `ImageData::PreScale`) reaches them for its steps; each hands other cases on to the
/// library's own (found past the executable, `dlsym(RTLD_NEXT)`). The first 8 results of each
/// are computed both ways and compared; one difference hands every later one to the library.
struct Pix *shelfscan_scale_area_map(struct Pix *pix, float scalex, float scaley);

/// Leptonica's `pixScale` of an 8-bit gray picture without colormap by factors from 0.7 up
/// (pixScaleGeneral: pixScaleGrayLI's interpolation of the four source pixels around each
/// output pixel's position, in sixteenths, then its unsharp masking below 1.4), the
/// interpolation done rows first: each output row's two source rows mixed by their row weights
/// once, every column at once, then each pixel's two columns of that (the weights are a column
/// weight times a row weight). The same integers, the same pixels, and the same sharpening
/// (the executable's `pixUnsharpMaskingGray2D`). Its 1x, 2x and 4x shortcuts, other pictures
/// and smaller factors go to `pixScale` itself. Shares `shelfscan_scale_area_map`'s switch and
/// self-check (its own first 8 results compared with `pixScale`'s).
struct Pix *shelfscan_scale(struct Pix *pix, float scalex, float scaley);

/// Leptonica's own `pixUnsharpMaskingGray` (its 2D unsharp mask of half width 1 or 2 taken
/// past the executable's), for comparisons and `SHELFSCAN_CONTRAST_SHARPEN=library`.
struct Pix *shelfscan_library_unsharp(struct Pix *pix, int halfwidth, float fract);

/// 1 when scalings (area map and interpolation) run here, 2 when in the library.
int shelfscan_scale_area_state(void);

/// Makes scalings run here (`on` 1, unless a self-check differed) or in the library (0);
/// returns the state then. For tests.
int shelfscan_scale_area_use(int on);

/// How many area maps, interpolations and unsharp masks the exported steps made here so far
/// (whoever called them: the executable, Leptonica's `pixScale`, Tesseract).
long shelfscan_scale_steps_here(void);

/// Scalings compared both ways by the self-check so far, and how many differed.
void shelfscan_scale_area_checked(long *scalings, long *differed);

/// Scales `trials` random gray pictures (noise, gradients, checks; up to 1200 x 300, some with
/// a resolution or a text) here and in the library, by random factors under 0.7 (area map)
/// and from 0.7 to 4.5 (interpolation, then `pixScale` whole), and sharpens each (half width 1
/// or 2, random fractions) both ways; returns how many differed, -1 where the library's own
/// functions were not found.
long shelfscan_scale_area_compare(int trials, unsigned seed);

/// Sauvola binarisation of an 8-bit picture (`pixels`, `w` x `h`, row after row) and of its
/// inverse at once, bit for bit as `PixImage.sauvolaBoth`'s Swift loops (which are Leptonica's
/// `pixSauvolaBinarize` with a mirrored border): window `2 wc + 1` square, the means' float
/// and double norms, `k`. Eight pixels at a time with AVX2: the same integer window sums, the
/// same conversions, square roots, products and quotients lane by lane. Writes the set bits
/// (1 dark) into `dark` and `light` (`wpl` words a row, zeroed) and returns 0; -1 where it
/// cannot run (no AVX2, `SHELFSCAN_SAUVOLA_SIMD=off`, windows over 4,000 pixels across).
/// Windows over 181 pixels across (sums of squares past 2^31) keep their squares' table in 64
/// bits, as the Swift loops do.
int shelfscan_sauvola_both(const unsigned char *pixels, int w, int h, int wc, float meanNorm, double squareNorm, double k,
                           unsigned int *dark, unsigned int *light, int wpl);

/// Leptonica's `pixSauvolaBinarizeTiled(pixs, whsize, factor, nx, ny, &pixth, &pixd)`, defined in the executable (exported: Tesseract's local
/// threshold, `thresholding_method` 2, reaches it for every picture read so): the thresholds
/// and the binary picture computed as `shelfscan_sauvola_both` computes its dark one (window
/// sums from summed-area tables over the mirrored border, eight pixels at a time, the same
/// conversions and float and double operations), the thresholds kept as an 8-bit picture. The
/// tiles Leptonica cuts overlap by the window and mirror the picture's own edges, so each
/// pixel's window holds the same pixels either way: the whole picture is done at once, and only
/// the binary picture's resolution follows the tiling (the source's when Leptonica would not
/// tile, none when it would). Only with Leptonica 1.82.0 and AVX2, after a probe (12 random
/// pictures, windows, factors and tilings through both), for 8-bit pictures without colormap
/// with both outputs asked for; the first 8 calls are computed both ways and compared (the
/// library's result stands; a difference hands every later call to the library);
/// `SHELFSCAN_TESSERACT_SAUVOLA=library` leaves it to the library. (Not declared here: Swift
/// sees Leptonica's own declaration.)

/// 1 where the executable's `pixSauvolaBinarizeTiled` runs, 2 where the library's does.
int shelfscan_tesseract_sauvola_state(void);

/// `trials` random pictures through the executable's and the library's
/// `pixSauvolaBinarizeTiled`: how many differed (in size, resolution or any pixel); -1 where the
/// executable's cannot run (no AVX2, another Leptonica).
long shelfscan_tesseract_sauvola_compare(int trials, unsigned seed);

/// Self-checks so far on real pictures, and how many differed.
void shelfscan_tesseract_sauvola_checked(long *checked, long *differed);

/// Leptonica's `pixSetMasked`, defined in the executable (exported: Leptonica's own
/// `pixDistanceFunction` and Tesseract's calls reach it): for an 8-bit picture without
/// colormap, a 1-bit mask of its size and a value other than 0 and 255 (Tesseract's stroke
/// width of every blob: 1.4% of a shelf photo's CPU), each masked pixel set a mask word at a
/// time, words without a set bit skipped; every other call goes on to the library's. Only over
/// Leptonica 1.82.0 and after a probe that agrees; `SHELFSCAN_SET_MASKED=off` for the library's.
/// The same file defines `pixDistanceFunction` (exported too; Tesseract calls it for each blob):
/// for a 1-bit blob, 4-connected, 8-bit out, background outside, the mask painted as above and
/// Leptonica's two scans with the neighbour just written kept in a register, no branch per
/// pixel; other arguments go to the library's. Same switch, same probe (random blobs both ways).
int shelfscan_set_masked_state(void);
int shelfscan_set_masked_use(int on);
/// Random masks and pictures through both; how many results differed (-1: not Leptonica 1.82.0).
long shelfscan_set_masked_compare(int trials, unsigned seed);

/// Leptonica's `pixConvertRGBToLuminance` (`pixConvertRGBToGray` with its default weights: 0.3
/// red, 0.5 green, 0.2 blue, summed in single precision, plus 0.5 in double, truncated) and
/// `pixConvertRGBToGrayMinMax(pixs, L_CHOOSE_MIN)` (each pixel's darkest channel) of a 32-bit
/// picture, eight pixels at a time with AVX2: the same operations lane by lane, the same bytes,
/// resolution and input format. The whole photo's two grays, made while the other worker
/// waits (`PixImage.grayCrop`). NULL without AVX2 or for other pictures (the caller asks
/// Leptonica).
struct Pix *shelfscan_rgb_luminance(struct Pix *pixs);
struct Pix *shelfscan_rgb_darkest(struct Pix *pixs);

/// Leptonica's `pixRotate90(pixs, direction)` (1 clockwise, -1 counter-clockwise) of an 8-bit
/// picture without colormap: the same bytes (padding zero), resolution, input format and
/// samples per pixel, a 4 x 4 block of pixels at a time (one byte shuffle) instead of a pixel at
/// a time down the source's columns. NULL elsewhere (the caller asks Leptonica).
struct Pix *shelfscan_rotate90(struct Pix *pixs, int direction);

/// Leptonica's `pixClipRectangle` of an 8- or 32-bit picture without colormap to a box inside
/// it (`x`, `y`, `w`, `h`): the same words, padding zero, resolution and text, each row copied
/// whole (8-bit: two source words shifted together per word where the box starts inside a
/// word) into a picture not cleared first, instead of cleared and then written by the general
/// rasterop. NULL elsewhere (the caller asks Leptonica).
struct Pix *shelfscan_crop(struct Pix *pixs, int x, int y, int w, int h);

struct Numa;

/// Leptonica's `pixGetGrayHistogram(pix, 1)` of an 8-bit picture without colormap under 2^24
/// pixels (where its float counts are exact): the same counts, taken as integers in four tables
/// a word at a time instead of a float added to per pixel. NULL elsewhere (the caller asks
/// Leptonica).
struct Numa *shelfscan_gray_histogram(struct Pix *pix);

/// Leptonica's `pixUnsharpMaskingGray(pixContrastTRC(NULL, pixMaxDynamicRange(pixs,
/// L_LINEAR_SCALE), contrast), 2, fract)` in one go, pixel for pixel the same (the same float
/// and double operations, never fused), without the three images and the float image between:
/// the barcode reader's contrast remedy. `contrast` 0: `pixUnsharpMaskingGray(pixs, 2, fract)`
/// alone. NULL where it does not apply (not 8-bit gray, a colormap, smaller than 5x5, all
/// black with a contrast, a factor below 0): the caller runs Leptonica's.
struct Pix *shelfscan_contrast_sharpen(struct Pix *pixs, float contrast, float fract);

#endif
