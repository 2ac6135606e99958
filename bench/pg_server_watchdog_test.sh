#!/bin/sh
# A benchmark killed outright (SIGKILL: no destructor runs) leaves no PostgreSQL behind: the
# watchdog bench/pg_server.cpp starts beside the server stops it and removes its directory.
# Usage: pg_server_watchdog_test.sh path/to/hyrax-bench. Exit 77 (skipped) without PostgreSQL.
bench=$1
if ! command -v pg_ctl >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  echo "PostgreSQL's server programs are not installed: skipped"
  exit 77
fi
"$bench" ycsb --records 1000 --threads 1 --duration 60 --warmup 0 --engines postgresql >/dev/null 2>&1 &
pid=$!
dir=/tmp/hyrax-ycsb-$pid
tries=0
until ls "$dir"/pg/.s.PGSQL.* >/dev/null 2>&1; do  # its PostgreSQL is up
  tries=$((tries + 1))
  if [ $tries -gt 600 ] || ! kill -0 $pid 2>/dev/null; then
    kill -9 $pid 2>/dev/null
    echo "FAILED: the benchmark's PostgreSQL never started"
    exit 1
  fi
  sleep 0.1
done
kill -9 $pid
wait $pid 2>/dev/null
tries=0
while pgrep -f "$dir" >/dev/null 2>&1; do
  tries=$((tries + 1))
  if [ $tries -gt 300 ]; then
    echo "FAILED: PostgreSQL of the killed benchmark still runs after 30 s:"
    pgrep -af "$dir"
    pkill -9 -f "$dir"
    exit 1
  fi
  sleep 0.1
done
tries=0
while [ -e "$dir/pg" ]; do  # its directory goes right after the server
  tries=$((tries + 1))
  if [ $tries -gt 100 ]; then
    echo "FAILED: the killed benchmark's PostgreSQL directory $dir/pg is still there"
    exit 1
  fi
  sleep 0.1
done
rm -rf "$dir"
echo "ok: the killed benchmark's PostgreSQL stopped and its directory is gone"
