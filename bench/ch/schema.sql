-- The CH-benCHmark's three tables beside TPC-C's nine (bench/tpcc/schema.sql): TPC-H's SUPPLIER,
-- NATION and REGION with its columns, prefixed su_/n_/r_ as the CH-benCHmark names them. Names are
-- VARCHAR, not CHAR, so both engines print them without padding.
CREATE TABLE region (
  r_regionkey INTEGER PRIMARY KEY, r_name VARCHAR(55), r_comment VARCHAR(152));
CREATE TABLE nation (
  n_nationkey INTEGER PRIMARY KEY, n_name VARCHAR(25), n_regionkey INTEGER, n_comment VARCHAR(152));
CREATE TABLE supplier (
  su_suppkey INTEGER PRIMARY KEY, su_name VARCHAR(25), su_address VARCHAR(40), su_nationkey INTEGER,
  su_phone CHAR(15), su_acctbal DECIMAL(12,2), su_comment VARCHAR(101));
