#!/usr/bin/env python3
"""Benchmarks galley against peer tools on the same PDFs and prints a Markdown table.

    python3 scripts/benchmark.py [--scale N] [--dpi D] [--box B]

Builds a corpus under .build-bench/ by merging the fixture PDFs (text pages, vector art, a
photo, rotated and cropped pages), about 100 pages per unit of --scale, then measures wall
time and peak RSS of:

  pages       galley (2 workers, 1 worker, each PNG preset), mutool draw -r, pdftoppm -r
  thumbnails  galley (page_images: false), mutool draw -w -h, pdftoppm -scale-to, vipsthumbnail
  memory      galley on the corpus and on a corpus 10x larger (peak RSS must not grow)

Peers run one process per file (pdftoppm, mutool) or per page (vipsthumbnail renders one
page per call), as a script would drive them. Requires a release build:
bash scripts/build-release.sh.
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench")
GALLEY = os.path.join(ROOT, ".build", "release", "galley")
FIX = os.path.join(ROOT, "fixtures", "pdf")


def sh(args, **kw):
    return subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


def make_corpus(folder, units):
    """units × (60 text pages + 40 pages of graphics, photos, rotated and cropped pages)."""
    os.makedirs(folder, exist_ok=True)
    text = [os.path.join(FIX, "article.pdf")] * 15                  # 60 pages
    graphics = ([os.path.join(FIX, n) for n in
                 ("vector-art.pdf", "photo.pdf", "rotated.pdf", "cropped.pdf", "landscape.pdf", "mixed.pdf")] * 4)
    # 6 files × (1+1+1+1+1+4) pages × 4 = 36 pages, plus 4 more photo pages
    graphics += [os.path.join(FIX, "photo.pdf")] * 4
    for u in range(units):
        sh(["mutool", "merge", "-o", os.path.join(folder, "text-%03d.pdf" % u)] + text)
        sh(["mutool", "merge", "-o", os.path.join(folder, "graphics-%03d.pdf" % u)] + graphics)
    return sorted(glob.glob(os.path.join(folder, "*.pdf")))


def page_count(pdf):
    out = subprocess.run(["mutool", "info", pdf], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("Pages:"):
            return int(line.split()[1])
    raise SystemExit("cannot count pages of " + pdf)


def timed(commands, outdir):
    """Runs commands one after another; returns (seconds, peak RSS in MiB, bytes of PNGs)."""
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    peak = 0
    start = time.perf_counter()
    for command in commands:
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode not in (0,):
            raise SystemExit("failed: %s\n%s" % (" ".join(command), r.stderr[-2000:]))
        peak = max(peak, int(r.stderr.strip().splitlines()[-1]))
    seconds = time.perf_counter() - start
    size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(outdir, "**", "*.png"), recursive=True))
    return seconds, peak / 1024, size


def galley(corpus, outdir, dpi, jobs, png="balanced", page_images=True, boxes=()):
    config = os.path.join(WORK, "bench-%s.yml" % os.path.basename(outdir))
    with open(config, "w") as f:
        f.write("inputs: [%s]\noutput: %s\ndpi: %s\npng: %s\npage_images: %s\nthumbnails: [%s]\n"
                "workers: %d\n" % (corpus, outdir, dpi, png, "true" if page_images else "false",
                                   ", ".join(map(str, boxes)), jobs))
    # --force: the corpus repeats files (the memory corpus is ten links to each), and without
    # it Galley would copy the outputs of identical content instead of drawing them, and skip
    # documents an earlier run into the same folder made.
    return [[GALLEY, "run", "--config", config, "--force"]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1, help="corpus size in units of ~100 pages")
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--box", type=int, default=256)
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    if not os.access(GALLEY, os.X_OK):
        sys.exit("benchmark: build first: bash scripts/build-release.sh")
    for tool in ("mutool", "pdftoppm", "vipsthumbnail"):
        if shutil.which(tool) is None:
            sys.exit("benchmark: %s is missing; run scripts/install-deps.sh" % tool)

    corpus = os.path.join(WORK, "corpus")
    shutil.rmtree(corpus, ignore_errors=True)
    files = make_corpus(corpus, args.scale)
    counts = {f: page_count(f) for f in files}
    pages = sum(counts.values())
    out = lambda name: os.path.join(WORK, "out-" + name)
    dpi, box = args.dpi, args.box
    print("Corpus: %d files, %d pages (text, vector art, photos, rotated and cropped pages); "
          "%d dpi; thumbnails %d px; %d cores\n" % (len(files), pages, dpi, box, os.cpu_count()))

    rows = []

    def measure(label, commands, outdir, group):
        seconds, rss, size = timed(commands, outdir)
        rows.append((group, label, seconds, pages / seconds, rss, size))
        print("  measured %-44s %6.2f s  %7.1f pages/s  %6.0f MiB  %6.1f MB" % (label, seconds, pages / seconds, rss, size / 1e6),
              file=sys.stderr)
        return seconds, size

    g2, g2_bytes = measure("galley, 2 workers", galley(corpus, out("g2"), dpi, 2), out("g2"), "pages")
    g1, _ = measure("galley, 1 worker per stage", galley(corpus, out("g1"), dpi, 1), out("g1"), "pages")
    # workers: 1 still overlaps stages (render, encode) on both cores; pinning to one core
    # gives the single-core baseline that shows how the pipeline scales with cores.
    c1, _ = measure("galley, 2 workers, one core (taskset -c 0)",
                    [["taskset", "-c", "0"] + c for c in galley(corpus, out("c1"), dpi, 2)], out("c1"), "pages")
    presets = {}
    for preset in ("fast", "small"):
        presets[preset] = measure("galley, 2 workers, png: %s" % preset,
                                  galley(corpus, out("g-" + preset), dpi, 2, png=preset), out("g-" + preset), "pages")
    presets["balanced"] = (g2, g2_bytes)
    m, m_bytes = measure("mutool draw -r %d" % dpi,
                         [["mutool", "draw", "-q", "-r", str(dpi), "-o",
                           os.path.join(out("mutool"), os.path.basename(f) + "-%d.png"), f] for f in files],
                         out("mutool"), "pages")
    p, _ = measure("pdftoppm -r %d -png" % dpi,
                   [["pdftoppm", "-r", str(dpi), "-png", f, os.path.join(out("pdftoppm"), os.path.basename(f))] for f in files],
                   out("pdftoppm"), "pages")

    gt, _ = measure("galley thumbnails, 2 workers", galley(corpus, out("gt"), dpi, 2, page_images=False, boxes=(box,)),
                    out("gt"), "thumbnails")
    mt, _ = measure("mutool draw -w %d -h %d" % (box, box),
                    [["mutool", "draw", "-q", "-w", str(box), "-h", str(box), "-o",
                      os.path.join(out("mutool-t"), os.path.basename(f) + "-%d.png"), f] for f in files],
                    out("mutool-t"), "thumbnails")
    pt, _ = measure("pdftoppm -scale-to %d -png" % box,
                    [["pdftoppm", "-scale-to", str(box), "-png", f, os.path.join(out("pdftoppm-t"), os.path.basename(f))]
                     for f in files], out("pdftoppm-t"), "thumbnails")
    vt, _ = measure("vipsthumbnail -s %d (one call per page)" % box,
                    [["vipsthumbnail", "%s[page=%d]" % (f, i), "-s", str(box), "-o",
                      os.path.join(out("vips"), "%s-%d.png" % (os.path.basename(f), i))]
                     for f in files for i in range(counts[f])], out("vips"), "thumbnails")

    print("| what | tool | time (s) | pages/s | peak RSS (MiB) | PNG MB |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for group, label, seconds, rate, rss, size in rows:
        print("| %s | %s | %.2f | %.1f | %.0f | %.1f |" % (group, label, seconds, rate, rss, size / 1e6))
    print()
    print("Ratios (higher is better for galley):")
    print("- page images: galley %.2fx mutool draw, %.2fx pdftoppm" % (m / g2, p / g2))
    print("- PNG bytes: galley %.2fx mutool's" % (g2_bytes / m_bytes))
    for preset, (seconds, size) in sorted(presets.items()):
        print("  - png %-8s %.2fx mutool's speed, %.2fx its bytes" % (preset + ":", m / seconds, size / m_bytes))
    print("- thumbnails: galley %.2fx mutool draw -w -h, %.2fx pdftoppm -scale-to, %.2fx vipsthumbnail"
          % (mt / gt, pt / gt, vt / gt))
    print("- two cores vs one (taskset): %.2fx; 2 workers per stage vs 1: %.2fx" % (c1 / g2, g1 / g2))

    if not args.skip_memory:
        big = os.path.join(WORK, "corpus-big")
        shutil.rmtree(big, ignore_errors=True)
        os.makedirs(big)
        for i in range(10):
            for f in files:
                os.link(f, os.path.join(big, "%d-%s" % (i, os.path.basename(f))))
        _, small_rss, _ = timed(galley(corpus, out("mem-small"), dpi, 2), out("mem-small"))
        _, big_rss, _ = timed(galley(big, out("mem-big"), dpi, 2), out("mem-big"))
        print("- peak RSS: %d pages %.0f MiB, %d pages %.0f MiB (ratio %.2f)"
              % (pages, small_rss, pages * 10, big_rss, big_rss / small_rss))


if __name__ == "__main__":
    main()
