#!/usr/bin/env bash
# Builds the release `galley` that scripts/run.sh runs and the benchmarks measure:
# .build/release/galley, with the Swift runtime and Foundation linked in statically
# (--static-swift-stdlib). The binary then loads only the system's C libraries, which
# shortens every start (about 12 ms to 6 ms for `galley --version` on the development
# machine) and lets it run where no Swift toolchain is installed.
#
#   bash scripts/build-release.sh [--package] [swift build options...]
#
# --package also stages .build/package/galley-VERSION-linux-ARCH/ (bin/galley, the man page,
# bash, zsh and fish completions, the JSON schemas, the thumbnailer entry, README.md and
# install.sh; under the --scratch-path folder when one is given) and packs it into dist/galley-VERSION-linux-ARCH.tar.gz. The tarball is
# reproducible: names sorted, owner root, every date the commit's (SOURCE_DATE_EPOCH when set).
# Unpacked anywhere, `./install.sh [PREFIX]` installs it; it needs only the runtime packages
# README.md names.
set -euo pipefail
cd "$(dirname "$0")/.."
package=false
options=()
for argument in "$@"; do
  if [ "$argument" = --package ]; then package=true; else options+=("$argument"); fi
done
# The commit `galley --version` names (Package.swift reads it), when this is a git checkout.
if commit=$(git rev-parse HEAD 2>/dev/null); then export GALLEY_COMMIT=$commit; fi
swift build -c release --static-swift-stdlib --product galley ${options[@]+"${options[@]}"}
$package || exit 0
# The build folder (.build/release, or under --scratch-path when one is given).
bin=$(swift build -c release --static-swift-stdlib ${options[@]+"${options[@]}"} --show-bin-path)
staging=$(cd "$bin/../.." && pwd)/package  # .build/package (SwiftPM's bin path is .build/<triple>/release)

# swift-argument-parser's man page generator, run on the built galley (the same tool its
# generate-manual plugin runs, without the plugin's second release build).
swift build -c release --static-swift-stdlib --product generate-manual ${options[@]+"${options[@]}"} >/dev/null
galley=$bin/galley
version=$("$galley" --version | head -1 | cut -d' ' -f2)
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
name=galley-$version-linux-$(uname -m)
stage=$staging/$name
rm -rf "$stage"
install -d "$stage/bin" "$stage/share/man/man1" "$stage/share/bash-completion/completions" \
  "$stage/share/zsh/site-functions" "$stage/share/fish/vendor_completions.d" "$stage/share/galley/schemas" \
  "$stage/share/thumbnailers" "$stage/share/doc/galley"
# Without its debugging symbols (the build's own binary keeps them): 154 MB to 129 MB for
# 0.1.0 (ls -l of both); symbol names stay, so crash backtraces still name functions.
install -m 755 "$galley" "$stage/bin/galley"
strip --strip-debug "$stage/bin/galley"
"$bin/generate-manual" "$stage/bin/galley" --date "$(date -u -d "@$epoch" +%F)" \
  --authors "Galley" -o "$stage/share/man/man1" >/dev/null
"$galley" --generate-completion-script bash > "$stage/share/bash-completion/completions/galley"
"$galley" --generate-completion-script zsh > "$stage/share/zsh/site-functions/_galley"
"$galley" --generate-completion-script fish > "$stage/share/fish/vendor_completions.d/galley.fish"
install -m 644 schemas/*.json "$stage/share/galley/schemas/"
install -m 644 share/thumbnailers/galley.thumbnailer "$stage/share/thumbnailers/"
install -m 644 README.md "$stage/share/doc/galley/"
install -m 755 scripts/install.sh "$stage/install.sh"
mkdir -p dist
find "$stage" -exec touch -h -d "@$epoch" {} +
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$staging" -cf - "$name" \
  | gzip -9 -n > "dist/$name.tar.gz.tmp"
mv "dist/$name.tar.gz.tmp" "dist/$name.tar.gz"
echo "build-release: dist/$name.tar.gz"
