#!/usr/bin/env python3
"""Checks a freedesktop.org thumbnail folder against the Thumbnail Managing Standard with its
own PNG reader (struct + zlib): chunk CRCs, 8-bit RGBA non-interlaced, the Thumb:: text chunks,
file name = MD5 of Thumb::URI, size limits, 0600 files in 0700 folders, and freshness
(Thumb::MTime equals the file's mtime). Prints one line per problem and exits 1 if any.

usage: check-freedesktop-thumbnails.py THUMBNAIL_DIR [SOURCE_FILE ...]
With source files, also checks each has a fresh thumbnail, naming its maker in a Software
chunk, in every size folder present, and in at least one.
"""
import argparse, hashlib, os, stat, struct, sys, urllib.parse, zlib

SIZES = {"normal": 128, "large": 256, "x-large": 512, "xx-large": 1024}


def chunks(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("no PNG signature")
    pos = 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError(f"bad CRC in {kind!r}")
        yield kind.decode("latin-1"), body
        pos += 12 + length
        if kind == b"IEND":
            return
    raise ValueError("no IEND")


def read(path):
    data = open(path, "rb").read()
    info, texts, idat = None, {}, b""
    for kind, body in chunks(data):
        if kind == "IHDR":
            info = struct.unpack(">IIBBBBB", body)
        elif kind == "tEXt":
            key, _, value = body.partition(b"\0")
            texts[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == "IDAT":
            idat += body
    width, height, depth, color, _, _, interlace = info
    raw = zlib.decompress(idat)
    return width, height, depth, color, interlace, texts, len(raw)


def uri_of(path):
    return "file://" + urllib.parse.quote(os.path.abspath(path), safe="/!$&'()*+,=:@~")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", metavar="THUMBNAIL_DIR")
    parser.add_argument("sources", metavar="SOURCE_FILE", nargs="*")
    args = parser.parse_args()
    root, sources = args.root, args.sources
    problems = []
    if not os.path.isdir(root):
        problems.append(f"{root}: no such folder")
    def mode(path):
        return stat.S_IMODE(os.stat(path).st_mode)
    for folder, limit in list(SIZES.items()) + [("fail", None)]:
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            if mode(dirpath) != 0o700:
                problems.append(f"{dirpath}: folder mode {oct(mode(dirpath))}, not 0700")
            for name in filenames:
                path = os.path.join(dirpath, name)
                if not name.endswith(".png"):
                    problems.append(f"{path}: stray file")
                    continue
                if mode(path) != 0o600:
                    problems.append(f"{path}: file mode {oct(mode(path))}, not 0600")
                try:
                    width, height, depth, color, interlace, texts, raw = read(path)
                except Exception as error:
                    problems.append(f"{path}: not a valid PNG: {error}")
                    continue
                if depth != 8 or color != 6 or interlace != 0:
                    problems.append(f"{path}: depth {depth} colour type {color} interlace {interlace}, not 8-bit RGBA non-interlaced")
                if raw != height * (1 + width * 4):
                    problems.append(f"{path}: image data of {raw} bytes for {width}x{height} RGBA")
                uri = texts.get("Thumb::URI", "")
                if hashlib.md5(uri.encode()).hexdigest() + ".png" != name:
                    problems.append(f"{path}: name is not the MD5 of Thumb::URI {uri!r}")
                if "Thumb::MTime" not in texts:
                    problems.append(f"{path}: no Thumb::MTime")
                if limit is not None:
                    if max(width, height) > limit:
                        problems.append(f"{path}: {width}x{height} exceeds {limit}")
                    for key in ("Thumb::Size", "Thumb::Mimetype"):
                        if key not in texts:
                            problems.append(f"{path}: no {key}")
    for source in sources:
        uri = uri_of(source)
        name = hashlib.md5(uri.encode()).hexdigest() + ".png"
        present = [folder for folder in SIZES if os.path.isdir(os.path.join(root, folder))]
        if not present:
            problems.append(f"{source}: no size folder ({', '.join(SIZES)}) under {root}")
        for folder in present:
            path = os.path.join(root, folder, name)
            if not os.path.exists(path):
                problems.append(f"{source}: no {folder} thumbnail ({name})")
                continue
            texts = read(path)[5]
            if texts.get("Thumb::MTime") != str(int(os.stat(source).st_mtime)):
                problems.append(f"{source}: {folder} thumbnail is stale")
            if texts.get("Thumb::Size") != str(os.stat(source).st_size):
                problems.append(f"{source}: {folder} Thumb::Size is not the file's size")
            if not texts.get("Software"):
                problems.append(f"{source}: {folder} thumbnail has no Software chunk")
    for problem in problems:
        print(problem)
    print(f"checked {root}: {len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


main()
