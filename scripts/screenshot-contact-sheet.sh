#!/usr/bin/env bash
# Screenshots a contact sheet (an output folder's index.html) in headless Chromium, as a
# person opening the CI artifact would see it:
#   bash scripts/screenshot-contact-sheet.sh [--dark] [--fragment ID] [--dump-dom] PAGE OUT [WIDTH] [HEIGHT]
# --dark asks for the dark colour scheme (prefers-color-scheme: dark), --fragment opens
# PAGE#ID (index.html#filter-failed: the sheet filtered; #view-...: a page in the viewer),
# --dump-dom writes the document as it stands after 10 s (virtual time) to OUT instead of a
# screenshot. Chromium comes from Debian's packages (scripts/install-deps.sh). The page needs
# no network; --no-sandbox lets it run as root in containers. Headless Chromium loads
# loading="lazy" images at once unless lazyLoadEnabled is set, which a person's browser has.
set -euo pipefail
scheme=1   # Blink's preferredColorScheme: 0 dark, 1 light
fragment=""
mode=screenshot
while [ $# -gt 0 ]; do
  case "$1" in
    --dark) scheme=0; shift ;;
    --fragment) fragment="#$2"; shift 2 ;;
    --dump-dom) mode=dom; shift ;;
    --) shift; break ;;
    -*) echo "screenshot-contact-sheet: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
page=$(realpath "$1")
shot=$(realpath -m "$2")
width=${3:-1280}
height=${4:-1600}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "screenshot-contact-sheet: chromium is not installed; run scripts/install-deps.sh" >&2
  exit 2
fi
profile=$(mktemp -d)
log="$profile.log"
trap 'rm -rf "$profile" "$log"' EXIT
# A file: URL with the path percent-encoded (spaces, #, %).
url=$(python3 -c 'import pathlib, sys; print(pathlib.Path(sys.argv[1]).as_uri())' "$page")$fragment
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-extensions
  --user-data-dir="$profile" --allow-file-access-from-files --virtual-time-budget=10000
  --blink-settings=lazyLoadEnabled=true,preferredColorScheme=$scheme --window-size="$width,$height")
if [ "$mode" = dom ]; then
  "$browser" "${flags[@]}" --dump-dom "$url" >"$shot" 2>"$log" || true
  if ! grep -q '</html>' "$shot"; then
    echo "screenshot-contact-sheet: chromium wrote no document for $url:" >&2
    tail -20 "$log" >&2
    exit 1
  fi
  echo "$shot"
  exit 0
fi
rm -f "$shot"
"$browser" "${flags[@]}" --screenshot="$shot" "$url" >"$log" 2>&1 || true
if [ ! -s "$shot" ]; then
  echo "screenshot-contact-sheet: chromium wrote no screenshot of $url:" >&2
  tail -20 "$log" >&2
  exit 1
fi
echo "$shot"
