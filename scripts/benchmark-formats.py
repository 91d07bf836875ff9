#!/usr/bin/env python3
"""Time and bytes of galley's page images in each format and quality, against the usual
encoders on the same pixels, as a Markdown table.

    python3 scripts/benchmark-formats.py [--dpi D] [--corpus DIR] [--rounds R]

The pixels: galley draws every page of the fixture PDFs (or of every PDF in --corpus DIR) at
--dpi as PNG; those PNGs, and PPMs made from them (Pillow), are the peers' input, so every tool
encodes exactly the pixels galley drew. Each row runs on one core (`taskset -c 0`), one page
after another:

  galley      `galley render --jobs 1 --format F` with the row's settings: draws AND encodes
              every page (the png row is the reference: the difference between a row and it is
              the encoder's cost beyond PNG's)
  peers       encode only, one process per page: cjpeg (libjpeg-turbo) and `vips copy` from the
              PPM; cwebp and avifenc (libavif with libaom, one thread, the same quantizer and
              speed) from the PNG, since avifenc reads no PPM

Bytes are the sum over the pages. Requires a release build (bash scripts/build-release.sh)
and the tools scripts/install-deps.sh installs (mutool, cjpeg, cwebp, avifenc, vips, Pillow).
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench", "formats")
GALLEY = os.path.join(ROOT, ".build", "release", "galley")
FIX = os.path.join(ROOT, "fixtures", "pdf")
GOOD = ["article.pdf", "vector-art.pdf", "photo.pdf", "rotated.pdf", "cropped.pdf", "landscape.pdf", "mixed.pdf",
        "shared-image.pdf"]
PIN = ["taskset", "-c", "0"]


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(args), r.stdout[-1000:], r.stderr[-1000:]))
    return r


def folder_bytes(folder, suffix):
    return sum(os.path.getsize(p) for p in glob.glob(os.path.join(folder, "*" + suffix)))


def galley_row(pdfs, dpi, fmt, settings, name):
    """Draws and encodes every page with galley render on one core: (seconds, bytes)."""
    out = os.path.join(WORK, "galley", name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    config = os.path.join(WORK, "galley", name + ".yml")
    with open(config, "w") as f:
        f.write("format: %s\n%s" % (fmt, "".join("%s: %s\n" % kv for kv in settings.items())))
    start = time.perf_counter()
    run(PIN + [GALLEY, "render", "--config", config, "--dpi", str(dpi), "--jobs", "1", "-o", out] + pdfs)
    seconds = time.perf_counter() - start
    extension = {"jpeg": ".jpg"}.get(fmt, "." + fmt)
    return seconds, folder_bytes(out, extension)


def peer_row(pages, name, command, extension):
    """Encodes every page with `command(input_png, input_ppm, output)`, one process at a time on
    one core: (seconds, bytes)."""
    out = os.path.join(WORK, "peers", name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    start = time.perf_counter()
    for png in pages:
        stem = os.path.splitext(os.path.basename(png))[0]
        run(PIN + command(png, png[:-4] + ".ppm", os.path.join(out, stem + extension)))
    seconds = time.perf_counter() - start
    return seconds, folder_bytes(out, extension)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--corpus", help="a folder of PDFs (default: the fixture PDFs)")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each row; the median time is shown")
    args = parser.parse_args()
    if not os.access(GALLEY, os.X_OK):
        sys.exit("benchmark-formats: build first: bash scripts/build-release.sh")
    pdfs = sorted(glob.glob(os.path.join(args.corpus, "*.pdf"))) if args.corpus else [os.path.join(FIX, n) for n in GOOD]
    os.makedirs(WORK, exist_ok=True)
    # The pixels galley draws, as PNG and PPM.
    drawn = os.path.join(WORK, "drawn")
    shutil.rmtree(drawn, ignore_errors=True)
    run([GALLEY, "render", "--dpi", str(args.dpi), "-o", drawn] + pdfs, cwd=WORK)
    pages = sorted(glob.glob(os.path.join(drawn, "*.png")))
    run(["/usr/bin/python3", "-c", "import sys\nfrom PIL import Image\n"
         "for p in sys.argv[1:]: Image.open(p).convert('RGB').save(p[:-4] + '.ppm')"] + pages)
    megapixels = 0
    for p in pages:
        with open(p[:-4] + ".ppm", "rb") as f:
            fields = f.read(64).split()
            megapixels += int(fields[1]) * int(fields[2]) / 1e6

    def quantizer(quality):
        return str(((100 - quality) * 63 + 50) // 100)

    rows = [
        ("png", "galley, png: balanced", lambda: galley_row(pdfs, args.dpi, "png", {}, "png")),
        ("png", "vips copy x.ppm x.png (compression 6)", lambda: peer_row(pages, "vips-png", lambda png, ppm, o: ["vips", "copy", ppm, o], ".png")),
    ]
    for q in (90, 75):
        rows += [
            ("jpeg q%d" % q, "galley, jpeg quality %d, 4:2:0" % q, lambda q=q: galley_row(pdfs, args.dpi, "jpeg", {"quality": q}, "jpeg%d" % q)),
            ("jpeg q%d" % q, "cjpeg -quality %d -optimize" % q,
             lambda q=q: peer_row(pages, "cjpeg%d" % q, lambda png, ppm, o: ["cjpeg", "-quality", str(q), "-optimize", "-outfile", o, ppm], ".jpg")),
            ("jpeg q%d" % q, "vips copy x.ppm x.jpg[Q=%d,optimize_coding]" % q,
             lambda q=q: peer_row(pages, "vips-jpeg%d" % q, lambda png, ppm, o: ["vips", "copy", ppm, "%s[Q=%d,optimize_coding]" % (o, q)], ".jpg")),
        ]
    for q in (90, 75):
        rows += [
            ("webp q%d" % q, "galley, webp quality %d" % q, lambda q=q: galley_row(pdfs, args.dpi, "webp", {"quality": q}, "webp%d" % q)),
            ("webp q%d" % q, "cwebp -q %d -m 4" % q,
             lambda q=q: peer_row(pages, "cwebp%d" % q, lambda png, ppm, o: ["cwebp", "-quiet", "-q", str(q), "-m", "4", png, "-o", o], ".webp")),
            ("webp q%d" % q, "vips copy x.ppm x.webp[Q=%d]" % q,
             lambda q=q: peer_row(pages, "vips-webp%d" % q, lambda png, ppm, o: ["vips", "copy", ppm, "%s[Q=%d]" % (o, q)], ".webp")),
        ]
    rows += [
        ("webp lossless", "galley, webp lossless (effort 90)", lambda: galley_row(pdfs, args.dpi, "webp", {"lossless": "true"}, "webp-lossless")),
        ("webp lossless", "cwebp -lossless -q 90 -m 4",
         lambda: peer_row(pages, "cwebp-lossless", lambda png, ppm, o: ["cwebp", "-quiet", "-lossless", "-q", "90", "-m", "4", png, "-o", o], ".webp")),
    ]
    for q, speed in ((75, 6), (75, 8), (50, 6)):
        rows += [
            ("avif q%d s%d" % (q, speed), "galley, avif quality %d speed %d, 4:4:4" % (q, speed),
             lambda q=q, s=speed: galley_row(pdfs, args.dpi, "avif", {"quality": q, "speed": s}, "avif%d-%d" % (q, s))),
            ("avif q%d s%d" % (q, speed), "avifenc --min %s --max %s -s %d -j 1 -y 444" % (quantizer(q), quantizer(q), speed),
             lambda q=q, s=speed: peer_row(pages, "avifenc%d-%d" % (q, s), lambda png, ppm, o: [
                 "avifenc", "--min", quantizer(q), "--max", quantizer(q), "-s", str(s), "-j", "1", "-y", "444", "-r", "full",
                 "-c", "aom", png, o], ".avif")),
        ]
    print("%d pages (%.1f megapixels) at %d dpi; one core (taskset -c 0); galley draws and encodes, peers encode" % (
        len(pages), megapixels, args.dpi))
    print()
    print("| format | tool | time (s) | MB | × galley's PNG bytes |")
    print("| --- | --- | ---: | ---: | ---: |")
    png_bytes = None
    for group, name, measure in rows:
        results = [measure() for _ in range(args.rounds)]
        seconds = statistics.median(r[0] for r in results)
        size = results[0][1]
        if png_bytes is None:
            png_bytes = size
        print("| %s | %s | %.2f | %.2f | %.2f |" % (group, name, seconds, size / 1e6, size / png_bytes), flush=True)


if __name__ == "__main__":
    main()
