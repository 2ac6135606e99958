#!/usr/bin/env python3
"""Execution at 1 thread against 2 (or any two settings), query by query, in one hyrax process.

On a shared, noisy machine two whole-suite runs a minute apart differ by more than the effect
being measured; here one shell process loads TPC-H once and alternates the two settings query
by query, several rounds, and keeps the best run of each (issue 18's two-thread aim).

  bench/tpch/threads_scaling.py --data build/tpch-data/sf1 [--hyrax build/release/cli/hyrax]
      [--queries 1,13,18] [--rounds 3] [--threads 1,2] [--tier optimized]

The data directory holds dbgen's .tbl files (hyrax-bench tpch --sf 1 makes them).
"""
import argparse
import math
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--data", required=True, help="directory of the TPC-H .tbl files")
ap.add_argument("--hyrax", default=os.path.join(root, "build/release/cli/hyrax"))
ap.add_argument("--queries", default=",".join(str(q) for q in range(1, 23)))
ap.add_argument("--rounds", type=int, default=3)
ap.add_argument("--threads", default="1,2", help="the two settings compared: a,b")
ap.add_argument("--tier", default="optimized", help="SET compile_tier (optimized: the same code at both)")
args = ap.parse_args()

queries = [int(q) for q in args.queries.split(",")]
settings = [int(t) for t in args.threads.split(",")]
tables = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
for t in tables:
    if not os.path.exists(os.path.join(args.data, t + ".tbl")):
        sys.exit(f"{t}.tbl is not in {args.data} (hyrax-bench tpch --sf 1 --data DIR makes it)")

script = open(os.path.join(here, "schema.sql")).read() + "\n"
for t in tables:
    script += f"COPY {t} FROM '{os.path.abspath(os.path.join(args.data, t + '.tbl'))}' (DELIMITER '|');\n"
script += "SET analytics = 'inline';\n" + f"SET compile_tier = '{args.tier}';\n"
order = []  # what each timed statement after the load was: None for SET, else (query, threads)
for q in queries:
    text = open(os.path.join(here, "queries", f"q{q:02d}.sql")).read()
    text = " ".join(l for l in text.split("\n") if not l.strip().startswith("--")).strip().rstrip(";") + ";"
    for _ in range(args.rounds):
        for t in settings:
            script += f"SET threads = {t};\n"
            order.append(None)
            for _ in range(2):
                script += text + "\n"
                order.append((q, t))

out = subprocess.run([args.hyrax, "--timing"], input=script, capture_output=True, text=True)
if out.returncode != 0:
    sys.exit(out.stdout[-2000:] + out.stderr[-2000:])
times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms", out.stdout, re.M)]
times = times[len(times) - len(order):]
best = {}
for what, ms in zip(order, times):
    if what:
        best[what] = min(best.get(what, math.inf), ms)
a, b = settings
logs = [0.0, 0.0]
print(f"| query | {a} thread(s) ms | {b} thread(s) ms | ratio |")
print("|---|---:|---:|---:|")
for q in queries:
    x, y = best[(q, a)], best[(q, b)]
    logs[0] += math.log(x)
    logs[1] += math.log(y)
    print(f"| Q{q} | {x:.1f} | {y:.1f} | {x / y:.2f} |")
ga, gb = (math.exp(l / len(queries)) for l in logs)
print(f"| geomean | {ga:.1f} | {gb:.1f} | {ga / gb:.2f} |")
