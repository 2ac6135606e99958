#!/usr/bin/env python3
"""The DuckDB and Hyper peers of `hyrax-bench tpch` (bench/tpch/peer_python.cpp runs this script).

    peer_python.py duckdb|hyper --data DIR [--queries 1,2,...] [--repeat R] [--threads N] [--limit S]

Loads dbgen's .tbl files in DIR into the engine (the schema of bench/tpch/schema.sql), runs the
queries of bench/tpch/queries, each R times in a row as hyrax-bench runs hyrax's, and prints JSON
lines to stdout:
    {"engine": "DuckDB 2.0.1", "load_ms": 1234.5}
    {"query": 1, "rows": 4, "first_ms": 80.1, "best_ms": 61.2}     (or "error": "...")
A time is wall time from handing the text to the engine to the last row fetched into Python
values (what a user waits for: planning and compiling included). "first_ms" is the query text's
first run in the process, "best_ms" the best of the R runs. A run that exceeds the limit is
cancelled and reported as an error. Nothing else goes to stdout; progress goes to stderr.

The engines come from PyPI (duckdb, tableauhyperapi): hyrax-bench installs them into .tools/ of the
checkout when asked for these peers and puts them on PYTHONPATH.
  - DuckDB: an in-memory database, `SET threads = N`; COPY from the .tbl files.
  - Hyper: a HyperProcess with a database in a temporary directory, COPY from the .tbl files. Hyper
    has no documented per-query thread setting, so with N below the cores this process may use, it
    is confined to N of them (as `taskset -c 0` would for N = 1) before hyperd starts: hyperd
    inherits the affinity and sizes its worker pool by it.
The query texts need no changes for either engine (both take the SQL-92 forms the shared texts
use: CAST('...' AS date), EXTRACT, SUBSTRING ... FROM ... FOR, a derived table's column list);
`adapt` is where one would go. dbgen ends each line with '|', so each table gets one more column
for the empty field after it, as the PostgreSQL peer does.
"""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TABLES = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def emit(obj):
    print(json.dumps(obj), flush=True)


def schema_sql(kind):
    with open(os.path.join(HERE, "schema.sql")) as f:
        text = f.read()
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    # One more column for the empty field after dbgen's trailing '|'.
    text = re.sub(r"\)\);", "), tpch_end CHAR(1));", text)
    if kind == "hyper":  # Hyper builds no indexes; its ASSUMED keys tell the optimizer the same
        text = text.replace("PRIMARY KEY", "ASSUMED PRIMARY KEY")
    return [s.strip() for s in text.split(";") if s.strip()]


def query_text(q):
    with open(os.path.join(HERE, "queries", "q%02d.sql" % q)) as f:
        return f.read().strip().rstrip(";")


def adapt(engine, q, sql):
    """The shared text in the engine's dialect: both engines take it as it is."""
    return sql


class Engine:
    kind = ""  # duckdb or hyper
    copy = ""  # COPY of one .tbl file: table, path
    after_load = []  # statements after the COPYs

    def load(self, data):
        for stmt in schema_sql(self.kind):
            self.command(stmt)
        for t in TABLES:
            path = os.path.join(os.path.abspath(data), t + ".tbl").replace("'", "''")
            self.command(self.copy % (t, path))
        for stmt in self.after_load:
            self.command(stmt)


class DuckDB(Engine):
    kind = "duckdb"
    copy = "COPY %s FROM '%s' (DELIMITER '|', HEADER false)"
    after_load = ["ANALYZE"]

    def __init__(self, threads):
        import duckdb

        self.name = "DuckDB " + duckdb.__version__
        self.con = duckdb.connect(":memory:")
        self.con.execute("SET threads = %d" % threads)

    def command(self, sql):
        self.con.execute(sql)

    def run(self, sql):
        return len(self.con.execute(sql).fetchall())

    def cancel(self):
        self.con.interrupt()

    def close(self):
        self.con.close()


class Hyper(Engine):
    kind = "hyper"
    copy = "COPY %s FROM '%s' WITH (FORMAT csv, DELIMITER '|')"

    def __init__(self, threads):
        import tableauhyperapi as th

        cores = sorted(os.sched_getaffinity(0))
        if threads < len(cores):
            os.sched_setaffinity(0, cores[:threads])  # hyperd, started next, inherits it
        self.dir = tempfile.mkdtemp(prefix="hyrax-bench-hyper-")
        self.process = th.HyperProcess(telemetry=th.Telemetry.DO_NOT_SEND_USAGE_DATA_TO_TABLEAU,
                                       parameters={"log_config": ""})
        self.con = th.Connection(self.process.endpoint, os.path.join(self.dir, "tpch.hyper"),
                                 th.CreateMode.CREATE_AND_REPLACE)
        self.name = "Hyper " + th.__version__

    def command(self, sql):
        self.con.execute_command(sql)

    def run(self, sql):
        rows = 0
        with self.con.execute_query(sql) as result:
            for _ in result:
                rows += 1
        return rows

    def cancel(self):
        self.con.cancel()

    def close(self):
        self.con.close()
        self.process.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def timed(engine, sql, limit):
    """Runs `sql`; returns (ms, rows). Cancels it after `limit` seconds (then raises)."""
    timer = threading.Timer(limit, engine.cancel)
    timer.start()
    start = time.perf_counter()
    try:
        rows = engine.run(sql)
        ms = (time.perf_counter() - start) * 1000
    except Exception as e:
        ms = (time.perf_counter() - start) * 1000
        if ms >= limit * 1000:
            raise RuntimeError("stopped after the time limit")
        raise
    finally:
        timer.cancel()
    return ms, rows


def main():
    ap = argparse.ArgumentParser(description="TPC-H on DuckDB or Hyper for hyrax-bench tpch")
    ap.add_argument("engine", choices=["duckdb", "hyper"])
    ap.add_argument("--data", required=True, help="directory of dbgen's .tbl files")
    ap.add_argument("--queries", default=",".join(str(q) for q in range(1, 23)))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=float, default=60, help="seconds a query may take")
    args = ap.parse_args()

    engine = DuckDB(args.threads) if args.engine == "duckdb" else Hyper(args.threads)
    try:
        start = time.perf_counter()
        engine.load(args.data)
        emit({"engine": engine.name, "load_ms": (time.perf_counter() - start) * 1000})
        for q in (int(x) for x in args.queries.split(",") if x):
            sql = adapt(args.engine, q, query_text(q))
            out = {"query": q}
            try:
                for i in range(max(args.repeat, 1)):
                    ms, rows = timed(engine, sql, args.limit)
                    if i == 0:
                        out.update(rows=rows, first_ms=ms, best_ms=ms)
                    else:
                        out["best_ms"] = min(out["best_ms"], ms)
            except Exception as e:  # the engine's error for this query; go on with the next
                out = {"query": q, "error": str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}
            emit(out)
            log("%s: Q%d %s" % (engine.name, q, out.get("error", "done")))
    finally:
        engine.close()


if __name__ == "__main__":
    main()
