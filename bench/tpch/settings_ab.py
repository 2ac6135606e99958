#!/usr/bin/env python3
"""Two settings against each other, query by query, in one hyrax process.

On a shared, noisy machine two whole-suite runs a minute apart differ by more than the effect
being measured; here one shell process loads TPC-H once and alternates the two settings query
by query, several rounds of two runs each, and keeps the best run of each. Issue 18's two-thread
aim (the default: threads = 1 against threads = 2 on optimized code):

  bench/tpch/settings_ab.py --data build/tpch-data/sf1 [--hyrax build/release/cli/hyrax]
      [--queries 1,13,18] [--rounds 3] [--a "threads = 1"] [--b "threads = 2"] [--tier optimized]
      [--statement-cache on|off]

Times are the shell's --timing: a statement up to its result, not the printing of its rows.
Each of --a and --b is one or more `name = value` settings separated by ';'. With
`--statement-cache off` every run compiles its text again: the times are then what a user waits
for (compile and execute), e.g. `--tier auto --a "cheap_regalloc = 'fast'" --b "cheap_regalloc =
'greedy'"`. The data directory holds dbgen's .tbl files (hyrax-bench tpch --sf 1 makes them).
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
ap.add_argument("--a", default="threads = 1", help="the first setting(s): 'name = value; ...'")
ap.add_argument("--b", default="threads = 2", help="the second setting(s)")
ap.add_argument("--tier", default="optimized", help="SET compile_tier (optimized: the same code for both)")
ap.add_argument("--statement-cache", default="on", choices=["on", "off"])
args = ap.parse_args()

queries = [int(q) for q in args.queries.split(",")]
settings = [args.a, args.b]
tables = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
for t in tables:
    if not os.path.exists(os.path.join(args.data, t + ".tbl")):
        sys.exit(f"{t}.tbl is not in {args.data} (hyrax-bench tpch --sf 1 --data DIR makes it)")

script = open(os.path.join(here, "schema.sql")).read() + "\n"
for t in tables:
    script += f"COPY {t} FROM '{os.path.abspath(os.path.join(args.data, t + '.tbl'))}' (DELIMITER '|');\n"
script += "SET analytics = 'inline';\n" + f"SET compile_tier = '{args.tier}';\n"
script += f"SET statement_cache = '{args.statement_cache}';\n"
order = []  # what each timed statement after the load was: None for SET, else (query, setting)
for q in queries:
    text = open(os.path.join(here, "queries", f"q{q:02d}.sql")).read()
    text = " ".join(l for l in text.split("\n") if not l.strip().startswith("--")).strip().rstrip(";") + ";"
    for _ in range(args.rounds):
        for i, s in enumerate(settings):
            for one in s.split(";"):
                if one.strip():
                    script += f"SET {one.strip()};\n"
                    order.append(None)
            for _ in range(2):
                script += text + "\n"
                order.append((q, i))

out = subprocess.run([args.hyrax, "--timing"], input=script, capture_output=True, text=True)
if out.returncode != 0:
    sys.exit(out.stdout[-2000:] + out.stderr[-2000:])
times = [float(m) for m in re.findall(r"^Time: ([0-9.]+) ms", out.stdout, re.M)]
times = times[len(times) - len(order):]
best = {}
for what, ms in zip(order, times):
    if what:
        best[what] = min(best.get(what, math.inf), ms)
logs = [0.0, 0.0]
print(f"| query | {settings[0]}: ms | {settings[1]}: ms | ratio |")
print("|---|---:|---:|---:|")
for q in queries:
    x, y = best[(q, 0)], best[(q, 1)]
    logs[0] += math.log(x)
    logs[1] += math.log(y)
    print(f"| Q{q} | {x:.1f} | {y:.1f} | {x / y:.2f} |")
ga, gb = (math.exp(l / len(queries)) for l in logs)
print(f"| geomean | {ga:.1f} | {gb:.1f} | {ga / gb:.2f} |")
