#!/usr/bin/env bash
# End-to-end checks of the hyrax shell as a user runs it: -c, -f, standard input, output formats,
# meta commands, error output with position, exit codes.
set -u
hyrax="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
check() {  # name, expected, actual
  if [ "$2" == "$3" ]; then passes=$((passes + 1)); else
    fails=$((fails + 1)); printf 'FAILED: %s\n--- expected\n%s\n--- actual\n%s\n' "$1" "$2" "$3"; fi
}

out=$("$hyrax" --csv -c "CREATE TABLE t (a INT, b TEXT); INSERT INTO t VALUES (2, 'x,y'), (1, NULL); SELECT * FROM t ORDER BY a;")
check "csv output" $'CREATE TABLE\nINSERT 0 2\na,b\n1,\n2,"x,y"' "$out"

# RETURNING's rows, then the write's tag (as psql prints them).
out=$("$hyrax" --csv -c "CREATE TABLE t (id SERIAL, b TEXT); INSERT INTO t (b) VALUES ('x'), (NULL) RETURNING id, b; DELETE FROM t WHERE id = 1 RETURNING b AS gone;")
check "RETURNING rows and tag" $'CREATE TABLE\nid,b\n1,x\n2,\nINSERT 0 2\ngone\nx\nDELETE 1' "$out"

out=$("$hyrax" --json -c "SELECT 1 AS n, 'q\"' AS s, NULL AS z, 1.50 AS d")
check "json output" $'[\n {"n": 1, "s": "q\\"", "z": null, "d": 1.50}\n]' "$out"

out=$("$hyrax" -c "SELECT 42 AS answer, 'hi' AS greeting;")
check "aligned output" $' answer | greeting\n--------+----------\n     42 | hi\n(1 row)' "$out"

printf 'CREATE TABLE t (a INT);\nINSERT INTO t\n  VALUES (1), (2);\nSELECT sum(a)\n  FROM t;\n' > "$tmp/script.sql"
out=$("$hyrax" --csv -f "$tmp/script.sql")
check "file with multi-line statements" $'CREATE TABLE\nINSERT 0 2\nsum\n3' "$out"

out=$(printf 'SELECT 1 AS a;\n\\pset format csv\nSELECT 2 AS b;\n' | "$hyrax")
check "stdin with meta commands" $' a\n---\n 1\n(1 row)\n\nOutput format is csv.\nb\n2' "$out"

err=$("$hyrax" -c "SELECT 1;
SELECT nothere FROM (SELECT 1 AS a) x;" 2>&1 >/dev/null)
code=$?
check "error output" $'ERROR:  42703: column "nothere" does not exist\nLINE 1: SELECT nothere FROM (SELECT 1 AS a) x;\n               ^' "$err"
check "exit code on error" "1" "$code"

"$hyrax" -c "SELECT 1" >/dev/null
check "exit code on success" "0" "$?"

out=$(printf 'CREATE TABLE items (id INTEGER NOT NULL, name VARCHAR(10), PRIMARY KEY (id));\n\\d items\n' | "$hyrax")
check "describe table" $'CREATE TABLE\nTable "items" (0 rows)\n column               | type                 | nullable | key\n----------------------+----------------------+----------+-----\n id                   | INTEGER              | no       | PK\n name                 | VARCHAR(10)          | yes      | \nIndexes:\n    "items_pkey" PRIMARY KEY, hash (id)' "$out"

out=$(printf 'CREATE TABLE d (id INT PRIMARY KEY, c CHAR(2) UNIQUE);\nCREATE TABLE e (id INT PRIMARY KEY, d INT REFERENCES d, CHECK (id > 0));\n\\d d\n' | "$hyrax" | tail -5)
check "describe constraints" $'Indexes:\n    "d_pkey" PRIMARY KEY, hash (id)\n    "d_c_key" UNIQUE, hash (c)\nReferenced by:\n    TABLE "e" CONSTRAINT "e_d_fkey"' "$out"

err=$("$hyrax" -c "COMMIT;" 2>&1 >/dev/null)
check "warning outside a transaction" "WARNING:  there is no transaction in progress" "$err"

# A procedure body over several lines, with semicolons inside $$ ... $$; RAISE NOTICE reaches the user.
err=$(printf 'CREATE PROCEDURE hi(n INTEGER) AS $$\nBEGIN\n  FOR i IN 1..n LOOP\n    RAISE NOTICE %s, i;\n  END LOOP;\nEND $$;\nCALL hi(2);\n' "'hello %'" | "$hyrax" 2>&1 >/dev/null)
check "procedure notices" $'NOTICE:  hello 1\nNOTICE:  hello 2' "$err"

out=$(printf 'CREATE TABLE t2 (a INTEGER);\nCREATE VIEW v2 (x) AS SELECT a FROM t2 WHERE a > 1;\n\\d v2\n\\d\n' | "$hyrax")
check "describe view" $'CREATE TABLE\nCREATE VIEW\nView "v2" (x)\n AS SELECT a FROM t2 WHERE a > 1\n        List of tables\n name                 | columns | rows\n----------------------+---------+-----------\n t2                   |       1 |         0\n(1 table)\n\n        List of views\n name                 | query\n----------------------+------------------------------\n v2                   | SELECT a FROM t2 WHERE a > 1' "$out"

out=$(printf '\\o %s/out.txt\nSELECT 7 AS seven;\n\\o\n\\i %s/script.sql\n' "$tmp" "$tmp" | "$hyrax" --csv)
check "\\o and \\i" $'CREATE TABLE\nINSERT 0 2\nsum\n3' "$out"
check "\\o file contents" $'seven\n7' "$(cat "$tmp/out.txt")"

out=$(printf '\\timing on\nSELECT 1;\n' | "$hyrax" --csv | grep -c '^Time: ')
check "timing" "1" "$out"

err=$(printf '\\nosuch\n' | "$hyrax" 2>&1)
check "unknown meta command" $'invalid command \\nosuch\nTry \\? for help.' "$err"

out=$(printf 'CREATE TABLE t (a INT, b TEXT);\nCOPY t FROM STDIN;\n1\tone\n2\t\\N\n\\.\nCOPY t FROM STDIN (FORMAT csv);\n3,"x,y"\n' | "$hyrax" --csv)
check "COPY FROM STDIN (ended by \\. and by the end of input)" $'CREATE TABLE\nCOPY 2\nCOPY 1' "$out"

out=$("$hyrax" -c "CREATE TABLE t (a INT, b TEXT); INSERT INTO t VALUES (1, 'x,y'), (2, NULL); COPY t TO STDOUT (FORMAT csv, HEADER); COPY (SELECT b FROM t ORDER BY a) TO STDOUT;")
check "COPY TO STDOUT" $'CREATE TABLE\nINSERT 0 2\na,b\n1,"x,y"\n2,\nCOPY 2\nx,y\n\\N\nCOPY 2' "$out"

err=$(printf 'CREATE TABLE t (a INT);\nCOPY t FROM STDIN;\n1\nx\n\\.\nSELECT count(*) FROM t;\n' | "$hyrax" --csv 2>&1)
check "a failed COPY FROM STDIN loads nothing" $'CREATE TABLE\nERROR:  22P02: COPY t, STDIN line 2, column 1 (a): invalid input syntax for type integer: "x"\ncount\n0' "$err"

out=$(printf 'CREATE TABLE t (a INT, "b.c" TEXT);\nCOPY t FROM STDIN (FORMAT json);\n{"a": 1, "b": {"c": "x"}}\n\n{"a": 2}\n\\.\nSELECT a, "b.c" FROM t ORDER BY a;\n' | "$hyrax" --csv)
check "COPY FROM STDIN (FORMAT json)" $'CREATE TABLE\nCOPY 2\na,b.c\n1,x\n2,' "$out"

err=$(printf 'CREATE TABLE t (a INT);\nCOPY t FROM STDIN (FORMAT json);\n{"a": 1}\n{"a": 2, "z": 3}\n\\.\nSELECT count(*) FROM t;\n' | "$hyrax" --csv 2>&1)
check "a failed COPY FROM STDIN (FORMAT json) loads nothing" $'CREATE TABLE\nERROR:  22P02: COPY t, STDIN line 2: key "z" at byte column 10: matches no column (the option IGNORE_UNKNOWN_KEYS true skips such keys)\ncount\n0' "$err"

# Empty statements and a last line that is a comment run nothing and fail nothing (as in psql).
printf 'SELECT 1 AS one;\n;;\n-- the end\n' > "$tmp/comment.sql"
out=$("$hyrax" --csv -f "$tmp/comment.sql" 2>&1)
code=$?
check "a script ending in a comment" $'one\n1' "$out"
check "its exit code" "0" "$code"
out=$(printf ';;;\n' | "$hyrax" 2>&1)
code=$?
check "only semicolons" "" "$out"
check "their exit code" "0" "$code"

# A file that includes itself stops with an error after 64 levels instead of overflowing the stack.
printf 'SELECT 1 AS x;\n\\i %s/self.sql\n' "$tmp" > "$tmp/self.sql"
err=$("$hyrax" --csv -f "$tmp/self.sql" 2>&1 >/dev/null)
code=$?
check "self-including file" "ERROR:  54001: \\i nested more than 64 levels deep (does \"$tmp/self.sql\" include itself?)" "$err"
check "self-including file's exit code" "1" "$code"

# Ctrl-C at the prompt clears the line; the shell and its tables stay (it used to quit silently).
out=$(python3 "$(dirname "$0")/ctrl_c_at_prompt.py" "$hyrax" "$tmp" | tr -d '\r' | grep -E '^ +42$|^status')
check "Ctrl-C at the prompt" $'     42\nstatus 0' "$out"

# A statement whose intermediate results do not fit in memory fails with 53200 (it said XX000
# std::bad_alloc) and leaves nothing; the session goes on. The process gets 3 GB of address space.
python3 -c "
print('CREATE TABLE n (x INTEGER);')
print('INSERT INTO n VALUES ' + ','.join(f'({i})' for i in range(1000)) + ';')
print('CREATE TABLE t (a INTEGER, b INTEGER, c INTEGER);')
print('INSERT INTO t SELECT a.x, b.x, c.x FROM n a, n b, n c;')
print('SELECT count(*) FROM t;')" > "$tmp/oom.sql"
if ! ldd "$hyrax" | grep -q libasan; then  # AddressSanitizer's shadow memory needs more address space
  out=$( (ulimit -v 3000000; "$hyrax" --csv -f "$tmp/oom.sql" 2>&1) | tail -3)
  check "out of memory" $'ERROR:  53200: out of memory: the statement\'s intermediate results did not fit\ncount\n0' "$out"
fi

"$hyrax" --help | grep -q -- "--command" ; check "help" "0" "$?"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
