#!/usr/bin/env python3
"""Measures incremental runs: a full run against a rerun with nothing changed, and what a
rerun draws after one document changes. Prints a Markdown table.

    python3 scripts/benchmark-incremental.py [--units N]

Corpora (under .build-bench/incremental/):
  fixtures   the repository's pipeline.yml over fixtures/ (PDFs and articles in two layouts)
  generated  scripts/make-stress-corpus.py (309 awkward pages) plus N × 100 pages merged from
             the fixture PDFs (default N = 7: about 1,000 pages), 150 dpi, thumbnails 128 and 256

For each: the full run (empty output folder), then the best of three reruns with nothing
changed (target: at most 5% of the full run), then one document edited (its content changes)
and a rerun, checking that only its pages were drawn and no other PNG was written again.
Requires a release build: bash scripts/build-release.sh.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench", "incremental")
GALLEY = os.path.join(ROOT, ".build", "release", "galley")


def galley(args, cwd):
    start = time.perf_counter()
    r = subprocess.run([GALLEY] + args, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if r.returncode not in (0, 1):
        raise SystemExit("galley %s failed (%d):\n%s" % (" ".join(args), r.returncode, r.stderr[-3000:]))
    drawn = re.search(r"galley: (\d+) images? drawn, (\d+) reused", r.stdout)
    pages = re.search(r"; (\d+) pages? in", r.stdout)
    return seconds, int(drawn.group(1)), int(drawn.group(2)), int(pages.group(1)), r.stdout


def inodes(folder):
    result = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d != ".galley"]
        for name in filenames:
            if name.endswith(".png"):
                path = os.path.join(dirpath, name)
                result[os.path.relpath(path, folder)] = os.stat(path).st_ino
    return result


def measure(name, config, cwd, output, edit):
    shutil.rmtree(output, ignore_errors=True)
    full, drawn_full, _, pages, _ = galley(["run", "--config", config, "--output", output], cwd)
    reruns = [galley(["run", "--config", config, "--output", output], cwd) for _ in range(3)]
    rerun = min(r[0] for r in reruns)
    assert all(r[1] == 0 for r in reruns), "a rerun with nothing changed drew something"
    before = inodes(output)
    document, document_outputs = edit()
    after_seconds, drawn, kept, _, out = galley(["run", "--config", config, "--output", output], cwd)
    after = inodes(output)
    rewritten = sorted(p for p in after if before.get(p) != after[p])
    others = [p for p in rewritten if not p.startswith(document + "/")]
    return dict(name=name, pages=pages, outputs=drawn_full, full=full, rerun=rerun, ratio=rerun / full,
                document=document, expected=document_outputs, drawn=drawn, rewritten=len(rewritten),
                others=len(others), after=after_seconds)


def append_comment(pdf, text="edited by benchmark-incremental.py"):
    with open(pdf, "ab") as f:
        f.write(("\n%% %s\n" % text).encode())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=7, help="100-page units added to the stress corpus")
    args = parser.parse_args()
    if not os.path.exists(GALLEY):
        raise SystemExit("build first: bash scripts/build-release.sh")
    os.makedirs(WORK, exist_ok=True)
    rows = []

    # Fixtures: the repository's own pipeline.yml. Edit a copy of the fixtures, not the repository's.
    fixtures = os.path.join(WORK, "fixtures")
    shutil.rmtree(fixtures, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "fixtures"), os.path.join(fixtures, "fixtures"))
    shutil.copy(os.path.join(ROOT, "pipeline.yml"), fixtures)

    def edit_fixture():
        append_comment(os.path.join(fixtures, "fixtures", "pdf", "article.pdf"))
        return "article", 4 * 3                       # 4 pages × (image + 2 thumbnails)
    rows.append(measure("fixtures", "pipeline.yml", fixtures, os.path.join(fixtures, "out"), edit_fixture))

    # About 1,000 generated pages.
    generated = os.path.join(WORK, "generated")
    corpus = os.path.join(generated, "corpus")
    ready = os.path.join(generated, "ready-3-units-%d" % args.units)  # made for this --units
    if not os.path.exists(ready):
        shutil.rmtree(generated, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-stress-corpus.py"), corpus], check=True,
                       stdout=subprocess.DEVNULL)
        import importlib.util
        spec = importlib.util.spec_from_file_location("benchmark", os.path.join(ROOT, "scripts", "benchmark.py"))
        benchmark = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(benchmark)
        # Units are merged from the same files; make each file's content its own, or the full
        # run would copy outputs between identical files instead of drawing them.
        for pdf in benchmark.make_corpus(os.path.join(corpus, "merged"), args.units):
            append_comment(pdf, os.path.basename(pdf))
        open(ready, "w").close()
    with open(os.path.join(generated, "pipeline.yml"), "w") as f:
        f.write("inputs: [corpus]\ndpi: 150\nthumbnails: [128, 256]\n")

    def edit_generated():
        append_comment(os.path.join(corpus, "merged", "graphics-000.pdf"))
        return "merged/graphics-000", 40 * 3          # 40 pages × 3 outputs
    rows.append(measure("generated", "pipeline.yml", generated, os.path.join(generated, "out"), edit_generated))

    print("| corpus | pages | outputs | full run s | rerun, nothing changed s | rerun ÷ full | target |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        print("| %s | %d | %d | %.2f | %.3f | %.1f%% | %s |" % (
            r["name"], r["pages"], r["outputs"], r["full"], r["rerun"], 100 * r["ratio"],
            "met (≤ 5%)" if r["ratio"] <= 0.05 else "MISSED (> 5%)"))
    print()
    print("| corpus | edited document | outputs drawn | expected | PNGs rewritten | other documents' PNGs rewritten | rerun s |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    ok = True
    for r in rows:
        print("| %s | %s | %d | %d | %d | %d | %.2f |" % (r["name"], r["document"], r["drawn"], r["expected"],
                                                         r["rewritten"], r["others"], r["after"]))
        ok = ok and r["drawn"] == r["expected"] == r["rewritten"] and r["others"] == 0 and r["ratio"] <= 0.05
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
