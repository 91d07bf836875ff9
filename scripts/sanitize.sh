#!/usr/bin/env bash
# Builds and runs the test suite under a sanitizer, in a build folder of its own (.build-thread
# or .build-address) so the normal build is left alone.
#
#   bash scripts/sanitize.sh thread  [swift test options, e.g. --filter PipelineTests]
#   bash scripts/sanitize.sh address [...]
#
# The tests run the galley binary built beside them, so the command-line tests run a sanitized
# galley too. Any report fails the run (halt_on_error), and the report names the two accesses
# (thread) or the bad access (address).
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer="${1:-}"
case "$sanitizer" in
  thread|address) shift ;;
  *) echo "usage: bash scripts/sanitize.sh thread|address [swift test options]" >&2; exit 2 ;;
esac

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

start=$(date +%s)
swift build --build-tests "${common[@]}"
built=$(date +%s)
echo "sanitize: built for the $sanitizer sanitizer in $(( built - start )) s"
swift test --skip-build --disable-xctest "${common[@]}" "$@"
echo "sanitize: tests under the $sanitizer sanitizer took $(( $(date +%s) - built )) s"
