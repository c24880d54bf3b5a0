#!/usr/bin/env bash
# Accuracy floors: `shelfscan eval` exits non-zero when a figure falls below its floor.
# Floors sit a little below the figures measured when they were set (see README, Accuracy).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release/shelfscan
echo "== eval SampleImages"
$bin eval SampleImages --min-barcode-rate 0.82 --max-misreads 0 --max-false-positives 0 --min-recall 0.93 --max-invented 0.1
if [ -d ../shared/corpora/barcodes ]; then
    echo "== eval ../shared/corpora/barcodes"
    $bin eval ../shared/corpora/barcodes --min-barcode-rate 0.78 --max-misreads 0 --max-false-positives 0
else
    echo "skipping ../shared/corpora/barcodes: ../shared is absent"
fi
if [ -d ../shared/corpora/shelves ]; then
    # Matched against the corpus's labelled books plus both reference catalogues (25,142
    # distractors), as a user with a catalogue loaded would be.
    echo "== eval ../shared/corpora/shelves"
    $bin eval ../shared/corpora/shelves --catalog ../shared/corpora/catalog/goodbooks-10k_isbn_normalized.csv \
        --catalog ../shared/corpora/catalog/library-dataset_library_books.csv --min-recall 0.62 --max-invented 0.5 --max-unconfirmed 1.0
else
    echo "skipping ../shared/corpora/shelves: ../shared is absent"
fi
