-- CH Q20: German suppliers with a surplus of items whose data begins with 'co'. The
-- specification's ol_delivery_d > '2010-05-23 12:00:00' is, on DATEs, ol_delivery_d > '2010-05-23'.
SELECT su_name, su_address
FROM supplier, nation
WHERE su_suppkey IN (SELECT mod(s_i_id * s_w_id, 10000)
                     FROM stock, order_line
                     WHERE s_i_id IN (SELECT i_id FROM item WHERE i_data LIKE 'co%')
                       AND ol_i_id = s_i_id AND ol_delivery_d > DATE '2010-05-23'
                     GROUP BY s_i_id, s_w_id, s_quantity
                     HAVING 2 * s_quantity > sum(ol_quantity))
  AND su_nationkey = n_nationkey AND n_name = 'Germany'
ORDER BY su_name
