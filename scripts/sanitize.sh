#!/usr/bin/env bash
# Builds and runs tests under a sanitizer, in a build folder of its own (.build-thread or
# .build-address) so the normal build is left alone.
#
#   bash scripts/sanitize.sh thread            the suites that start threads (below), as CI runs it
#   bash scripts/sanitize.sh thread --all      the whole suite
#   bash scripts/sanitize.sh address           the whole suite (a sanitizer of memory, not threads)
#   bash scripts/sanitize.sh thread|address [swift test options, e.g. --filter PipelineTests]
#
# The tests run the galley binary built beside them, so the command-line tests run a sanitized
# galley too. Any report fails the run (halt_on_error), and the report names the two accesses
# (thread) or the bad access (address).
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer="${1:-}"
case "$sanitizer" in
  thread|address) shift ;;
  *) echo "usage: bash scripts/sanitize.sh thread|address [--all] [swift test options]" >&2; exit 2 ;;
esac

# The suites that start threads, by Swift Testing's test identifier (module.Suite): whatever
# runs a pipeline (stages on OperationQueues, page lanes, the watchdog, the output lock, shards,
# diff), the galley binary (every command-line test runs the sanitized galley: run, watch, diff,
# thumbnails, concurrent runs into one folder), the catalog and the thumbnail cache (SQLite from
# several workers), concurrent draws of one PDF page, and the cancellation every stage shares.
# The suites left out (layout, parsing, configuration, encoding, PDF pages drawn one at a time)
# call the library from the test's own thread only; the caches they share with a run (glyphs,
# fonts, shaping) are reached from several workers by the pipeline suites below, which typeset
# articles in parallel. A new suite that starts threads or runs a pipeline goes here, and only
# here; the check after the list stops the script when one is forgotten.
threaded_suites=(
  'GalleyPipelineTests\.ArticleImageTests'
  'GalleyPipelineTests\.ArticlePipelineTests'
  'GalleyPipelineTests\.DocumentFileTests'
  'GalleyPipelineTests\.ImageFormatPipelineTests'
  'GalleyPipelineTests\.IncrementalRunTests'
  'GalleyPipelineTests\.ThumbnailsOnlyTests'
  'GalleyPipelineTests\.ThumbnailSetTests'
  'GalleyPipelineTests\.InspectorTests'
  'GalleyPipelineTests\.OutputLockTests'
  'GalleyPipelineTests\.PageSelectionTests'
  'GalleyPipelineTests\.PDFOutputTests'
  'GalleyPipelineTests\.PageWatchdogTests'
  'GalleyPipelineTests\.PagedMediaPipelineTests'
  'GalleyPipelineTests\.PictureMemoryTests'
  'GalleyPipelineTests\.PipelineTests'
  'GalleyPipelineTests\.ShardMergeTests'
  'GalleyPipelineTests\.ShardPlanTests'
  'GalleyPipelineTests\.SingleFileTests'
  'GalleyManifestTests\.ContactSheetTests'
  'GalleyManifestTests\.ManifestPiecesTests'
  'GalleyManifestTests\.ProgressSheetTests'
  'GalleyDiffTests\.DiffShiftTests'
  'GalleyDiffTests\.RunDiffTests'
  'GalleyCLITests\.'
  'GalleyCatalogTests\.'
  'GalleyPDFTests\.ConcurrentPageDrawTests'
  'GalleyRasterTests\.CancellationTests'
)

# A test file that starts threads or processes, runs a pipeline or the galley binary, or opens
# the catalog must hold a suite named above (or be in a module named whole): a new one that
# does not is named here, so it cannot run unsanitized by being forgotten.
unlisted=()
while IFS= read -r file; do
  module=$(basename "$(dirname "$file")")
  listed=false
  for suite in "${threaded_suites[@]}"; do
    prefix=${suite%%\\.*}
    rest=${suite#*\\.}
    if [ "$prefix" = "$module" ] && { [ -z "$rest" ] || grep -q "struct $rest\b" "$file"; }; then listed=true; fi
  done
  $listed || unlisted+=("$file")
done < <(grep -lE 'DispatchQueue|OperationQueue|concurrentPerform|Thread\(|Thread\.detach|TaskGroup|Task \{|Task\.detached|Process\(|Pipeline\(|GalleyCommandTests\.binary|RunDiff|Catalog\(|ThumbnailCache\(' Tests/*Tests/*.swift)
if [ ${#unlisted[@]} -gt 0 ]; then
  echo "sanitize: these test files start threads or processes, run a pipeline or the galley binary, or open the catalog, but hold no suite of threaded_suites (scripts/sanitize.sh): ${unlisted[*]}" >&2
  exit 2
fi

selection=()
if [ "$sanitizer" = thread ]; then
  if [ "${1:-}" = --all ]; then
    shift
  elif [ $# -eq 0 ]; then
    for suite in "${threaded_suites[@]}"; do selection+=(--filter "$suite"); done
  fi
fi

bash scripts/install-deps.sh
scratch=".build-$sanitizer"
common=(--scratch-path "$scratch" --sanitize="$sanitizer")
if [ "$sanitizer" = thread ]; then
  # Galley's Mutex as a pthread mutex the sanitizer sees (Sources/GalleyBase/Mutex.swift says why).
  common+=(-Xswiftc -DGALLEY_THREAD_SANITIZER)
fi

# halt_on_error: a report stops the process, so a race cannot scroll past in a passing run.
# Leaks are left to the fuzzers (scripts/fuzz.sh), whose LeakSanitizer runs with suppressions
# for fontconfig's and libhyphen's own loaders; here they would be reported at every exit.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=0"
# The Chromium tests run in the plain test step only (BrowserRuns.skipped says why).
export GALLEY_TESTS_WITHOUT_BROWSER=1
# The fonts the install script installs, and no others (scripts/test-fonts.sh).
FONTCONFIG_FILE=$(bash scripts/test-fonts.sh)
export FONTCONFIG_FILE

start=$(date +%s)
swift build --build-tests "${common[@]}"
built=$(date +%s)
echo "sanitize: built for the $sanitizer sanitizer in $(( built - start )) s"
swift test --skip-build --disable-xctest "${common[@]}" ${selection[@]+"${selection[@]}"} "$@"
echo "sanitize: tests under the $sanitizer sanitizer took $(( $(date +%s) - built )) s"
