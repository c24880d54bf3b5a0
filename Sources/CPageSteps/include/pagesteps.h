#ifndef SHELFSCAN_PAGESTEPS_H
#define SHELFSCAN_PAGESTEPS_H

/// Two of Tesseract's steps before recognition, defined again in the executable (it exports
/// them, see Package.swift's `interposed`; libtesseract calls both through its procedure
/// linkage table), where the library's cost several times the work they do:
///
/// - `tesseract::HistogramRect`: the gray histogram of a picture's rectangle for Otsu's
///   threshold, every picture read (2% of a shelf photo's CPU). The library adds each pixel to
///   one histogram: a white ground adds to one count again and again, each addition waiting for
///   the last. Here four histograms take turns (summed at the end): the same counts.
/// - `tesseract::ImageThresholder::ThresholdRectToPix`: that threshold applied, pixel by pixel
///   through the channel loop and a branch per pixel there (1.5%); here gray pictures (one
///   channel) go without branches, 32 pixels to a word. The same bits.
///
/// Only with libtesseract 5.3.0 whose two functions are Debian 12's byte for byte (hashes; their
/// arguments and `ImageThresholder`'s rectangle at 0x2c-0x38 were read off that machine code)
/// and a probe on random pictures that agrees; otherwise, or with `SHELFSCAN_PAGE_STEPS=off`,
/// each call goes on to the library's own.

/// 0 before the first call decided, 1 when the executable's do the work, 2 when the library's.
int shelfscan_page_steps_state(void);

/// Makes the executable's do the work (`on` 1, where the checks passed) or the library's (0);
/// returns the state then. For tests.
int shelfscan_page_steps_use(int on);

/// Runs `trials` random pictures and rectangles (gray and colour, odd offsets and widths)
/// through both and returns how many results differed (-1 where the library's cannot be
/// found or is not the one read).
long shelfscan_page_steps_compare(int trials, unsigned seed);

#endif
