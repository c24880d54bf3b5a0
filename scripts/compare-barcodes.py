#!/usr/bin/env python3
"""Per-set barcode accuracy of shelfscan next to zbarimg, on the same images in the same run.

Usage: python3 scripts/compare-barcodes.py DIR   (DIR holds truth.jsonl; release build needed)

Runs `shelfscan eval DIR --json` and `scripts/zbarimg-baseline.py DIR --json`, and prints one
Markdown table: main codes decoded, book ISBNs decoded, wrong codes and false positives per set.
"""
import json, os, subprocess, sys, tempfile

d = sys.argv[1]
tmp = tempfile.mkdtemp()
ours_path, peer_path = os.path.join(tmp, "ours.json"), os.path.join(tmp, "peer.json")
subprocess.run([".build/release/shelfscan", "eval", d, "--json", ours_path], check=True, stdout=subprocess.DEVNULL)
subprocess.run([sys.executable, "scripts/zbarimg-baseline.py", d, "--json", peer_path], check=True, stdout=subprocess.DEVNULL)
ours, peer = json.load(open(ours_path)), json.load(open(peer_path))

print("| set | images | main codes: shelfscan | zbarimg | ISBNs: shelfscan | zbarimg | wrong codes: shelfscan | zbarimg | false positives: shelfscan | zbarimg |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def row(name, o, p):
    def frac(a, b):
        return f"{a}/{b}" if b else "-"
    print(f"| {name} | {o['images']} | {frac(o['correctMain'], o['expectedMain'])} | {frac(p['correct_main'], p['expected_main'])} "
          f"| {frac(o['correctISBNs'], o['expectedISBNs'])} | {frac(p['isbn_correct'], p['isbn_expected'])} "
          f"| {o['misreads']} | {p['misreads']} | {o['falsePositives']} | {p['fp_codes']} |")


for name in sorted(ours["sets"]):
    row(name, ours["sets"][name], peer["sets"][name])
row("**total**", ours["total"], peer["total"])
