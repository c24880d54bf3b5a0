#ifndef SHELFSCAN_STROKES_H
#define SHELFSCAN_STROKES_H

/// `tesseract::SetBlobStrokeWidth`, defined again in the executable (exported, see
/// Package.swift's `interposed`; `assign_blobs_to_blocks2` calls it through libtesseract's
/// procedure linkage table for every blob of every picture read): a distance transform of
/// each blob, for its horizontal and vertical stroke widths. While
/// `shelfscan_stroke_widths_unneeded(1)` holds on the calling thread (around readings whose
/// page layout never reads the widths), it returns at once, the widths left at the zero the
/// blob was made with; otherwise it goes on to the library's.

/// Skip (1) or measure (0) blobs' stroke widths in readings on this thread from now on.
void shelfscan_stroke_widths_unneeded(int on);

/// Blobs whose widths were skipped and measured so far (for tests).
void shelfscan_stroke_widths_counts(long *skipped, long *measured);

/// `tesseract::TO_BLOCK::ComputeEdgeOffsets`, likewise (the page layout calls it through the
/// procedure linkage table for every block of every picture read): each blob outline's
/// sub-pixel edge offsets from the gray picture. Only the legacy classifier's features (through
/// `TBLOB::CollectEdges`) and debugging pictures read them. While
/// `shelfscan_edge_offsets_unneeded(1)` holds on the calling thread (around readings of an
/// engine Tesseract runs with the LSTM alone), it returns at once, the outlines left without
/// offsets; otherwise it goes on to the library's.

/// Skip (1) or compute (0) outlines' edge offsets in readings on this thread from now on.
void shelfscan_edge_offsets_unneeded(int on);

/// Blocks whose edge offsets were skipped and computed so far (for tests).
void shelfscan_edge_offsets_counts(long *skipped, long *computed);

#endif
