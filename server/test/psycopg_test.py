#!/usr/bin/env python3
"""psycopg 3 (Python's PostgreSQL driver, on libpq) against `hyrax serve`.

Starts the server on a free loopback port and a Unix socket in a temporary directory, creates a
role with a password over the socket (trust), then, as that role over TCP (SCRAM-SHA-256):
creates a table, loads it with COPY FROM STDIN and reads it with COPY TO STDOUT, runs
parameterized queries (server-side binding: the extended protocol; prepared statements; binary
results and parameters), checks errors' SQLSTATEs, cancels a long query from another thread and
commits and rolls back transactions. The server is always stopped.

Usage: psycopg_test.py <hyrax executable>; psycopg from PYTHONPATH (scripts/setup.sh installs
it into .tools/psycopg, which server/CMakeLists.txt puts there).
"""
import datetime
import decimal
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

try:
    import psycopg
    from psycopg import errors
except ImportError as e:
    sys.exit(f"psycopg not found ({e}): scripts/setup.sh installs it into .tools/psycopg")

failures = []
passes = 0


def check(name, expected, actual):
    global passes
    if expected == actual:
        passes += 1
    else:
        failures.append(name)
        print(f"FAILED: {name}\n  expected: {expected!r}\n  actual:   {actual!r}")


def expect_error(name, sqlstate, error_class, conn, query, params=None):
    """Runs a statement that must fail with `sqlstate` (as `error_class`); the connection goes on."""
    try:
        conn.execute(query, params)
    except psycopg.Error as e:
        check(name + " sqlstate", sqlstate, e.sqlstate)
        check(name + " class", error_class.__name__, type(e).__name__)
        if not conn.autocommit:
            conn.rollback()
        return
    check(name + " raised", sqlstate, None)


def start_server(hyrax, tmp):
    out = open(os.path.join(tmp, "server.out"), "w")
    proc = subprocess.Popen([hyrax, "serve", "--port", "0", "--socket-dir", tmp], stdout=out,
                            stderr=subprocess.STDOUT)
    tcp_port = None
    for _ in range(100):  # at most 10 s
        text = open(os.path.join(tmp, "server.out")).read()
        tcp = re.search(r"^hyrax: listening on 127\.0\.0\.1:(\d+)$", text, re.M)
        sock = re.search(r"^hyrax: listening on /.*\.s\.PGSQL\.\d+$", text, re.M)
        if tcp and sock:
            tcp_port = int(tcp.group(1))
            break
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    if tcp_port is None:
        stop_server(proc)
        raise RuntimeError("the server did not start:\n" + open(os.path.join(tmp, "server.out")).read())
    return proc, tcp_port


def stop_server(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_checks(tmp, port):
    # The role, over the Unix socket (trust there).
    with psycopg.connect(host=tmp, port=port, user="admin", dbname="hyrax", autocommit=True,
                         connect_timeout=10) as admin:
        admin.execute("CREATE ROLE pyuser LOGIN PASSWORD 'py s3cret'")

    # A wrong password is refused.
    try:
        psycopg.connect(host="127.0.0.1", port=port, user="pyuser", password="wrong", dbname="hyrax",
                        connect_timeout=10).close()
        check("wrong password refused", True, False)
    except psycopg.OperationalError as e:
        check("wrong password refused", True, 'password authentication failed for user "pyuser"' in str(e))

    conn = psycopg.connect(host="127.0.0.1", port=port, user="pyuser", password="py s3cret",
                           dbname="hyrax", connect_timeout=10)
    check("connected as", "pyuser", conn.info.user)
    check("server_version parameter", True, conn.info.server_version >= 150000)
    cur = conn.cursor()

    cur.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price DECIMAL(10, 2), "
                "added DATE, weight DOUBLE PRECISION)")
    conn.commit()

    # COPY FROM STDIN: rows written by psycopg (text format, NULL as \N, escapes).
    rows = [(1, "apple", decimal.Decimal("1.50"), datetime.date(2024, 1, 2), 0.25),
            (2, None, decimal.Decimal("2.25"), datetime.date(2024, 2, 3), None),
            (3, "tab\there, new\nline", decimal.Decimal("-3.00"), None, 1e300)]
    with cur.copy("COPY items FROM STDIN") as copy:
        for r in rows:
            copy.write_row(r)
    check("COPY FROM rowcount", 3, cur.rowcount)
    conn.commit()
    check("loaded rows", rows, cur.execute("SELECT * FROM items ORDER BY id").fetchall())

    # COPY TO STDOUT: rows parsed by psycopg (by CopyOutResponse's column count), typed.
    with cur.copy("COPY items TO STDOUT") as copy:
        copy.set_types(["int4", "text", "numeric", "date", "float8"])
        check("COPY TO rows", rows, sorted(copy.rows()))
    with cur.copy("COPY (SELECT id, name FROM items WHERE id < 3 ORDER BY id) TO STDOUT") as copy:
        check("COPY (query) TO rows as text", [("1", "apple"), ("2", None)], list(copy.rows()))
    with cur.copy("COPY items (id, name) TO STDOUT WITH (FORMAT csv)") as copy:
        check("COPY TO csv, one block per row", [b'1,apple\n', b'2,\n', b'3,"tab\there, new\nline"\n'],
              sorted(bytes(b) for b in copy))
    conn.commit()

    # COPY through the extended protocol, as libpq's PQsendQueryParams sends it (Parse, Bind,
    # Describe, Execute, Sync): CopyInResponse / CopyOutResponse at Execute.
    raw = psycopg.pq.PGconn.connect(
        f"host=127.0.0.1 port={port} user=pyuser password='py s3cret' dbname=hyrax".encode())
    check("raw libpq connected", psycopg.pq.ConnStatus.OK, raw.status)
    raw.exec_(b"CREATE TABLE copied (a INTEGER, b TEXT)")
    raw.send_query_params(b"COPY copied FROM STDIN", None)
    res = raw.get_result()
    check("extended COPY FROM: CopyInResponse", psycopg.pq.ExecStatus.COPY_IN, res.status)
    raw.put_copy_data(b"1\tone\n2\ttwo\n")
    raw.put_copy_end()
    res = raw.get_result()
    check("extended COPY FROM: loaded", (psycopg.pq.ExecStatus.COMMAND_OK, b"COPY 2"), (res.status, res.command_status))
    check("extended COPY FROM: done", None, raw.get_result())
    raw.send_query_params(b"COPY copied TO STDOUT", None)
    res = raw.get_result()
    check("extended COPY TO: CopyOutResponse", psycopg.pq.ExecStatus.COPY_OUT, res.status)
    data = []
    while True:
        n, chunk = raw.get_copy_data(0)
        if n < 0:
            break
        data.append(bytes(chunk))
    check("extended COPY TO: rows", [b"1\tone\n", b"2\ttwo\n"], data)
    res = raw.get_result()
    check("extended COPY TO: done", (psycopg.pq.ExecStatus.COMMAND_OK, b"COPY 2"), (res.status, res.command_status))
    raw.finish()

    # The session is the role's; a changed reported setting reaches the driver (ParameterStatus);
    # the notices of a statement that failed arrive before its error.
    check("current_user", [("pyuser", "pyuser")], conn.execute("SELECT current_user, session_user").fetchall())
    conn.execute("SET application_name = 'py app'")
    check("reported application_name", "py app", conn.info.parameter_status("application_name"))
    conn.rollback()
    check("rolled-back SET reported back", "", conn.info.parameter_status("application_name"))
    conn.autocommit = True
    notices = []
    conn.add_notice_handler(lambda d: notices.append(d.message_primary))
    conn.execute("CREATE PROCEDURE noisy() AS $$ DECLARE x INTEGER; BEGIN RAISE NOTICE 'before'; x := 1 / 0; END $$ "
                 "LANGUAGE plpgsql")
    expect_error("noisy procedure", "22012", errors.DivisionByZero, conn, "CALL noisy()")
    check("notice before the error", ["before"], notices)
    conn.autocommit = False

    # Parameters bound server-side (Parse/Bind/Execute), text and binary.
    check("parameter int", [("apple",)], cur.execute("SELECT name FROM items WHERE id = %s", (1,)).fetchall())
    check("parameter NULL", [(None,)],
          cur.execute("SELECT %s::TEXT", (None,)).fetchall())
    check("parameters of several types", [(3,)],
          cur.execute("SELECT count(*) FROM items WHERE price > %s AND (added IS NULL OR added >= %s) AND id <= %s",
                      (decimal.Decimal("-10"), datetime.date(2024, 1, 1), 3)).fetchall())
    check("named parameters", [(2, decimal.Decimal("2.25"))],
          cur.execute("SELECT id, price FROM items WHERE id = %(id)s", {"id": 2}).fetchall())
    for i in range(3):  # prepare=True: a named statement, executed again
        check(f"prepared execution {i}", [(rows[i][1],)],
              cur.execute("SELECT name FROM items WHERE id = %s", (i + 1,), prepare=True).fetchall())
    check("binary parameter %b", [(42,)], cur.execute("SELECT %b::INTEGER + 1", (41,)).fetchall())
    bcur = conn.cursor(binary=True)
    check("binary results", [rows[0]], bcur.execute("SELECT * FROM items WHERE id = %s", (1,)).fetchall())
    check("binary round trip", [(decimal.Decimal("3.14"), datetime.date(2020, 2, 29), "x y", True, 2 ** 40)],
          bcur.execute("SELECT %s::DECIMAL(10, 2), %s::DATE, %s::TEXT, %s::BOOLEAN, %s::BIGINT",
                       (decimal.Decimal("3.14"), datetime.date(2020, 2, 29), "x y", True, 2 ** 40)).fetchall())
    ts = datetime.datetime(2024, 5, 6, 7, 8, 9, 123456)
    check("timestamp parameter and result", [(ts,)], cur.execute("SELECT %s::TIMESTAMP", (ts,)).fetchall())

    # Command tags and counts.
    cur.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (10, "ten"))
    check("INSERT rowcount", 1, cur.rowcount)
    check("INSERT tag", "INSERT 0 1", cur.statusmessage)
    cur.executemany("INSERT INTO items (id, name) VALUES (%s, %s)", [(11, "a"), (12, "b"), (13, "c")])
    check("executemany rowcount", 3, cur.rowcount)
    cur.execute("UPDATE items SET name = %s WHERE id >= %s", ("many", 11))
    check("UPDATE rowcount", 3, cur.rowcount)
    check("UPDATE tag", "UPDATE 3", cur.statusmessage)
    cur.execute("DELETE FROM items WHERE id >= %s", (10,))
    check("DELETE rowcount", 4, cur.rowcount)
    # RETURNING: the rows (server-side parameters in the RETURNING list too) and the write's tag.
    cur.execute("INSERT INTO items (id, name) VALUES (%s, %s), (%s, %s) RETURNING id, upper(name) || %s AS shout",
                (20, "x", 21, "y", "!"))
    check("INSERT RETURNING rows", [(20, "X!"), (21, "Y!")], cur.fetchall())
    check("INSERT RETURNING column names", ["id", "shout"], [d.name for d in cur.description])
    check("INSERT RETURNING tag", "INSERT 0 2", cur.statusmessage)
    cur.execute("DELETE FROM items WHERE id >= %s RETURNING name", (20,))
    check("DELETE RETURNING rows", [("x",), ("y",)], sorted(cur.fetchall()))
    check("DELETE RETURNING rowcount", 2, cur.rowcount)
    conn.commit()

    # Errors with their SQLSTATE; the session goes on after each.
    expect_error("unique violation", "23505", errors.UniqueViolation, conn,
                 "INSERT INTO items (id) VALUES (%s)", (1,))
    expect_error("invalid text", "22P02", errors.InvalidTextRepresentation, conn, "SELECT 'abc'::INTEGER")
    expect_error("missing table", "42P01", errors.UndefinedTable, conn, "SELECT * FROM nowhere WHERE a = %s", (1,))
    expect_error("division by zero", "22012", errors.DivisionByZero, conn, "SELECT 1 / %s", (0,))
    expect_error("syntax error", "42601", errors.SyntaxError, conn, "SELEC 1")
    check("session goes on after errors", [(3,)], conn.execute("SELECT count(*) FROM items").fetchall())
    conn.commit()

    # Transactions: conn.transaction() commits, an exception in it rolls back.
    with conn.transaction():
        conn.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (20, "kept"))
    try:
        with conn.transaction():
            conn.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (21, "dropped"))
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    conn.rollback()
    check("transaction committed, the other rolled back", [(20, "kept")],
          conn.execute("SELECT id, name FROM items WHERE id >= 20 ORDER BY id").fetchall())
    conn.commit()
    # Nested conn.transaction() blocks are savepoints: an inner one that fails rolls back alone.
    with conn.transaction():
        conn.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (23, "outer"))
        try:
            with conn.transaction():
                conn.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (24, "inner undone"))
                conn.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (23, "duplicate"))
        except errors.UniqueViolation:
            pass
        with conn.transaction():
            conn.execute("INSERT INTO items (id, name) VALUES (%s, %s)", (25, "inner kept"))
    check("nested transactions are savepoints", [(23, "outer"), (25, "inner kept")],
          conn.execute("SELECT id, name FROM items WHERE id BETWEEN 23 AND 25 ORDER BY id").fetchall())
    conn.execute("DELETE FROM items WHERE id BETWEEN 23 AND 25")
    conn.commit()
    # Outside autocommit psycopg opens a transaction itself: rollback() undoes the insert.
    conn.execute("INSERT INTO items (id, name) VALUES (22, 'undone')")
    conn.rollback()
    check("rollback() undoes", [(0,)], conn.execute("SELECT count(*) FROM items WHERE id = 22").fetchall())
    conn.commit()

    # Cancel: a procedure that loops until canceled, canceled from another thread.
    conn.autocommit = True
    conn.execute("CREATE TABLE spun (a INTEGER)")
    conn.execute("CREATE PROCEDURE spin() AS $$ BEGIN LOOP INSERT INTO spun VALUES (0); END LOOP; END $$ "
                 "LANGUAGE plpgsql")
    # Canceled each second until it ends: a cancel that comes before the statement started (a
    # slow machine) is dropped, as in PostgreSQL. cancel_safe returns once the server has it.
    done = threading.Event()

    def cancel_until_done():
        while not done.wait(1.0):
            conn.cancel_safe()

    canceler = threading.Thread(target=cancel_until_done)
    canceler.start()
    started = time.monotonic()
    try:
        conn.execute("CALL spin()")
        check("long query canceled", "57014", None)
    except psycopg.Error as e:
        check("long query canceled", ("57014", "QueryCanceled"), (e.sqlstate, type(e).__name__))
    finally:
        done.set()
        canceler.join()
    check("cancel took effect promptly", True, time.monotonic() - started < 30)
    check("canceled statement left nothing", [(0,)], conn.execute("SELECT count(*) FROM spun").fetchall())
    check("session goes on after cancel", [(1,)], conn.execute("SELECT 1").fetchall())
    conn.close()


def main():
    hyrax = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="hyrax-psycopg-")
    proc = None
    try:
        proc, port = start_server(hyrax, tmp)
        run_checks(tmp, port)
    except Exception:
        traceback.print_exc()
        failures.append("exception")
        if os.path.exists(os.path.join(tmp, "server.out")):
            print("server output:\n" + open(os.path.join(tmp, "server.out")).read())
    finally:
        if proc is not None:
            stop_server(proc)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"psycopg {psycopg.__version__} test: {passes} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
