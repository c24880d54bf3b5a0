#!/usr/bin/env python3
"""Barcode speed, release build, side by side with zbarimg on the same images in the same run.

Usage: python3 scripts/bench-barcodes.py [--runs N]

- 720p frames with a barcode (SampleImages/barcodes, 1280x720, the ones shelfscan decodes):
  in-process barcode-stage time per image (from `shelfscan --format jsonl` timings), median over
  runs; and whole-process wall time of `shelfscan` vs `zbarimg` on the same file.
- A photo with no barcode: the cost of all retry passes, on a 12-megapixel JPEG
  (../shared/corpora/shelves/freegle/chris1.jpg when present, else a 12 MP image made from a
  SampleImages picture).
Prints a Markdown table.
"""
import json, os, statistics, subprocess, sys, time, tempfile

RUNS = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
BIN = ".build/release/shelfscan"
ENV = dict(os.environ, OMP_THREAD_LIMIT="1")


def scan(paths, extra=()):
    out = subprocess.run([BIN, "-f", "jsonl", "-j", "1", *extra, *paths], capture_output=True, text=True, env=ENV).stdout
    return [json.loads(line) for line in out.splitlines()]


def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, capture_output=True, env=ENV)
    return (time.perf_counter() - t) * 1000


def main():
    truth = [json.loads(l) for l in open("SampleImages/truth.jsonl")]
    p720 = []
    for r in truth:
        path = "SampleImages/" + r["image"]
        if r["barcodes"] and "x720" not in path:
            p720.append(path)
    # keep 1280x720 images whose code shelfscan finds
    first = scan(p720)
    p720 = [d["image"] for d in first if d["width"] == 1280 and d["height"] == 720 and d["barcodes"]]
    stage, decode = {p: [] for p in p720}, {p: [] for p in p720}
    for _ in range(RUNS):
        for d in scan(p720):
            stage[d["image"]].append(d["timings"]["barcodes"])
            decode[d["image"]].append(d["timings"]["decode"])
    med_stage = statistics.median(statistics.median(v) for v in stage.values())
    med_first = statistics.median(statistics.median(v) for p, v in stage.items()
                                  if scan([p])[0]["barcodes"][0]["pass"] == "direct")
    ours_wall, zbar_wall = [], []
    for p in p720:
        ours_wall.append(statistics.median(wall([BIN, "-f", "jsonl", p]) for _ in range(RUNS)))
        zbar_wall.append(statistics.median(wall(["zbarimg", "-q", "--nodbus", p]) for _ in range(RUNS)))

    big = "../shared/corpora/shelves/freegle/chris1.jpg"
    if not os.path.exists(big):
        from PIL import Image
        big = os.path.join(tempfile.mkdtemp(), "none-12mp.jpg")
        Image.open("SampleImages/barcodes/none-photo-texture.jpg").resize((4032, 3024)).save(big, quality=90)
    nb = [scan([big])[0] for _ in range(RUNS)]
    nb_stage = statistics.median(d["timings"]["barcodes"] for d in nb)
    nb_decode = statistics.median(d["timings"]["decode"] for d in nb)
    passes = len(nb[0]["barcodes"]) == 0
    nb_ours = statistics.median(wall([BIN, "-f", "jsonl", big]) for _ in range(RUNS))
    nb_zbar = statistics.median(wall(["zbarimg", "-q", "--nodbus", big]) for _ in range(RUNS))

    cores = os.cpu_count()
    print(f"Machine: {cores} cores; release build; median of {RUNS} runs per image.\n")
    print("| measure | shelfscan | zbarimg | ratio |")
    print("|---|---:|---:|---:|")
    print(f"| barcode stage, 1280x720 with a barcode ({len(p720)} images), median | {med_stage:.1f} ms | | |")
    print(f"| barcode stage, 1280x720, found by the first pass, median | {med_first:.1f} ms | | |")
    print(f"| image decode, 1280x720 JPEG/PNG, median | {statistics.median(statistics.median(v) for v in decode.values()):.1f} ms | | |")
    print(f"| whole process, 1280x720 with a barcode, median | {statistics.median(ours_wall):.1f} ms | {statistics.median(zbar_wall):.1f} ms | {statistics.median(ours_wall)/statistics.median(zbar_wall):.2f} |")
    print(f"| barcode stage, 12 MP photo without barcode (all retries{'' if passes else ' - found a code!'}) | {nb_stage:.1f} ms | | |")
    print(f"| JPEG decode, 12 MP | {nb_decode:.1f} ms | | |")
    print(f"| whole process, 12 MP photo without barcode | {nb_ours:.1f} ms | {nb_zbar:.1f} ms | {nb_ours/nb_zbar:.2f} |")


if __name__ == "__main__":
    main()
