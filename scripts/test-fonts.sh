#!/usr/bin/env bash
# Writes a fontconfig configuration that sees only the fonts the install script installs
# (the files of fonts-dejavu-core, fonts-dejavu-extra, fonts-noto-cjk, and Liberation Serif of
# fonts-liberation2) with the system's matching rules, and
# prints its path: the tests export it as FONTCONFIG_FILE, so extra fonts on a developer's
# machine (Noto Sans Mono pulled in by a browser, URW, Liberation, a user's ~/.fonts) change
# no test's result. Idempotent; the configuration and its cache live in .build/test-fonts/.
set -euo pipefail
cd "$(dirname "$0")/.."
folder="$(pwd)/.build/test-fonts"
mkdir -p "$folder/cache"
conf="$folder/fonts.conf"
# The packages' font files, linked one by one under their own paths (so they sort as they
# do where they are installed): not their folders, which other packages also fill
# (fonts-noto-cjk-extra's weights go beside fonts-noto-cjk's, fonts-noto-core's beside others).
files="$folder/files"
rm -rf "$files.tmp"
dpkg -L fonts-dejavu-core fonts-dejavu-extra fonts-noto-cjk 2>/dev/null | grep -E '\.(ttf|ttc|otf)$' |
  while read -r font; do
    mkdir -p "$files.tmp$(dirname "$font")"
    ln -s "$font" "$files.tmp$font"
  done
# Replaced only when the packages changed: a suite already running keeps its fonts.
if [ -d "$files" ] && diff -q <(cd "$files" && find . | sort) <(cd "$files.tmp" && find . | sort) > /dev/null; then
  rm -rf "$files.tmp"
else
  rm -rf "$files"
  mv "$files.tmp" "$files"
fi
{
  echo '<?xml version="1.0"?>'
  echo '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">'
  echo '<fontconfig>'
  find "$files" -type l -printf '%h\n' | sort -u | while read -r dir; do echo "  <dir>$dir</dir>"; done
  # Liberation Serif alone of fonts-liberation2 (a Times-metric font for SVG text in the PDF),
  # so that requests for Helvetica or Arial still get DejaVu as before.
  mkdir -p "$folder/times"
  for font in $(dpkg -L fonts-liberation2 2>/dev/null | grep -E '/LiberationSerif-[A-Za-z]+\.ttf$'); do
    ln -sf "$font" "$folder/times/"
  done
  echo "  <dir>$folder/times</dir>"
  echo "  <cachedir>$folder/cache</cachedir>"
  # The system's rules (generic families, language preferences, hinting), without those that
  # add font folders or other files: the user's and the machine's own (50-user.conf,
  # 51-local.conf), and any a package adds (TeX Live's 09-texlive-fonts.conf lists its fonts).
  for rule in /etc/fonts/conf.d/*.conf; do
    grep -qE '<(dir|include)[ >]' "$rule" || echo "  <include ignore_missing=\"yes\">$rule</include>"
  done
  echo '</fontconfig>'
} > "$conf.tmp"
mv "$conf.tmp" "$conf"
echo "$conf"
