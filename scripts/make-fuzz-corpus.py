#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora from fixtures/ and pipeline.yml.

    python3 scripts/make-fuzz-corpus.py OUT

OUT/FuzzMarkup        every article fixture (fixtures/articles, fixtures/broken-articles,
                      fixtures/tables) in
                      pieces of at most MARKUP_MAX_LEN bytes, cut where a line starts so no
                      UTF-8 sequence or tag is split, each behind two of the target's option
                      bytes (layout: vertical, optimal breaking, hyphenation, columns, ...; see
                      Sources/GalleyFuzzSupport/MarkupFuzzTarget.swift)
OUT/FuzzConfiguration the repository's pipeline.yml, each of its top-level settings alone, and
                      each commented-out example setting in it alone
OUT/FuzzPDF           every PDF in fixtures/pdf and fixtures/broken (none is over PDF_MAX_LEN),
                      and small PDFs of Flate images made here (flate_image_pdf: RGB, grey with
                      a PNG predictor and a decode array, drawn at their size and much smaller),
                      which reach the shim's own inflate and row averaging (no fixture has one)
OUT/FuzzImage         every picture in fixtures/articles/images (PNG, JPEG) and the SVG
                      documents in SVG_SEEDS (shapes, paths, text, gradients, patterns, use,
                      clip paths, transforms, nested and embedded pictures)

The seeds are the same bytes on every run (no randomness), named by content hash so a rerun
over an existing folder adds nothing twice. scripts/fuzz.sh calls this before fuzzing.
"""
import hashlib
import os
import re
import sys
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The -max_len scripts/fuzz.sh gives each target.
MARKUP_MAX_LEN = 8192
CONFIGURATION_MAX_LEN = 8192
PDF_MAX_LEN = 65536
IMAGE_MAX_LEN = 65536
# Small SVG documents that between them use what MuPDF's SVG reader knows, for the fuzzer to
# mutate: the fixtures hold no SVG file of their own.
SVG_SEEDS = [
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><rect x="10" y="10" width="100" height="60" '
    'rx="8" fill="#3a6" stroke="black" stroke-width="2"/><circle cx="60" cy="40" r="20" fill="white"/></svg>',
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="5cm" height="5cm">'
    '<path d="M10 10 L90 10 Q 95 50 90 90 C 50 95 50 5 10 90 Z" fill="none" stroke="#00f" stroke-dasharray="4 2"/>'
    '<polyline points="0,0 50,50 100,0" stroke="red"/><polygon points="10,90 50,60 90,90"/>'
    '<ellipse cx="50" cy="50" rx="30" ry="10" opacity="0.5"/><line x1="0" y1="100" x2="100" y2="0" stroke="green"/></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100">'
    '<defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/>'
    '</linearGradient><radialGradient id="r"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#000"/>'
    '</radialGradient><clipPath id="c"><circle cx="50" cy="50" r="40"/></clipPath>'
    '<symbol id="s"><rect width="10" height="10"/></symbol></defs>'
    '<rect width="100" height="100" fill="url(#g)" clip-path="url(#c)"/><rect x="100" width="100" height="100" fill="url(#r)"/>'
    '<use xlink:href="#s" x="20" y="20" transform="rotate(30) scale(2)"/>'
    '<g transform="translate(10,10) skewX(10) matrix(1 0 0 1 5 5)" style="fill:#c00;stroke:none">'
    '<rect width="20" height="20"/></g></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="60"><style>text { font-family: serif; }</style>'
    '<text x="10" y="30" font-size="20" font-weight="bold">Galley <tspan fill="red" dy="5">SVG</tspan> text</text>'
    '<text x="10" y="55" font-family="monospace" text-anchor="start">code()</text></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><svg x="10" y="10" width="50" height="50" '
    'viewBox="0 0 10 10" preserveAspectRatio="xMidYMid slice"><rect width="10" height="10" fill="orange"/></svg>'
    '<image x="60" y="60" width="30" height="30" href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="/></svg>',
]
# Option bytes for the markup seeds: plain layout, vertical + optimal, hyphenation + 2 columns
# + justified, Japanese + 4 columns, sans-serif + optimal + 3 columns + justified.
MARKUP_OPTIONS = [0x00, 0x03, 0x2C, 0x58, 0xB2]
# Pieces taken from one article at most: the long essay repeats itself after that.
PIECES_PER_ARTICLE = 4


def write_seed(folder, data, max_len):
    assert len(data) <= max_len, (folder, len(data))
    os.makedirs(folder, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def pieces(data, size):
    """Consecutive pieces of at most `size` bytes, each ending before a line start."""
    start = 0
    while start < len(data):
        end = min(len(data), start + size)
        if end < len(data):
            cut = data.rfind(b"\n", start, end)
            end = cut + 1 if cut > start else end
        yield data[start:end]
        start = end


def markup_seeds(out):
    folder = os.path.join(out, "FuzzMarkup")
    count = 0
    for fixtures in ("fixtures/articles", "fixtures/broken-articles", "fixtures/tables"):
        directory = os.path.join(ROOT, fixtures)
        for name in sorted(os.listdir(directory)):
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            for i, piece in enumerate(list(pieces(data, MARKUP_MAX_LEN - 1))[:PIECES_PER_ARTICLE]):
                # Two option bytes per piece, rotating through the list, so every layout
                # meets every kind of article.
                for j in range(2):
                    option = MARKUP_OPTIONS[(count + j) % len(MARKUP_OPTIONS)]
                    write_seed(folder, bytes([option]) + piece, MARKUP_MAX_LEN)
                count += 1
    return folder


def configuration_seeds(out):
    folder = os.path.join(out, "FuzzConfiguration")
    with open(os.path.join(ROOT, "pipeline.yml"), "rb") as f:
        whole = f.read()
    write_seed(folder, whole, CONFIGURATION_MAX_LEN)
    lines = whole.decode("utf-8").splitlines(keepends=True)
    # Each top-level setting with its indented or listed continuation lines.
    block = []
    for line in lines + ["end:\n"]:
        if re.match(r"[a-z_]+:", line):
            if block:
                write_seed(folder, "".join(block).encode("utf-8"), CONFIGURATION_MAX_LEN)
            block = [line]
        elif block and (line.startswith((" ", "-")) or not line.strip()):
            block.append(line)
    # Each example setting left commented out (`# workers: {open: 1, ...}`).
    for line in lines:
        match = re.match(r"# ([a-z_]+: .*)$", line.rstrip("\n"))
        if match:
            write_seed(folder, (match.group(1) + "\n").encode("utf-8"), CONFIGURATION_MAX_LEN)
    return folder


def pdf_seeds(out):
    folder = os.path.join(out, "FuzzPDF")
    for fixtures in ("fixtures/pdf", "fixtures/broken"):
        directory = os.path.join(ROOT, fixtures)
        for name in sorted(os.listdir(directory)):
            with open(os.path.join(directory, name), "rb") as f:
                write_seed(folder, f.read(), PDF_MAX_LEN)
    for shape in FLATE_IMAGE_PDFS:
        write_seed(folder, flate_image_pdf(*shape), PDF_MAX_LEN)
    return folder


def flate_image_pdf(width, height, components, predictor, drawn, decode=False):
    """A one-page PDF whose only content is a Flate image of `width` x `height` pixels of
    `components` bytes (a gradient), with a PNG `predictor` (Up, on every row) or none, drawn
    `drawn` points wide: the bytes are the same on every run."""
    rows = []
    for y in range(height):
        row = bytes((x * 7 + y * 3 + c * 50) % 256 for x in range(width) for c in range(components))
        rows.append((b"\x02" + row) if predictor else row)
    data = zlib.compress(b"".join(rows), 9)
    space = "/DeviceRGB" if components == 3 else "/DeviceGray"
    parms = " /DecodeParms << /Predictor 12 /Colors %d /Columns %d >>" % (components, width) if predictor else ""
    extra = " /Decode [1 0]" if decode and components == 1 else ""
    content = b"q %d 0 0 %d 10 10 cm /Im0 Do Q" % (drawn, drawn * height // width)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        ("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 /Filter /FlateDecode%s%s /Length %d >>\nstream\n"
         % (width, height, space, parms, extra, len(data))).encode() + data + b"\nendstream",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out


# Flate images for FuzzPDF: whole and drawn small enough that MuPDF subsamples them.
FLATE_IMAGE_PDFS = [(40, 30, 3, False, 40, False), (64, 48, 1, True, 64, True),
                    (300, 200, 3, True, 20, False), (256, 256, 1, False, 8, True)]


def image_seeds(out):
    folder = os.path.join(out, "FuzzImage")
    directory = os.path.join(ROOT, "fixtures/articles/images")
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.isfile(path) and os.path.getsize(path) <= IMAGE_MAX_LEN:
            with open(path, "rb") as f:
                write_seed(folder, f.read(), IMAGE_MAX_LEN)
    for svg in SVG_SEEDS:
        write_seed(folder, svg.encode("utf-8"), IMAGE_MAX_LEN)
    return folder


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    out = sys.argv[1]
    for make in (markup_seeds, configuration_seeds, pdf_seeds, image_seeds):
        folder = make(out)
        print(f"make-fuzz-corpus: {len(os.listdir(folder))} seeds in {folder}")


if __name__ == "__main__":
    main()
