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
swift test --skip-build --disable-xctest "$@"
