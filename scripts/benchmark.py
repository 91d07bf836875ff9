#!/usr/bin/env python3
"""Benchmarks galley against peer tools on the same PDFs, on the same cores, and prints a
Markdown table.

    python3 scripts/benchmark.py [--scale N] [--dpi D] [--box B] [--corpus DIR] [--rounds R]

Builds a corpus under .build-bench/ by merging the fixture PDFs (text pages, vector art, a
photo, rotated and cropped pages), about 100 pages per unit of --scale, or takes every PDF
in --corpus DIR (for example .build-bench/real/corpus/pdf, which scripts/real-documents.sh
fills with Debian's manuals), then measures wall time, peak RSS and PNG bytes of:

  pages       galley (2 workers, 1 worker, one core, each PNG preset); mutool draw -r with each
              document's pages split into one range per core, run as that many processes at
              once; mutool draw -P (MuPDF's parallel mode) one process per core over the files;
              pdftoppm -r split like mutool
  thumbnails  galley (page_images: false), mutool draw -w -h and pdftoppm -scale-to split per
              core, vipsthumbnail one page per call, a process per core
  memory      galley on the corpus and on a corpus 10x larger (peak RSS must not grow)

With --per-document, instead: each PDF on its own, galley against mutool draw (its pages split
over the cores) in alternating rounds, for page images and for thumbnails (128 and 256 boxes,
mutool drawing each box), and for both in one galley run (against the sum of mutool's two), with
the ratio per document and in total, in wall seconds and in CPU seconds (user + system of every
process, the figure to compare on a loaded machine); --only thumbnails (or images, both)
measures just that; --scans adds a generated
scanned document (six letter pages of 300 dpi noisy scans, one holding a 9,000 x 9,000 colour
image), and the real corpus's CJK manuals are picked up from --corpus like any other PDF.

Every peer gets the cores galley uses (os.cpu_count()), so the ratios compare tools, not
core counts; galley's page-image ratio is also given against the fastest peer. With --rounds
R > 1, galley and the page-image peers run in alternating rounds and each figure is the
median. GALLEY_BINARY=PATH measures that galley instead of this tree's release build. Peak RSS is that of the largest single process. Requires a release build:
bash scripts/build-release.sh.
"""
import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench")
# GALLEY_BINARY: another build to measure (an older commit's, for before and after).
GALLEY = os.environ.get("GALLEY_BINARY") or os.path.join(ROOT, ".build", "release", "galley")
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


def timed(commands, outdir, parallel=1):
    """Runs commands, `parallel` at a time in the given order; returns (seconds, peak RSS of one
    process in MiB, bytes of PNGs, CPU seconds: user + system of every command, added up)."""
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    peak = 0
    cpu = 0.0
    running = []

    def reap(process, command):
        nonlocal cpu
        _, stderr = process.communicate()
        if process.returncode != 0:
            raise SystemExit("failed: %s\n%s" % (" ".join(command), stderr[-2000:]))
        user, system, rss = stderr.strip().splitlines()[-1].split()
        cpu += float(user) + float(system)
        return int(rss)

    start = time.perf_counter()
    for command in commands:
        if len(running) == parallel:
            peak = max(peak, reap(*running.pop(0)))
        running.append((subprocess.Popen(["/usr/bin/time", "-f", "%U %S %M"] + command, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, text=True), command))
    for process, command in running:
        peak = max(peak, reap(process, command))
    seconds = time.perf_counter() - start
    size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(outdir, "**", "*.png"), recursive=True))
    return seconds, peak / 1024, size, cpu


def split(count, parts):
    """1-based page ranges (first, last) covering 1...count in at most `parts` pieces."""
    parts = max(1, min(parts, count))
    bounds = [1 + count * i // parts for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1] - 1) for i in range(parts)]


def per_core(files, counts, cores, command):
    """`command(file, first, last)` for each range of each file's pages, one range per core, in
    an order that keeps all cores on one file at a time."""
    return [command(f, first, last) for f in files for first, last in split(counts[f], cores)]


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


def make_scans(path):
    """Six letter pages, each one scanned image: five 2,550 x 3,300 grey-paper pages with lines of
    dark "text" and sensor noise (rows drawn from a pool, so the file stays small and decoding
    still costs what a scan costs), and one 9,000 x 9,000 colour image (a 30-inch poster scanned
    at 300 dpi) drawn on its page."""
    import random
    import struct
    import zlib
    folder = os.path.dirname(path)
    rng = random.Random(39)

    def png(name, width, height, channels, row):
        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        deflate, parts = zlib.compressobj(6), []
        for y in range(height):
            parts.append(deflate.compress(b"\x00" + row(y)))
        parts.append(deflate.flush())
        with open(os.path.join(folder, name), "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, {1: 0, 3: 2}[channels], 0, 0, 0))
                    + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))

    def pool(width, channels, dark):
        rows = []
        for _ in range(48):
            noise = bytes(rng.randrange(232 - dark, 250 - dark) for _ in range(width * channels))
            rows.append(noise)
        return rows
    paper, ink = pool(2550, 1, 0), pool(2550, 1, 170)
    page_rows = lambda y: (ink if (y // 40) % 3 == 1 and 300 < y < 3000 else paper)[(y * 7919) % 48]
    specs = []
    for i in range(5):
        png("scan-%d.png" % i, 2550, 3300, 1, page_rows)
        specs.append(("scan-%d.png" % i, "q 612 0 0 792 0 0 cm /Im1 Do Q"))
    poster = [bytes(rng.randrange(0, 256) & 0xF0 | (x * 7 % 16) for x in range(9000 * 3)) for _ in range(24)]
    png("poster.png", 9000, 9000, 3, lambda y: poster[(y // 375) % 24])
    specs.insert(2, ("poster.png", "q 612 0 0 612 0 90 cm /Im1 Do Q"))
    pages = []
    for i, (image, body) in enumerate(specs):
        spec = os.path.join(folder, "page-%d.txt" % i)
        with open(spec, "w") as f:
            f.write("%%%%MediaBox 0 0 612 792\n%%%%Image Im1 %s\n%s\n" % (os.path.join(folder, image), body))
        pages.append(spec)
    sh(["mutool", "create", "-o", path] + pages)
    for name in os.listdir(folder):
        if name.endswith((".txt", ".png")):
            os.remove(os.path.join(folder, name))


def per_document(files, dpi, cores, rounds, kinds=("images", "thumbnails", "both")):
    """Each file alone: galley against mutool draw split per core, page images at `dpi` and
    thumbnails of 128 and 256, in alternating rounds (medians); one Markdown row per file, with
    wall seconds and CPU seconds (user + system of every process: the figure to compare on a
    loaded machine, where wall time follows the load)."""
    boxes = (128, 256)
    pairs = {"images": ("gi", "mi"), "thumbnails": ("gt", "mt"), "both": ("gb", "mb")}
    pairs = [(kind, pairs[kind]) for kind in kinds]
    totals = {}
    header = "| document | pages |"
    for kind, _ in pairs:
        header += " %s: galley (s) | mutool (s) | ratio | galley CPU (s) | mutool CPU (s) | CPU ratio |" % kind
    print(header)
    print("| --- | ---: |" + " ---: |" * 6 * len(pairs))

    def row(name, count, t):
        line = "| %s | %s |" % (name, count)
        for _, (g, m) in pairs:
            line += " %.2f | %.2f | %.2fx | %.2f | %.2f | %.2fx |" % (
                t[g][0], t[m][0], t[m][0] / t[g][0], t[g][1], t[m][1], t[m][1] / t[g][1])
        print(line, flush=True)

    for f in files:
        count = page_count(f)
        alone = os.path.join(WORK, "alone", os.path.basename(f))
        shutil.rmtree(alone, ignore_errors=True)
        os.makedirs(alone)
        # A copy, not a link: galley reads only files inside its inputs.
        shutil.copyfile(f, os.path.join(alone, os.path.basename(f)))
        out = lambda n: os.path.join(WORK, "out-alone-" + n)
        mutool = lambda extra, outdir: per_core([f], {f: count}, cores, lambda g, a, b: [
            "mutool", "draw", "-q"] + extra(outdir) + [g, "%d-%d" % (a, b)])
        runs = {
            "gi": lambda: (galley(alone, out("gi"), dpi, cores), out("gi"), 1),
            "mi": lambda: (mutool(lambda o: ["-r", str(dpi), "-o", os.path.join(o, "p-%d.png")], out("mi")), out("mi"), cores),
            "gt": lambda: (galley(alone, out("gt"), dpi, cores, page_images=False, boxes=boxes), out("gt"), 1),
            # A default run: page images and thumbnails in one run (mutool: both of its runs).
            "gb": lambda: (galley(alone, out("gb"), dpi, cores, boxes=boxes), out("gb"), 1),
            "mt": lambda: ([c for box in boxes for c in mutool(
                lambda o, box=box: ["-w", str(box), "-h", str(box), "-o", os.path.join(o, "t%d-%%d.png" % box)], out("mt"))],
                out("mt"), cores),
        }
        wanted = {k for _, pair in pairs for k in pair if k != "mb"}
        if "mb" in [m for _, (_, m) in pairs]:
            wanted |= {"mi", "mt"}
        samples = {k: [] for k in runs if k in wanted}
        for _ in range(rounds):
            for key in samples:
                commands, outdir, parallel = runs[key]()
                result = timed(commands, outdir, parallel)
                samples[key].append((result[0], result[3]))
        t = {k: (statistics.median(s[0] for s in v), statistics.median(s[1] for s in v)) for k, v in samples.items()}
        if "mi" in t and "mt" in t:
            t["mb"] = (t["mi"][0] + t["mt"][0], t["mi"][1] + t["mt"][1])
        for k, (wall, cpu) in t.items():
            total = totals.get(k, (0, 0))
            totals[k] = (total[0] + wall, total[1] + cpu)
        row(os.path.basename(f), count, t)
    row("**all**", "", totals)
    print("\nRatios are mutool's time over galley's: above 1, galley is faster. Both on %d cores; medians of %d round(s). "
          "CPU: user + system seconds of every process. "
          "\"both\": one galley run making page images and thumbnails (a default run), against mutool's two runs." % (cores, rounds))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1, help="corpus size in units of ~100 pages")
    parser.add_argument("--dpi", type=int, default=150)
    parser.add_argument("--box", type=int, default=256)
    parser.add_argument("--corpus", help="a folder of PDFs to measure instead of the generated corpus")
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds of the page-image runs (median)")
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--skip-thumbnails", action="store_true")
    parser.add_argument("--per-document", action="store_true", help="each PDF alone against mutool (see above)")
    parser.add_argument("--scans", action="store_true", help="with --per-document: add a generated scanned document")
    parser.add_argument("--only", choices=("images", "thumbnails", "both"), action="append",
                        help="with --per-document: measure only these (repeatable; default all three)")
    args = parser.parse_args()
    if not os.access(GALLEY, os.X_OK):
        sys.exit("benchmark: build first: bash scripts/build-release.sh")
    for tool in ("mutool", "pdftoppm", "vipsthumbnail"):
        if shutil.which(tool) is None:
            sys.exit("benchmark: %s is missing; run scripts/install-deps.sh" % tool)

    if args.corpus:
        corpus = os.path.abspath(args.corpus)
        files = sorted(glob.glob(os.path.join(corpus, "*.pdf")))
        if not files:
            sys.exit("benchmark: no PDFs in %s" % corpus)
        what = "PDFs from %s" % args.corpus
    else:
        corpus = os.path.join(WORK, "corpus")
        shutil.rmtree(corpus, ignore_errors=True)
        files = make_corpus(corpus, args.scale)
        what = "text, vector art, photos, rotated and cropped pages"
    if args.per_document:
        if args.scans:
            scans = os.path.join(WORK, "scans", "scans.pdf")
            if not os.path.exists(scans):
                os.makedirs(os.path.dirname(scans), exist_ok=True)
                make_scans(scans)
            files = files + [scans]
        per_document(files, args.dpi, os.cpu_count(), args.rounds, tuple(args.only or ("images", "thumbnails", "both")))
        return
    counts = {f: page_count(f) for f in files}
    pages = sum(counts.values())
    out = lambda name: os.path.join(WORK, "out-" + name)
    dpi, box, cores = args.dpi, args.box, os.cpu_count()
    name = lambda f: os.path.basename(f).replace(" ", "_")
    print("Corpus: %d files, %d pages (%s); %d dpi; thumbnails %d px; %d cores, every tool on all of them; "
          "%d round(s)\n" % (len(files), pages, what, dpi, box, cores, args.rounds))

    rows = []

    def measure(label, commands, outdir, group, parallel=1, rounds=1):
        results = [timed(commands, outdir, parallel) for _ in range(rounds)]
        seconds = statistics.median(r[0] for r in results)
        rss, size = max(r[1] for r in results), results[-1][2]
        rows.append((group, label, seconds, pages / seconds, rss, size))
        print("  measured %-58s %6.2f s  %7.1f pages/s  %6.0f MiB  %6.1f MB" % (label, seconds, pages / seconds, rss, size / 1e6),
              file=sys.stderr)
        return seconds, size

    # The page-image runs that the headline ratio compares, in alternating rounds.
    contenders = [
        ("galley, %d workers" % cores, lambda: galley(corpus, out("g2"), dpi, cores), out("g2"), 1),
        ("mutool draw -r %d, pages split over %d processes" % (dpi, cores),
         lambda: per_core(files, counts, cores, lambda f, a, b: [
             "mutool", "draw", "-q", "-r", str(dpi), "-o", os.path.join(out("mutool"), name(f) + "-%d.png"), f,
             "%d-%d" % (a, b)]), out("mutool"), cores),
        ("mutool draw -P -r %d, %d processes over the files" % (dpi, cores),
         lambda: [["mutool", "draw", "-q", "-P", "-r", str(dpi), "-o", os.path.join(out("mutool-P"), name(f) + "-%d.png"), f]
                  for f in files], out("mutool-P"), cores),
        ("pdftoppm -r %d -png, pages split over %d processes" % (dpi, cores),
         lambda: per_core(files, counts, cores, lambda f, a, b: [
             "pdftoppm", "-r", str(dpi), "-png", "-f", str(a), "-l", str(b), f, os.path.join(out("pdftoppm"), name(f))]),
         out("pdftoppm"), cores),
    ]
    samples = {label: [] for label, _, _, _ in contenders}
    sizes = {}
    for _ in range(args.rounds):
        for label, commands, outdir, parallel in contenders:
            seconds, _, size, _ = timed(commands(), outdir, parallel)
            samples[label].append(seconds)
            sizes[label] = size
    for label, _, outdir, _ in contenders:
        seconds = statistics.median(samples[label])
        rows.append(("pages", label, seconds, pages / seconds, float("nan"), sizes[label]))
        print("  measured %-58s %6.2f s  %7.1f pages/s  %6.1f MB" % (label, seconds, pages / seconds, sizes[label] / 1e6),
              file=sys.stderr)
    g2, g2_bytes = statistics.median(samples[contenders[0][0]]), sizes[contenders[0][0]]
    m, m_bytes = statistics.median(samples[contenders[1][0]]), sizes[contenders[1][0]]
    mp = statistics.median(samples[contenders[2][0]])
    p = statistics.median(samples[contenders[3][0]])
    best_label, best = min(((label, statistics.median(samples[label])) for label, _, _, _ in contenders[1:]),
                           key=lambda item: item[1])

    g1, _ = measure("galley, 1 worker per stage", galley(corpus, out("g1"), dpi, 1), out("g1"), "pages")
    # workers: 1 still overlaps stages (render, encode) on both cores; pinning to one core
    # gives the single-core baseline that shows how the pipeline scales with cores.
    c1, _ = measure("galley, %d workers, one core (taskset -c 0)" % cores,
                    [["taskset", "-c", "0"] + c for c in galley(corpus, out("c1"), dpi, cores)], out("c1"), "pages")
    presets = {"balanced": (g2, g2_bytes)}
    for preset in ("fast", "small"):
        presets[preset] = measure("galley, %d workers, png: %s" % (cores, preset),
                                  galley(corpus, out("g-" + preset), dpi, cores, png=preset), out("g-" + preset), "pages",
                                  rounds=args.rounds)

    if not args.skip_thumbnails:
        gt, _ = measure("galley thumbnails, %d workers" % cores,
                        galley(corpus, out("gt"), dpi, cores, page_images=False, boxes=(box,)), out("gt"), "thumbnails")
        mt, _ = measure("mutool draw -w %d -h %d, pages split over %d processes" % (box, box, cores),
                        per_core(files, counts, cores, lambda f, a, b: [
                            "mutool", "draw", "-q", "-w", str(box), "-h", str(box), "-o",
                            os.path.join(out("mutool-t"), name(f) + "-%d.png"), f, "%d-%d" % (a, b)]),
                        out("mutool-t"), "thumbnails", parallel=cores)
        pt, _ = measure("pdftoppm -scale-to %d -png, pages split over %d processes" % (box, cores),
                        per_core(files, counts, cores, lambda f, a, b: [
                            "pdftoppm", "-scale-to", str(box), "-png", "-f", str(a), "-l", str(b), f,
                            os.path.join(out("pdftoppm-t"), name(f))]), out("pdftoppm-t"), "thumbnails", parallel=cores)
        vt, _ = measure("vipsthumbnail -s %d, one call per page, %d at once" % (box, cores),
                        [["vipsthumbnail", "%s[page=%d]" % (f, i), "-s", str(box), "-o",
                          os.path.join(out("vips"), "%s-%d.png" % (name(f), i))]
                         for f in files for i in range(counts[f])], out("vips"), "thumbnails", parallel=cores)

    print("| what | tool | time (s) | pages/s | peak RSS (MiB) | PNG MB |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for group, label, seconds, rate, rss, size in rows:
        print("| %s | %s | %.2f | %.1f | %s | %.1f |" % (group, label, seconds, rate,
                                                         "" if rss != rss else "%.0f" % rss, size / 1e6))
    print()
    print("Ratios on %d cores each (higher is better for galley):" % cores)
    print("- page images: galley %.2fx the fastest peer (%s)" % (best / g2, best_label))
    print("  - %.2fx mutool draw split per core, %.2fx mutool draw -P, %.2fx pdftoppm split per core"
          % (m / g2, mp / g2, p / g2))
    print("- PNG bytes: galley %.2fx mutool's, %.2fx pdftoppm's" % (g2_bytes / m_bytes, g2_bytes / sizes[contenders[3][0]]))
    for preset, (seconds, size) in sorted(presets.items()):
        print("  - png %-8s %.2fx mutool's speed, %.2fx its bytes" % (preset + ":", m / seconds, size / m_bytes))
    if not args.skip_thumbnails:
        print("- thumbnails: galley %.2fx mutool draw -w -h, %.2fx pdftoppm -scale-to, %.2fx vipsthumbnail"
              % (mt / gt, pt / gt, vt / gt))
    print("- %d cores vs one (taskset): %.2fx; %d workers per stage vs 1: %.2fx" % (cores, c1 / g2, cores, g1 / g2))

    if not args.skip_memory:
        big = os.path.join(WORK, "corpus-big")
        shutil.rmtree(big, ignore_errors=True)
        os.makedirs(big)
        for i in range(10):
            for f in files:
                os.link(f, os.path.join(big, "%d-%s" % (i, os.path.basename(f))))
        _, small_rss, _, _ = timed(galley(corpus, out("mem-small"), dpi, cores), out("mem-small"))
        _, big_rss, _, _ = timed(galley(big, out("mem-big"), dpi, cores), out("mem-big"))
        print("- peak RSS: %d pages %.0f MiB, %d pages %.0f MiB (ratio %.2f)"
              % (pages, small_rss, pages * 10, big_rss, big_rss / small_rss))


if __name__ == "__main__":
    main()
