#!/usr/bin/env bash
# The speed table of the README (Performance): release build, the 12-megapixel benchmark shelf rendered
# by the sample generator (needs python3 with Pillow and NumPy, and the fonts it names), then
# `shelfscan bench`, which prints Markdown and writes bench.json. Arguments go to `shelfscan bench`
# (e.g. --runs 3, --no-peers).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release
big="${TMPDIR:-/tmp}/shelfscan-big-shelf.jpg"
if [ ! -f "$big" ]; then
    python3 scripts/make-sample-images.py --big-shelf "$big" > "${big%.jpg}.jsonl"
fi
.build/release/shelfscan bench --big-shelf "$big" --json bench.json "$@"
