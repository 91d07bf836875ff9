#!/usr/bin/env bash
# The README's first command: install what is missing, build in release, and run galley on
# the repository's pipeline.yml (the bundled fixtures). Extra arguments go to `galley run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build-release.sh
status=0
.build/release/galley run "$@" || status=$?
echo "run.sh: page images, thumbnails and manifest.json are under $(pwd)/out (galley exit status $status)"
exit $status
