#!/usr/bin/env bash
# Runs galley over mutated copies of the fixture articles and counts exit statuses: every run
# must end with 0 (all ok), 1 (some documents failed) or 2 (usage); anything else (a crash,
# an abort, a hang) is a bug in the text path.
#
#   bash scripts/fuzz-articles.sh [GALLEY] [SCRATCH]
#
# GALLEY defaults to .build/release/galley (bash scripts/build-release.sh), SCRATCH to a new
# folder under /tmp. Each of fixtures/articles' .txt and .html files is mutated by zzuf
# (random bit flips: invalid UTF-8, ESC and other C0/C1 bytes, broken tags; never a NUL,
# which makes the file binary, failed as not-text before it reaches the typesetter) with SEEDS
# seeds at each of RATIOS; each copy is run on its own (`galley run`, the repository's pipeline.yml
# layouts, a TIMEOUT-second limit that catches hangs), then all copies in one run, whose
# status must be 0 or 1 with every document in the manifest. Prints the counts and the
# copies that broke, and exits 1 when any did.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
galley=$(realpath "${1:-.build/release/galley}")
scratch=${2:-$(mktemp -d /tmp/galley-fuzz.XXXXXX)}
seeds=${SEEDS:-5}
ratios=${RATIOS:-"0.0005 0.002 0.005 0.02 0.05"}
timeout_seconds=${TIMEOUT:-120}
# Restarting after a crash (CrashRestart) would hide the crash behind a finished run.
export GALLEY_CRASH_RESTART=off
command -v zzuf >/dev/null || { echo "fuzz-articles: zzuf is missing (bash scripts/install-deps.sh)" >&2; exit 2; }

mkdir -p "$scratch/corpus"
cp -r fixtures/articles/images "$scratch/corpus/"
for source in fixtures/articles/*.txt fixtures/articles/*.html; do
  name=$(basename "$source")
  for seed in $(seq 1 "$seeds"); do
    for ratio in $ratios; do
      zzuf -s "$seed" -r "$ratio" -R '\x00' < "$source" > "$scratch/corpus/${name%.*}-s$seed-r$ratio.${name##*.}"
    done
  done
done
# Bit flips rarely spell a particular character, so each source also gets copies with byte
# sequences inserted at random places: the ones C libraries have contracts about (U+FFFF,
# libunibreak 1.1's end marker; regional indicators; NUL-free controls, C1 controls, ESC
# sequences; invalid UTF-8: surrogates, overlong forms, values past U+10FFFF, truncations),
# marks and bidi controls, and HTML references to the same.
python3 - "$scratch/corpus" "$seeds" fixtures/articles/*.txt fixtures/articles/*.html <<'PY'
import os, random, sys
folder, seeds, sources = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
pieces = [b"\xef\xbf\xbf", b"\xef\xbf\xbe", b"\xf0\x9f\x87\xa9\xf0\x9f\x87\xaa", b"\xf0\x9f\x87\xa6", b"\x1b[31m", b"\x1b",
          b"\x07", b"\x08", b"\x0c", b"\x7f", b"\xc2\x80", b"\xc2\x85", b"\xc2\x9f", b"\xed\xa0\x80", b"\xc0\x80",
          b"\xf4\x90\x80\x80", b"\xff", b"\xfe", b"\x80", b"\xe2\x80", b"\xe2\x80\xa8", b"\xe2\x80\xa9", b"\xe2\x80\xae",
          b"\xe2\x80\x8b", b"\xcc\x81" * 40, b"\xef\xbb\xbf", b"\xc2\xad", b"&#xFFFF;", b"&#x1F1E9;&#x1F1EA;", b"&#0;",
          b"&#xD800;", b"&#x110000;", b"\r", b"\t"]
for source in sources:
    data = open(source, "rb").read()
    stem, extension = os.path.splitext(os.path.basename(source))
    for seed in range(1, seeds + 1):
        generator = random.Random(seed)
        out = bytearray(data)
        for _ in range(40):
            at = generator.randrange(len(out) + 1)
            out[at:at] = generator.choice(pieces)
        open(os.path.join(folder, f"{stem}-inserted-s{seed}{extension}"), "wb").write(out)
PY
copies=("$scratch"/corpus/*.txt "$scratch"/corpus/*.html)
echo "fuzz-articles: ${#copies[@]} mutated copies in $scratch/corpus, galley $galley"

declare -A counts=()
broken=()
for copy in "${copies[@]}"; do
  one="$scratch/one/$(basename "$copy")"
  rm -rf "$one" && mkdir -p "$one/in"
  cp "$copy" "$one/in/"
  cp -r "$scratch/corpus/images" "$one/in/"
  status=0
  timeout "$timeout_seconds" "$galley" run --config "$repo/pipeline.yml" --input "$one/in" --output "$one/out" \
    --progress none > "$one/stdout" 2> "$one/stderr" || status=$?
  counts[$status]=$(( ${counts[$status]:-0} + 1 ))
  case $status in
    0|1|2) rm -rf "$one/out" ;;
    *) broken+=("$status $copy") ;;
  esac
done

echo "fuzz-articles: exit statuses of ${#copies[@]} single-document runs (124: timed out after ${timeout_seconds} s):"
for status in $(printf '%s\n' "${!counts[@]}" | sort -n); do
  printf '  %4s  %d\n' "$status" "${counts[$status]}"
done

status=0
timeout $(( timeout_seconds * 10 )) "$galley" run --config "$repo/pipeline.yml" --input "$scratch/corpus" --output "$scratch/all" \
  --progress none > "$scratch/all.stdout" 2> "$scratch/all.stderr" || status=$?
listed=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["documents"]))' "$scratch/all/manifest.json" 2>/dev/null || echo 0)
echo "fuzz-articles: one run over all ${#copies[@]}: exit $status, $listed documents in the manifest"
tail -n 3 "$scratch/all.stderr" | sed 's/^/  /'
if [ "$status" -gt 1 ] || [ "$listed" -ne "${#copies[@]}" ]; then broken+=("$status (one run over all)"); fi

if [ ${#broken[@]} -gt 0 ]; then
  echo "fuzz-articles: broken:"
  printf '  %s\n' "${broken[@]}"
  exit 1
fi
echo "fuzz-articles: every run ended with 0, 1 or 2"
