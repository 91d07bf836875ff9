#!/usr/bin/env bash
# Installs galley into a prefix: bin/galley, its man page, bash, zsh and fish completions,
# the JSON schemas (share/galley/schemas) and the desktop thumbnailer entry.
#
#   bash install.sh [PREFIX]      (default /usr/local as root, else ~/.local)
#
# Run from an unpacked release tarball (dist/galley-*.tar.gz), it installs what the tarball
# holds; run from the repository (scripts/install.sh), it first builds and stages a release
# with scripts/build-release.sh --package. Installing again replaces the same files; nothing
# else under PREFIX is touched.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$here/bin/galley" ]; then
  source=$here
else
  root=$(cd "$here/.." && pwd)
  bash "$root/scripts/build-release.sh" --package >/dev/null
  source=$(ls -d "$root"/.build/package/galley-*/ | sort | tail -1)
  source=${source%/}
fi
default_prefix=$HOME/.local
[ "$(id -u)" = 0 ] && default_prefix=/usr/local
prefix=${1:-$default_prefix}
prefix=$(mkdir -p "$prefix" && cd "$prefix" && pwd)

install -D -m 755 "$source/bin/galley" "$prefix/bin/galley"
install -D -m 644 "$source/share/man/man1/galley.1" "$prefix/share/man/man1/galley.1"
install -D -m 644 "$source/share/bash-completion/completions/galley" "$prefix/share/bash-completion/completions/galley"
install -D -m 644 "$source/share/zsh/site-functions/_galley" "$prefix/share/zsh/site-functions/_galley"
install -D -m 644 "$source/share/fish/vendor_completions.d/galley.fish" "$prefix/share/fish/vendor_completions.d/galley.fish"
install -d "$prefix/share/galley/schemas"
install -m 644 "$source"/share/galley/schemas/*.json "$prefix/share/galley/schemas/"
# The thumbnailer names the installed binary by its full path: file managers do not search PATH
# the way a shell does.
install -d "$prefix/share/thumbnailers"
sed -e "s|^TryExec=galley$|TryExec=$prefix/bin/galley|" -e "s|^Exec=galley |Exec=$prefix/bin/galley |" \
  "$source/share/thumbnailers/galley.thumbnailer" > "$prefix/share/thumbnailers/galley.thumbnailer.tmp"
mv -f "$prefix/share/thumbnailers/galley.thumbnailer.tmp" "$prefix/share/thumbnailers/galley.thumbnailer"
echo "install: galley $("$prefix/bin/galley" --version | head -1 | cut -d' ' -f2-) in $prefix (man galley, completions for bash, zsh and fish)"
