#!/usr/bin/env python3
"""Pages per second of galley writing typeset articles as PDF, next to galley's own PNG page
images at 150 dpi and next to WeasyPrint writing PDF of the same HTML, as a Markdown table.

    python3 scripts/benchmark-pdf.py [--rounds R] [--galley PATH] [--no-weasyprint]
                                     [--real N] [ARTICLE...]

The articles: the fixtures' HTML articles (fixtures/articles/*.html) unless given; with --real
N, N pages of real documentation instead (Debian's Python, maint-guide and debian-reference
HTML in English, German, French, Japanese and Chinese, which scripts/real-documents.sh
unpacks into .build-bench/real; taken evenly from each language's sorted pages, and typeset
with no language set, so Galley guesses it where a page has no `lang`). Every row runs on one
core (`taskset -c 0`), articles one after another, best of --rounds:

  galley pdf   `galley typeset --documents 1 --pdf DIR`: parse, typeset and write the PDF of
               each article in the one layout below (A4, two columns, 10 pt DejaVu Serif,
               hyphenated); the figure is the process's wall time
  galley png   `galley render --jobs 1 --dpi 150` of the same articles and layout: typeset,
               draw and encode PNG page images
               (with --weasyprint-page: on WeasyPrint's own default page instead, one column
               of 12 pt with 75 px margins, no hyphenation, so both make about as many pages)
  weasyprint   WeasyPrint's `HTML(filename).write_pdf()` of each article in one Python process,
               timed around that call only (the import is left out); its own layout of the
               HTML (A4, its user-agent style sheet), so its page count differs

Pages per second are each row's pages over its seconds; bytes are the PDFs' sum. Seconds are
wall time and CPU time (user and system: the process's for galley, the calls' for WeasyPrint);
on a machine shared with other work the CPU figures are the fairer comparison, and the ratios
are printed for both. Since the two lay out different pages (WeasyPrint one column, galley two),
the ratio of time per article is printed beside the ratio of pages per second. WeasyPrint
is installed from PyPI into .build-bench/pdf/weasyprint on first use (python3-venv); without
it (or with --no-weasyprint) its row is left out. Uses the release build
(bash scripts/build-release.sh) unless --galley names another binary.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build-bench", "pdf")
GALLEY = os.path.join(ROOT, ".build", "release", "galley")
PIN = ["taskset", "-c", "0"] if shutil.which("taskset") else []
CONFIG = """layouts:
  - name: a4
    page: a4
    columns: 2
    column_gap: 0.25in
    inset: 0.75in
    font_family: DejaVu Serif
    font_size: 10
{language}    justify_threshold: 0.8
    hyphenation: true
"""
# WeasyPrint's own page for HTML without @page rules (its user-agent style sheet: A4, 75 px
# margins, 16 px text in one column): galley set on the same page, so both make about as many
# pages of an article and pages per second compare like with like.
CONFIG_LIKE_WEASYPRINT = """layouts:
  - name: a4
    page: a4
    columns: 1
    inset: 75px
    font_family: DejaVu Serif
    font_size: 12
{language}    hyphenation: false
"""
WEASYPRINT = r"""
import json, logging, os, sys, time
logging.getLogger("weasyprint").setLevel(logging.CRITICAL)
logging.getLogger("fontTools").setLevel(logging.CRITICAL)
import weasyprint
out, articles = sys.argv[1], sys.argv[2:]
results = []
for index, article in enumerate(articles):
    target = "%s/%d.pdf" % (out, index)
    start, cpu = time.perf_counter(), os.times()
    document = weasyprint.HTML(filename=article).render()
    document.write_pdf(target)
    done = os.times()
    results.append({"seconds": time.perf_counter() - start, "cpu": done.user - cpu.user + done.system - cpu.system,
                    "pages": len(document.pages), "pdf": target})
print(json.dumps(results))
"""


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        sys.exit("failed: %s\n%s%s" % (" ".join(args), r.stdout[-1000:], r.stderr[-1000:]))
    return r


def weasyprint_python():
    """The virtual environment's python with WeasyPrint, installed on first use; None when it
    cannot be."""
    venv = os.path.join(WORK, "weasyprint")
    python = os.path.join(venv, "bin", "python")
    check = [python, "-c", "import weasyprint"]
    if os.path.exists(python) and subprocess.run(check, capture_output=True).returncode == 0:
        return python
    print("benchmark-pdf: installing WeasyPrint from PyPI into " + venv, file=sys.stderr)
    for command in ([sys.executable, "-m", "venv", venv], [python, "-m", "pip", "install", "-q", "weasyprint"]):
        if subprocess.run(command, capture_output=True).returncode != 0:
            print("benchmark-pdf: `%s` failed; WeasyPrint left out" % " ".join(command), file=sys.stderr)
            return None
    return python if subprocess.run(check, capture_output=True).returncode == 0 else None


def timed(args):
    """The command's result, wall seconds and CPU seconds (user and system of the child)."""
    before, start = os.times(), time.perf_counter()
    result = run(args)
    seconds, after = time.perf_counter() - start, os.times()
    return result, seconds, after.children_user - before.children_user + after.children_system - before.children_system


def galley_pdf(galley, config, articles):
    out = os.path.join(WORK, "galley-pdf")
    shutil.rmtree(out, ignore_errors=True)
    result, seconds, cpu = timed(PIN + [galley, "typeset", "--config", config, "--documents", "1", "--json", "--pdf", out] + articles)
    report = json.loads(result.stdout)
    pages = sum(layout["pages"] for document in report["documents"] for layout in document["layouts"])
    pdfs = glob.glob(os.path.join(out, "*.pdf"))
    return seconds, cpu, pages, sum(os.path.getsize(p) for p in pdfs)


def galley_png(galley, config, articles):
    out = os.path.join(WORK, "galley-png")
    shutil.rmtree(out, ignore_errors=True)
    _, seconds, cpu = timed(PIN + [galley, "render", "--config", config, "--jobs", "1", "--dpi", "150", "-o", out] + articles)
    images = glob.glob(os.path.join(out, "*.png"))
    return seconds, cpu, len(images), sum(os.path.getsize(p) for p in images)


def weasyprint(python, articles):
    out = os.path.join(WORK, "weasyprint-pdf")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    results = json.loads(run(PIN + [python, "-c", WEASYPRINT, out] + articles).stdout)
    return (sum(r["seconds"] for r in results), sum(r["cpu"] for r in results), sum(r["pages"] for r in results),
            sum(os.path.getsize(r["pdf"]) for r in results))


REAL = os.path.join(ROOT, ".build-bench", "real", "unpacked", "usr", "share")
# Each language's documentation in the set scripts/real-documents.sh unpacks: folder, and the
# ending of its pages' names.
REAL_SETS = [("en", "doc/python3.11/html", ".html"), ("de", "doc/maint-guide-de", ".de.html"),
             ("fr", "doc/maint-guide-fr", ".fr.html"), ("ja", "doc/maint-guide-ja", ".ja.html"),
             ("zh", "doc/maint-guide-zh-cn", ".zh-cn.html"), ("de", "debian-reference", ".de.html"),
             ("fr", "debian-reference", ".fr.html"), ("ja", "debian-reference", ".ja.html"),
             ("zh", "debian-reference", ".zh-cn.html")]


def real_articles(count):
    """`count` real documentation pages, taken evenly from each language's sorted pages."""
    languages = {}
    for language, folder, ending in REAL_SETS:
        pages = sorted(glob.glob(os.path.join(REAL, folder, "**", "*" + ending), recursive=True))
        # Indexes and tables of contents are lists of links, not text to set.
        pages = [p for p in pages if not re.search(r"(genindex|index|contents|search|py-modindex)[^/]*\.html$", p)]
        languages.setdefault(language, []).extend(pages)
    languages = {k: v for k, v in languages.items() if v}
    if not languages:
        sys.exit("benchmark-pdf: no real documents in %s (bash scripts/real-documents.sh)" % REAL)
    chosen = []
    per_language = max(1, count // len(languages))
    for language, pages in sorted(languages.items()):
        step = max(1, len(pages) // per_language)
        chosen.extend(pages[::step][:per_language])
    return chosen[:count]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--galley", default=GALLEY)
    parser.add_argument("--no-weasyprint", action="store_true")
    parser.add_argument("--real", type=int, default=0, metavar="N", help="N pages of real documentation instead of the fixtures")
    parser.add_argument("--weasyprint-page", action="store_true",
                        help="galley on WeasyPrint's default page (one column, 12 pt, 75 px margins) instead of two columns of 10 pt")
    parser.add_argument("articles", nargs="*")
    options = parser.parse_args()
    if not os.access(options.galley, os.X_OK):
        sys.exit("benchmark-pdf: no galley at %s (bash scripts/build-release.sh, or --galley)" % options.galley)
    if options.real:
        articles = real_articles(options.real)
    else:
        articles = [os.path.abspath(a) for a in options.articles] or sorted(glob.glob(os.path.join(ROOT, "fixtures", "articles", "*.html")))
    os.makedirs(WORK, exist_ok=True)
    config = os.path.join(WORK, "pipeline.yml")
    with open(config, "w") as f:
        # The fixtures say their language where it is not English; real pages often do not,
        # and Galley then guesses it from the text.
        f.write((CONFIG_LIKE_WEASYPRINT if options.weasyprint_page else CONFIG).format(language="" if options.real else "    language: en\n"))
    python = None if options.no_weasyprint else weasyprint_python()
    rows = [("galley pdf", lambda: galley_pdf(options.galley, config, articles)),
            ("galley png 150 dpi", lambda: galley_png(options.galley, config, articles))]
    if python:
        rows.append(("weasyprint pdf", lambda: weasyprint(python, articles)))
    results = {}
    for name, measure in rows:
        best = None
        for _ in range(max(1, options.rounds)):
            result = measure()
            if best is None or result[1] < best[1]:
                best = result
        results[name] = best
    print("%d articles, one core, best of %d (by CPU time)\n" % (len(articles), options.rounds))
    print("| row | pages | wall s | CPU s | pages/s (CPU) | bytes |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, (seconds, cpu, pages, size) in results.items():
        print("| %s | %d | %.3f | %.3f | %.1f | %d |" % (name, pages, seconds, cpu, pages / cpu, size))
    pdf = results["galley pdf"]
    png = results["galley png 150 dpi"]
    print("\ngalley pdf against galley png: %.2fx the pages per CPU second" % ((pdf[2] / pdf[1]) / (png[2] / png[1])))
    if "weasyprint pdf" in results:
        weasy = results["weasyprint pdf"]
        print("galley pdf against weasyprint: %.1fx the pages per CPU second (%.1fx per wall second), "
              "%.1fx less CPU time for the same articles, %.2fx the bytes per page"
              % ((pdf[2] / pdf[1]) / (weasy[2] / weasy[1]), (pdf[2] / pdf[0]) / (weasy[2] / weasy[0]),
                 weasy[1] / pdf[1], (pdf[3] / pdf[2]) / (weasy[3] / weasy[2])))

if __name__ == "__main__":
    main()
