-- The five TPC-C transactions (clause 2) as stored procedures, in the PL/pgSQL subset hyrax
-- compiles; PostgreSQL runs the same text. Terminal output is computed but not returned. A
-- statement separator line "--;;" follows each procedure (bodies contain semicolons).
-- New-Order's item list arrives as 15 (item, supply warehouse, quantity) triples, of which the
-- first p_ol_cnt count; an unknown item (the 1% the driver asks for) raises and rolls back.
CREATE PROCEDURE new_order(p_w_id INTEGER, p_d_id INTEGER, p_c_id INTEGER, p_ol_cnt INTEGER, p_all_local INTEGER,
    p_entry_d DATE, i1 INTEGER, s1 INTEGER, q1 INTEGER, i2 INTEGER, s2 INTEGER, q2 INTEGER, i3 INTEGER, s3 INTEGER, q3 INTEGER, i4 INTEGER, s4 INTEGER, q4 INTEGER, i5 INTEGER, s5 INTEGER, q5 INTEGER, i6 INTEGER, s6 INTEGER, q6 INTEGER, i7 INTEGER, s7 INTEGER, q7 INTEGER, i8 INTEGER, s8 INTEGER, q8 INTEGER, i9 INTEGER, s9 INTEGER, q9 INTEGER, i10 INTEGER, s10 INTEGER, q10 INTEGER, i11 INTEGER, s11 INTEGER, q11 INTEGER, i12 INTEGER, s12 INTEGER, q12 INTEGER, i13 INTEGER, s13 INTEGER, q13 INTEGER, i14 INTEGER, s14 INTEGER, q14 INTEGER, i15 INTEGER, s15 INTEGER, q15 INTEGER) AS $$
DECLARE
  v_w_tax DECIMAL(4,4);
  v_d_tax DECIMAL(4,4);
  v_o_id INTEGER;
  v_discount DECIMAL(4,4);
  v_last VARCHAR(16);
  v_credit CHAR(2);
  v_i_id INTEGER;
  v_supply INTEGER;
  v_qty INTEGER;
  v_price DECIMAL(5,2);
  v_name VARCHAR(24);
  v_idata VARCHAR(50);
  v_s_qty INTEGER;
  v_dist CHAR(24);
  v_sdata VARCHAR(50);
  v_amount DECIMAL(6,2);
  v_total DECIMAL(12,2) := 0;
BEGIN
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w_id;
  -- The district's row is updated before it is read: on a server with concurrent sessions
  -- (PostgreSQL, read committed) the update's row lock orders two New-Orders, so they never read
  -- the same next order number. hyrax runs them one after another either way.
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT c_discount, c_last, c_credit INTO v_discount, v_last, v_credit
    FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
  INSERT INTO orders VALUES (v_o_id, p_d_id, p_w_id, p_c_id, p_entry_d, NULL, p_ol_cnt, p_all_local);
  INSERT INTO new_order VALUES (v_o_id, p_d_id, p_w_id);
  FOR n IN 1..p_ol_cnt LOOP
    v_i_id := CASE n WHEN 1 THEN i1 WHEN 2 THEN i2 WHEN 3 THEN i3 WHEN 4 THEN i4 WHEN 5 THEN i5 WHEN 6 THEN i6 WHEN 7 THEN i7 WHEN 8 THEN i8 WHEN 9 THEN i9 WHEN 10 THEN i10 WHEN 11 THEN i11 WHEN 12 THEN i12 WHEN 13 THEN i13 WHEN 14 THEN i14 WHEN 15 THEN i15 END;
    v_supply := CASE n WHEN 1 THEN s1 WHEN 2 THEN s2 WHEN 3 THEN s3 WHEN 4 THEN s4 WHEN 5 THEN s5 WHEN 6 THEN s6 WHEN 7 THEN s7 WHEN 8 THEN s8 WHEN 9 THEN s9 WHEN 10 THEN s10 WHEN 11 THEN s11 WHEN 12 THEN s12 WHEN 13 THEN s13 WHEN 14 THEN s14 WHEN 15 THEN s15 END;
    v_qty := CASE n WHEN 1 THEN q1 WHEN 2 THEN q2 WHEN 3 THEN q3 WHEN 4 THEN q4 WHEN 5 THEN q5 WHEN 6 THEN q6 WHEN 7 THEN q7 WHEN 8 THEN q8 WHEN 9 THEN q9 WHEN 10 THEN q10 WHEN 11 THEN q11 WHEN 12 THEN q12 WHEN 13 THEN q13 WHEN 14 THEN q14 WHEN 15 THEN q15 END;
    SELECT i_price, i_name, i_data INTO v_price, v_name, v_idata FROM item WHERE i_id = v_i_id;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'Item number is not valid';
    END IF;
    SELECT s_quantity, CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 WHEN 10 THEN s_dist_10 END, s_data INTO v_s_qty, v_dist, v_sdata
      FROM stock WHERE s_w_id = v_supply AND s_i_id = v_i_id;
    IF v_s_qty - v_qty >= 10 THEN
      v_s_qty := v_s_qty - v_qty;
    ELSE
      v_s_qty := v_s_qty - v_qty + 91;
    END IF;
    UPDATE stock SET s_quantity = v_s_qty, s_ytd = s_ytd + v_qty, s_order_cnt = s_order_cnt + 1,
        s_remote_cnt = s_remote_cnt + CASE WHEN v_supply <> p_w_id THEN 1 ELSE 0 END
      WHERE s_w_id = v_supply AND s_i_id = v_i_id;
    v_amount := v_qty * v_price;
    INSERT INTO order_line VALUES (v_o_id, p_d_id, p_w_id, n, v_i_id, v_supply, NULL, v_qty, v_amount, v_dist);
    v_total := v_total + v_amount;
  END LOOP;
  v_total := v_total * (1 - v_discount) * (1 + v_w_tax + v_d_tax);
END
$$ LANGUAGE plpgsql;
--;;
-- Payment: by customer number (p_by_name = 0) or by last name (the middle one by first name).
CREATE PROCEDURE payment(p_w_id INTEGER, p_d_id INTEGER, p_c_w_id INTEGER, p_c_d_id INTEGER, p_c_id INTEGER,
    p_c_last VARCHAR(16), p_by_name INTEGER, p_amount DECIMAL(6,2), p_date DATE) AS $$
DECLARE
  v_w_name VARCHAR(10);
  v_d_name VARCHAR(10);
  v_c_id INTEGER;
  v_cnt INTEGER;
  v_k INTEGER := 0;
  v_credit CHAR(2);
  v_data VARCHAR(500);
  rec RECORD;
BEGIN
  UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w_id;
  SELECT w_name INTO v_w_name FROM warehouse WHERE w_id = p_w_id;
  UPDATE district SET d_ytd = d_ytd + p_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT d_name INTO v_d_name FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
  IF p_by_name = 1 THEN
    SELECT count(*) INTO v_cnt FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
    FOR rec IN SELECT c_id FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last
        ORDER BY c_first LOOP
      v_k := v_k + 1;
      IF v_k >= (v_cnt + 1) / 2 THEN
        v_c_id := rec.c_id;
        EXIT;
      END IF;
    END LOOP;
  ELSE
    v_c_id := p_c_id;
  END IF;
  SELECT c_credit, c_data INTO v_credit, v_data FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  IF v_credit = 'BC' THEN
    UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
        c_payment_cnt = c_payment_cnt + 1,
        c_data = substring(v_c_id || ' ' || p_c_d_id || ' ' || p_c_w_id || ' ' || p_d_id || ' ' || p_w_id || ' ' ||
                           p_amount || ' | ' || v_data from 1 for 500)
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  ELSE
    UPDATE customer SET c_balance = c_balance - p_amount, c_ytd_payment = c_ytd_payment + p_amount,
        c_payment_cnt = c_payment_cnt + 1
      WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  END IF;
  INSERT INTO history VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, p_date, p_amount, v_w_name || '    ' || v_d_name);
END
$$ LANGUAGE plpgsql;
--;;
-- Order-Status: read-only; the customer's last order and its lines.
CREATE PROCEDURE order_status(p_w_id INTEGER, p_d_id INTEGER, p_c_id INTEGER, p_c_last VARCHAR(16), p_by_name INTEGER) AS $$
DECLARE
  v_c_id INTEGER;
  v_cnt INTEGER;
  v_k INTEGER := 0;
  v_balance DECIMAL(12,2);
  v_first VARCHAR(16);
  v_middle CHAR(2);
  v_last VARCHAR(16);
  v_o_id INTEGER;
  v_entry DATE;
  v_carrier INTEGER;
  v_lines INTEGER := 0;
  rec RECORD;
BEGIN
  IF p_by_name = 1 THEN
    SELECT count(*) INTO v_cnt FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last;
    FOR rec IN SELECT c_id FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last
        ORDER BY c_first LOOP
      v_k := v_k + 1;
      IF v_k >= (v_cnt + 1) / 2 THEN
        v_c_id := rec.c_id;
        EXIT;
      END IF;
    END LOOP;
  ELSE
    v_c_id := p_c_id;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
    FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;
  SELECT max(o_id) INTO v_o_id FROM orders WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id;
  SELECT o_entry_d, o_carrier_id INTO v_entry, v_carrier FROM orders WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_id = v_o_id;
  FOR rec IN SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
      WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o_id LOOP
    v_lines := v_lines + 1;
  END LOOP;
END
$$ LANGUAGE plpgsql;
--;;
-- Delivery: the oldest new order of each of the warehouse's ten districts.
CREATE PROCEDURE delivery(p_w_id INTEGER, p_carrier_id INTEGER, p_date DATE) AS $$
DECLARE
  v_o_id INTEGER;
  v_c_id INTEGER;
  v_total DECIMAL(12,2);
BEGIN
  FOR d IN 1..10 LOOP
    SELECT min(no_o_id) INTO v_o_id FROM new_order WHERE no_w_id = p_w_id AND no_d_id = d;
    IF v_o_id IS NOT NULL THEN
      DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = d AND no_o_id = v_o_id;
      -- Not found: a concurrent session's Delivery took that order first (PostgreSQL's sessions).
      IF FOUND THEN
        SELECT o_c_id INTO v_c_id FROM orders WHERE o_w_id = p_w_id AND o_d_id = d AND o_id = v_o_id;
        UPDATE orders SET o_carrier_id = p_carrier_id WHERE o_w_id = p_w_id AND o_d_id = d AND o_id = v_o_id;
        UPDATE order_line SET ol_delivery_d = p_date WHERE ol_w_id = p_w_id AND ol_d_id = d AND ol_o_id = v_o_id;
        SELECT sum(ol_amount) INTO v_total FROM order_line WHERE ol_w_id = p_w_id AND ol_d_id = d AND ol_o_id = v_o_id;
        UPDATE customer SET c_balance = c_balance + v_total, c_delivery_cnt = c_delivery_cnt + 1
          WHERE c_w_id = p_w_id AND c_d_id = d AND c_id = v_c_id;
      END IF;
    END IF;
  END LOOP;
END
$$ LANGUAGE plpgsql;
--;;
-- Stock-Level: read-only; distinct items of the district's last 20 orders whose stock is low.
CREATE PROCEDURE stock_level(p_w_id INTEGER, p_d_id INTEGER, p_threshold INTEGER) AS $$
DECLARE
  v_next INTEGER;
  v_low INTEGER;
BEGIN
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT count(DISTINCT s_i_id) INTO v_low FROM order_line, stock
    WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id < v_next AND ol_o_id >= v_next - 20
      AND s_w_id = p_w_id AND s_i_id = ol_i_id AND s_quantity < p_threshold;
END
$$ LANGUAGE plpgsql;
