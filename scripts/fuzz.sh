#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (the `fuzz` preset, build/fuzz) and runs one of them on
# a seed corpus made from the test files (test/fuzz/README.md).
#
#   scripts/fuzz.sh [--build-dir DIR] [--no-build] [--corpus DIR] parser|copy|json [RUNS] [-- LIBFUZZER-OPTION...]
#
# RUNS is the number of inputs (default 10^7; 0 runs until stopped). New inputs the fuzzer finds
# go to --corpus DIR (kept between runs), else to a temporary directory. A crash, sanitizer report,
# leak, timeout (10 s) or out-of-memory leaves its input in DIR/artifacts/ and exits non-zero;
# reproduce it with `DIR/test/fuzz/fuzz_TARGET FILE`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build/fuzz"
do_build=1
corpus=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build="$(realpath -m "$2")"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --corpus) corpus="$(realpath -m "$2")"; shift 2 ;;
    *) break ;;
  esac
done
target="${1:?usage: scripts/fuzz.sh [--build-dir DIR] [--no-build] [--corpus DIR] parser|copy|json [RUNS] [-- OPTIONS]}"
shift
runs=10000000
if [ $# -gt 0 ] && [ "$1" != "--" ]; then runs="$1"; shift; fi
if [ "${1:-}" = "--" ]; then shift; fi
case "$target" in parser|copy|json) ;; *) echo "fuzz.sh: no target \"$target\" (parser, copy, json)" >&2; exit 2 ;; esac

if [ "$do_build" = 1 ]; then
  (cd "$root" && cmake --preset fuzz >/dev/null && cmake --build --preset fuzz)
fi
bin="$build/test/fuzz/fuzz_$target"
[ -x "$bin" ] || { echo "fuzz.sh: $bin is not built" >&2; exit 1; }

seeds="$build/corpus/$target-seeds"
rm -rf "$seeds"
python3 "$root/test/fuzz/make_corpus.py" "$target" "$seeds"
if [ -z "$corpus" ]; then
  corpus="$(mktemp -d)"
  trap 'rm -rf "$corpus"' EXIT
fi
mkdir -p "$corpus" "$build/artifacts"
options=(-runs="$runs" -timeout=10 -max_len=4096 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-")
[ "$target" = parser ] && options+=(-dict="$build/corpus/parser.dict")
# ASan's leak check at exit and UBSan's reports both end the run as crashes.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
exec "$bin" "${options[@]}" "$@" "$corpus" "$seeds"
