#!/usr/bin/env python3
"""Import throughput, release build, offline.

Usage: python3 scripts/bench-import.py

- Images: a folder of 1,000 barcode photos: the real phone photos of ../shared/corpora/barcodes
  (414, read and copied into a temporary folder with a few bytes appended so every file is new
  to the import), or SampleImages when ../shared is absent; `shelfscan import DIR --offline`.
- Lines: 100,000 valid ISBN-13 lines piped into `shelfscan import - --offline`.
Prints a Markdown table. Nothing is written into the repository.
"""
import os, shutil, subprocess, sys, tempfile, time

BIN = os.path.abspath(".build/release/shelfscan")
ENV = dict(os.environ, OMP_THREAD_LIMIT="1", SHELFSCAN_OFFLINE="1")


def check13(body):
    s = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
    return body + str((10 - s % 10) % 10)


def main():
    tmp = tempfile.mkdtemp()
    source = "../shared/corpora/barcodes"
    if not os.path.isdir(source):
        source = "SampleImages/barcodes"
    photos = []
    for root, _, files in os.walk(source):
        photos += [os.path.join(root, f) for f in sorted(files) if f.lower().endswith((".png", ".jpg", ".jpeg", ".gif"))]
    folder = os.path.join(tmp, "photos")
    os.makedirs(folder)
    for i in range(1000):
        src = photos[i % len(photos)]
        with open(src, "rb") as f:
            data = f.read()
        with open(os.path.join(folder, f"{i:04d}{os.path.splitext(src)[1]}"), "wb") as f:
            f.write(data + b"\0" * (i // len(photos)))
    t = time.perf_counter()
    subprocess.run([BIN, "import", folder, "--offline", "--library", os.path.join(tmp, "a.sqlite")],
                   env=ENV, stdout=subprocess.DEVNULL, check=False)
    images = time.perf_counter() - t

    lines = "\n".join(check13("978" + f"{i:09d}") for i in range(100_000)) + "\n"
    t = time.perf_counter()
    subprocess.run([BIN, "import", "-", "--offline", "--library", os.path.join(tmp, "b.sqlite")],
                   input=lines.encode(), env=ENV, stdout=subprocess.DEVNULL, check=False)
    piped = time.perf_counter() - t
    shutil.rmtree(tmp)
    print(f"Machine: {os.cpu_count()} cores; release build; offline; source photos: {source} ({len(photos)} distinct).\n")
    print("| import | items | seconds | per second | target |")
    print("|---|---:|---:|---:|---:|")
    print(f"| barcode photos (folder) | 1000 | {images:.2f} | {1000 / images:.0f} | > 40 |")
    print(f"| ISBN lines (standard input) | 100000 | {piped:.2f} | {100000 / piped:.0f} | > 5000 |")


if __name__ == "__main__":
    main()
