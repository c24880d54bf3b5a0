#!/usr/bin/env bash
# One command from a fresh Debian 12 machine: install what is missing, build in release mode,
# scan a sample image.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release
.build/release/shelfscan SampleImages/barcodes/isbn-odyssey-ean5-clean.png
