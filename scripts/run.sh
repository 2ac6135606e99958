#!/usr/bin/env bash
# Set up, build (Release) and start the hyrax shell on an in-memory database.
# Arguments go to the shell, e.g. ./scripts/run.sh -c "SELECT 1".
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh release >/dev/null
exec ./build/release/cli/hyrax "$@"
