#!/usr/bin/env bash
# Makes Galley the thumbnailer of PDFs, HTML and text files for GNOME Files, Nautilus, Nemo
# and other file managers that read freedesktop.org .thumbnailer entries.
#
#   bash scripts/install-thumbnailer.sh [PREFIX]
#
# Installs share/thumbnailers/galley.thumbnailer into PREFIX/share/thumbnailers (default
# ~/.local, or /usr/local when run as root), with Exec= naming the galley binary by its full
# path: the galley on PATH, else the release build (bash scripts/build-release.sh). Running it
# again replaces the entry with the same one. File managers read the entry at their next start
# (nautilus -q); thumbnails already cached are not redrawn until their file changes.
#
# GNOME Files (Nautilus) runs thumbnailers in a bubblewrap sandbox that sees /usr (so
# /usr/local/bin too) but not home folders: a galley under ~/.local or a clone in your home
# cannot run there. A galley under /usr/local/bin or /usr/bin is preferred to the one on PATH;
# when the binary chosen is outside /usr the script says so (the entry still works for Nemo,
# Thunar and Caja, which do not sandbox thumbnailers). For GNOME Files:
#   sudo bash scripts/install.sh /usr/local && sudo bash scripts/install-thumbnailer.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
default_prefix=$HOME/.local
[ "$(id -u)" = 0 ] && default_prefix=/usr/local
prefix=${1:-$default_prefix}

galley=
for candidate in /usr/local/bin/galley /usr/bin/galley; do
  if [ -x "$candidate" ]; then galley=$candidate; break; fi
done
[ -n "$galley" ] || galley=$(command -v galley || true)
[ -n "$galley" ] || galley=$root/.build/release/galley
if [ ! -x "$galley" ]; then
  echo "install-thumbnailer: no galley on PATH and no release build; run bash scripts/build-release.sh first" >&2
  exit 2
fi
galley=$(cd "$(dirname "$galley")" && pwd)/$(basename "$galley")

folder=$prefix/share/thumbnailers
mkdir -p "$folder"
temporary=$(mktemp "$folder/.galley.thumbnailer.XXXXXX")
sed -e "s|^TryExec=galley$|TryExec=$galley|" -e "s|^Exec=galley |Exec=$galley |" \
  "$root/share/thumbnailers/galley.thumbnailer" > "$temporary"
chmod 644 "$temporary"
mv -f "$temporary" "$folder/galley.thumbnailer"
echo "install-thumbnailer: $folder/galley.thumbnailer (Exec=$galley thumbnail -s %s %i %o)"
real=$(readlink -f "$galley")
case "$real" in
  /usr/*) ;;
  *)
    echo "install-thumbnailer: warning: $real is outside /usr: GNOME Files (Nautilus) runs thumbnailers in a sandbox" \
      "that sees /usr but not $(dirname "$real"), so it will show no Galley thumbnails (Nemo, Thunar and Caja will)." \
      "For GNOME Files: sudo bash scripts/install.sh /usr/local && sudo bash scripts/install-thumbnailer.sh" >&2
    ;;
esac
