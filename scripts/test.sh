#!/usr/bin/env bash
# The whole test suite: unit and integration tests, then the accuracy gates on the corpora.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release
swift test --parallel
scripts/accuracy-gates.sh
