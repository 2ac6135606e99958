-- CH Q6: revenue of the lines delivered in a period.
SELECT sum(ol_amount) AS revenue
FROM order_line
WHERE ol_delivery_d >= DATE '1999-01-01' AND ol_delivery_d < DATE '2020-01-01'
  AND ol_quantity BETWEEN 1 AND 100000
