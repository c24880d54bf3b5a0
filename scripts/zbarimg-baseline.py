#!/usr/bin/env python3
"""Score the zbarimg CLI (ZBar) on an image folder that has a truth.jsonl.

    python3 scripts/zbarimg-baseline.py DIR [--json FILE] [--jobs N] [--details]

For each image in DIR/truth.jsonl this runs

    zbarimg -q --nodbus -Sean2.enable -Sean5.enable -Supca.enable -Supce.enable IMAGE

(--nodbus only silences ZBar's D-Bus connection attempt; it does not change decoding).
zbarimg prints one `TYPE:DATA` line per symbol, e.g. `EAN-13:9780735200449`,
`UPC-A:036000291452`, `UPC-E:01234565`, `EAN-8:12345670`, and add-ons as separate symbols
`EAN-5:51299` / `EAN-2:05`. Everything is normalised to the canonical form of the shared
TRUTH-FORMAT: EAN-13, UPC-A and UPC-E as 13 digits (UPC-A with a leading 0; UPC-E expanded to
UPC-A first), EAN-8 as 8 digits; add-ons are scored separately.

Scores per set (first folder of the image path) and in total:
  images, expected main codes, correct main codes, expected add-ons, correct add-ons,
  misreads (main codes reported on a barcode image that are not in its list),
  wrong add-ons (add-ons reported that are not in the list),
  false positives (images of kind "none" on which anything was reported, and the number of
  codes reported there), book ISBNs correct (expected main codes starting 978/979), and the
  median wall-clock time of one zbarimg process per image in ms.

Prints a Markdown table; --json FILE also writes the numbers. At most 2 zbarimg processes run
at once (--jobs 1 or 2).
"""

import argparse
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ZBARIMG = ["zbarimg", "-q", "--nodbus", "-Sean2.enable", "-Sean5.enable", "-Supca.enable",
           "-Supce.enable"]
ADDON_TYPES = {"EAN-2", "EAN-5"}


def gtin_check(data: str) -> str:
    s = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(data)))
    return str((10 - s % 10) % 10)


def upce_to_upca(code8: str) -> str:
    """8-digit UPC-E (number system, 6 digits, check) -> 12-digit UPC-A."""
    ns, d, chk = code8[0], code8[1:7], code8[7]
    last = d[5]
    if last in "012":
        body = d[0:2] + last + "0000" + d[2:5]
    elif last == "3":
        body = d[0:3] + "00000" + d[3:5]
    elif last == "4":
        body = d[0:4] + "00000" + d[4]
    else:
        body = d[0:5] + "0000" + last
    return ns + body + chk


def normalise(sym_type: str, data: str):
    """Return ('main'|'addon'|'other', canonical string)."""
    data = data.strip()
    if sym_type in ADDON_TYPES:
        return "addon", data
    if sym_type == "EAN-13":
        return "main", data
    if sym_type == "UPC-A":
        return "main", "0" + data if len(data) == 12 else data
    if sym_type == "UPC-E":
        if len(data) == 8 and data.isdigit():
            return "main", "0" + upce_to_upca(data)
        if len(data) == 7 and data.isdigit():  # without number system digit (NS 0 assumed)
            return "main", "0" + upce_to_upca("0" + data)
        return "main", data
    if sym_type == "EAN-8":
        return "main", data
    if sym_type in ("ISBN-13", "ISBN-10"):
        return "main", data
    return "other", f"{sym_type}:{data}"


def run_zbarimg(path: Path):
    t0 = time.perf_counter()
    proc = subprocess.run(ZBARIMG + [str(path)], capture_output=True, text=True,
                          errors="replace")
    ms = (time.perf_counter() - t0) * 1000.0
    symbols = []
    for line in proc.stdout.splitlines():
        if ":" not in line:
            continue
        sym_type, data = line.split(":", 1)
        symbols.append((sym_type, data))
    # zbarimg exits 0 when something was found, 4 when nothing was found
    error = proc.returncode not in (0, 4)
    return symbols, ms, error, proc.stderr.strip()


def score_image(rec, root: Path):
    path = root / rec["image"]
    symbols, ms, error, stderr = run_zbarimg(path)
    mains, addons, others = set(), set(), set()
    for t, d in symbols:
        kind, value = normalise(t, d)
        {"main": mains, "addon": addons, "other": others}[kind].add(value)
    exp_main, exp_addon = [], []
    for code in rec.get("barcodes", []):
        parts = code.split()
        exp_main.append(parts[0])
        if len(parts) > 1:
            exp_addon.append(parts[1])
    correct_main = [c for c in exp_main if c in mains]
    correct_addon = [a for a in exp_addon if a in addons]
    reported_main = mains | others  # any non-add-on symbol counts as a main code
    r = {
        "image": rec["image"],
        "set": rec["image"].split("/")[0] if "/" in rec["image"] else ".",
        "kind": rec.get("kind"),
        "reported": sorted(reported_main | addons),
        "expected": rec.get("barcodes", []),
        "expected_main": len(exp_main),
        "correct_main": len(correct_main),
        "expected_addon": len(exp_addon),
        "correct_addon": len(correct_addon),
        "isbn_expected": sum(1 for c in exp_main if c[:3] in ("978", "979")),
        "isbn_correct": sum(1 for c in correct_main if c[:3] in ("978", "979")),
        "ms": ms,
        "error": stderr if error else None,
    }
    if rec.get("kind") == "none":
        r["misreads"] = 0
        r["wrong_addons"] = 0
        r["fp_codes"] = len(reported_main | addons)
    else:
        r["misreads"] = len(reported_main - set(exp_main))
        r["wrong_addons"] = len(addons - set(exp_addon))
        r["fp_codes"] = 0
    return r


def aggregate(rows):
    none_rows = [r for r in rows if r["kind"] == "none"]
    return {
        "images": len(rows),
        "expected_main": sum(r["expected_main"] for r in rows),
        "correct_main": sum(r["correct_main"] for r in rows),
        "expected_addon": sum(r["expected_addon"] for r in rows),
        "correct_addon": sum(r["correct_addon"] for r in rows),
        "misreads": sum(r["misreads"] for r in rows),
        "wrong_addons": sum(r["wrong_addons"] for r in rows),
        "none_images": len(none_rows),
        "fp_images": sum(1 for r in none_rows if r["fp_codes"]),
        "fp_codes": sum(r["fp_codes"] for r in none_rows),
        "isbn_expected": sum(r["isbn_expected"] for r in rows),
        "isbn_correct": sum(r["isbn_correct"] for r in rows),
        "median_ms": round(statistics.median(r["ms"] for r in rows), 1) if rows else None,
        "errors": sum(1 for r in rows if r["error"]),
    }


def pct(a, b):
    return f"{a}/{b} ({100.0 * a / b:.0f}%)" if b else "-"


def markdown(per_set, total):
    head = ("| set | images | main codes correct | add-ons correct | misreads | wrong add-ons "
            "| false positives (images / codes) | book ISBNs correct | median ms |")
    lines = [head, "|" + "---|" * 9]
    for name, a in list(per_set.items()) + [("**total**", total)]:
        fp = f"{a['fp_images']}/{a['none_images']} / {a['fp_codes']}" if a["none_images"] \
            else "-"
        lines.append(
            f"| {name} | {a['images']} | {pct(a['correct_main'], a['expected_main'])} | "
            f"{pct(a['correct_addon'], a['expected_addon'])} | {a['misreads']} | "
            f"{a['wrong_addons']} | {fp} | {pct(a['isbn_correct'], a['isbn_expected'])} | "
            f"{a['median_ms']} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="folder with truth.jsonl")
    ap.add_argument("--json", type=Path, help="write the numbers to this file")
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2),
                    help="parallel zbarimg processes (max 2)")
    ap.add_argument("--details", action="store_true",
                    help="also list every image that was not fully right")
    args = ap.parse_args()
    truth = args.dir / "truth.jsonl"
    recs = [json.loads(l) for l in truth.read_text(encoding="utf-8").splitlines() if l.strip()]
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        rows = list(ex.map(lambda rec: score_image(rec, args.dir), recs))
    sets = {}
    for r in rows:
        sets.setdefault(r["set"], []).append(r)
    per_set = {name: aggregate(rs) for name, rs in sorted(sets.items())}
    total = aggregate(rows)
    print(f"zbarimg baseline on {args.dir} ({len(rows)} images; command: "
          f"`{' '.join(ZBARIMG)} IMAGE`)\n")
    print(markdown(per_set, total))
    if args.details:
        print("\nImages not fully right:\n")
        for r in rows:
            if (r["correct_main"] < r["expected_main"] or r["correct_addon"] < r["expected_addon"]
                    or r["misreads"] or r["wrong_addons"] or r["fp_codes"] or r["error"]):
                print(f"- {r['image']}: expected {r['expected']}, got {r['reported']}"
                      + (f", error: {r['error']}" if r["error"] else ""))
    if total["errors"]:
        print(f"\n{total['errors']} image(s) could not be read by zbarimg", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({
            "dir": str(args.dir), "command": ZBARIMG, "total": total, "sets": per_set,
            "images": rows}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
