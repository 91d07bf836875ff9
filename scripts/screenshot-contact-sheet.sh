#!/usr/bin/env bash
# Screenshots a contact sheet (an output folder's index.html) in headless Chromium, as a
# person opening the CI artifact would see it:
#   bash scripts/screenshot-contact-sheet.sh out/index.html shot.png [WIDTH] [HEIGHT]
# Chromium comes from Debian's packages (scripts/install-deps.sh). The page needs no network;
# --no-sandbox lets it run as root in containers.
set -euo pipefail
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
url=$(python3 -c 'import pathlib, sys; print(pathlib.Path(sys.argv[1]).as_uri())' "$page")
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --disable-extensions \
  --user-data-dir="$profile" --allow-file-access-from-files --virtual-time-budget=5000 \
  --window-size="$width,$height" --screenshot="$shot" "$url" >"$log" 2>&1 || true
if [ ! -s "$shot" ]; then
  echo "screenshot-contact-sheet: chromium wrote no screenshot of $url:" >&2
  tail -20 "$log" >&2
  exit 1
fi
echo "$shot"
