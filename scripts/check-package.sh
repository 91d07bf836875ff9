#!/usr/bin/env bash
# Checks the release tarball as a user would meet it: builds it (scripts/build-release.sh
# --package), unpacks it into an empty folder, installs it into an empty prefix with its own
# install.sh, and then, with nothing of the build on PATH:
#   - every shared library the installed galley links (readelf NEEDED, found with ldd) comes
#     from a package README.md names as a runtime package (dpkg -S); apt brings their own;
#   - galley --version names the commit; the man page renders; the bash completion loads;
#   - galley run draws the bundled fixtures from a copy of pipeline.yml into a fresh folder,
#     exit 0, and galley thumbnail writes a PNG;
#   - packing the same build twice gives the same bytes (staging, dates, names, owners and
#     gzip are deterministic).
# Prints what it checked; exits 1 on the first failure. Run by .ci/run.
#
#   bash scripts/check-package.sh                  as CI runs it: one release build
#   bash scripts/check-package.sh --independent    also a second release build from nothing (in
#                                                  .build-repro) must give the same tarball: the
#                                                  compiler's output is reproducible too. About
#                                                  three minutes more on two cores, so not in CI.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fail() { echo "check-package: FAILED: $*" >&2; exit 1; }

independent=false
case "${1:-}" in
  --independent) independent=true ;;
  "") ;;
  *) echo "usage: bash scripts/check-package.sh [--independent]" >&2; exit 2 ;;
esac

bash scripts/build-release.sh --package >/dev/null
tarball=$(ls dist/galley-*.tar.gz | sort | tail -1)
first=$(sha256sum "$tarball" | cut -d' ' -f1)
# The second pass finds the build up to date (SwiftPM compiles nothing) and packs it again.
bash scripts/build-release.sh --package >/dev/null
[ "$(sha256sum "$tarball" | cut -d' ' -f1)" = "$first" ] || fail "packing the same build twice gave two different $tarball"
echo "check-package: the same build packs to the same bytes ($first)"
if $independent; then
  rm -rf .build-repro
  bash scripts/build-release.sh --package --scratch-path .build-repro >/dev/null
  [ "$(sha256sum "$tarball" | cut -d' ' -f1)" = "$first" ] || fail "a second, independent release build (.build-repro) packs to other bytes than the first"
  echo "check-package: an independent second build packs to the same bytes"
  bash scripts/build-release.sh --package >/dev/null  # dist/ holds the first build's tarball again
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/unpacked" "$work/prefix" "$work/job"
tar xzf "$tarball" -C "$work/unpacked"
bash "$work"/unpacked/galley-*/install.sh "$work/prefix" >/dev/null
export PATH="$work/prefix/bin:/usr/bin:/bin"
galley=$work/prefix/bin/galley
[ "$(command -v galley)" = "$galley" ] || fail "the installed galley is not the one on PATH"

# Runtime packages: the README's list, between its markers.
listed=$(sed -n '/<!-- runtime-packages -->/,/<!-- \/runtime-packages -->/p' README.md | grep -o '`[a-z0-9.+-]*`' | tr -d '`' | sort -u)
[ -n "$listed" ] || fail "README.md lists no runtime packages between <!-- runtime-packages --> markers"
missing=""
while read -r soname; do
  case $soname in ld-linux*|libc.so.*|libm.so.*|libgcc_s.so.*) continue ;; esac  # libc6, libgcc-s1: in every system
  path=$(ldd "$galley" | awk -v s="$soname" '$1 == s { print $3 }')
  [ -n "$path" ] || fail "galley needs $soname, which is not installed"
  package=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1 || true)
  # Merged /usr: the package may own the library under /lib.
  [ -n "$package" ] || package=$(dpkg -S "*/$(basename "$(readlink -f "$path")")" 2>/dev/null | head -1 | cut -d: -f1 || true)
  case $package in libc6|libgcc-s1) continue ;; esac
  echo "$listed" | grep -qx "$package" || missing="$missing ${package:-?}($soname)"
done < <(readelf -d "$galley" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -z "$missing" ] || fail "libraries from packages README.md does not name:$missing"
echo "check-package: every library galley links comes from a runtime package README.md names"

"$galley" --version | head -1 | grep -q "(commit " || fail "galley --version names no commit"
MANWIDTH=80 man -l "$work/prefix/share/man/man1/galley.1" 2>/dev/null | grep -q "Draw the pages of the given files" || fail "the man page does not render, or lacks galley render"
bash -c "source '$work/prefix/share/bash-completion/completions/galley' && complete -p galley" >/dev/null \
  || fail "the bash completion does not load"
echo "check-package: --version, man page and bash completion"

cp -r fixtures pipeline.yml "$work/job/"
(cd "$work/job" && galley run --progress none >/dev/null) || fail "galley run on the bundled fixtures"
[ -f "$work/job/out/manifest.json" ] || fail "no manifest"
galley thumbnail -s 128 "$work/job/fixtures/pdf/article.pdf" "$work/job/thumb.png" || fail "galley thumbnail"
echo "check-package: the installed galley runs the bundled job and makes a thumbnail"
