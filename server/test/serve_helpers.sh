# Sourced by the shell tests of `hyrax serve` (psql_test.sh, jdbc_test.sh).
# start_server HYRAX DIR: starts `HYRAX serve --port 0 --socket-dir DIR` (its output in
# DIR/server.out), waits at most 10 s for its listening lines and sets server_pid, socket (the
# Unix socket's path), port (its number) and tcp (the loopback port); returns 1 if it did not start.
# stop_server: SIGTERM, then SIGKILL after 10 s; call it from the test's EXIT trap.
server_pid=""
start_server() {
  "$1" serve --port 0 --socket-dir "$2" > "$2/server.out" 2>&1 &
  server_pid=$!
  socket=""
  for _ in $(seq 100); do
    socket=$(sed -n 's#^hyrax: listening on \(/.*\)$#\1#p' "$2/server.out")
    [ -n "$socket" ] && break
    sleep 0.1
  done
  [ -n "$socket" ] || { echo "the server did not start:"; cat "$2/server.out"; return 1; }
  port="${socket##*.}"
  tcp=$(sed -n 's#^hyrax: listening on 127.0.0.1:\([0-9]*\)$#\1#p' "$2/server.out")
}
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid"
    for _ in $(seq 100); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null
  fi
}
