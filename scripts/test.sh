#!/usr/bin/env bash
# Set up, build and run every test (unit tests and all sqllogictest files) for a preset
# (release by default; `asan` builds with AddressSanitizer + UBSan). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
./scripts/setup.sh
./scripts/build.sh "$preset"
ctest --preset "$preset" -j2
