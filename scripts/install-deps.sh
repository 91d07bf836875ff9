#!/usr/bin/env bash
# Installs every system package Galley needs to build, test and benchmark.
# Idempotent: packages already present are left alone, and apt is not touched at all
# when nothing is missing.
#
#   bash scripts/install-deps.sh [--conformance] [--slurm]
#
# --conformance also installs what the CSS conformance runner needs (scripts/wpt-reftests.py
# and scripts/make-ahem.py): fontTools, which builds the Ahem test font, and NumPy, which
# compares the pages; python3-venv for the virtual environment that WeasyPrint, its peer,
# is installed into from PyPI when the runner is asked for it.
#
# --slurm also installs a one-node Slurm cluster's daemons and commands (slurmctld, slurmd,
# sbatch: Debian's slurm-wlm) and MUNGE, the authentication they need, for scripts/try-slurm.sh.
set -euo pipefail

packages=(
  # build
  pkg-config
  # PDF rendering: Debian's MuPDF is static only, so its private dependencies are needed too
  libmupdf-dev libmujs-dev libgumbo-dev libopenjp2-7-dev libjbig2dec0-dev libjpeg-dev
  libharfbuzz-dev libfreetype-dev zlib1g-dev
  # PNG output: libpng (decoding, and the streaming writer of banded pages); libdeflate
  # compresses whole in-memory images in one call
  libpng-dev libdeflate-dev
  # WebP, JPEG and AVIF output (format: in pipeline.yml); libavif encodes with libaom
  libwebp-dev libjpeg62-turbo-dev libavif-dev
  # the catalog: GRDB links the system's SQLite; content hashes (SHA-256, MD5) from OpenSSL's libcrypto
  libsqlite3-dev libssl-dev
  # article typesetting: font matching, line breaking (UAX #14), and the fonts the layout
  # goldens and pixel tests are made with (DejaVu for Latin, Greek, Cyrillic; Noto CJK)
  # and bidirectional text (UAX #9)
  libfontconfig-dev libunibreak-dev libfribidi-dev fonts-dejavu-core fonts-dejavu-extra fonts-noto-cjk
  # automatic hyphenation: libhyphen and its pattern dictionaries (English, German, French, Spanish, Italian, Russian, Greek)
  libhyphen-dev hyphen-en-us hyphen-de hyphen-fr hyphen-es hyphen-it hyphen-ru hyphen-el
  # the language of text whose markup and layout give none, guessed from its letters (for
  # hyphenation): libexttextcat, LibreOffice's n-gram language guesser, and its fingerprints
  libexttextcat-dev
  # the vector painter: typeset articles written as PDF through cairo (its PDF surface and
  # FreeType font faces); CFF fonts are subset first with HarfBuzz's subsetter (libharfbuzz-dev
  # above brings libharfbuzz-subset)
  libcairo2-dev
  # SVG pictures drawn into that PDF as paths and text (librsvg draws onto cairo), where the
  # page images draw them with MuPDF; Liberation Serif, Sans and Mono have the metrics of Times,
  # Helvetica and Courier, the families graphviz and most SVG editors name (MuPDF draws them
  # with its own Nimbus fonts of the same metrics), so SVG labels fit their boxes in the PDF too
  librsvg2-dev fonts-liberation2
  # the release package: strip and readelf (binutils), man to check the man page renders;
  # PyYAML for scripts/run-action.py, which runs action.yml's steps in a test
  binutils man-db python3-yaml
  # jq: the last step of docs/review.md's GitHub Actions recipe, which CIRecipeTests runs
  jq
  # fixtures (mutool create, qpdf --encrypt, cjpeg) and tests (schema validation; PNGs checked
  # chunk by chunk with pngcheck and decoded by independent decoders: Pillow, netpbm's pngtopnm)
  mupdf-tools qpdf libjpeg-turbo-progs python3 python3-jsonschema pngcheck python3-pil netpbm
  # independent decoders of the other formats for the tests, and peers of the formats benchmark:
  # dwebp and cwebp (webp), djpeg and cjpeg (libjpeg-turbo-progs above), avifdec and avifenc
  webp libavif-bin
  # the Unicode data that scripts/make-vertical-orientation.py reads (UAX #50)
  unicode-data
  # headless browser for the contact sheet's screenshot test and scripts/screenshot-contact-sheet.sh
  chromium
  # benchmark peers and measurement
  poppler-utils libvips-tools time pango1.0-tools
  # strace: scripts/benchmark-shards.py counts the bytes read from the corpus with it
  strace
  # zzuf: mutated copies of the fixtures for scripts/mutate-run.sh (whole galley runs) and
  # scripts/fuzz-articles.sh (articles with invalid UTF-8 and control bytes)
  zzuf
)
for argument in "$@"; do
  case "$argument" in
    --conformance) packages+=(python3-fonttools python3-numpy python3-venv) ;;
    --slurm) packages+=(slurm-wlm munge) ;;
    *) echo "install-deps: unknown option $argument (known: --conformance, --slurm)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} system packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
