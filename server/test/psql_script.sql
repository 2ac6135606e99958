CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2), in_stock BOOLEAN, added DATE, weight DOUBLE PRECISION, code CHAR(3));
INSERT INTO items VALUES (1, 'apple', 0.50, true, DATE '2024-01-15', 0.2, 'ap'), (2, NULL, NULL, NULL, NULL, NULL, NULL), (3, 'päron', 1.25, false, DATE '2024-02-29', 0.25, 'pe');
SELECT * FROM items ORDER BY id;
-- an error: its SQLSTATE and position (in characters: 'ä' above is one)
SELECT id, 'ä', nosuch FROM items;
-- a unique violation, with its detail
INSERT INTO items VALUES (1, 'again', 1, true, NULL, NULL, NULL);
-- a block rolled back leaves nothing behind
BEGIN;
INSERT INTO items (id, name) VALUES (4, 'plum');
SELECT count(*) FROM items;
ROLLBACK;
SELECT count(*) FROM items;
-- a failed block refuses statements until ROLLBACK
BEGIN;
SELECT 1 / 0;
SELECT 1;
ROLLBACK;
-- COPY FROM STDIN, psql's \copy, COPY TO STDOUT
COPY items (id, name) FROM STDIN;
10	fig
11	kiwi
\.
\copy items (id, name, price) from stdin
12	lime	0.30
\.
COPY (SELECT id, name, price FROM items ORDER BY id) TO STDOUT;
COPY (SELECT id, name FROM items WHERE id > 10 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER);
-- malformed COPY data loads nothing
COPY items (id, name) FROM STDIN;
20	ok
twenty-one	bad
\.
SELECT count(*) FROM items;
-- RAISE NOTICE from a procedure, a WARNING
CREATE PROCEDURE greet(who VARCHAR) AS $$ BEGIN RAISE NOTICE 'hello, %', who; END $$ LANGUAGE plpgsql;
CALL greet('psql');
COMMIT;
-- several statements in one Query message: a failure stops the rest
SELECT 'first' AS a \; SELECT 1 / 0 \; SELECT 'never' AS c;
SELECT 'after' AS d;
-- psql's meta-commands whose catalog queries use arrays (ARRAY(...), = ANY, array_to_string,
-- unnest): a table's columns, types, NOT NULL, defaults and indexes; databases; roles.
CREATE TABLE described (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL DEFAULT 'none', price DECIMAL(8,2), added DATE);
CREATE INDEX described_name ON described (name);
\d described
\d+ described
\l
\du
