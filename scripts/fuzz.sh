#!/usr/bin/env bash
# Builds Galley's fuzz targets (the FuzzTesting package: libFuzzer + AddressSanitizer) and runs
# each for SECONDS (default 60; CI runs 30 s each as a regression net, longer runs are for a
# change to a parser or a C boundary), one target a core at a time. Fails on a crash, a sanitizer or leak report, an input slower
# than the per-input timeout, or memory past the RSS limit; the input is then kept in
# FuzzTesting/.build/fuzz/artifacts/<target>/ and printed with the report.
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]     targets: FuzzMarkup FuzzConfiguration FuzzPDF FuzzImage
#
# Before fuzzing, every input in FuzzTesting/FailCases/<target>/ is run once. The corpus each
# run grows is kept in FuzzTesting/.build/fuzz/corpus/<target>/, so later runs start from it;
# the seeds come from fixtures/ (scripts/make-fuzz-corpus.py). To reproduce a finding:
#   FuzzTesting/.build/release/FuzzMarkup FILE
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(FuzzMarkup FuzzConfiguration FuzzPDF FuzzImage); fi

bash scripts/install-deps.sh

# SwiftPM's --sanitize=fuzzer instruments Swift code for coverage only in debug builds; release
# (several times faster per input) needs the coverage asked for, as clang's -fsanitize=fuzzer
# sets it. C targets (the MuPDF and PNG shims) get clang's defaults.
build=(swift build --package-path FuzzTesting -c release --sanitize=fuzzer --sanitize=address
       -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp)
# SwiftPM notices files added to or removed from the main package's targets (a dependency by
# path here) only when this manifest changes; its time stamp is enough.
touch FuzzTesting/Package.swift
start=$(date +%s)
"${build[@]}"
echo "fuzz: built the targets in $(( $(date +%s) - start )) s"
bin="$("${build[@]}" --show-bin-path)"

work=FuzzTesting/.build/fuzz
python3 scripts/make-fuzz-corpus.py "$work/seeds"
# The PDF and configuration targets write each input to a file there (GalleyFuzzSupport's
# ScratchFile), removed after the input.
export TMPDIR="$PWD/$work/tmp"
mkdir -p "$TMPDIR"

# LeakSanitizer would report leaks inside fontconfig's and libhyphen's own loading code, once
# per process: FuzzTesting/lsan.supp says which, why, and what that could hide.
export ASAN_OPTIONS="detect_leaks=1"
export LSAN_OPTIONS="suppressions=$PWD/FuzzTesting/lsan.supp:print_suppressions=0"

# One target's fail cases and its run; prints one line, or the report, and fails with the target.
fuzz_one() {
  local target=$1 max_len timeout
  case "$target" in
    # libhyphen loads the German dictionary, once per process, in 10 s (about 40 s under
    # AddressSanitizer on a busy machine): a markup input may take that long without hanging.
    FuzzMarkup) max_len=8192 timeout=120 ;;
    FuzzConfiguration) max_len=8192 timeout=30 ;;
    FuzzPDF) max_len=65536 timeout=30 ;;
    FuzzImage) max_len=65536 timeout=30 ;;
  esac
  mkdir -p "$work/corpus/$target" "$work/artifacts/$target"
  local log="$work/$target.log"
  local fail_cases=(FuzzTesting/FailCases/"$target"/*)
  if [ -e "${fail_cases[0]}" ]; then
    if ! "$bin/$target" "${fail_cases[@]}" > "$work/$target-failcases.log" 2>&1; then
      echo "fuzz: $target: an input in FuzzTesting/FailCases/$target fails again:" >&2
      tail -n 40 "$work/$target-failcases.log" >&2
      return 1
    fi
    echo "fuzz: $target: ${#fail_cases[@]} fail cases replayed, none fails"
  fi
  # -timeout: an input taking longer is a hang; -rss_limit_mb: memory a run must not need for
  # one small input; the outer timeout catches a fuzzer that cannot stop.
  if timeout $(( seconds + 600 )) "$bin/$target" \
      -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len="$max_len" \
      -dict="FuzzTesting/$target.dict" -artifact_prefix="$work/artifacts/$target/" -print_final_stats=1 \
      "$work/corpus/$target" "$work/seeds/$target" > "$log" 2>&1; then
    local runs rate added slowest rss coverage
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    added=$(sed -n 's/^stat::new_units_added: *//p' "$log")
    slowest=$(sed -n 's/^stat::slowest_unit_time_sec: *//p' "$log")
    rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log")
    coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
    echo "fuzz: $target: ${seconds} s, $runs inputs ($rate/s), $coverage, $added new in the corpus, slowest ${slowest} s, peak RSS ${rss} MB: no failure"
  else
    local status=$?
    echo "fuzz: $target FAILED (exit status $status); the report:" >&2
    grep -v -e '^#' -e '^INFO:' "$log" | tail -n 60 >&2
    echo "fuzz: $target: inputs kept in $work/artifacts/$target/:" >&2
    ls -l "$work/artifacts/$target/" >&2
    return 1
  fi
}

for target in "${targets[@]}"; do
  case "$target" in
    FuzzMarkup|FuzzConfiguration|FuzzPDF|FuzzImage) ;;
    *) echo "fuzz: no target $target (FuzzMarkup, FuzzConfiguration, FuzzPDF, FuzzImage)" >&2; exit 2 ;;
  esac
done

# A libFuzzer process uses one core, so the targets run FUZZ_JOBS at a time (default: one a
# core): each still gets its SECONDS, in half the time on two cores. Each target's lines are
# printed whole, in the order the targets are named, once it ends.
jobs=${FUZZ_JOBS:-$(nproc)}
failed=()
running=()
finish() {  # waits for the oldest running target and prints what it said
  local target=${running[0]}
  running=("${running[@]:1}")
  if wait "${pids[$target]}"; then cat "$work/$target.out"; else cat "$work/$target.out" >&2; failed+=("$target"); fi
}
declare -A pids
for target in "${targets[@]}"; do
  [ ${#running[@]} -lt "$jobs" ] || finish
  fuzz_one "$target" > "$work/$target.out" 2>&1 &
  pids[$target]=$!
  running+=("$target")
done
while [ ${#running[@]} -gt 0 ]; do finish; done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]} (logs in $work/)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds} s each: no failure"
