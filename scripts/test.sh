#!/usr/bin/env bash
# The whole test suite: the accuracy gates on the corpora (release build), then the unit and
# integration tests (Swift Testing), whose summary closes the output.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release
scripts/accuracy-gates.sh
swift build --build-tests
# The catalogue-client suites (HTTP on 127.0.0.1, with retry waits and timeouts they time) run
# first, on their own: alongside the OCR and barcode tests, Swift concurrency's two-thread pool
# can be held for tens of seconds, and a 1 s retry wait once took 31 s.
network='ShelfScanKitTests\.(LibraryEnricherTests|MetadataClientTests|MetadataServiceTests|RecordedResponseTests|MetadataCLITests)'
swift test --skip-build --filter "$network"
swift test --skip-build --skip "$network"
