#!/usr/bin/env python3
"""Runs CSS reftests of the web-platform-tests (the w3c/csswg-test repository) through Galley,
and optionally WeasyPrint, and counts honest passes per directory.

    python3 scripts/wpt-reftests.py --tests PATH [--all | --per-area N] [--weasyprint]
    python3 scripts/wpt-reftests.py --tests PATH --check           (the regression check)
    python3 scripts/wpt-reftests.py --tests PATH --all --update-expected

PATH (or the environment variable GALLEY_CSS_TESTS) is a local copy of w3c/csswg-test: a
checkout, or a git directory (bare or not) whose commit EXPECTED_COMMIT (or --ref) is extracted
with `git archive` into the cache. Nothing of the suite is committed to this repository; without
a copy every mode prints why it skipped and exits 0.

A reftest is a page with `<link rel="match" href="REF">`: the test and its reference must draw
the same. Both are drawn on a 600 x 450 pt page with no margin at 96 dpi (800 x 600 px), with
`galley render` (a pipeline.yml with that layout and the Ahem font that scripts/make-ahem.py
builds, found through fontconfig) and with WeasyPrint (its PDF drawn by pdftoppm at the same
resolution), and compared pixel by pixel: a pixel differs when one of its channels differs by
more than CHANNEL_TOLERANCE levels, and the pages match when at most PIXEL_TOLERANCE pixels of a
page differ and the page counts are equal.

A match counts as an honest pass only when the reference draws something the test is about:
coloured pixels, a solid block (an Ahem glyph, a box) of 6 x 6 px or more, or a rule 48 px
long; or, when the reference draws running text and nothing else, when the test drawn without its
CSS (style sheets and style attributes taken out) looks different, so the renderer did apply
the CSS (text-transform, counters, white-space). A match of pages drawn blank, or as if they
had no style at all (a test whose boxes neither page draws), is counted apart as "empty",
never as a pass. A page a renderer refuses to draw is
"refused", one that kills it is a "crash", one that takes longer than --timeout is a "timeout".

Results go to .build-bench/css-reftests/ (the extracted suite, the font, the WeasyPrint virtual
environment) and to --out (the pages and results.json, each test's outcome).
"""
import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import threading
import time


try:
    import numpy
    from PIL import Image
except ImportError:
    numpy = Image = None


def need_numpy():
    """NumPy and Pillow come from Debian: rerun under /usr/bin/python3 when another python3 is
    first on the PATH and lacks them. Only asked once a run has tests to draw, so a run that
    skips needs neither."""
    if numpy is not None:
        return
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system):
        os.execv(system, [system, *sys.argv])
    sys.exit("wpt-reftests: NumPy and Pillow are missing; run `bash scripts/install-deps.sh --conformance`")


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".build-bench", "css-reftests")
EXPECTED = os.path.join(ROOT, "tests", "css-reftests-expected.txt")
# The last commit of w3c/csswg-test's master with the tests (2017-03-27), before they moved
# into web-platform-tests' css/ folder; the expected list was made from it.
EXPECTED_COMMIT = "8eced53cb246ba1ab8b9450e36d2d57dc74a1f4a"

PAGE_WIDTH_PT, PAGE_HEIGHT_PT, DPI = 600, 450, 96
CHANNEL_TOLERANCE = 24
PIXEL_TOLERANCE = 16

# The areas, each one or more folders of the suite and a filter on file names.
AREAS = [
    ("css21/tables", None),
    ("css21/floats", None),
    ("css21/floats-clear", None),
    ("css21/normal-flow", None),
    ("css21/margin-padding-clear", None),
    ("css21/linebox", None),
    ("css21/text", None),
    ("css21/lists", None),
    ("css21/borders", None),
    ("css21/box-display", None),
    ("css-multicol-1", None),
    ("css-text-3/text-align", None),
    ("css-text-3/white-space", None),
    ("css-text-3/overflow-wrap", None),
    ("css-writing-modes-3", re.compile(r"(vrl|vertical-rl)")),
    ("css-ui-3", re.compile(r"^box-sizing")),
    ("css-display-3", None),
]
# Folders the tests link into (references, pictures, style sheets); fonts/ is left out on
# purpose: the Ahem font is made by scripts/make-ahem.py.
SUPPORT = ["support", "reference", "css21/support", "css21/reference"]
# Tests that need a person, a script or a feature no paged renderer has.
SKIPPED_FLAGS = {"interact", "animated", "dom", "script", "userstyle", "history", "speech", "http", "font"}
TEST_SUFFIXES = (".xht", ".xhtml", ".html", ".htm")

MATCH = re.compile(r"<link\b[^>]*>", re.I)
REL_MATCH = re.compile(r"""\brel\s*=\s*["']?match["'\s>/]""", re.I)
HREF = re.compile(r"""\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
FLAGS = re.compile(r"""<meta\b(?=[^>]*\bname\s*=\s*["']flags["'])[^>]*\bcontent\s*=\s*["']([^"']*)["']""", re.I)


def log(message):
    print(message, flush=True)


# ----------------------------------------------------------------------------- the suite

def suite_folder(source, ref):
    """The folder holding the suite: a checkout as it is, or a git directory's commit
    extracted into the cache (only the areas and support folders)."""
    if os.path.isdir(os.path.join(source, "css21")):
        return source, None
    git_dir = source if os.path.isdir(os.path.join(source, "objects")) else os.path.join(source, ".git")
    if not os.path.isdir(git_dir):
        return None, f"{source} is neither a csswg-test checkout (no css21/) nor a git directory"
    try:
        commit = subprocess.run(["git", "--git-dir", git_dir, "rev-parse", "--verify", f"{ref}^{{commit}}"],
                                check=True, capture_output=True, text=True).stdout.strip()
    except subprocess.CalledProcessError:
        return None, f"{git_dir} has no commit {ref} (csswg-test's last master with the tests)"
    target = os.path.join(CACHE, "suite", commit[:12])
    stamp = os.path.join(target, ".extracted")
    if os.path.exists(stamp):
        return target, None
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    folders = sorted({area.split("/")[0] if area.startswith("css-") else area for area, _ in AREAS} | set(SUPPORT))
    for folder in folders:
        archive = subprocess.run(["git", "--git-dir", git_dir, "archive", "--format=tar", commit, folder],
                                 capture_output=True)
        if archive.returncode != 0:
            log(f"wpt-reftests: could not extract {folder} from {git_dir}: {archive.stderr.decode(errors='replace').strip()}")
            continue
        extract(archive.stdout, target)
    with open(stamp, "w") as handle:
        handle.write(commit + "\n")
    log(f"wpt-reftests: extracted {commit[:12]} of {git_dir} into {target}")
    return target, None


def extract(data, target):
    import io
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        for member in archive.getmembers():
            if member.issym() or member.islnk() or member.name.startswith("/") or ".." in member.name.split("/"):
                continue
            archive.extract(member, target)


def read_text(path):
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def reference_of(path):
    """The reference a test names with rel=match, or None; None too for flagged tests."""
    text = read_text(path)
    flags = FLAGS.search(text)
    if flags and SKIPPED_FLAGS & set(flags.group(1).split()):
        return None
    for link in MATCH.findall(text):
        if REL_MATCH.search(link):
            href = HREF.search(link)
            if href:
                target = next(group for group in href.groups() if group is not None)
                if "://" in target or target.startswith("/"):
                    return None
                return os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
    return None


def select(suite, per_area, only):
    """(area, test path relative to the suite, reference path relative to it), in order."""
    selected = []
    for area, name_filter in AREAS:
        folder = os.path.join(suite, area)
        candidates = []
        for directory, subfolders, files in os.walk(folder):
            subfolders[:] = sorted(d for d in subfolders if d not in ("reference", "support", "reftest"))
            for name in sorted(files):
                if not name.endswith(TEST_SUFFIXES) or (name_filter and not name_filter.search(name)):
                    continue
                path = os.path.join(directory, name)
                if (name.endswith(".xhtml") and os.path.exists(path[:-2])) or ".nocss." in name:
                    continue  # a twin this script wrote (readable, without_css)
                relative = os.path.relpath(path, suite)
                if only and not any(re.search(pattern, relative) for pattern in only):
                    continue
                reference = reference_of(path)
                if reference and os.path.isfile(reference):
                    candidates.append((area, relative, os.path.relpath(reference, suite)))
        if per_area and len(candidates) > per_area:
            # Evenly spaced over the sorted names: the same sample for the same suite.
            step = len(candidates) / per_area
            candidates = [candidates[int(i * step)] for i in range(per_area)]
        selected.extend(candidates)
    return selected


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
SELF_CLOSED = re.compile(r"<([A-Za-z][A-Za-z0-9]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)\s*/>")
CDATA = re.compile(r"<!\[CDATA\[|\]\]>")
STYLE = re.compile(r"(<style\b[^>]*>)(.*?)(</style>)", re.S | re.I)
STYLE_ATTRIBUTE = re.compile(r"""\bstyle\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)


def as_html(text):
    """An XHTML page as a browser's XML parser reads it, written as HTML that an HTML parser
    reads the same way: `<div/>` closed (HTML would leave it open) and the CDATA markers in
    style sheets dropped (HTML would read them as CSS)."""
    text = SELF_CLOSED.sub(lambda m: m.group(0) if m.group(1).lower() in VOID
                           else f"<{m.group(1)}{m.group(2)}></{m.group(1)}>", text)
    return STYLE.sub(lambda m: m.group(1) + CDATA.sub("", m.group(2)) + m.group(3), text)


def readable(suite, relative):
    """The path to give a renderer. Neither Galley nor WeasyPrint parses XML, and Galley reads
    .xhtml, .html and .htm: a .xht page gets a .xhtml twin beside it (so its relative links
    still resolve), written by as_html."""
    path = os.path.join(suite, relative)
    if not path.endswith(".xht"):
        return path
    twin = path + "ml"
    if not os.path.exists(twin):
        temporary = f"{twin}.{os.getpid()}.{threading.get_ident()}"
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(as_html(read_text(path)))
        os.replace(temporary, twin)
    return twin


STYLESHEET_LINK = re.compile(r"<link\b[^>]*\bstylesheet\b[^>]*>", re.I)


def without_css(suite, relative):
    """A twin of the page with its style sheets and style attributes taken out (.nocss.html
    beside it), to tell whether a renderer's drawing of the page depends on its CSS at all."""
    path = os.path.join(suite, relative)
    twin = path + ".nocss.html"
    if not os.path.exists(twin):
        text = read_text(path)
        text = as_html(text) if path.endswith(".xht") else text
        text = STYLESHEET_LINK.sub("", STYLE.sub("", text))
        text = STYLE_ATTRIBUTE.sub("", text)
        temporary = f"{twin}.{os.getpid()}.{threading.get_ident()}"
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, twin)
    return os.path.relpath(twin, suite)


# ----------------------------------------------------------------------------- the pages

def load_pages(paths):
    return [numpy.asarray(Image.open(path).convert("RGB"), dtype=numpy.int16) for path in paths]


def pages_match(test, reference):
    """(match, differing pixels on the worst page)."""
    if len(test) != len(reference) or not test:
        return False, -1
    worst = 0
    for a, b in zip(test, reference):
        if a.shape != b.shape:
            return False, -1
        differing = int(numpy.count_nonzero(numpy.abs(a - b).max(axis=2) > CHANNEL_TOLERANCE))
        worst = max(worst, differing)
    return worst <= PIXEL_TOLERANCE, worst


def window_full(mask, height, width):
    """Whether some height x width window of mask is all true (a summed-area table)."""
    if mask.shape[0] < height or mask.shape[1] < width:
        return False
    table = numpy.zeros((mask.shape[0] + 1, mask.shape[1] + 1), dtype=numpy.int32)
    table[1:, 1:] = mask.astype(numpy.int32).cumsum(0).cumsum(1)
    sums = table[height:, width:] - table[:-height, width:] - table[height:, :-width] + table[:-height, :-width]
    return bool((sums == height * width).any())


def draws_subject(pages):
    """Whether a reference draws more than running text: a coloured area, a solid block or a
    long rule. Text in black or grey (the tests' instructions) is none of these."""
    for page in pages:
        chroma = page.max(axis=2) - page.min(axis=2)
        if numpy.count_nonzero(chroma > 48) >= 16:
            return True
        ink = page.max(axis=2) < 200
        if not ink.any():
            continue
        if window_full(ink, 6, 6) or window_full(ink, 1, 48) or window_full(ink, 48, 1):
            return True
    return False


# ----------------------------------------------------------------------------- renderers

def run_with_timeout(command, timeout, **options):
    """(exit status or 'timeout', stderr, seconds). The command runs in its own process group,
    which is killed whole at the timeout."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               start_new_session=True, **options)
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return "timeout", "", time.monotonic() - start
    return process.returncode, stderr.decode(errors="replace"), time.monotonic() - start


class Galley:
    name = "galley"

    def __init__(self, binary, work, suite, timeout):
        self.binary, self.work, self.suite, self.timeout = binary, work, suite, timeout
        self.config = os.path.join(work, "pipeline.yml")
        with open(self.config, "w") as handle:
            handle.write(f"""# Written by scripts/wpt-reftests.py: the reftests' page.
fonts: [{json.dumps(os.path.join(CACHE, 'fonts'))}]
dpi: {DPI}
layouts:
  - name: reftest
    page: [{PAGE_WIDTH_PT}, {PAGE_HEIGHT_PT}]
    inset: 0
    columns: 1
    font_family: serif
    font_size: 12
    link_color: inherit
""")

    def draw(self, relative, output):
        """(state, page PNGs, seconds, message); state: ok, refused, crash, timeout."""
        os.makedirs(output, exist_ok=True)
        source = readable(self.suite, relative)
        status, stderr, seconds = run_with_timeout(
            [self.binary, "render", "--config", self.config, "--root", self.suite, "--dpi", str(DPI),
             "--jobs", "1", "-o", output, source], self.timeout)
        pages = sorted(glob.glob(os.path.join(output, "*.png")))
        if status == "timeout":
            return "timeout", [], seconds, f"no answer in {self.timeout} s"
        if status < 0 or status > 2 or (status != 0 and "crash" in stderr.lower()):
            # A signal, or a death Galley caught and reported before going on.
            return "crash", [], seconds, f"exit status {status}: {stderr.strip()[-300:]}"
        if status != 0 or not pages:
            return "refused", [], seconds, stderr.strip()[-300:]
        return "ok", pages, seconds, ""

    def batch_seconds(self, relatives, limit=200):
        """(seconds, pages) of one `galley render` process drawing up to `limit` of the pages
        (evenly spaced): Galley's speed with its start paid once, as a run draws."""
        if len(relatives) > limit:
            relatives = [relatives[int(i * len(relatives) / limit)] for i in range(limit)]
        output = os.path.join(self.work, "galley", "one-process")
        shutil.rmtree(output, ignore_errors=True)
        os.makedirs(output)
        status, _, seconds = run_with_timeout(
            [self.binary, "render", "--config", self.config, "--root", self.suite, "--dpi", str(DPI), "--jobs", "1",
             "-o", output, *[readable(self.suite, relative) for relative in relatives]], self.timeout * len(relatives))
        return (seconds, len(glob.glob(os.path.join(output, "*.png")))) if status in (0, 1) else (0.0, 0)


WEASYPRINT_WORKER = r"""
import json, sys, time, warnings, logging
warnings.simplefilter("ignore")
logging.getLogger("weasyprint").setLevel(logging.CRITICAL)
import weasyprint
page = weasyprint.CSS(string=sys.argv[1])
for line in sys.stdin:
    request = json.loads(line)
    start = time.monotonic()
    try:
        weasyprint.HTML(filename=request["source"], encoding=request["encoding"]).write_pdf(request["pdf"], stylesheets=[page], presentational_hints=True)
        answer = {"ok": True}
    except Exception as error:
        answer = {"ok": False, "error": f"{type(error).__name__}: {error}"[:300]}
    answer["seconds"] = time.monotonic() - start
    print(json.dumps(answer), flush=True)
"""


class WeasyPrint:
    """WeasyPrint from PyPI in its own virtual environment, kept running (one process per
    worker thread, restarted after a crash or a timeout) so its start is not counted."""
    name = "weasyprint"

    def __init__(self, python, work, suite, timeout):
        self.python, self.work, self.suite, self.timeout = python, work, suite, timeout
        self.local = threading.local()
        self.lock = threading.Lock()
        self.pdf_seconds = 0.0  # layout and PDF in the running worker, pdftoppm left out
        self.environment = dict(os.environ, FONTCONFIG_FILE=os.path.join(CACHE, "fonts", "fonts.conf"))

    @staticmethod
    def prepare(work):
        """The virtual environment's python, or (None, why not)."""
        venv = os.path.join(CACHE, "weasyprint")
        python = os.path.join(venv, "bin", "python")
        check = [python, "-c", "import weasyprint"]
        if os.path.exists(python) and subprocess.run(check, capture_output=True).returncode == 0:
            return python, None
        if not shutil.which("pdftoppm"):
            return None, "pdftoppm (poppler-utils) is missing"
        log("wpt-reftests: installing WeasyPrint from PyPI into " + venv)
        for command in ([sys.executable, "-m", "venv", venv], [python, "-m", "pip", "install", "-q", "weasyprint"]):
            result = subprocess.run(command, capture_output=True, text=True)
            if result.returncode != 0:
                return None, f"`{' '.join(command)}` failed: {(result.stderr or result.stdout).strip()[-300:]}"
        if subprocess.run(check, capture_output=True).returncode != 0:
            return None, "WeasyPrint installed but does not import (Pango missing?)"
        return python, None

    def worker(self):
        process = getattr(self.local, "process", None)
        if process is None or process.poll() is not None:
            style = f"@page {{ size: {PAGE_WIDTH_PT}pt {PAGE_HEIGHT_PT}pt; margin: 0 }}"
            process = subprocess.Popen([self.python, "-c", WEASYPRINT_WORKER, style], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                       env=self.environment, start_new_session=True)
            self.local.process = process
        return process

    def stop(self, process):
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        self.local.process = None

    def draw(self, relative, output):
        os.makedirs(output, exist_ok=True)
        source = readable(self.suite, relative)
        pdf = os.path.join(output, "page.pdf")
        process = self.worker()
        # XML's default encoding is UTF-8, an HTML parser's windows-1252: a .xht page without a
        # declaration is read as UTF-8, as a browser reads it (Galley reads UTF-8 anyway).
        encoding = "utf-8" if relative.endswith(".xht") else None
        process.stdin.write(json.dumps({"source": source, "pdf": pdf, "encoding": encoding}) + "\n")
        process.stdin.flush()
        answer = [None]
        reader = threading.Thread(target=lambda: answer.__setitem__(0, process.stdout.readline()))
        reader.start()
        reader.join(self.timeout)
        if reader.is_alive():
            self.stop(process)
            reader.join()
            return "timeout", [], self.timeout, f"no answer in {self.timeout} s"
        if not answer[0]:
            self.stop(process)
            return "crash", [], 0.0, "WeasyPrint's process died"
        result = json.loads(answer[0])
        if not result["ok"]:
            return "refused", [], result["seconds"], result["error"]
        with self.lock:
            self.pdf_seconds += result["seconds"]
        start = time.monotonic()
        status, stderr, _ = run_with_timeout(["pdftoppm", "-r", str(DPI), "-aa", "no", "-aaVector", "no", "-png", pdf, os.path.join(output, "page")],
                                             self.timeout)
        seconds = result["seconds"] + time.monotonic() - start
        pages = sorted(glob.glob(os.path.join(output, "page-*.png")))
        if status != 0 or not pages:
            return "refused", [], seconds, f"pdftoppm: {stderr.strip()[-200:]}"
        return "ok", pages, seconds, ""


# ----------------------------------------------------------------------------- the run

def output_folder(work, renderer, kind, relative):
    digest = hashlib.sha1(relative.encode()).hexdigest()[:10]
    return os.path.join(work, renderer, kind, f"{os.path.basename(relative)}-{digest}")


class ReferenceCache:
    """Each reference is drawn once per renderer (many tests share one)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries = {}

    def get(self, renderer, work, relative):
        with self.lock:
            entry = self.entries.get((renderer.name, relative))
            owner = entry is None
            if owner:
                entry = self.entries[(renderer.name, relative)] = {"event": threading.Event()}
        if owner:
            state, paths, seconds, message = renderer.draw(relative, output_folder(work, renderer.name, "references", relative))
            entry["result"] = (state, load_pages(paths) if state == "ok" else [], paths, seconds, message)
            entry["event"].set()
        entry["event"].wait()
        return entry["result"]


def run_test(renderer, work, references, area, test, reference):
    state, paths, seconds, message = renderer.draw(test, output_folder(work, renderer.name, "tests", test))
    ref_state, ref_pages, ref_paths, ref_seconds, ref_message = references.get(renderer, work, reference)
    result = {"area": area, "test": test, "reference": reference, "seconds": seconds, "pages": len(paths)}
    if state != "ok":
        result.update(outcome=state, message=message)
    elif ref_state != "ok":
        result.update(outcome=ref_state, message="reference: " + ref_message)
    else:
        match, differing = pages_match(load_pages(paths), ref_pages)
        result["differing_pixels"] = differing
        if not match:
            result["outcome"] = "fail"
        elif draws_subject(ref_pages):
            result["outcome"] = "pass"
        elif all((page == page[0, 0]).all() for page in ref_pages):
            result["outcome"] = "empty"  # blank pages: nothing was drawn, whatever the CSS did
        else:
            # Only running text on the reference: the match counts when the test's CSS changed
            # how the renderer drew it (text-transform, counters, white-space), not when the
            # renderer drew the test as if it had no style at all.
            stripped = without_css(renderer.suite, test)
            state, stripped_paths, _, _ = renderer.draw(stripped, output_folder(work, renderer.name, "without-css", test))
            plain = state == "ok" and pages_match(load_pages(paths), load_pages(stripped_paths))[0]
            result["outcome"] = "empty" if plain else "pass"
    return result


def run(renderer, work, tests, jobs):
    references = ReferenceCache()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_test, renderer, work, references, *test) for test in tests]
        for future in futures:
            results.append(future.result())
    drawn = [entry for entry in references.entries.values() if "result" in entry]
    ref_seconds = sum(entry["result"][3] for entry in drawn)
    ref_pages = sum(len(entry["result"][2]) for entry in drawn)
    seconds = sum(r["seconds"] for r in results) + ref_seconds
    pages = sum(r["pages"] for r in results) + ref_pages
    return results, seconds, pages


OUTCOMES = ["pass", "empty", "fail", "refused", "crash", "timeout"]


def tally(results):
    table = {}
    for result in results:
        counts = table.setdefault(result["area"], dict.fromkeys(OUTCOMES, 0))
        counts[result["outcome"]] += 1
    return table


def print_table(areas, tallies, timings):
    names = list(tallies)
    header = "| directory | tests | " + " | ".join(
        f"{name} pass | {name} empty | {name} fail | {name} refused/crash/timeout" for name in names) + " |"
    log("")
    log(header)
    log("| --- | ---: | " + " | ".join("---: | ---: | ---: | ---:" for _ in names) + " |")
    totals = {name: dict.fromkeys(OUTCOMES, 0) for name in names}
    for area in areas:
        cells = []
        count = 0
        for name in names:
            counts = tallies[name].get(area, dict.fromkeys(OUTCOMES, 0))
            count = max(count, sum(counts.values()))
            for outcome in OUTCOMES:
                totals[name][outcome] += counts[outcome]
            cells.append(f"{counts['pass']} | {counts['empty']} | {counts['fail']} | "
                         f"{counts['refused']}/{counts['crash']}/{counts['timeout']}")
        log(f"| {area} | {count} | " + " | ".join(cells) + " |")
    count = max(sum(t.values()) for t in totals.values())
    log(f"| **total** | {count} | " + " | ".join(
        f"**{t['pass']}** | {t['empty']} | {t['fail']} | {t['refused']}/{t['crash']}/{t['timeout']}"
        for t in totals.values()) + " |")
    log("")
    for name, (seconds, pages, note) in timings.items():
        log(f"{name}: {pages} pages in {seconds:.1f} s of drawing, {seconds / max(pages, 1):.3f} s a page{note}")


PROPERTY = re.compile(r"(?<![\w-])(-?[a-z][a-z-]*)\s*:\s*([^;}\"']*)")


def features(text):
    """The CSS properties a page sets (display with its value), from its style sheets and style
    attributes."""
    found = set()
    sources = [m.group(2) for m in STYLE.finditer(text)]
    sources += [m.group(1) or m.group(2) or "" for m in STYLE_ATTRIBUTE.finditer(text)]
    for source in sources:
        source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
        source = re.sub(r"[^{}]*\{", ";", source)  # selectors out, so a:hover is not a property
        for name, value in PROPERTY.findall(source):
            if name in ("display", "float", "position", "writing-mode", "box-sizing", "white-space"):
                found.add(f"{name}: {value.strip().split()[0] if value.strip() else ''}")
            else:
                found.add(name)
    return found


def print_causes(suite, results, name, limit=20):
    """The CSS features the tests that did not pass use most, beside how often the tests that
    use them pass: where to look first."""
    uses = {}
    for result in results:
        passed = result["outcome"] == "pass"
        for feature in features(read_text(os.path.join(suite, result["test"]))):
            counts = uses.setdefault(feature, [0, 0])
            counts[0 if passed else 1] += 1
    total_pass = sum(1 for r in results if r["outcome"] == "pass")
    rate = total_pass / max(len(results), 1)
    ranked = sorted(((failing, passing, feature) for feature, (passing, failing) in uses.items()
                     if passing / (passing + failing) < rate), reverse=True)[:limit]
    log(f"\n{name}: features of the {len(results) - total_pass} tests that did not pass (those passing less often than "
        f"the {rate:.0%} of all tests), by tests not passed")
    log("| feature | tests not passed | tests passed |")
    log("| --- | ---: | ---: |")
    for failing, passing, feature in ranked:
        log(f"| `{feature}` | {failing} | {passing} |")
    refusals = {}
    for result in results:
        if result["outcome"] in ("refused", "crash", "timeout"):
            reason = re.sub(r".*FAILED ", "", result.get("message", "")).split(":")[0] or result["outcome"]
            refusals[reason] = refusals.get(reason, 0) + 1
    if refusals:
        log("refused, crashed or timed out: " + ", ".join(f"{count} {reason}" for reason, count in
                                                        sorted(refusals.items(), key=lambda item: -item[1])))


def read_expected(path, known=None):
    """The expected list's tests. A line `~ test` is a known regression (a test that passed and
    stopped passing with a change that is kept, named in docs/css-reftests.md): it is drawn and
    reported, does not fail --check, and is said to pass again when it does; its name goes into
    `known` when given."""
    tests = []
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.split("#", 1)[0].strip()
            if line.startswith("~"):
                line = line[1:].strip()
                if known is not None and line:
                    known.add(line)
            if line:
                tests.append(line)
    return tests


def write_expected(path, results, suite_commit):
    passes = sorted(r["test"] for r in results if r["outcome"] == "pass")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(f"""# CSS reftests Galley passes honestly (scripts/wpt-reftests.py): the test and its reference
# draw the same pixels on a {PAGE_WIDTH_PT} x {PAGE_HEIGHT_PT} pt page at {DPI} dpi (channel tolerance {CHANNEL_TOLERANCE}, at most
# {PIXEL_TOLERANCE} differing pixels a page) and the reference draws what the test is about (a box,
# a rule, colour; or text that the test's CSS changes).
# Suite: w3c/csswg-test at {suite_commit or EXPECTED_COMMIT}.
# `python3 scripts/wpt-reftests.py --tests PATH --check` fails when one of these stops passing;
# `--all --update-expected` rewrites this list.
""")
        for test in passes:
            handle.write(test + "\n")
    return len(passes)


def galley_binary(given):
    for candidate in [given, os.path.join(ROOT, ".build", "release", "galley"), os.path.join(ROOT, ".build", "debug", "galley")]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def prepare_font():
    folder = os.path.join(CACHE, "fonts")
    font = os.path.join(folder, "Ahem.ttf")
    # Made each run (a fraction of a second, the same bytes), so a change to the script counts.
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-ahem.py"), font], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(folder, "fonts.conf"), "w") as handle:
        handle.write(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>{folder}</dir>
  <cachedir>{os.path.join(folder, 'cache')}</cachedir>
</fontconfig>
""")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tests", default=os.environ.get("GALLEY_CSS_TESTS"),
                        help="csswg-test checkout or git directory (default: $GALLEY_CSS_TESTS)")
    parser.add_argument("--ref", default=EXPECTED_COMMIT, help="commit to extract from a git directory")
    parser.add_argument("--galley", help="galley binary (default: .build/release/galley, else .build/debug/galley)")
    parser.add_argument("--weasyprint", action="store_true", help="also draw every test with WeasyPrint")
    parser.add_argument("--per-area", type=int, default=12, help="tests per directory, evenly spaced (default 12)")
    parser.add_argument("--all", action="store_true", help="every reftest of the directories")
    parser.add_argument("--only", action="append", help="regular expression on the test's path (repeatable)")
    parser.add_argument("--check", action="store_true", help="draw the expected list's tests; fail on any that no longer passes")
    parser.add_argument("--expected", default=EXPECTED, help="the expected list (default tests/css-reftests-expected.txt)")
    parser.add_argument("--update-expected", action="store_true", help="write Galley's passes to the expected list")
    parser.add_argument("--timeout", type=float, default=30, help="seconds a page may take (default 30)")
    parser.add_argument("--jobs", type=int, default=2, help="tests drawn at once (default 2)")
    parser.add_argument("--list-failures", action="store_true", help="print every test that did not pass")
    parser.add_argument("--out", default=os.path.join(CACHE, "pages"),
                        help="folder for the pages and results.json (default .build-bench/css-reftests/pages)")
    parser.add_argument("--causes", action="store_true", help="print the CSS features of the tests that did not pass")
    arguments = parser.parse_args()

    if not arguments.tests:
        log("wpt-reftests: skipped: no copy of the CSS reftests; pass --tests PATH or set GALLEY_CSS_TESTS to a "
            "checkout or git directory of w3c/csswg-test (no Debian or PyPI package ships them)")
        return 0
    suite, problem = suite_folder(os.path.abspath(arguments.tests), arguments.ref)
    if suite is None:
        log(f"wpt-reftests: {problem}")
        return 2
    need_numpy()
    galley = galley_binary(arguments.galley)
    if galley is None:
        log("wpt-reftests: no galley binary; build one with `bash scripts/build-release.sh` or pass --galley")
        return 2
    suite_commit = None
    stamp = os.path.join(suite, ".extracted")
    if os.path.exists(stamp):
        suite_commit = open(stamp).read().strip()

    if arguments.check:
        known = set()
        expected = read_expected(arguments.expected, known)
        missing = [test for test in expected if not os.path.isfile(os.path.join(suite, test))]
        tests = []
        for test in expected:
            if test in missing:
                continue
            reference = reference_of(os.path.join(suite, test))
            area = next((a for a, _ in AREAS if test.startswith(a + "/")), os.path.dirname(test))
            tests.append((area, test, os.path.relpath(reference, suite) if reference else test))
    else:
        tests = select(suite, None if arguments.all else arguments.per_area, arguments.only)
    if not tests:
        log("wpt-reftests: no reftests selected")
        return 0 if arguments.check else 1

    prepare_font()
    work = os.path.abspath(arguments.out)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    renderers = [Galley(galley, work, suite, arguments.timeout)]
    if arguments.weasyprint:
        python, why = WeasyPrint.prepare(work)
        if python is None:
            log(f"wpt-reftests: WeasyPrint skipped: {why}")
        else:
            renderers.append(WeasyPrint(python, work, suite, arguments.timeout))

    log(f"wpt-reftests: {len(tests)} reftests from {suite}; page {PAGE_WIDTH_PT} x {PAGE_HEIGHT_PT} pt at {DPI} dpi; "
        f"a pixel differs past {CHANNEL_TOLERANCE} levels, a page matches with at most {PIXEL_TOLERANCE} such pixels")
    tallies, timings, everything = {}, {}, {}
    for renderer in renderers:
        results, seconds, pages = run(renderer, work, tests, arguments.jobs)
        tallies[renderer.name] = tally(results)
        if isinstance(renderer, Galley):
            drawn = [r["test"] for r in results if r["outcome"] in ("pass", "empty", "fail")]
            batch, batch_pages = renderer.batch_seconds(drawn)
            note = (f" (a process a page, its start included); one process drawing {batch_pages} of them: "
                    f"{batch / max(batch_pages, 1):.3f} s a page") if batch_pages else ""
        else:
            note = (f" (a running worker; pdftoppm included); layout and PDF alone: "
                    f"{renderer.pdf_seconds / max(pages, 1):.3f} s a page")
        timings[renderer.name] = (seconds, pages, note)
        everything[renderer.name] = results
    areas = list(dict.fromkeys(test[0] for test in tests))
    print_table(areas, tallies, timings)
    with open(os.path.join(work, "results.json"), "w") as handle:
        json.dump({"suite": suite, "commit": suite_commit, "results": everything}, handle, indent=1)
    log(f"wpt-reftests: each test's outcome in {os.path.join(work, 'results.json')}, the pages beside it")
    if arguments.list_failures:
        for name, results in everything.items():
            for result in results:
                if result["outcome"] != "pass":
                    log(f"  {name} {result['outcome']:8} {result['test']} {result.get('message', '')}".rstrip())

    if arguments.causes:
        for name, results in everything.items():
            print_causes(suite, results, name)
    galley_results = everything["galley"]
    if arguments.update_expected:
        count = write_expected(arguments.expected, galley_results, suite_commit)
        log(f"wpt-reftests: {count} passing tests written to {arguments.expected}")
    if arguments.check:
        failing = [r for r in galley_results if r["outcome"] != "pass"]
        regressions = [r for r in failing if r["test"] not in known]
        for result in failing:
            kind = "known regression" if result["test"] in known else "REGRESSION"
            log(f"wpt-reftests: {kind} {result['test']}: {result['outcome']} {result.get('message', '')}".rstrip())
        for result in galley_results:
            if result["test"] in known and result["outcome"] == "pass":
                log(f"wpt-reftests: passes again: {result['test']} (take the ~ off its line)")
        for test in missing:
            log(f"wpt-reftests: MISSING {test}: not in {suite} (the list is of csswg-test {EXPECTED_COMMIT[:12]})")
        passed = len(galley_results) - len(failing)
        log(f"css-reftests: {passed} passed, {len(regressions) + len(missing)} failed"
            + (f", {len(failing) - len(regressions)} known regressions still failing" if failing != regressions else ""))
        return 1 if regressions or missing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
