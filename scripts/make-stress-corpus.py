#!/usr/bin/env python3
"""Writes a folder of awkward PDFs, the kind users bring, for trying galley by hand.

    python3 scripts/make-stress-corpus.py OUT_DIR
    .build/release/galley run --input OUT_DIR --output /tmp/stress-out

Contents: a CMYK image, a 300-dpi grayscale "scan", a huge page, CJK text in MuPDF's
built-in fonts, annotations, an owner-password-only file, a document whose second page
object is missing, a zero-size MediaBox, a PNG renamed to .pdf, file names with spaces and
non-ASCII letters, a 300-page document, and a symbolic link loop. Nothing is copied from
elsewhere: everything is generated here with mutool, qpdf and Python's standard library.
"""
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import zlib


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def create(path, pages, work):
    files = []
    for i, content in enumerate(pages):
        p = os.path.join(work, "p%d-%d.txt" % (abs(hash(path)) % 10000, i))
        with open(p, "w") as f:
            f.write(content)
        files.append(p)
    run("mutool", "create", "-O", "compress", "-o", path, *files)


def pam_cmyk(path, w=400, h=300):
    with open(path, "wb") as f:
        f.write(b"P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\nTUPLTYPE CMYK\nENDHDR\n" % (w, h))
        for y in range(h):
            f.write(bytes(v for x in range(w) for v in (x * 255 // w, y * 255 // h, (x + y) % 256, 30)))


def pgm_scan(path, w=2480, h=3508, seed=3):
    rng = random.Random(seed)
    rows = bytearray()
    for y in range(h):
        line = bytearray(230 + rng.randrange(20) for _ in range(w))
        if (y // 40) % 3 == 0 and 200 < y < h - 200:
            for x in range(200, w - 200):
                if (x // 7 + y // 11) % 5 == 0:
                    line[x] = 20
        rows += line
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h))
        f.write(rows)


def png_file(path, w=64, h=64):
    raw = b"".join(b"\x00" + bytes((x * 4) % 256 for x in range(w * 3)) for _ in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def text(width, height, title, lines=40):
    body = ["%%%%MediaBox 0 0 %d %d" % (width, height), "%%Font F Helvetica",
            "BT /F 18 Tf 40 %d Td (%s) Tj ET" % (height - 50, title)]
    for i in range(lines):
        body.append("BT /F 10 Tf 40 %d Td (Line %d of a long document with some words on it.) Tj ET" % (height - 80 - i * 14, i))
    return "\n".join(body) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        p = lambda name: os.path.join(out, name)
        cmyk = os.path.join(work, "cmyk.pam")
        pam_cmyk(cmyk)
        create(p("cmyk-image.pdf"), ["%%MediaBox 0 0 595 842\n%%Image I " + cmyk + "\nq 500 0 0 375 48 400 cm /I Do Q\n"
                                     "0 1 1 0 k 48 100 500 200 re f\n"], work)
        scan = os.path.join(work, "scan.pgm")
        pgm_scan(scan)
        jpg = os.path.join(work, "scan.jpg")
        run("cjpeg", "-grayscale", "-quality", "70", "-outfile", jpg, scan)
        create(p("scanned page.pdf"), ["%%MediaBox 0 0 595.28 841.89\n%%Image S " + jpg +
                                       "\nq 595.28 0 0 841.89 0 0 cm /S Do Q\n"], work)
        create(p("huge-page.pdf"), ["%%MediaBox 0 0 5000 5000\n0 0 1 rg 100 100 4800 4800 re f\n"
                                    "1 0 0 rg 2000 2000 1000 1000 re f\n"], work)
        create(p("cjk-日本語.pdf"), ["%%MediaBox 0 0 595 842\n%%CJKFont J ja H serif\n%%CJKFont C zh-Hans H sans\n"
                                     "BT /J 24 Tf 50 750 Td <30CF30FC30C830FB30DA30FC30B8> Tj ET\n"
                                     "BT /C 24 Tf 50 700 Td <4E2D658765876863> Tj ET\n"], work)
        create(p("annotated.pdf"), [text(612, 792, "Annotated")], work)
        script = os.path.join(work, "annot.js")
        with open(script, "w") as f:
            f.write("var doc = new PDFDocument(scriptArgs[0]);\nvar page = doc.loadPage(0);\n"
                    "var a = page.createAnnotation('Square');\na.setRect([100, 100, 300, 250]);\n"
                    "a.setColor([1, 0, 0]);\na.setInteriorColor([1, 1, 0]);\na.update();\n"
                    "var h = page.createAnnotation('Highlight');\nh.setQuadPoints([[40, 720, 300, 720, 40, 700, 300, 700]]);\n"
                    "h.setColor([0, 1, 0]);\nh.update();\ndoc.save(scriptArgs[0] + '.tmp');\n")
        run("mutool", "run", script, p("annotated.pdf"))
        os.replace(p("annotated.pdf") + ".tmp", p("annotated.pdf"))
        create(os.path.join(work, "plain.pdf"), [text(612, 792, "Owner password only")], work)
        run("qpdf", "--encrypt", "", "owner-only", "256", "--", os.path.join(work, "plain.pdf"), p("owner-password-only.pdf"))
        create(p("long-300-pages.pdf"), [text(612, 792, "Page %d" % (i + 1), lines=45) for i in range(300)], work)
        create(p("zero-mediabox.pdf"), ["%%MediaBox 0 0 0 0\n0 0 1 rg 10 10 100 100 re f\n"], work)
        # Second page object missing: /Kids names an object that does not exist.
        two = os.path.join(work, "two.pdf")
        create(two, [text(300, 300, "One", 5), text(300, 300, "Two", 5)], work)
        run("qpdf", "--qdf", "--object-streams=disable", two, os.path.join(work, "two-qdf.pdf"))
        data = open(os.path.join(work, "two-qdf.pdf"), "rb").read()
        kids = data.index(b"/Kids [")
        end = data.index(b"]", kids)
        refs = data[kids + 7:end].split(b"R")
        broken = data[:kids + 7] + refs[0] + b"R 999 0 R" + data[end:]
        with open(p("missing-page-object.pdf"), "wb") as f:
            f.write(broken)
        png_file(p("really-a-png.pdf"))
        os.makedirs(p("loop"), exist_ok=True)
        if not os.path.lexists(p("loop/again")):
            os.symlink("..", p("loop/again"))
    print("make-stress-corpus: wrote", ", ".join(sorted(os.listdir(out))))


if __name__ == "__main__":
    main()
