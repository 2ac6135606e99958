#!/usr/bin/env python3
"""Writes a fuzz target's seed corpus from the repository's test files (scripts/fuzz.sh runs it;
corpora are generated, never committed).

  make_corpus.py parser OUT   every statement of test/slt/**/*.slt, the TPC-H queries and schema,
                              the parser fuzz/regressions/ inputs; and OUT/../parser.dict, the
                              keywords and operators the parser's sources test for
  make_corpus.py copy OUT     the data files under test/slt and bench/tpch (cut to 40 lines),
                              each behind a few option/column headers (copy_fuzzer.cpp's layout)
  make_corpus.py json OUT     the .ndjson files under test/slt (cut to 40 lines) behind a few
                              option headers (json_fuzzer.cpp's layout)
"""
import hashlib
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_SEED = 4096


def write(out, data):
    data = data[:MAX_SEED]
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def slt_statements(path):
    """The SQL of each `statement` and `query` record (up to `----` or a blank line)."""
    sql, inside = [], False
    for line in path.read_text(errors="replace").splitlines() + [""]:
        if inside and (not line.strip() or line.startswith("----")):
            yield "\n".join(sql)
            sql, inside = [], False
        elif inside:
            sql.append(line)
        elif line.startswith("statement ") or line.startswith("query "):
            inside = True


def parser_corpus(out):
    n = 0
    for slt in sorted((ROOT / "test/slt").rglob("*.slt")):
        for stmt in slt_statements(slt):
            write(out, stmt.encode())
            n += 1
    for sql in sorted((ROOT / "bench/tpch").rglob("*.sql")):
        write(out, sql.read_bytes())
        n += 1
    for reg in sorted((ROOT / "test/fuzz/regressions/parser").glob("*")):
        write(out, reg.read_bytes())
        n += 1
    # A dictionary: the words and operators the parser compares tokens with.
    words = set()
    for src in (ROOT / "sql/parser").glob("*.cpp"):
        words.update(re.findall(r'(?:is|accept|expect)\("([^"\\]+)"\)', src.read_text()))
    words.update(["$$", "$1", "'", '"', "--", "/*", "*/", "::", "E'", "1e9", "1.5", "(", ")", ";"])
    dict_lines = ['"%s"' % w.replace("\\", "\\\\").replace('"', '\\"') for w in sorted(words)]
    (out.parent / "parser.dict").write_text("\n".join(dict_lines) + "\n")
    return n


# copy_fuzzer.cpp's type list: the index of a type for a value that looks like it.
INT64, BOOL, DEC15_2, FLOAT64, DATE, TEXT, DEC12_6, VARCHAR40 = 2, 3, 4, 8, 9, 12, 13, 14


def guess(value):
    if re.fullmatch(r"-?\d{1,18}", value):
        return INT64
    m = re.fullmatch(r"-?\d+\.(\d+)", value)
    if m:
        return DEC15_2 if len(m.group(1)) <= 2 else DEC12_6 if len(m.group(1)) <= 6 else FLOAT64
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return DATE
    if value in ("true", "false", "t", "f"):
        return BOOL
    return TEXT


def header(csv, has_header, delimiter, types, load=False):
    flags = (1 if csv else 0) | (2 if has_header else 0) | (0x70 if load else 0)
    return bytes([flags, ord(delimiter), 0, 0, 0, len(types) - 1] + types)


def copy_corpus(out):
    files = [p for p in sorted((ROOT / "test/slt").rglob("*")) if p.suffix in (".csv", ".tbl", ".txt")]
    files += sorted((ROOT / "bench/tpch").rglob("*.csv")) + sorted((ROOT / "bench/tpch").rglob("*.tbl"))
    n = 0
    for path in files:
        lines = path.read_bytes().split(b"\n")[:40]
        data = b"\n".join(lines)
        first = lines[0].decode(errors="replace")
        delimiter = "|" if "|" in first else "," if path.suffix == ".csv" else "\t"
        has_header = path.parent.parent.name == "answers" or path.name == "items.csv"
        sample = lines[1 if has_header and len(lines) > 1 else 0].decode(errors="replace")
        values = sample.split(delimiter)
        if len(values) > 1 and values[-1] == "":
            values.pop()  # dbgen's trailing delimiter
        values = values[:8]
        typed = [guess(v) for v in values]
        for csv in (False, True):
            write(out, header(csv, has_header, delimiter, typed) + data)
            write(out, header(csv, has_header, delimiter, [TEXT] * len(values)) + data)
            write(out, header(csv, has_header, delimiter, typed, load=True) + data)  # through loadRecords
        # NOT NULL columns and a refill every 3 bytes
        write(out, bytes([0, ord(delimiter), 0, 0, 3, len(typed) - 1]) + bytes(t | 0x80 for t in typed) + data)
        n += 7
    for reg in sorted((ROOT / "test/fuzz/regressions/copy").glob("*")):
        write(out, reg.read_bytes())
        n += 1
    return n


def json_corpus(out):
    """The .ndjson files under test/slt (cut to 40 lines) behind json_fuzzer.cpp's header: each
    with text columns a, b, a.b, ..., read, inferred and loaded, whole and 3 bytes at a time."""
    n = 0
    for path in sorted((ROOT / "test/slt").rglob("*.ndjson")):
        data = b"\n".join(path.read_bytes().split(b"\n")[:40])
        for flags in (0, 1, 2, 5, 0x71, 0x77):
            for step in (0, 3):
                write(out, bytes([flags, step, 5]) + bytes([9, 2, 9, 3, 5, 6]) + data)
                n += 1
    for reg in sorted((ROOT / "test/fuzz/regressions/json").glob("*")):
        write(out, reg.read_bytes())
        n += 1
    return n


def main():
    target, out = sys.argv[1], pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    n = {"parser": parser_corpus, "copy": copy_corpus, "json": json_corpus}[target](out)
    print(f"make_corpus: {n} {target} seeds in {out}")


if __name__ == "__main__":
    main()
