#ifndef SHELFSCAN_FASTPNG_H
#define SHELFSCAN_FASTPNG_H

/// While on (per thread), PNG images written in memory are stored uncompressed and unfiltered.
///
/// Tesseract hands each text line to its LSTM recogniser as a PNG written and read back in
/// memory (`ImageData::SetPix`, then `ImageData::PreScale`), at zlib's default level: on spine
/// crops that round trip took a tenth of the OCR time. `fastpng.c` defines
/// `png_set_compression_level` in the executable, so Leptonica's PNG writer calls it instead of
/// libpng's; while the flag is on, it asks libpng for level 0 and no row filter, and otherwise
/// passes the level through. Where the executable does not export the symbol (another linker),
/// nothing changes but the speed.
void shelfscan_fast_png(int on);

/// 1 when this process's PNG writes go through `fastpng.c` (the interposition took), else 0.
int shelfscan_fast_png_active(void);

#endif
