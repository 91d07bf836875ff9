#!/usr/bin/env bash
# A command-line mutation run: zzuf mutates copies of the fixtures (fixtures/pdf,
# fixtures/articles and the broken ones), the release galley runs over them as a user would,
# and the exit statuses are counted. Only 0, 1 and 2 are allowed, and with 0 or 1 the manifest
# must have been written; any other status (a signal, a hang past the time limit) fails the run
# and the round's inputs are kept.
#
#   bash scripts/mutate-run.sh [ROUNDS] [SEED] [SCRATCH]
#
# ROUNDS (default 20) folders of mutated copies, made from zzuf seeds SEED*1000 + ... (SEED
# default 1), so a round can be made again; every fourth round mutates pipeline.yml too (then
# status 2 is the expected answer). SCRATCH (default a new folder under /tmp) keeps the
# failing rounds: inputs, configuration, galley's output and the command to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

rounds="${1:-20}"
base_seed="${2:-1}"
scratch="${3:-$(mktemp -d /tmp/galley-mutate.XXXXXX)}"
# Longest a whole run over one round may take; page_timeout (below) stops a slow page first.
run_limit=300

bash scripts/install-deps.sh
bash scripts/build-release.sh
galley="$root/.build/release/galley"
mkdir -p "$scratch"

declare -A tally=()
failures=()
for round in $(seq 1 "$rounds"); do
  folder="$scratch/round-$round"
  rm -rf "$folder"
  mkdir -p "$folder/input"
  seed=$(( base_seed * 1000 + round ))
  index=0
  for source in fixtures/pdf fixtures/articles fixtures/broken fixtures/broken-articles; do
    while IFS= read -r -d '' file; do
      target="$folder/input/${file#fixtures/}"
      mkdir -p "$(dirname "$target")"
      index=$(( index + 1 ))
      # A ratio between 0.01% and 1% of the bits: from nearly intact to badly damaged.
      zzuf -s $(( seed * 100 + index )) -r 0.0001:0.01 < "$file" > "$target"
    done < <(find "$source" -type f -print0 | sort -z)
  done
  config="$folder/pipeline.yml"
  cat > "$config" <<'YAML'
dpi: 36
thumbnails: [64]
page_timeout: 30
passwords:
  encrypted.pdf: galley-secret
layouts:
  - name: portrait
    columns: 2
    hyphenation: true
    language: en
  - name: vertical
    vertical: true
    columns: 2
    line_breaking: optimal
YAML
  if [ $(( round % 4 )) -eq 0 ]; then
    zzuf -s "$seed" -r 0.001:0.02 < "$config" > "$config.mutated"
    mv "$config.mutated" "$config"
  fi
  command=("$galley" run --config pipeline.yml --input input/pdf --input input/articles --input input/broken
           --input input/broken-articles --output out --progress none)
  set +e
  # Restarting after a crash (CrashRestart) would hide the crash behind a finished run.
  (cd "$folder" && GALLEY_CRASH_RESTART=off timeout --kill-after=10 "$run_limit" "${command[@]}" > galley.log 2>&1)
  status=$?
  set -e
  tally[$status]=$(( ${tally[$status]:-0} + 1 ))
  problem=""
  case "$status" in
    0|1) [ -f "$folder/out/manifest.json" ] || problem="exit $status without a manifest" ;;
    2) ;;
    124|137) problem="no answer within $run_limit s (exit $status)" ;;
    *) problem="exit status $status" ;;
  esac
  if [ -n "$problem" ]; then
    printf 'cd %q && %s\n' "$folder" "${command[*]}" > "$folder/rerun.sh"
    failures+=("round $round: $problem: $folder")
    echo "mutate-run: round $round: $problem (kept in $folder)"
  else
    echo "mutate-run: round $round: exit $status"
    rm -rf "$folder"
  fi
done

summary=""
for status in $(printf '%s\n' "${!tally[@]}" | sort -n); do summary+=" exit $status: ${tally[$status]};"; done
echo "mutate-run: $rounds rounds (seed $base_seed):${summary%;}"
if [ ${#failures[@]} -gt 0 ]; then
  printf 'mutate-run: FAILED: %s\n' "${failures[@]}" >&2
  exit 1
fi
rmdir "$scratch" 2>/dev/null || true
