-- CH Q15: the suppliers with the most revenue since a date (the specification's view revenue0
-- written as a WITH clause).
WITH revenue (supplier_no, total_revenue) AS (
  SELECT mod((s_w_id * s_i_id), 10000) AS supplier_no, sum(ol_amount) AS total_revenue
  FROM order_line, stock
  WHERE ol_i_id = s_i_id AND ol_supply_w_id = s_w_id AND ol_delivery_d >= DATE '2007-01-02'
  GROUP BY mod((s_w_id * s_i_id), 10000))
SELECT su_suppkey, su_name, su_address, su_phone, total_revenue
FROM supplier, revenue
WHERE su_suppkey = supplier_no AND total_revenue = (SELECT max(total_revenue) FROM revenue)
ORDER BY su_suppkey
