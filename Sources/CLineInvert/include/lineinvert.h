#ifndef SHELFSCAN_LINEINVERT_H
#define SHELFSCAN_LINEINVERT_H

/// Tesseract's second, inverted reading of an unsure text line, skipped where it cannot help.
///
/// Tesseract reads nearly every line of a shelf photo a second time inverted
/// (`tessedit_do_invert`), for light letters on a dark ground: nearly a third of the CPU, much
/// of it on lines of dark letters on a light ground. (Measured and left off by default: the
/// same books on the real shelves, three fewer on their copies scaled to 85%.) Turned off for a whole crop it loses the light
/// letters on a light spine's dark band, so it is decided line by line: `lineinvert.c` defines
/// Leptonica's `pixWriteMem` in the executable, which Tesseract calls with each line's picture
/// just before reading it (`ImageData::SetPix`); while a reading is gated (per thread), a line
/// whose picture is clearly dark letters on a light ground (`shelfscan_line_dark_on_light`) is
/// read with `tessedit_do_invert` off, any other line with it on. `pixInvert` is defined there
/// too, to count the inverted readings Tesseract runs. Where the executable does not export the
/// symbols, nothing changes but the speed.
///
/// `api` is the `TessBaseAPI *` about to recognise; `gate` 0 counts only.
void shelfscan_line_invert_begin(void *api, int gate);
/// Ends the reading begun on this thread, leaving `tessedit_do_invert` on.
void shelfscan_line_invert_end(void);

/// This thread's counts since it started: lines Tesseract read, lines read without the
/// inverted reading, inverted readings Tesseract ran.
void shelfscan_line_invert_counts(long *lines, long *gated, long *inverted);

/// 1 when this process's line pictures go through `lineinvert.c` (the interposition took).
int shelfscan_line_invert_active(void);

/// 1 when an 8-bit gray picture (a Leptonica `PIX *`) is clearly dark letters on a light
/// ground, else 0: Otsu's two classes at least `contrast` grays apart, the darker at most
/// `ink_share` of the pixels, at most `stray` of them lighter than the ground's commonest gray
/// by more than `step` (light letters of their own), and the darker class strokes, not a band
/// (at most `solid` of it in squares a fifth of the line's height wholly dark).
int shelfscan_line_dark_on_light(void *pix);

#endif
