#!/usr/bin/env bash
# hyrax serve as psql sees it: starts the server on a Unix socket in a temporary directory (and a
# free loopback port), runs psql_script.sql through psql and compares its output with
# psql_expected.out; then a cancel (psql sends CancelRequest on SIGINT), a password login over TCP
# (and a wrong password refused), and a clean stop on SIGTERM. The server is always stopped (trap).
set -u
hyrax="$1"
here="$(cd "$(dirname "$0")" && pwd)"
tmp=$(mktemp -d)
source "$here/serve_helpers.sh"
trap 'stop_server; rm -rf "$tmp"' EXIT
fails=0
passes=0
check() {  # name, expected, actual
  if [ "$2" == "$3" ]; then passes=$((passes + 1)); else
    fails=$((fails + 1)); printf 'FAILED: %s\n--- expected\n%s\n--- actual\n%s\n' "$1" "$2" "$3"; fi
}
command -v psql >/dev/null || { echo "psql not found (scripts/setup.sh installs postgresql-client)"; exit 1; }

start_server "$hyrax" "$tmp" || exit 1
export PGHOST="$tmp" PGPORT="$port" PGUSER=tester PGDATABASE=hyrax PGCONNECT_TIMEOUT=10

out=$(timeout 60 psql -X -q -v ON_ERROR_STOP=0 -v VERBOSITY=verbose -f - < "$here/psql_script.sql" 2>&1)
check "psql script" "$(cat "$here/psql_expected.out")" "$out"

# ON_ERROR_ROLLBACK: psql sets a savepoint before each statement of a block and rolls back to it
# when the statement fails, so the block goes on.
out=$(printf '%s\n' "CREATE TABLE onerr (a INTEGER PRIMARY KEY);" "BEGIN;" "INSERT INTO onerr VALUES (1);" \
  "INSERT INTO onerr VALUES (1);" "INSERT INTO onerr VALUES (2);" "COMMIT;" "SELECT a FROM onerr ORDER BY a;" |
  timeout 60 psql -X -q -At -v ON_ERROR_ROLLBACK=on -f - 2>&1 | grep -v '^DETAIL' | tr '\n' ';')
check "ON_ERROR_ROLLBACK" 'psql:<stdin>:4: ERROR:  duplicate key value violates unique constraint "onerr_pkey";1;2;' "$out"

# Cancel: psql sends a CancelRequest when it gets SIGINT during a query.
timeout 30 psql -X -q -c "CREATE TABLE spun (a INTEGER)" \
  -c "CREATE PROCEDURE spin() AS \$\$ BEGIN LOOP INSERT INTO spun VALUES (0); END LOOP; END \$\$ LANGUAGE plpgsql" >/dev/null
# Job control on: a background job of a script would otherwise start with SIGINT ignored.
set -m
psql -X -q -v VERBOSITY=verbose -c "CALL spin()" > "$tmp/cancel.out" 2>&1 &
psql_pid=$!  # psql itself (a wrapper such as timeout would take the SIGINT)
set +m
sleep 1
kill -INT "$psql_pid"
for _ in $(seq 200); do kill -0 "$psql_pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$psql_pid" 2>/dev/null
check "cancel" "ERROR:  57014: canceling statement due to user request" "$(grep ERROR "$tmp/cancel.out")"
check "canceled statement left nothing" "0" "$(timeout 30 psql -X -At -c "SELECT count(*) FROM spun" 2>&1)"

# One session's COPY TO STDOUT piped into another's COPY FROM STDIN (neither holds the executor
# while it waits for the other).
timeout 30 psql -X -q -c "CREATE TABLE source (a INTEGER, b TEXT)" -c "INSERT INTO source VALUES (1, 'x'), (2, NULL)" \
  -c "CREATE TABLE target (a INTEGER, b TEXT)"
timeout 30 psql -X -q -c "COPY source TO STDOUT" | timeout 30 psql -X -q -c "COPY target FROM STDIN"
check "COPY piped between sessions" "1|x;2|;" "$(timeout 30 psql -X -At -c "SELECT a, b FROM target ORDER BY a" | tr '\n' ';')"

# TCP: a role's password (SCRAM-SHA-256, psql's libpq); a wrong one is refused.
timeout 30 psql -X -q -c "CREATE ROLE webuser LOGIN PASSWORD 'pa55 word'" >/dev/null
check "TCP login with a password" "1" "$(PGPASSWORD='pa55 word' timeout 30 psql -X -At -h 127.0.0.1 -p "$tcp" -U webuser -c "SELECT 1" 2>&1)"
out=$(PGPASSWORD=wrong timeout 30 psql -X -h 127.0.0.1 -p "$tcp" -U webuser -c "SELECT 1" 2>&1)
case "$out" in *'FATAL:  password authentication failed for user "webuser"'*) passes=$((passes + 1)) ;;
  *) fails=$((fails + 1)); printf 'FAILED: TCP refused with a wrong password\n%s\n' "$out" ;; esac

# SIGTERM: the server stops cleanly and removes its socket.
kill -TERM "$server_pid"
for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
wait "$server_pid"
check "exit code after SIGTERM" "0" "$?"
check "socket removed" "no" "$([ -e "$socket" ] && echo yes || echo no)"
check "stop message" "hyrax: stopped" "$(tail -1 "$tmp/server.out")"
server_pid=""

echo "psql test: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
