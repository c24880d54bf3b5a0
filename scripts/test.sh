#!/usr/bin/env bash
# The whole test suite: the accuracy gates on the corpora (release build), then the unit and
# integration tests (Swift Testing), whose summary closes the output.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release
scripts/accuracy-gates.sh
swift test
