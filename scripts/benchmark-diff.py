#!/usr/bin/env python3
"""Measures galley diff and prints Markdown tables.

    python3 scripts/benchmark-diff.py [--units N] [--runs R] [--galley PATH]

Corpora (under .build-bench/diff/), all at 150 dpi with thumbnails 128 and 256:
  unchanged  scripts/make-stress-corpus.py (309 awkward pages) plus N × 100 pages merged from the
             fixture PDFs (default N = 7: about 1,000 pages); run once, the output folder copied,
             and the two folders diffed: only the manifests should be read (pages_compared 0)
  changed    100 pages, twice: the first 100 pages of the stress corpus's long-300-pages.pdf
             (45 lines of text a page), and one 100-page unit of text, vector art and photos
             merged from the fixtures; the new version of each has a stamp laid over every page
             (qpdf --overlay), so all 100 pages change. Drawing them (galley run into an empty
             folder) is timed against diffing the two runs, in alternating rounds (draw, diff,
             draw, diff, ...), so a change in the machine's load falls on both.

Each figure is the median of R runs (default 3), on this machine as it is (2 cores, shared):
the wall time, and the CPU time (user + system) the process used, which other work on the
machine disturbs less. Requires a release build: swift build -c release --product galley
(or --galley PATH, another build of galley, to compare two builds on the same corpora).
"""
import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench", "diff")
GALLEY = os.path.join(ROOT, ".build", "release", "galley")  # --galley replaces it
CONFIG = "dpi: 150\nthumbnails: [128, 256]\n"


def sh(args, **kw):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


def timed(args, ok=(0,)):
    """Runs `args`; its wall seconds and the CPU seconds (user + system) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    r = subprocess.run(args, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in ok:
        raise SystemExit("failed (%d): %s\n%s" % (r.returncode, " ".join(args), r.stderr[-3000:]))
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run(corpus, output):
    """A full run of `corpus` into an empty `output`; its wall and CPU seconds."""
    shutil.rmtree(output, ignore_errors=True)
    config = output + ".yml"
    with open(config, "w") as f:
        f.write("inputs: [%s]\noutput: %s\n%s" % (corpus, output, CONFIG))
    # Status 1: the stress corpus has files that must fail.
    return timed([GALLEY, "run", "--config", config, "--progress", "none"], ok=(0, 1))


def diff(base, new, output, expect):
    seconds = timed([GALLEY, "diff", base, new, "--output", output], ok=(expect,))
    with open(os.path.join(output, "diff.json")) as f:
        return seconds, json.load(f)


def medians(pairs):
    """The median wall and the median CPU seconds of (wall, CPU) pairs."""
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


def load_benchmark():
    spec = importlib.util.spec_from_file_location("benchmark", os.path.join(ROOT, "scripts", "benchmark.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stamp(source, target, work):
    """`source` with a small mark (a red box with a white bar) laid over every page."""
    mark = os.path.join(work, "stamp.pdf")
    if not os.path.exists(mark):
        content = os.path.join(work, "stamp.txt")
        with open(content, "w") as f:
            f.write("0.8 0.1 0.1 rg 400 40 150 24 re f\n1 1 1 rg 410 47 60 10 re f\n")
        sh(["mutool", "create", "-o", mark, content])
    sh(["qpdf", source, "--overlay", mark, "--repeat=1", "--", target])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=7, help="100-page units added to the stress corpus")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (the median is printed)")
    parser.add_argument("--galley", help="the galley executable to measure (default: the release build)")
    args = parser.parse_args()
    global GALLEY
    GALLEY = os.path.abspath(args.galley) if args.galley else GALLEY
    if not os.path.exists(GALLEY):
        raise SystemExit("build first: swift build -c release --product galley")
    os.makedirs(WORK, exist_ok=True)
    benchmark = load_benchmark()

    # Unchanged: about 1,000 pages run once, the folder copied.
    corpus = os.path.join(WORK, "corpus")
    ready = os.path.join(WORK, "ready-units-%d" % args.units)
    if not os.path.exists(ready):
        shutil.rmtree(corpus, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-stress-corpus.py"), corpus], check=True,
                       stdout=subprocess.DEVNULL)
        for i, pdf in enumerate(benchmark.make_corpus(os.path.join(corpus, "merged"), args.units)):
            with open(pdf, "ab") as f:  # each file its own content, so every page is drawn
                f.write(("\n%% unit %d\n" % i).encode())
        open(ready, "w").close()
    base = os.path.join(WORK, "unchanged-a")
    copy = os.path.join(WORK, "unchanged-b")
    run_seconds, _ = run(corpus, base)
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(base, copy, symlinks=True)
    unchanged = []
    for _ in range(args.runs):
        seconds, report = diff(base, copy, os.path.join(WORK, "unchanged-diff"), expect=0)
        unchanged.append(seconds[0])
    pages = report["totals"]["pages"]["unchanged"]
    assert report["totals"]["pages_compared"] == 0, "pages were read"

    # Changed: 100 pages, stamped.
    rows = []
    long_pdf = os.path.join(corpus, "long-300-pages.pdf")
    unit = os.path.join(WORK, "unit")
    if not os.path.exists(os.path.join(unit, "text-000.pdf")):
        benchmark.make_corpus(unit, 1)
    cases = [("text (stress corpus, long-300-pages.pdf pages 1-100)", [(long_pdf, "1-100")]),
             ("text, vector art, photos (one 100-page unit from the fixtures)",
              [(os.path.join(unit, "text-000.pdf"), "1-z"), (os.path.join(unit, "graphics-000.pdf"), "1-z")])]
    for index, (name, sources) in enumerate(cases):
        before, after = os.path.join(WORK, "case%d-before" % index), os.path.join(WORK, "case%d-after" % index)
        for folder in (before, after):
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
        for n, (pdf, pages_range) in enumerate(sources):
            plain = os.path.join(before, "doc-%d.pdf" % n)
            sh(["qpdf", "--empty", "--pages", pdf, pages_range, "--", plain])
            stamp(plain, os.path.join(after, "doc-%d.pdf" % n), WORK)
        out_before, out_after = before + "-out", after + "-out"
        run(before, out_before)
        drawings, diffs = [], []
        for _ in range(args.runs):
            drawings.append(run(after, out_after))
            seconds, report = diff(out_before, out_after, os.path.join(WORK, "case%d-diff" % index), expect=1)
            diffs.append(seconds)
        changed = report["totals"]["pages"]["changed"]
        rows.append((name, changed, report["totals"]["pages_compared"], medians(drawings), medians(diffs)))

    print("Unchanged runs (%d runs per figure, median)" % args.runs)
    print()
    print("| pages | full run s | diff of two unchanged runs s | pages read |")
    print("| ---: | ---: | ---: | ---: |")
    print("| %d | %.2f | %.3f | 0 |" % (pages, run_seconds, statistics.median(unchanged)))
    print()
    print("100 changed pages at 150 dpi, thumbnails 128 and 256 (%d runs per figure, median)" % args.runs)
    print()
    print("| corpus | pages changed | pages compared | drawing the new run s (CPU s) | galley diff s (CPU s) "
          "| diff ÷ drawing (CPU) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    ok = True
    for name, changed, compared, drawing, diffing in rows:
        print("| %s | %d | %d | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) |" % (
            name, changed, compared, drawing[0], drawing[1], diffing[0], diffing[1],
            diffing[0] / drawing[0], diffing[1] / drawing[1]))
        ok = ok and changed == 100 and diffing[0] < drawing[0]
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
