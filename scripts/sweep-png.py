#!/usr/bin/env python3
"""Sweeps the PNG encoder's settings (libdeflate levels, row filters, colour-type reduction,
page_deflate.c's encoder for images of few colours, and the libpng/zlib writer of banded pages) on drawn pages, and prints a Markdown table per page set
of CPU time and bytes against `mutool draw`'s PNGs of the same pages: the measurement behind the
presets in Sources/GalleyRaster/PNGCompression.swift.

    python3 scripts/sweep-png.py [--dpi 150] [--sets fixtures,stress,real] [--settings LIST]

Page sets (drawn by mutool to PPM at --dpi, so the encoder sees MuPDF's pixels, as in a run):
  fixtures  every page of the fixture PDFs (text, vector art, photos, rotated and cropped pages)
  stress    the PDFs of scripts/make-stress-corpus.py (CMYK image, grey scan, CJK, annotations;
            pages over 12 megapixels, which Galley draws in bands, and pages past the 8th left out)
  real      every 8th page of the Debian manuals that scripts/real-documents.sh downloads into
            .build-bench/real (run it, or its download step, first)
The encoder is timed on one thread (CPU seconds, best of three passes) by scripts/png-sweep.c,
built here against Sources/CGalleyPNG, which also decodes every PNG it made once and stops if
any differs from the drawn pixels (so a sweep checks the reductions on every page it
measures, and every stream page_deflate.c writes). Everything is written under .build-bench/sweep.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench", "sweep")
MEGAPIXELS = 12

FILTERS = {"0": "None", "1": "Sub", "2": "Up", "3": "Average", "4": "Paeth", "5": "adaptive"}
DEFAULT_SETTINGS = (
    # the libpng/zlib writer, as the old presets and as banded pages still use it
    ["z1:0x20", "z2:0x20", "z6:0xF8"]
    # reduction off, to show what it brings
    + ["d1:2:2:rgb", "d4:2:2:rgb"]
    # every libdeflate level with Up, and None for images of few colours
    + ["d%d:2:0" % level for level in range(1, 13)]
    # the other filters at a few levels (filter of many colours : of at most 2048 colours)
    + ["d%d:%s" % (level, f) for level in (2, 4, 6)
       for f in ("0:0", "2:2", "1:0", "4:0", "5:0", "2:5", "5:5")]
    # page_deflate.c's encoder for images of at most 2048 colours, at each effort
    + ["d%d:2:0:p%d" % (level, effort) for level in (2, 5) for effort in (1, 2, 3)]
)


def run(args, **kw):
    return subprocess.run(args, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def page_count(pdf):
    r = subprocess.run(["mutool", "info", pdf], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        if line.startswith("Pages:"):
            return int(line.split()[1])
    return 0


def draw(pdf, pages, folder, dpi):
    """Draws pages to PPM and to mutool's PNG; returns the PPM paths and mutool's PNG bytes."""
    ppms, png_bytes = [], 0
    base = os.path.join(folder, os.path.basename(pdf).replace(" ", "_"))
    for page in pages:
        ppm, png = "%s-%d.ppm" % (base, page), "%s-%d.png" % (base, page)
        if subprocess.run(["mutool", "draw", "-q", "-r", str(dpi), "-o", ppm, pdf, str(page)],
                          capture_output=True).returncode != 0 or not os.path.exists(ppm):
            continue
        with open(ppm, "rb") as f:
            header = f.read(64).split()
        if int(header[1]) * int(header[2]) > MEGAPIXELS * 1_000_000:
            os.remove(ppm)
            continue
        subprocess.run(["mutool", "draw", "-q", "-r", str(dpi), "-o", png, pdf, str(page)], capture_output=True)
        ppms.append(ppm)
        png_bytes += os.path.getsize(png)
    return ppms, png_bytes


def page_sets(names, dpi):
    sets = {}
    if "fixtures" in names:
        folder = os.path.join(WORK, "fixtures")
        os.makedirs(folder)
        ppms, total = [], 0
        for pdf in sorted(glob.glob(os.path.join(ROOT, "fixtures", "pdf", "*.pdf"))):
            if "encrypted" in pdf:
                continue
            p, b = draw(pdf, range(1, page_count(pdf) + 1), folder, dpi)
            ppms += p
            total += b
        sets["fixtures"] = (ppms, total)
    if "stress" in names:
        source, folder = os.path.join(WORK, "stress-pdf"), os.path.join(WORK, "stress")
        os.makedirs(folder)
        run([sys.executable, os.path.join(ROOT, "scripts", "make-stress-corpus.py"), source])
        ppms, total = [], 0
        # os.walk does not follow the corpus's symbolic link loop (glob's ** would).
        found = [os.path.join(d, f) for d, _, names in os.walk(source) for f in names if f.endswith(".pdf")]
        for pdf in sorted(found):
            if os.path.islink(pdf):
                continue
            p, b = draw(pdf, range(1, min(page_count(pdf), 8) + 1), folder, dpi)
            ppms += p
            total += b
        sets["stress"] = (ppms, total)
    if "real" in names:
        # A package may link the same PDF under two names: each file once.
        pdfs = sorted({os.path.realpath(p) for p in
                       glob.glob(os.path.join(ROOT, ".build-bench", "real", "unpacked", "**", "*.pdf"), recursive=True)})
        if not pdfs:
            sys.exit("sweep-png: no real PDFs: run scripts/real-documents.sh (or its download step) first")
        folder = os.path.join(WORK, "real")
        os.makedirs(folder)
        ppms, total = [], 0
        for pdf in pdfs:
            p, b = draw(pdf, range(1, page_count(pdf) + 1, 8), folder, dpi)
            ppms += p
            total += b
        sets["real"] = (ppms, total)
    return sets


def describe(setting):
    if setting.startswith("z"):
        level, bits = setting[1:].split(":")
        return "libpng + zlib %s, %s (RGB)" % (level, "Up" if bits == "0x20" else "adaptive" if bits == "0xF8" else bits)
    parts = setting[1:].split(":")
    text = "libdeflate %s, %s / %s" % (parts[0], FILTERS[parts[1]], FILTERS[parts[2]])
    if len(parts) > 3 and parts[3].startswith("p"):
        return text + " by page deflate %s" % parts[3][1:]
    return text + (", RGB only" if len(parts) > 3 else "")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--sets", default="fixtures,stress,real")
    parser.add_argument("--settings", default=",".join(DEFAULT_SETTINGS))
    args = parser.parse_args()
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    tool = os.path.join(WORK, "png-sweep")
    run(["cc", "-O2", "-I", os.path.join(ROOT, "Sources", "CGalleyPNG", "include"),
         os.path.join(ROOT, "scripts", "png-sweep.c"), os.path.join(ROOT, "Sources", "CGalleyPNG", "whole_image.c"),
         os.path.join(ROOT, "Sources", "CGalleyPNG", "shim.c"),
         os.path.join(ROOT, "Sources", "CGalleyPNG", "page_deflate.c"),
         os.path.join(ROOT, "Sources", "CGalleyPNG", "decode.c"), "-o", tool, "-ldeflate", "-lpng16", "-lz"])
    for name, (ppms, mutool_bytes) in page_sets(args.sets.split(","), args.dpi).items():
        pixels = 0
        for ppm in ppms:
            with open(ppm, "rb") as f:
                header = f.read(64).split()
            pixels += int(header[1]) * int(header[2])
        print("\n%s: %d pages, %.1f megapixels at %d dpi; mutool draw's PNGs %.2f MB\n"
              % (name, len(ppms), pixels / 1e6, args.dpi, mutool_bytes / 1e6))
        print("| settings (filter of many colours / of at most 2048) | CPU s | MB | × mutool's bytes | grey / palette / RGB |")
        print("| --- | ---: | ---: | ---: | --- |")
        process = subprocess.Popen([tool, args.settings] + ppms, stdout=subprocess.PIPE, text=True)
        for line in process.stdout:
            setting, seconds, size, grey, palette, rgb = line.split()
            print("| %s | %.2f | %.2f | %.2f | %s / %s / %s |" % (describe(setting), float(seconds), int(size) / 1e6,
                                                                int(size) / mutool_bytes, grey, palette, rgb))
            sys.stdout.flush()
        if process.wait() != 0:
            sys.exit("sweep-png: png-sweep failed")


if __name__ == "__main__":
    main()
