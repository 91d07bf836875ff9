#!/usr/bin/env bash
# Writes a fontconfig configuration that sees only the fonts the install script installs
# (fonts-dejavu-core, fonts-dejavu-extra, fonts-noto-cjk, and Liberation Serif of fonts-liberation2) with the system's matching rules, and
# prints its path: the tests export it as FONTCONFIG_FILE, so extra fonts on a developer's
# machine (Noto Sans Mono pulled in by a browser, URW, Liberation, a user's ~/.fonts) change
# no test's result. Idempotent; the configuration and its cache live in .build/test-fonts/.
set -euo pipefail
cd "$(dirname "$0")/.."
folder="$(pwd)/.build/test-fonts"
mkdir -p "$folder/cache"
conf="$folder/fonts.conf"
{
  echo '<?xml version="1.0"?>'
  echo '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">'
  echo '<fontconfig>'
  dpkg -L fonts-dejavu-core fonts-dejavu-extra fonts-noto-cjk 2>/dev/null | grep -E '\.(ttf|ttc|otf)$' | xargs -r -n1 dirname | sort -u |
    while read -r dir; do echo "  <dir>$dir</dir>"; done
  # Liberation Serif alone of fonts-liberation2 (a Times-metric font for SVG text in the PDF),
  # so that requests for Helvetica or Arial still get DejaVu as before.
  mkdir -p "$folder/times"
  for font in $(dpkg -L fonts-liberation2 2>/dev/null | grep -E '/LiberationSerif-[A-Za-z]+\.ttf$'); do
    ln -sf "$font" "$folder/times/"
  done
  echo "  <dir>$folder/times</dir>"
  echo "  <cachedir>$folder/cache</cachedir>"
  # The system's rules (generic families, language preferences, hinting), without the ones
  # that add the user's or the machine's own font folders.
  for rule in /etc/fonts/conf.d/*.conf; do
    case "$(basename "$rule")" in
      50-user.conf | 51-local.conf) ;;
      *) echo "  <include ignore_missing=\"yes\">$rule</include>" ;;
    esac
  done
  echo '</fontconfig>'
} > "$conf.tmp"
mv "$conf.tmp" "$conf"
echo "$conf"
