#!/usr/bin/env bash
# The differential generator's long run: hyrax-fuzz-sql over QUERIES queries of SEED, in chunks,
# so that a crash of hyrax (a signal) is recorded and the run goes on after the crashing query.
#   test/differential/long_run.sh BUILD_DIR [SEED] [QUERIES] [CHUNK]
# Prints every mismatch and crash as found, then the summed figures.
set -uo pipefail
bin="$1/test/hyrax-fuzz-sql"
seed="${2:-7}" queries="${3:-100000}" chunk="${4:-5000}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=0 end=$queries crashes=0 began=$(date +%s)
declare -A checks unsupported skipped mismatches
while (( start < end )); do
  n=$(( end - start < chunk ? end - start : chunk ))
  "$bin" --seed "$seed" --start "$start" --queries "$n" --sqlite --max-mismatches 1000000 >"$log" 2>&1
  rc=$?
  grep -v -E '^(seed |oracle |sqlite |tlp |norec |mismatches: )' "$log"
  for o in sqlite tlp norec; do
    read -r c u s m < <(awk -v o="$o" '$1 == o { print $2, $3, $4, $5 }' "$log")
    checks[$o]=$(( ${checks[$o]:-0} + ${c:-0} )); unsupported[$o]=$(( ${unsupported[$o]:-0} + ${u:-0} ))
    skipped[$o]=$(( ${skipped[$o]:-0} + ${s:-0} )); mismatches[$o]=$(( ${mismatches[$o]:-0} + ${m:-0} ))
  done
  if (( rc > 128 )); then
    # The crash handler names the query; go on after it (the figures of the crashed chunk are lost).
    crashed=$(sed -n 's/^CRASH at seed [0-9]*, query \([0-9]*\):.*/\1/p' "$log" | tail -1)
    crashes=$(( crashes + 1 ))
    start=$(( ${crashed:-$start} + 1 ))
  else
    start=$(( start + n ))
  fi
done
secs=$(( $(date +%s) - began ))
echo "long run: seed $seed, $queries queries in ${secs} s ($(( queries / (secs > 0 ? secs : 1) )) queries/s), crashes: $crashes"
printf '%-7s %10s %12s %10s %11s\n' oracle checks unsupported skipped mismatches
for o in sqlite tlp norec; do
  printf '%-7s %10d %12d %10d %11d\n' "$o" "${checks[$o]}" "${unsupported[$o]}" "${skipped[$o]}" "${mismatches[$o]}"
done
