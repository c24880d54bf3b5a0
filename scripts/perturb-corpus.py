#!/usr/bin/env python3
"""Copy a labelled photo folder (one with a truth.jsonl) elsewhere, each photo slightly changed.

    python3 scripts/perturb-corpus.py ../shared/corpora/shelves /tmp/shelves-q92 --quality 92
    python3 scripts/perturb-corpus.py ../shared/corpora/shelves /tmp/shelves-s85 --scale 0.85
    shelfscan eval /tmp/shelves-q92 --catalog ...

A photo saved again as JPEG (or scaled as by another camera) holds the same books, but
Tesseract reads its marginal spines differently: how far `shelfscan eval` moves on such copies
tells a change that finds books from one that only moves them between runs of the lottery
(README, Accuracy, thirty-sixth session). The copies go outside the repository: the corpora are
never copied into it. Needs Pillow.
"""
import argparse
import json
import os
import shutil
import sys

from PIL import Image, ImageOps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="folder with truth.jsonl and the photos it names")
    parser.add_argument("target", help="folder to write (created; must not be inside the repository)")
    parser.add_argument("--quality", type=int, default=92, help="JPEG quality of the copies (default 92)")
    parser.add_argument("--scale", type=float, default=1.0, help="scale factor, Lanczos (default 1: size kept)")
    args = parser.parse_args()

    truth = os.path.join(args.source, "truth.jsonl")
    if not os.path.isfile(truth):
        print(f"perturb-corpus: {truth}: no such file; pass a folder with a truth.jsonl", file=sys.stderr)
        return 1
    os.makedirs(args.target, exist_ok=True)
    shutil.copy(truth, os.path.join(args.target, "truth.jsonl"))
    count, failed = 0, 0
    with open(truth, encoding="utf-8") as lines:
        for line in lines:
            if not line.strip():
                continue
            name = json.loads(line)["image"]
            out = os.path.join(args.target, name)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            # EXIF orientation applied, so the copy stands as the original is seen.
            try:
                image = ImageOps.exif_transpose(Image.open(os.path.join(args.source, name))).convert("RGB")
            except (OSError, ValueError) as error:
                print(f"perturb-corpus: {os.path.join(args.source, name)}: cannot be read ({error}); skipped",
                      file=sys.stderr)
                failed += 1
                continue
            if args.scale != 1.0:
                width, height = image.size
                image = image.resize((round(width * args.scale), round(height * args.scale)), Image.LANCZOS)
            image.save(out, "JPEG", quality=args.quality)
            count += 1
    print(f"perturb-corpus: {count} photos written to {args.target}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
