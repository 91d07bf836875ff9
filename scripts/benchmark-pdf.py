#!/usr/bin/env python3
"""Pages per second of galley writing typeset articles as PDF, next to galley's own PNG page
images at 150 dpi and next to WeasyPrint writing PDF of the same HTML, as a Markdown table.

    python3 scripts/benchmark-pdf.py [--rounds R] [--galley PATH] [--no-weasyprint] [ARTICLE...]

The articles: the fixtures' HTML articles (fixtures/articles/*.html) unless given. Every row
runs on one core (`taskset -c 0`), articles one after another, best of --rounds:

  galley pdf   `galley typeset --documents 1 --pdf DIR`: parse, typeset and write the PDF of
               each article in the one layout below (A4, two columns, 10 pt DejaVu Serif,
               hyphenated); the figure is the process's wall time
  galley png   `galley render --jobs 1 --dpi 150` of the same articles and layout: typeset,
               draw and encode PNG page images
  weasyprint   WeasyPrint's `HTML(filename).write_pdf()` of each article in one Python process,
               timed around that call only (the import is left out); its own layout of the
               HTML (A4, its user-agent style sheet), so its page count differs

Pages per second are each row's pages over its seconds; bytes are the PDFs' sum. WeasyPrint
is installed from PyPI into .build-bench/pdf/weasyprint on first use (python3-venv); without
it (or with --no-weasyprint) its row is left out. Uses the release build
(bash scripts/build-release.sh) unless --galley names another binary.
"""
import argparse
import glob
import json
import os
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
    language: en
    justify_threshold: 0.8
    hyphenation: true
"""
WEASYPRINT = r"""
import json, logging, sys, time
logging.getLogger("weasyprint").setLevel(logging.CRITICAL)
logging.getLogger("fontTools").setLevel(logging.CRITICAL)
import weasyprint
out, articles = sys.argv[1], sys.argv[2:]
results = []
for index, article in enumerate(articles):
    target = "%s/%d.pdf" % (out, index)
    start = time.perf_counter()
    document = weasyprint.HTML(filename=article).render()
    document.write_pdf(target)
    results.append({"seconds": time.perf_counter() - start, "pages": len(document.pages), "pdf": target})
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


def galley_pdf(galley, config, articles):
    out = os.path.join(WORK, "galley-pdf")
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    result = run(PIN + [galley, "typeset", "--config", config, "--documents", "1", "--json", "--pdf", out] + articles)
    seconds = time.perf_counter() - start
    report = json.loads(result.stdout)
    pages = sum(layout["pages"] for document in report["documents"] for layout in document["layouts"])
    pdfs = glob.glob(os.path.join(out, "*.pdf"))
    return seconds, pages, sum(os.path.getsize(p) for p in pdfs)


def galley_png(galley, config, articles):
    out = os.path.join(WORK, "galley-png")
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    run(PIN + [galley, "render", "--config", config, "--jobs", "1", "--dpi", "150", "-o", out] + articles)
    seconds = time.perf_counter() - start
    images = glob.glob(os.path.join(out, "*.png"))
    return seconds, len(images), sum(os.path.getsize(p) for p in images)


def weasyprint(python, articles):
    out = os.path.join(WORK, "weasyprint-pdf")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    results = json.loads(run(PIN + [python, "-c", WEASYPRINT, out] + articles).stdout)
    return (sum(r["seconds"] for r in results), sum(r["pages"] for r in results),
            sum(os.path.getsize(r["pdf"]) for r in results))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--galley", default=GALLEY)
    parser.add_argument("--no-weasyprint", action="store_true")
    parser.add_argument("articles", nargs="*")
    options = parser.parse_args()
    if not os.access(options.galley, os.X_OK):
        sys.exit("benchmark-pdf: no galley at %s (bash scripts/build-release.sh, or --galley)" % options.galley)
    articles = [os.path.abspath(a) for a in options.articles] or sorted(glob.glob(os.path.join(ROOT, "fixtures", "articles", "*.html")))
    os.makedirs(WORK, exist_ok=True)
    config = os.path.join(WORK, "pipeline.yml")
    with open(config, "w") as f:
        f.write(CONFIG)
    python = None if options.no_weasyprint else weasyprint_python()
    rows = [("galley pdf", lambda: galley_pdf(options.galley, config, articles)),
            ("galley png 150 dpi", lambda: galley_png(options.galley, config, articles))]
    if python:
        rows.append(("weasyprint pdf", lambda: weasyprint(python, articles)))
    results = {}
    for name, measure in rows:
        best = None
        for _ in range(max(1, options.rounds)):
            seconds, pages, size = measure()
            if best is None or seconds < best[0]:
                best = (seconds, pages, size)
        results[name] = best
    print("%d articles, one core, best of %d\n" % (len(articles), options.rounds))
    print("| row | pages | seconds | pages/s | bytes |")
    print("|---|---:|---:|---:|---:|")
    for name, (seconds, pages, size) in results.items():
        print("| %s | %d | %.3f | %.1f | %d |" % (name, pages, seconds, pages / seconds, size))
    pdf = results["galley pdf"]
    speed = pdf[1] / pdf[0]
    png = results["galley png 150 dpi"]
    print("\ngalley pdf against galley png: %.2fx the pages per second" % (speed / (png[1] / png[0])))
    if "weasyprint pdf" in results:
        weasy = results["weasyprint pdf"]
        print("galley pdf against weasyprint: %.1fx the pages per second, %.2fx the bytes per page"
              % (speed / (weasy[1] / weasy[0]), (pdf[2] / pdf[1]) / (weasy[2] / weasy[1])))


if __name__ == "__main__":
    main()
