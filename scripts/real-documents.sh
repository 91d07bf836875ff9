#!/usr/bin/env bash
# Runs galley over real documents it has never seen: PDFs and HTML pages from Debian's
# documentation packages (downloaded with apt-get download, unpacked with dpkg-deb into
# .build-bench/real/, never committed), and checks what a user would: the exit status is 0, 1
# or 2 (never a signal), every failed document has a code and a message, and every PDF that
# succeeds has the page count `mutool draw` draws.
#
#   bash scripts/real-documents.sh [HTML_PAGES]   (default 40 HTML pages, spread over the packages)
#
# Needs a release build (bash scripts/build-release.sh) and network access to Debian's mirror.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/.build-bench/real"
html_pages=${1:-40}
packages=(debian-reference-en debian-policy developers-reference maint-guide ghostscript-doc python3.11-doc)

mkdir -p "$work/debs" "$work/unpacked"
cd "$work/debs"
for p in "${packages[@]}"; do
  ls "$p"_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null 2>&1 || { echo "real-documents: cannot download $p"; exit 2; }
done
for deb in *.deb; do dpkg-deb -x "$deb" "$work/unpacked"; done

corpus="$work/corpus"
rm -rf "$corpus" && mkdir -p "$corpus/pdf" "$corpus/html"
find "$work/unpacked" -name '*.pdf' -exec cp {} "$corpus/pdf/" \;
# HTML pages spread evenly over the sorted list, kept at their paths under the package, with
# the style sheets and pictures beside them (`_static`, `images` in their folder and the one
# above), so that what the pages link to is there as it is on a reader's disk.
mapfile -t all < <(find "$work/unpacked" -name '*.html' | LC_ALL=C sort)
step=$(( ${#all[@]} / html_pages )); [ "$step" -ge 1 ] || step=1
n=0
for ((i = 0; i < ${#all[@]} && n < html_pages; i += step)); do
  src=${all[$i]}
  rel=${src#"$work/unpacked/"}
  mkdir -p "$corpus/html/$(dirname "$rel")"
  cp "$src" "$corpus/html/$rel"
  for dir in "$(dirname "$src")" "$(dirname "$(dirname "$src")")"; do
    for assets in _static images; do
      [ -d "$dir/$assets" ] || continue
      target="$corpus/html/${dir#"$work/unpacked/"}/$assets"
      [ -d "$target" ] || { mkdir -p "$(dirname "$target")"; cp -rL "$dir/$assets" "$target" 2>/dev/null || true; }
    done
  done
  n=$((n + 1))
done

cat > "$work/pipeline.yml" <<YAML
inputs: [corpus]
output: out
dpi: 96
thumbnails: [128]
layouts:
  - name: portrait
    columns: 2
    justify_threshold: 0.8
    hyphenation: true
    language: en
  - name: landscape
    page: a4
    orientation: landscape
    columns: 3
YAML
cd "$work"
rm -rf out
status=0
/usr/bin/time -f "%e s, %M KB peak" "$root/.build/release/galley" run --config pipeline.yml --progress none > run.log 2> run.err || status=$?
tail -n 1 run.err
grep -v '^  failed' run.log | head -n 3
case $status in
  0|1|2) ;;
  *) echo "real-documents: galley ended with status $status (a signal?)"; tail -n 20 run.err; exit 1 ;;
esac
python3 - "$work" <<'PY'
import json, os, subprocess, sys, tempfile
work = sys.argv[1]
manifest = json.load(open(os.path.join(work, "out", "manifest.json")))
problems = 0
for d in manifest["documents"]:
    if d["status"] == "failed":
        e = d.get("error") or {}
        print("failed: %s: %s: %s" % (d["source"], e.get("code"), e.get("message", "")[:160]))
        if not e.get("code") or not e.get("message"):
            problems += 1
    if d["kind"] == "pdf" and d["status"] == "ok":
        with tempfile.TemporaryDirectory() as t:
            subprocess.run(["mutool", "draw", "-q", "-r", "9", "-o", os.path.join(t, "p%d.png"),
                            os.path.join(work, "corpus", d["source"])], capture_output=True)
            drawn = len(os.listdir(t))
        ok = drawn == len(d["pages"])
        problems += not ok
        print("pdf %s: galley %d pages, mutool draw %d%s" % (d["source"], len(d["pages"]), drawn, "" if ok else "  <-- differs"))
t = manifest["totals"]
print("real-documents: %d documents, %d ok, %d failed, %d pages; %d problem(s)"
      % (t["documents"], t["ok"], t["failed"], t["pages"], problems))
sys.exit(1 if problems else 0)
PY
