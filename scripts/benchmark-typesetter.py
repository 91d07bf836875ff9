#!/usr/bin/env python3
"""Measures how fast Galley typesets and renders an article, against peer tools on the same text.

    python3 scripts/benchmark-typesetter.py [--galley PATH] [--dpi 150] [--repeat 3]
        [--page-width 595] [--page-height 842] [--inset 54] [--font-size 11] [--workers 1]
        [--png fast] [--article fixtures/articles/long-essay.html] [--keep]

Every tool gets the same article, page size, text column, font size and resolution, and each
count of pages is the tool's own. Each measurement is the best wall time of --repeat runs of
the whole process (start-up and font loading included); peak RSS is the largest of those runs.

Rows, in two groups:

  render, no PNG   pages laid out and rasterized, pixels discarded
    galley typeset --render --jobs N Galley's typesetter and renderer; no PNG encoding. --jobs 1:
                                     one thread; more: one thread typesets while N draw
    mutool draw (no -o)              MuPDF's HTML engine; see mupdf_commands() for why this
                                     still rasterizes every page
    mutool draw -P (no -o)           the same with MuPDF's parallel mode (its only use of a
                                     second core here)
    pango-view, ft2 -> PGM           Pango + FreeType's grey-scale renderer, raw PGM (page-equivalents)
  render + PNG     page images written as PNG files
    galley run --jobs N              the whole pipeline, reading pages from manifest.json
    mutool draw -o page-%d.png       MuPDF writes one PNG per page
    pango-view, cairo -> PNG         Pango + cairo, one tall PNG per chunk (page-equivalents)
  and galley typeset and galley run with 2 workers as extra rows.

"Galley ÷ peer" is Galley's pages/s over the peer's, within a group, with --workers workers
(higher is better for Galley).

pango-view lays out one tall page, not pages, so its pages are page-equivalents: the height of
its output ÷ the height of a page's text area (page height - 2 × inset) at the same dpi. It is
run on the article's text converted to Pango markup (bold, italic, code, headings, lists kept)
at the column width (page width - 2 × inset), with its line spacing calibrated to the same line
height (font size × 1.2). It keeps no paragraph spacing, page breaks or widow control, so the
equivalents are approximate. Cairo cannot make an image taller than 32,767 pixels (a larger one
comes out as an empty file), so the text is split at block boundaries into chunks of at most
about 10 pages and pango-view runs once per chunk; its times include those start-ups.

PNG settings differ by tool and are printed with the results: Galley's preset (--png, default
fast = zlib level 1 with the Up filter), MuPDF's writer (zlib's default level, filter None on
every row, as mutool 1.21 writes them) and cairo's (libpng defaults: zlib level 6, adaptive
filters); --png small (zlib level 6, adaptive filters) is the preset closest to both peers, so
the PNG rows compare encoders as much as typesetters unless it is used. A missing peer prints "skipped (not installed)". Requires a release build of Galley
(bash scripts/build-release.sh) with the `typeset` command; without it the Galley rows
report why, and the script exits with status 1 after measuring the peers.
"""
import argparse
import html
import html.parser
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
CAIRO_MAX_PX = 32767
LINE_HEIGHT = 1.2
FONT_FAMILY = "DejaVu Serif"


def log(message):
    print(message, file=sys.stderr, flush=True)


class Failed(Exception):
    """A measurement that could not be made; the message says why."""


# --------------------------------------------------------------------------------------------
# Running and timing processes.

def run_measured(command, workdir, cwd=None):
    """Runs a command to completion. Returns (seconds, peak RSS in KiB, stdout, stderr, status)."""
    out_path = os.path.join(workdir, "stdout.txt")
    err_path = os.path.join(workdir, "stderr.txt")
    rss_path = os.path.join(workdir, "rss.txt")
    full = [TIME, "-f", "%M", "-o", rss_path] + command if TIME else command
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        process = subprocess.Popen(full, stdout=out, stderr=err, cwd=cwd)
        if TIME:
            status = process.wait()
        else:
            _, wait_status, usage = os.wait4(process.pid, 0)
            status = os.waitstatus_to_exitcode(wait_status)
            process.returncode = status
        seconds = time.perf_counter() - start
    with open(out_path, "rb") as f:
        stdout = f.read().decode("utf-8", "replace")
    with open(err_path, "rb") as f:
        stderr = f.read().decode("utf-8", "replace")
    rss = 0
    if TIME:
        try:
            with open(rss_path) as f:
                rss = int(f.read().strip().splitlines()[-1])
        except (OSError, ValueError, IndexError):
            rss = 0
    else:
        rss = usage.ru_maxrss
    return seconds, rss, stdout, stderr, status


def tail(text, lines=4):
    return " | ".join(line.strip() for line in text.strip().splitlines()[-lines:]) or "(no output)"


class Measurement:
    def __init__(self, group, tool, what, seconds=None, pages=None, rss_kib=None, equivalents=False,
                 status="ok", note=""):
        self.group, self.tool, self.what = group, tool, what
        self.seconds, self.pages, self.rss_kib = seconds, pages, rss_kib
        self.equivalents, self.status, self.note = equivalents, status, note

    @property
    def rate(self):
        return self.pages / self.seconds if self.status == "ok" and self.seconds else None


def best_of(repeat, attempt):
    """Calls attempt() repeat times; each returns (seconds, pages, rss_kib). Keeps the best time."""
    best, peak, pages = None, 0, None
    for i in range(repeat):
        seconds, pages_now, rss = attempt()
        if pages is not None and pages_now != pages:
            log("  note: run %d counted %s pages, an earlier run %s" % (i + 1, pages_now, pages))
        pages = pages_now
        best = seconds if best is None else min(best, seconds)
        peak = max(peak, rss)
    return best, pages, peak


# --------------------------------------------------------------------------------------------
# PNG settings, read back from a file a tool wrote.

def png_settings(path):
    """'zlib <level class>, filters <types>' of a PNG file, or None if it cannot be read."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            return None
        pos, idat, width, bpp = 8, bytearray(), 0, 0
        while pos + 8 <= len(data):
            length, kind = struct.unpack(">I4s", data[pos:pos + 8])
            body = data[pos + 8:pos + 8 + length]
            if kind == b"IHDR":
                width, _, depth, colour = struct.unpack(">IIBB", body[:10])
                channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colour]
                bpp = max(1, channels * depth // 8)
            elif kind == b"IDAT":
                idat += body
            pos += 12 + length
        level = {0: "fastest (1)", 1: "fast (2-5)", 2: "default (6)", 3: "maximum (7-9)"}[idat[1] >> 6]
        raw = zlib.decompress(bytes(idat))
        stride = width * bpp + 1
        names = {0: "None", 1: "Sub", 2: "Up", 3: "Average", 4: "Paeth"}
        used = sorted({raw[r] for r in range(0, len(raw), stride)})
        return "zlib level %s, filters %s" % (level, "/".join(names.get(u, str(u)) for u in used))
    except (OSError, ValueError, KeyError, IndexError, zlib.error, struct.error):
        return None


# --------------------------------------------------------------------------------------------
# Galley.

def galley_config(folder, input_dir, out_dir, args):
    path = os.path.join(folder, "pipeline.yml")
    with open(path, "w") as f:
        f.write("inputs: [%s]\n" % json.dumps(input_dir))
        f.write("output: %s\n" % json.dumps(out_dir))
        f.write("dpi: %d\n" % args.dpi)
        f.write("thumbnails: []\n")
        f.write("png: %s\n" % args.png)
        f.write("layouts:\n")
        f.write("  - name: a4\n")
        f.write("    page: [%s, %s]\n" % (fmt(args.page_width), fmt(args.page_height)))
        f.write("    columns: 1\n")
        f.write("    inset: %s\n" % fmt(args.inset))
        f.write("    font_family: %s\n" % FONT_FAMILY)
        f.write("    font_size: %s\n" % fmt(args.font_size))
        f.write("    line_height: %s\n" % fmt(LINE_HEIGHT))
    return path


def fmt(number):
    return ("%g" % number)


def galley_typeset(args, work, article, jobs):
    """galley typeset --render --jobs N --json: pages typeset and rasterized, no PNG encoding."""
    folder = os.path.join(work, "galley-typeset-%d" % jobs)
    input_dir = os.path.join(folder, "input")
    os.makedirs(input_dir)
    copy = os.path.join(input_dir, os.path.basename(article))
    shutil.copyfile(article, copy)
    config = galley_config(folder, input_dir, os.path.join(folder, "out"), args)
    command = [args.galley, "typeset", "--config", config, "--render", "--jobs", str(jobs), "--json", copy]
    inner = {}

    def attempt():
        seconds, rss, stdout, stderr, status = run_measured(command, folder)
        if status != 0:
            if re.search(r"typeset", stderr) and re.search(r"unknown|unexpected|unrecognized|no such|invalid|usage",
                                                          stderr, re.I):
                raise Failed("this galley has no `typeset` command (or not this form of it): `%s` "
                             "exited %d: %s" % (" ".join(command[1:]), status, tail(stderr, 2)))
            raise Failed("`galley typeset` exited %d: %s" % (status, tail(stderr)))
        try:
            report = json.loads(stdout)
            layouts = [l for d in report["documents"] for l in d["layouts"]]
            pages = sum(int(l["pages"]) for l in layouts)
            inner["typeset"] = sum(float(l.get("typeset_seconds", 0)) for l in layouts)
            inner["render"] = sum(float(l.get("render_seconds", 0)) for l in layouts)
        except (ValueError, KeyError, TypeError) as e:
            raise Failed("`galley typeset --json` did not print the expected JSON "
                         "({\"documents\":[{\"layouts\":[{\"pages\":N, ...}]}]}): %s; output began %r"
                         % (e, stdout[:200]))
        if pages == 0:
            raise Failed("`galley typeset` reported 0 pages: %s" % tail(stderr))
        return seconds, pages, rss

    seconds, pages, rss = best_of(args.repeat, attempt)
    note = ""
    if inner.get("typeset") or inner.get("render"):
        note = "last run: typeset %.2f s, render %.2f s inside the process" % (inner["typeset"], inner["render"])
    return Measurement("render, no PNG", typeset_tool(jobs), "typeset + rasterize, pixels discarded",
                       seconds, pages, rss, note=note)


def typeset_tool(jobs):
    return "galley typeset --render --jobs %d" % jobs


def manifest_pages(document):
    """A manifest document's pages: documents[].pages, or, if pages are listed per layout,
    all of documents[].layouts[].pages."""
    if isinstance(document.get("pages"), list):
        return document["pages"]
    return [page for layout in document.get("layouts", []) for page in layout.get("pages", [])]


def galley_run(args, work, article, jobs):
    """galley run --jobs N: the whole pipeline, PNG files written, pages read from manifest.json."""
    folder = os.path.join(work, "galley-run-%d" % jobs)
    input_dir = os.path.join(folder, "input")
    out_dir = os.path.join(folder, "out")
    os.makedirs(input_dir)
    shutil.copyfile(article, os.path.join(input_dir, os.path.basename(article)))
    config = galley_config(folder, input_dir, out_dir, args)
    command = [args.galley, "run", "--config", config, "--jobs", str(jobs)]
    first_png = {}

    def attempt():
        shutil.rmtree(out_dir, ignore_errors=True)  # otherwise unchanged documents are skipped
        seconds, rss, stdout, stderr, status = run_measured(command, folder)
        if status != 0:
            raise Failed("`galley run` exited %d: %s" % (status, tail(stderr)))
        try:
            with open(os.path.join(out_dir, "manifest.json")) as f:
                manifest = json.load(f)
            pages = 0
            for document in manifest["documents"]:
                if document.get("status") == "failed":
                    raise Failed("galley failed the article: %s" % json.dumps(document.get("error")))
                listed = manifest_pages(document)
                pages += len(listed)
                for page in listed:
                    image = page.get("image") if isinstance(page, dict) else None
                    if isinstance(image, dict):  # {path, width, height, sha256, bytes}
                        image = image.get("path")
                    if isinstance(image, str) and "path" not in first_png:
                        first_png["path"] = os.path.join(out_dir, image)
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise Failed("cannot read pages from %s: %s" % (os.path.join(out_dir, "manifest.json"), e))
        if pages == 0:
            raise Failed("galley's manifest lists no pages")
        return seconds, pages, rss

    seconds, pages, rss = best_of(args.repeat, attempt)
    settings = png_settings(first_png["path"]) if "path" in first_png else None
    note = "png: %s" % args.png + (" (%s)" % settings if settings else "")
    return Measurement("render + PNG", "galley run --jobs %d" % jobs, "whole pipeline, PNG files written",
                       seconds, pages, rss, note=note)


# --------------------------------------------------------------------------------------------
# MuPDF.

def font_file(pattern):
    """The file fontconfig picks for a pattern, if it matches the family asked for."""
    if shutil.which("fc-match") is None:
        return None
    result = subprocess.run(["fc-match", "-f", "%{file}\t%{family}", pattern], capture_output=True, text=True)
    if result.returncode != 0 or "\t" not in result.stdout:
        return None
    path, families = result.stdout.split("\t", 1)
    wanted = pattern.split(":")[0]
    return path if wanted in families.split(",") and os.path.isfile(path) else None


def mupdf_folder(args, work, article):
    """A folder with the article, the DejaVu fonts it asks for and a user style sheet.

    MuPDF does not use fontconfig: without help it sets "DejaVu Serif" in its built-in serif
    face, which is narrower and gives fewer pages. @font-face rules in the user style sheet
    (-U) load the same fonts Galley uses; MuPDF resolves their relative URLs against the
    document's folder, so the font files are copied next to the article. @page sets the inset.
    """
    folder = os.path.join(work, "mupdf")
    os.makedirs(folder)
    copy = os.path.join(folder, os.path.basename(article))
    shutil.copyfile(article, copy)
    rules = []
    faces = [("DejaVu Serif", "normal", "normal", "DejaVu Serif:style=Book"),
             ("DejaVu Serif", "bold", "normal", "DejaVu Serif:style=Bold"),
             ("DejaVu Serif", "normal", "italic", "DejaVu Serif:style=Italic"),
             ("DejaVu Serif", "bold", "italic", "DejaVu Serif:style=Bold Italic"),
             ("DejaVu Sans Mono", "normal", "normal", "DejaVu Sans Mono:style=Book"),
             ("DejaVu Sans", "normal", "normal", "DejaVu Sans:style=Book")]
    missing = []
    for family, weight, style, pattern in faces:
        path = font_file(pattern)
        if path is None:
            missing.append(pattern)
            continue
        name = os.path.basename(path)
        if not os.path.exists(os.path.join(folder, name)):
            shutil.copyfile(path, os.path.join(folder, name))
        rules.append('@font-face { font-family: "%s"; font-weight: %s; font-style: %s; src: url(%s); }'
                     % (family, weight, style, name))
    rules.append("@page { margin: %spt; }" % fmt(args.inset))
    rules.append("body { font-size: %spt; line-height: %s; }" % (fmt(args.font_size), fmt(LINE_HEIGHT)))
    css = os.path.join(folder, "user.css")
    with open(css, "w") as f:
        f.write("\n".join(rules) + "\n")
    note = "fonts via @font-face" if not missing else "MuPDF's built-in fonts for: " + ", ".join(missing)
    return folder, copy, css, note


def mupdf_commands(args, folder, copy, css, png_dir):
    """mutool draw without -o, and with PNG output.

    mutool 1.21 draws every page into a pixmap whatever the output: with no -o it takes the
    raster path (output format "none"), allocates the page's RGB pixmap, runs the display list
    through the draw device and then has no band writer to hand the pixels to. -s 5 shows that
    those pixmaps are the very ones it writes as PNG (same MD5 with and without -o), so leaving
    out -o excludes only the encoding and the file. (-o /dev/null -F pam would add an alpha
    channel and 7 MB of writing per page; pgm would draw in grey.) -s t prints the page count
    and a per-page time at no measurable cost; mutool info cannot open HTML.
    """
    common = ["mutool", "draw", "-W", fmt(args.page_width), "-H", fmt(args.page_height),
              "-S", fmt(args.font_size), "-U", css, "-r", str(args.dpi), "-s", "t"]
    raster = common + [copy]
    parallel = common + ["-P", copy]
    png = common + ["-o", os.path.join(png_dir, "page-%d.png"), copy]
    return raster, parallel, png


def mupdf_pages(stdout, stderr):
    text = stdout + "\n" + stderr
    m = re.search(r"/\s*(\d+)\s+pages", text)
    if m:
        return int(m.group(1))
    return len(re.findall(r"^page \S.* \d+", text, re.M))


def mupdf(args, work, article):
    if shutil.which("mutool") is None:
        return [Measurement("render, no PNG", "mutool draw", "", status="skipped (not installed)"),
                Measurement("render + PNG", "mutool draw -o page-%d.png", "", status="skipped (not installed)")]
    folder, copy, css, fonts_note = mupdf_folder(args, work, article)
    png_dir = os.path.join(folder, "png")
    raster, parallel, png = mupdf_commands(args, folder, copy, css, png_dir)
    results = []
    for group, tool, what, command, writes in (
            ("render, no PNG", "mutool draw (no -o)", "HTML layout + rasterize, pixels discarded", raster, False),
            ("render, no PNG", "mutool draw -P (no -o)", "same, MuPDF's parallel mode (interprets the next page "
             "while drawing one)", parallel, False),
            ("render + PNG", "mutool draw -o page-%d.png", "HTML layout + rasterize + PNG files", png, True)):
        def attempt():
            if writes:
                shutil.rmtree(png_dir, ignore_errors=True)
                os.makedirs(png_dir)
            seconds, rss, stdout, stderr, status = run_measured(command, folder, cwd=folder)
            pages = mupdf_pages(stdout, stderr)
            if status != 0 or pages == 0:
                raise Failed("`%s` exited %d: %s" % (" ".join(command), status, tail(stderr)))
            return seconds, pages, rss
        try:
            seconds, pages, rss = best_of(args.repeat, attempt)
            note = fonts_note
            if writes:
                settings = png_settings(os.path.join(png_dir, "page-1.png"))
                note += "; PNG: " + (settings or "unreadable")
            results.append(Measurement(group, tool, what, seconds, pages, rss, note=note))
        except Failed as e:
            results.append(Measurement(group, tool, what, status="failed", note=str(e)))
    return results


# --------------------------------------------------------------------------------------------
# Pango.

class PangoMarkup(html.parser.HTMLParser):
    """Converts HTML to Pango markup, one paragraph per block; inline styles become spans."""

    SKIP = {"head", "script", "style", "title", "template", "noscript"}
    BLOCKS = {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "pre", "ul", "ol", "dl",
              "dt", "dd", "table", "tr", "td", "th", "section", "article", "header", "footer", "figure",
              "figcaption", "body", "html", "address", "nav", "main", "aside"}
    HEADING_PT = {"h1": 2.0, "h2": 1.45, "h3": 1.15, "h4": 1.0, "h5": 1.0, "h6": 1.0}

    def __init__(self, font_size):
        super().__init__(convert_charrefs=True)
        self.font_size = font_size
        self.blocks = []          # (markup, plain text) per paragraph
        self.markup, self.plain = [], []
        self.prefix = ""          # a list item's indent and bullet
        self.styles = []          # open inline and block styles: tag names
        self.skip = 0
        self.lists = []           # counters of open lists (None for ul)

    def flush(self):
        markup = "".join(self.markup)
        plain = "".join(self.plain)
        if "pre" not in self.styles:
            markup, plain = markup.strip(" "), plain.strip(" ")
        if plain.strip():
            self.blocks.append((self.prefix + markup, self.prefix + plain))
        self.markup, self.plain, self.prefix = [], [], ""

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skip += 1
            return
        if self.skip:
            return
        if tag == "br":
            self.markup.append("\u2028")  # a line break inside the paragraph
            self.plain.append("\n")
            return
        if tag == "hr":
            self.flush()
            return
        if tag == "img":
            alt = dict(attrs).get("alt") or ""
            if alt:
                self.handle_data("[%s]" % alt)
            return
        if tag in self.BLOCKS:
            self.flush()
            if tag in ("ul", "ol"):
                start = dict(attrs).get("start")
                self.lists.append((int(start) if start and start.isdigit() else 1) if tag == "ol" else None)
            if tag in ("h1", "h2", "h3") and self.blocks:
                self.blocks.append(("", " "))  # the space above a heading
            if tag == "li":
                depth = max(1, len(self.lists))
                counter = self.lists[-1] if self.lists else None
                bullet = "\u2022" if counter is None else "%d." % counter
                if counter is not None:
                    self.lists[-1] += 1
                self.prefix = "    " * depth + bullet + " "
        self.styles.append(tag)

    def handle_endtag(self, tag):
        if tag in self.SKIP:
            self.skip = max(0, self.skip - 1)
            return
        if self.skip or tag not in self.styles:
            return
        if tag in self.BLOCKS:
            self.flush()
            if tag in ("ul", "ol") and self.lists:
                self.lists.pop()
        index = len(self.styles) - 1 - self.styles[::-1].index(tag)
        del self.styles[index]

    def handle_data(self, data):
        if self.skip:
            return
        if "pre" in self.styles:
            lines = data.split("\n")
            if not self.plain and lines and lines[0] == "":
                lines = lines[1:]
            data = "\u2028".join(lines)  # keep the lines inside one paragraph
            plain = "\n".join(lines)
        else:
            data = re.sub(r"[ \t\r\n\f]+", " ", data)
            if not self.plain:
                data = data.lstrip(" ")
            plain = data
        if not data:
            return
        self.plain.append(plain)
        escaped = data.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        self.markup.append(self.span(escaped))

    def span(self, text):
        styles = set(self.styles)
        attributes = []
        heading = next((t for t in reversed(self.styles) if t in self.HEADING_PT), None)
        if styles & {"b", "strong", "th"} or heading:
            attributes.append('weight="bold"')
        if styles & {"i", "em", "cite", "var", "dfn", "blockquote"}:
            attributes.append('style="italic"')
        if styles & {"u", "ins"}:
            attributes.append('underline="single"')
        if styles & {"s", "strike", "del"}:
            attributes.append('strikethrough="true"')
        if styles & {"code", "tt", "kbd", "samp", "pre"}:
            attributes.append('font_family="DejaVu Sans Mono"')
        size = self.font_size * (self.HEADING_PT[heading] if heading else 1.0)
        if styles & {"small"}:
            size *= 0.85
        if styles & {"code", "tt", "kbd", "samp", "pre"}:
            size *= 0.86
        if abs(size - self.font_size) > 0.01:
            attributes.append('size="%d"' % round(size * 1024))
        text = '<span %s>%s</span>' % (" ".join(attributes), text) if attributes else text
        if "sub" in styles:
            text = "<sub>%s</sub>" % text
        if "sup" in styles:
            text = "<sup>%s</sup>" % text
        return text


def html_to_pango_blocks(path, font_size):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".txt"):
        text = data.decode("utf-8", "replace").replace("\r\n", "\n")
        return [(html.escape(p, quote=False), p) for p in re.split(r"\n\s*\n", text) if p.strip()]
    parser = PangoMarkup(font_size)
    parser.feed(data.decode("utf-8", "replace"))
    parser.close()
    parser.flush()
    return parser.blocks


def estimated_lines(plain, width_pt, font_size):
    """A generous guess at the lines a block takes, to keep chunks under cairo's size limit."""
    lines = 0
    for line in plain.split("\n"):
        width = sum(font_size if ord(c) >= 0x2E80 else 0.62 * font_size for c in line)
        lines += max(1, math.ceil(width / width_pt))
    return lines


def chunk_blocks(blocks, max_lines, width_pt, font_size):
    chunks, current, lines = [], [], 0
    for markup, plain in blocks:
        n = estimated_lines(plain, width_pt, font_size)
        if current and lines + n > max_lines:
            chunks.append(current)
            current, lines = [], 0
        current.append(markup)
        lines += n
    if current:
        chunks.append(current)
    return ["\n".join(c) + "\n" for c in chunks]


def image_height(path):
    """Height in pixels of a PNG or binary PGM file (0 if it is empty or unreadable)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return 0
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return struct.unpack(">I", head[20:24])[0]
    if head[:2] == b"P5":
        fields = re.sub(rb"#[^\n]*\n", b" ", head[2:]).split()
        return int(fields[1]) if len(fields) >= 2 else 0
    return 0


def pango_base(args, backend, width_pt, spacing=None):
    command = ["pango-view", "-q", "--backend=%s" % backend, "--font", "%s %s" % (FONT_FAMILY, fmt(args.font_size)),
               "--dpi", str(args.dpi), "--width", fmt(width_pt), "--margin", "0", "--wrap", "word-char"]
    if spacing:
        command += ["--line-spacing", "%.4f" % spacing]
    return command


def pango_line_spacing(args, work, backend, width_pt):
    """The --line-spacing factor that makes Pango's baseline-to-baseline distance font size × 1.2."""
    folder = os.path.join(work, "pango-calibrate-%s" % backend)
    os.makedirs(folder)
    suffix = ".png" if backend == "cairo" else ".pgm"
    heights = []
    for lines in (1, 41):
        text = os.path.join(folder, "lines-%d.txt" % lines)
        with open(text, "w") as f:
            f.write("\n".join(["Hxgy"] * lines) + "\n")
        image = os.path.join(folder, "lines-%d%s" % (lines, suffix))
        subprocess.run(pango_base(args, backend, width_pt) + ["-o", image, text], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        heights.append(image_height(image))
    natural = (heights[1] - heights[0]) / 40.0
    target = args.font_size * LINE_HEIGHT * args.dpi / 72.0
    return target / natural if natural > 0 else None


def pango(args, work, article):
    rows = (("render, no PNG", "ft2", "pango-view, ft2 -> PGM", ".pgm",
             "Pango + FreeType grey rasterizer, raw PGM"),
            ("render + PNG", "cairo", "pango-view, cairo -> PNG", ".png", "Pango + cairo, PNG files (libpng)"))
    if shutil.which("pango-view") is None:
        return [Measurement(g, t, "", status="skipped (not installed)") for g, _, t, _, _ in rows]
    width_pt = args.page_width - 2 * args.inset
    area_px = (args.page_height - 2 * args.inset) * args.dpi / 72.0
    line_px = args.font_size * LINE_HEIGHT * args.dpi / 72.0
    blocks = html_to_pango_blocks(article, args.font_size)
    max_lines = int(CAIRO_MAX_PX * 0.45 / line_px)  # ~10 pages at 150 dpi; estimates run high
    chunks = chunk_blocks(blocks, max_lines, width_pt, args.font_size)
    results = []
    for group, backend, tool, suffix, what in rows:
        folder = os.path.join(work, "pango-" + backend)
        os.makedirs(folder)
        try:
            spacing = pango_line_spacing(args, work, backend, width_pt)
        except (subprocess.CalledProcessError, OSError) as e:
            results.append(Measurement(group, tool, what, status="failed", note="calibration: %s" % e))
            continue
        inputs = []
        for i, chunk in enumerate(chunks):
            path = os.path.join(folder, "chunk-%02d.txt" % (i + 1))
            with open(path, "w", encoding="utf-8") as f:
                f.write(chunk)
            inputs.append((path, os.path.join(folder, "chunk-%02d%s" % (i + 1, suffix))))
        base = pango_base(args, backend, width_pt, spacing) + ["--markup"]

        def attempt():
            total, peak, height = 0.0, 0, 0
            for text, image in inputs:
                if os.path.exists(image):
                    os.remove(image)
                seconds, rss, _, stderr, status = run_measured(base + ["-o", image, text], folder)
                h = image_height(image)
                if status != 0 or h == 0:
                    raise Failed("pango-view on %s exited %d with %s: %s"
                                 % (os.path.basename(text), status,
                                    "an empty image (taller than cairo allows?)" if h == 0 else "an image",
                                    tail(stderr)))
                total += seconds
                peak = max(peak, rss)
                height += h
            return total, round(height / area_px, 1), peak

        try:
            seconds, pages, rss = best_of(args.repeat, attempt)
            note = "%d chunks; line spacing x%.3f" % (len(chunks), spacing or 1)
            if backend == "cairo":
                settings = png_settings(inputs[0][1])
                note += "; PNG: " + (settings or "unreadable")
            results.append(Measurement(group, tool, what, seconds, pages, rss, equivalents=True, note=note))
        except Failed as e:
            results.append(Measurement(group, tool, what, status="failed", note=str(e)))
    return results


# --------------------------------------------------------------------------------------------
# Report.

def ratio(galley, peer):
    if galley is None or galley.rate is None or peer.rate is None:
        return "n/a"
    return "%.2fx" % (galley.rate / peer.rate)


def table_rows(rows, reference, two_threads):
    """`reference`: Galley's row per group with --workers workers; `two_threads`: its extra
    two-worker row per group, when --workers is not 2, whose ratio is printed alongside."""
    out = []
    for m in rows:
        galley_row = m.tool.startswith("galley")
        if m.status != "ok":
            out.append((m.group, m.tool, m.what, m.status, "", "", "", "", m.note))
            continue
        pages = ("%.1f page-eq" % m.pages) if m.equivalents else "%d" % m.pages
        compared = "" if galley_row else ratio(reference.get(m.group), m)
        if not galley_row and m.group in two_threads:
            compared += " (2 threads: %s)" % ratio(two_threads[m.group], m)
        out.append((m.group, m.tool, m.what, pages, "%.3f" % m.seconds, "%.1f" % m.rate, compared,
                    "%.0f" % (m.rss_kib / 1024.0) if m.rss_kib else "?", m.note))
    return out


HEAD = ("group", "tool", "what", "pages", "best s", "pages/s", "Galley ÷ peer", "peak RSS MiB", "notes")


def print_text_table(rows):
    widths = [max(len(HEAD[i]), *(len(r[i]) for r in rows)) for i in range(len(HEAD) - 1)]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths)) + "  " + r[-1]
    print(line(HEAD))
    print("  ".join("-" * w for w in widths) + "  -----")
    for r in rows:
        print(line(r))


def print_markdown(rows, args, article_name):
    print("| %s |" % " | ".join(HEAD))
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        print("| %s |" % " | ".join(c.replace("|", "\\|") for c in r))
    print()
    print("%s, %s × %s pt pages, inset %s pt, %s %s pt / line height %s, %d dpi; best of %d runs; "
          "Galley ÷ peer compares Galley with %d worker%s in the same group (and, in brackets, with 2). page-eq: height of pango-view's "
          "one tall page ÷ the text area's height."
          % (article_name, fmt(args.page_width), fmt(args.page_height), fmt(args.inset), FONT_FAMILY,
             fmt(args.font_size), fmt(LINE_HEIGHT), args.dpi, args.repeat, args.workers,
             "" if args.workers == 1 else "s"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--galley", default=os.path.join(ROOT, ".build", "release", "galley"))
    parser.add_argument("--article", default=os.path.join(ROOT, "fixtures", "articles", "long-essay.html"))
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--page-width", type=float, default=595)
    parser.add_argument("--page-height", type=float, default=842)
    parser.add_argument("--inset", type=float, default=54)
    parser.add_argument("--font-size", type=float, default=11)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--png", choices=("fast", "balanced", "small"), default="fast",
                        help="Galley's PNG preset for the run rows (default fast: zlib level 1, Up filter)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print its path")
    args = parser.parse_args()
    if args.repeat < 1 or args.workers < 1 or args.dpi < 1:
        parser.error("--repeat, --workers and --dpi must be at least 1")
    if args.page_width <= 2 * args.inset or args.page_height <= 2 * args.inset:
        parser.error("the inset leaves no text area")
    article = os.path.abspath(args.article)
    if not os.path.isfile(article):
        sys.exit("benchmark-typesetter: no article at %s (run python3 scripts/make-articles.py)" % article)
    args.galley = os.path.abspath(args.galley)

    work = tempfile.mkdtemp(prefix="galley-typesetter-bench-")
    failed = False
    try:
        log("benchmarking on %s (%d cores, best of %d; working in %s)" % (
            os.path.relpath(article, ROOT), os.cpu_count() or 1, args.repeat, work))
        rows = []
        if not os.access(args.galley, os.X_OK):
            reason = "skipped (not built: %s; bash scripts/build-release.sh)" % args.galley
            rows.append(Measurement("render, no PNG", typeset_tool(args.workers), "", status=reason))
            rows.append(Measurement("render + PNG", "galley run --jobs %d" % args.workers, "", status=reason))
        else:
            for measure, group, tool in ((galley_typeset, "render, no PNG", typeset_tool),
                                         (galley_run, "render + PNG", lambda jobs: "galley run --jobs %d" % jobs)):
                for jobs in [args.workers] + ([2] if args.workers != 2 else []):
                    log("measuring %s ..." % tool(jobs))
                    try:
                        rows.append(measure(args, work, article, jobs))
                    except Failed as e:
                        failed = True
                        log("  failed: %s" % e)
                        rows.append(Measurement(group, tool(jobs), "", status="failed", note=str(e)))
        log("measuring mutool draw ...")
        rows += mupdf(args, work, article)
        log("measuring pango-view ...")
        rows += pango(args, work, article)

        reference, two_threads = {}, {}
        for m in rows:
            if m.tool in (typeset_tool(args.workers), "galley run --jobs %d" % args.workers):
                reference[m.group] = m
            elif args.workers != 2 and m.tool in (typeset_tool(2), "galley run --jobs 2") and m.status == "ok":
                two_threads[m.group] = m
        order = {"render, no PNG": 0, "render + PNG": 1}
        extras = ("galley run --jobs 2", typeset_tool(2))
        rows.sort(key=lambda m: (order[m.group], not m.tool.startswith("galley"),
                                 m.tool in extras and args.workers != 2))
        table = table_rows(rows, reference, two_threads)
        for m in rows:
            if m.status == "failed" and not m.tool.startswith("galley"):
                failed = True
        print()
        print_text_table(table)
        print()
        print_markdown(table, args, os.path.basename(article))
    finally:
        if args.keep:
            log("kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
