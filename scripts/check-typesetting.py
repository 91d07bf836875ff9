#!/usr/bin/env python3
"""Typesets real documentation pages Galley has never seen, in several languages and layouts,
and counts what a magazine or documentation team would check on the pages.

    python3 scripts/check-typesetting.py [--galley PATH] [--pages N] [--show KIND] [--keep]

The pages come from Debian's documentation packages (German, French, Japanese and Chinese
debian-reference and maint-guide, the Python 3.11 library reference), downloaded with
`apt-get download` and unpacked with `dpkg-deb -x` into .build-bench/real/ (never committed).
N pages of each package (default 3, spread over its sorted list) are typeset by
`galley typeset --json --lines` in three layouts: A4 two columns and A4 landscape three
columns (both `justify_threshold: 0.8`, hyphenation, optimal breaking), and A5 vertical
(two bands, `justify_threshold: 0.8`, hyphenation). No layout gives a language: pages without `lang` rely on the language their
script or letters read as.

Per page and layout, and in total, it prints:

  lines, pages          as set
  hyphenated, loose     lines ending in an automatic or soft hyphen; lines meant to be flush
                        but left ragged because their spaces would pass their limit
  heading_foot          a heading that is the last line of its column with more text after it
  widows, orphans       a paragraph's last line alone at a column's head; its first line alone
                        at a column's foot (counted; the layouts ask for 2 of each)
  pre_spread            preformatted lines justified or hyphenated (must be 0)
  gaps                  lines that do not start where the line before ended (must be 0)
  cut_no_hyphen         a line ending between two letters of a Latin, Greek or Cyrillic word
                        with no hyphen shown (the last resort cuts with one; must be 0 outside code)
  rehyphenated          a hyphenated line whose word already holds a hyphen (`up-date-index`);
                        German compounds (a `de` page) are hyphenated so on purpose
  kana_start            a line starting with a small kana or the prolonged sound mark (class
                        CJ), which CSS `line-break: strict`, the default, keeps off line starts
  overlapping           a line whose baseline is closer to the line before than 0.75 of their
                        text size, the two meeting along the line: printed over it (should be 0)
  punct_face            punctuation set in another face than the letters of its own style run
                        on both sides (`<b>bold</b>,` with a bold comma), as galley counts it
  objects_unset         <object>/<embed> elements not set, from the documents' warnings

--show KIND prints each line counted as KIND (heading_foot, widows, orphans, loose). Exits 1
when pre_spread or gaps is not 0, or when galley fails.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench", "real")
PACKAGES = {
    # package: (folder under the unpacked tree, file name filter)
    "debian-reference-de": ("usr/share/debian-reference", ".de.html"),
    "debian-reference-fr": ("usr/share/debian-reference", ".fr.html"),
    "debian-reference-ja": ("usr/share/debian-reference", ".ja.html"),
    "debian-reference-zh-cn": ("usr/share/debian-reference", ".zh-cn.html"),
    "maint-guide-de": ("usr/share/doc/maint-guide-de/html", ".html"),
    "maint-guide-fr": ("usr/share/doc/maint-guide-fr/html", ".html"),
    "maint-guide-ja": ("usr/share/doc/maint-guide-ja/html", ".html"),
    "maint-guide-zh-cn": ("usr/share/doc/maint-guide-zh-cn/html", ".html"),
    "python3.11-doc": ("usr/share/doc/python3.11/html/library", ".html"),
}
LAYOUTS = """layouts:
  - name: a4-2col
    page: a4
    columns: 2
    justify_threshold: 0.8
    hyphenation: true
    line_breaking: optimal
  - name: a4l-3col
    page: a4
    orientation: landscape
    columns: 3
    justify_threshold: 0.8
    hyphenation: true
    line_breaking: optimal
  - name: a5-vertical
    page: a5
    vertical: true
    columns: 2
    justify_threshold: 0.8
    hyphenation: true
"""
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
KINDS = ["lines", "pages", "hyphenated", "loose", "heading_foot", "widows", "orphans", "pre_spread", "gaps",
         "cut_no_hyphen", "rehyphenated", "kana_start", "overlapping", "punct_face", "objects_unset"]
# Line breaking class CJ (Unicode's LineBreak.txt): small kana and the prolonged sound mark.
SMALL_KANA = set("ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶーㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿｧｨｩｪｫｬｭｮｯｰ")


def is_word_letter(character):
    """A letter of an alphabet that hyphenates (Latin, Greek, Cyrillic), not an ideograph or kana."""
    return character.isalpha() and ord(character) < 0x0530


def fetch():
    debs = os.path.join(WORK, "debs")
    unpacked = os.path.join(WORK, "unpacked")
    os.makedirs(debs, exist_ok=True)
    for package in PACKAGES:
        if not any(name.startswith(package + "_") for name in os.listdir(debs)):
            if subprocess.run(["apt-get", "download", package], cwd=debs, capture_output=True).returncode != 0:
                sys.exit(f"check-typesetting: cannot download {package}")
        deb = next(name for name in sorted(os.listdir(debs)) if name.startswith(package + "_"))
        # Several packages share a folder (debian-reference-*): each is unpacked once, marked.
        marker = os.path.join(unpacked, ".unpacked-" + deb)
        if not os.path.exists(marker):
            subprocess.run(["dpkg-deb", "-x", os.path.join(debs, deb), unpacked], check=True)
            open(marker, "w").close()
    return unpacked


def pick(unpacked, count):
    chosen = []
    for package, (folder, suffix) in PACKAGES.items():
        path = os.path.join(unpacked, folder)
        names = sorted(n for n in os.listdir(path) if n.endswith(suffix) and not n.startswith("index"))
        step = max(1, len(names) // count)
        chosen += [os.path.join(path, n) for n in names[::step][:count]]
    return chosen


def ends_paragraph(line):
    return line["text"].endswith(("\n", "\u2029"))


def is_vertical(lines):
    """Whether a layout's lines run top to bottom: `width` is along the line, so it is most
    lines' box height in vertical text (a square box, a picture alone, says nothing)."""
    votes = [abs(l["width"] - l["rect"]["height"]) < abs(l["width"] - l["rect"]["width"]) for l in lines if "rect" in l]
    return sum(votes) * 2 > len(votes)


def overlaps(line, before, vertical):
    """Whether `line` prints over the line before it in its column: their boxes meet along
    the line (not two cells of a table row) and their baselines are closer than 0.75 of the
    larger text size (a 20 pt heading's lines 12 pt apart did)."""
    if before is None or "rect" not in line:
        return False
    a, b = line["rect"], before["rect"]
    if vertical:
        along = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    else:
        along = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    size = max(line["size"], before["size"])
    return along > 0 and size > 0 and abs(line["baseline"] - before["baseline"]) < 0.75 * size


def count(lines, show, label, german=False):
    counts = collections.Counter()
    vertical = is_vertical(lines)
    for i, line in enumerate(lines):
        here = (line["page"], line["column"])
        first = i == 0 or (lines[i - 1]["page"], lines[i - 1]["column"]) != here
        last = i + 1 == len(lines) or (lines[i + 1]["page"], lines[i + 1]["column"]) != here
        element = line["element"].split(".")[0]
        found = []
        if line["loose"]:
            found.append("loose")
        if line["hyphenated"]:
            found.append("hyphenated")
        if element == "pre" and (line["justified"] or line["hyphenated"]):
            found.append("pre_spread")
        if element in HEADINGS and last and i + 1 < len(lines):
            found.append("heading_foot")
        # A paragraph's last line opening a column, the paragraph begun in the column before.
        if first and i > 0 and ends_paragraph(line) and not ends_paragraph(lines[i - 1]):
            found.append("widows")
        # A paragraph's first line closing a column, the paragraph going on in the next.
        if last and i + 1 < len(lines) and not ends_paragraph(line) and (first or ends_paragraph(lines[i - 1])):
            found.append("orphans")
        if i > 0 and line["text_range"][0] != lines[i - 1]["text_range"][1]:
            found.append("gaps")
        text = line["text"]
        following = lines[i + 1]["text"] if i + 1 < len(lines) else ""
        if (element != "pre" and not line["hyphenated"] and not ends_paragraph(line) and text and following
                and is_word_letter(text[-1]) and is_word_letter(following[0])):
            found.append("cut_no_hyphen")
        if line["hyphenated"] and not german and "-" in (text.split() or [""])[-1].rstrip("\u00ad"):
            found.append("rehyphenated")
        if not first and text[:1] in SMALL_KANA:
            found.append("kana_start")
        if overlaps(line, lines[i - 1] if not first else None, vertical):
            found.append("overlapping")
        # Punctuation in another face than its style run's letters on both sides (a bold comma
        # after bold text), as galley counts it per line.
        found += ["punct_face"] * line.get("punctuation_in_another_face", 0)
        for kind in found:
            counts[kind] += 1
            if kind == show:
                before = repr(lines[i - 1]["text"][-40:]) if i > 0 else ""
                after = repr(lines[i + 1]["text"][:40]) if i + 1 < len(lines) else ""
                print(f"  {kind} {label} p{line['page']} c{line['column']}: {before} | {line['text']!r} | {after}")
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--galley", default=os.path.join(ROOT, ".build", "release", "galley"))
    parser.add_argument("--pages", type=int, default=3, help="pages of each package (default 3)")
    parser.add_argument("--show", choices=KINDS[2:], help="print each line counted as this")
    parser.add_argument("--keep", action="store_true", help="keep the JSON galley printed (path printed)")
    args = parser.parse_args()
    if not os.access(args.galley, os.X_OK):
        sys.exit(f"check-typesetting: no galley at {args.galley} (bash scripts/build-release.sh)")
    files = pick(fetch(), args.pages)
    with tempfile.TemporaryDirectory() as scratch:
        config = os.path.join(scratch, "layouts.yml")
        with open(config, "w") as f:
            f.write(LAYOUTS)
        result = subprocess.run([args.galley, "typeset", "--json", "--lines", "--config", config] + files,
                                capture_output=True, text=True)
        if result.returncode != 0:
            print(result.stderr[-2000:])
            sys.exit(f"check-typesetting: galley typeset exited {result.returncode}")
        if args.keep:
            kept = os.path.join(WORK, "check-typesetting.json")
            with open(kept, "w") as f:
                f.write(result.stdout)
            print(f"kept {kept}")
        report = json.loads(result.stdout)
    totals = collections.defaultdict(collections.Counter)
    print(f"{'page':46} {'layout':12} " + " ".join(f"{k:>8}" for k in KINDS))
    for document in report["documents"]:
        name = "/".join(document["source"].split("/")[-2:])
        for layout in document["layouts"]:
            german = ".de." in document["source"] or "-de/" in document["source"]
            counts = count(layout["line_details"], args.show, f"{name} {layout['name']}", german=german)
            counts["lines"], counts["pages"] = layout["lines"], layout["pages"]
            counts["objects_unset"] = sum(1 for warning in document.get("warnings", []) if "<object> or <embed>" in warning)
            totals[layout["name"]].update(counts)
            print(f"{name[-46:]:46} {layout['name']:12} " + " ".join(f"{counts[k]:>8}" for k in KINDS))
    print()
    for name, counts in totals.items():
        print(f"{'total':46} {name:12} " + " ".join(f"{counts[k]:>8}" for k in KINDS))
    broken = sum(c["pre_spread"] + c["gaps"] for c in totals.values())
    if broken:
        sys.exit(f"check-typesetting: {broken} preformatted lines spread or gaps between lines")


if __name__ == "__main__":
    main()
