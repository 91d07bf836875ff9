#!/usr/bin/env bash
# The README's second command: install what is missing and run the whole test suite.
# The tests run the built galley binary and compare against mutool, so build everything first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# Only the fonts the install script installs: extra fonts on the machine change no result.
FONTCONFIG_FILE=$(bash scripts/test-fonts.sh)
export FONTCONFIG_FILE
swift build --build-tests
# The failures are said again at the end, where a log cut to its last lines still shows them.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --disable-xctest "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo "test.sh: the issues recorded, again:"
  grep -a -A4 "recorded an issue" "$log" | cut -c1-400 | head -80 || true
fi
exit "$status"
