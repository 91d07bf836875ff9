#!/usr/bin/env bash
# The README's second command: install what is missing and run the whole test suite.
# The tests run the built galley binary and compare against mutool, so build everything first.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build --build-tests
swift test --skip-build --disable-xctest "$@"
