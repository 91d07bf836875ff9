#!/usr/bin/env python3
"""Peak memory of `galley run` on inputs that test its bounds: one huge text line, an article
with a million elements, a 10 MB HTML paragraph, a 20 MB <pre>, 4 MB of `a` with no space, an
article with 8 PNGs of 6,300 px square, one with 8 tiny SVGs declaring 30,000 px square, a
table of 100,000 rows (and of 20,000), the stress corpus's PDFs with --max-pages 5, a scanned page holding a
9,000 px square image, a corrupt 10 KB TIFF, a page of 17,500 px square, one
just under the pixel limit of WebP (4,094 px square), one under AVIF's (3,544 px), and 300
against 3,000 pages. Prints a
Markdown table of peak RSS (`/usr/bin/time -f %M`), wall time and exit status per case.

    python3 scripts/benchmark-memory.py [--only NAME ...] [--format png|webp|jpeg|avif ...] [--galley PATH]

With --format, each case runs once per format (`format:` in its pipeline.yml), and the table
says which failure code, if any, the run recorded: a page over the pixel limit of WebP and
AVIF (encoded from the whole image) fails as `too-large-for-format` instead of being drawn.

Inputs are generated under .build-bench/memory/ (not committed). Requires a release build
(bash scripts/build-release.sh) and the tools scripts/install-deps.sh installs (mutool, time).
The targets (issues "One bad file never stops a batch" and #33): under 300 MB for the single
documents, and the 3,000-page run within 30% of the 300-page run.
"""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench", "memory")
GALLEY = os.path.join(ROOT, ".build", "release", "galley")
WORDS = ("galley type column measure justify hyphen kerning leading baseline glyph shaping "
         "paragraph ligature margin quire folio verso recto gutter ink press platen").split()


def words(rng, count):
    return " ".join(rng.choice(WORDS) for _ in range(count))


def write_until(path, size, chunk, head="", tail=""):
    """`head`, then pieces from `chunk()` until `size` bytes, then `tail`."""
    with open(path, "w") as f:
        f.write(head)
        written = 0
        while written < size:
            piece = chunk()
            f.write(piece)
            written += len(piece)
        f.write(tail)


def one_line_text(path):
    """About 10 MB of words and no line break at all: one paragraph."""
    rng = random.Random(1)
    write_until(path, 10_000_000, lambda: words(rng, 2000) + " ")


def million_spans(path):
    """One article of a million <span> elements in 10,000 paragraphs."""
    rng = random.Random(2)
    with open(path, "w") as f:
        f.write("<!doctype html><html lang=en><body>\n")
        for _ in range(10_000):
            f.write("<p>" + "".join("<span>%s </span>" % rng.choice(WORDS) for _ in range(100)) + "</p>\n")
        f.write("</body></html>\n")


def html_paragraph(path):
    """One <p> of about 10 MB of words: one paragraph, one element."""
    rng = random.Random(3)
    write_until(path, 10_000_000, lambda: words(rng, 2000) + " <em>%s</em> " % rng.choice(WORDS),
                "<!doctype html><html lang=en><body><p>", "</p></body></html>\n")


def html_pre(path):
    """A <pre> of about 20 MB: 250,000 lines of code-like text, set verbatim."""
    rng = random.Random(4)
    write_until(path, 20_000_000,
                lambda: "    " * rng.randrange(4) + "%s(%s, %d) &amp;&amp; %s;\n" % (
                    rng.choice(WORDS), rng.choice(WORDS), rng.randrange(1000), words(rng, 6)),
                "<!doctype html><html lang=en><body><pre>", "</pre></body></html>\n")


def no_space_text(path, megabytes=4):
    """`megabytes` MB of `a` with no space: one word, broken only where the column ends. The 1,
    2 and 4 MB rows show whether time grows linearly with it."""
    with open(path, "w") as f:
        f.write("a" * (megabytes * 1_000_000) + "\n")


def long_arabic(path):
    """One paragraph of about 2 MB of Arabic: an item shaped whole (in runs of 4,096)."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("<!doctype html><html lang=ar dir=rtl><body><p>")
        f.write("مرحبا بالعالم، هذه فقرة طويلة بالعربية للتجربة. " * 22_000)
        f.write("</p></body></html>\n")


def combining_accents(path):
    """`a` and 100,000 combining acute accents: one cluster of marks."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("a" + "\u0301" * 100_000 + " and words after it.\n")


def png(path, width, height, row, channels=3):
    """A PNG of `height` rows from `row(y)` (raw bytes, `channels` 8-bit samples a pixel),
    compressed row by row so no whole image is ever held here."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    colour = {1: 0, 3: 2, 4: 6}[channels]
    deflate = zlib.compressobj(9)
    parts = []
    for y in range(height):
        parts.append(deflate.compress(b"\x00" + row(y)))
    parts.append(deflate.flush())
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)))
        f.write(chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))


def banded_row(side, seed, channels=3):
    """Rows of `side` pixels in a few bands of colour: compressible, not uniform."""
    rows = [bytes(((x // 97 + band) * 37 + seed * 50 + c * 90) % 256 for x in range(side) for c in range(channels))
            for band in range(7)]
    return lambda y: rows[(y // 450) % len(rows)]


def png_article(folder):
    """An article with 8 different PNGs of 6,300 x 6,300 (about 130 KB each, under the
    40-megapixel limit), each drawn at its column's width."""
    images = []
    for i in range(8):
        name = "big-%d.png" % i
        png(os.path.join(folder, name), 6300, 6300, banded_row(6300, i))
        images.append(name)
    article(folder, "pictures.html", images)


def svg_article(folder):
    """An article with 8 SVGs of 135 bytes each that declare a size of 30,000 px square."""
    images = []
    for i in range(8):
        name = "huge-%d.svg" % i
        with open(os.path.join(folder, name), "w") as f:
            f.write('<svg xmlns="http://www.w3.org/2000/svg" width="30000" height="30000">'
                    '<circle cx="15000" cy="15000" r="9000" fill="#%02x4080"/></svg>\n' % (i * 30))
        images.append(name)
    article(folder, "drawings.html", images)


def article(folder, name, images):
    rng = random.Random(5)
    with open(os.path.join(folder, name), "w") as f:
        f.write("<!doctype html><html lang=en><body><h1>Pictures</h1>\n")
        for image in images:
            f.write("<p>%s</p>\n<p><img src=\"%s\" alt=\"%s\"></p>\n" % (words(rng, 80), image, image))
        f.write("</body></html>\n")


def long_table(path, rows=100_000):
    """An HTML table of `rows` rows of 10 cells (100,000, and 20,000 to see how it grows)."""
    rng = random.Random(6)
    with open(path, "w") as f:
        f.write("<!doctype html><html lang=en><body><table>\n")
        for r in range(rows):
            f.write("<tr>" + "".join("<td>%s %d</td>" % (rng.choice(WORDS), r) for _ in range(10)) + "</tr>\n")
        f.write("</table></body></html>\n")


def stress_corpus(folder):
    """The PDFs scripts/make-stress-corpus.py writes (a CMYK image, a 300-dpi scan, a huge
    page, 300 pages, ...), run with --max-pages 5."""
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-stress-corpus.py"), folder],
                   check=True, stdout=subprocess.DEVNULL)


def scanned_pdf(folder):
    """A page scanned at 150 dpi: one 9,000 x 9,000 colour image on a page of 60 inches square
    (4,320 pt), drawn at 150 dpi (9,000 px, in bands); and a letter page holding the same
    image, drawn at about 1,275 px."""
    image = os.path.join(folder, "..", "scan.png")
    png(image, 9000, 9000, banded_row(9000, 3))
    pdf_pages(os.path.join(folder, "scan.pdf"), 1, 4320, 4320, "q 4320 0 0 4320 0 0 cm /Im1 Do Q", image=image)
    pdf_pages(os.path.join(folder, "scan-letter.pdf"), 1, 612, 792, "q 612 0 0 792 0 0 cm /Im1 Do Q", image=image)
    os.remove(image)


def corrupt_tiff(folder, strip_bytes=600_000):
    """An article with a 10 KB TIFF that claims 6,000 x 6,000 RGB pixels in one LZW strip of
    600,000 bytes (the file holds 9,728 of garbage): MuPDF cannot decode it ("invalid strip
    byte count"), after allocating its pixels. With `strip_bytes` 9,600 the strip fits in the
    file and MuPDF decodes the garbage without a word."""
    rng = random.Random(7)
    entries = [(256, 4, 1, 6000), (257, 4, 1, 6000), (258, 3, 1, 8), (259, 3, 1, 5), (262, 3, 1, 2),
               (273, 4, 1, 512), (277, 3, 1, 3), (278, 4, 1, 6000), (279, 4, 1, strip_bytes)]
    header = b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", len(entries))
    header += b"".join(struct.pack("<HHII", tag, kind, count, value if kind == 4 else value) for tag, kind, count, value in entries)
    header += struct.pack("<I", 0)
    body = header + bytes(512 - len(header)) + bytes(rng.randrange(256) for _ in range(10_240 - 512))
    with open(os.path.join(folder, "scan.tif"), "wb") as f:
        f.write(body)
    article(folder, "tiff.html", ["scan.tif"])


def pdf_pages(path, count, width=612, height=792, body=None, image=None):
    """A PDF of `count` copies of one page (mutool create takes a page description per page)."""
    page = body or ("BT /F1 24 Tf 72 700 Td (Galley memory page) Tj ET\n"
                    "0.2 0.4 0.8 rg 72 72 200 300 re f\n")
    spec = os.path.join(os.path.dirname(path), "page.txt")
    with open(spec, "w") as f:
        f.write("%%%%MediaBox 0 0 %d %d\n%%%%Font F1 Times-Roman\n" % (width, height))
        if image:
            f.write("%%%%Image Im1 %s\n" % image)
        f.write(page + "\n")
    subprocess.run(["mutool", "create", "-o", path] + [spec] * count, check=True)
    os.remove(spec)


CASES = [
    # name, how to make its input folder, dpi, thumbnails, target MB
    ("text-10mb-one-line", lambda d: one_line_text(os.path.join(d, "one-line.txt")), 96, "[128]", 300),
    ("html-million-spans", lambda d: million_spans(os.path.join(d, "spans.html")), 96, "[128]", 300),
    ("html-10mb-paragraph", lambda d: html_paragraph(os.path.join(d, "paragraph.html")), 96, "[128]", 300),
    ("html-20mb-pre", lambda d: html_pre(os.path.join(d, "pre.html")), 96, "[128]", 300),
    ("text-1mb-no-space", lambda d: no_space_text(os.path.join(d, "no-space.txt"), 1), 96, "[128]", 300),
    ("text-2mb-no-space", lambda d: no_space_text(os.path.join(d, "no-space.txt"), 2), 96, "[128]", 300),
    ("text-4mb-no-space", lambda d: no_space_text(os.path.join(d, "no-space.txt")), 96, "[128]", 300),
    ("html-2mb-arabic-paragraph", lambda d: long_arabic(os.path.join(d, "arabic.html")), 96, "[128]", 300),
    ("text-100k-accents", lambda d: combining_accents(os.path.join(d, "accents.txt")), 96, "[128]", 300),
    ("html-8-pngs-6300px", png_article, 150, "[128]", 300),
    ("html-8-svgs-declared-30000px", svg_article, 150, "[128]", 300),
    ("html-table-20000-rows", lambda d: long_table(os.path.join(d, "table.html"), 20_000), 96, "[128]", 300),
    ("html-table-100000-rows", lambda d: long_table(os.path.join(d, "table.html")), 96, "[128]", 300),
    ("pdf-corpus-max-pages-5", stress_corpus, 150, "[128]", 300),
    ("pdf-scan-9000px-image", scanned_pdf, 150, "[128]", 300),
    ("html-corrupt-tiff-10kb", corrupt_tiff, 150, "[128]", 300),
    ("html-garbage-tiff-10kb", lambda d: corrupt_tiff(d, 9600), 150, "[128]", 300),
    ("pdf-17500px-page", lambda d: pdf_pages(os.path.join(d, "huge.pdf"), 1, 8400, 8400,
                                             "0 0 1 rg 100 100 8200 8200 re f q 8000 0 0 6000 200 1200 cm /Im1 Do Q "
                                             "BT /F1 400 Tf 400 4000 Td (Huge) Tj ET",
                                             image=os.path.join(ROOT, "fixtures", "articles", "images", "photo.jpg")),
     150, "[128]", 300),
    # Just under WebP's pixel limit (16,777,216): 1965 pt is 4094 px at 150 dpi.
    ("pdf-webp-limit-page", lambda d: pdf_pages(os.path.join(d, "limit.pdf"), 1, 1965, 1965,
                                            "0 0 1 rg 50 50 1865 1865 re f q 1800 0 0 1350 80 300 cm /Im1 Do Q "
                                            "BT /F1 100 Tf 100 1000 Td (At the limit) Tj ET",
                                            image=os.path.join(ROOT, "fixtures", "articles", "images", "photo.jpg")),
     150, "[128]", 300),
    # Just under AVIF's pixel limit (12,582,912): 1701 pt is 3544 px at 150 dpi.
    ("pdf-avif-limit-page", lambda d: pdf_pages(os.path.join(d, "avif-limit.pdf"), 1, 1701, 1701,
                                            "0 0 1 rg 50 50 1600 1600 re f q 1500 0 0 1125 80 300 cm /Im1 Do Q "
                                            "BT /F1 100 Tf 100 1000 Td (At the limit) Tj ET",
                                            image=os.path.join(ROOT, "fixtures", "articles", "images", "photo.jpg")),
     150, "[128]", 300),
    ("pdf-300-pages", lambda d: pdf_pages(os.path.join(d, "p300.pdf"), 300), 36, "[64]", None),
    ("pdf-3000-pages", lambda d: pdf_pages(os.path.join(d, "p3000.pdf"), 3000), 36, "[64]", None),
]

# Options a case's run gets besides its configuration.
OPTIONS = {"pdf-corpus-max-pages-5": ["--max-pages", "5"]}


def measure(name, make, dpi, thumbnails, target, image_format=None):
    folder = os.path.join(WORK, name)
    inputs = os.path.join(folder, "in")
    if not os.path.isdir(inputs):
        os.makedirs(inputs)
        make(inputs)
    output = os.path.join(folder, "out")
    shutil.rmtree(output, ignore_errors=True)
    config = os.path.join(folder, "pipeline.yml")
    with open(config, "w") as f:
        f.write("inputs: [in]\noutput: out\ndpi: %d\nthumbnails: %s\nthumbnail_cache_size: 0\n" % (dpi, thumbnails))
        if image_format:
            f.write("format: %s\n" % image_format)
    start = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M", GALLEY, "run", "--config", config, "--progress", "none"]
                       + OPTIONS.get(name, []),
                       cwd=folder, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    peak_mb = int(r.stderr.strip().splitlines()[-1]) / 1024
    return peak_mb, seconds, r.returncode, failure_codes(os.path.join(output, "manifest.json"))


def failure_codes(manifest):
    """The failure codes a run's manifest records, comma-separated ("" when none failed)."""
    try:
        with open(manifest) as f:
            documents = json.load(f)["documents"]
    except (OSError, ValueError, KeyError):
        return "no manifest"
    return ", ".join(sorted({d["error"]["code"] for d in documents if d.get("error")}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="case names to run")
    parser.add_argument("--format", nargs="*", dest="formats", help="image formats to run each case in")
    parser.add_argument("--galley", help="the galley binary to measure (default: .build/release/galley)")
    args = parser.parse_args()
    global GALLEY
    GALLEY = os.path.abspath(args.galley or GALLEY)
    if not os.access(GALLEY, os.X_OK):
        sys.exit("benchmark-memory: build first: bash scripts/build-release.sh")
    os.makedirs(WORK, exist_ok=True)
    print("| case | format | peak RSS (MB) | time (s) | exit | failure | target |")
    print("| --- | --- | ---: | ---: | ---: | --- | --- |")
    results = {}
    for name, make, dpi, thumbnails, target in CASES:
        if args.only and name not in args.only:
            continue
        for image_format in args.formats or [None]:
            # The two page-count cases are compared, so each is the median of three runs: peak
            # RSS varies by a few MB from run to run with thread timing.
            runs = [measure(name, make, dpi, thumbnails, target, image_format)
                    for _ in range(3 if name.startswith("pdf-3") else 1)]
            peak, seconds, status, failures = sorted(runs)[len(runs) // 2]
            if len(runs) > 1:
                print("<!-- %s: peak RSS %s MB -->" % (name, ", ".join("%.1f" % run[0] for run in runs)), flush=True)
            if image_format is None:
                results[name] = peak
            verdict = "" if target is None else ("under %d MB: %s" % (target, "yes" if peak < target else "NO"))
            print("| %s | %s | %.0f | %.2f | %d | %s | %s |" % (name, image_format or "png", peak, seconds, status,
                                                               failures, verdict), flush=True)
    if "pdf-300-pages" in results and "pdf-3000-pages" in results:
        ratio = results["pdf-3000-pages"] / results["pdf-300-pages"]
        print("\n3,000 pages against 300: %.2f× the peak RSS (target: within 1.30×): %s"
              % (ratio, "yes" if ratio <= 1.3 else "NO"))


if __name__ == "__main__":
    main()
