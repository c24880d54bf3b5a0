#!/usr/bin/env bash
# Installs shelfscan under PREFIX (default /usr/local): the release build as PREFIX/bin/shelfscan
# and both its models in PREFIX/share/shelfscan/Models, where the installed binary looks for
# them (a binary copied alone finds only Debian's fast model, and misses the second reading).
#   scripts/install.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-/usr/local}
swift build -c release --product shelfscan
sudo=""
mkdir -p "$prefix" 2>/dev/null || true
if [ ! -w "$prefix" ] && [ "$(id -u)" != 0 ]; then sudo=sudo; fi
$sudo install -d "$prefix/bin" "$prefix/share/shelfscan/Models"
$sudo install -m 755 .build/release/shelfscan "$prefix/bin/shelfscan"
$sudo install -m 644 Models/*.traineddata Models/README.md "$prefix/share/shelfscan/Models/"
echo "installed $prefix/bin/shelfscan, models in $prefix/share/shelfscan/Models"
