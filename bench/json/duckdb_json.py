#!/usr/bin/env python3
"""DuckDB's side of `hyrax-bench json`: loads FILE with read_json into a table j (nested objects
as STRUCTs; the whole file sampled for the schema, so no sparse key is missed) and runs each query
REPEAT times at each thread count after a warm-up, printing the median.

  duckdb_json.py FILE THREADS REPEAT NAME=SQL...
Output lines: "version V", "load MS", "query NAME THREADS MS ANSWER".
"""
import statistics
import sys
import time

import duckdb


def main():
    path, threads, repeat = sys.argv[1], [int(t) for t in sys.argv[2].split(",")], int(sys.argv[3])
    queries = [q.split("=", 1) for q in sys.argv[4:]]
    con = duckdb.connect()
    print("version", duckdb.__version__)
    con.execute(f"SET threads = {max(threads)}")
    start = time.perf_counter()
    con.execute(f"CREATE TABLE j AS SELECT * FROM read_json('{path}', format = 'newline_delimited', sample_size = -1)")
    print("load", f"{(time.perf_counter() - start) * 1000:.1f}")
    for n in threads:
        con.execute(f"SET threads = {n}")
        for name, sql in queries:
            rows = con.execute(sql).fetchall()
            ms = []
            for _ in range(repeat):
                start = time.perf_counter()
                rows = con.execute(sql).fetchall()
                ms.append((time.perf_counter() - start) * 1000)
            answer = rows[0][0] if len(rows) == 1 else f"{len(rows)} rows"
            print("query", name, n, f"{statistics.median(ms):.2f}", answer)


if __name__ == "__main__":
    main()
