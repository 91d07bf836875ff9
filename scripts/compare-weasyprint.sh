#!/usr/bin/env bash
# Sets real documentation pages with Galley and with WeasyPrint in the same magazine layout
# (A4, two columns 18 pt apart, 54 pt margins, DejaVu Serif 11 pt, hyphenated English, justified)
# and writes each page of both side by side, Galley on the left, as PNGs to look at:
#
#   bash scripts/compare-weasyprint.sh [HTML_FILE...]
#
# Without files it takes four pages of the Python library reference from the real-documents
# corpus (bash scripts/real-documents.sh downloads it; this script does too when it is
# missing). Output: .build-bench/weasyprint/side-by-side/<page>-NNN.png, and a table of pages
# and times per document. WeasyPrint (PyPI) and Pillow go into a virtual environment in
# .build-bench/weasyprint/venv; Pango, which WeasyPrint needs, is installed from Debian. Needs
# a release build (bash scripts/build-release.sh) and mutool (the install script's
# mupdf-tools), which draws WeasyPrint's PDF at the same resolution as Galley's pages.
#
# WeasyPrint justifies every line (CSS has no threshold) and Galley justifies the lines at
# least 0.8 of the measure with optimal breaking: the pictures show how each sets the same
# text, not a pixel comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/.build-bench/weasyprint"
dpi=${DPI:-96}

if ! dpkg -s libpango-1.0-0 libpangoft2-1.0-0 >/dev/null 2>&1; then
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get install -y libpango-1.0-0 libpangoft2-1.0-0 >/dev/null
fi
if ! "$work/venv/bin/python" -c 'import weasyprint, pydyf, PIL; assert pydyf.__version__ == "0.10.0"' 2>/dev/null; then
  python3 -m venv "$work/venv"
  # WeasyPrint 62 writes its PDF through pydyf's API before 0.11.
  "$work/venv/bin/pip" install -q 'weasyprint==62.3' 'pydyf==0.10.0' 'pillow>=10,<12'
fi

pages=("$@")
if [ ${#pages[@]} -eq 0 ]; then
  library="$root/.build-bench/real/unpacked/usr/share/doc/python3.11/html/library"
  [ -d "$library" ] || bash scripts/real-documents.sh >/dev/null
  for name in json string itertools logging; do pages+=("$library/$name.html"); done
fi

rm -rf "$work/in" "$work/galley" "$work/weasyprint" "$work/side-by-side"
mkdir -p "$work/in" "$work/weasyprint" "$work/side-by-side"
for page in "${pages[@]}"; do
  # Beside the page's own folder, so its style sheets and pictures resolve as they do there.
  cp "$page" "$work/in/$(basename "$page")"
  for assets in _static images; do
    for dir in "$(dirname "$page")" "$(dirname "$(dirname "$page")")"; do
      if [ -d "$dir/$assets" ] && [ ! -e "$work/$assets" ]; then cp -rL "$dir/$assets" "$work/$assets" 2>/dev/null || true; fi
    done
  done
done

cat > "$work/pipeline.yml" <<YAML
inputs: [in]
output: galley
dpi: $dpi
thumbnails: []
layouts:
  - name: magazine
    page: a4
    columns: 2
    column_gap: 18
    inset: 54
    font_family: DejaVu Serif
    font_size: 11
    justify_threshold: 0.8
    hyphenation: true
    language: en
    line_breaking: optimal
    preformatted_marker: "↪"
YAML
cat > "$work/magazine.css" <<'CSS'
@page { size: A4; margin: 54pt }
html { font-family: "DejaVu Serif"; font-size: 11pt }
body { columns: 2; column-gap: 18pt; margin: 0; text-align: justify; hyphens: auto }
pre, code { font-family: "DejaVu Sans Mono" }
h1, h2, h3, h4, h5, h6, pre { text-align: start; hyphens: manual }
CSS

start=$(date +%s%N)
"$root/.build/release/galley" run --config "$work/pipeline.yml" >/dev/null 2>"$work/galley.log" || true
galley_ms=$(( ($(date +%s%N) - start) / 1000000 ))

printf '| page | Galley pages | WeasyPrint pages | WeasyPrint ms |\n| --- | ---: | ---: | ---: |\n'
for page in "${pages[@]}"; do
  name=$(basename "$page" .html)
  start=$(date +%s%N)
  "$work/venv/bin/weasyprint" -q --base-url "$work/in/" -s "$work/magazine.css" -e utf-8 --media-type print \
    "$work/in/$name.html" "$work/weasyprint/$name.pdf" 2>>"$work/weasyprint.log" || true
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  mkdir -p "$work/weasyprint/$name"
  if [ -f "$work/weasyprint/$name.pdf" ]; then
    mutool draw -q -r "$dpi" -o "$work/weasyprint/$name/page-%04d.png" "$work/weasyprint/$name.pdf"
  fi
  ours=$(ls "$work/galley/$name/magazine"/page-*.png 2>/dev/null | wc -l)
  theirs=$(ls "$work/weasyprint/$name"/page-*.png 2>/dev/null | wc -l)
  printf '| %s | %d | %d | %d |\n' "$name" "$ours" "$theirs" "$ms"
done
echo "Galley: all ${#pages[@]} documents in ${galley_ms} ms (one run, dpi $dpi, pages drawn and encoded)"

"$work/venv/bin/python" - "$work" <<'PY'
import os, sys
from PIL import Image
work = sys.argv[1]
count = 0
for name in sorted(os.listdir(os.path.join(work, "weasyprint"))):
    theirs_dir = os.path.join(work, "weasyprint", name)
    ours_dir = os.path.join(work, "galley", name, "magazine")
    if not os.path.isdir(theirs_dir):
        continue
    ours = sorted(f for f in os.listdir(ours_dir) if f.startswith("page-")) if os.path.isdir(ours_dir) else []
    theirs = sorted(f for f in os.listdir(theirs_dir) if f.startswith("page-"))
    for i in range(max(len(ours), len(theirs))):
        left = Image.open(os.path.join(ours_dir, ours[i])).convert("RGB") if i < len(ours) else None
        right = Image.open(os.path.join(theirs_dir, theirs[i])).convert("RGB") if i < len(theirs) else None
        w = (left or right).width + (right or left).width + 12
        h = max(x.height for x in (left, right) if x)
        sheet = Image.new("RGB", (w, h), (128, 128, 128))
        if left:
            sheet.paste(left, (0, 0))
        if right:
            sheet.paste(right, ((left or right).width + 12, 0))
        sheet.save(os.path.join(work, "side-by-side", f"{name}-{i + 1:03d}.png"))
        count += 1
print(f"{count} side-by-side pages (Galley left, WeasyPrint right) in {os.path.join(work, 'side-by-side')}")
PY
