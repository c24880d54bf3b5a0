#!/usr/bin/env bash
# Installs the Debian packages shelfscan needs, when any is missing (sudo when not root).
set -euo pipefail
packages=(pkg-config libtesseract-dev libleptonica-dev libzbar-dev libsqlite3-dev libcurl4-openssl-dev
          tesseract-ocr-eng tesseract-ocr zbar-tools ffmpeg)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
