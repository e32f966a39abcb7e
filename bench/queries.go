package main

// query is one benchmark query. SQL runs as is on both engines (the
// tables are named alike on both); Ordered queries have a total ORDER BY
// and are compared row by row in order, the others after sorting.
type query struct {
	Name    string
	SQL     string
	Ordered bool
	// ExactDecimals: a decimal lakesql returns must equal DuckDB's decimal
	// exactly (not just once rounded to the coarser scale).
	ExactDecimals bool
}

var queries = []query{
	{Name: "Q0 count(*)", SQL: `SELECT COUNT(*) FROM lineitem`},
	{Name: "Q1 pricing summary", Ordered: true, SQL: `SELECT l_returnflag, l_linestatus,
	SUM(l_quantity) AS sum_qty,
	SUM(l_extendedprice) AS sum_base_price,
	SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
	SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
	AVG(l_quantity) AS avg_qty,
	AVG(l_extendedprice) AS avg_price,
	AVG(l_discount) AS avg_disc,
	COUNT(*) AS count_order
FROM lineitem
WHERE l_shipdate <= DATE '1998-09-02'
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus`},
	{Name: "Q6 forecast revenue", SQL: `SELECT SUM(l_extendedprice * l_discount) AS revenue
FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
	AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24`},
	{Name: "point range, all columns", SQL: `SELECT * FROM lineitem
WHERE l_shipdate BETWEEN DATE '1995-03-15' AND DATE '1995-03-16'`},
	{Name: "top-10 by extendedprice", Ordered: true, SQL: `SELECT l_orderkey, l_linenumber, l_partkey, l_quantity, l_extendedprice, l_shipdate
FROM lineitem
ORDER BY l_extendedprice DESC, l_orderkey, l_linenumber
LIMIT 10`},
	{Name: "group by partkey", SQL: `SELECT l_partkey, COUNT(*) AS n, SUM(l_quantity) AS qty, SUM(l_extendedprice) AS revenue
FROM lineitem
GROUP BY l_partkey`},
	{Name: "join orders", Ordered: true, SQL: `SELECT o_orderpriority, COUNT(*) AS n, SUM(l_extendedprice) AS revenue
FROM lineitem JOIN orders ON l_orderkey = o_orderkey
WHERE o_orderdate < DATE '1996-01-01'
GROUP BY o_orderpriority
ORDER BY o_orderpriority`},
}
