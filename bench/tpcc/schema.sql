-- TPC-C (revision 5.11) tables, clause 1.3, in SQL both hyrax and PostgreSQL read. Timestamps are
-- DATEs (hyrax has no TIMESTAMP yet). The secondary indexes serve the transactions' lookups:
-- customers by last name and a customer's orders.
CREATE TABLE warehouse (
  w_id INTEGER PRIMARY KEY, w_name VARCHAR(10), w_street_1 VARCHAR(20), w_street_2 VARCHAR(20),
  w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2));
CREATE TABLE district (
  d_id INTEGER, d_w_id INTEGER, d_name VARCHAR(10), d_street_1 VARCHAR(20), d_street_2 VARCHAR(20),
  d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2),
  d_next_o_id INTEGER, PRIMARY KEY (d_w_id, d_id));
CREATE TABLE customer (
  c_id INTEGER, c_d_id INTEGER, c_w_id INTEGER, c_first VARCHAR(16), c_middle CHAR(2), c_last VARCHAR(16),
  c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), c_state CHAR(2), c_zip CHAR(9),
  c_phone CHAR(16), c_since DATE, c_credit CHAR(2), c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4),
  c_balance DECIMAL(12,2), c_ytd_payment DECIMAL(12,2), c_payment_cnt INTEGER, c_delivery_cnt INTEGER,
  c_data VARCHAR(500), PRIMARY KEY (c_w_id, c_d_id, c_id));
CREATE TABLE history (
  h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER, h_w_id INTEGER, h_date DATE,
  h_amount DECIMAL(6,2), h_data VARCHAR(24));
CREATE TABLE new_order (
  no_o_id INTEGER, no_d_id INTEGER, no_w_id INTEGER, PRIMARY KEY (no_w_id, no_d_id, no_o_id));
CREATE TABLE orders (
  o_id INTEGER, o_d_id INTEGER, o_w_id INTEGER, o_c_id INTEGER, o_entry_d DATE, o_carrier_id INTEGER,
  o_ol_cnt INTEGER, o_all_local INTEGER, PRIMARY KEY (o_w_id, o_d_id, o_id));
CREATE TABLE order_line (
  ol_o_id INTEGER, ol_d_id INTEGER, ol_w_id INTEGER, ol_number INTEGER, ol_i_id INTEGER,
  ol_supply_w_id INTEGER, ol_delivery_d DATE, ol_quantity INTEGER, ol_amount DECIMAL(6,2),
  ol_dist_info CHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number));
CREATE TABLE item (
  i_id INTEGER PRIMARY KEY, i_im_id INTEGER, i_name VARCHAR(24), i_price DECIMAL(5,2), i_data VARCHAR(50));
CREATE TABLE stock (
  s_i_id INTEGER, s_w_id INTEGER, s_quantity INTEGER, s_dist_01 CHAR(24), s_dist_02 CHAR(24),
  s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), s_dist_07 CHAR(24),
  s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), s_ytd INTEGER, s_order_cnt INTEGER,
  s_remote_cnt INTEGER, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id));
CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last);
CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id);
-- The primary keys are ordered (adaptive radix trees): a district's new orders, an order's lines
-- and a range of a district's orders are ranges of them and need no index of their own.
