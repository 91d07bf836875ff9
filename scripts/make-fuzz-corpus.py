#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora from fixtures/ and pipeline.yml.

    python3 scripts/make-fuzz-corpus.py OUT

OUT/FuzzMarkup        every article fixture (fixtures/articles, fixtures/broken-articles) in
                      pieces of at most MARKUP_MAX_LEN bytes, cut where a line starts so no
                      UTF-8 sequence or tag is split, each behind two of the target's option
                      bytes (layout: vertical, optimal breaking, hyphenation, columns, ...; see
                      Sources/GalleyFuzzSupport/MarkupFuzzTarget.swift)
OUT/FuzzConfiguration the repository's pipeline.yml, each of its top-level settings alone, and
                      each commented-out example setting in it alone
OUT/FuzzPDF           every PDF in fixtures/pdf and fixtures/broken (none is over PDF_MAX_LEN)

The seeds are the same bytes on every run (no randomness), named by content hash so a rerun
over an existing folder adds nothing twice. scripts/fuzz.sh calls this before fuzzing.
"""
import hashlib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The -max_len scripts/fuzz.sh gives each target.
MARKUP_MAX_LEN = 8192
CONFIGURATION_MAX_LEN = 8192
PDF_MAX_LEN = 65536
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
    for fixtures in ("fixtures/articles", "fixtures/broken-articles"):
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
    return folder


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    out = sys.argv[1]
    for make in (markup_seeds, configuration_seeds, pdf_seeds):
        folder = make(out)
        print(f"make-fuzz-corpus: {len(os.listdir(folder))} seeds in {folder}")


if __name__ == "__main__":
    main()
