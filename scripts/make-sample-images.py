#!/usr/bin/env python3
"""Deterministic generator for shelfscan's synthetic sample images.

Run from the repository root:

    python3 scripts/make-sample-images.py

It (re)writes:
  SampleImages/barcodes/*.png|*.jpg   back covers / product labels with EAN/UPC codes,
                                      plus a few images with no barcode at all
  SampleImages/shelves/*.jpg          bookshelves: rows of book spines with real titles
  SampleImages/stacks/*.jpg           piles of books lying flat
  SampleImages/covers/*.jpg           front covers
  SampleImages/none/*.jpg             photos without a book (kitchen, letter, rug)
  SampleImages/orientation/exif-N.jpg EXIF Orientation test images (N = 1..8)
  SampleImages/truth.jsonl            ground truth (shared TRUTH-FORMAT)
  SampleImages/README.md, SampleImages/orientation/README.md

    python3 scripts/make-sample-images.py --big-shelf OUT.jpg

only writes one 4032x3024 photo of a full bookcase (for speed tests; keep it out of the
repository) and prints its truth line.

Dependencies: Python 3, Pillow, numpy and the Debian font packages in FONT_APT (DejaVu for
the barcode images; Liberation, FreeFont, Carlito, Caladea, Open Sans and URW base35 too for
the text images).
Every image uses its own random generator seeded from its file name, so the output is the
same on every run (and adding an image does not change the others).

The barcode encoders (EAN-13, UPC-A, EAN-8, UPC-E, EAN-5, EAN-2) are written here from the
published symbology tables; all check digits are verified with asserts.
"""

import argparse
import hashlib
import itertools
import json
import math
import os
import shutil
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont, ImageOps

OUT = Path("SampleImages")
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")

# --------------------------------------------------------------------------------------
# Symbology tables
# --------------------------------------------------------------------------------------

L_CODES = {
    "0": "0001101", "1": "0011001", "2": "0010011", "3": "0111101", "4": "0100011",
    "5": "0110001", "6": "0101111", "7": "0111011", "8": "0110111", "9": "0001011",
}
R_CODES = {d: "".join("1" if c == "0" else "0" for c in p) for d, p in L_CODES.items()}
G_CODES = {d: p[::-1] for d, p in R_CODES.items()}
SET = {"L": L_CODES, "G": G_CODES}

# EAN-13: parity of the six left-hand digits, chosen by the first (implicit) digit.
EAN13_PARITY = {
    "0": "LLLLLL", "1": "LLGLGG", "2": "LLGGLG", "3": "LLGGGL", "4": "LGLLGG",
    "5": "LGGLLG", "6": "LGGGLL", "7": "LGLGLL", "8": "LGLGGL", "9": "LGGLGL",
}
# UPC-E, number system 0: parity of the six digits, chosen by the check digit
# (O = odd = L set, E = even = G set). Number system 1 uses the complement.
UPCE_PARITY_NS0 = {
    "0": "EEEOOO", "1": "EEOEOO", "2": "EEOOEO", "3": "EEOOOE", "4": "EOEEOO",
    "5": "EOOEEO", "6": "EOOOEE", "7": "EOEOEO", "8": "EOEOOE", "9": "EOOEOE",
}
# EAN-5 add-on: parity chosen by the add-on checksum.
EAN5_PARITY = {
    0: "GGLLL", 1: "GLGLL", 2: "GLLGL", 3: "GLLLG", 4: "LGGLL",
    5: "LLGGL", 6: "LLLGG", 7: "LGLGL", 8: "LGLLG", 9: "LLGLG",
}
# EAN-2 add-on: parity chosen by value mod 4.
EAN2_PARITY = {0: "LL", 1: "LG", 2: "GL", 3: "GG"}

# sanity checks on the tables
assert all(len(p) == 7 for p in L_CODES.values())
assert all(L_CODES[d].count("1") % 2 == 1 for d in L_CODES)  # L: odd parity
assert all(G_CODES[d].count("1") % 2 == 0 for d in G_CODES)  # G: even parity
assert len(set(L_CODES.values()) | set(G_CODES.values()) | set(R_CODES.values())) == 30


def gtin_check(data: str) -> str:
    """Check digit for EAN-13 / UPC-A / EAN-8 / GTIN data digits (without the check)."""
    assert data.isdigit()
    s = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(data)))
    return str((10 - s % 10) % 10)


def gtin_valid(code: str) -> bool:
    return code.isdigit() and gtin_check(code[:-1]) == code[-1]


def ean5_checksum(d: str) -> int:
    assert len(d) == 5 and d.isdigit()
    return (3 * (int(d[0]) + int(d[2]) + int(d[4])) + 9 * (int(d[1]) + int(d[3]))) % 10


def upce_to_upca(code8: str) -> str:
    """Expand an 8-digit UPC-E (number system, 6 digits, check) to the 12-digit UPC-A."""
    assert len(code8) == 8 and code8.isdigit() and code8[0] in "01"
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
    upca = ns + body + chk
    assert gtin_check(upca[:11]) == chk, f"UPC-E {code8}: bad check digit"
    return upca


# known-answer tests (published examples)
assert gtin_check("978014026886") == "7"
assert gtin_check("590123412345") == "7"
assert gtin_check("03600029145") == "2"
assert gtin_check("9638507") == "4"
assert upce_to_upca("04252614") == "042100005264"
assert upce_to_upca("01234565") == "012345000065"


class Symbol:
    """A linear symbol in module units.

    bars:  string of '0'/'1', one char per module
    long:  set of module indices whose bars extend below the others (guards, etc.)
    texts: list of (text, x_centre_in_modules, where, small) with where in
           {'below', 'left', 'right', 'above'}
    quiet: (left, right) quiet zone in modules
    addon: True for EAN-2/EAN-5 (bars start lower, digits above)
    """

    def __init__(self, kind, value, bars, long=(), texts=(), quiet=(9, 9), addon=False):
        self.kind, self.value, self.bars = kind, value, bars
        self.long = set(long)
        self.texts = list(texts)
        self.quiet = quiet
        self.addon = addon

    @property
    def width(self):
        return len(self.bars)


def encode_ean13(code: str, upca: bool = False) -> Symbol:
    assert len(code) == 13 and gtin_valid(code), code
    first, left, right = code[0], code[1:7], code[7:]
    parity = EAN13_PARITY[first]
    bars = "101"
    bars += "".join(SET[p][d] for p, d in zip(parity, left))
    bars += "01010"
    bars += "".join(R_CODES[d] for d in right)
    bars += "101"
    assert len(bars) == 95
    long = set(range(0, 3)) | set(range(45, 50)) | set(range(92, 95))
    texts = []
    if not upca:
        texts.append((first, -5.5, "left", False))
        for i, d in enumerate(left):
            texts.append((d, 3 + 7 * i + 3.5, "below", False))
        for i, d in enumerate(right):
            texts.append((d, 50 + 7 * i + 3.5, "below", False))
        return Symbol("EAN-13", code, bars, long, texts, quiet=(11, 7))
    # UPC-A: 12 digits = code[1:]; first and last symbol characters have long bars too,
    # and their digits are printed outside the bars in a smaller size.
    u = code[1:]
    long |= set(range(3, 10)) | set(range(85, 92))
    texts.append((u[0], -5.0, "left", True))
    for i, d in enumerate(u[1:6]):
        texts.append((d, 10 + 7 * i + 3.5, "below", False))
    for i, d in enumerate(u[6:11]):
        texts.append((d, 50 + 7 * i + 3.5, "below", False))
    texts.append((u[11], 95 + 5.0, "right", True))
    return Symbol("UPC-A", u, bars, long, texts, quiet=(9, 9))


def encode_upca(code12: str) -> Symbol:
    assert len(code12) == 12 and gtin_valid(code12), code12
    return encode_ean13("0" + code12, upca=True)


def encode_ean8(code: str) -> Symbol:
    assert len(code) == 8 and gtin_valid(code), code
    bars = "101" + "".join(L_CODES[d] for d in code[:4]) + "01010"
    bars += "".join(R_CODES[d] for d in code[4:]) + "101"
    assert len(bars) == 67
    long = set(range(0, 3)) | set(range(31, 36)) | set(range(64, 67))
    texts = [(d, 3 + 7 * i + 3.5, "below", False) for i, d in enumerate(code[:4])]
    texts += [(d, 36 + 7 * i + 3.5, "below", False) for i, d in enumerate(code[4:])]
    return Symbol("EAN-8", code, bars, long, texts, quiet=(7, 7))


def encode_upce(code8: str) -> Symbol:
    upce_to_upca(code8)  # validates the check digit
    ns, digits, chk = code8[0], code8[1:7], code8[7]
    parity = UPCE_PARITY_NS0[chk]
    if ns == "1":
        parity = "".join("O" if p == "E" else "E" for p in parity)
    bars = "101" + "".join((L_CODES if p == "O" else G_CODES)[d] for p, d in zip(parity, digits))
    bars += "010101"
    assert len(bars) == 51
    long = set(range(0, 3)) | set(range(45, 51))
    texts = [(ns, -5.0, "left", True)]
    texts += [(d, 3 + 7 * i + 3.5, "below", False) for i, d in enumerate(digits)]
    texts.append((chk, 51 + 5.0, "right", True))
    return Symbol("UPC-E", code8, bars, long, texts, quiet=(9, 7))


def encode_addon(digits: str) -> Symbol:
    """EAN-5 or EAN-2 add-on: start 01011, characters separated by 01."""
    if len(digits) == 5:
        parity = EAN5_PARITY[ean5_checksum(digits)]
        kind = "EAN-5"
    elif len(digits) == 2:
        parity = EAN2_PARITY[int(digits) % 4]
        kind = "EAN-2"
    else:
        raise ValueError(digits)
    bars = "01011"
    texts = []
    for i, (p, d) in enumerate(zip(parity, digits)):
        if i:
            bars += "01"
        texts.append((d, len(bars) + 3.5, "above", False))
        bars += SET[p][d]
    assert len(bars) == 5 + 7 * len(digits) + 2 * (len(digits) - 1)
    return Symbol(kind, digits, bars, (), texts, quiet=(0, 5), addon=True)


assert ean5_checksum("51299") == 8 and ean5_checksum("90000") == 7


def encode_main(kind: str, value: str) -> Symbol:
    if kind in ("EAN-13", "ISBN", "ISSN"):
        return encode_ean13(value)
    if kind == "UPC-A":
        return encode_upca(value)
    if kind == "EAN-8":
        return encode_ean8(value)
    if kind == "UPC-E":
        return encode_upce(value)
    raise ValueError(kind)


def canonical(kind: str, value: str) -> str:
    """Canonical truth form: EAN-13/UPC-A/UPC-E as 13 digits, EAN-8 as 8."""
    if kind == "UPC-A":
        return "0" + value
    if kind == "UPC-E":
        return "0" + upce_to_upca(value)
    return value


# --------------------------------------------------------------------------------------
# Content: real books (from ../shared/corpora/catalog, written here literally)
# --------------------------------------------------------------------------------------

# key: (title, authors, isbn13, hyphenated ISBN, short original blurb, category)
BOOKS = {
    "odyssey": ("The Odyssey", ["Homer"], "9780143039952", "978-0-14-303995-2",
                "Ten years after the fall of Troy, one man is still trying to get home.",
                "CLASSICS"),
    "1984": ("1984", ["George Orwell"], "9780451524935", "978-0-451-52493-5",
             "In a state that watches everything, one clerk begins to keep a diary.",
             "FICTION"),
    "pride": ("Pride and Prejudice", ["Jane Austen"], "9780679783268", "978-0-679-78326-8",
              "Five sisters, one proud gentleman and a great many first impressions.",
              "CLASSICS"),
    "hobbit": ("The Hobbit", ["J.R.R. Tolkien"], "9780618260300", "978-0-618-26030-0",
               "A comfortable homebody is talked into a very long walk.",
               "FANTASY"),
    "mockingbird": ("To Kill a Mockingbird", ["Harper Lee"], "9780061120084",
                    "978-0-06-112008-4",
                    "A summer in a small Alabama town, seen through a child's eyes.",
                    "FICTION"),
    "gatsby": ("The Great Gatsby", ["F. Scott Fitzgerald"], "9780743273565",
               "978-0-7432-7356-5",
               "Parties, green lights and an old love across the bay.", "FICTION"),
    "janeeyre": ("Jane Eyre", ["Charlotte Brontë"], "9780142437209", "978-0-14-243720-9",
                 "An orphan governess, a brooding employer, a locked upper floor.",
                 "CLASSICS"),
    "frankenstein": ("Frankenstein", ["Mary Wollstonecraft Shelley"], "9780141439471",
                     "978-0-14-143947-1",
                     "A student of science builds a man and then runs from him.",
                     "CLASSICS"),
    "dracula": ("Dracula", ["Bram Stoker"], "9780393970128", "978-0-393-97012-8",
                "Letters, diaries and a very old count who has bought a house in England.",
                "HORROR"),
    "bravenewworld": ("Brave New World", ["Aldous Huxley"], "9780060929879",
                      "978-0-06-092987-9",
                      "Everyone is happy here, and that is exactly the problem.", "FICTION"),
    "lordflies": ("Lord of the Flies", ["William Golding"], "9780140283334",
                  "978-0-14-028333-4",
                  "Schoolboys stranded on an island try to govern themselves.", "FICTION"),
    "crimepunishment": ("Crime and Punishment", ["Fyodor Dostoyevsky"], "9780143058144",
                        "978-0-14-305814-4",
                        "A poor student commits a murder and cannot stop thinking about it.",
                        "CLASSICS"),
    "catch22": ("Catch-22", ["Joseph Heller"], "9780684833392", "978-0-684-83339-2",
                "A bombardier discovers that the rules were written to keep him flying.",
                "FICTION"),
    # 979 ISBNs (the only 979s in the catalogues are four French children's books)
    "oiseau": ("L'Oiseau", ["Paule Battault"], "9791023505214", "979-10-235-0521-4",
               "Un album pour les petits lecteurs, plein de plumes et de couleurs.",
               "JEUNESSE"),
    "animalalbum": ("My animal album", ["Virginie Aracil"], "9791027603688",
                    "979-10-276-0368-8",
                    "A first words book: point, name and learn the animals.", "CHILDREN"),
    # a Spanish edition (accents in author name), 978-84
    "libros": ("Los Libros y la libertad", ["Emilio Lledó"], "9788490065686",
               "978-84-9006-568-6",
               "Un ensayo sobre la lectura, la memoria y la libertad de pensar.",
               "ENSAYO"),
}
for _k, _b in BOOKS.items():
    assert gtin_valid(_b[2]) and _b[2][:3] in ("978", "979"), _k
    assert _b[3].replace("-", "") == _b[2], _k

# non-book codes (published example codes / made-up codes with valid check digits)
PRODUCTS = {
    "grocery1": ("EAN-13", "5901234123457", "Organic Oat Biscuits", "250 g"),
    "grocery2": ("EAN-13", "4006381333931", "Fine Liner Pen, Black", "0.4 mm"),
    "upca1": ("UPC-A", "036000291452", "Facial Tissues", "3 x 80 sheets"),
    "upca2": ("UPC-A", "012345678905", "Corn Flakes Cereal", "18 oz (510 g)"),
    "upca3": ("UPC-A", "072512345672", "Peanut Butter, Creamy", "16 oz"),
    "ean8": ("EAN-8", "96385074", "Chewing Gum, Mint", "10 pieces"),
    "upce": ("UPC-E", "04252614", "Lemon Soda", "12 fl oz (355 mL)"),
}
ISSN = "1234-5679"  # the standard's own example ISSN
ISSN_EAN = "977" + ISSN.replace("-", "")[:7] + "00"
ISSN_EAN += gtin_check(ISSN_EAN)
assert ISSN_EAN[:3] == "977" and gtin_valid(ISSN_EAN)
for _k, (_kind, _v, _n, _w) in PRODUCTS.items():
    encode_main(_kind, _v)  # validates


GENERIC_BLURB = (
    "This edition includes a new introduction, notes on the text and a short guide to "
    "further reading. Printed on acid-free paper. Cover design by the publisher's art "
    "department. Praised by readers and critics alike for more than a generation, it "
    "remains one of the most widely read books of its kind."
)
NOBOOK_BLURB = (
    "\u201cImpossible to put down. I read it in one sitting and then started again.\u201d "
    "\u201cA quiet, patient story that grows on you page by page.\u201d "
    "Winner of several regional prizes, now available in paperback for the first time, "
    "with a new afterword and discussion questions for reading groups."
)
PRODUCT_TEXT = (
    "Ingredients: see side panel. Store in a cool, dry place. Best before: see top. "
    "Distributed by Example Foods Ltd. Recycle the box, not the film."
)
DOCUMENT_TEXT = (
    "Minutes of the allotment committee. The meeting opened at seven. The treasurer "
    "reported that the water bill had gone up again and that two plots remain vacant. "
    "It was agreed that the shed roof will be repaired before winter, that the compost "
    "bays will be moved to the north fence, and that the spring open day will go ahead "
    "on the second Saturday of May. Volunteers are needed for the tea stall. Any other "
    "business: the gate lock sticks in wet weather and should be oiled. The meeting "
    "closed at half past eight. Next meeting: first Tuesday of next month."
)

# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------

_font_cache = {}


def font(name: str, size: float) -> ImageFont.FreeTypeFont:
    size = max(4, int(round(size)))
    key = (name, size)
    if key not in _font_cache:
        _font_cache[key] = ImageFont.truetype(str(FONT_DIR / name), size)
    return _font_cache[key]


def rng_for(name: str) -> np.random.Generator:
    seed = int.from_bytes(hashlib.sha256(("shelfscan-samples/" + name).encode()).digest()[:8],
                          "little")
    return np.random.default_rng(seed)


def wrap(draw, text, fnt, width):
    lines, cur = [], ""
    for w in text.split():
        t = (cur + " " + w).strip()
        if draw.textlength(t, font=fnt) <= width or not cur:
            cur = t
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    return lines


def smooth_noise(rng, h, w, cell, octaves=3):
    """Sum of bicubically upsampled random grids, roughly in [0, 1]."""
    acc = np.zeros((h, w), np.float32)
    amp, tot = 1.0, 0.0
    for _ in range(octaves):
        gh, gw = max(2, h // cell + 2), max(2, w // cell + 2)
        g = (rng.random((gh, gw)) * 255).astype(np.uint8)
        up = Image.fromarray(g).resize((w, h), Image.BICUBIC)
        acc += amp * np.asarray(up, np.float32) / 255.0
        tot += amp
        amp *= 0.5
        cell = max(2, cell // 2)
    return acc / tot


# --------------------------------------------------------------------------------------
# Drawing barcodes and cards
# --------------------------------------------------------------------------------------

INK = (22, 22, 28, 255)


class Block:
    """A barcode block: main symbol + optional add-on, with human-readable text."""

    BAR_H = 58      # normal bar height (modules)
    GUARD_EXT = 5   # guard bar extension (modules)
    DIGIT = 10      # digit font size (modules)
    HR_LINE = 11    # height of the "ISBN ..." line above the bars

    def __init__(self, main: Symbol, addon: Symbol = None, gap: int = 9, hr_text: str = None,
                 bar_h: int = None):
        self.main, self.addon, self.gap, self.hr_text = main, addon, gap, hr_text
        self.bar_h = bar_h or self.BAR_H
        lq, rq = main.quiet
        self.x_main = lq
        w = lq + main.width
        if addon:
            self.x_addon = w + gap
            w = self.x_addon + addon.width + addon.quiet[1]
        else:
            w += rq
        self.w = w
        self.pad = 3
        self.y_bars = self.pad + (self.HR_LINE if hr_text else 2)
        self.h = self.y_bars + self.bar_h + self.GUARD_EXT + 6 + self.pad

    def centre(self):
        """Centre of the main symbol's bars (modules, block coordinates)."""
        return (self.x_main + self.main.width / 2.0, self.y_bars + self.bar_h / 2.0)

    def draw(self, draw: ImageDraw.ImageDraw, ox: float, oy: float, p: float, box=None,
             ink=INK):
        if box:
            draw.rectangle([ox, oy, ox + self.w * p, oy + self.h * p], fill=box)
        fdig = font("DejaVuSansMono.ttf", self.DIGIT * p)
        fsmall = font("DejaVuSansMono.ttf", self.DIGIT * 0.72 * p)
        y_top = oy + self.y_bars * p
        y_bot = y_top + self.bar_h * p
        y_long = y_bot + self.GUARD_EXT * p
        if self.hr_text:
            fhr = font("DejaVuSans.ttf", 8.5 * p)
            draw.text((ox + (self.x_main + self.main.width / 2) * p, oy + self.pad * p),
                      self.hr_text, font=fhr, fill=ink, anchor="mt")
        self._bars(draw, self.main, ox + self.x_main * p, y_top, y_bot, y_long, p, ink)
        for text, xc, where, small in self.main.texts:
            f = fsmall if small else fdig
            x = ox + (self.x_main + xc) * p
            if where == "below":
                draw.text((x, y_bot + 0.6 * p), text, font=f, fill=ink, anchor="mt")
            else:  # left / right: bottom-aligned with the long bars
                draw.text((x, y_long + 0.5 * p), text, font=f, fill=ink, anchor="md")
        if self.addon:
            ax = ox + self.x_addon * p
            a_top = y_top + (self.DIGIT + 0.5) * p
            self._bars(draw, self.addon, ax, a_top, y_long, y_long, p, ink)
            for text, xc, where, small in self.addon.texts:
                draw.text((ax + xc * p, y_top), text, font=fdig, fill=ink, anchor="mt")

    @staticmethod
    def _bars(draw, sym, x0, y_top, y_bot, y_long, p, ink):
        i, n = 0, len(sym.bars)
        while i < n:
            if sym.bars[i] == "1":
                j = i
                while j < n and sym.bars[j] == "1":
                    j += 1
                is_long = any(k in sym.long for k in range(i, j))
                xa = round(x0 + i * p)
                xb = round(x0 + j * p)
                draw.rectangle([xa, round(y_top), xb - 1, round(y_long if is_long else y_bot)],
                               fill=ink)
                i = j
            else:
                i += 1


def make_card(spec, p, rng):
    """Render the printed item (book back cover, product label, magazine corner) as an
    RGBA image at p pixels per module. Returns (image, (cx, cy) barcode centre in px,
    barcode block corners in px) -- block may be None."""
    style = spec.get("card", "book")
    block = spec.get("_block")
    palette = spec.get("bg", (244, 238, 222))
    dark = sum(palette) < 300
    text_col = (245, 245, 240, 255) if dark else (30, 30, 35, 255)
    if block is not None:
        bw = block.w
    else:
        bw = 120
    if style == "book":
        cw = max(2.1 * bw, 300)
        ch = cw * 1.42
    elif style == "magazine":
        cw = max(1.9 * bw, 260)
        ch = cw * 0.9
    else:  # product label
        cw = max(1.5 * bw, 200)
        ch = cw * 0.95
    W, H = int(round(cw * p)), int(round(ch * p))
    img = Image.new("RGBA", (W, H), palette + (255,))
    d = ImageDraw.Draw(img)
    m = 18  # margin (modules)
    y = m
    if style == "book":
        book = spec.get("book")
        if book:
            title, authors, isbn13, hyph, blurb, cat = BOOKS[book]
            ft = font("DejaVuSerif-Bold.ttf", 22 * p)
            for line in wrap(d, title, ft, (cw - 2 * m) * p):
                d.text((m * p, y * p), line, font=ft, fill=text_col)
                y += 27
            y += 3
            d.text((m * p, y * p), " & ".join(authors), font=font("DejaVuSerif-Italic.ttf",
                                                                   14 * p), fill=text_col)
            y += 26
            body = blurb + " " + GENERIC_BLURB
        else:
            cat = "FICTION"
            body = spec.get("text", NOBOOK_BLURB) + " " + GENERIC_BLURB
        fb = font("DejaVuSerif.ttf", 9.5 * p)
        limit = (ch - m - (block.h if block else 40) - 14)
        for line in wrap(d, body, fb, (cw - 2 * m) * p):
            if y + 13 > limit:
                break
            d.text((m * p, y * p), line, font=fb, fill=text_col)
            y += 13.5
        fs = font("DejaVuSans-Bold.ttf", 9 * p)
        d.text((m * p, (ch - m - 30) * p), cat, font=fs, fill=text_col)
        if spec.get("price"):
            d.text((m * p, (ch - m - 16) * p), spec["price"], font=font("DejaVuSans.ttf", 9 * p),
                   fill=text_col)
    elif style == "magazine":
        ft = font("DejaVuSans-Bold.ttf", 24 * p)
        d.text((m * p, y * p), "THE WEEKLY REVIEW", font=ft, fill=text_col)
        y += 40
        fb = font("DejaVuSans.ttf", 10 * p)
        for line in ["Issue 05 \u00b7 Week of 3 February", "Politics \u00b7 Science \u00b7 Books",
                     "\u00a3 4.99  \u20ac 6.50"]:
            d.text((m * p, y * p), line, font=fb, fill=text_col)
            y += 15
    else:
        _, _, name, weight = PRODUCTS[spec["product"]]
        ft = font("DejaVuSans-Bold.ttf", 14 * p)
        for line in wrap(d, name, ft, (cw - 2 * m) * p):
            d.text((m * p, y * p), line, font=ft, fill=text_col)
            y += 18
        y += 2
        d.text((m * p, y * p), weight, font=font("DejaVuSans.ttf", 11 * p), fill=text_col)
        y += 18
        fb = font("DejaVuSans.ttf", 8 * p)
        limit = (ch - m - (block.h if block else 0) - 8)
        for line in wrap(d, PRODUCT_TEXT, fb, (cw - 2 * m) * p):
            if y + 11 > limit:
                break
            d.text((m * p, y * p), line, font=fb, fill=text_col)
            y += 11
    if block is None:
        return img, (W / 2, H / 2), None
    bx = cw - m * 0.6 - block.w if style != "product" else (cw - block.w) / 2
    by = ch - m * 0.6 - block.h
    box = (255, 255, 255, 255) if (dark or spec.get("white_box", True)) else None
    block.draw(d, bx * p, by * p, p, box=box)
    cx, cy = block.centre()
    corners = [((bx + u) * p, (by + v) * p) for u, v in
               ((0, 0), (block.w, 0), (block.w, block.h), (0, block.h))]
    return img, ((bx + cx) * p, (by + cy) * p), corners


# --------------------------------------------------------------------------------------
# Scene backgrounds
# --------------------------------------------------------------------------------------

def background(kind, w, h, rng):
    if kind == "flat":
        return Image.new("RGB", (w, h), (196, 190, 180))
    if kind == "wood":
        n = smooth_noise(rng, h, w, max(8, w // 12), octaves=2)
        xs = np.linspace(0, 1, w, dtype=np.float32)[None, :]
        grain = np.sin((xs * 16 + n * 3) * math.pi) * 0.5 + 0.5
        base = np.array([150, 100, 60], np.float32)
        v = (0.8 + 0.2 * grain)[..., None] * base[None, None, :]
        v *= (0.9 + 0.2 * n)[..., None]
        img = Image.fromarray(np.clip(v, 0, 255).astype(np.uint8))
        return img.filter(ImageFilter.GaussianBlur(max(1.0, w / 800)))
    if kind == "cloth":
        n = smooth_noise(rng, h, w, max(8, w // 20), octaves=2)
        base = np.array([60, 70, 95], np.float32)
        v = (0.8 + 0.4 * n)[..., None] * base[None, None, :]
        return Image.fromarray(np.clip(v, 0, 255).astype(np.uint8))
    if kind == "desk":
        n = smooth_noise(rng, h, w, max(8, w // 10), octaves=2)
        v = (0.85 + 0.2 * n)[..., None] * np.array([205, 205, 200], np.float32)[None, None]
        return Image.fromarray(np.clip(v, 0, 255).astype(np.uint8))
    raise ValueError(kind)


# --------------------------------------------------------------------------------------
# Geometry + damage
# --------------------------------------------------------------------------------------

def homography(k, angle_deg, persp, src_c, dst_c):
    """card px -> canvas px: translate(-src_c), scale k, rotate, perspective, translate."""
    a = math.radians(angle_deg)
    T1 = np.array([[1, 0, -src_c[0]], [0, 1, -src_c[1]], [0, 0, 1]], float)
    S = np.diag([k, k, 1.0])
    R = np.array([[math.cos(a), math.sin(a), 0], [-math.sin(a), math.cos(a), 0], [0, 0, 1]])
    P = np.array([[1, 0, 0], [0, 1, 0], [persp[0], persp[1], 1]], float)
    T2 = np.array([[1, 0, dst_c[0]], [0, 1, dst_c[1]], [0, 0, 1]], float)
    return T2 @ P @ R @ S @ T1


def apply_h(Hm, pts):
    out = []
    for x, y in pts:
        v = Hm @ np.array([x, y, 1.0])
        out.append((v[0] / v[2], v[1] / v[2]))
    return out


def render_scene(spec, rng):
    W, H = spec["size"]
    m = spec.get("module", 3.0)
    ss = 2 if W * H <= 1600 * 1200 else 1
    p_card = min(m * ss, 8.0)
    k = m * ss / p_card
    card, centre, corners = make_card(spec, p_card, rng)
    CW, CH = W * ss, H * ss
    bg = background(spec.get("scene", "flat"), W, H, rng).resize((CW, CH), Image.BILINEAR)
    persp = spec.get("persp", (0.0, 0.0))
    persp = (persp[0] / (CW / 2), persp[1] / (CH / 2))
    off = spec.get("offset", (0.0, 0.0))
    dst = (CW / 2 + off[0] * CW, CH / 2 + off[1] * CH)
    # Put the card centre (or as near to it as possible) at the frame centre, moving the
    # anchor towards the barcode centre until the whole barcode block (with its quiet
    # zones and a small margin) is inside the frame.
    card_c = (card.width / 2, card.height / 2)
    for step in range(11):
        t = step / 10
        anchor = (card_c[0] + t * (centre[0] - card_c[0]), card_c[1] + t * (centre[1] - card_c[1]))
        Hm = homography(k, spec.get("rot", 0), persp, anchor, dst)
        if not corners:
            break
        pts = apply_h(Hm, corners)
        mx, my = 0.04 * CW, 0.04 * CH
        if all(mx <= x <= CW - mx and my <= y <= CH - my for x, y in pts):
            break
    if corners:
        # the barcode block (with quiet zones) must lie inside the frame
        for x, y in apply_h(Hm, corners):
            assert -1 <= x <= CW + 1 and -1 <= y <= CH + 1, (spec["name"], x, y, CW, CH)
    Hi = np.linalg.inv(Hm)
    Hi /= Hi[2, 2]
    warped = card.transform((CW, CH), Image.PERSPECTIVE, tuple(Hi.flatten()[:8]),
                            resample=Image.BICUBIC, fillcolor=(0, 0, 0, 0))
    if spec.get("shadow", True):
        # a soft drop shadow under the card
        alpha = warped.getchannel("A").filter(ImageFilter.GaussianBlur(6 * ss))
        sh = Image.new("RGB", (CW, CH), (0, 0, 0))
        a = np.asarray(alpha, np.float32) * 0.35
        a = np.roll(np.roll(a, 5 * ss, 0), 4 * ss, 1)
        bg = Image.composite(sh, bg, Image.fromarray(a.astype(np.uint8)))
    bg.paste(warped, (0, 0), warped)
    if ss > 1:
        bg = bg.reduce(ss)
    return bg


def damage(img, spec, rng):
    W, H = img.size
    a = np.asarray(img, np.float32)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    shade = spec.get("shade")
    if shade:
        kind, strength = shade
        if kind == "linear":
            ang = rng.uniform(0, 2 * math.pi)
            t = (xx / W - 0.5) * math.cos(ang) + (yy / H - 0.5) * math.sin(ang)
            f = 1.0 - strength * (t - t.min()) / (t.max() - t.min())
        else:  # vignette / uneven lamp
            cx, cy = rng.uniform(0.3, 0.7) * W, rng.uniform(0.3, 0.7) * H
            r = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) / math.hypot(W, H)
            f = 1.0 - strength * np.clip(r / 0.6, 0, 1) ** 1.5
        a *= f[..., None]
    glare = spec.get("glare")
    if glare:
        gx, gy, gr, gs = glare  # centre (fraction of W/H), radius (fraction of W), strength
        r2 = ((xx - gx * W) ** 2 + ((yy - gy * H) * 1.4) ** 2) / (gr * W) ** 2
        g = gs * np.exp(-r2 * 2.0)
        a = a + (255 - a) * g[..., None]
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if spec.get("blur"):
        img = img.filter(ImageFilter.GaussianBlur(spec["blur"]))
    if spec.get("lowres"):
        f = spec["lowres"]
        small = img.resize((int(W / f), int(H / f)), Image.BOX)
        img = small.resize((W, H), Image.BILINEAR)
    if spec.get("noise"):
        a = np.asarray(img, np.float32)
        a = a + rng.normal(0, spec["noise"], a.shape).astype(np.float32)
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    return img


def save(img, path, spec):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".png":
        img.save(path, optimize=True)
    else:
        img.save(path, quality=spec.get("jpeg", 85 if img.width > 2000 else 80), optimize=True)


# --------------------------------------------------------------------------------------
# Special no-barcode scenes
# --------------------------------------------------------------------------------------

def scene_texture(W, H, rng):
    """Photo-like texture: foliage / out-of-focus blobs."""
    chans = []
    for base in (70, 110, 60):
        n = smooth_noise(rng, H, W, max(8, W // 12), octaves=5)
        chans.append(base * (0.4 + 1.3 * n))
    a = np.stack(chans, -1)
    a += rng.normal(0, 3, a.shape)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def scene_stripes(W, H, rng):
    """Striped fabric with random-width dark/light vertical stripes (barcode bait)."""
    unit = 3.0
    xs, x, dark = [], 0.0, True
    while x < W * 1.2:
        w = unit * rng.integers(1, 5)
        xs.append((x, x + w, dark))
        x += w
        dark = not dark
    col = np.zeros(int(W * 1.2) + 10, np.float32)
    for a, b, dk in xs:
        col[int(a):int(b)] = 35 if dk else 225
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    wave = 6 * np.sin(yy / H * 2 * math.pi * 1.3) + 3 * np.sin(yy / 37.0)
    idx = np.clip((xx + wave + 20).astype(int), 0, len(col) - 1)
    v = col[idx]
    tint = np.array([0.9, 0.95, 1.05], np.float32)
    a = v[..., None] * tint[None, None]
    fold = 1 - 0.25 * smooth_noise(rng, H, W, W // 4, 2)
    a *= fold[..., None]
    a += rng.normal(0, 2, a.shape)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    return img.filter(ImageFilter.GaussianBlur(1.0))


def scene_fence(W, H, rng):
    """Picket fence in front of grass."""
    a = np.zeros((H, W, 3), np.float32)
    n = smooth_noise(rng, H, W, 16, 4)
    a[:] = (np.array([60, 120, 50], np.float32)[None, None] * (0.6 + 0.7 * n[..., None]))
    pitch = W / 19.0
    plank = pitch * 0.62
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    for i in range(-1, 21):
        x0 = i * pitch + rng.uniform(-2, 2)
        top = H * 0.12 + rng.uniform(-6, 6)
        inside = (xx >= x0) & (xx < x0 + plank) & (yy > top - (plank / 2 - np.abs(
            xx - x0 - plank / 2)))
        shade = 0.85 + 0.15 * np.clip((xx - x0) / plank, 0, 1)
        wood = np.array([222, 215, 200], np.float32)
        a = np.where(inside[..., None], wood[None, None] * shade[..., None] *
                     (0.9 + 0.15 * n[..., None]), a)
    for yr in (0.35, 0.8):  # rails behind the gaps
        band = (np.abs(yy - yr * H) < H * 0.03) & (a[..., 1] > a[..., 0] + 20)
        a[band] = [150, 140, 125]
    a += rng.normal(0, 3, a.shape)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def scene_document(W, H, rng):
    img = Image.new("RGB", (W, H), (250, 249, 245))
    d = ImageDraw.Draw(img)
    f = font("DejaVuSerif.ttf", 22)
    d.text((80, 50), "Allotment Society \u2014 Committee Minutes", font=font(
        "DejaVuSerif-Bold.ttf", 30), fill=(20, 20, 20))
    y = 110
    for para in range(3):
        for line in wrap(d, DOCUMENT_TEXT, f, W - 160):
            d.text((80, y), line, font=f, fill=(30, 30, 30))
            y += 30
            if y > H - 60:
                return img
        y += 18
    return img


# --------------------------------------------------------------------------------------
# The image list
# --------------------------------------------------------------------------------------

PALETTES = {
    "cream": (244, 238, 222), "paleblue": (218, 230, 244), "palegreen": (222, 238, 222),
    "paleyellow": (250, 242, 196), "navy": (28, 40, 82), "red": (128, 24, 34),
    "white": (250, 250, 250), "grey": (226, 226, 228), "orange": (236, 150, 60),
}


def B(name, book, size, module, addon=None, price=None, **kw):
    d = dict(name=name, kind="barcode", book=book, code=("ISBN", BOOKS[book][2]),
             addon=addon, size=size, module=module, price=price, card="book")
    d.update(kw)
    return d


def P(name, product, size, module, **kw):
    kind, value = PRODUCTS[product][:2]
    d = dict(name=name, kind="barcode", book=None, code=(kind, value), addon=None, size=size,
             module=module, product=product, card="product")
    d.update(kw)
    return d


S_VGA, S_HD, S_UXGA, S_BIG = (640, 480), (1280, 720), (1600, 1200), (3000, 2250)

# Every JPEG "photo" gets a little camera blur and sensor noise unless it sets its own
# (CAMERA_BLUR px, CAMERA_NOISE sigma); PNGs marked clean get neither.
CAMERA_BLUR, CAMERA_NOISE = 0.7, 2

IMAGES = [
    # ---- book ISBNs -------------------------------------------------------------------
    B("isbn-odyssey-ean5-clean.png", "odyssey", S_HD, 3.0, addon="51700",
      price="US $17.00", bg=PALETTES["cream"], clean=True),
    B("isbn-odyssey-tilt20-blur1.jpg", "odyssey", S_HD, 2.5, rot=20, blur=1.0,
      scene="wood", bg=PALETTES["cream"]),
    B("isbn-1984-clean.png", "1984", S_VGA, 2.0, bg=PALETTES["white"], white_box=False,
      clean=True),
    B("isbn-1984-ean5-rot90.jpg", "1984", S_HD, 2.5, addon="50999", price="US $9.99",
      rot=90, scene="desk", bg=PALETTES["red"]),
    B("isbn-pride-prejudice-tilt4-noise.jpg", "pride", S_HD, 2.5, rot=4, noise=6,
      scene="wood", bg=PALETTES["paleblue"]),
    B("isbn-pride-prejudice-blur2.5.jpg", "pride", S_HD, 3.0, blur=2.5, scene="desk",
      bg=PALETTES["paleblue"]),
    B("isbn-hobbit-ean5-rot180.jpg", "hobbit", S_HD, 3.0, addon="51495",
      price="US $14.95", rot=180, scene="cloth", bg=PALETTES["paleyellow"],
      white_box=False),
    B("isbn-hobbit-perspective-shade.jpg", "hobbit", S_HD, 2.5, persp=(0.18, 0.10),
      shade=("linear", 0.55), scene="wood", bg=PALETTES["paleyellow"]),
    B("isbn-mockingbird-ean5-small.png", "mockingbird", S_HD, 1.5, addon="50799",
      price="US $7.99", bg=PALETTES["palegreen"], offset=(0.18, 0.1), clean=True,
      extra="small code"),
    B("isbn-mockingbird-tilt10-glare.jpg", "mockingbird", S_UXGA, 3.0, rot=10,
      glare=(0.56, 0.5, 0.06, 0.9), scene="desk", bg=PALETTES["palegreen"]),
    B("isbn-gatsby-large.jpg", "gatsby", S_BIG, 8.0, scene="wood", noise=0,
      bg=PALETTES["navy"], extra="large image, large code"),
    B("isbn-gatsby-ean5-blur2.jpg", "gatsby", S_HD, 3.0, addon="51500", price="US $15.00",
      blur=2.0, scene="cloth", bg=PALETTES["navy"]),
    B("isbn-janeeyre-tilt35.jpg", "janeeyre", S_UXGA, 3.0, rot=35, scene="desk",
      bg=PALETTES["grey"]),
    B("isbn-janeeyre-jpeg30.jpg", "janeeyre", S_VGA, 2.0, jpeg=30, scene="desk",
      bg=PALETTES["grey"]),
    B("isbn-frankenstein-ean5-perspective.jpg", "frankenstein", S_UXGA, 3.0, addon="90000",
      persp=(-0.30, 0.22), rot=-4, noise=3, scene="wood", bg=PALETTES["cream"],
      extra="strong perspective, add-on 90000 (no price)"),
    B("isbn-frankenstein-lowres.jpg", "frankenstein", S_HD, 2.5, lowres=2.5,
      scene="desk", bg=PALETTES["cream"]),
    B("isbn-dracula-tilt45.jpg", "dracula", S_HD, 3.0, rot=45, scene="cloth",
      bg=PALETTES["red"]),
    B("isbn-dracula-ean2-clean.png", "dracula", S_HD, 2.5, addon="05",
      bg=PALETTES["paleblue"], clean=True, extra="EAN-2 add-on"),
    B("isbn-bravenewworld-ean5-vignette-noise.jpg", "bravenewworld", S_HD, 2.5,
      addon="51599", price="US $15.99", shade=("radial", 0.6), noise=7, scene="desk",
      bg=PALETTES["orange"]),
    B("isbn-crimepunishment-ean5-tilt10.jpg", "crimepunishment", S_HD, 2.0,
      addon="51800", price="US $18.00", rot=-10, scene="wood", bg=PALETTES["white"]),
    B("isbn-catch22-rot270-blur1.jpg", "catch22", S_HD, 2.5, rot=-90, blur=1.0,
      scene="desk", bg=PALETTES["paleyellow"]),
    B("isbn-catch22-ean5-large-tilt4.jpg", "catch22", S_BIG, 6.0, addon="51699",
      price="US $16.99", rot=4, noise=0, scene="cloth", bg=PALETTES["paleyellow"],
      extra="large image"),
    B("isbn979-oiseau-clean.png", "oiseau", S_HD, 3.0, bg=PALETTES["paleblue"],
      clean=True, extra="979 ISBN"),
    B("isbn979-oiseau-blur1.5-jpeg45.jpg", "oiseau", S_HD, 2.5, blur=1.5, jpeg=45,
      scene="wood", bg=PALETTES["paleblue"], extra="979 ISBN"),
    B("isbn979-animalalbum-tilt20-shade.jpg", "animalalbum", S_HD, 2.5, rot=20,
      shade=("linear", 0.5), noise=3, scene="desk", bg=PALETTES["orange"],
      extra="979 ISBN"),
    B("isbn-libros-libertad-blur1-noise.jpg", "libros", S_HD, 2.5, blur=1.0, noise=5,
      scene="wood", bg=PALETTES["cream"], white_box=False, extra="978-84, no white box"),
    # ---- non-book codes -----------------------------------------------------------------
    P("ean13-grocery-clean.png", "grocery1", S_VGA, 2.0, bg=PALETTES["white"], clean=True,
      extra="grocery EAN-13 (590)"),
    P("ean13-grocery-tilt10-shade.jpg", "grocery2", S_HD, 2.0, rot=10,
      shade=("linear", 0.5), noise=3, scene="desk", bg=PALETTES["palegreen"],
      extra="EAN-13 (400)"),
    P("upca-grocery-clean.png", "upca1", S_VGA, 2.0, bg=PALETTES["white"], clean=True,
      extra="UPC-A"),
    P("upca-cereal-rot180-noise.jpg", "upca2", S_HD, 2.5, rot=180, noise=5, scene="wood",
      bg=PALETTES["paleyellow"], extra="UPC-A"),
    P("ean8-clean.png", "ean8", S_VGA, 2.5, bg=PALETTES["white"], clean=True,
      extra="EAN-8"),
    P("upce-clean.png", "upce", S_VGA, 2.5, bg=PALETTES["white"], clean=True,
      extra="UPC-E 04252614"),
    dict(name="issn-magazine-ean2.jpg", kind="barcode", book=None, code=("ISSN", ISSN_EAN),
         addon="05", size=S_HD, module=2.5, card="magazine", rot=3, scene="desk",
         bg=PALETTES["white"], hr="ISSN " + ISSN,
         extra="magazine ISSN (977) with EAN-2 issue add-on"),
    # ---- very hard ------------------------------------------------------------------------
    B("hard-isbn-lordflies-tiny.jpg", "lordflies", S_UXGA, 0.9, noise=3, scene="wood",
      bg=PALETTES["cream"], offset=(-0.2, 0.15), extra="tiny code"),
    B("hard-isbn-1984-heavyblur.jpg", "1984", S_HD, 2.5, blur=4.0, scene="desk",
      bg=PALETTES["white"], extra="heavy blur"),
    B("hard-isbn-gatsby-tilt45-blur2-jpeg30.jpg", "gatsby", S_HD, 2.5, rot=45, blur=2.0,
      jpeg=30, scene="cloth", bg=PALETTES["navy"]),
    P("hard-upca-lowres-glare.jpg", "upca3", S_VGA, 2.0, lowres=3.0,
      glare=(0.5, 0.5, 0.12, 0.85), noise=3, scene="desk", bg=PALETTES["white"],
      extra="UPC-A, glare over the middle of the bars"),
    # ---- no barcode -------------------------------------------------------------------------
    dict(name="none-textonly-backcover.jpg", kind="none", card="book", book=None, size=S_HD,
         module=2.5, rot=3, noise=3, scene="wood", bg=PALETTES["paleblue"],
         notes="back-cover-style blurb text with no title, author, ISBN or barcode"),
    dict(name="none-photo-texture.jpg", kind="none", special="texture", size=S_HD,
         notes="photo-like foliage texture"),
    dict(name="none-stripes.jpg", kind="none", special="stripes", size=S_VGA,
         notes="striped fabric, random-width vertical stripes (false-positive bait)"),
    dict(name="none-fence.jpg", kind="none", special="fence", size=S_HD,
         notes="picket fence (regular vertical stripes)"),
    dict(name="none-document-text.png", kind="none", special="document", size=S_HD,
         notes="page of printed text, no book"),
    dict(name="none-blank-table.jpg", kind="none", special="table", size=S_VGA,
         notes="empty wooden table"),
]

for _s in IMAGES:
    if not _s.get("clean") and not _s.get("special"):
        _s.setdefault("blur", CAMERA_BLUR)
        _s.setdefault("noise", CAMERA_NOISE)
    assert _s["name"].endswith(".png") == bool(_s.get("clean") or _s.get("special") ==
                                               "document"), _s["name"]


def notes_for(spec):
    """Short description of the damage applied (truth.jsonl `notes`)."""
    if "notes" in spec:
        return spec["notes"]
    parts = []
    if spec.get("clean"):
        parts.append("clean")
    rot = spec.get("rot", 0)
    if rot:
        parts.append(f"rotated {rot % 360}" if rot % 90 == 0 else f"tilt {rot}")
    if spec.get("persp"):
        parts.append("perspective warp")
    if spec.get("blur"):
        parts.append(f"blur {spec['blur']:g}")
    if spec.get("lowres"):
        parts.append(f"low resolution (1/{spec['lowres']:g})")
    if spec.get("noise"):
        parts.append(f"noise {spec['noise']:g}")
    if spec.get("shade"):
        parts.append("shading gradient" if spec["shade"][0] == "linear"
                     else "uneven lighting (vignette)")
    if spec.get("glare"):
        parts.append("glare spot")
    if spec.get("jpeg"):
        parts.append(f"JPEG quality {spec['jpeg']}")
    parts.append(f"module {spec['module']:g} px")
    if spec.get("extra"):
        parts.append(spec["extra"])
    return ", ".join(parts)


def build_block(spec):
    if spec["kind"] != "barcode":
        return None
    kind, value = spec["code"]
    main = encode_main(kind, value)
    addon = encode_addon(spec["addon"]) if spec.get("addon") else None
    hr = spec.get("hr")
    if kind == "ISBN":
        hr = "ISBN " + BOOKS[spec["book"]][3]
    gap = 9 if addon else 0
    return Block(main, addon, gap=gap, hr_text=hr)


def render(spec):
    rng = rng_for(spec["name"])
    W, H = spec["size"]
    sp = spec.get("special")
    if sp == "texture":
        img = scene_texture(W, H, rng)
    elif sp == "stripes":
        img = scene_stripes(W, H, rng)
    elif sp == "fence":
        img = scene_fence(W, H, rng)
    elif sp == "document":
        img = scene_document(W, H, rng)
    elif sp == "table":
        img = background("wood", W, H, rng)
        img = damage(img, dict(noise=3, shade=("radial", 0.3)), rng)
    else:
        spec["_block"] = build_block(spec)
        img = render_scene(spec, rng)
        img = damage(img, spec, rng)
    return img


def truth_line(spec):
    barcodes, books = [], []
    if spec["kind"] == "barcode":
        kind, value = spec["code"]
        code = canonical(kind, value)
        if spec.get("addon"):
            code += " " + spec["addon"]
        barcodes.append(code)
        if spec.get("book"):
            t, a, isbn = BOOKS[spec["book"]][:3]
            books.append({"title": t, "authors": a, "isbn13": isbn})
    return {"image": "barcodes/" + spec["name"], "kind": spec["kind"], "books": books,
            "barcodes": barcodes, "unlabelled_regions": False, "notes": notes_for(spec)}


# --------------------------------------------------------------------------------------
# EXIF orientation test images
# --------------------------------------------------------------------------------------

# Pillow's exif_transpose applies these to go from stored pixels to the displayed image;
# we store the inverse transform of the displayed image.
EXIF_APPLY = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
EXIF_INVERSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def displayed_orientation_image():
    img = Image.new("RGB", (120, 80), (255, 255, 255))
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, 29, 29], fill=(255, 0, 0))
    d.rectangle([90, 50, 119, 79], fill=(0, 0, 255))
    return img


def check_displayed(img):
    """Sample the displayed image: red block top-left, blue bottom-right, white elsewhere."""
    assert img.size == (120, 80), img.size
    a = np.asarray(img.convert("RGB"), np.int32)

    def near(px, col, tol=40):
        return all(abs(int(px[i]) - col[i]) <= tol for i in range(3))
    for (x, y), col in [((2, 2), (255, 0, 0)), ((15, 15), (255, 0, 0)), ((27, 27), (255, 0, 0)),
                        ((92, 52), (0, 0, 255)), ((105, 65), (0, 0, 255)),
                        ((117, 77), (0, 0, 255)),
                        ((117, 2), (255, 255, 255)), ((2, 77), (255, 255, 255)),
                        ((60, 40), (255, 255, 255)), ((40, 15), (255, 255, 255)),
                        ((80, 65), (255, 255, 255)), ((33, 15), (255, 255, 255)),
                        ((15, 33), (255, 255, 255)), ((86, 65), (255, 255, 255)),
                        ((105, 46), (255, 255, 255))]:
        assert near(a[y, x], col), ((x, y), a[y, x], col)


def make_orientation(outdir: Path):
    outdir.mkdir(parents=True, exist_ok=True)
    shown = displayed_orientation_image()
    for n in range(1, 9):
        stored = shown.transpose(EXIF_INVERSE[n]) if n in EXIF_INVERSE else shown.copy()
        assert (stored.transpose(EXIF_APPLY[n]) if n in EXIF_APPLY else stored).tobytes() \
            == shown.tobytes()
        exif = Image.Exif()
        exif[0x0112] = n
        path = outdir / f"exif-{n}.jpg"
        stored.save(path, quality=95, subsampling=0, exif=exif)
        with Image.open(path) as im:
            assert im.getexif().get(0x0112) == n
            assert im.size == stored.size
            check_displayed(ImageOps.exif_transpose(im))
    (outdir / "README.md").write_text(
        "exif-N.jpg: 120x80 (as displayed) JPEGs whose EXIF Orientation tag is N (1-8); the stored pixels are\n"
        "transformed so that, after applying the orientation, each shows a red 30x30 block top-left and a blue 30x30 block bottom-right on white.\n")


# ======================================================================================
# Text corpus: book spines on shelves, piles of books, front covers, photos without books
# ======================================================================================
#
# Every book shown comes from TEXT_BOOKS (real titles, authors and ISBN-13s picked from the
# goodbooks-10k and library-dataset catalogues and written here literally). The truth line of
# an image lists every book drawn in it, with the title and authors from TEXT_BOOKS (spines
# and covers sometimes print the title in capitals or leave the author out; the truth keeps
# the catalogue capitalisation and always lists the authors).

FONT_PACKAGES = ["fonts-dejavu-core", "fonts-dejavu-extra", "fonts-liberation",
                 "fonts-freefont-ttf", "fonts-crosextra-carlito", "fonts-crosextra-caladea",
                 "fonts-open-sans", "fonts-urw-base35"]
FONT_APT = "apt-get install -y --no-install-recommends " + " ".join(FONT_PACKAGES)

_DJ = "/usr/share/fonts/truetype/dejavu/"
_LB = "/usr/share/fonts/truetype/liberation/"
_FF = "/usr/share/fonts/truetype/freefont/"
_CX = "/usr/share/fonts/truetype/crosextra/"
_OS = "/usr/share/fonts/truetype/open-sans/"
_UR = "/usr/share/fonts/opentype/urw-base35/"

# name: (file, Debian package, style)
TEXT_FONTS = {
    "DejaVu Sans Bold": (_DJ + "DejaVuSans-Bold.ttf", "fonts-dejavu-core", "bold"),
    "DejaVu Sans": (_DJ + "DejaVuSans.ttf", "fonts-dejavu-core", "regular"),
    "DejaVu Sans Condensed Bold": (_DJ + "DejaVuSansCondensed-Bold.ttf", "fonts-dejavu-extra",
                                   "bold"),
    "DejaVu Serif Bold": (_DJ + "DejaVuSerif-Bold.ttf", "fonts-dejavu-core", "bold"),
    "DejaVu Serif Italic": (_DJ + "DejaVuSerif-Italic.ttf", "fonts-dejavu-extra", "italic"),
    "Liberation Sans": (_LB + "LiberationSans-Regular.ttf", "fonts-liberation", "regular"),
    "Liberation Sans Bold": (_LB + "LiberationSans-Bold.ttf", "fonts-liberation", "bold"),
    "Liberation Sans Narrow Bold": (_LB + "LiberationSansNarrow-Bold.ttf", "fonts-liberation",
                                    "bold"),
    "Liberation Serif": (_LB + "LiberationSerif-Regular.ttf", "fonts-liberation", "regular"),
    "Liberation Serif Bold": (_LB + "LiberationSerif-Bold.ttf", "fonts-liberation", "bold"),
    "Liberation Serif Italic": (_LB + "LiberationSerif-Italic.ttf", "fonts-liberation",
                                "italic"),
    "FreeSans Bold": (_FF + "FreeSansBold.ttf", "fonts-freefont-ttf", "bold"),
    "FreeSerif": (_FF + "FreeSerif.ttf", "fonts-freefont-ttf", "regular"),
    "FreeSerif Bold": (_FF + "FreeSerifBold.ttf", "fonts-freefont-ttf", "bold"),
    "FreeSerif Italic": (_FF + "FreeSerifItalic.ttf", "fonts-freefont-ttf", "italic"),
    "Carlito": (_CX + "Carlito-Regular.ttf", "fonts-crosextra-carlito", "regular"),
    "Carlito Bold": (_CX + "Carlito-Bold.ttf", "fonts-crosextra-carlito", "bold"),
    "Caladea": (_CX + "Caladea-Regular.ttf", "fonts-crosextra-caladea", "regular"),
    "Caladea Bold": (_CX + "Caladea-Bold.ttf", "fonts-crosextra-caladea", "bold"),
    "Caladea Italic": (_CX + "Caladea-Italic.ttf", "fonts-crosextra-caladea", "italic"),
    "Open Sans": (_OS + "OpenSans-Regular.ttf", "fonts-open-sans", "regular"),
    "Open Sans Bold": (_OS + "OpenSans-Bold.ttf", "fonts-open-sans", "bold"),
    "Open Sans Condensed Bold": (_OS + "OpenSans-CondBold.ttf", "fonts-open-sans", "bold"),
    "Open Sans Italic": (_OS + "OpenSans-Italic.ttf", "fonts-open-sans", "italic"),
    "Nimbus Sans Bold": (_UR + "NimbusSans-Bold.otf", "fonts-urw-base35", "bold"),
    "Nimbus Sans Narrow Bold": (_UR + "NimbusSansNarrow-Bold.otf", "fonts-urw-base35", "bold"),
    "Nimbus Roman": (_UR + "NimbusRoman-Regular.otf", "fonts-urw-base35", "regular"),
    "Nimbus Roman Bold": (_UR + "NimbusRoman-Bold.otf", "fonts-urw-base35", "bold"),
    "C059 Roman": (_UR + "C059-Roman.otf", "fonts-urw-base35", "regular"),
    "C059 Bold": (_UR + "C059-Bold.otf", "fonts-urw-base35", "bold"),
    "P052 Roman": (_UR + "P052-Roman.otf", "fonts-urw-base35", "regular"),
    "P052 Bold": (_UR + "P052-Bold.otf", "fonts-urw-base35", "bold"),
    "P052 Italic": (_UR + "P052-Italic.otf", "fonts-urw-base35", "italic"),
    "URW Bookman Light": (_UR + "URWBookman-Light.otf", "fonts-urw-base35", "regular"),
    "URW Bookman Demi": (_UR + "URWBookman-Demi.otf", "fonts-urw-base35", "bold"),
    "URW Gothic Book": (_UR + "URWGothic-Book.otf", "fonts-urw-base35", "regular"),
    "URW Gothic Demi": (_UR + "URWGothic-Demi.otf", "fonts-urw-base35", "bold"),
}
TITLE_FONTS = [n for n, v in TEXT_FONTS.items() if v[2] != "italic"]
AUTHOR_FONTS = list(TEXT_FONTS)
NARROW_FONTS = ["Liberation Sans Narrow Bold", "Nimbus Sans Narrow Bold",
                "Open Sans Condensed Bold", "DejaVu Sans Condensed Bold"]


def check_fonts():
    """Exit with a clear message when a font file (and so its Debian package) is missing."""
    need = {str(FONT_DIR / f): "fonts-dejavu-core" for f in (
        "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSerif.ttf",
        "DejaVuSerif-Bold.ttf")}
    need[str(FONT_DIR / "DejaVuSerif-Italic.ttf")] = "fonts-dejavu-extra"
    for path, pkg, _ in TEXT_FONTS.values():
        need[path] = pkg
    missing = sorted((pkg, path) for path, pkg in need.items() if not os.path.exists(path))
    if missing:
        pkgs = sorted({p for p, _ in missing})
        sys.exit("make-sample-images.py: missing font files:\n"
                 + "".join(f"  {path}  (Debian package {pkg})\n" for pkg, path in missing)
                 + f"Install the missing package(s) with:\n  apt-get install -y {' '.join(pkgs)}\n"
                 + f"(all fonts the script uses: {FONT_APT})")


_tfont_cache = {}


def tfont(name, size):
    size = max(6, int(round(size)))
    key = (name, size)
    if key not in _tfont_cache:
        _tfont_cache[key] = ImageFont.truetype(TEXT_FONTS[name][0], size)
    return _tfont_cache[key]


_glyph_cache = {}


def has_glyphs(name, text):
    """True when the font draws every non-space character of text (not its .notdef box)."""
    f = tfont(name, 30)
    if name not in _glyph_cache:
        nd = f.getmask("\uffff")
        _glyph_cache[name] = (nd.size, bytes(nd))
    for c in set(text):
        if c.isspace():
            continue
        m = f.getmask(c)
        if m.size[1] == 0 or (m.size, bytes(m)) == _glyph_cache[name]:
            return False
    return True


def ink_box(f, text):
    """Ink box of text drawn with anchor 'ls' (left end of the baseline)."""
    return f.getbbox(text, anchor="ls")


def ink_height(f, text):
    b = ink_box(f, text)
    return b[3] - b[1]


def split_lines(text, n, f):
    """Split text at spaces into n lines, minimising the longest line; None if impossible."""
    words = text.split()
    if n == 1:
        return [text]
    if n > len(words):
        return None
    best, best_len = None, None
    for cuts in itertools.combinations(range(1, len(words)), n - 1):
        bounds = (0,) + cuts + (len(words),)
        lines = [" ".join(words[a:b]) for a, b in zip(bounds, bounds[1:])]
        longest = max(f.getlength(x) for x in lines)
        if best_len is None or longest < best_len - 0.01:
            best, best_len = lines, longest
    return best


def fit_text(text, fname, max_len, max_across, target_h, min_h, max_lines=3, spacing=1.12):
    """Largest font size whose ink height (of the whole text) is <= target_h and >= min_h and
    whose lines (1..max_lines, split at spaces) fit in max_len x max_across. None if none fits."""
    if target_h < min_h or max_len <= 0:
        return None
    size = int(target_h / 0.55) + 2
    while size >= 6:
        f = tfont(fname, size)
        h = ink_height(f, text)
        if h < min_h:
            return None
        if h <= target_h:
            for n in range(1, max_lines + 1):
                lines = split_lines(text, n, f)
                if lines is None:
                    break
                pitch = size * spacing
                across = h + (n - 1) * pitch
                length = max(f.getlength(x) for x in lines)
                if across > max_across:
                    break
                if length <= max_len:
                    return dict(font=fname, size=size, lines=lines, h=h, pitch=pitch,
                                across=across, len=length, top=-ink_box(f, text)[1])
        size -= 1
    return None


def draw_lines(draw, fit, x0, x1, y_centre, fill, align="centre"):
    """Draw a fitted text block between x0 and x1, its ink block centred on y_centre."""
    f = tfont(fit["font"], fit["size"])
    y = y_centre - fit["across"] / 2 + fit["top"]
    for line in fit["lines"]:
        lw = f.getlength(line)
        x = x0 + (x1 - x0 - lw) / 2 if align == "centre" else (x0 if align == "start"
                                                                  else x1 - lw)
        draw.text((x, y), line, font=f, fill=fill, anchor="ls")
        y += fit["pitch"]


def lum(c):
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]


def pick(rng, seq):
    return seq[int(rng.integers(len(seq)))]


# --------------------------------------------------------------------------------------
# The books (real titles and authors; ISBN-13 from the catalogue, None where it has none)
# --------------------------------------------------------------------------------------

# (title as printed, authors, isbn13 or None, language)
TEXT_BOOKS = [
    # goodbooks-10k
    ("The Odyssey", ["Homer"], "9780143039952", "en"),
    ("1984", ["George Orwell"], "9780451524935", "en"),
    ("Pride and Prejudice", ["Jane Austen"], "9780679783268", "en"),
    ("The Hobbit", ["J.R.R. Tolkien"], "9780618260300", "en"),
    ("To Kill a Mockingbird", ["Harper Lee"], "9780061120084", "en"),
    ("The Great Gatsby", ["F. Scott Fitzgerald"], "9780743273565", "en"),
    ("Jane Eyre", ["Charlotte Brontë"], "9780142437209", "en"),
    ("Frankenstein", ["Mary Wollstonecraft Shelley"], "9780141439471", "en"),
    ("Dracula", ["Bram Stoker"], "9780393970128", "en"),
    ("Brave New World", ["Aldous Huxley"], "9780060929879", "en"),
    ("Lord of the Flies", ["William Golding"], "9780140283334", "en"),
    ("Crime and Punishment", ["Fyodor Dostoyevsky"], "9780143058144", "en"),
    ("Catch-22", ["Joseph Heller"], "9780684833392", "en"),
    ("Dune", ["Frank Herbert"], "9780340839935", "en"),
    ("Emma", ["Jane Austen"], "9780141439587", "en"),
    ("It", ["Stephen King"], "9780451169518", "en"),
    ("Beloved", ["Toni Morrison"], "9781400033416", "en"),
    ("Rebecca", ["Daphne du Maurier"], "9781844080380", "en"),
    ("Matilda", ["Roald Dahl"], "9780141301068", "en"),
    ("Holes", ["Louis Sachar"], "9780439244190", "en"),
    ("Room", ["Emma Donoghue"], "9780316098335", "en"),
    ("Carrie", ["Stephen King"], "9781416524304", "en"),
    ("Misery", ["Stephen King"], "9780450417399", "en"),
    ("Coraline", ["Neil Gaiman"], "9780061139376", "en"),
    ("Stardust", ["Neil Gaiman"], "9780061142024", "en"),
    ("Siddhartha", ["Hermann Hesse"], "9780553208849", "en"),
    ("Atonement", ["Ian McEwan"], "9780385721790", "en"),
    ("Persuasion", ["Jane Austen"], "9780192802637", "en"),
    ("Middlemarch", ["George Eliot"], "9780451529176", "en"),
    ("Ulysses", ["James Joyce"], "9780679722762", "en"),
    ("Gilead", ["Marilynne Robinson"], "9780312424404", "en"),
    ("Lolita", ["Vladimir Nabokov"], None, "en"),
    ("Macbeth", ["William Shakespeare"], "9780743477109", "en"),
    ("The Road", ["Cormac McCarthy"], "9780307265432", "en"),
    ("A Game of Thrones", ["George R.R. Martin"], "9780553588484", "en"),
    ("The Catcher in the Rye", ["J.D. Salinger"], "9780316769174", "en"),
    ("A Tale of Two Cities", ["Charles Dickens"], "9780141439600", "en"),
    ("The Name of the Wind", ["Patrick Rothfuss"], "9780756404079", "en"),
    ("A Clockwork Orange", ["Anthony Burgess"], "9780393312836", "en"),
    ("The Bell Jar", ["Sylvia Plath"], "9780061148514", "en"),
    ("The Color Purple", ["Alice Walker"], "9780671727796", "en"),
    ("A Wrinkle in Time", ["Madeleine L'Engle"], "9780440498056", "en"),
    ("The Old Man and the Sea", ["Ernest Hemingway"], "9780684830490", "en"),
    ("The Picture of Dorian Gray", ["Oscar Wilde"], "9780375751516", "en"),
    ("The Handmaid's Tale", ["Margaret Atwood"], "9780385490818", "en"),
    ("A Room with a View", ["E.M. Forster"], "9781420925432", "en"),
    ("The Secret History", ["Donna Tartt"], "9781400031702", "en"),
    ("An Abundance of Katherines", ["John Green"], "9780525476887", "en"),
    ("The Alchemist", ["Paulo Coelho"], "9780061122415", "en"),
    ("The Kite Runner", ["Khaled Hosseini"], "9781594480003", "en"),
    ("The Little Prince", ["Antoine de Saint-Exupéry"], "9780156012195", "en"),
    ("The Curious Incident of the Dog in the Night-Time", ["Mark Haddon"], "9781400032716",
     "en"),
    ("Extremely Loud and Incredibly Close", ["Jonathan Safran Foer"], "9780618711659", "en"),
    ("The Hitchhiker's Guide to the Galaxy", ["Douglas Adams"], "9780345391803", "en"),
    ("Do Androids Dream of Electric Sheep?", ["Philip K. Dick"], "9780345404473", "en"),
    ("One Flew Over the Cuckoo's Nest", ["Ken Kesey"], "9780451163967", "en"),
    ("The Strange Case of Dr. Jekyll and Mr. Hyde", ["Robert Louis Stevenson"],
     "9780451528957", "en"),
    ("Zen and the Art of Motorcycle Maintenance", ["Robert M. Pirsig"], "9780060589462", "en"),
    ("The Perks of Being a Wallflower", ["Stephen Chbosky"], "9780671027346", "en"),
    ("Midnight in the Garden of Good and Evil", ["John Berendt"], "9780679751526", "en"),
    ("The Guernsey Literary and Potato Peel Pie Society", ["Mary Ann Shaffer", "Annie Barrows"],
     "9780385340991", "en"),
    ("Of Mice and Men", ["John Steinbeck"], "9780142000670", "en"),
    ("Moby-Dick", ["Herman Melville"], "9780142437247", "en"),
    ("Little Women", ["Louisa May Alcott"], "9780451529305", "en"),
    ("Wuthering Heights", ["Emily Brontë"], "9780393978896", "en"),
    ("Slaughterhouse-Five", ["Kurt Vonnegut"], "9780385333849", "en"),
    ("Animal Farm", ["George Orwell"], "9780452284241", "en"),
    ("Sense and Sensibility", ["Jane Austen"], "9780141439662", "en"),
    ("Great Expectations", ["Charles Dickens"], "9780192833594", "en"),
    ("Anna Karenina", ["Leo Tolstoy"], "9780345803924", "en"),
    ("Life of Pi", ["Yann Martel"], "9780770430078", "en"),
    ("Good Omens", ["Terry Pratchett", "Neil Gaiman"], "9780060853983", "en"),
    ("Love in the Time of Cholera", ["Gabriel García Márquez"], "9781400034680", "en"),
    ("Fahrenheit 451", ["Ray Bradbury"], "9780307347978", "es"),  # Spanish edition
    ("El túnel", ["Ernesto Sabato"], "9789871144266", "es"),
    ("La catedral del mar", ["Ildefonso Falcones"], "9780307376657", "es"),
    ("Paula", ["Isabel Allende"], "9788497593885", "es"),
    ("Marina", ["Carlos Ruiz Zafón"], "9788423648993", "es"),
    ("Travesuras de la niña mala", ["Mario Vargas Llosa"], "9789707704664", "es"),
    ("El coronel no tiene quien le escriba", ["Gabriel García Márquez"], "9780307350435", "es"),
    ("La ciudad y los perros", ["Mario Vargas Llosa"], "9788466309158", "es"),
    ("La tregua", ["Mario Benedetti"], "9789707311169", "es"),
    ("Las batallas en el desierto", ["José Emilio Pacheco"], "9789684114739", "es"),
    ("Bonjour tristesse", ["Françoise Sagan"], "9782266127745", "fr"),
    ("L'Écume des jours", ["Boris Vian"], "9782253140870", "fr"),
    ("Le Petit Nicolas", ["René Goscinny", "Jean-Jacques Sempé"], "9782070364237", "fr"),
    ("La Vérité sur l'affaire Harry Quebert", ["Joël Dicker"], "9782877068161", "fr"),
    ("La Mécanique du cœur", ["Mathias Malzieu"], "9782081208162", "fr"),
    ("Soumission", ["Michel Houellebecq"], "9782081354807", "fr"),
    ("Stupeur et tremblements", ["Amélie Nothomb"], None, "fr"),
    ("HHhH", ["Laurent Binet"], "9782246760016", "fr"),
    # library-dataset (a Catalan public library)
    ("Harry Potter and the Philosopher's Stone", ["J.K. Rowling"], "9781408855652", "en"),
    ("Los libros y la libertad", ["Emilio Lledó"], "9788490065686", "es"),
    ("La plaça del Diamant", ["Mercè Rodoreda"], "9788473291200", "ca"),
    ("Mirall trencat", ["Mercè Rodoreda"], "9788473291149", "ca"),
    ("Jo confesso", ["Jaume Cabré"], "9788475882536", "ca"),
    ("Incerta glòria", ["Joan Sales"], "9788473291767", "ca"),
    ("Mecanoscrit del segon origen", ["Manuel de Pedrolo"], "9788499305790", "ca"),
    ("Terra baixa", ["Àngel Guimerà"], "9788424658601", "ca"),
    ("Tirant lo Blanc", ["Joanot Martorell"], "9788472268937", "ca"),
    ("Canto jo i la muntanya balla", ["Irene Solà"], "9788433915689", "ca"),
    ("La pell freda", ["Albert Sánchez Piñol"], "9788496735071", "ca"),
    ("Victus", ["Albert Sánchez Piñol"], "9788496735729", "ca"),
    ("Els jocs de la fam", ["Suzanne Collins"], "9788492671212", "ca"),
    ("Cien años de soledad", ["Gabriel García Márquez"], "9788439732471", "es"),
    ("La sombra del viento", ["Carlos Ruiz Zafón"], "9788408043645", "es"),
    ("Nada", ["Carmen Laforet"], "9788423341191", "es"),
    ("Cinco horas con Mario", ["Miguel Delibes"], "9788423342563", "es"),
    ("Campos de Castilla", ["Antonio Machado"], "9788420675763", "es"),
    ("Bodas de sangre", ["Federico García Lorca"], "9788437605609", "es"),
    ("Ficciones", ["Jorge Luis Borges"], "9788499089508", "es"),
    ("Historias de cronopios y de famas", ["Julio Cortázar"], "9788420406794", "es"),
    ("Don Quijote de la Mancha", ["Miguel de Cervantes"], "9788467035704", "es"),
    ("Hija de la fortuna", ["Isabel Allende"], "9788497592536", "es"),
]
_titles = [b[0] for b in TEXT_BOOKS]
assert len(_titles) == len(set(_titles))
for _b in TEXT_BOOKS:
    assert _b[2] is None or (gtin_valid(_b[2]) and _b[2][:3] in ("978", "979")), _b
    assert _b[3] in ("en", "es", "ca", "fr"), _b
for _k, _b in BOOKS.items():  # books shared with the barcode set carry the same ISBN
    for _t in TEXT_BOOKS:
        if _t[0].lower() == _b[0].lower():
            assert _t[2] == _b[2] and _t[1] == _b[1], (_k, _t)
BOOK_BY_TITLE = {b[0]: b for b in TEXT_BOOKS}


def book_truth(b):
    return {"title": b[0], "authors": list(b[1]), "isbn13": b[2]}


# --------------------------------------------------------------------------------------
# Book spines
# --------------------------------------------------------------------------------------

SPINE_COLOURS = [
    (142, 30, 38), (28, 44, 88), (30, 80, 52), (214, 170, 60), (236, 228, 210), (24, 24, 26),
    (245, 244, 240), (30, 110, 120), (220, 110, 40), (88, 44, 110), (110, 70, 40),
    (128, 132, 138), (226, 150, 160), (150, 190, 220), (196, 40, 40), (60, 60, 70),
    (180, 200, 150), (250, 214, 80), (16, 70, 100), (200, 190, 170),
]
INK_COLOURS = [(250, 248, 240), (236, 204, 112), (255, 255, 255), (20, 20, 22), (60, 30, 20),
               (25, 35, 70), (120, 20, 20)]
SPINE_TITLE_H = (18, 40)   # ink height of spine titles at scale 1 (px)
SPINE_AUTHOR_MIN_H = 11    # smallest author ink height at scale 1 (px)


def spine_style(rng, narrow=False):
    bg = pick(rng, SPINE_COLOURS)
    inks = [c for c in INK_COLOURS if abs(lum(c) - lum(bg)) >= 105]
    fg = pick(rng, inks)
    tf = pick(rng, NARROW_FONTS if narrow else TITLE_FONTS)
    r = rng.random()
    af = (tf if r < 0.4 else pick(rng, AUTHOR_FONTS))
    return dict(
        bg=bg, fg=fg, title_font=tf, author_font=af,
        upper=rng.random() < 0.3, author_upper=rng.random() < 0.35,
        author_modes=pick(rng, [["end", "below"], ["below", "end"], ["end", "below"],
                                ["below", "end"], ["none"]]),
        author_first=rng.random() < 0.25,
        title_target=rng.uniform(0.45, 1.0),
        author_ratio=rng.uniform(0.55, 0.75),
        align=pick(rng, ["centre", "centre", "start"]),
        bands=rng.random() < 0.35,
        two_tone=pick(rng, SPINE_COLOURS) if rng.random() < 0.25 else None,
        mark=pick(rng, ["circle", "square", "diamond", None, None]),
        shade=rng.uniform(0.16, 0.3),
    )


def layout_spine(book, st, L, w, s):
    """Place title (and author) on an L x w spine strip (text along L). None if it cannot fit."""
    title, authors = book[0], book[1]
    t_text = title.upper() if st["upper"] else title
    a_text = " & ".join(authors)
    if st["author_upper"]:
        a_text = a_text.upper()
    for fn in (st["title_font"], st["author_font"]):
        if not has_glyphs(fn, t_text + a_text):
            raise SystemExit(f"font {fn} lacks a glyph of {t_text!r} / {a_text!r}")
    pad = max(3.0 * s, 0.1 * w)
    across = w - 2 * pad
    m = 0.05 * L
    mark_len = min(0.55 * w, 30 * s) + 0.03 * L if st["mark"] else 0
    usable = L - 2 * m - mark_len
    tmin, tmax = SPINE_TITLE_H[0] * s, SPINE_TITLE_H[1] * s
    target = min(tmin + st["title_target"] * (tmax - tmin), across)
    if target < tmin:
        return None
    amin = SPINE_AUTHOR_MIN_H * s
    for mode in st["author_modes"] + ["none"]:
        if mode == "none":
            t = fit_text(t_text, st["title_font"], usable, across, target, tmin)
            if t:
                return dict(mode="none", title=t, author=None, usable=usable, m=m,
                            mark_len=mark_len)
            continue
        # the author is smaller than the title: try author heights from
        # author_ratio x title target down to the minimum
        a_target = min(target * st["author_ratio"], across)
        while a_target >= amin:
            if mode == "end":  # title and author one after the other along the spine
                a = fit_text(a_text, st["author_font"], usable * 0.45, across, a_target, amin,
                             max_lines=1)
                t = a and fit_text(t_text, st["title_font"], usable - a["len"] - 0.06 * L,
                                   across, target, tmin)
                if t and a["h"] <= 0.85 * t["h"]:
                    return dict(mode="end", title=t, author=a, usable=usable, m=m,
                                mark_len=mark_len)
            else:  # "below": author line under the title line(s), across the spine
                a = fit_text(a_text, st["author_font"], usable, across, a_target, amin,
                             max_lines=1)
                gap = a and 0.35 * a["h"] + 2 * s
                t = a and fit_text(t_text, st["title_font"], usable,
                                   across - a["across"] - gap, target, tmin)
                if t and a["h"] <= 0.85 * t["h"]:
                    return dict(mode="below", title=t, author=a, usable=usable, m=m,
                                mark_len=mark_len, gap=gap)
            a_target -= 1.5 * s
    return None


def draw_spine_strip(st, lay, L, w, s, bottom_end):
    """The spine as a horizontal L x w strip, its text reading left to right. bottom_end
    ('left' or 'right') is the end that is the bottom of the book (publisher mark there)."""
    L, w = int(round(L)), int(round(w))
    img = Image.new("RGB", (L, w), st["bg"])
    d = ImageDraw.Draw(img)
    m, mark_len = lay["m"], lay["mark_len"]
    fg = st["fg"]
    if bottom_end == "left":
        region = (m + mark_len, L - m)
        mark_c = m + mark_len / 2 - 0.015 * L
        tone = (0, m + mark_len - 0.015 * L)
    else:
        region = (m, L - m - mark_len)
        mark_c = L - m - mark_len / 2 + 0.015 * L
        tone = (L - m - mark_len + 0.015 * L, L)
    if st["two_tone"] and mark_len:
        d.rectangle([tone[0], 0, tone[1], w], fill=st["two_tone"])
    if st["bands"]:
        bw = max(2, int(2.5 * s))
        for x in (0.4 * m, L - 0.4 * m):
            d.rectangle([x - bw, 0, x + bw, w], fill=fg)
    if st["mark"]:
        r = min(0.55 * w, 30 * s) / 2
        cy = w / 2
        mc = fg if not (st["two_tone"]) else (fg if abs(lum(fg) - lum(st["two_tone"])) > 80
                                               else st["bg"])
        if st["mark"] == "circle":
            d.ellipse([mark_c - r, cy - r, mark_c + r, cy + r], outline=mc,
                      width=max(2, int(r / 4)))
        elif st["mark"] == "square":
            d.rectangle([mark_c - r * 0.8, cy - r * 0.8, mark_c + r * 0.8, cy + r * 0.8], fill=mc)
        else:
            d.polygon([(mark_c, cy - r), (mark_c + r, cy), (mark_c, cy + r), (mark_c - r, cy)],
                      fill=mc)
    t, a = lay["title"], lay["author"]
    x0, x1 = region
    if lay["mode"] == "none":
        draw_lines(d, t, x0, x1, w / 2, fg, st["align"])
    elif lay["mode"] == "below":
        total = t["across"] + lay["gap"] + a["across"]
        top = w / 2 - total / 2
        draw_lines(d, t, x0, x1, top + t["across"] / 2, fg, st["align"])
        draw_lines(d, a, x0, x1, top + t["across"] + lay["gap"] + a["across"] / 2, fg,
                   st["align"])
    else:  # title and author at opposite ends of the strip
        gap = 0.06 * L
        if st["author_first"]:
            draw_lines(d, a, x0, x0 + a["len"], w / 2, fg, "start")
            draw_lines(d, t, x0 + a["len"] + gap, x1, w / 2, fg, st["align"])
        else:
            draw_lines(d, t, x0, x1 - a["len"] - gap, w / 2, fg, st["align"])
            draw_lines(d, a, x1 - a["len"], x1, w / 2, fg, "start")
    # rounded-spine shading across the width
    ys = (np.arange(w, dtype=np.float32) + 0.5) / w
    prof = 1.0 - st["shade"] * (1.0 - np.sin(np.pi * ys) ** 0.7)
    arr = np.asarray(img, np.float32) * prof[:, None, None]
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))


def make_spine(book, L, w, s, rng, direction, narrow=False):
    """Design and draw one spine. direction: 'ttb', 'btt' (standing) or 'ltr' (lying).
    Returns (RGBA image of the book as seen, final spine width, info)."""
    st = spine_style(rng, narrow)
    wmax = 90 * s
    lay = None
    for attempt in range(40):
        lay = layout_spine(book, st, L, w, s)
        if lay:
            break
        if w < wmax:
            w = min(wmax, w + 5 * s)
        elif st["title_font"] not in NARROW_FONTS or st["upper"]:
            st["title_font"] = NARROW_FONTS[attempt % len(NARROW_FONTS)]
            st["upper"] = False
        elif st["mark"]:
            st["mark"] = None
        else:
            break
    if lay is None:
        raise SystemExit(f"cannot fit {book[0]!r} on a {L:.0f} px spine")
    bottom = {"ttb": "right", "btt": "left", "ltr": "right"}[direction]
    strip = draw_spine_strip(st, lay, L, w, s, bottom)
    if direction == "ttb":
        img = strip.transpose(Image.Transpose.ROTATE_270)
    elif direction == "btt":
        img = strip.transpose(Image.Transpose.ROTATE_90)
    else:
        img = strip
    info = dict(title_h=lay["title"]["h"], author=lay["author"] is not None,
                lines=len(lay["title"]["lines"]), font=lay["title"]["font"],
                author_font=lay["author"]["font"] if lay["author"] else None)
    return img.convert("RGBA"), int(round(w)), info


def make_across_spine(book, L, w, s, rng, direction):
    """A big-name paperback's spine: the author's name in large letters along it, the title
    printed across it (upright, a word or two a line) below, often in a paler ink than the name.
    Same return as make_spine."""
    st = spine_style(rng)
    L, w = int(round(L)), int(round(w))
    title, authors = book[0], book[1]
    a_text = (authors[0] if authors else "").upper()
    pad = max(3.0 * s, 0.1 * w)
    across = w - 2 * pad
    m = 0.05 * L
    img = Image.new("RGB", (w, L), st["bg"])
    d = ImageDraw.Draw(img)
    fg = st["fg"]
    # the title's ink: the name's, or (more often) a mix of it with the ground, still readable
    mix = rng.uniform(0.25, 0.4) if rng.random() < 0.6 else 0.0
    t_ink = tuple(int(round(f * (1 - mix) + b * mix)) for f, b in zip(fg, st["bg"]))
    # the author's name along the spine's upper half (no name that fits: a spine of the usual kind)
    a = a_text and fit_text(a_text, st["author_font"], 0.48 * L, across, min(across * 0.8, 40 * s),
                            SPINE_AUTHOR_MIN_H * s, max_lines=1)
    if not a:
        return None
    strip = Image.new("RGB", (int(round(0.48 * L)), w), st["bg"])
    draw_lines(ImageDraw.Draw(strip), a, 0, strip.width, w / 2, fg, "centre")
    turned = strip.transpose(Image.Transpose.ROTATE_270 if direction == "ttb"
                             else Image.Transpose.ROTATE_90)
    img.paste(turned, (0, int(m)))
    along_end = m + strip.width
    # the title across: the largest size (within limits) whose lines each fit the width
    words = (title.upper() if st["upper"] else title).split()
    fname = st["title_font"]
    room = (L - m) - (along_end + 0.04 * L)
    fit = None
    size = int(min(0.22 * w, 26 * s) / 0.7) + 2
    while size >= 6 and fit is None:
        f = tfont(fname, size)
        lines, cur = [], ""
        for wd in words:
            trial = (cur + " " + wd).strip()
            if f.getlength(trial) <= across:
                cur = trial
            else:
                if cur:
                    lines.append(cur)
                cur = wd
        lines.append(cur)
        h = ink_height(f, "HXgy")
        if all(f.getlength(x) <= across for x in lines) and len(lines) * size * 1.15 <= room \
                and h >= 9 * s:
            fit = (f, lines, size)
        size -= 1
    if fit is None:
        return None
    f, lines, size = fit
    top = along_end + 0.04 * L + (room - len(lines) * size * 1.15) / 2
    for i, line in enumerate(lines):
        lw = f.getlength(line)
        d.text((w / 2 - lw / 2, top + (i + 0.85) * size * 1.15), line, font=f, fill=t_ink, anchor="ls")
    # rounded-spine shading across the width
    xs = (np.arange(w, dtype=np.float32) + 0.5) / w
    prof = 1.0 - st["shade"] * (1.0 - np.sin(np.pi * xs) ** 0.7)
    arr = np.asarray(img, np.float32) * prof[None, :, None]
    img = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    info = dict(title_h=ink_height(f, title), author=True, lines=len(lines),
                font=fname, author_font=st["author_font"], across=True)
    return img.convert("RGBA"), w, info


# --------------------------------------------------------------------------------------
# Scenes: walls, wood, shelves
# --------------------------------------------------------------------------------------

WALLS = [(226, 218, 200), (206, 212, 204), (188, 204, 214), (232, 228, 222), (214, 196, 180),
         (170, 186, 170)]
WOODS = [(150, 100, 60), (120, 80, 50), (176, 130, 84), (96, 62, 40), (228, 224, 216)]


def wall_texture(w, h, rng, base):
    n = smooth_noise(rng, h, w, max(16, w // 6), octaves=2)
    a = (0.92 + 0.1 * n)[..., None] * np.array(base, np.float32)[None, None]
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def wood_texture(w, h, rng, base, vertical=False):
    """Wood with its grain along x (or along y when vertical)."""
    if vertical:
        return wood_texture(h, w, rng, base).transpose(Image.Transpose.ROTATE_90)
    gw = max(4, w // 14)
    n = smooth_noise(rng, h, gw, max(3, min(h, gw) // 2), octaves=2)
    g = np.asarray(Image.fromarray((n * 255).astype(np.uint8)).resize((w, h), Image.BILINEAR),
                   np.float32) / 255.0
    grain = 0.5 + 0.5 * np.sin((g * 5.0) * math.pi)
    f = 0.84 + 0.12 * grain + 0.06 * g
    a = f[..., None] * np.array(base, np.float32)[None, None]
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def scaled(c, f):
    return tuple(int(max(0, min(255, v * f))) for v in c)


def rot_pt(x, y, th):
    """Rotate (x, y) by th radians counter-clockwise as seen on screen (y down)."""
    return (x * math.cos(th) + y * math.sin(th), -x * math.sin(th) + y * math.cos(th))


def paste_rotated(layer, img, pivot_src, pivot_dst, deg):
    """Rotate img (RGBA) by deg (counter-clockwise) and paste it on layer so that the source
    point pivot_src lands on pivot_dst. Returns the four corners (dst coordinates)."""
    w, h = img.size
    if deg == 0:
        ox, oy = pivot_dst[0] - pivot_src[0], pivot_dst[1] - pivot_src[1]
        layer.alpha_composite(img, (int(round(ox)), int(round(oy))))
        return [(ox, oy), (ox + w, oy), (ox + w, oy + h), (ox, oy + h)]
    th = math.radians(deg)
    r = img.rotate(deg, resample=Image.BICUBIC, expand=True)
    c_src = (w / 2, h / 2)
    px, py = rot_pt(pivot_src[0] - c_src[0], pivot_src[1] - c_src[1], th)
    cx, cy = pivot_dst[0] - px, pivot_dst[1] - py
    ox, oy = cx - r.width / 2, cy - r.height / 2
    layer.alpha_composite(r, (int(round(ox)), int(round(oy))))
    dx, dy = int(round(ox)) - ox, int(round(oy)) - oy  # rounding of the paste position
    corners = []
    for x, y in ((0, 0), (w, 0), (w, h), (0, h)):
        u, v = rot_pt(x - c_src[0], y - c_src[1], th)
        corners.append((cx + u + dx, cy + v + dy))
    return corners


def cast_shadow(bg, layer, dx, dy, blur, strength):
    """Darken bg under a blurred, shifted copy of layer's alpha (computed at 1/4 size)."""
    a = layer.getchannel("A")
    small = a.reduce(4).filter(ImageFilter.GaussianBlur(max(1.0, blur / 4)))
    sh = small.resize(a.size, Image.BILINEAR)
    sh = shift_image(sh, int(dx), int(dy))
    arr = np.asarray(bg, np.float32)
    k = 1.0 - strength * np.asarray(sh, np.float32)[..., None] / 255.0
    return Image.fromarray(np.clip(arr * k, 0, 255).astype(np.uint8))


def shift_image(img, dx, dy):
    """img moved by (dx, dy), the uncovered part black."""
    out = Image.new(img.mode, img.size, 0)
    out.paste(img, (dx, dy))
    return out


def spine_width(rng, kind, s):
    if kind == "thin":
        lo, hi = pick(rng, [(25, 32), (25, 38), (30, 45), (40, 60)])
    elif kind == "wide":
        lo, hi = pick(rng, [(45, 65), (60, 90), (70, 90), (35, 50)])
    else:
        lo, hi = pick(rng, [(25, 34), (34, 50), (45, 65), (60, 90), (38, 58)])
    return rng.uniform(lo, hi) * s


def shelf_object(d, rng, x, y_floor, max_w, row_h, s):
    """A bookend, a plain box or a plant pot standing at x on the floor line; returns width."""
    kind = pick(rng, ["bookend", "box", "plant"])
    if kind == "bookend" or max_w < 90 * s:
        h = row_h * rng.uniform(0.3, 0.42)
        col = pick(rng, [(40, 40, 44), (150, 150, 155), (20, 20, 20)])
        d.rectangle([x, y_floor - h, x + 7 * s, y_floor], fill=col)
        d.rectangle([x, y_floor - 5 * s, x + 60 * s, y_floor], fill=col)
        return 60 * s
    if kind == "box":
        bw, bh = min(max_w, rng.uniform(120, 220) * s), row_h * rng.uniform(0.2, 0.35)
        col = pick(rng, [(200, 180, 150), (90, 110, 130), (160, 60, 50)])
        d.rectangle([x, y_floor - bh, x + bw, y_floor], fill=col)
        d.rectangle([x, y_floor - bh, x + bw, y_floor - bh + 10 * s], fill=scaled(col, 1.12))
        return bw
    pw, ph = min(max_w, rng.uniform(70, 110) * s), row_h * rng.uniform(0.18, 0.26)
    col = pick(rng, [(190, 90, 60), (230, 230, 225), (70, 90, 120)])
    d.polygon([(x, y_floor - ph), (x + pw, y_floor - ph), (x + pw * 0.85, y_floor),
               (x + pw * 0.15, y_floor)], fill=col)
    for i in range(7):
        cx = x + rng.uniform(0.3, 0.7) * pw
        cy = y_floor - ph - rng.uniform(0.1, 0.9) * row_h * 0.3
        r = rng.uniform(0.12, 0.25) * pw
        d.ellipse([cx - r, cy - r * 0.6, cx + r, cy + r * 0.6],
                  fill=pick(rng, [(60, 120, 60), (40, 100, 50), (80, 140, 70)]))
    return pw


def plan_row(rng, books, s, row_h, spec, direction_p):
    """Design the spines of one row: returns a list of items (books and gaps), left to right."""
    n = len(books)
    lean_left = set()
    lean_right = set()
    nl = spec.get("lean", 0)
    cand = list(range(1, n - 1))
    rng.shuffle(cand)
    for i in cand:
        if len(lean_left) + len(lean_right) >= nl:
            break
        if any(abs(i - j) < 3 for j in lean_left | lean_right):
            continue
        (lean_left if rng.random() < 0.6 else lean_right).add(i)
    gaps = set()
    for i in rng.permutation(np.arange(1, n))[:spec.get("gaps", 0)]:
        i = int(i)
        if i not in lean_left and i - 1 not in lean_right:
            gaps.add(i)
    items = []
    for i, b in enumerate(books):
        h = row_h * rng.uniform(*spec.get("book_h", (0.64, 0.93)))
        w = spine_width(rng, spec.get("widths", "mixed"), s)
        direction = "ttb" if rng.random() < direction_p else "btt"
        made = None
        if spec.get("across") and rng.random() < spec["across"]:
            made = make_across_spine(b, h, w, s, rng, direction)
        img, w, info = made or make_spine(b, h, w, s, rng, direction,
                                          narrow=rng.random() < spec.get("narrow", 0.1))
        lean = 0.0
        if i in lean_left:
            lean = rng.uniform(3, 8)
        elif i in lean_right:
            lean = -rng.uniform(3, 8)
        if i in gaps:
            items.append(("gap", rng.uniform(14, 60) * s))
        if lean > 0:
            items.append(("gap", h * math.sin(math.radians(lean)) + 2 * s))
        items.append(("book", b, img, w, h, direction, lean, info))
        if lean < 0:
            items.append(("gap", h * math.sin(math.radians(-lean)) + 2 * s))
    return items


def row_width(items):
    return sum(it[1] if it[0] == "gap" else it[3] for it in items)


def place_row(layer, items, x, y_floor):
    """Paste the spines of a row standing on y_floor from x rightwards; returns placed books
    [(book, corners, direction, lean, info)] and the x after the last book."""
    placed = []
    for it in items:
        if it[0] == "gap":
            x += it[1]
            continue
        _, b, img, w, h, direction, lean, info = it
        if lean > 0:    # leans left, resting on its bottom-left corner
            corners = paste_rotated(layer, img, (0, img.height), (x, y_floor), lean)
        elif lean < 0:  # leans right, resting on its bottom-right corner
            corners = paste_rotated(layer, img, (img.width, img.height), (x + w, y_floor), lean)
        else:
            corners = paste_rotated(layer, img, (0, img.height), (x, y_floor), 0)
        placed.append((b, corners, direction, lean, info))
        x += w
    return placed, x


def warp_to_frame(canvas, W, H, ox, oy, rot, persp, k):
    """Photograph the canvas: frame (ox, oy, W, H) of it, rotated by rot degrees, with a
    perspective (persp = (px, py) as fractions) and zoom k. Returns (image, canvas->frame H)."""
    CW, CH = canvas.size
    pp = (persp[0] / (W / 2), persp[1] / (H / 2))
    Hm = homography(k, rot, pp, (ox + W / 2, oy + H / 2), (W / 2, H / 2))
    Hi = np.linalg.inv(Hm)
    Hi /= Hi[2, 2]
    for x, y in apply_h(Hi, [(0, 0), (W, 0), (W, H), (0, H)]):
        assert 0 <= x <= CW and 0 <= y <= CH, ("frame leaves the canvas", x, y, CW, CH)
    img = canvas.transform((W, H), Image.PERSPECTIVE, tuple(Hi.flatten()[:8]),
                           resample=Image.BICUBIC)
    return img, Hm


def check_inside(Hm, placed, W, H, name, margin=0.005):
    """Every book drawn must lie inside the photo (the truth lists all of them)."""
    for b, corners, *_ in placed:
        for x, y in apply_h(Hm, corners):
            assert margin * W <= x <= (1 - margin) * W and margin * H <= y <= (1 - margin) * H, \
                (name, b[0], round(x), round(y))


def render_shelf(spec, books, rng):
    """A bookcase (2+ rows) or a wall shelf (1 row) full of standing books, photographed.
    books: one list per row. Returns (image at spec['render'] or spec['size'], placed books)."""
    W, H = spec.get("render", spec["size"])
    s = spec.get("scale", 1.0)
    name = spec["name"]
    nrows = len(books)
    ox, oy = int(W * 0.12), int(H * 0.12)
    CW, CH = W + 2 * ox, H + 2 * oy
    wall, wood = pick(rng, WALLS), pick(rng, WOODS)
    canvas = wall_texture(CW, CH, rng, wall)
    T, side = 34 * s, 42 * s
    if nrows == 1:
        floors = [oy + H * rng.uniform(0.8, 0.86)]
        row_hs = [H * rng.uniform(0.6, 0.7)]
    else:
        top, bottom = oy + H * 0.03, oy + H * 0.975
        R = (bottom - top - nrows * T) / nrows
        floors = [top + (i + 1) * R + i * T for i in range(nrows)]
        row_hs = [R] * nrows
    rows = []
    for i, (bk, rh) in enumerate(zip(books, row_hs)):
        rs = dict(spec)
        for key in ("lean", "gaps"):  # totals per image, spread over the rows
            rs[key] = spec.get(key, 0) // nrows + (i < spec.get(key, 0) % nrows)
        rows.append(plan_row(rng, bk, s, rh, rs, spec.get("ttb", 0.5)))
    widths = [row_width(r) for r in rows]
    max_iw = W * 0.95 - 2 * side
    if max(widths) > max_iw:
        raise SystemExit(f"{name}: a row is {max(widths):.0f} px wide, the shelf only "
                         f"{max_iw:.0f}; use fewer or thinner spines")
    IW = min(max_iw, max(widths) + W * rng.uniform(0.04, 0.14))
    slack = (max_iw - IW) / 2
    x_l = ox + (W - IW) / 2 + rng.uniform(-1, 1) * min(slack, W * 0.04)
    x_r = x_l + IW
    d = ImageDraw.Draw(canvas)
    if nrows == 1:
        y = floors[0]
        x0, x1 = int(x_l - 40 * s), int(x_r + 40 * s)
        for bx in (x0 + 0.15 * (x1 - x0), x0 + 0.85 * (x1 - x0)):  # brackets
            d.rectangle([bx, y + T, bx + 8 * s, y + T + 70 * s], fill=(60, 60, 64))
            d.line([bx + 4 * s, y + T + 60 * s, bx + 54 * s, y + T], fill=(60, 60, 64),
                   width=max(2, int(6 * s)))
        canvas.paste(wood_texture(x1 - x0, int(T), rng, wood), (x0, int(y)))
        d.rectangle([x0, y - 6 * s, x1, y], fill=scaled(wood, 1.15))
        d.line([x0, y + T, x1, y + T], fill=scaled(wood, 0.55), width=max(1, int(2 * s)))
    else:
        back = scaled(wood, 0.62) if wood != WOODS[-1] else (200, 196, 188)
        top_in = floors[0] - row_hs[0]
        d.rectangle([x_l, top_in, x_r, floors[-1]], fill=back)
        a = np.asarray(canvas, np.float32).copy()
        for f, rh in zip(floors, row_hs):  # shadow under each board
            y0, y1 = int(f - rh), int(f - rh + rh * 0.45)
            g = np.linspace(0.62, 1.0, y1 - y0, dtype=np.float32)[:, None, None]
            a[y0:y1, int(x_l):int(x_r)] *= g
        canvas = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        d = ImageDraw.Draw(canvas)
        y_top = int(top_in - T)
        for xs in (x_l - side, x_r):
            canvas.paste(wood_texture(int(side), CH - y_top, rng, wood, vertical=True),
                         (int(xs), y_top))
        for f in [top_in - T] + floors:
            bx0, by0 = int(x_l - side), int(f)
            canvas.paste(wood_texture(int(x_r + side) - bx0, int(T), rng, wood), (bx0, by0))
            d.line([bx0, by0, int(x_r + side), by0], fill=scaled(wood, 1.2),
                   width=max(1, int(2 * s)))
        d.rectangle([int(x_l - side), int(floors[-1] + T), int(x_r + side), CH],
                    fill=scaled(wood, 0.8))
    layer = Image.new("RGBA", (CW, CH), (0, 0, 0, 0))
    placed = []
    ld = ImageDraw.Draw(layer)
    for items, f, rh in zip(rows, floors, row_hs):
        x = x_l + rng.uniform(2, 14) * s
        p, x_end = place_row(layer, items, x, f)
        placed += p
        left = x_r - x_end
        if left > 100 * s and rng.random() < 0.8:
            shelf_object(ld, rng, x_end + rng.uniform(6, 20) * s, f, left - 30 * s, rh, s)
    canvas = cast_shadow(canvas, layer, 9 * s, 3 * s, 16 * s, 0.42 if nrows == 1 else 0.3)
    canvas.paste(layer, (0, 0), layer)
    if nrows > 1:  # the rows are darker near the board above them
        a = np.asarray(canvas, np.float32).copy()
        for f, rh in zip(floors, row_hs):
            y0, y1 = int(f - rh), int(f - rh * 0.55)
            g = np.linspace(0.8, 1.0, y1 - y0, dtype=np.float32)[:, None, None]
            a[y0:y1, int(x_l):int(x_r)] *= g
        canvas = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    img, Hm = warp_to_frame(canvas, W, H, ox, oy, spec.get("rot", 0.0),
                            spec.get("persp", (0.0, 0.0)), spec.get("zoom", 1.0))
    check_inside(Hm, placed, W, H, name)
    return img, placed


def render_stack(spec, books, rng):
    """Books lying flat in one pile on a table, spines towards the camera (text left to
    right)."""
    W, H = spec["size"]
    s = spec.get("scale", 1.0)
    ox, oy = int(W * 0.12), int(H * 0.12)
    CW, CH = W + 2 * ox, H + 2 * oy
    canvas = wall_texture(CW, CH, rng, pick(rng, WALLS))
    y_table = int(oy + H * rng.uniform(0.5, 0.62))
    wood = pick(rng, WOODS[:4])
    canvas.paste(wood_texture(CW, CH - y_table, rng, wood), (0, y_table))
    d = ImageDraw.Draw(canvas)
    d.line([0, y_table, CW, y_table], fill=scaled(wood, 1.25), width=int(3 * s))
    layer = Image.new("RGBA", (CW, CH), (0, 0, 0, 0))
    y = oy + H * rng.uniform(0.88, 0.93)
    xc = ox + W * rng.uniform(0.44, 0.56)
    lengths = sorted((W * rng.uniform(0.46, 0.7) for _ in books), reverse=True)
    placed = []
    for i, (b, L) in enumerate(zip(books, lengths)):
        L *= rng.uniform(0.94, 1.0)
        w = spine_width(rng, spec.get("widths", "mixed"), s)
        img, w, info = make_spine(b, L, w, s, rng, "ltr", narrow=rng.random() < 0.1)
        tilt = rng.uniform(-0.5, 0.5)
        x = xc + rng.uniform(-0.035, 0.035) * W
        corners = paste_rotated(layer, img, (img.width / 2, img.height), (x, y), tilt)
        placed.append((b, corners, "ltr", 0.0, info))
        y -= w + 1
    assert y > oy + 0.04 * H, (spec["name"], "pile too high")
    canvas = cast_shadow(canvas, layer, 14 * s, 6 * s, 20 * s, 0.45)
    canvas.paste(layer, (0, 0), layer)
    img, Hm = warp_to_frame(canvas, W, H, ox, oy, spec.get("rot", 0.0),
                            spec.get("persp", (0.0, 0.0)), spec.get("zoom", 1.0))
    check_inside(Hm, placed, W, H, spec["name"])
    placed.reverse()  # truth lists the pile from top to bottom
    return img, placed


# --------------------------------------------------------------------------------------
# Front covers
# --------------------------------------------------------------------------------------

def gradient(w, h, c1, c2, vertical=True):
    t = np.linspace(0, 1, h if vertical else w, dtype=np.float32)
    t = t[:, None, None] if vertical else t[None, :, None]
    a = np.array(c1, np.float32) * (1 - t) + np.array(c2, np.float32) * t
    a = np.broadcast_to(a, (h, w, 3))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def cover_art(book, c, rng, cw, ch):
    """Front cover: large title, author, optional subtitle / tagline, simple shapes."""
    style = c["style"]
    title = book[0].upper() if c.get("upper") else book[0]
    author = " & ".join(book[1])
    fg, tf, af = c["fg"], c["title_font"], c["author_font"]
    if style == "sun":
        img = gradient(cw, ch, c["c1"], c["c2"])
        d = ImageDraw.Draw(img)
        r = cw * 0.26
        d.ellipse([cw * 0.62 - r, ch * 0.52 - r, cw * 0.62 + r, ch * 0.52 + r], fill=c["c3"])
        for k, col in enumerate((scaled(c["c2"], 0.8), scaled(c["c2"], 0.65))):
            pts = [(0, ch)]
            for i in range(9):
                pts.append((cw * i / 8, ch * (0.7 + 0.06 * k) + ch * 0.04 *
                            math.sin(i * 1.3 + k * 2)))
            pts.append((cw, ch))
            d.polygon(pts, fill=col)
        title_box = (0.08, 0.07, 0.92, 0.34)
        author_box = (0.08, 0.86, 0.92, 0.95)
    elif style == "bauhaus":
        img = Image.new("RGB", (cw, ch), c["c1"])
        d = ImageDraw.Draw(img)
        for i in range(7):
            col = pick(rng, [c["c2"], c["c3"], (240, 236, 226), (30, 30, 34)])
            x, y = rng.uniform(0, cw), rng.uniform(ch * 0.52, ch * 0.95)
            r = rng.uniform(0.06, 0.16) * cw
            if i % 2:
                d.ellipse([x - r, y - r, x + r, y + r], fill=col)
            else:
                d.rectangle([x - r, y - r * 0.6, x + r * 1.4, y + r * 0.6], fill=col)
        d.rectangle([0, ch * 0.06, cw, ch * 0.46], fill=c["c4"])
        title_box = (0.07, 0.08, 0.93, 0.36)
        author_box = (0.07, 0.37, 0.93, 0.44)
    elif style == "classic":
        img = Image.new("RGB", (cw, ch), c["c1"])
        d = ImageDraw.Draw(img)
        for inset, wd in ((0.04, 6), (0.06, 2)):
            d.rectangle([cw * inset, ch * inset * cw / ch, cw * (1 - inset),
                         ch - cw * inset], outline=c["c2"], width=wd)
        for yy in (0.47, 0.5):
            d.line([cw * 0.3, ch * yy, cw * 0.7, ch * yy], fill=c["c2"], width=3)
        d.polygon([(cw * 0.5, ch * 0.465), (cw * 0.515, ch * 0.485), (cw * 0.5, ch * 0.505),
                   (cw * 0.485, ch * 0.485)], fill=c["c2"])
        title_box = (0.12, 0.14, 0.88, 0.44)
        author_box = (0.12, 0.56, 0.88, 0.64)
    else:  # split: two colours across a diagonal, with stripes
        img = Image.new("RGB", (cw, ch), c["c1"])
        d = ImageDraw.Draw(img)
        d.polygon([(0, ch * 0.55), (cw, ch * 0.35), (cw, ch), (0, ch)], fill=c["c2"])
        for i in range(4):
            off = ch * (0.02 + 0.035 * i)
            d.line([(0, ch * 0.55 + off), (cw, ch * 0.35 + off)], fill=c["c3"],
                   width=int(ch * 0.008))
        title_box = (0.08, 0.08, 0.92, 0.34)
        author_box = (0.08, 0.86, 0.92, 0.94)
    d = ImageDraw.Draw(img)
    tb = [title_box[0] * cw, title_box[1] * ch, title_box[2] * cw, title_box[3] * ch]
    sub = c.get("subtitle")
    sub_h = 0
    if sub:
        sfit = fit_text(sub, c.get("sub_font", af), tb[2] - tb[0], ch * 0.08, ch * 0.03,
                        ch * 0.018, max_lines=2)
        sub_h = sfit["across"] + ch * 0.025
    t = fit_text(title, tf, tb[2] - tb[0], tb[3] - tb[1] - sub_h, ch * c.get("title_h", 0.075),
                 ch * 0.03, max_lines=4, spacing=1.18)
    assert t, (book[0], "title does not fit the cover")
    ty = tb[1] + (tb[3] - tb[1] - sub_h) / 2
    draw_lines(d, t, tb[0], tb[2], ty, fg, c.get("align", "centre"))
    if sub:
        draw_lines(d, sfit, tb[0], tb[2], ty + t["across"] / 2 + ch * 0.025 + sfit["across"] / 2,
                   c.get("sub_fg", fg), c.get("align", "centre"))
    ab = [author_box[0] * cw, author_box[1] * ch, author_box[2] * cw, author_box[3] * ch]
    a = fit_text(author.upper() if c.get("author_upper") else author, af, ab[2] - ab[0],
                 ab[3] - ab[1], ch * 0.032, ch * 0.018, max_lines=1)
    draw_lines(d, a, ab[0], ab[2], (ab[1] + ab[3]) / 2, c.get("author_fg", fg),
               c.get("align", "centre"))
    if c.get("tagline"):
        g = fit_text(c["tagline"], af, cw * 0.6, ch * 0.04, ch * 0.018, ch * 0.012, max_lines=1)
        gy = {"sun": 0.39, "bauhaus": 0.5, "classic": 0.7, "split": 0.4}[style]
        draw_lines(d, g, cw * 0.2, cw * 0.8, ch * gy, c.get("tag_fg", fg), "centre")
    return img.convert("RGBA"), dict(title_h=t["h"], lines=len(t["lines"]))


def photo_of_card(card, W, H, rng, bg_kind, rot, persp, offset=(0, 0), shadow=True):
    """Lay a flat card (RGBA) on a background and photograph it (rotation, perspective)."""
    bg = background(bg_kind, W, H, rng)
    pp = (persp[0] / (W / 2), persp[1] / (H / 2))
    Hm = homography(1.0, rot, pp, (card.width / 2, card.height / 2),
                    (W / 2 + offset[0] * W, H / 2 + offset[1] * H))
    Hi = np.linalg.inv(Hm)
    Hi /= Hi[2, 2]
    warped = card.transform((W, H), Image.PERSPECTIVE, tuple(Hi.flatten()[:8]),
                            resample=Image.BICUBIC, fillcolor=(0, 0, 0, 0))
    if shadow:
        alpha = warped.getchannel("A").reduce(2).filter(ImageFilter.GaussianBlur(5))
        a = np.asarray(alpha.resize((W, H), Image.BILINEAR), np.float32) * 0.4
        a = np.roll(np.roll(a, 8, 0), 6, 1)
        bg = Image.composite(Image.new("RGB", (W, H), (0, 0, 0)), bg,
                             Image.fromarray(a.astype(np.uint8)))
    bg.paste(warped, (0, 0), warped)
    corners = apply_h(Hm, [(0, 0), (card.width, 0), (card.width, card.height),
                           (0, card.height)])
    return bg, corners


# --------------------------------------------------------------------------------------
# Photos without a book
# --------------------------------------------------------------------------------------

LETTER_TEXT = [
    "Dear Ms Ferrer,",
    "Thank you for your letter of 12 March and for the photographs of the garden wall. "
    "I visited the site on Tuesday morning with the builder, and we agree that the damage "
    "was caused by the roots of the old fig tree rather than by the recent storms.",
    "The builder proposes to take down the loose section, about four metres long, and to "
    "rebuild it on a new footing with the original stones where they can be saved. He "
    "expects the work to take six days once the weather is dry, and he can start in the "
    "second week of April.",
    "His estimate is enclosed. It includes the removal of the rubble and a new coping along "
    "the whole wall, but not the pruning of the tree, which the council must approve first. "
    "I have written to them today and will forward their answer as soon as it arrives.",
    "Please let me know whether these dates suit you, and whether you would like us to keep "
    "the iron gate in its present place or move it nearer to the lane.",
    "With kind regards,",
]


def scene_kitchen(W, H, rng):
    """A kitchen counter drawn with simple shapes: tiles, cupboards, kettle, mugs, fruit."""
    img = Image.new("RGB", (W, H), (236, 234, 226))
    d = ImageDraw.Draw(img)
    tile = int(W / 16)
    for y in range(0, int(H * 0.62), tile):  # tiled splashback
        for x in range(0, W, tile):
            c = 228 + int(rng.integers(-6, 7))
            d.rectangle([x + 2, y + 2, x + tile - 2, y + tile - 2], fill=(c, c + 2, c - 4))
    d.rectangle([0, 0, W, int(H * 0.2)], fill=(120, 150, 160))          # upper cupboards
    for i in range(4):
        x0 = i * W / 4
        d.rectangle([x0 + 6, 6, x0 + W / 4 - 6, H * 0.2 - 6], fill=(130, 162, 172))
        d.rectangle([x0 + W / 8 - 30, H * 0.17, x0 + W / 8 + 30, H * 0.18], fill=(60, 60, 60))
    d.rectangle([W * 0.62, H * 0.24, W * 0.92, H * 0.55], fill=(200, 225, 240))  # window
    d.rectangle([W * 0.77 - 5, H * 0.24, W * 0.77 + 5, H * 0.55], fill=(240, 240, 240))
    d.rectangle([0, H * 0.62, W, H * 0.68], fill=(90, 80, 72))          # worktop edge
    top = wood_texture(W, int(H * 0.32), rng, (170, 130, 90))
    img.paste(top, (0, int(H * 0.68)))
    d.rectangle([W * 0.08, H * 0.36, W * 0.24, H * 0.64], fill=(200, 60, 50))  # kettle
    d.ellipse([W * 0.08, H * 0.3, W * 0.24, H * 0.42], fill=(200, 60, 50))
    d.rectangle([W * 0.24, H * 0.42, W * 0.28, H * 0.5], fill=(40, 40, 40))
    for i, col in enumerate([(240, 240, 235), (70, 110, 170), (230, 190, 60)]):  # mugs
        x = W * (0.32 + 0.08 * i)
        d.rectangle([x, H * 0.5, x + W * 0.055, H * 0.64], fill=col)
        d.ellipse([x + W * 0.05, H * 0.53, x + W * 0.075, H * 0.6], outline=col,
                  width=int(W * 0.006))
    d.rectangle([W * 0.5, H * 0.58, W * 0.72, H * 0.66], fill=(190, 150, 100))  # board
    d.ellipse([W * 0.3, H * 0.7, W * 0.56, H * 0.86], fill=(235, 235, 230))  # bowl, fruit
    for i in range(6):
        x, y = W * rng.uniform(0.33, 0.5), H * rng.uniform(0.69, 0.76)
        r = W * 0.03
        d.ellipse([x - r, y - r, x + r, y + r],
                  fill=pick(rng, [(230, 140, 30), (200, 40, 40), (120, 170, 50)]))
    return img


def scene_letter_page():
    """A printed letter on A4-ish paper: letterhead, address, date, paragraphs, signature."""
    pw, ph = 840, 1188
    img = Image.new("RGBA", (pw, ph), (250, 249, 244, 255))
    d = ImageDraw.Draw(img)
    fh = tfont("Liberation Sans Bold", 30)
    d.text((70, 70), "Ribas & Hart, Surveyors", font=fh, fill=(30, 50, 90))
    fs = tfont("Liberation Sans", 17)
    d.text((70, 112), "14 Carrer de la Riera, 08301 Mataró  ·  +34 937 00 00 00", font=fs,
           fill=(60, 60, 70))
    d.line([70, 142, pw - 70, 142], fill=(30, 50, 90), width=2)
    fb = tfont("Liberation Serif", 22)
    y = 180
    for line in ["Ms Laia Ferrer", "Passeig del Mar 3", "08350 Arenys de Mar"]:
        d.text((70, y), line, font=fb, fill=(25, 25, 25))
        y += 28
    d.text((pw - 70, 180), "21 March", font=fb, fill=(25, 25, 25), anchor="ra")
    y += 40
    for para in LETTER_TEXT:
        for line in wrap(d, para, fb, pw - 140):
            d.text((70, y), line, font=fb, fill=(25, 25, 25))
            y += 30
        y += 16
    d.line([(80, y + 40), (120, y + 10), (150, y + 45), (190, y + 15), (230, y + 40)],
           fill=(20, 40, 120), width=3)
    d.text((70, y + 70), "Jordi Ribas", font=fb, fill=(25, 25, 25))
    assert y + 110 < ph
    return img


def scene_rug(W, H, rng):
    """A striped woven rug with fringes on a wooden floor."""
    img = wood_texture(W, H, rng, (150, 110, 74))
    rx0, rx1, ry0, ry1 = int(W * 0.1), int(W * 0.9), int(H * 0.12), int(H * 0.88)
    cols = [(170, 50, 45), (235, 225, 200), (40, 70, 110), (210, 160, 60), (90, 120, 80)]
    x = rx0
    rug = np.zeros((ry1 - ry0, rx1 - rx0, 3), np.float32)
    i = 0
    while x < rx1:
        w = int(rng.uniform(28, 110))
        rug[:, x - rx0:min(rx1, x + w) - rx0] = cols[i % len(cols)]
        x += w
        i += 1 + int(rng.integers(0, 2))
    weave = smooth_noise(rng, ry1 - ry0, rx1 - rx0, 40, octaves=2)
    rug *= (0.88 + 0.18 * weave)[..., None]
    a = np.asarray(img, np.float32).copy()
    a[ry0:ry1, rx0:rx1] = rug
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(img)
    for xx in range(rx0 + 4, rx1 - 4, 14):  # fringes at both ends
        d.line([xx, ry0, xx + rng.uniform(-4, 4), ry0 - 40], fill=(225, 215, 190), width=4)
        d.line([xx, ry1, xx + rng.uniform(-4, 4), ry1 + 40], fill=(225, 215, 190), width=4)
    return img.filter(ImageFilter.GaussianBlur(0.8))


# --------------------------------------------------------------------------------------
# The text-corpus image list
# --------------------------------------------------------------------------------------

# Shelves: rows = spines per row; ttb = share of spines whose text runs top to bottom (the
# rest run bottom to top); lean = leaning spines (3-8 degrees); gaps = extra gaps; widths =
# spine width mix; books = how many come from the English / Spanish-Catalan-French lists
# (default: about a quarter non-English). Damage as in the barcode set.
SHELVES = [
    dict(name="shelf-1row-mixed.jpg", size=(1600, 1200), rows=[14], ttb=0.5, lean=1, gaps=1,
         blur=0.6),
    dict(name="shelf-2rows-perspective.jpg", size=(2400, 1600), rows=[14, 13], ttb=0.5,
         lean=2, gaps=2, persp=(0.07, 0.0), zoom=0.93, blur=0.9, jpeg=75),
    dict(name="shelf-2rows-rot2-vignette.jpg", size=(2000, 1500), rows=[12, 13], ttb=0.55,
         lean=1, gaps=1, rot=2.0, zoom=0.94, shade=("radial", 0.5), blur=0.8),
    dict(name="shelf-1row-wide-spines-glare.jpg", size=(2000, 1500), rows=[12], ttb=0.45,
         widths="wide", lean=1, glare=(0.42, 0.42, 0.09, 0.75), blur=0.9),
    dict(name="shelf-2rows-blur1.5.jpg", size=(1600, 1200), rows=[11, 12], ttb=0.5,
         blur=1.5),
    dict(name="shelf-1row-lowres-noise.jpg", size=(1024, 768), render=(2048, 1536), rows=[16],
         ttb=0.5, gaps=1, blur=0.6, noise=2.5),
    dict(name="shelf-2rows-jpeg40-leaning.jpg", size=(2000, 1500), rows=[13, 14], ttb=0.5,
         lean=6, gaps=2, jpeg=40, blur=0.8),
    dict(name="shelf-1row-english-ttb.jpg", size=(1800, 1200), rows=[15], ttb=1.0,
         books=dict(en=15, intl=0), shade=("linear", 0.4), blur=0.9),
    dict(name="shelf-2rows-spanish-catalan-french-btt.jpg", size=(1600, 1200), rows=[13, 14],
         ttb=0.15, books=dict(en=0, intl=27), persp=(-0.05, 0.03), zoom=0.93, blur=0.9),
    dict(name="shelf-1row-thin-spines-rot-1.5.jpg", size=(1600, 1200), rows=[22], ttb=0.5,
         widths="thin", lean=1, rot=-1.5, zoom=0.96, blur=1.0),
]
# Big-name paperbacks: the author's name along each spine, the title across it (`across` =
# share of such spines), wide spines; books of authors with several in the corpus, so that the
# name alone does not tell which (`titles`: the books, in order).
ACROSS_SHELVES = [
    dict(name="shelf-1row-titles-across.jpg", size=(2000, 1300), rows=[12], ttb=0.6,
         widths="wide", scale=1.6, across=1.0, blur=0.8,
         titles=["Emma", "Carrie", "Coraline", "Persuasion", "Great Expectations", "Misery",
                 "Animal Farm", "Pride and Prejudice", "Stardust", "A Tale of Two Cities",
                 "Sense and Sensibility", "1984"]),
]
STACKS = [
    dict(name="stack-6-books.jpg", size=(1200, 900), n=6, blur=0.6),
    dict(name="stack-8-books-rot3-shade.jpg", size=(1200, 900), n=8, rot=3.0, zoom=0.95,
         shade=("linear", 0.45), blur=0.7),
    dict(name="stack-10-books-perspective-blur1.2.jpg", size=(1200, 900), n=10,
         widths="thin", persp=(0.06, 0.04), zoom=0.94, blur=1.2, noise=2),
]
COVERS = [
    dict(name="cover-dune.jpg", book="Dune", size=(960, 1280), style="sun",
         c1=(245, 178, 90), c2=(156, 74, 34), c3=(252, 232, 170), fg=(48, 22, 10),
         title_font="URW Gothic Demi", author_font="URW Gothic Book", upper=True,
         author_upper=True, title_h=0.11, tagline="A NOVEL", author_fg=(250, 240, 220),
         bg="desk", fill=0.86, blur=0.6),
    dict(name="cover-curious-incident-rot5.jpg",
         book="The Curious Incident of the Dog in the Night-Time", size=(960, 1280),
         style="bauhaus", c1=(236, 106, 40), c2=(30, 60, 120), c3=(250, 210, 70),
         c4=(250, 248, 240), fg=(20, 20, 24), title_font="Open Sans Bold",
         author_font="Open Sans", title_h=0.055, bg="desk", fill=0.82, rot=5.0, blur=0.7),
    dict(name="cover-sombra-del-viento-perspective-table.jpg", book="La sombra del viento",
         size=(1280, 960), style="classic", c1=(238, 228, 204), c2=(120, 30, 30),
         fg=(70, 20, 20), title_font="C059 Bold", author_font="C059 Roman", title_h=0.085,
         tagline="Novela", bg="wood", fill=0.8, rot=-9.0, persp=(0.3, -0.14),
         offset=(0.0, 0.02), shade=("linear", 0.35), blur=0.7),
    dict(name="cover-bonjour-tristesse-blur2.jpg", book="Bonjour tristesse", size=(960, 1280),
         style="split", c1=(250, 244, 232), c2=(40, 110, 150), c3=(250, 200, 60),
         fg=(30, 40, 60), author_fg=(250, 250, 250), title_font="Caladea Bold",
         author_font="Caladea Italic", title_h=0.085, tagline="roman", bg="cloth",
         fill=0.84, blur=2.0),
    dict(name="cover-zen-motorcycle-subtitle-glare.jpg",
         book="Zen and the Art of Motorcycle Maintenance", size=(960, 1280), style="sun",
         c1=(40, 60, 110), c2=(20, 26, 50), c3=(230, 110, 60), fg=(250, 246, 230),
         title_font="Liberation Serif Bold", author_font="Liberation Serif Italic",
         title_h=0.06, subtitle="An Inquiry into Values", sub_fg=(240, 200, 120), bg="desk",
         fill=0.85, glare=(0.66, 0.62, 0.12, 0.55), blur=0.7),
    dict(name="cover-jo-confesso-vignette.jpg", book="Jo confesso", size=(960, 1280),
         style="bauhaus", c1=(30, 30, 34), c2=(180, 40, 40), c3=(220, 200, 160),
         c4=(200, 40, 40), fg=(250, 246, 236), title_font="P052 Bold",
         author_font="P052 Italic", title_h=0.1, tagline="Novel·la", tag_fg=(240, 236, 226),
         bg="wood", fill=0.84, rot=-2.0, shade=("radial", 0.55), blur=0.7),
    dict(name="cover-dune-small-720p.jpg", book="Dune", size=(1280, 720), style="sun",
         c1=(245, 178, 90), c2=(156, 74, 34), c3=(252, 232, 170), fg=(48, 22, 10),
         title_font="URW Gothic Demi", author_font="URW Gothic Book", upper=True,
         author_upper=True, title_h=0.11, author_fg=(250, 240, 220),
         bg="cloth", fill=0.45, offset=(-0.1, 0.03), blur=0.8),
    dict(name="cover-bonjour-tristesse-small-720p.jpg", book="Bonjour tristesse", size=(1280, 720),
         style="split", c1=(250, 244, 232), c2=(40, 110, 150), c3=(250, 200, 60),
         fg=(30, 40, 60), author_fg=(250, 250, 250), title_font="Caladea Bold",
         author_font="Caladea Italic", title_h=0.085, tagline="roman", bg="wood",
         fill=0.5, rot=4.0, offset=(0.15, 0.0), blur=0.9),
]
NOBOOK = [
    dict(name="kitchen-counter.jpg", size=(1600, 1200), scene="kitchen", blur=0.8,
         notes="kitchen counter drawn with simple shapes (tiles, cupboards, window, kettle, "
               "mugs, fruit bowl); no text, no book"),
    dict(name="printed-letter.jpg", size=(1080, 1440), scene="letter", blur=0.7, jpeg=75,
         shade=("linear", 0.3),
         notes="a printed letter (letterhead, address, date, five paragraphs, signature) lying "
               "on a desk, slight perspective; printed text but no book title"),
    dict(name="striped-rug.jpg", size=(1280, 960), scene="rug",
         notes="striped woven rug with fringes on a wooden floor (wide vertical stripes)"),
]
BIG_SHELF = dict(name="big-shelf.jpg", size=(4032, 3024), rows=[18, 17, 19], scale=1.75,
                 ttb=0.5, lean=2, gaps=3, rot=0.8, zoom=0.97, blur=0.8, noise=2, jpeg=85,
                 shade=("radial", 0.35))


TEXT_JPEG = 80  # JPEG quality of the text images unless a spec sets "jpeg"


class BookQueues:
    """Deals the books out to the images: English and non-English titles each cycle through a
    fixed shuffled order, so every book appears (about twice) across the shelves and piles."""

    def __init__(self, seed_name):
        rng = rng_for(seed_name)
        self.q = {}
        for key, langs in (("en", ("en",)), ("intl", ("es", "ca", "fr"))):
            lst = [b for b in TEXT_BOOKS if b[3] in langs]
            self.q[key] = [lst[i] for i in rng.permutation(len(lst))]
        self.pos = {k: 0 for k in self.q}

    def take(self, key, n, exclude):
        out = []
        q = self.q[key]
        tries = 0
        while len(out) < n:
            b = q[self.pos[key] % len(q)]
            self.pos[key] += 1
            tries += 1
            assert tries < 3 * len(q) + n, "not enough distinct books"
            if b[0] in exclude or b in out:
                continue
            out.append(b)
        return out

    def deal(self, total, mix, rng):
        if mix is None:
            intl = int(round(total * 0.27))
            mix = dict(en=total - intl, intl=intl)
        assert mix["en"] + mix["intl"] == total, mix
        books = self.take("en", mix["en"], set())
        books += self.take("intl", mix["intl"], {b[0] for b in books})
        return [books[i] for i in rng.permutation(len(books))]


def finish_photo(img, spec, rng):
    """Shading, glare and blur at the rendered size, then the low-resolution step, then noise."""
    d1 = {k: spec[k] for k in ("shade", "glare", "blur") if spec.get(k)}
    if d1:
        img = damage(img, d1, rng)
    if tuple(spec.get("render", spec["size"])) != tuple(spec["size"]):
        img = img.resize(tuple(spec["size"]), Image.BOX)
    if spec.get("noise"):
        img = damage(img, {"noise": spec["noise"]}, rng)
    return img


def damage_notes(spec):
    parts = []
    if spec.get("persp") and any(spec["persp"]):
        parts.append("perspective")
    if spec.get("rot"):
        parts.append(f"rotation {spec['rot']:g} deg")
    if spec.get("render") and tuple(spec["render"]) != tuple(spec["size"]):
        parts.append("low resolution (drawn at {}x{}, downscaled to {}x{})".format(
            *spec["render"], *spec["size"]))
    if spec.get("blur"):
        parts.append(f"blur {spec['blur']:g}")
    if spec.get("noise"):
        parts.append(f"noise {spec['noise']:g}")
    if spec.get("shade"):
        parts.append("shading gradient" if spec["shade"][0] == "linear"
                     else "uneven light (vignette)")
    if spec.get("glare"):
        parts.append("glare spot")
    parts.append(f"JPEG quality {spec.get('jpeg', TEXT_JPEG)}")
    return parts


def spine_notes(spec, placed, rows_desc):
    n = len(placed)
    ttb = sum(1 for p in placed if p[2] == "ttb")
    btt = sum(1 for p in placed if p[2] == "btt")
    lean = sum(1 for p in placed if p[3])
    noauth = sum(1 for p in placed if not p[4]["author"])
    multi = sum(1 for p in placed if p[4]["lines"] > 1)
    f = spec["size"][0] / spec.get("render", spec["size"])[0]
    hs = [p[4]["title_h"] * f for p in placed]
    parts = [rows_desc, f"{n} spines"]
    if ttb or btt:
        parts += [f"{ttb} top-to-bottom", f"{btt} bottom-to-top"]
    else:
        parts.append("spines horizontal, text left-to-right")
    if lean:
        parts.append(f"{lean} leaning")
    across = sum(1 for p in placed if p[4].get("across"))
    if across:
        parts.append(f"{across} titles across the spine (the author's name along it)")
    parts.append(f"{noauth} without author")
    if multi:
        parts.append(f"{multi} title{'s' if multi > 1 else ''} on 2-4 lines")
    parts.append(f"title text {min(hs):.0f}-{max(hs):.0f} px")
    return ", ".join(parts + damage_notes(spec))


def truth_record(image, kind, books, notes):
    return {"image": image, "kind": kind, "books": [book_truth(b) for b in books],
            "barcodes": [], "unlabelled_regions": False, "notes": notes}


def make_shelf_image(spec, queues):
    """Render one shelf photo; returns (image, truth record without the image path)."""
    rng = rng_for("shelves/" + spec["name"])
    total = sum(spec["rows"])
    if spec.get("titles"):
        books = [BOOK_BY_TITLE[t] for t in spec["titles"]]
        assert len(books) == total, spec["name"]
    else:
        books = queues.deal(total, spec.get("books"), rng)
    rows, i = [], 0
    for n in spec["rows"]:
        rows.append(books[i:i + n])
        i += n
    img, placed = render_shelf(spec, rows, rng)
    img = finish_photo(img, spec, rng)
    assert img.size == tuple(spec["size"])
    nr = len(spec["rows"])
    desc = f"{nr} row{'s' if nr > 1 else ''} ({'+'.join(map(str, spec['rows']))})"
    if spec.get("gaps"):
        desc += f", {spec['gaps']} gap{'s' if spec['gaps'] > 1 else ''}"
    rec = truth_record(None, "shelf", [p[0] for p in placed], spine_notes(spec, placed, desc))
    return img, rec


def make_text_corpus(lines):
    """Write shelves/, stacks/, covers/, none/ and append their truth records to lines."""
    queues = BookQueues("text-corpus/book-order")
    shown = set()
    for folder in ("shelves", "stacks", "covers", "none"):
        if (OUT / folder).exists():
            shutil.rmtree(OUT / folder)
        (OUT / folder).mkdir(parents=True)

    def save_jpeg(img, folder, spec, rec):
        path = OUT / folder / spec["name"]
        img.save(path, quality=spec.get("jpeg", TEXT_JPEG), optimize=True)
        rec["image"] = f"{folder}/{spec['name']}"
        lines.append(json.dumps(rec, ensure_ascii=False))
        shown.update(b["title"] for b in rec["books"])
        print("wrote", path, file=sys.stderr)

    for spec in SHELVES:
        img, rec = make_shelf_image(spec, queues)
        save_jpeg(img, "shelves", spec, rec)
    for spec in STACKS:
        rng = rng_for("stacks/" + spec["name"])
        books = queues.deal(spec["n"], spec.get("books"), rng)
        img, placed = render_stack(spec, books, rng)
        img = finish_photo(img, spec, rng)
        rec = truth_record(None, "stack", [p[0] for p in placed],
                           spine_notes(spec, placed, "1 pile, books lying flat"))
        save_jpeg(img, "stacks", spec, rec)
    for spec in COVERS:
        rng = rng_for("covers/" + spec["name"])
        W, H = spec["size"]
        book = BOOK_BY_TITLE[spec["book"]]
        ch = int(spec["fill"] * H)
        cw = int(ch * 0.66)
        card, info = cover_art(book, spec, rng, cw, ch)
        img, corners = photo_of_card(card, W, H, rng, spec["bg"], spec.get("rot", 0.0),
                                     spec.get("persp", (0.0, 0.0)), spec.get("offset", (0, 0)))
        for x, y in corners:
            assert 0 <= x <= W and 0 <= y <= H, (spec["name"], x, y)
        img = finish_photo(img, spec, rng)
        extra = []
        if spec.get("subtitle"):
            extra.append(f"subtitle \u201c{spec['subtitle']}\u201d")
        if spec.get("tagline"):
            extra.append(f"tagline \u201c{spec['tagline']}\u201d")
        if spec.get("upper"):
            extra.append("title in capitals")
        notes = ", ".join([f"front cover ({spec['style']} design), title on "
                           f"{info['lines']} line{'s' if info['lines'] > 1 else ''}, "
                           f"title text {info['title_h']:.0f} px"] + extra
                          + damage_notes(spec))
        save_jpeg(img, "covers", spec, truth_record(None, "cover", [book], notes))
    for spec in NOBOOK:
        rng = rng_for("none/" + spec["name"])
        W, H = spec["size"]
        if spec["scene"] == "kitchen":
            img = scene_kitchen(W, H, rng)
        elif spec["scene"] == "rug":
            img = scene_rug(W, H, rng)
        else:
            page = scene_letter_page()
            img, corners = photo_of_card(page, W, H, rng, "desk", 2.5, (0.05, 0.04))
            for x, y in corners:
                assert 0 <= x <= W and 0 <= y <= H, (spec["name"], x, y)
        img = finish_photo(img, spec, rng)
        save_jpeg(img, "none", spec, truth_record(
            None, "none", [], ", ".join([spec["notes"]] + damage_notes(spec))))
    # Shelves of big-name paperbacks, titles across their spines: made after everything above,
    # so the images above stay as they were.
    for spec in ACROSS_SHELVES:
        img, rec = make_shelf_image(spec, queues)
        save_jpeg(img, "shelves", spec, rec)
    missing = [b[0] for b in TEXT_BOOKS if b[0] not in shown]
    assert not missing, f"books never shown: {missing}"
    return len(shown)


def make_big_shelf(out_path):
    """--big-shelf: one 4032x3024 photo of a full bookcase (for speed tests, not committed);
    its truth line goes to stdout."""
    spec = dict(BIG_SHELF)
    queues = BookQueues("big-shelf/book-order")
    img, rec = make_shelf_image(spec, queues)
    img.save(out_path, quality=spec.get("jpeg", TEXT_JPEG), optimize=True)
    rec["image"] = os.path.basename(out_path)
    print(json.dumps(rec, ensure_ascii=False))
    print("wrote", out_path, file=sys.stderr)


# --------------------------------------------------------------------------------------

README = """# SampleImages

Synthetic test images for shelfscan, all produced by `scripts/make-sample-images.py`.
Regenerate them (from the repository root) with:

    python3 scripts/make-sample-images.py

Needs Python 3 with Pillow and numpy, and these Debian font packages (the script stops and
names the missing package when a font file is absent):

    {apt}

The script seeds its random generator from each file name, so re-running it gives the same
images (byte-identical with the same Pillow/libjpeg and fonts). It takes under a minute.
Score the zbarimg CLI on this folder with `python3 scripts/zbarimg-baseline.py SampleImages`.

- `barcodes/`: {n} images: book back covers with real ISBN-13s (some with EAN-5 price or
  EAN-2 add-ons), product labels (grocery EAN-13, UPC-A, EAN-8, UPC-E), a magazine ISSN code
  (977) with an EAN-2 issue add-on, a few very hard ones (`hard-*`: tiny, heavily blurred,
  tilted 45 degrees, low resolution with glare) and images with no barcode at all (`none-*`,
  including a striped-fabric false-positive bait). Damage (tilt, blur, noise, perspective,
  shading, glare, JPEG quality, low resolution) is in each file name and in the `notes` of
  truth.jsonl. The barcodes are drawn by the script's own EAN/UPC encoders.
- `shelves/`: {n_shelves} photos of bookshelves (`kind: shelf`), 1600x1200 to 2400x1600 plus one
  1024x768 low-resolution shot: one row on a wall shelf or two rows in a bookcase, 11-22 spines
  per row, 25-90 px wide, title (and usually the author, smaller) along the spine, running
  top-to-bottom on some spines and bottom-to-top on others; capitals or mixed case, regular,
  bold, narrow and italic faces from {n_fonts} font files; leaning spines (3-8 degrees), gaps,
  bookends, boxes and plants (no text) in the empty ends. Title text is 18-40 px high (ink
  height) at the image's resolution, about half that on the low-resolution shelf. One shelf has only English titles, all
  top-to-bottom; one only Spanish, Catalan and French titles, mostly bottom-to-top. On
  `shelf-1row-titles-across.jpg` most spines are big-name paperbacks: the author's name in
  large capitals along the spine, the title printed across it (upright, a word or two a line),
  often in a paler ink than the name. The photos
  of the text sets are JPEG quality 80 (75 on two, 40 on one), which keeps the whole folder
  under 5 MB.
- `stacks/`: {n_stacks} piles of 6-10 books lying flat (`kind: stack`), spines horizontal, text
  left to right.
- `covers/`: {n_covers} front covers (`kind: cover`): large title, author, sometimes a subtitle or
  a tagline ("A NOVEL", "Novela", "roman", "Novel·la"), on gradients or flat colours with simple
  shapes; one rotated 5 degrees, one photographed at an angle on a wooden table, one blurred.
- `none/`: {n_none} photos with no book (`kind: none`): a kitchen counter of simple shapes, a
  printed letter (text, but no book title) and a striped rug.
- `truth.jsonl`: one line per image in `barcodes/`, then `shelves/`, `stacks/`, `covers/`,
  `none/`, following the shared truth format (../shared/corpora/TRUTH-FORMAT.md). `kind` is
  `barcode`, `shelf`, `stack`, `cover` or `none`; `barcodes` holds the canonical digits (EAN-13,
  UPC-A and UPC-E as 13 digits, EAN-8 as 8, add-on after one space); `books` lists every book
  shown. On shelves and piles the books are listed in reading order (rows top to bottom, spines
  left to right; piles top to bottom). The title is the one printed, in the catalogue's
  capitalisation (some spines and covers print it in capitals); `authors` are the book's
  authors even where the spine leaves them out; `isbn13` is the catalogue's, or null where the
  catalogue has none. `notes` gives the number of rows and spines, how many run top-to-bottom
  and bottom-to-top, leaning spines, spines without an author, the range of title text heights
  and the damage (perspective, rotation, blur, noise, uneven light, glare, JPEG quality, low
  resolution). `unlabelled_regions` is false everywhere: nothing else in these images is a book.
  Paths are relative to this folder.
- `orientation/exif-1.jpg` .. `exif-8.jpg`: EXIF Orientation test images (see its README).

The {n_books} books of the text images (English, Spanish, Catalan and French titles, one-word
titles such as "Dune" and "Emma", long ones such as "The Guernsey Literary and Potato Peel Pie
Society", titles with leading articles) and those of the barcode images, with their authors
and ISBNs, come from the goodbooks-10k and library-dataset catalogues; the blurbs and
taglines are written for these images. Most text books appear on two images (a few on one
or three).

A 4032x3024 (12 MP) photo of a full three-row bookcase (54 spines) for speed tests, not kept
here, is written with

    python3 scripts/make-sample-images.py --big-shelf /tmp/big-shelf.jpg > /tmp/big-shelf.jsonl

(its truth line goes to stdout, with `image` set to the file name).
"""


def main():
    ap = argparse.ArgumentParser(
        description="Regenerate SampleImages/ (run from the repository root).")
    ap.add_argument("--big-shelf", metavar="OUT.jpg",
                    help="only write one 4032x3024 photo of a full bookcase to OUT.jpg (outside "
                         "the repository; for speed tests) and print its truth line to stdout")
    args = ap.parse_args()
    check_fonts()
    if args.big_shelf:
        out = Path(args.big_shelf).resolve()
        if OUT.resolve() in out.parents:
            sys.exit("--big-shelf: write it outside SampleImages/ (it is not part of the corpus)")
        make_big_shelf(str(out))
        return
    if not Path("Package.swift").exists():
        sys.exit("run from the repository root: python3 scripts/make-sample-images.py")
    names = [s["name"] for s in IMAGES]
    assert len(names) == len(set(names))
    bdir = OUT / "barcodes"
    if bdir.exists():
        shutil.rmtree(bdir)
    bdir.mkdir(parents=True)
    lines = []
    for spec in IMAGES:
        img = render(spec)
        assert img.size == tuple(spec["size"]), spec["name"]
        save(img, bdir / spec["name"], spec)
        lines.append(json.dumps(truth_line(spec), ensure_ascii=False))
        print("wrote", bdir / spec["name"], file=sys.stderr)
    n_books = make_text_corpus(lines)
    (OUT / "truth.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    make_orientation(OUT / "orientation")
    (OUT / "README.md").write_text(README.format(
        n=len(IMAGES), n_shelves=len(SHELVES) + len(ACROSS_SHELVES), n_stacks=len(STACKS), n_covers=len(COVERS),
        n_none=len(NOBOOK), n_books=n_books, apt=FONT_APT, n_fonts=len(TEXT_FONTS)))
    print(f"{len(IMAGES)} barcode-set images, 8 orientation images, {len(SHELVES) + len(ACROSS_SHELVES)} shelves, "
          f"{len(STACKS)} piles, {len(COVERS)} covers, {len(NOBOOK)} no-book photos "
          f"({n_books} distinct books), truth.jsonl", file=sys.stderr)


if __name__ == "__main__":
    main()
