#!/usr/bin/env python3
"""Deterministic generator for shelfscan's synthetic sample images.

Run from the repository root:

    python3 scripts/make-sample-images.py

It (re)writes:
  SampleImages/barcodes/*.png|*.jpg   back covers / product labels with EAN/UPC codes,
                                      plus a few images with no barcode at all
  SampleImages/orientation/exif-N.jpg EXIF Orientation test images (N = 1..8)
  SampleImages/truth.jsonl            ground truth (shared TRUTH-FORMAT)
  SampleImages/README.md, SampleImages/orientation/README.md

Dependencies: Python 3, Pillow, numpy. Fonts: DejaVu (/usr/share/fonts/truetype/dejavu).
Every image uses its own random generator seeded from its file name, so the output is the
same on every run (and adding an image does not change the others).

The barcode encoders (EAN-13, UPC-A, EAN-8, UPC-E, EAN-5, EAN-2) are written here from the
published symbology tables; all check digits are verified with asserts.
"""

import hashlib
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


# --------------------------------------------------------------------------------------

README = """# SampleImages

Synthetic test images for shelfscan, all produced by `scripts/make-sample-images.py`.
Regenerate them (from the repository root) with:

    python3 scripts/make-sample-images.py

Needs Python 3 with Pillow and numpy, and the DejaVu fonts in
/usr/share/fonts/truetype/dejavu. The script seeds its random generator from each file name,
so re-running it gives the same images (byte-identical with the same Pillow/libjpeg).
Score the zbarimg CLI on this folder with `python3 scripts/zbarimg-baseline.py SampleImages`.

- `barcodes/`: {n} images: book back covers with real ISBN-13s (some with EAN-5 price or
  EAN-2 add-ons), product labels (grocery EAN-13, UPC-A, EAN-8, UPC-E), a magazine ISSN code
  (977) with an EAN-2 issue add-on, a few very hard ones (`hard-*`: tiny, heavily blurred,
  tilted 45 degrees, low resolution with glare) and images with no barcode at all (`none-*`,
  including a striped-fabric false-positive bait). Damage (tilt, blur, noise, perspective,
  shading, glare, JPEG quality, low resolution) is in each file name and in the `notes` of
  truth.jsonl. The barcodes are drawn by the script's own EAN/UPC encoders.
- `truth.jsonl`: one line per image in `barcodes/`, following the shared truth format
  (../shared/corpora/TRUTH-FORMAT.md): `kind` is `barcode` or `none`; `books` lists the
  book when the code is an ISBN; `barcodes` holds the canonical digits (EAN-13, UPC-A and
  UPC-E as 13 digits, EAN-8 as 8, add-on after one space). Paths are relative to this folder.
- `orientation/exif-1.jpg` .. `exif-8.jpg`: EXIF Orientation test images (see its README).

The book titles, authors and ISBNs come from the goodbooks-10k and library-dataset catalogues;
blurbs on the covers are written for these images.
"""


def main():
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
    (OUT / "truth.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    make_orientation(OUT / "orientation")
    (OUT / "README.md").write_text(README.format(n=len(IMAGES)))
    print(f"{len(IMAGES)} barcode-set images, 8 orientation images, truth.jsonl", file=sys.stderr)


if __name__ == "__main__":
    main()
