#!/usr/bin/env bash
# pgjdbc against `hyrax serve`: compiles JdbcTest.java with javac against the driver's jar
# (scripts/setup.sh fetches it into .tools/jdbc), starts the server on a free loopback port and a
# Unix socket in a temporary directory, creates the test's role with a password over the socket
# (psql, trust) and runs JdbcTest over TCP with that password. The server is always stopped (trap).
# Usage: jdbc_test.sh <hyrax executable> <directory of postgresql-*.jar> <directory for classes>
set -u
hyrax="$1"
jar=$(ls "$2"/postgresql-*.jar 2>/dev/null | sort -V | tail -1)
classes="$3"
here="$(cd "$(dirname "$0")" && pwd)"
[ -n "$jar" ] || { echo "no pgjdbc jar in $2 (scripts/setup.sh fetches it)"; exit 1; }
for tool in javac java psql; do
  command -v "$tool" >/dev/null || { echo "$tool not found (scripts/setup.sh installs it)"; exit 1; }
done
tmp=$(mktemp -d)
source "$here/serve_helpers.sh"
trap 'stop_server; rm -rf "$tmp"' EXIT

mkdir -p "$classes"
javac -d "$classes" -cp "$jar" "$here/JdbcTest.java" || { echo "javac failed"; exit 1; }

start_server "$hyrax" "$tmp" || exit 1

timeout 30 psql -X -q -h "$tmp" -p "$port" -U admin -d hyrax \
  -c "CREATE ROLE jdbcuser LOGIN PASSWORD 'jdbc pa55'" || { echo "could not create the role"; exit 1; }
timeout 240 java -cp "$jar:$classes" JdbcTest "$tcp" jdbcuser 'jdbc pa55'
status=$?
[ $status -eq 0 ] || { echo "server output:"; cat "$tmp/server.out"; }
exit $status
