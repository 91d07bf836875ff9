#!/usr/bin/env python3
"""Checks a galley output folder against `mutool draw`, page by page.

    python3 scripts/compare-with-mutool.py OUTPUT_DIR [--base DIR] [--password FILE=PASSWORD ...]

For every PDF page in OUTPUT_DIR/manifest.json (articles are skipped; relative sources are
resolved against --base, default the current folder) it renders the source page with
`mutool draw -r DPI` and reports the pixel sizes (must match within one pixel) and the mean
absolute difference of the pixels (must stay under 1%). Thumbnails are checked to lie inside
their boxes. Exits 1 if any page fails. Needs numpy (python3-numpy).
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np


def read_png(path):
    """8-bit gray, RGB or RGBA, non-interlaced PNG → H×W×3 uint8 (alpha over white)."""
    data = open(path, "rb").read()
    offset, idat, header = 8, [], None
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        kind = data[offset + 4:offset + 8]
        body = data[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        offset += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and interlace == 0, "unsupported PNG in %s" % path
    channels = {0: 1, 2: 3, 6: 4, 4: 2}[color]
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8).reshape(height, width * channels + 1)
    filters, rows = raw[:, 0], raw[:, 1:].astype(np.int32)
    out = np.zeros_like(rows)
    bpp = channels
    for y in range(height):
        f, line = filters[y], rows[y]
        prev = out[y - 1] if y > 0 else np.zeros_like(line)
        if f == 0:
            out[y] = line
        elif f == 2:
            out[y] = (line + prev) & 255
        elif f == 1:
            cur = line.copy()
            for x in range(bpp, len(cur)):
                cur[x] = (cur[x] + cur[x - bpp]) & 255
            out[y] = cur
        else:
            cur = line.copy()
            for x in range(len(cur)):
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                if f == 3:
                    cur[x] = (cur[x] + ((a + b) >> 1)) & 255
                else:
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    pred = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
                    cur[x] = (cur[x] + pred) & 255
            out[y] = cur
    img = out.astype(np.uint8).reshape(height, width, channels)
    if channels == 1:
        img = np.repeat(img, 3, axis=2)
    elif channels == 2:
        img = np.repeat(img[:, :, :1], 3, axis=2)
    elif channels == 4:
        alpha = img[:, :, 3:4].astype(np.float64) / 255
        img = (img[:, :, :3] * alpha + 255 * (1 - alpha)).round().astype(np.uint8)
    return img


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("--base", help="the folder relative inputs are resolved against (the folder of pipeline.yml, "
                                       "or the current folder for --input); default: the current folder")
    parser.add_argument("--password", action="append", default=[], help="FILE=PASSWORD for encrypted sources")
    args = parser.parse_args()
    passwords = dict(p.split("=", 1) for p in args.password)
    manifest = json.load(open(os.path.join(args.output, "manifest.json")))
    dpi = manifest["settings"]["dpi"]
    failures = checked = 0
    worst = 0.0
    with tempfile.TemporaryDirectory() as work:
        for document in manifest["documents"]:
            # Articles are typeset by Galley, not drawn by MuPDF: only PDFs have a reference.
            if document["kind"] != "pdf" or document["status"] not in ("ok", "unchanged"):
                continue
            input_dir = os.path.join(args.base or os.getcwd(), document["input"])
            source = os.path.join(input_dir, document["source"]) if os.path.isdir(input_dir) else input_dir
            if not os.path.exists(source):
                sys.exit("compare: %s not found; pass --base with the folder the inputs are relative to" % source)
            for page in document["pages"]:
                for thumb in page["thumbnails"]:
                    if thumb["width"] > thumb["box"] or thumb["height"] > thumb["box"]:
                        print("FAIL %s p%d: thumbnail %dx%d outside box %d" % (document["source"], page["number"],
                                                                            thumb["width"], thumb["height"], thumb["box"]))
                        failures += 1
                if not page.get("image"):
                    continue
                ref = os.path.join(work, "ref.png")
                command = ["mutool", "draw", "-q", "-r", str(dpi), "-o", ref]
                pw = passwords.get(os.path.basename(source))
                if pw:
                    command += ["-p", pw]
                if os.path.exists(ref):
                    os.remove(ref)
                drawn = subprocess.run(command + [source, str(page["number"])], stderr=subprocess.DEVNULL)
                if not os.path.exists(ref):
                    print("skip %s p%d: mutool draw wrote no page (exit %d)" % (document["source"], page["number"], drawn.returncode))
                    continue
                if drawn.returncode != 0:
                    # A damaged file MuPDF repairs: mutool reports errors, exits non-zero, and
                    # still draws the page, which is compared like any other.
                    print("note %s p%d: mutool draw exited %d but drew the page" % (document["source"], page["number"], drawn.returncode))
                theirs = read_png(ref)
                ours = read_png(os.path.join(args.output, page["image"]["path"]))
                checked += 1
                dw, dh = abs(ours.shape[1] - theirs.shape[1]), abs(ours.shape[0] - theirs.shape[0])
                if dw > 1 or dh > 1:
                    print("FAIL %s p%d: %dx%d vs mutool %dx%d" % (document["source"], page["number"], ours.shape[1],
                                                                 ours.shape[0], theirs.shape[1], theirs.shape[0]))
                    failures += 1
                    continue
                h, w = min(ours.shape[0], theirs.shape[0]), min(ours.shape[1], theirs.shape[1])
                mad = np.abs(ours[:h, :w].astype(np.int16) - theirs[:h, :w].astype(np.int16)).mean() / 255
                worst = max(worst, mad)
                if mad >= 0.01:
                    print("FAIL %s p%d: mean absolute difference %.4f" % (document["source"], page["number"], mad))
                    failures += 1
    print("compare: %d pages checked against mutool draw -r %s: %d failed; worst mean absolute difference %.5f"
          % (checked, dpi, failures, worst))
    if checked == 0:
        sys.exit("compare: no PDF page images in %s to check" % args.output)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
